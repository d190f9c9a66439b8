package platform

import (
	"fmt"
	"math"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
)

// DefaultDeadZone is the radial dead zone of a gamepad's sticks that
// DefaultConfig sets: a stick whose deflection (the length of its X, Y
// vector, 1 at the rim) is at most 0.2 reads as centred, and the
// deflection beyond it is rescaled so that the rim still reads 1. Worn
// sticks rest up to about 0.1 to 0.2 off centre.
const DefaultDeadZone = 0.2

// GamepadConfig says how a window reads gamepads.
type GamepadConfig struct {
	// DeadZone is the radial dead zone of each stick, from 0 (none) to
	// below 1: see DefaultDeadZone. Triggers have none.
	DeadZone float64
	// Mappings, when not empty, is added to GLFW's gamepad mapping
	// database when the window opens: text in the SDL_GameControllerDB
	// format (gamecontrollerdb.txt), one controller a line. GLFW ships
	// the database's common controllers; a game ships more here, or the
	// player's own file (see Window.UpdateGamepadMappings).
	Mappings string
}

func (c GamepadConfig) check() error {
	if !(c.DeadZone >= 0 && c.DeadZone < 1) {
		return fmt.Errorf("platform: gamepad dead zone %v is not within [0, 1)", c.DeadZone)
	}
	return nil
}

// A GamepadReading is what a JoystickSource reads of one gamepad, in
// GLFW's terms: the buttons of the standard layout, and the axes with
// sticks from -1 to 1 and triggers from -1 (released) to 1.
type GamepadReading struct {
	Buttons [input.GamepadButtonCount]bool  // held, by input.GamepadButton
	Axes    [input.GamepadAxisCount]float32 // by input.GamepadAxis, in GLFW's ranges
}

// A JoystickChange is a joystick connecting or disconnecting, as GLFW's
// joystick callback reports it.
type JoystickChange struct {
	ID        int  // the joystick's ID (GLFW's 0 to 15)
	Connected bool // connected, or disconnected
}

// A JoystickSource is where Gamepads reads joysticks: GLFW's joystick and
// gamepad API for a window, a fake in tests, so that gamepads are tested
// without hardware. Its methods are called on the main thread.
type JoystickSource interface {
	// Gamepads appends to dst the IDs of the joysticks connected now
	// that have a gamepad mapping, ascending, and returns it.
	Gamepads(dst []int) []int
	// Changes appends to dst the connections and disconnections
	// reported since the last call, in order, forgets them, and returns
	// dst.
	Changes(dst []JoystickChange) []JoystickChange
	// IsGamepad reports whether joystick id is connected and has a
	// gamepad mapping.
	IsGamepad(id int) bool
	// Read reads gamepad id into r, and reports false when it is not
	// connected or has no gamepad mapping.
	Read(id int, r *GamepadReading) bool
}

// Gamepads turns a JoystickSource's readings into input Events: each
// gamepad that connects gets the lowest free pad number (0 to
// input.MaxGamepads-1; a gamepad beyond them gets the first that frees),
// and each Poll pushes its connections and disconnections,
// then, for each pad, the buttons that went down or up and the axes that
// moved, after the sticks' radial dead zone and with the triggers mapped
// to 0..1. A Window polls its Gamepads in PollEvents and WaitEvents,
// stamping the events with Callbacks.Clock like keys.
type Gamepads struct {
	src      JoystickSource
	deadZone float64
	// polled: Poll ran before.
	polled bool
	// scanned: the source's gamepads were looked at since the last
	// change that may have made a joystick without a pad a gamepad of
	// its own (the first Poll, a freed pad, new mappings). Until then
	// Poll looks at them all.
	scanned bool
	pads    [input.MaxGamepads]padSlot
	ids     []int
	changes []JoystickChange
	// reading is Poll's scratch: a local handed to the source (an
	// interface) would escape, one allocation every frame.
	reading GamepadReading
}

// padSlot is one pad number: the joystick in it and what was last pushed
// of it.
type padSlot struct {
	used bool
	id   int
	last GamepadReading // after the dead zone, as pushed
}

// NewGamepads returns Gamepads reading src with the configuration cfg. It
// returns an error when cfg is not valid.
func NewGamepads(src JoystickSource, cfg GamepadConfig) (*Gamepads, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return &Gamepads{src: src, deadZone: cfg.DeadZone}, nil
}

// Poll reads the source and pushes, stamped with now, what changed since
// the last Poll. The first Poll connects the gamepads already there; once
// a pad is freed, or after Rescan, a Poll gives the gamepads that had no
// pad one (the Poll that sees the disconnection, or the next one when a
// gamepad stops reading).
func (g *Gamepads) Poll(now time.Duration, push func(input.Event)) {
	g.changes = g.src.Changes(g.changes[:0])
	for _, c := range g.changes {
		if !g.polled {
			break // the first Poll's scan below sees where they left things
		}
		if c.Connected {
			if g.src.IsGamepad(c.ID) {
				g.connect(c.ID, now, push)
			}
		} else if p := g.pad(c.ID); p >= 0 {
			g.disconnect(p, now, push)
		}
	}
	g.polled = true
	if !g.scanned {
		g.scanned = true
		g.ids = g.src.Gamepads(g.ids[:0])
		for _, id := range g.ids {
			g.connect(id, now, push) // a gamepad with a pad already keeps it
		}
	}
	r := &g.reading
	for p := range g.pads {
		s := &g.pads[p]
		if !s.used {
			continue
		}
		if !g.src.Read(s.id, r) {
			g.disconnect(p, now, push)
			continue
		}
		g.shape(r)
		for b := range input.GamepadButtonCount {
			if r.Buttons[b] == s.last.Buttons[b] {
				continue
			}
			kind := input.PadButtonUp
			if r.Buttons[b] {
				kind = input.PadButtonDown
			}
			push(input.Event{Time: now, Kind: kind, Pad: uint8(p), PadButton: input.GamepadButton(b)})
		}
		for a := range input.GamepadAxisCount {
			if input.QuantizeAxis(float64(r.Axes[a])) == input.QuantizeAxis(float64(s.last.Axes[a])) {
				continue
			}
			push(input.Event{Time: now, Kind: input.PadAxisMove, Pad: uint8(p), Axis: input.GamepadAxis(a), X: float64(r.Axes[a])})
		}
		s.last = *r
	}
}

// Rescan makes the next Poll look at every gamepad of the source, as the
// first does, and give a pad to those that have none: after new mappings
// make joysticks already connected gamepads.
func (g *Gamepads) Rescan() { g.scanned = false }

// pad returns the pad number of joystick id, or -1.
func (g *Gamepads) pad(id int) int {
	for p := range g.pads {
		if g.pads[p].used && g.pads[p].id == id {
			return p
		}
	}
	return -1
}

func (g *Gamepads) connect(id int, now time.Duration, push func(input.Event)) {
	if g.pad(id) >= 0 {
		return
	}
	for p := range g.pads {
		if !g.pads[p].used {
			g.pads[p] = padSlot{used: true, id: id}
			push(input.Event{Time: now, Kind: input.PadConnected, Pad: uint8(p)})
			return
		}
	}
}

func (g *Gamepads) disconnect(p int, now time.Duration, push func(input.Event)) {
	g.pads[p] = padSlot{}
	g.scanned = false // a gamepad without a pad may take this one
	push(input.Event{Time: now, Kind: input.PadDisconnected, Pad: uint8(p)})
}

// shape applies the radial dead zone to both sticks and maps the
// triggers from GLFW's -1..1 to 0..1.
func (g *Gamepads) shape(r *GamepadReading) {
	radial(&r.Axes[input.PadLeftX], &r.Axes[input.PadLeftY], g.deadZone)
	radial(&r.Axes[input.PadRightX], &r.Axes[input.PadRightY], g.deadZone)
	for _, a := range []input.GamepadAxis{input.PadLeftTrigger, input.PadRightTrigger} {
		r.Axes[a] = float32(max(min((float64(r.Axes[a])+1)/2, 1), 0))
	}
}

// radial applies a radial dead zone dz to the stick x, y: a deflection
// m = |(x, y)| of at most dz reads 0, and above it the stick keeps its
// direction with deflection (m-dz)/(1-dz), at most 1.
func radial(x, y *float32, dz float64) {
	fx, fy := float64(*x), float64(*y)
	m := math.Sqrt(fx*fx + fy*fy)
	if !(m > dz) { // NaN too
		*x, *y = 0, 0
		return
	}
	f := min((m-dz)/(1-dz), 1) / m
	*x, *y = float32(max(min(fx*f, 1), -1)), float32(max(min(fy*f, 1), -1))
}
