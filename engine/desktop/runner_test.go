package desktop_test

import (
	"errors"
	"image"
	"image/color"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/diag"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/render"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/platform"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
	"github.com/nebulaengine/nebula/timing"
)

// Screenshot writes the last frame drawn, including what Update systems
// changed for it (here the clear colour), at the framebuffer's size; its
// image buffer is allocated once.
func TestScreenshot(t *testing.T) {
	// One cube at the origin that stays there: however many ticks a busy
	// machine runs in the 10 frames, the centre pixel is the cube's.
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	e.World.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	cfg := testConfig()
	cfg.Frames = 10
	cfg.ClearColor = [4]float32{1, 0, 0, 1}
	cfg.Camera.Eye = mgl32.Vec3{0, 0, 4}
	r := newRunner(t, e, cfg)
	e.AddUpdate("turn green", func(c *engine.FrameContext) {
		if c.Stats.Frames >= 5 {
			r.ClearColor = [4]float32{0, 1, 0, 1}
		}
	})
	dir := t.TempDir()
	var early error
	platformtest.OnMain(func() { early = r.Screenshot(filepath.Join(dir, "early.png")) })
	if early == nil || !strings.Contains(early.Error(), "no frame") {
		t.Errorf("Screenshot before any frame = %v, want an error saying no frame was drawn", early)
	}
	if _, err := run(r); err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(dir, "shot.png")
	var err1, err2 error
	var buf1, buf2 any
	platformtest.OnMain(func() {
		err1 = r.Screenshot(path)
		buf1 = desktop.ShotBuffer(r)
		err2 = r.Screenshot(filepath.Join(dir, "again.png"))
		buf2 = desktop.ShotBuffer(r)
	})
	if err1 != nil || err2 != nil {
		t.Fatalf("Screenshot: %v, %v", err1, err2)
	}
	if buf1 != buf2 {
		t.Errorf("the second Screenshot allocated a new image buffer")
	}
	img := decodePNG(t, path)
	if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 64 {
		t.Errorf("screenshot is %dx%d, want the 64x64 framebuffer", b.Dx(), b.Dy())
	}
	green := color.RGBA{0, 255, 0, 255}
	if c := color.RGBAModel.Convert(img.At(1, 1)); c != green {
		t.Errorf("corner pixel = %v, want the clear colour the Update system set, %v", c, green)
	}
	if c := color.RGBAModel.Convert(img.At(32, 32)); c == green {
		t.Errorf("centre pixel = %v: the cube at the origin is missing", c)
	}

	// With the overlay shown, the screenshot shows it too: its panel
	// starts 8 pixels from the corner, where the clear colour was.
	platformtest.OnMain(func() {
		if err := r.SetOverlay(true); err != nil {
			t.Error(err)
		}
	})
	if _, err := run(r); err != nil {
		t.Fatal(err)
	}
	withOverlay := filepath.Join(dir, "overlay.png")
	platformtest.OnMain(func() { err1 = r.Screenshot(withOverlay) })
	if err1 != nil {
		t.Fatal(err1)
	}
	img = decodePNG(t, withOverlay)
	if c := color.RGBAModel.Convert(img.At(1, 1)); c != green {
		t.Errorf("with the overlay, corner pixel = %v, want the clear colour %v", c, green)
	}
	if c := color.RGBAModel.Convert(img.At(9, 9)); c == green || c.(color.RGBA).A != 255 {
		t.Errorf("with the overlay, pixel (9, 9) = %v, want the overlay's opaque panel", c)
	}
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	return platformtest.ReadPNG(t, path)
}

// Without a display New fails with one line that says what is missing and
// what to do, and does not panic.
func TestNewWithoutDisplay(t *testing.T) {
	for _, display := range []string{"", ":987"} {
		t.Setenv("DISPLAY", display)
		e, _ := newEngine(t, 1)
		var (
			r        *desktop.Runner
			err      error
			panicked any
		)
		platformtest.OnMain(func() {
			defer func() { panicked = recover() }()
			r, err = desktop.New(e, testConfig())
		})
		if panicked != nil {
			t.Fatalf("DISPLAY=%q: New panicked: %v", display, panicked)
		}
		if err == nil {
			platformtest.OnMain(r.Close)
			t.Fatalf("DISPLAY=%q: New succeeded", display)
		}
		msg := err.Error()
		t.Logf("DISPLAY=%q: %s", display, msg)
		if !strings.HasPrefix(msg, "desktop: ") || strings.Contains(msg, "\n") ||
			!strings.Contains(msg, "display") || !strings.Contains(msg, "xvfb-run") {
			t.Errorf("DISPLAY=%q: error %q, want one line starting \"desktop: \" naming the display and saying to use xvfb-run", display, msg)
		}
		if !errors.Is(err, platform.ErrNoDisplay) {
			t.Errorf("DISPLAY=%q: errors.Is(err, platform.ErrNoDisplay) = false", display)
		}
	}
}

// Without OpenGL 4.1 (Mesa capped at 3.3) New fails with one line that says
// so and what to do.
func TestNewWithoutGL41(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		platformtest.SkipOrFail(t, errors.New("$DISPLAY is not set"))
	}
	t.Setenv("MESA_GL_VERSION_OVERRIDE", "3.3")
	e, _ := newEngine(t, 1)
	var (
		r   *desktop.Runner
		err error
	)
	platformtest.OnMain(func() { r, err = desktop.New(e, testConfig()) })
	if err == nil {
		platformtest.OnMain(r.Close)
		t.Skip("MESA_GL_VERSION_OVERRIDE=3.3 did not stop a 4.1 context: not a Mesa driver")
	}
	msg := err.Error()
	t.Logf("%s", msg)
	if !errors.Is(err, platform.ErrNoGL41) || !strings.HasPrefix(msg, "desktop: ") || strings.Contains(msg, "\n") ||
		!strings.Contains(msg, "OpenGL 4.1") || !strings.Contains(msg, "update the graphics driver") {
		t.Errorf("error %q, want one line starting \"desktop: \" that names OpenGL 4.1 and says what to do, matching ErrNoGL41", msg)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*desktop.Config)
		want string
	}{
		{"negative fps", func(c *desktop.Config) { c.FPS = -1 }, "render rate"},
		{"NaN fps", func(c *desktop.Config) { c.FPS = math.NaN() }, "render rate"},
		{"huge fps", func(c *desktop.Config) { c.FPS = 1e6 }, "render rate"},
		{"negative duration", func(c *desktop.Config) { c.Duration = -1 }, "duration"},
		{"zero fov", func(c *desktop.Config) { c.Camera.FovY = 0 }, "FovY"},
		{"near zero", func(c *desktop.Config) { c.Camera.Near = 0 }, "Near"},
		{"far before near", func(c *desktop.Config) { c.Camera.Far = c.Camera.Near / 2 }, "Near < Far"},
		{"eye on target", func(c *desktop.Config) { c.Camera.Eye = c.Camera.Target }, "Eye and Target"},
	}
	if err := desktop.DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig().Validate() = %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			tt.edit(&cfg)
			e, _ := newEngine(t, 1)
			var err error
			// New checks the configuration before it opens a window.
			platformtest.OnMain(func() {
				var r *desktop.Runner
				if r, err = desktop.New(e, cfg); err == nil {
					r.Close()
				}
			})
			if err == nil || !strings.HasPrefix(err.Error(), "desktop: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New with %s = %v, want an error starting \"desktop: \" mentioning %q", tt.name, err, tt.want)
			}
		})
	}
}

func TestMisusePanics(t *testing.T) {
	panicMsg := func(f func()) (msg string) {
		platformtest.OnMain(func() {
			defer func() { msg, _ = recover().(string) }()
			f()
		})
		return msg
	}
	if msg := panicMsg(func() { _, _ = desktop.New(nil, desktop.DefaultConfig()) }); !strings.HasPrefix(msg, "desktop: ") {
		t.Errorf("New(nil) panicked with %q, want a message starting \"desktop: \"", msg)
	}
	e, _ := newEngine(t, 1)
	r := newRunner(t, e, testConfig())
	platformtest.OnMain(r.Close)
	platformtest.OnMain(r.Close) // idempotent
	if msg := panicMsg(func() { _ = r.Run() }); !strings.HasPrefix(msg, "desktop: ") {
		t.Errorf("Run after Close panicked with %q, want a message starting \"desktop: \"", msg)
	}
}

// The setters change what the next frames do.
func TestSetters(t *testing.T) {
	e, _ := newEngine(t, 1)
	r := newRunner(t, e, testConfig())
	var errBad, errOK error
	var fps float64
	var vsync bool
	platformtest.OnMain(func() {
		errBad = r.SetFPS(-5)
		errOK = r.SetFPS(30)
		fps = r.FPS()
		r.SetVSync(true)
		vsync = r.VSync()
		r.SetVSync(false)
		r.SetTitle("renamed")
		r.SetPaused(true)
	})
	if errBad == nil || !strings.HasPrefix(errBad.Error(), "desktop: ") {
		t.Errorf("SetFPS(-5) = %v, want an error", errBad)
	}
	if errOK != nil || fps != 30 {
		t.Errorf("SetFPS(30) = %v, FPS() = %v", errOK, fps)
	}
	if !vsync {
		t.Errorf("VSync() after SetVSync(true) = false")
	}
	if !r.Paused() {
		t.Errorf("Paused() after SetPaused(true) = false")
	}
	if r.Engine() != e {
		t.Errorf("Engine() is not the engine given to New")
	}
}

// The frame path does not allocate: 1000 interpolated cubes, measured over
// 1000 frames after 200 frames of warm-up, with the runtime's own count of
// heap allocations (of the whole process: nothing else in it runs
// meanwhile). The second case moves the mouse over the window all along,
// so the input path (GLFW callback, translation, Input.Push, the ticks'
// snapshots) is measured too; the events come from an xdotool loop started
// before the run, whose process costs this one nothing.
func TestNoAllocationsPerFrame(t *testing.T) {
	for _, mouse := range []bool{false, true} {
		name := "idle"
		if mouse {
			name = "mouse moving"
		}
		t.Run(name, func(t *testing.T) { testNoAllocationsPerFrame(t, mouse, false, true) })
	}
	// With the diagnostics overlay drawn. (With runtime/trace recording,
	// as it does whenever hitch capture is on, the process allocates: the
	// tracer's own goroutine copies its buffers. The engine's and the
	// runner's trace regions do not allocate: engine's
	// TestFrameDoesNotAllocate.)
	// With the diagnostics overlay and the game's text (Runner.Text).
	t.Run("overlay", func(t *testing.T) { testNoAllocationsPerFrame(t, false, true, true) })
	// With the diagnostics off (SetDiagnostics(false)).
	t.Run("diagnostics off", func(t *testing.T) { testNoAllocationsPerFrame(t, false, false, false) })
}

func testNoAllocationsPerFrame(t *testing.T, mouse, overlay, diagnostics bool) {
	const entities, warm, measured = 1000, 200, 1000
	e := newScene(t, entities)
	var cursorTicks int // ticks whose cursor differs from the previous tick's
	var lastX float64
	e.AddSystem(engine.StageScripts, "cursor", func(c *engine.FixedContext) {
		if x, _ := c.Input.Cursor(); x != lastX {
			cursorTicks++
			lastX = x
		}
	})
	cfg := testConfig()
	cfg.FPS = 300 // about 60 ticks per 300 frames: frames with and without ticks
	cfg.Frames = warm + measured
	cfg.Overlay = overlay
	// Steady state: a loaded test machine must not trip the frame-time
	// warnings, whose log lines allocate (once a second at most).
	cfg.Diagnostics = diag.DefaultConfig(60)
	cfg.Diagnostics.FixedWarn, cfg.Diagnostics.FixedCritical = time.Hour, time.Hour
	cfg.Diagnostics.RenderWarn, cfg.Diagnostics.RenderCritical = time.Hour, time.Hour
	cfg.Diagnostics.DebtWarn, cfg.Diagnostics.DebtCritical = time.Hour, time.Hour
	cfg.Diagnostics.StepsWarn, cfg.Diagnostics.StepsCritical = 1000, 1000
	samples := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}
	var before, after [2]uint64
	var ticksBefore, ticksAfter uint64
	var cursorBefore, cursorAfter int
	cfg.OnFrame = func(s timing.Stats) {
		switch s.Frames {
		case warm:
			metrics.Read(samples)
			before = [2]uint64{samples[0].Value.Uint64(), samples[1].Value.Uint64()}
			ticksBefore, cursorBefore = s.Tick, cursorTicks
		case warm + measured:
			metrics.Read(samples)
			after = [2]uint64{samples[0].Value.Uint64(), samples[1].Value.Uint64()}
			ticksAfter, cursorAfter = s.Tick, cursorTicks
		}
	}
	var mover *exec.Cmd
	if mouse {
		platformtest.RequireTool(t, "xdotool")
		platformtest.LockInput(t)
		title := platformtest.UniqueTitle(t)
		cfg.Window = platformtest.Visible(title)
		r := newRunner(t, e, cfg)
		id := platformtest.FindWindow(t, title)
		platformtest.XDoTool(t, "windowraise", id) // the moves must land on this window
		// Moves 1 to 50 pixels from the left edge until the stop file
		// appears (at most 4000 of them), then the pointer leaves the window.
		stop := filepath.Join(t.TempDir(), "stop")
		mover = exec.Command("sh", "-c", `i=0
while [ ! -e "$2" ] && [ $i -lt 4000 ]; do
	i=$((i+1)); xdotool mousemove --window "$1" $((i % 50 + 1)) 10 || exit 1
done
xdotool mousemove 1000 900`, "sh", id, stop)
		if err := mover.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if f, err := os.Create(stop); err == nil {
				f.Close()
			}
			_ = mover.Wait()
		})
		if _, err := run(r); err != nil {
			t.Fatal(err)
		}
	} else {
		r := newRunner(t, e, cfg)
		platformtest.OnMain(func() {
			if err := r.SetDiagnostics(diagnostics); err != nil {
				t.Error(err)
			}
		})
		if overlay {
			// With the game's text too: a score printed every frame.
			hud := make([]byte, 0, 32)
			e.AddRender("hud", func(c *engine.FrameContext) {
				hud = strconv.AppendUint(append(hud[:0], "SCORE "...), c.Stats.Frames, 10)
				w, _ := r.FramebufferSize()
				r.Text().PrintBytes(w-100, 4, 2, hud, [4]uint8{255, 255, 255, 255})
				r.Text().Print(4, 4, 1, "lives 3", [4]uint8{255, 0, 0, 255})
			})
		}
		if _, err := run(r); err != nil {
			t.Fatal(err)
		}
	}
	if ticksAfter == ticksBefore {
		t.Fatalf("no tick ran in the measured frames")
	}
	if mouse && cursorAfter-cursorBefore < 20 {
		t.Fatalf("only %d ticks in the measured frames saw the cursor move", cursorAfter-cursorBefore)
	}
	perFrame := float64(after[0]-before[0]) / measured
	bytesPerFrame := float64(after[1]-before[1]) / measured
	t.Logf("%d entities, %d frames (%d ticks, %d of them with cursor moves): %.3f heap allocations and %.1f bytes per frame (%d allocations in all)",
		entities, measured, ticksAfter-ticksBefore, cursorAfter-cursorBefore, perFrame, bytesPerFrame, after[0]-before[0])
	if after[0] != before[0] {
		t.Errorf("%d heap allocations in %d frames, want 0", after[0]-before[0], measured)
	}
}

// Config.OverlayText adds the game's line after the diagnostics' lines,
// and the overlay shows it (it fits the panel's lines).
func TestOverlayShowsTheGamesLine(t *testing.T) {
	e := newScene(t, 10)
	cfg := testConfig()
	cfg.Frames = 5
	cfg.Overlay = true
	calls := 0
	cfg.OverlayText = func(b []byte) []byte {
		calls++
		return append(b, "score 42"...)
	}
	r := newRunner(t, e, cfg)
	if _, err := run(r); err != nil {
		t.Fatal(err)
	}
	text := desktop.OverlayText(r)
	lines := strings.Split(text, "\n")
	if calls == 0 || lines[len(lines)-1] != "score 42" || len(lines) > gfx.OverlayTextLines {
		t.Errorf("%d calls; overlay text %q: want %d lines at most, the last \"score 42\"", calls, text, gfx.OverlayTextLines)
	}
}

// Every frame's figures count the renderer's draw calls and triangles,
// the pacing report carries them, and the overlay shows them: ten cubes
// are one draw call of 6 triangles each (the faces turned to the camera),
// and a sphere added is one more draw call of 2.
func TestFiguresCountDrawCallsAndTriangles(t *testing.T) {
	e := newScene(t, 10)
	cfg := testConfig()
	cfg.Frames = 5
	cfg.Overlay = true
	r := newRunner(t, e, cfg)
	if _, err := run(r); err != nil {
		t.Fatal(err)
	}
	var f diag.Figures
	var rep diag.Report
	var stats gfx.Stats
	platformtest.OnMain(func() { f, rep, stats = *r.Figures(), r.Monitor().Report(0), r.Renderer().Stats() })
	if !f.Drawn || f.DrawCalls != 1 || f.Triangles != 60 || stats.DrawCalls != 1 || stats.Triangles != 60 {
		t.Errorf("figures: drawn %v, %d draw calls, %d triangles (renderer: %d, %d); want 1 draw call of 60 triangles",
			f.Drawn, f.DrawCalls, f.Triangles, stats.DrawCalls, stats.Triangles)
	}
	if !rep.Drawn || rep.DrawCalls != 1 || rep.Triangles != 60 || rep.MaxDrawCalls != 1 || rep.MaxTriangles != 60 {
		t.Errorf("report: drawn %v, %d draw calls (max %d), %d triangles (max %d); want 1 and 60", rep.Drawn, rep.DrawCalls, rep.MaxDrawCalls, rep.Triangles, rep.MaxTriangles)
	}

	ball := e.World.Spawn(geom.NewTransform(mgl32.Vec3{0, 3, 0}), engine.Interpolate)
	e.World.SetMesh(ball, render.MeshSphere)
	// Showing the overlay again lays it out on the next frame, from the
	// figures of the frame before it: those of a frame with the sphere.
	platformtest.OnMain(func() {
		if err := r.SetOverlay(true); err != nil {
			t.Error(err)
		}
	})
	if _, err := run(r); err != nil {
		t.Fatal(err)
	}
	platformtest.OnMain(func() { f = *r.Figures() })
	if f.DrawCalls != 2 || f.Triangles != 62 || f.Instances != 11 || f.Culled != 0 {
		t.Errorf("with a sphere: %d draw calls, %d triangles, %d instances, %d culled; want 2, 62, 11 and 0", f.DrawCalls, f.Triangles, f.Instances, f.Culled)
	}
	if text := desktop.OverlayText(r); !strings.Contains(text, "\ndraws 2  triangles 62  culled 0\n") {
		t.Errorf("overlay text %q, want the line \"draws 2  triangles 62  culled 0\"", text)
	}
}

// The diagnostics are a layer that exists only while switched on: with
// Config.DiagnosticsOff there is no monitor and the figures are the loop's
// alone; switched on, a new monitor sees the frames and the overlay shows
// (its panel covers pixel (9, 9)); switched off again, the overlay is gone
// from the picture although SetOverlay still asks for it.
func TestDiagnosticsLayerExistsOnlyWhileOn(t *testing.T) {
	e := newScene(t, 1)
	cfg := testConfig()
	cfg.Frames = 5
	cfg.DiagnosticsOff = true
	cfg.Overlay = true
	r := newRunner(t, e, cfg)
	if _, err := run(r); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	shot := func(name string) color.Color {
		path := filepath.Join(dir, name)
		var err error
		platformtest.OnMain(func() { err = r.Screenshot(path) })
		if err != nil {
			t.Fatal(err)
		}
		return color.RGBAModel.Convert(decodePNG(t, path).At(9, 9))
	}
	var on bool
	var m *diag.Monitor
	var f diag.Figures
	platformtest.OnMain(func() { on, m, f = r.Diagnostics(), r.Monitor(), *r.Figures() })
	if on || m != nil || f.Loop.Frames != 5 || f.HeapInUse != 0 || f.Entities != 0 {
		t.Fatalf("with DiagnosticsOff: on %v, monitor %v, figures %+v; want off, no monitor, the loop's statistics alone", on, m, f)
	}
	clear := shot("off.png")

	platformtest.OnMain(func() {
		if err := r.SetDiagnostics(true); err != nil {
			t.Error(err)
		}
	})
	if _, err := run(r); err != nil {
		t.Fatal(err)
	}
	platformtest.OnMain(func() { m, f = r.Monitor(), *r.Figures() })
	if m == nil || m.Last().Loop.Frames != 10 || f.Entities != 1 || f.HeapInUse == 0 {
		t.Fatalf("switched on: monitor %v, figures %+v; want a monitor that saw frame 10, and full figures", m, f)
	}
	if c := shot("on.png"); c == clear {
		t.Errorf("switched on with the overlay asked for, pixel (9, 9) = %v, the background: no overlay", c)
	}

	platformtest.OnMain(func() {
		if err := r.SetDiagnostics(false); err != nil {
			t.Error(err)
		}
	})
	if _, err := run(r); err != nil {
		t.Fatal(err)
	}
	platformtest.OnMain(func() { m = r.Monitor() })
	if c := shot("off-again.png"); m != nil || c != clear {
		t.Errorf("switched off again: monitor %v, pixel (9, 9) = %v; want no monitor and the background %v", m, c, clear)
	}
}
