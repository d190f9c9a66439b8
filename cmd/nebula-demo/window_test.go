package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
	"github.com/nebulaengine/nebula/internal/testbin"
)

// The windowed demo is tested as a whole program: the binary, built once,
// run under an X server with its flags, its statistics file read back.

// demo is the demo's binary, built once for every test of the package.
var demo = testbin.New("nebula-demo", ".")

// demoBinary returns the demo's binary, building it on first use.
func demoBinary(t testing.TB) string { t.Helper(); return demo.Path(t) }

func TestMain(m *testing.M) {
	code := m.Run()
	demo.Remove()
	os.Exit(code)
}

// needDisplay skips the test without an X display, or fails it under
// NEBULA_REQUIRE_GL=1.
func needDisplay(t testing.TB) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		platformtest.SkipOrFail(t, fmt.Errorf("no X display ($DISPLAY is empty); run under xvfb-run, as make test does"))
	}
}

// statsRow is one row of the -stats CSV (diag.CSV): the loop columns plus
// dropped_ms.
type statsRow struct {
	frame, steps, tick      int
	tMS, frameMS, droppedMS float64
}

func readStats(t *testing.T, path string) []statsRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(recs) < 2 {
		t.Fatalf("%s has %d lines, want a header and rows", path, len(recs))
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	for _, name := range []string{"frame", "t_ms", "frame_ms", "steps", "alpha", "tick", "fps", "ups", "dropped_ms"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("%s header %v lacks column %q", path, recs[0], name)
		}
	}
	rows := make([]statsRow, 0, len(recs)-1)
	for i, rec := range recs[1:] {
		num := func(name string) float64 {
			v, err := strconv.ParseFloat(rec[col[name]], 64)
			if err != nil {
				t.Fatalf("%s row %d column %s: %v", path, i+1, name, err)
			}
			return v
		}
		rows = append(rows, statsRow{
			frame: int(num("frame")), steps: int(num("steps")), tick: int(num("tick")),
			tMS: num("t_ms"), frameMS: num("frame_ms"), droppedMS: num("dropped_ms"),
		})
	}
	return rows
}

// checkTicksFollowTheClock checks the loop's central promise on a real
// run: at every frame, the ticks run so far are the whole ticks in the
// time since the loop started, less the time the clamps dropped, and each
// frame's steps are the ticks it added.
func checkTicksFollowTheClock(t *testing.T, rows []statsRow, rate float64) {
	t.Helper()
	for i, r := range rows {
		if r.frame != i+1 {
			t.Fatalf("row %d is frame %d, want %d", i+1, r.frame, i+1)
		}
		// t_ms and dropped_ms are printed to 0.1 µs: allow that much
		// either side of a tick boundary.
		simMS := r.tMS - r.droppedMS
		lo := int(math.Floor((simMS - 0.001) * rate / 1000))
		hi := int(math.Floor((simMS + 0.001) * rate / 1000))
		if r.tick < lo || r.tick > hi {
			t.Errorf("frame %d at %.4f ms (%.4f ms dropped): tick %d, want %d at %g Hz", r.frame, r.tMS, r.droppedMS, r.tick, lo, rate)
		}
		if i > 0 && r.tick-rows[i-1].tick != r.steps {
			t.Errorf("frame %d: %d steps, but the tick went from %d to %d", r.frame, r.steps, rows[i-1].tick, r.tick)
		}
	}
}

// A windowed run with the render rate below the tick rate: every frame runs
// the ticks its time owes (2 or 3 at 144 Hz ticks and 60 FPS), the CSV has
// one row per frame, and the screenshot is the window's size and shows the
// scene.
func TestWindowedRunStatsAndScreenshot(t *testing.T) {
	needDisplay(t)
	bin := demoBinary(t)
	dir := t.TempDir()
	statsPath, shotPath := filepath.Join(dir, "s.csv"), filepath.Join(dir, "shot.png")
	cmd := exec.Command(bin, "-frames", "90", "-fps", "60", "-tick-rate", "144", "-entities", "200",
		"-width", "320", "-height", "200", "-stats", statsPath, "-screenshot", shotPath, "-hitch", "0", "-log-level", "warn")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	rows := readStats(t, statsPath)
	if len(rows) != 90 {
		t.Fatalf("%d rows, want one per frame (90)", len(rows))
	}
	checkTicksFollowTheClock(t, rows, 144)
	if last := rows[len(rows)-1]; last.tick < 144 {
		t.Errorf("90 frames at 60 FPS ran %d ticks at 144 Hz, want about 216 (at least 144)", last.tick)
	}

	img := platformtest.ReadPNG(t, shotPath)
	if b := img.Bounds(); b.Dx() != 320 || b.Dy() != 200 {
		t.Errorf("screenshot is %v, want 320x200", b)
	}
	// Cubes are lit and coloured; the background pulses between black and
	// dark blue. Count the pixels brighter than any background.
	bright := 0
	for y := range 200 {
		for x := range 320 {
			r, g, _, _ := img.At(x, y).RGBA()
			if r>>8 > 60 || g>>8 > 60 {
				bright++
			}
		}
	}
	if bright < 200 {
		t.Errorf("the screenshot has %d bright pixels, want the scene's cubes (at least 200)", bright)
	}
}

// xserver is a private X server with a window manager, for what plain Xvfb
// cannot do: minimising and restoring a window, and closing it politely.
type xserver struct {
	display string
	env     []string
}

// startXServer starts Xvfb on a free display and jwm on it, and waits until
// the window manager answers. Both are stopped when the test ends.
func startXServer(t testing.TB) *xserver {
	t.Helper()
	for _, tool := range []string{"Xvfb", "jwm", "xdotool"} {
		platformtest.RequireTool(t, tool)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	xvfb := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1024x768x24", "-nolisten", "tcp", "-noreset")
	xvfb.ExtraFiles = []*os.File{w}
	if err := xvfb.Start(); err != nil {
		t.Fatalf("Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() { xvfb.Process.Kill(); xvfb.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("Xvfb did not report its display: %v", err)
	}
	x := &xserver{display: ":" + strings.TrimSpace(line)}
	x.env = append(os.Environ(), "DISPLAY="+x.display, "XAUTHORITY=")

	wm := exec.Command("jwm")
	wm.Env = x.env
	if err := wm.Start(); err != nil {
		t.Fatalf("jwm: %v", err)
	}
	t.Cleanup(func() { wm.Process.Kill(); wm.Wait() })
	// jwm publishes the EWMH desktop properties once it manages the screen.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := x.xdo("get_desktop"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jwm did not start managing %s within 10s", x.display)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return x
}

func (x *xserver) xdo(args ...string) (string, error) {
	cmd := exec.Command("xdotool", args...)
	cmd.Env = x.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("xdotool %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

func (x *xserver) mustXdo(t testing.TB, args ...string) string {
	t.Helper()
	out, err := x.xdo(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The window's life as a user lives it, driven by xdotool through a real
// window manager: the demo runs, is minimised (simulation and drawing stop),
// restored (no burst of ticks for the time it was away), resized, and closed
// with Alt+F4 (a polite close: the demo ends normally, status 0).
// demoProcess is the demo binary running as a child of a test, on the
// test's own X server.
type demoProcess struct {
	stderr bytes.Buffer
	done   chan error // receives Wait's result once
	ended  bool       // done has been received
}

// startDemo starts the demo binary with args on x. When the test ends, the
// demo is killed if it is still running.
func startDemo(t *testing.T, x *xserver, args ...string) *demoProcess {
	t.Helper()
	p := &demoProcess{done: make(chan error, 1)}
	cmd := exec.Command(demoBinary(t), args...)
	cmd.Env = x.env
	cmd.Stderr = &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if !p.ended {
			cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits at most timeout for the demo to end, after what the test did
// last, and fails the test unless it ends with status 0.
func (p *demoProcess) wait(t *testing.T, timeout time.Duration, after string) {
	t.Helper()
	select {
	case err := <-p.done:
		p.ended = true
		if err != nil {
			t.Fatalf("the demo ended with %v after %s, want status 0\n%s", err, after, p.stderr.String())
		}
	case <-time.After(timeout):
		t.Fatalf("the demo did not end within %v of %s\n%s", timeout, after, p.stderr.String())
	}
}

func TestWindowMinimiseRestoreResizeClose(t *testing.T) {
	x := startXServer(t)
	statsPath := filepath.Join(t.TempDir(), "s.csv")
	demo := startDemo(t, x, "-duration", "60s", "-entities", "100", "-width", "480", "-height", "300",
		"-stats", statsPath, "-hitch-dir", t.TempDir(), "-log-level", "debug")

	id := x.mustXdo(t, "search", "--sync", "--onlyvisible", "--name", "^Nebula demo")
	if strings.Contains(id, "\n") {
		t.Fatalf("several demo windows: %q", id)
	}
	time.Sleep(time.Second)
	// The title shows the rates and the score (a resource in the world),
	// updated twice a second.
	if title := x.mustXdo(t, "getwindowname", id); !regexp.MustCompile(`^Nebula demo  \d+ FPS  \d+ UPS  60 Hz tick  score \d+$`).MatchString(title) {
		t.Errorf("window title %q, want \"Nebula demo  <fps> FPS  <ups> UPS  60 Hz tick  score <points>\"", title)
	}
	x.mustXdo(t, "windowminimize", "--sync", id)
	const away = 1500 * time.Millisecond
	time.Sleep(away)
	x.mustXdo(t, "windowactivate", "--sync", id)
	time.Sleep(time.Second)
	x.mustXdo(t, "windowsize", "--sync", id, "400", "260")
	time.Sleep(time.Second)
	x.mustXdo(t, "windowactivate", "--sync", id)
	x.mustXdo(t, "key", "--clearmodifiers", "alt+F4")
	demo.wait(t, time.Minute, "Alt+F4")

	log := demo.stderr.String()
	for _, want := range []string{
		`msg="window minimised or restored" iconified=true`,
		`msg="window minimised or restored" iconified=false`,
		`msg="framebuffer resized" height=260 width=400`,
		`msg="frame pacing report"`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the demo's log lacks %s:\n%s", want, log)
		}
	}
	// Frame-time warnings (lines with kind=, some at level error) depend
	// on the machine's load; anything else at error level is a failure.
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "kind=") {
			continue
		}
		for _, bad := range []string{"level=error", "level=fatal", "panic", "goroutine "} {
			if strings.Contains(l, bad) {
				t.Errorf("the demo's log has %q in:\n%s", bad, l)
			}
		}
	}

	rows := readStats(t, statsPath)
	// The minimised stretch is the longest gap between two frames; the
	// first frame after it must not catch up the time away.
	gap := 1
	for i := 2; i < len(rows); i++ {
		if rows[i].tMS-rows[i-1].tMS > rows[gap].tMS-rows[gap-1].tMS {
			gap = i
		}
	}
	before, after := rows[gap-1], rows[gap]
	if d := time.Duration((after.tMS - before.tMS) * float64(time.Millisecond)); d < away*3/4 {
		t.Fatalf("the longest gap between frames is %v, want the %v the window was minimised", d, away)
	}
	t.Logf("%d frames; minimised between frames %d and %d (%.0f ms); %d steps in the frame after; %d ticks at %.0f ms",
		len(rows), before.frame, after.frame, after.tMS-before.tMS, after.steps, rows[len(rows)-1].tick, rows[len(rows)-1].tMS)
	if after.steps > 1 {
		t.Errorf("the first frame after restoring ran %d ticks, want at most 1 (no catch-up burst)", after.steps)
	}
	// No later frame catches up either: each runs the ticks of its own
	// interval (a loaded machine may make an interval long, and its ticks
	// many), plus one for the accumulator's carry.
	for _, r := range rows[gap+1:] {
		if own := int(r.frameMS*60/1000) + 1; r.steps > own {
			t.Errorf("frame %d after restoring ran %d ticks in a %.1f ms interval, want at most %d (no catch-up burst)", r.frame, r.steps, r.frameMS, own)
		}
	}
	// Over the whole run the ticks are the time the window was not away,
	// at 60 Hz: the paused time is not simulated. A loaded machine may
	// stall frames past the clamp (250 ms) or the step cap; the loop drops
	// that time and counts it (dropped_ms), so it is not owed either.
	last := rows[len(rows)-1]
	awayMS := after.tMS - before.tMS
	wantTicks := (last.tMS - awayMS - last.droppedMS) * 60 / 1000
	if got := float64(last.tick); math.Abs(got-wantTicks) > 6 {
		t.Errorf("%d ticks over %.0f ms with %.0f ms minimised and %.0f ms dropped, want about %.0f", last.tick, last.tMS, awayMS, last.droppedMS, wantTicks)
	}
}

// A CPU profile of a windowed run files its samples by phase: the pprof
// labels the engine and the runner set (fixed and render are required). (The demo's Update systems take
// microseconds a frame, too little for a sample; engine's
// TestProfileLabelsEveryPhase shows the update label on busy systems.)
func TestCPUProfileHasPhaseLabels(t *testing.T) {
	needDisplay(t)
	bin := demoBinary(t)
	path := filepath.Join(t.TempDir(), "cpu.prof")
	cmd := exec.Command(bin, "-frames", "150", "-fps", "30", "-tick-rate", "1000", "-max-steps", "0", "-entities", "3000", "-width", "320", "-height", "200",
		"-cpuprofile", path, "-hitch", "0", "-log-level", "warn")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	byPhase := map[string]int{}
	for _, s := range p.Sample {
		for _, phase := range s.Label["phase"] {
			byPhase[phase] += int(s.Value[0])
		}
	}
	t.Logf("samples by phase: %v of %d", byPhase, len(p.Sample))
	// The pace phase mostly sleeps, which takes no CPU samples; its spin
	// is often too short to be sampled on a loaded machine, so it is
	// logged above but not required.
	for _, phase := range []string{"fixed", "render"} {
		if byPhase[phase] == 0 {
			t.Errorf("no CPU samples labelled phase=%s (by phase: %v)", phase, byPhase)
		}
	}
}

// Profiling switches that cannot work end the demo before any window
// opens, with one line and status 1 (or 2 for a malformed value).
func TestBadProfilingInputs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-cpuprofile", filepath.Join(dir, "no", "cpu.prof")}, 1, "-cpuprofile " + filepath.Join(dir, "no", "cpu.prof") + ": cannot create file"},
		{[]string{"-memprofile", dir}, 1, "-memprofile " + dir + ": cannot create file: is a directory"},
		{[]string{"-pprof", "localhost:notaport"}, 2, "-pprof localhost:notaport: must be port, :port or host:port"},
		{[]string{"-hitch-dir", file}, 1, file + ": not a directory"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			// No display: a window would fail differently, so reaching
			// these errors proves they come first.
			t.Setenv("DISPLAY", "")
			var stdout, stderr bytes.Buffer
			if code := run(append(tc.args, "-frames", "1", "-log-level", "error"), &stdout, &stderr); code != tc.code {
				t.Errorf("exit status %d, want %d (%s)", code, tc.code, stderr.String())
			}
			got := stderr.String()
			if !strings.HasPrefix(got, "nebula-demo: ") || !strings.Contains(got, tc.want) || strings.Count(got, "\n") != 1 {
				t.Errorf("stderr %q, want one line containing %q", got, tc.want)
			}
		})
	}
	// A taken address.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	t.Setenv("DISPLAY", "")
	var stdout, stderr bytes.Buffer
	addr := ln.Addr().String()
	if code := run([]string{"-pprof", addr, "-frames", "1", "-log-level", "error"}, &stdout, &stderr); code != 1 {
		t.Errorf("-pprof %s (taken): exit status %d, want 1", addr, code)
	}
	if got := stderr.String(); !strings.Contains(got, "address already in use") || strings.Count(got, "\n") != 1 {
		t.Errorf("-pprof %s (taken): stderr %q, want one line saying the address is in use", addr, got)
	}
}

// The demo prints its score with the game's text drawer at the window's
// top-right corner (in hudColor, right of the overlay's panel), and the
// -stats file has the GPU memory and the entity count every frame: on a
// driver without a memory extension (llvmpipe) the bytes of the engine's
// own buffers and textures, labelled "own".
func TestWindowedHUDAndGPUMemory(t *testing.T) {
	needDisplay(t)
	bin := demoBinary(t)
	dir := t.TempDir()
	statsPath, shotPath := filepath.Join(dir, "s.csv"), filepath.Join(dir, "shot.png")
	cmd := exec.Command(bin, "-frames", "10", "-entities", "100",
		"-width", "640", "-height", "400", "-stats", statsPath, "-screenshot", shotPath, "-hitch", "0", "-log-level", "warn")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}

	img := platformtest.ReadPNG(t, shotPath)
	hud, elsewhere := 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if [3]uint32{r >> 8, g >> 8, bl >> 8} == [3]uint32{uint32(hudColor[0]), uint32(hudColor[1]), uint32(hudColor[2])} {
				if x >= b.Dx()/2 && y < 40 {
					hud++
				} else {
					elsewhere++
				}
			}
		}
	}
	t.Logf("HUD-coloured pixels: %d at the top right, %d elsewhere", hud, elsewhere)
	if hud < 100 {
		t.Errorf("%d pixels of the score's colour at the top right, want the score's glyphs (100 or more)", hud)
	}

	sf, err := os.Open(statsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	recs, err := csv.NewReader(sf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	for _, name := range []string{"entities", "gpu_mem_source", "gpu_own_bytes", "gpu_used_bytes", "gpu_free_bytes"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("the -stats header %v lacks %q", recs[0], name)
		}
	}
	last := recs[len(recs)-1]
	t.Logf("last row: entities %s, gpu_mem_source %q, own %s, used %q, free %q", last[col["entities"]], last[col["gpu_mem_source"]],
		last[col["gpu_own_bytes"]], last[col["gpu_used_bytes"]], last[col["gpu_free_bytes"]])
	if n, err := strconv.Atoi(last[col["entities"]]); err != nil || n < 100 {
		t.Errorf("entities %q, want the 100 bodies and more", last[col["entities"]])
	}
	own, err := strconv.ParseInt(last[col["gpu_own_bytes"]], 10, 64)
	if src := last[col["gpu_mem_source"]]; (src != "own" && src != "nvx" && src != "ati") || err != nil || own <= 0 {
		t.Errorf("gpu_mem_source %q and gpu_own_bytes %q, want a source and a positive count", src, last[col["gpu_own_bytes"]])
	}
}

// The -stats file and the pacing report count what the renderer draws:
// every frame of the demo's scene is one draw call for the cubes (the 100
// bodies less every 4th, a sphere, plus the player's cube, the orbiter
// and the teleporter), one for the spheres, and one per part of the floor
// and of the figure; its triangles are 6 per cube (the faces turned to the
// camera), 2 per sphere (an impostor's quad) and the floor's and the
// figure's own.
func TestWindowedStatsCountDrawCallsAndTriangles(t *testing.T) {
	needDisplay(t)
	const bodies = 100
	figure, err := scene.FigureModel()
	if err != nil {
		t.Fatal(err)
	}
	floor := model.Plane()
	wantDraws, wantTris := 2, (bodies-bodies/scene.SphereEvery+3)*6+bodies/scene.SphereEvery*2
	for _, m := range []*model.Model{floor, figure} {
		wantDraws += len(m.Parts)
		for _, p := range m.Parts {
			wantTris += len(p.Indices) / 3
		}
	}

	// The shadows are on by default: the shadow pass draws every opaque
	// run again (its triangles are not counted).
	wantDraws *= 2

	bin := demoBinary(t)
	statsPath := filepath.Join(t.TempDir(), "s.csv")
	cmd := exec.Command(bin, "-frames", "30", "-entities", fmt.Sprint(bodies), "-width", "320", "-height", "200",
		"-stats", statsPath, "-hitch", "0", "-log-level", "info")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	rows := readColumns(t, statsPath)
	if len(rows) != 30 {
		t.Fatalf("%d rows, want 30", len(rows))
	}
	for i, r := range rows {
		if d, tris := r.num(t, "draw_calls"), r.num(t, "triangles"); d != float64(wantDraws) || tris != float64(wantTris) {
			t.Errorf("frame %d: %v draw calls, %v triangles; want %d and %d", i+1, d, tris, wantDraws, wantTris)
		}
		// Every entity is drawn or culled (the scene has no pivots).
		if in, cu, ents := r.num(t, "instances"), r.num(t, "culled"), r.num(t, "entities"); in+cu != ents || in == 0 {
			t.Errorf("frame %d: %v instances drawn and %v culled, %v entities; want them to add up, some drawn", i+1, in, cu, ents)
		}
	}
	var report string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, `msg="frame pacing report"`) {
			report = line
		}
	}
	for _, want := range []string{fmt.Sprintf(" draw_calls=%d ", wantDraws), fmt.Sprintf(" triangles=%d", wantTris),
		fmt.Sprintf(" max_draw_calls=%d ", wantDraws), fmt.Sprintf(" max_triangles=%d", wantTris)} {
		if !strings.Contains(report, want) {
			t.Errorf("pacing report %q lacks %q", report, want)
		}
	}
}
