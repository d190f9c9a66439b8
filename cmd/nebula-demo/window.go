package main

import (
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/desktop/physicsview"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/app"
	"github.com/nebulaengine/nebula/timing"
)

// Demo colours and camera, in one place.
var (
	pulseBright = [4]float32{0.03, 0.06, 0.22, 1} // dark blue
	pulseDark   = [4]float32{0, 0, 0, 1}
	hudColor    = [4]uint8{255, 220, 90, 255}  // the score, warm yellow
	hudDim      = [4]uint8{190, 200, 215, 255} // the line under it
	camera      = gfx.Camera{Eye: mgl32.Vec3{0, 20, 40}, Target: mgl32.Vec3{0, -1, 0}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(50), Near: 0.1, Far: 200}
)

const slowTickRate = 10 // the T key's tick rate, slow enough to see interpolation at work

// windowDemo is the windowed demo's state: the keys' effects.
type windowDemo struct {
	e        *engine.Engine
	sc       *scene.Scene
	r        *desktop.Runner
	s        *app.Process // its Restore notes F9 in the recording; Replaying and Net turn keys off
	log      logrus.FieldLogger
	vsync    bool
	normRate int // the tick rate T returns to
	title    []byte
	hud      []byte // the HUD's text, reused every frame
	lastT    time.Duration
	shots    int
	snap     []byte // the F5 snapshot
	snapAt   uint64
	// physDebug is the physics debug drawing (F4), nil without -physics.
	physDebug *physicsview.View
	// sound is the demo's sound: its mixer, volume and keys.
	sound *demoSound
}

// runWindowed runs the demo in a window: package app records the run,
// plays a replay back, or plays a networked match, whichever the flags
// ask for.
// windowOptions are the demo's flags that only a window uses.
type windowOptions struct {
	physicsDebug bool // -physics-debug
	shadows      bool // -shadows
	gpuInterp    bool // -gpu-interpolation
	mute         bool // -mute
}

func runWindowed(s *app.Process, e *engine.Engine, sc *scene.Scene, mappings string, opt windowOptions) error {
	d := &windowDemo{e: e, sc: sc, s: s, log: s.Log, vsync: s.Opts.VSync, normRate: s.Opts.TickRate, title: make([]byte, 0, 128), hud: make([]byte, 0, 64)}
	cfg := s.DesktopConfig("Nebula demo")
	cfg.Window.Gamepads.Mappings = mappings
	cfg.Camera = camera
	cfg.Overlay = true
	cfg.InterpolateOnGPU = opt.gpuInterp
	ds, err := newDemoSound(sc, opt.mute, s.Log)
	if err != nil {
		return err
	}
	d.sound = ds
	cfg.Sound = ds.m
	cfg.OverlayText = ds.overlayLine
	var trace *inputTrace // a player's own input followed to the screen, at -log-level debug
	if c := s.Net(); c != nil && s.Player() != engine.PlayerID(wire.NoPlayer) && s.Log.IsLevelEnabled(logrus.DebugLevel) {
		trace = newInputTrace(c, e, sc, s.Log)
		cfg.Input = trace // which passes the events on to the client's
		cfg.OnFrame = func(timing.Stats) { trace.frameDone() }
	}
	draw := &sceneDrawer{}
	cfg.Drawer = draw
	err = s.RunWindowed(e, cfg, func(r *desktop.Runner) error {
		d.r = r
		if err := draw.setup(r, sc, opt.shadows); err != nil {
			return err
		}
		if err := d.attachPhysicsDebug(opt.physicsDebug); err != nil {
			return err
		}
		r.SetOnKey(d.key)
		if trace != nil {
			trace.install()
		}
		e.AddUpdate("clear-pulse", d.pulse)
		e.AddUpdate("title", d.updateTitle)
		e.AddUpdate("listener", func(*engine.FrameContext) { ds.listen(r.Camera) })
		e.AddRender("hud", d.drawHUD)
		return nil
	})
	if trace != nil {
		trace.finish()
	}
	ds.m.Close() // the streams' readers
	return err
}

// pulse sets the clear colour from the tick counter: one slow breath
// between dark blue and black every second of simulation time, proof that
// the loop is alive (it stops when the simulation pauses).
func (d *windowDemo) pulse(c *engine.FrameContext) {
	phase := (float64(c.Stats.Tick) + float64(c.Alpha)) / float64(d.e.Loop.TickRate())
	k := float32(0.5 - 0.5*math.Cos(2*math.Pi*phase))
	for i := range 4 {
		d.r.ClearColor[i] = pulseDark[i] + (pulseBright[i]-pulseDark[i])*k
	}
}

// drawHUD prints the game's own text at the window's top-right corner
// (the diagnostics overlay has the top-left), with or without the overlay:
// the score, twice the font's size, and under it the cubes touching the
// player and the bounces of all cubes (in the physics mode, the bodies
// awake). It is a Render system: it prints
// every frame what the frame shows.
func (d *windowDemo) drawHUD(*engine.FrameContext) {
	const margin, scale = 10, 2
	text := d.r.Text()
	w, _ := d.r.FramebufferSize()
	sc := d.sc.Score.Get()
	b := append(d.hud[:0], "SCORE "...)
	b = strconv.AppendUint(b, uint64(sc.Points), 10)
	text.PrintBytes(w-margin-len(b)*gfx.TextAdvance*scale, margin, scale, b, hudColor)

	b = append(b[:0], "touching "...)
	b = strconv.AppendUint(b, uint64(sc.Touches), 10)
	if space := d.sc.Space; space != nil {
		// The physics mode: how many bodies move.
		st := space.Stats()
		b = append(b, "  awake "...)
		b = strconv.AppendUint(b, uint64(st.Awake), 10)
		b = append(b, " of "...)
		b = strconv.AppendUint(b, uint64(st.Bodies), 10)
		b = append(b, "  goals "...)
		b = strconv.AppendUint(b, uint64(d.sc.Goals.Get()), 10)
	} else {
		var bounces uint64
		for _, n := range d.sc.Bounces.All() {
			bounces += uint64(n)
		}
		b = append(b, "  bounces "...)
		b = strconv.AppendUint(b, bounces, 10)
	}
	text.PrintBytes(w-margin-len(b)*gfx.TextAdvance, margin+scale*gfx.TextLineHeight+4, 1, b, hudDim)
	d.hud = b
}

// updateTitle shows FPS, UPS, the tick rate and the score in the title
// twice a second.
func (d *windowDemo) updateTitle(c *engine.FrameContext) {
	if c.Stats.Time-d.lastT < 500*time.Millisecond {
		return
	}
	d.lastT = c.Stats.Time
	b := append(d.title[:0], "Nebula demo  "...)
	b = strconv.AppendFloat(b, c.Stats.FPS, 'f', 0, 64)
	b = append(b, " FPS  "...)
	b = strconv.AppendFloat(b, c.Stats.UPS, 'f', 0, 64)
	b = append(b, " UPS  "...)
	b = strconv.AppendInt(b, int64(d.e.Loop.TickRate()), 10)
	b = append(b, " Hz tick  score "...)
	b = strconv.AppendUint(b, uint64(d.sc.Score.Get().Points), 10)
	if !d.e.Interpolation().Enabled {
		b = append(b, "  [no interpolation]"...)
	}
	if d.r.Paused() {
		b = append(b, "  [paused]"...)
	}
	d.title = b
	d.r.SetTitle(unsafe.String(unsafe.SliceData(b), len(b))) // GLFW copies it at once
}

// key handles the demo's keys (not the player's, which the simulation
// reads from its input samples).
func (d *windowDemo) key(k input.Key, pressed, repeat bool) {
	if !pressed || repeat {
		return
	}
	if d.sound.key(k) {
		return
	}
	switch k {
	case input.KeyEscape:
		d.r.Quit()
	case input.KeyF3:
		if err := d.r.SetOverlay(!d.r.Overlay()); err != nil {
			d.log.WithError(err).Warn("cannot show the overlay")
		}
	case keyPhysicsDebug:
		d.togglePhysicsDebug()
	case input.KeyF12:
		d.shots++
		path := fmt.Sprintf("nebula-%s-%d.png", time.Now().Format("20060102-150405"), d.shots)
		if err := d.r.Screenshot(path); err != nil {
			d.log.WithError(err).Warn("screenshot failed")
		} else {
			d.log.WithField("path", path).Info("screenshot saved")
		}
	case input.KeyP:
		if netKeyOff(d, "pause") {
			return
		}
		d.r.SetPaused(!d.r.Paused())
	case input.KeyI:
		cfg := d.e.Interpolation()
		cfg.Enabled = !cfg.Enabled
		d.e.SetInterpolation(cfg)
		d.log.WithField("interpolation", cfg.Enabled).Info("interpolation toggled")
	case input.KeyLeftBracket:
		d.setTickRate(max(d.e.Loop.TickRate()/2, timing.MinTickRate), true)
	case input.KeyRightBracket:
		d.setTickRate(min(d.e.Loop.TickRate()*2, timing.MaxTickRate), true)
	case input.KeyT:
		if d.e.Loop.TickRate() == slowTickRate {
			d.setTickRate(d.normRate, false)
		} else {
			d.setTickRate(slowTickRate, false)
		}
	case input.KeyF5:
		d.saveSnapshot()
	case input.KeyF9:
		d.loadSnapshot()
	case input.KeyV:
		d.vsync = !d.vsync
		d.r.SetVSync(d.vsync)
		d.log.WithField("vsync", d.vsync).Info("vsync toggled")
	}
}

func (d *windowDemo) setTickRate(hz int, remember bool) {
	if netKeyOff(d, "changing the tick rate") {
		return
	}
	if d.s.Replaying() {
		// A replay ticks at the recording's rates, or it diverges.
		d.log.Info("the tick rate is the recording's during a replay")
		return
	}
	if err := d.e.Loop.SetTickRate(hz); err != nil {
		d.log.WithError(err).Warn("tick rate unchanged")
		return
	}
	if remember {
		d.normRate = hz
	}
	d.log.WithField("tick_rate", hz).Info("tick rate changed")
}

// saveSnapshot keeps a snapshot of the simulation in memory (F5).
func (d *windowDemo) saveSnapshot() {
	if netKeyOff(d, "saving a snapshot") {
		return
	}
	if d.s.Replaying() {
		d.log.Info("snapshots are off during a replay")
		return
	}
	d.snap, d.snapAt = d.e.Snapshot(), d.e.World.Tick()
	d.log.WithFields(logrus.Fields{"tick": d.snapAt, "bytes": len(d.snap)}).Info("snapshot saved")
}

// loadSnapshot restores the F5 snapshot (F9); the recording notes it, so
// that the replay restores it at the same point.
func (d *windowDemo) loadSnapshot() {
	if netKeyOff(d, "loading a snapshot") {
		return
	}
	switch {
	case d.s.Replaying():
		d.log.Info("snapshots are off during a replay")
		return
	case d.snap == nil:
		d.log.Info("no snapshot to load: save one with F5")
		return
	}
	from := d.e.World.Tick()
	if err := d.s.Restore(d.e, d.snap); err != nil {
		d.log.WithError(err).Error("snapshot not loaded")
		return
	}
	d.log.WithFields(logrus.Fields{"tick": d.snapAt, "from_tick": from}).Info("snapshot loaded")
}
