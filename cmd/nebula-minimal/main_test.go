package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/ragdoll"
	"github.com/nebulaengine/nebula/internal/app"
	"github.com/nebulaengine/nebula/internal/cli"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
	"github.com/nebulaengine/nebula/internal/testbin"
)

// The game is tested as a user plays it: the binary, built once, run under
// an X server, its keys sent with xdotool, its screenshots compared.

// minimalProgram is the game's binary, built once for every test of the package.
var minimalProgram = testbin.New("nebula-minimal", ".")

// minimalBinary returns the game's binary, building it on first use.
func minimalBinary(t *testing.T) string { t.Helper(); return minimalProgram.Path(t) }

func TestMain(m *testing.M) {
	code := m.Run()
	minimalProgram.Remove()
	os.Exit(code)
}

// The common flags work as in the demo: a headless run prints its state
// hash, and a bad flag ends with status 2 and one line.
func TestHeadlessAndBadFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := app.Main("nebula-minimal", []string{"-headless", "-ticks", "120", "-print-hash", "-log-level", "error"}, &stdout, &stderr, minimal); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	if got := stdout.String(); !strings.HasPrefix(got, "state-hash 120 ") || len(got) != len("state-hash 120 ")+17 {
		t.Errorf("stdout %q, want one state-hash line", got)
	}
	stdout.Reset()
	stderr.Reset()
	if code := app.Main("nebula-minimal", []string{"-power", "eco"}, &stdout, &stderr, minimal); code != 2 {
		t.Errorf("-power eco: exit status %d, want 2", code)
	}
	if got, want := stderr.String(), "nebula-minimal: -power eco: must be normal or low\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	checkRecording(t)
}

// checkRecording checks the recording flags as the game defines them:
// with app.Game.Records, -record writes a recording that -replay -verify
// replays to the same hashes; without it they are unknown flags, refused.
func checkRecording(t *testing.T) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	rec := filepath.Join(t.TempDir(), "r.rep")
	code := app.Main("nebula-minimal", []string{"-headless", "-ticks", "10", "-record", rec, "-log-level", "error"}, &stdout, &stderr, minimal)
	if !minimal.Records {
		if code != 2 {
			t.Errorf("-record without Records: exit status %d, want 2", code)
		}
		if got, want := stderr.String(), "nebula-minimal: flag provided but not defined: -record (see -h)\n"; got != want {
			t.Errorf("stderr %q, want %q", got, want)
		}
		return
	}
	if code != 0 {
		t.Fatalf("-record: exit status %d: %s", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := app.Main("nebula-minimal", []string{"-headless", "-replay", rec, "-verify", "-log-level", "error"}, &stdout, &stderr, minimal); code != 0 {
		t.Fatalf("-replay -verify: exit status %d: %s", code, stderr.String())
	}
	if got, want := stdout.String(), "replay ok 10\n"; got != want {
		t.Errorf("-replay -verify printed %q, want %q", got, want)
	}
}

// -h lists the flags the game defines and nothing else: the common ones,
// -bindings when it declares actions, the recording and multiplayer flags
// when its app.Game asks for them, and its own (app.Game.Flags). The demo's
// own flags, and the recording flags of a game that does not record, mean
// nothing here and are refused.
func TestHelpListsOnlyItsFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := app.Main("nebula-minimal", []string{"-h"}, &stdout, &stderr, minimal); code != 0 {
		t.Fatalf("-h: exit status %d", code)
	}
	usage := stderr.String()
	if !strings.HasPrefix(usage, "Usage: nebula-minimal [flags]\n") {
		t.Errorf("usage starts %q", usage[:min(len(usage), 40)])
	}
	defined := flag.NewFlagSet("defined", flag.ContinueOnError)
	opts := cli.Register(defined)
	if minimal.Records {
		opts.RegisterRecording(defined)
	}
	if minimal.Networked {
		opts.RegisterNetwork(defined)
	}
	if minimal.Flags != nil {
		minimal.Flags(defined)
	}
	n := 0
	defined.VisitAll(func(f *flag.Flag) {
		n++
		if !strings.Contains(usage, "\n  -"+f.Name+" ") && !strings.Contains(usage, "\n  -"+f.Name+"\n") {
			t.Errorf("usage lacks the flag -%s", f.Name)
		}
	})
	want := n
	if minimal.Actions.Len() > 0 {
		// app defines -bindings for a game that declares actions.
		want++
		if !strings.Contains(usage, "\n  -bindings file\n") {
			t.Errorf("usage lacks -bindings for the game's actions:\n%s", usage)
		}
	}
	if got := strings.Count(usage, "\n  -"); got != want {
		t.Errorf("usage lists %d flags, want the %d the game defines:\n%s", got, want, usage)
	}
	for _, name := range []string{"entities", "panic-at-tick", "record", "replay", "verify", "partial", "crash-dir", "serve", "connect"} {
		if defined.Lookup(name) != nil {
			continue
		}
		if strings.Contains(usage, "-"+name) {
			t.Errorf("usage lists -%s, which means nothing to nebula-minimal", name)
		}
		stderr.Reset()
		if code := app.Main("nebula-minimal", []string{"-" + name, "1"}, &stdout, &stderr, minimal); code != 2 {
			t.Errorf("-%s: exit status %d, want 2", name, code)
		}
		if got, want := stderr.String(), "nebula-minimal: flag provided but not defined: -"+name+" (see -h)\n"; got != want {
			t.Errorf("stderr %q, want %q", got, want)
		}
	}
}

// A flag that means nothing in the chosen mode is refused, not ignored.
func TestModeRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-headless", "-ticks", "10", "-hitch-dir", "/etc/passwd"}, "-hitch-dir needs a window: it means nothing with -headless"},
		{[]string{"-headless", "-ticks", "10", "-screenshot", "s.png"}, "-screenshot needs a window: it means nothing with -headless"},
		{[]string{"-headless", "-frames", "10", "-duration", "1s"}, "-duration needs a window: it means nothing with -headless"},
		{[]string{"-display-hz", "30"}, "-display-hz needs -headless"},
	} {
		var stdout, stderr bytes.Buffer
		if code := app.Main("nebula-minimal", tc.args, &stdout, &stderr, minimal); code != 2 {
			t.Errorf("%q: exit status %d, want 2", tc.args, code)
		}
		if got, want := stderr.String(), "nebula-minimal: "+tc.want+"\n"; got != want {
			t.Errorf("%q: stderr %q, want %q", tc.args, got, want)
		}
	}
}

// The arrow keys move the character (a green box): a run without keys and
// a run with the Right arrow held until it has walked 10 m, ended with
// Esc, each save a screenshot at exit. The character (the green pixels)
// has left the place it had, and moved to the right, not up or down.
func TestArrowKeysMoveTheCube(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		platformtest.SkipOrFail(t, fmt.Errorf("no X display ($DISPLAY is empty); run under xvfb-run, as make test does"))
	}
	platformtest.RequireTool(t, "xdotool")
	bin := minimalBinary(t)
	dir := t.TempDir()
	common := []string{"-width", "480", "-height", "300", "-hitch", "0", "-log-level", "warn"}

	before := filepath.Join(dir, "before.png")
	cmd := exec.Command(bin, append(common, "-duration", "1s", "-screenshot", before)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run without keys: %v\n%s", err, out)
	}

	platformtest.LockInput(t) // the keys must reach this window and no other test's
	after := filepath.Join(dir, "after.png")
	// -duration only ends a game that ignores Esc, long after the test
	// has given up waiting for it: an end by -duration is not an end by Esc.
	game := exec.Command(bin, append(common, "-duration", "10m", "-screenshot", after)...)
	var stderr bytes.Buffer
	game.Stderr = &stderr
	if err := game.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- game.Wait() }()
	defer func() {
		if game.ProcessState == nil {
			game.Process.Kill()
			<-done
		}
	}()
	id := platformtest.XDoTool(t, "search", "--sync", "--onlyvisible", "--pid", fmt.Sprint(game.Process.Pid), "--name", "^"+regexp.QuoteMeta(title))
	if strings.Contains(id, "\n") {
		t.Fatalf("several windows: %q", id)
	}
	// The title (the game's, main.go's title) shows the distance
	// travelled, a resource in the world.
	distance := func() (float64, string) {
		shown := platformtest.XDoTool(t, "getwindowname", id)
		rest, ok := strings.CutPrefix(shown, title+"  distance ")
		if !ok {
			return -1, shown
		}
		d, err := strconv.ParseFloat(rest, 64)
		if err != nil {
			return -1, shown
		}
		return d, shown
	}
	// waitDistance reads the title until ok holds, for up to a minute: a
	// loaded machine may starve the game for a while.
	waitDistance := func(what string, ok func(d float64) bool) float64 {
		deadline := time.Now().Add(time.Minute)
		for {
			d, shown := distance()
			if ok(d) {
				return d
			}
			if time.Now().After(deadline) {
				t.Fatalf("the window title did not show %s within a minute: %q", what, shown)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitDistance("distance 0 (frames at rest)", func(d float64) bool { return d == 0 })
	// Hold Right until the cube has gone 10 units (about 1.3 s at 8
	// units/s, however long that takes here), then let go.
	platformtest.XDoTool(t, "keydown", "--window", id, "Right")
	waitDistance("a distance of 10 with Right held", func(d float64) bool { return d >= 10 })
	platformtest.XDoTool(t, "keyup", "--window", id, "Right")
	// The cube stops: the distance is the same in two readings 250 ms
	// apart.
	last := -2.0 // no reading yet (-1: a title without the distance)
	dist := waitDistance("the cube stopping after Right went up", func(d float64) bool {
		if d == last {
			return true
		}
		last = d
		time.Sleep(250 * time.Millisecond)
		return false
	})
	_, shown := distance()
	if dist < 10 || dist > 20 {
		t.Errorf("window title %q after Right was let go at distance 10, want \"%s  distance D\" with D in [10, 20]", shown, title)
	}
	t.Logf("title %q", shown)
	// The game quits on Esc's press and may have destroyed its window
	// before a release sent to the window would arrive (xdotool key sends
	// both, and fails on the release). The release goes to the focus, to
	// leave no key held in the X server when xdotool pressed it through
	// XTEST, as it does for the focused window.
	platformtest.XDoTool(t, "keydown", "--window", id, "Escape")
	defer platformtest.XDoToolErr("keyup", "Escape")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the game ended with %v after Esc, want status 0\n%s", err, stderr.String())
		}
	case <-time.After(time.Minute):
		// SIGQUIT makes the Go runtime print every goroutine's stack: what
		// the game was doing instead of quitting.
		game.Process.Signal(syscall.SIGQUIT)
		<-done
		t.Fatalf("the game did not end within a minute of Esc\n%s", stderr.String())
	}

	a, b := readPNG(t, before), readPNG(t, after)
	ca, na := greenCentroid(a)
	cb, nb := greenCentroid(b)
	t.Logf("cube at (%.0f, %.0f), %d pixels, without keys; at (%.0f, %.0f), %d pixels, after Right", ca[0], ca[1], na, cb[0], cb[1], nb)
	if na < 100 || nb < 100 {
		t.Fatalf("the cube covers %d pixels before and %d after, want at least 100 in each screenshot", na, nb)
	}
	if a.Bounds() != b.Bounds() {
		t.Fatalf("screenshots are %v and %v", a.Bounds(), b.Bounds())
	}
	// Where the cube was, the screenshots differ: it is not there any more.
	differ := 0
	for y := a.Rect.Min.Y; y < a.Rect.Max.Y; y++ {
		for x := a.Rect.Min.X; x < a.Rect.Max.X; x++ {
			if green(a, x, y) && !green(b, x, y) {
				differ++
			}
		}
	}
	if differ < na/2 {
		t.Errorf("only %d of the cube's %d pixels changed after the Right key, want most", differ, na)
	}
	// 10 units or more are about 100 pixels here: a clear move to the
	// right is asked for.
	if dx, dy := cb[0]-ca[0], cb[1]-ca[1]; dx < 30 || dy > 5 || dy < -5 {
		t.Errorf("the cube moved by (%.0f, %.0f) pixels, want to the right (more than 30) and not up or down", dx, dy)
	}
}

func readPNG(t *testing.T, path string) *image.RGBA {
	t.Helper()
	img := platformtest.ReadPNG(t, path)
	rgba := image.NewRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			rgba.Set(x, y, img.At(x, y))
		}
	}
	return rgba
}

// green reports whether the pixel is the cube's: lit green, where the
// background is a dark blue-grey and the floor grey. The sums are ints: in
// uint8, 2*R wraps for R >= 128, and the HUD's white text read as green.
func green(img *image.RGBA, x, y int) bool {
	c := img.RGBAAt(x, y)
	r, g, b := int(c.R), int(c.G), int(c.B)
	return g > 100 && g > 2*r && g > 2*b
}

// greenCentroid returns the mean position of the cube's pixels and their
// number.
func greenCentroid(img *image.RGBA) ([2]float64, int) {
	var sx, sy float64
	n := 0
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		for x := img.Rect.Min.X; x < img.Rect.Max.X; x++ {
			if green(img, x, y) {
				sx, sy, n = sx+float64(x), sy+float64(y), n+1
			}
		}
	}
	if n == 0 {
		return [2]float64{}, 0
	}
	return [2]float64{sx / float64(n), sy / float64(n)}, n
}

// README.md and docs/api.md say how long this game is ("in about N
// lines"): the claim holds within 5 lines of main.go's count. It is a claim
// about Nebula's own module: in a game made from it (scripts/newgame.sh),
// whose main.go grows as it likes, the test has nothing to check.
func TestLengthClaim(t *testing.T) {
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	// Split, so that newgame.sh's rewrite of import paths leaves it alone.
	if !strings.HasPrefix(string(gomod), "module github.com/nebulaengine/"+"nebula\n") {
		t.Skip("not Nebula's own module: a game's copy of this program")
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(src), "\n")
	claim := regexp.MustCompile(`in about (\d+) lines`)
	for _, doc := range []string{"../../README.md", "../../docs/api.md"} {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		m := claim.FindSubmatch(text)
		if m == nil {
			t.Errorf("%s does not say how long nebula-minimal is (\"in about N lines\")", doc)
			continue
		}
		n, _ := strconv.Atoi(string(m[1]))
		if d := lines - n; d < -5 || d > 5 {
			t.Errorf("%s says nebula-minimal is about %d lines; main.go has %d: change the number, or the game", doc, n, lines)
		}
	}
}

// newHeadlessWorld returns the game's world with the game's actions, as a
// run of the program has them, for a test to drive tick by tick.
func newHeadlessWorld(t *testing.T) *world {
	t.Helper()
	g, err := newWorld(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	actions, err := minimal.Actions.New()
	if err != nil {
		t.Fatal(err)
	}
	g.e.Input.SetActions(actions)
	return g
}

// The character has the known answers of a body under gravity, walking
// on flat ground: held for 1 s, D (WASD's right) walks it speed metres
// along +x and W speed metres along -z (away from the camera), grounded
// all the way; a jump (Space) rises jumpSpeed²/2g and lands 2·jumpSpeed/g
// later, where it left.
func TestCharacterWalksAndJumps(t *testing.T) {
	g := newHeadlessWorld(t)
	keys := map[uint64][]input.Event{
		30: {{Kind: input.KeyDown, Key: input.KeyD}}, 90: {{Kind: input.KeyUp, Key: input.KeyD}},
		120: {{Kind: input.KeyDown, Key: input.KeyW}}, 180: {{Kind: input.KeyUp, Key: input.KeyW}},
		200: {{Kind: input.KeyDown, Key: input.KeySpace}}, 201: {{Kind: input.KeyUp, Key: input.KeySpace}},
	}
	g.e.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		for _, ev := range keys[tick] {
			ev.Time = due
			in.Push(ev)
		}
	})
	// pos[n] and grounded[n]: the character at the end of tick n.
	pos, grounded := []mgl32.Vec3{{}}, []bool{false}
	for g.e.World.Tick() < 320 {
		if !g.e.StepTick(0) {
			t.Fatal(g.e.Err())
		}
		ch, _ := g.space.Character(g.player)
		pos, grounded = append(pos, g.e.World.Transform(g.player).Pos), append(grounded, ch.Grounded)
	}
	near := func(a, b, tol float32) bool { return a-b <= tol && b-a <= tol }
	if d := pos[89].Sub(pos[29]); !near(d[0], speed, 0.01) || !near(d[1], 0, 0.001) || d[2] != 0 {
		t.Errorf("D held 1 s: moved %v, want (%v, 0, 0)", d, speed)
	}
	if d := pos[179].Sub(pos[119]); !near(d[2], -speed, 0.01) || d[0] != 0 {
		t.Errorf("W held 1 s: moved %v, want (0, 0, %v)", d, -speed)
	}
	for n := 1; n < 200; n++ {
		if !grounded[n] {
			t.Fatalf("tick %d: off the ground before the jump", n)
		}
	}
	if got, want := g.distance.Get(), float32(2*speed); !near(got, want, 0.01) {
		t.Errorf("distance walked %v, want %v", got, want)
	}
	// The jump, from tick 200: at most a few mm off jumpSpeed²/2g (at
	// rest the character keeps between half and all of its 1 cm Offset
	// from the floor, and its first move up takes the whole Offset).
	base, top, landed := pos[199][1], float32(math.Inf(-1)), 0
	for n := 200; n <= 320; n++ {
		top = max(top, pos[n][1])
		if landed == 0 && n > 201 && grounded[n] {
			landed = n
		}
	}
	want := float32(jumpSpeed * jumpSpeed / (2 * 9.81))
	t.Logf("the jump rose %.4f m (jumpSpeed²/2g = %.4f) and landed at tick %d", top-base, want, landed)
	if !near(top-base, want, 0.005) {
		t.Errorf("the jump rose %.4f m, want %.4f within 5 mm", top-base, want)
	}
	if flight := 2 * jumpSpeed / 9.81 * 60; math.Abs(float64(landed-200)-flight) > 2 {
		t.Errorf("landed %d ticks after the jump, want %.1f (2·jumpSpeed/g)", landed-200, flight)
	}
	if !near(pos[320][1], base, 0.006) {
		t.Errorf("after landing at height %.4f, want %.4f", pos[320][1], base)
	}
}

// TestLampHangsOnItsRope: the lamp hangs still at the end of its 1.5 m
// rope, 1.5 m up, and swings when the player walks into it.
func TestLampHangsOnItsRope(t *testing.T) {
	g := newHeadlessWorld(t)
	g.e.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		if tick == 130 {
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeyW})
		}
	})
	step := func(n int) {
		for range n {
			if !g.e.StepTick(0) {
				t.Fatal(g.e.Err())
			}
		}
	}
	step(120)
	if p := g.e.World.Transform(g.lamp).Pos; p.Sub(mgl32.Vec3{-4, 1.5, -4}).Len() > 1e-3 {
		t.Fatalf("the lamp is at %v after 2 s, want hanging at (-4, 1.5, -4)", p)
	}
	// The player, set down 3 m in front of it, walks into it.
	if err := g.space.Teleport(g.player, mgl32.Vec3{-4, 0.91, -1}, mgl32.QuatIdent()); err != nil {
		t.Fatal(err)
	}
	step(60)
	p := g.e.World.Transform(g.lamp).Pos
	if p.Sub(mgl32.Vec3{-4, 1.5, -4}).Len() < 0.1 {
		t.Errorf("the lamp is at %v after the player walked into it, want pushed aside", p)
	}
	if d := p.Sub(mgl32.Vec3{-4, 3, -4}).Len(); d > 1.5+1e-3 {
		t.Errorf("the lamp is %.4f m from the rope's top, want at most 1.5", d)
	}
}

// The training dummy falls as a ragdoll when the player walks up to it,
// pushed away from the player, lies on the floor, and stands up where it
// lies downTicks later, animated again standTicks after that.
func TestDummyFallsAndStandsUp(t *testing.T) {
	g := newHeadlessWorld(t)
	phase := func() ragdoll.Phase { p, _ := g.ragdolls.Phase(g.dummy); return p }
	held := false // W, until the dummy falls
	g.e.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		switch {
		case tick == 2:
			held = true
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeyW})
		case held && phase() == ragdoll.Falling:
			held = false
			in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeyW})
		}
	})
	// stepUntil steps until done holds, at most limit ticks, and returns
	// the ticks stepped.
	stepUntil := func(limit int, done func() bool) int {
		for n := 1; n <= limit; n++ {
			if !g.e.StepTick(0) {
				t.Fatal(g.e.Err())
			}
			if done() {
				return n
			}
		}
		return -1
	}
	// Set down 2.5 m in front of it (+z), the player walks up to it.
	if err := g.space.Teleport(g.player, mgl32.Vec3{4, 0.91, -1.5}, mgl32.QuatIdent()); err != nil {
		t.Fatal(err)
	}
	if n := stepUntil(60, func() bool { return phase() == ragdoll.Falling }); n < 0 {
		t.Fatal("the dummy still stands 1 s after the player walked up to it")
	}
	var root mgl32.Vec3
	down := stepUntil(downTicks+1, func() bool {
		if phase() == ragdoll.Falling {
			rd, _ := g.ragdolls.Component().Get(g.dummy)
			root = g.e.World.Transform(rd.Bodies[0]).Pos
		}
		return phase() != ragdoll.Falling
	})
	if down != downTicks || root[1] > 0.5 || root[2] > -4.2 {
		t.Fatalf("the dummy lay %d ticks with its pelvis at %v at the end; want %d ticks, on the floor (y < 0.5), pushed away from the player (z < -4.2)", down, root, downTicks)
	}
	p := g.e.World.Transform(g.dummy).Pos
	if p[1] != dummyHeight/2 || math.Abs(float64(p[0]-root[0])) > 1e-6 || math.Abs(float64(p[2]-root[2])) > 1e-6 {
		t.Errorf("the dummy stands up at %v; want standing (y %v) where its pelvis lay, %v", p, float32(dummyHeight/2), root)
	}
	if n := stepUntil(standTicks+1, func() bool { return phase() == ragdoll.Animated }); n != standTicks+1 {
		t.Errorf("standing up took %d ticks, want %d", n, standTicks+1)
	}
}

// The lamp lights the floor and the player casts the sun's shadow: in a
// screenshot, the floor under the lamp is lit by its warm light, redder
// (red less blue 15 more) and brighter than the floor as far from it on
// the other side of the player, which the default light alone leaves
// blue-grey; and the floor just behind the player's left side, where its
// shadow falls (the light comes from up, right and front), is darker than
// the floor behind its right side, which nothing shades (and which the
// lamp, farther away, lights less).
func TestLampLightsTheFloorAndThePlayerCastsAShadow(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		platformtest.SkipOrFail(t, fmt.Errorf("no X display ($DISPLAY is empty); run under xvfb-run, as make test does"))
	}
	bin := minimalBinary(t)
	path := filepath.Join(t.TempDir(), "lamp.png")
	const w, h = 480, 300
	cmd := exec.Command(bin, "-width", "480", "-height", "300", "-hitch", "0", "-log-level", "warn", "-duration", "1s", "-screenshot", path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	img := readPNG(t, path)
	cam := desktop.DefaultCamera()
	at := func(p mgl32.Vec3) [3]int {
		c := cam.ViewProjection(float32(w) / float32(h)).Mul4x1(p.Vec4(1))
		px := img.RGBAAt(int((c[0]/c[3]+1)/2*w), int((1-c[1]/c[3])/2*h))
		return [3]int{int(px.R), int(px.G), int(px.B)}
	}
	under := at(mgl32.Vec3{-4, 0, -3.2}) // the floor just in front of the lamp, hanging at (-4, 1.5, -4)
	away := at(mgl32.Vec3{4, 0, 4.8})    // as far on the other side of the player
	t.Logf("the floor under the lamp %v, away from it %v", under, away)
	if under[0]-under[2] < away[0]-away[2]+15 || under[0]+under[1]+under[2] < away[0]+away[1]+away[2]+60 {
		t.Errorf("the floor under the lamp is %v and away from it %v: want the lamp's warm light (red less blue 15 more) and brighter (60 more)", under, away)
	}
	// The player is a box 0.8 m wide and 1.8 m tall at the origin.
	shaded, open := at(mgl32.Vec3{-0.7, 0, -0.7}), at(mgl32.Vec3{0.7, 0, -0.7})
	t.Logf("the floor behind the player's left %v, behind its right %v", shaded, open)
	if shaded[0]+shaded[1]+shaded[2] > open[0]+open[1]+open[2]-60 {
		t.Errorf("the floor behind the player's left is %v and behind its right %v: want its shadow on the left (60 darker in R+G+B)", shaded, open)
	}
}
