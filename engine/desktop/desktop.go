package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop/internal/pause"
	"github.com/nebulaengine/nebula/engine/diag"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/platform"
	"github.com/nebulaengine/nebula/timing"
)

func init() {
	// The runner's loop drives GLFW and OpenGL, which must be used from the
	// main OS thread (GLFW's event functions from the thread that
	// initialised it, a GL context from the thread it is current on).
	// internal/platform's init, which runs first, has locked the main
	// goroutine to the main thread already; this says so where the loop
	// lives, so the rule does not depend on an import further down.
	runtime.LockOSThread()
}

// Runner runs an engine.Engine in a window: each frame it processes the
// window's events (which feed the engine's Input), runs the engine's frame
// (the tick's stages once per due tick, then Update systems, then
// interpolation into the render buffer, then Render systems), draws the
// render buffer's instances with the gfx renderer, swaps, and waits for the
// pacer's next deadline.
//
// A Runner, like the window and the GL context it owns, must be used from
// the main goroutine (the one running main), except Quit, which any
// goroutine may call.
type Runner struct {
	// Camera is the camera the next frame is drawn with. Update systems and
	// the key hook may change it every frame: the frame is drawn after the
	// Update schedule has run.
	Camera gfx.Camera
	// ClearColor is the background of the next frame, RGBA in [0, 1].
	ClearColor [4]float32

	e      *engine.Engine
	win    *platform.Window
	ren    *gfx.Renderer
	text   *gfx.Text // the game's text (Text), drawn after the Drawer
	drawer Drawer    // Config.Drawer, or ren
	clock  *timing.MonotonicClock
	pacer  *timing.Pacer
	log    logrus.FieldLogger

	frameLimit uint64
	duration   time.Duration
	onFrame    func(timing.Stats)
	onKey      keyHook

	quit    atomic.Bool
	running bool
	closed  bool

	gate    *pause.Gate   // pause, suspend, focus and input resynchronisation
	lastNow time.Duration // start of the last frame run

	// The last frame drawn, which Screenshot draws again.
	drawn struct {
		ok      bool
		view    View // the last frame's (its instances are read again from the render buffer)
		overlay bool // the overlay was drawn over it
	}
	shot *image.RGBA

	// Diagnostics: the figures of the frame just run (the loop's statistics
	// alone while the diagnostics are off), and the diagnostics layer,
	// which exists only while they are on, with what it is made from.
	figures     diag.Figures
	diag        *diagnostics
	diagCfg     diag.Config
	overlayOn   bool
	overlayText func([]byte) []byte

	// Profiling labels of the runner's own work (see engine.Labels).
	drawLabels, swapLabels, paceLabels context.Context
	frameBody, paceBody                func() // bound once: no allocation per frame

	sound *soundOut // the game's mixer played, nil without one

	testHookPoll func() // see export_test.go
}

// New opens the window described by cfg.Window, initialises OpenGL and
// builds the renderer, ready to Run e. Call it on the main goroutine.
//
// Errors are one line each, saying what is missing and what to do, for
// example "desktop: platform: cannot open a window: no display: $DISPLAY is
// not set (run under xvfb-run, or set DISPLAY)"; errors.Is matches
// platform.ErrNoDisplay and platform.ErrNoGL41. New panics when e is nil.
func New(e *engine.Engine, cfg Config) (*Runner, error) {
	if e == nil {
		panic("desktop: New with a nil *engine.Engine")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		log = l
	}

	win, err := platform.Open(cfg.Window)
	if err != nil {
		return nil, fmt.Errorf("desktop: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			win.Close()
		}
	}()
	if err := gfx.Init(); err != nil {
		return nil, fmt.Errorf("desktop: %w", err)
	}
	// The context's GPU memory count: every GL object of the runner's
	// window adds its bytes to it (Renderer.Memory reaches it).
	mem := new(gfx.MemoryCounter)
	ren, err := gfx.NewRenderer(mem)
	if err != nil {
		return nil, fmt.Errorf("desktop: %w", err)
	}
	text, err := gfx.NewText(mem)
	if err != nil {
		ren.Delete()
		return nil, fmt.Errorf("desktop: %w", err)
	}
	clock := timing.NewMonotonicClock()
	pacer, err := timing.NewPacer(clock, cfg.FPS)
	if err != nil { // Validate checked the rate
		text.Delete()
		ren.Delete()
		return nil, fmt.Errorf("desktop: %w", err)
	}
	r := &Runner{
		Camera:      cfg.Camera,
		ClearColor:  cfg.ClearColor,
		e:           e,
		win:         win,
		ren:         ren,
		text:        text,
		drawer:      cfg.Drawer,
		clock:       clock,
		pacer:       pacer,
		log:         log,
		frameLimit:  cfg.Frames,
		duration:    cfg.Duration,
		onFrame:     cfg.OnFrame,
		diagCfg:     cfg.Diagnostics,
		overlayOn:   cfg.Overlay,
		overlayText: cfg.OverlayText,
	}
	if !cfg.DiagnosticsOff {
		if err := r.SetDiagnostics(true); err != nil {
			text.Delete()
			ren.Delete()
			return nil, err
		}
	}
	if cfg.Sound != nil {
		r.sound = openSound(cfg.Sound, cfg.SoundDevice, log)
	}
	r.frameBody = r.runFrame
	r.paceBody = func() { r.pacer.Wait() }
	r.gate = pause.New(win, e, cfg.PauseWhenUnfocused, log)
	if cfg.Input != nil {
		r.gate.SetSink(cfg.Input)
	}
	if r.drawer == nil {
		r.drawer = rendererDrawer{ren}
	}
	e.SetInterpolationOnGPU(cfg.InterpolateOnGPU)
	r.setLabels(e.Context())
	win.SetCallbacks(platform.Callbacks{
		Clock:           clock.Now,
		Input:           r.gate.Input,
		Key:             r.key,
		FramebufferSize: r.framebufferSize,
		Focus:           r.focus,
		Iconify:         r.iconify,
	})
	ok = true

	fw, fh := win.FramebufferSize()
	log.WithFields(logrus.Fields{
		"width":       fw,
		"height":      fh,
		"vsync":       cfg.Window.VSync,
		"fps_cap":     cfg.FPS,
		"gl_version":  gfx.Version(),
		"gl_renderer": gfx.RendererName(),
	}).Info("window open")
	return r, nil
}

// Run runs frames until the window is closed, Quit is called, or the
// configured Frames or Duration is reached (both counted from the start of
// this Run). It can be called again afterwards; the simulation resumes
// where it stopped, without catching up the time in between.
//
// While the window is minimised (or its framebuffer is 0x0) Run neither
// simulates nor draws: it sleeps in the window system's event wait. When
// the window comes back, or the user pause ends, or the window regains the
// focus with PauseWhenUnfocused, the simulation resumes from that moment:
// no burst of ticks catches up the time away.
//
// Run returns an error only when it cannot go on: a panic in a system,
// which the engine recovers (it returns the engine's *engine.PanicError,
// see Engine.Err). A window closed by the user or destroyed by another
// program ends it normally.
func (r *Runner) Run() error {
	r.mustOpen("Run")
	if r.running {
		panic("desktop: Runner.Run called from inside Run")
	}
	r.running = true
	defer func() { r.running = false }()
	r.win.MakeCurrent()

	// The first frame of a Run runs with the simulation paused: it sets
	// the loop's time reference (a first frame runs no tick anyway), and
	// after an earlier Run it stops the time between the Runs from being
	// simulated.
	r.gate.Start()
	_ = r.pacer.SetRate(r.pacer.Rate()) // restart the deadline grid now

	start := r.clock.Now()
	var frames uint64
	for {
		r.win.PollEvents()
		if r.testHookPoll != nil {
			r.testHookPoll()
		}
		now := r.clock.Now()
		if r.quit.Load() || r.win.ShouldClose() || (r.duration > 0 && now-start >= r.duration) {
			break
		}
		if r.suspend() {
			wait := SuspendedWait
			if r.duration > 0 {
				wait = min(wait, r.duration-(now-start))
			}
			r.win.WaitEvents(wait)
			continue
		}
		r.gate.Update(now, r.lastNow)

		r.lastNow = now
		trace.WithRegion(r.e.Context(), "frame", r.frameBody)
		if err := r.e.Err(); err != nil {
			// A system panicked (the engine recovered it): the run
			// cannot go on.
			r.quit.Store(false)
			return err
		}
		if r.onFrame != nil {
			r.onFrame(r.figures.Loop)
		}
		frames++
		if r.frameLimit > 0 && frames >= r.frameLimit {
			break
		}
		pprof.SetGoroutineLabels(r.paceLabels)
		trace.WithRegion(r.e.Context(), "pace", r.paceBody)
		pprof.SetGoroutineLabels(r.e.Context())
	}
	r.quit.Store(false)
	if r.win.Lost() {
		r.log.WithFields(logrus.Fields{"frame": r.e.Loop.Frames(), "tick": r.e.Loop.Ticks()}).
			Warn("the window was destroyed by another program; stopping")
	}
	return nil
}

// suspend reports whether the window is away (minimised or 0x0), and
// restarts the pacer's deadline grid when it has just come back: the time
// away is not "late".
func (r *Runner) suspend() bool {
	away, back := r.gate.Suspend()
	if back {
		_ = r.pacer.SetRate(r.pacer.Rate())
	}
	return away
}

func (r *Runner) key(k input.Key, pressed, repeat bool) {
	if r.onKey != nil {
		r.onKey(k, pressed, repeat)
	}
}

func (r *Runner) framebufferSize(w, h int) {
	r.log.WithFields(logrus.Fields{"width": w, "height": h}).Debug("framebuffer resized")
}

func (r *Runner) focus(focused bool) {
	r.log.WithField("focused", focused).Debug("window focus changed")
}

func (r *Runner) iconify(iconified bool) {
	r.log.WithField("iconified", iconified).Debug("window minimised or restored")
}

// draw draws the render buffer's instances with the current camera and
// clear colour, then the game's text over them, and remembers what it drew
// for Screenshot.
func (r *Runner) draw() {
	w, h := r.win.FramebufferSize()
	v := r.view(w, h)
	r.drawn.ok, r.drawn.view = true, v
	r.drawer.Draw(v)
	r.text.Draw(w, h)
}

// runFrame runs one frame at r.lastNow: the engine's frame, drawing (the
// overlay over it when shown), the swap, then, with the diagnostics on,
// the frame's figures. It is one runtime/trace region, "frame".
func (r *Runner) runFrame() {
	r.e.Frame(r.lastNow)
	d := r.diag
	pprof.SetGoroutineLabels(r.drawLabels)
	if d != nil {
		d.begin(r.clock.Now())
	}
	r.draw()
	r.drawn.overlay = d != nil && r.overlayOn
	if r.drawn.overlay {
		w, h := r.win.FramebufferSize()
		d.drawOverlay(w, h, r.lastNow, r.pacer.Rate(), r.e.Loop.TickRate())
	}
	if d != nil {
		d.end()
	}
	pprof.SetGoroutineLabels(r.swapLabels)
	r.win.SwapBuffers()
	pprof.SetGoroutineLabels(r.e.Context())
	if r.sound != nil {
		r.sound.frame(r.lastNow)
	}
	if d == nil {
		loopOnly(&r.figures, r.e.Loop.Stats())
	} else {
		r.figures.Loop = r.e.Loop.Stats()
		d.observe(r.e, r.ren.Stats(), &r.figures, r.lastNow, r.clock.Now())
	}
	if r.sound != nil {
		r.figures.Sound = r.sound.figures()
	}
}

// setLabels makes the pprof labels of the runner's own work under ctx.
func (r *Runner) setLabels(ctx context.Context) {
	r.drawLabels = engine.Labels(ctx, engine.PhaseRender, "draw")
	r.swapLabels = engine.Labels(ctx, engine.PhaseRender, "swap")
	r.paceLabels = engine.Labels(ctx, engine.PhasePace, "pacer")
}

// Figures returns the figures of the frame just run: in Config.OnFrame,
// those of the frame OnFrame is called for. With the diagnostics on they
// are complete (CPU time of each phase, the GPU time of a frame a few
// frames back, memory); off, they hold the loop's statistics alone.
func (r *Runner) Figures() *diag.Figures { return &r.figures }

// Monitor returns the diagnostics monitor: the recent frame intervals, the
// steps histogram, and the pacing report (Monitor.Report). It is nil while
// the diagnostics are off, and a new one, starting afresh, each time they
// are switched on.
func (r *Runner) Monitor() *diag.Monitor {
	if r.diag == nil {
		return nil
	}
	return r.diag.monitor
}

// SetOverlay shows (true) or hides the diagnostics overlay. It shows only
// while the diagnostics are on; the overlay's GL objects are made the first
// time it shows. The error is the overlay's, when they cannot be made (the
// overlay then stays hidden).
func (r *Runner) SetOverlay(on bool) error {
	r.mustOpen("SetOverlay")
	r.overlayOn = on
	if on && r.diag != nil {
		if err := r.diag.showOverlay(); err != nil {
			r.overlayOn = false
			return err
		}
	}
	return nil
}

// Overlay reports whether the diagnostics overlay is to be shown (it shows
// while the diagnostics are on).
func (r *Runner) Overlay() bool { return r.overlayOn }

// SetDiagnostics switches the per-frame diagnostics on (the default, unless
// Config.DiagnosticsOff) or off. On, the runner times each phase, runs the
// GPU timer, feeds a new Monitor (figures, warnings, the pacing report) and
// can show the overlay. Off, none of that exists: the layer and its GL
// objects are deleted, a frame is only the engine's frame, the drawing and
// the swap, and Figures keeps the loop's statistics alone. A shipped game
// that wants none of it sets Config.DiagnosticsOff; switching is also how
// BenchmarkDiagnosticsOverhead measures what they cost. The error says why
// the layer could not be made (an invalid Config.Diagnostics, or the
// overlay's GL objects).
func (r *Runner) SetDiagnostics(on bool) error {
	r.mustOpen("SetDiagnostics")
	if on == (r.diag != nil) {
		return nil
	}
	r.win.MakeCurrent()
	if !on {
		r.diag.delete()
		r.diag = nil
		r.e.SetPhaseClock(nil)
		return nil
	}
	d, err := newDiagnostics(r.e, r.diagCfg, r.ren.Memory(), r.overlayText, r.log)
	if err != nil {
		return err
	}
	if r.overlayOn {
		if err := d.showOverlay(); err != nil {
			d.delete()
			return err
		}
	}
	r.diag = d
	r.e.SetPhaseClock(r.clock.Now)
	return nil
}

// Diagnostics reports whether the per-frame diagnostics are on.
func (r *Runner) Diagnostics() bool { return r.diag != nil }

// Quit makes Run return after the frame in progress. Unlike the other
// methods it may be called from any goroutine; it wakes a Run that is
// waiting for a minimised window. A Quit before Run makes that Run return
// at once.
func (r *Runner) Quit() {
	r.quit.Store(true)
	platform.Wake()
}

// SetPaused pauses (true) or resumes the simulation, for a game's pause
// key: frames go on being drawn, and Update and Render systems go on
// running, but no tick runs. Resuming continues from that frame, without
// catching up the pause. Input is not queued for the simulation while it
// is paused; on resume it learns which keys and buttons are held.
func (r *Runner) SetPaused(paused bool) { r.mustOpen("SetPaused"); r.gate.SetUser(paused) }

// Paused reports whether SetPaused paused the simulation. (The window's
// state may pause it too; e.Loop.Paused() says whether it is paused at
// all.)
func (r *Runner) Paused() bool { return r.gate.User() }

// SetFPS changes the render rate cap (0 = uncapped) from the next frame.
func (r *Runner) SetFPS(hz float64) error {
	r.mustOpen("SetFPS")
	if err := r.pacer.SetRate(hz); err != nil {
		return fmt.Errorf("desktop: %w", err)
	}
	return nil
}

// FPS returns the render rate cap (0 = uncapped).
func (r *Runner) FPS() float64 { return r.pacer.Rate() }

// SetVSync turns waiting for the display's refresh on swap on or off. The
// FPS cap applies either way.
func (r *Runner) SetVSync(on bool) { r.mustOpen("SetVSync"); r.win.SetVSync(on) }

// VSync reports whether swaps wait for the display's refresh.
func (r *Runner) VSync() bool { r.mustOpen("VSync"); return r.win.VSync() }

// SetTitle changes the window's title.
func (r *Runner) SetTitle(title string) { r.mustOpen("SetTitle"); r.win.SetTitle(title) }

// SetOnKey sets the hook that receives every press, repeat and release of
// the keys the engine knows, during Run, for actions outside the
// simulation (quit, pause, screenshot); nil removes it. The simulation
// gets the same keys through the engine's Input regardless.
func (r *Runner) SetOnKey(hook func(key input.Key, pressed, repeat bool)) {
	r.mustOpen("SetOnKey")
	r.onKey = hook
}

// Engine returns the engine the runner runs.
func (r *Runner) Engine() *engine.Engine { return r.e }

// Renderer returns the runner's renderer (to change its light, read its
// statistics, or reach its window's GPU memory counter, Memory, for the
// models and lines a Drawer makes).
func (r *Runner) Renderer() *gfx.Renderer { r.mustOpen("Renderer"); return r.ren }

// Text returns the runner's text drawer, for the game's own text (a
// score, lives, a message) in framebuffer pixels from the window's
// top-left corner, with the diagnostics overlay's font, whether the
// overlay shows or not. Print to it every frame from an Update or Render
// system (or the key hook): the runner draws what the frame printed after
// the Drawer and before the overlay, and a frame that prints nothing shows
// no text. Runner.Screenshot shows the text of the frame it draws again.
//
//	e.AddRender("hud", func(*engine.FrameContext) {
//		score = strconv.AppendInt(score[:0], int64(points), 10)
//		r.Text().PrintBytes(10, 10, 2, score, [4]uint8{255, 255, 255, 255})
//	})
func (r *Runner) Text() *gfx.Text { r.mustOpen("Text"); return r.text }

// FramebufferSize returns the window's framebuffer size in pixels, the
// size the frame is drawn at and Text's coordinates refer to (0, 0 while
// minimised), for laying out text, for example against the right edge.
func (r *Runner) FramebufferSize() (width, height int) {
	r.mustOpen("FramebufferSize")
	return r.win.FramebufferSize()
}

// Now returns the time on the runner's clock: the clock that starts frames
// and stamps input events.
func (r *Runner) Now() time.Duration { return r.clock.Now() }

// Screenshot writes the last frame drawn to path as a PNG file. Call it
// from the key hook, an Update system, or after Run.
//
// A window's back buffer holds nothing defined once it has been swapped, so
// Screenshot draws the last frame again, exactly as it was (same size,
// camera, colour and render buffer, and the overlay if it was shown),
// reads it back and writes it. The
// image buffer is allocated once and reused while the size stays the same.
func (r *Runner) Screenshot(path string) error {
	r.mustOpen("Screenshot")
	d := &r.drawn
	switch {
	case !d.ok:
		return fmt.Errorf("desktop: screenshot %s: no frame has been drawn yet", path)
	case r.win.Lost():
		return fmt.Errorf("desktop: screenshot %s: %w", path, errWindowLost)
	}
	v := r.view(d.view.Width, d.view.Height)
	v.Clear, v.Camera = d.view.Clear, d.view.Camera
	if r.shot == nil || r.shot.Rect.Dx() != v.Width || r.shot.Rect.Dy() != v.Height {
		r.shot = image.NewRGBA(image.Rect(0, 0, v.Width, v.Height))
	}
	r.win.MakeCurrent()
	r.drawer.Draw(v)
	r.text.Redraw(v.Width, v.Height)
	if d.overlay && r.diag != nil && r.diag.overlay != nil {
		r.diag.overlay.Redraw(v.Width, v.Height)
	}
	if err := r.ren.ReadRGBA(r.shot); err != nil {
		return fmt.Errorf("desktop: screenshot %s: %w", path, err)
	}
	if err := gfx.SavePNG(path, r.shot); err != nil {
		return fmt.Errorf("desktop: %w", err)
	}
	return nil
}

var errWindowLost = errors.New("the window was destroyed by another program")

// Close deletes the renderer and closes the window (terminating GLFW when
// it was the last one). When another program destroyed the window (see
// platform's Window.Lost), no GL call is made: the objects go with the
// context. Closing again does nothing; any other use of a
// closed Runner panics.
func (r *Runner) Close() {
	if r == nil || r.closed {
		return
	}
	if r.running {
		panic("desktop: Runner.Close called from inside Run; call Quit")
	}
	r.closed = true
	// A window another program destroyed has no drawable to make its
	// context current on: GL calls then crash in the driver. Its GPU
	// objects go with the context, which Window.Close destroys.
	if !r.win.Lost() {
		r.win.MakeCurrent()
		r.ren.Delete()
		r.text.Delete()
		if r.diag != nil {
			r.diag.delete()
		}
	}
	r.diag = nil
	if r.sound != nil {
		r.sound.close(r.log)
	}
	r.win.Close()
}

func (r *Runner) mustOpen(method string) {
	if r == nil || r.closed {
		panic("desktop: Runner." + method + " on a nil or closed Runner")
	}
}

// view returns the frame's View at w x h: the render buffer's instances,
// poses and lights, and on the GPU path its ticks and alpha.
func (r *Runner) view(w, h int) View {
	rb := &r.e.Render
	return View{Width: w, Height: h, Clear: r.ClearColor, Camera: r.Camera, Instances: rb.Instances, Poses: &rb.Poses, Lights: rb.Lights,
		OnGPU: rb.OnGPU, Ticks: rb.Ticks, Alpha: rb.Alpha}
}
