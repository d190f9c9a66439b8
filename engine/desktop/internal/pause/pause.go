// Package pause decides, frame by frame, whether a windowed game's
// simulation runs: the game's own pause, a minimised or empty window, an
// unfocused one (when asked), and the frame after each of them. It also
// keeps the simulation's view of the keyboard, buttons and cursor in step
// with the devices: no event is queued while the simulation is paused, the
// held keys are released when the window loses the focus, and on resume
// the simulation is told what changed meanwhile. It is pure Go (no window,
// no GL): the window is read through the Devices interface, so its tests
// need no display.
//
// The windowed runner calls, each frame:
//
//	if g.Suspend() { wait for events; continue } // minimised or 0x0
//	g.Update(now, lastFrame)                     // pause or resume for this frame
//	// ... run the frame
//
// and passes every device event through g.Input.
package pause

import (
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
)

// Devices is what the gate reads of the window and its devices.
type Devices interface {
	// Focused reports whether the window has the input focus.
	Focused() bool
	// Iconified reports whether the window is minimised.
	Iconified() bool
	// FramebufferSize returns the size of the window's framebuffer.
	FramebufferSize() (width, height int)
	// KeyHeld reports whether a key is down now.
	KeyHeld(input.Key) bool
	// ButtonHeld reports whether a mouse button is down now.
	ButtonHeld(input.MouseButton) bool
	// CursorPos returns the cursor's position in the window.
	CursorPos() (x, y float64)
}

// Gate pauses and resumes an engine's simulation for a window.
type Gate struct {
	dev            Devices
	e              *engine.Engine
	log            logrus.FieldLogger
	pauseUnfocused bool

	user      bool // SetUser
	paused    bool // the gate has paused the loop
	suspended bool // minimised or 0x0: no frames
	hold      bool // keep the loop paused for one more frame
	focused   bool // as of the previous frame

	// What the simulation has been told, for resynchronising with the
	// devices when it resumes.
	sink InputSink // where device events go: the engine's Input unless SetSink

	keys    [input.KeyCount]bool
	buttons [input.MouseButtonCount]bool
	cursorX float64
	cursorY float64
}

// New returns a gate for e's simulation in the window dev. With
// pauseUnfocused, the simulation also stops while the window does not have
// the focus.
func New(dev Devices, e *engine.Engine, pauseUnfocused bool, log logrus.FieldLogger) *Gate {
	return &Gate{dev: dev, e: e, log: log, pauseUnfocused: pauseUnfocused, focused: dev.Focused(), sink: e.Input}
}

// SetUser sets the game's own pause.
func (g *Gate) SetUser(paused bool) { g.user = paused }

// User reports the game's own pause.
func (g *Gate) User() bool { return g.user }

// Paused reports whether the gate holds the simulation paused.
func (g *Gate) Paused() bool { return g.paused }

// Start begins a run of frames: its first frame runs paused, which sets the
// loop's time reference (a first frame runs no tick anyway) and, after an
// earlier run, keeps the time between the runs from being simulated.
func (g *Gate) Start() {
	g.pause()
	g.hold = true
}

// Suspend notices the window being minimised or shrunk to nothing, and
// back, and reports whether it is away now (no frame should run) and
// whether it has just come back (the runner restarts its pacing then).
// Going away pauses the simulation; coming back keeps it paused for one
// more frame, so that the loop resumes from a frame that was drawn and not
// from the last one before the window went away.
func (g *Gate) Suspend() (away, back bool) {
	w, h := g.dev.FramebufferSize()
	away = g.dev.Iconified() || w <= 0 || h <= 0
	switch {
	case away && !g.suspended:
		g.suspended = true
		g.pause()
		g.log.WithFields(logrus.Fields{"tick": g.e.Loop.Ticks(), "width": w, "height": h, "iconified": g.dev.Iconified()}).
			Debug("window minimised or empty: simulation and drawing suspended")
	case !away && g.suspended:
		g.suspended = false
		g.hold = true
		back = true
		g.log.WithFields(logrus.Fields{"tick": g.e.Loop.Ticks(), "width": w, "height": h}).
			Debug("window back: simulation resumes")
	}
	return away, back
}

// Update pauses or resumes the simulation for the frame starting at now
// (last is the start of the previous frame), and releases the held keys
// when the window has lost the focus.
func (g *Gate) Update(now, last time.Duration) {
	focused := g.dev.Focused()
	if g.focused && !focused {
		// The window system will not report the releases that happen
		// elsewhere: release everything now so nothing sticks.
		g.sink.ReleaseAll(now)
		g.keys = [input.KeyCount]bool{}
		g.buttons = [input.MouseButtonCount]bool{}
	}
	g.focused = focused

	want := g.user || g.hold || (g.pauseUnfocused && !focused)
	g.hold = false
	switch {
	case want && !g.paused:
		g.pause()
	case !want && g.paused:
		g.resume(now, last)
	}
}

// pause stops the loop's ticks and the queueing of input events.
func (g *Gate) pause() {
	if g.paused {
		return
	}
	g.paused = true
	g.e.Loop.Pause()
}

// resume restarts the ticks. The loop's time reference is the previous
// frame (last), which ran paused (every path to here goes through one), so
// this frame accumulates one frame interval and no more.
//
// While paused, input was not queued: the ticks after the pause would
// otherwise replay everything pressed during it. Instead the simulation is
// told now about every key and button whose state changed meanwhile, and
// where the cursor is.
func (g *Gate) resume(now, last time.Duration) {
	g.paused = false
	for k := range input.KeyCount {
		if k == input.KeyUnknown {
			continue
		}
		if held := g.dev.KeyHeld(k); held != g.keys[k] {
			kind := input.KeyUp
			if held {
				kind = input.KeyDown
			}
			g.Input(input.Event{Time: now, Kind: kind, Key: k})
		}
	}
	for b := range input.MouseButtonCount {
		if held := g.dev.ButtonHeld(b); held != g.buttons[b] {
			kind := input.ButtonUp
			if held {
				kind = input.ButtonDown
			}
			g.Input(input.Event{Time: now, Kind: kind, Button: b})
		}
	}
	if x, y := g.dev.CursorPos(); x != g.cursorX || y != g.cursorY {
		g.Input(input.Event{Time: now, Kind: input.CursorMove, X: x, Y: y})
	}
	g.e.Loop.Resume(last)
}

// Input queues a device event for the simulation, unless it is paused.
func (g *Gate) Input(ev input.Event) {
	if g.paused {
		return
	}
	switch ev.Kind {
	case input.KeyDown:
		g.keys[ev.Key] = true
	case input.KeyUp:
		g.keys[ev.Key] = false
	case input.ButtonDown:
		g.buttons[ev.Button] = true
	case input.ButtonUp:
		g.buttons[ev.Button] = false
	case input.CursorMove:
		g.cursorX, g.cursorY = ev.X, ev.Y
	}
	g.sink.Push(ev)
}

// InputSink receives a window's device events: an engine's Input, or a
// networked client's local input.
type InputSink interface {
	// Push queues a device event.
	Push(input.Event)
	// ReleaseAll releases, at time t, every key and button held.
	ReleaseAll(t time.Duration)
}

// SetSink sends the device events to s instead of the engine's Input.
func (g *Gate) SetSink(s InputSink) { g.sink = s }
