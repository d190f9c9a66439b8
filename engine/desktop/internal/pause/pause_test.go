package pause

import (
	"io"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
)

// devices is a window and its devices, set by the test.
type devices struct {
	focused, iconified bool
	width, height      int
	keys               map[input.Key]bool
	buttons            map[input.MouseButton]bool
	x, y               float64
}

func newDevices() *devices {
	return &devices{focused: true, width: 64, height: 64, keys: map[input.Key]bool{}, buttons: map[input.MouseButton]bool{}}
}

func (d *devices) Focused() bool                       { return d.focused }
func (d *devices) Iconified() bool                     { return d.iconified }
func (d *devices) FramebufferSize() (int, int)         { return d.width, d.height }
func (d *devices) KeyHeld(k input.Key) bool            { return d.keys[k] }
func (d *devices) ButtonHeld(b input.MouseButton) bool { return d.buttons[b] }
func (d *devices) CursorPos() (float64, float64)       { return d.x, d.y }

const ms = time.Millisecond

// rig is a gate on a real engine, driven frame by frame at 10 ms.
type rig struct {
	t    *testing.T
	dev  *devices
	e    *engine.Engine
	g    *Gate
	now  time.Duration
	last time.Duration
}

func newRig(t *testing.T, pauseUnfocused bool) *rig {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	log := logrus.New()
	log.SetOutput(io.Discard)
	dev := newDevices()
	r := &rig{t: t, dev: dev, e: e, g: New(dev, e, pauseUnfocused, log)}
	r.g.Start()
	return r
}

// frame runs one frame: the gate's decisions, then the loop's frame. It
// returns whether the window was away (no frame ran).
func (r *rig) frame() bool {
	r.now += 10 * ms
	if away, _ := r.g.Suspend(); away {
		return true
	}
	r.g.Update(r.now, r.last)
	r.last = r.now
	r.e.Frame(r.now)
	return false
}

// input is what the simulation has been told, as of now.
func (r *rig) input() input.Sample { return r.e.Input.Advance(r.now) }

func TestFirstFrameRunsPausedThenTicks(t *testing.T) {
	r := newRig(t, false)
	r.frame()
	if !r.e.Loop.Paused() || r.e.Loop.Ticks() != 0 {
		t.Fatalf("first frame: paused %v, %d ticks; want paused, none", r.e.Loop.Paused(), r.e.Loop.Ticks())
	}
	for range 10 {
		r.frame()
	}
	// 10 frames of 10 ms after the first: 100 ms, 6 ticks at 60 Hz, no
	// more (the first frame set the reference).
	if r.e.Loop.Paused() || r.e.Loop.Ticks() != 6 {
		t.Errorf("after 100 ms: paused %v, %d ticks; want running, 6", r.e.Loop.Paused(), r.e.Loop.Ticks())
	}
}

// The game's pause stops the ticks and the input; on resume the simulation
// hears only what changed meanwhile, and runs no catch-up burst.
func TestUserPauseResynchronisesInput(t *testing.T) {
	r := newRig(t, false)
	for range 5 {
		r.frame()
	}
	r.g.Input(input.Event{Time: r.now, Kind: input.KeyDown, Key: input.KeyA})
	r.frame()
	r.g.SetUser(true)
	r.frame()
	ticks := r.e.Loop.Ticks()
	if !r.g.Paused() || !r.g.User() {
		t.Fatal("SetUser(true) did not pause")
	}
	// While paused: A is released and B pressed on the devices, and their
	// events arrive (and are dropped); the cursor moves.
	r.g.Input(input.Event{Time: r.now, Kind: input.KeyUp, Key: input.KeyA})
	r.g.Input(input.Event{Time: r.now, Kind: input.KeyDown, Key: input.KeyB})
	r.dev.keys[input.KeyB] = true
	r.dev.buttons[input.MouseButtonLeft] = true
	r.dev.x, r.dev.y = 30, 40
	for range 100 { // a second
		r.frame()
	}
	if r.e.Loop.Ticks() != ticks {
		t.Fatalf("%d ticks ran while paused", r.e.Loop.Ticks()-ticks)
	}
	if in := r.input(); !in.Down(input.KeyA) || in.Down(input.KeyB) {
		t.Fatalf("while paused the simulation saw A %v, B %v: want A held, B not (no input while paused)", in.Down(input.KeyA), in.Down(input.KeyB))
	}
	r.g.SetUser(false)
	r.frame()
	if got := r.e.Loop.Ticks() - ticks; got > 1 {
		t.Errorf("the frame after the pause ran %d ticks, want at most 1 (no catch-up)", got)
	}
	in := r.input()
	x, y := in.Cursor()
	if in.Down(input.KeyA) || !in.Down(input.KeyB) || !in.ButtonDown(input.MouseButtonLeft) || x != 30 || y != 40 {
		t.Errorf("after resume: A %v, B %v, left button %v, cursor (%v, %v); want A up, B and the button down, cursor (30, 40)",
			in.Down(input.KeyA), in.Down(input.KeyB), in.ButtonDown(input.MouseButtonLeft), x, y)
	}
}

// Losing the focus releases every held key (the window will not hear the
// releases made elsewhere); with pauseUnfocused it also pauses.
func TestFocusLossReleasesKeys(t *testing.T) {
	for _, pauseUnfocused := range []bool{false, true} {
		r := newRig(t, pauseUnfocused)
		for range 3 {
			r.frame()
		}
		r.g.Input(input.Event{Time: r.now, Kind: input.KeyDown, Key: input.KeySpace})
		r.dev.keys[input.KeySpace] = true
		r.frame()
		r.dev.focused = false
		r.frame()
		if in := r.input(); in.Down(input.KeySpace) {
			t.Errorf("pauseUnfocused %v: Space still held after the focus was lost", pauseUnfocused)
		}
		if r.e.Loop.Paused() != pauseUnfocused {
			t.Errorf("pauseUnfocused %v: unfocused, loop paused %v", pauseUnfocused, r.e.Loop.Paused())
		}
		r.dev.focused = true
		r.frame()
		r.frame()
		if r.e.Loop.Paused() {
			t.Errorf("pauseUnfocused %v: still paused with the focus back", pauseUnfocused)
		}
		// Space is still held on the device: a resumed simulation hears
		// it again; one that never paused heard its release and waits
		// for the next press.
		if in := r.input(); in.Down(input.KeySpace) != pauseUnfocused {
			t.Errorf("pauseUnfocused %v: Space down %v with the focus back", pauseUnfocused, in.Down(input.KeySpace))
		}
	}
}

// A minimised or empty window is away: no frame, the simulation paused;
// when it comes back the first frame still runs paused, then ticks resume
// with no burst.
func TestSuspendAndComeBack(t *testing.T) {
	for _, away := range []func(d *devices, away bool){
		func(d *devices, away bool) { d.iconified = away },
		func(d *devices, away bool) { d.width, d.height = map[bool]int{true: 0, false: 64}[away], 64 },
	} {
		r := newRig(t, false)
		for range 10 {
			r.frame()
		}
		away(r.dev, true)
		if !r.frame() || !r.e.Loop.Paused() {
			t.Fatal("a minimised or empty window is not away, or the loop runs")
		}
		ticks := r.e.Loop.Ticks()
		for range 50 {
			r.frame()
		}
		away(r.dev, false)
		if a, back := r.g.Suspend(); a || !back {
			t.Fatalf("coming back: away %v, back %v", a, back)
		}
		r.now += 10 * ms
		r.g.Update(r.now, r.last)
		r.last = r.now
		r.e.Frame(r.now)
		if !r.e.Loop.Paused() || r.e.Loop.Ticks() != ticks {
			t.Errorf("the first frame back: paused %v, %d ticks; want paused, none", r.e.Loop.Paused(), r.e.Loop.Ticks()-ticks)
		}
		r.frame()
		if r.e.Loop.Paused() || r.e.Loop.Ticks()-ticks > 1 {
			t.Errorf("the second frame back: paused %v, %d ticks; want running, at most 1", r.e.Loop.Paused(), r.e.Loop.Ticks()-ticks)
		}
	}
}
