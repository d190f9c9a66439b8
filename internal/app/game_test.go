package app_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/replay"
	"github.com/nebulaengine/nebula/internal/app"
	"github.com/nebulaengine/nebula/internal/cli"
)

// arena is a small game that is not the demo: its own component and
// resource, its own flags (-arena, which its recordings and matches carry,
// and -taunt, which they do not), and recording and multiplayer from
// package app alone: Records and Networked set, nothing else written.
type arena struct {
	half    float64 // -arena: half the arena's width
	taunt   bool    // -taunt: the player's cube says so in the log (not simulation)
	printHP bool    // -print-hp: print "hp A B" at the end of the run
}

// The arena's actions, declared once in its game definition: "move", a
// two-axis action (move-x and move-y) of the arrow keys.
const (
	moveX input.Action = iota
	moveY
)

var arenaActions = input.ActionMap{
	Names:   []string{"move-x", "move-y"},
	Vectors: []input.Vector{{X: "move-x", Y: "move-y"}},
	Bindings: `move-x key ArrowRight
move-x key ArrowLeft scale=-1
move-y key ArrowUp
move-y key ArrowDown scale=-1
`,
}

func (a *arena) game() app.Game {
	return app.Game{
		Flags: func(fs *flag.FlagSet) {
			fs.Float64Var(&a.half, "arena", 10, "half the arena's `width`")
			fs.BoolVar(&a.taunt, "taunt", false, "log a taunt")
			fs.BoolVar(&a.printHP, "print-hp", false, "print the cubes' points at the end")
		},
		Check: func(*cli.Options) error {
			if a.half <= 0 || a.half > 1000 {
				return cli.Usagef("-arena %v: must be above 0 and at most 1000", a.half)
			}
			return nil
		},
		Scene:     "arena-test",
		Actions:   arenaActions,
		Params:    []string{"arena"},
		Records:   true,
		Networked: true,
		Run:       a.run,
	}
}

// hp is the arena's component: every player's cube loses a point each time
// it hits a wall.
type hp struct{ Points int32 }

func (a *arena) run(s *app.Process) error {
	e, err := engine.New(s.EngineConfig())
	if err != nil {
		return err
	}
	health := engine.NewComponent[hp](e.World, "hp")
	xs := engine.NewResource[[engine.MaxPlayers]float32](e.World, "x", [engine.MaxPlayers]float32{})
	// A cube for each of two players, spawned before the first tick (the
	// fixed systems only read the handles: the world holds the state).
	var cubes [2]engine.Entity
	for i := range cubes {
		cubes[i] = e.World.Spawn(geom.NewTransform([3]float32{float32(i), 0, 0}), engine.Interpolate)
		health.Set(cubes[i], hp{Points: 100})
	}
	half := float32(a.half)
	e.AddSystem(engine.StageScripts, "move", func(c *engine.FixedContext) {
		step := func(id engine.PlayerID, in *input.Sample) {
			if int(id) >= len(cubes) {
				return
			}
			cube := cubes[id]
			x := &xs.Ptr()[id]
			// The keys reach the game as its "move" action only.
			vx, _ := in.ActionVector(moveX, moveY)
			*x += float32(float32(5*vx) * c.DT)
			if *x > half || *x < -half {
				*x = min(max(*x, -half), half)
				health.Ptr(cube).Points--
			}
		}
		for i := range c.Players.Len() {
			step(c.Players.At(i))
		}
	})
	// Player p holds right for 40+p ticks, then left, and again.
	p := uint64(s.Player())
	e.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		switch (tick + 7*p) % 80 {
		case 0:
			in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeyArrowLeft})
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeyArrowRight})
		case 40 + p%10:
			in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeyArrowRight})
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeyArrowLeft})
		}
	})
	if a.taunt {
		s.Log.Info("come and get me")
	}
	if err := s.RunHeadless(e); err != nil {
		return err
	}
	if a.printHP && e.World.Tick() > 0 { // not the probe of a client's world
		h0, _ := health.Get(cubes[0])
		h1, _ := health.Get(cubes[1])
		fmt.Fprintf(s.Stdout, "hp %d %d\n", h0.Points, h1.Points)
	}
	return nil
}

// syncBuffer is a bytes.Buffer that several goroutines may write and read.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// play runs the arena game in this process with args.
func play(args ...string) (int, string, string) {
	var stdout, stderr syncBuffer
	code := app.Main("arena", args, &stdout, &stderr, (&arena{}).game())
	return code, stdout.String(), stderr.String()
}

var hashLine = regexp.MustCompile(`state-hash (\d+) ([0-9a-f]{16})\n`)

// A game that only sets Records records with -record, and -replay -verify
// checks the file, taking -arena from it; the recording's header carries
// the game's parameter, and a conflicting -arena is refused.
func TestGameRecordsAndVerifies(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "arena.rep")
	code, out, errs := play("-headless", "-ticks", "600", "-arena", "2.5", "-taunt", "-record", path, "-print-hash", "-print-hp", "-log-level", "error")
	if code != 0 {
		t.Fatalf("recording: status %d: %s", code, errs)
	}
	// The script's keys moved the cube through the "move" action into the
	// walls: the player's cube lost points.
	if !regexp.MustCompile(`(?m)^hp [1-9]\d? 100$`).MatchString(out) {
		t.Errorf("recording printed %q, want player 0's cube below 100 points (moved by its action) and the other's at 100", out)
	}
	out = hashLine.FindString(out)
	want := hashLine.FindString(out)
	if !strings.HasPrefix(want, "state-hash 600 ") {
		t.Fatalf("recording printed %q, want a state-hash line at tick 600", out)
	}
	// Another -arena is another game: the hash differs.
	if _, other, _ := play("-headless", "-ticks", "600", "-arena", "9", "-print-hash", "-log-level", "error"); other == out {
		t.Fatalf("-arena changes nothing: %q", other)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	p, err := app.ParseParams(r.Header.Params)
	if err != nil || len(p) != 1 || p["arena"] != "2.5" || r.Header.Scene != "arena-test" {
		t.Fatalf("header: scene %q, params %v (%v); want arena-test and arena=2.5 only", r.Header.Scene, p, err)
	}

	code, out, errs = play("-replay", path, "-headless", "-verify", "-print-hash", "-log-level", "error")
	if code != 0 || out != "replay ok 600\n"+want {
		t.Errorf("verify: status %d, stdout %q, stderr %q; want %q", code, out, errs, "replay ok 600\n"+want)
	}
	code, _, errs = play("-replay", path, "-headless", "-verify", "-arena", "3", "-log-level", "error")
	const conflict = "header field arena: the recording has 2.5, but -arena 3 was given (leave the flag out: a replay takes it from the file)"
	if code != 1 || !strings.Contains(errs, conflict) || strings.Count(errs, "\n") != 1 {
		t.Errorf("a conflicting -arena: status %d, stderr %q; want 1 and %q", code, errs, conflict)
	}
	// A game without Records has no such flags.
	g := (&arena{}).game()
	g.Records, g.Networked = false, false
	var stderr bytes.Buffer
	if code := app.Main("arena", []string{"-record", path}, &bytes.Buffer{}, &stderr, g); code != 2 || !strings.Contains(stderr.String(), "flag provided but not defined: -record") {
		t.Errorf("-record without Records: status %d, %q", code, stderr.String())
	}
}

// TestMain makes the test binary the arena game when NEBULA_ARENA_GAME is
// set: the match test runs its server and players as processes of their
// own, as players on different machines are.
func TestMain(m *testing.M) {
	if os.Getenv("NEBULA_ARENA_GAME") == "1" {
		os.Exit(app.Main("arena", os.Args[1:], os.Stdout, os.Stderr, (&arena{}).game()))
	}
	os.Exit(m.Run())
}

// arenaProc is the arena game running as a child process of a test.
type arenaProc struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	done           chan struct{}
	err            error
}

// startArena starts the arena game with args; it is killed when the test
// ends.
func startArena(t *testing.T, args ...string) *arenaProc {
	t.Helper()
	p := &arenaProc{done: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], args...)
	p.cmd.Env = append(os.Environ(), "NEBULA_ARENA_GAME=1")
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits for the process to end (failing the test after timeout) and
// returns its stdout, stderr and exit error.
func (p *arenaProc) wait(t *testing.T, name string, timeout time.Duration) (string, string, error) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		t.Fatalf("%s did not end within %v\nstdout:\n%s\nstderr:\n%s", name, timeout, p.stdout.String(), p.stderr.String())
	}
	return p.stdout.String(), p.stderr.String(), p.err
}

// A game that only sets Networked serves a two-player match on loopback
// (-serve) and its clients join it (-connect), each a process of its own:
// all three end at the match's last tick with the same state hash; the
// clients took -arena from the server (the one given another warns), and
// the server's recording verifies.
func TestGamePlaysATwoPlayerMatch(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "match.rep")
	srv := startArena(t, "-serve", "127.0.0.1:0", "-players", "2", "-ticks", "300", "-arena", "3", "-record", rec, "-print-hash", "-print-hp", "-log-level", "warn")
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == ""; {
		if m := regexp.MustCompile(`listening on (\S+)\n`).FindStringSubmatch(srv.stdout.String()); m != nil {
			addr = m[1]
			break
		}
		select {
		case <-srv.done:
			t.Fatalf("the server ended before listening: %v: %s", srv.err, srv.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not listen within 30 s")
		}
	}
	clients := []*arenaProc{
		startArena(t, "-connect", addr, "-headless", "-print-hash", "-log-level", "warn"),
		startArena(t, "-connect", addr, "-headless", "-print-hash", "-log-level", "warn", "-arena", "7"), // ignored, with a warning: the server's counts
	}
	out, errs, err := srv.wait(t, "the server", 120*time.Second)
	if err != nil {
		t.Fatalf("server: %v\n%s\n%s", err, out, errs)
	}
	want := hashLine.FindString(out)
	if !strings.HasPrefix(want, "state-hash 300 ") || !strings.Contains(out, "2 players") {
		t.Fatalf("server printed %q, want a 2-player report and a state-hash line at tick 300", out)
	}
	// The clients' scripts pressed keys; the clients resolved them into
	// the game's declared "move" action, and the server's world moved
	// both cubes into the walls.
	if !regexp.MustCompile(`(?m)^hp [1-9]\d? [1-9]\d?$`).MatchString(out) {
		t.Errorf("server printed %q, want both cubes below 100 points: the players' actions reached it", out)
	}
	for i, c := range clients {
		out, errs, err := c.wait(t, fmt.Sprintf("player %d", i), 30*time.Second)
		if got := hashLine.FindString(out); err != nil || got != want {
			t.Errorf("player %d: %v, hash %q, want %q\n%s", i, err, got, want, errs)
		}
		warned := strings.Contains(errs, `ignored: the game's parameters are the server's`) && strings.Contains(errs, "flag=-arena")
		if warned != (i == 1) {
			t.Errorf("player %d warned that its -arena was ignored: %v, want %v\n%s", i, warned, i == 1, errs)
		}
	}
	code, out, errs := play("-replay", rec, "-headless", "-verify", "-print-hash", "-log-level", "error")
	if code != 0 || out != "replay ok 300\n"+want {
		t.Errorf("verifying the match: status %d, stdout %q, stderr %q", code, out, errs)
	}
	t.Logf("match at %s: %s", addr, strings.TrimSpace(want))
}

// -synctest re-simulates every tick from earlier states with the game's
// actions resolved as in a plain run: it passes, and its hash is a plain
// run's, which the actions moved.
func TestGameSyncTestWithActions(t *testing.T) {
	code, plain, errs := play("-headless", "-ticks", "300", "-arena", "2.5", "-print-hash", "-print-hp", "-log-level", "error")
	if code != 0 || !regexp.MustCompile(`(?m)^hp [1-9]\d? 100$`).MatchString(plain) {
		t.Fatalf("plain run: status %d, stdout %q: %s", code, plain, errs)
	}
	code, out, errs := play("-headless", "-ticks", "300", "-arena", "2.5", "-synctest", "4", "-print-hash", "-log-level", "error")
	if want := "synctest ok 300 depth 4\n" + hashLine.FindString(plain); code != 0 || out != want {
		t.Errorf("synctest: status %d, stdout %q, want %q: %s", code, out, want, errs)
	}
}
