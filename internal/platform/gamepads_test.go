package platform_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/internal/platform"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
)

// fakeJoysticks is a JoystickSource driven by the test: joysticks plug in
// and out (each reported as GLFW's callback would), with or without a
// gamepad mapping, and hold buttons and axes.
type fakeJoysticks struct {
	present map[int]*fakePad
	changes []platform.JoystickChange
}

type fakePad struct {
	gamepad bool
	r       platform.GamepadReading
}

func newFake() *fakeJoysticks { return &fakeJoysticks{present: map[int]*fakePad{}} }

// plug connects joystick id; triggers rest at -1, as GLFW reports them.
func (f *fakeJoysticks) plug(id int, gamepad bool) *fakePad {
	p := &fakePad{gamepad: gamepad}
	p.r.Axes[input.PadLeftTrigger], p.r.Axes[input.PadRightTrigger] = -1, -1
	f.present[id] = p
	f.changes = append(f.changes, platform.JoystickChange{ID: id, Connected: true})
	return p
}

func (f *fakeJoysticks) unplug(id int) {
	delete(f.present, id)
	f.changes = append(f.changes, platform.JoystickChange{ID: id})
}

func (f *fakeJoysticks) Gamepads(dst []int) []int {
	for id := range 16 {
		if p := f.present[id]; p != nil && p.gamepad {
			dst = append(dst, id)
		}
	}
	return dst
}

func (f *fakeJoysticks) Changes(dst []platform.JoystickChange) []platform.JoystickChange {
	dst = append(dst, f.changes...)
	f.changes = f.changes[:0]
	return dst
}

func (f *fakeJoysticks) IsGamepad(id int) bool { p := f.present[id]; return p != nil && p.gamepad }

func (f *fakeJoysticks) Read(id int, r *platform.GamepadReading) bool {
	p := f.present[id]
	if p == nil || !p.gamepad {
		return false
	}
	*r = p.r
	return true
}

// padEvents collects the pushed events as text.
type padEvents struct{ evs []input.Event }

func (r *padEvents) push(ev input.Event) { r.evs = append(r.evs, ev) }

func (r *padEvents) take() string {
	var s []string
	for _, ev := range r.evs {
		d := fmt.Sprintf("%v %v pad %d", ev.Time, ev.Kind, ev.Pad)
		switch ev.Kind {
		case input.PadButtonDown, input.PadButtonUp:
			d += " " + ev.PadButton.String()
		case input.PadAxisMove:
			d += fmt.Sprintf(" %v=%.4f", ev.Axis, ev.X)
		}
		s = append(s, d)
	}
	r.evs = r.evs[:0]
	return strings.Join(s, "; ")
}

func newPads(t *testing.T, src platform.JoystickSource, dz float64) *platform.Gamepads {
	t.Helper()
	g, err := platform.NewGamepads(src, platform.GamepadConfig{DeadZone: dz})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// The gamepads present at the first poll connect in ID order; later ones
// take the lowest free pad number when they plug in and free it when they
// unplug; a joystick without a gamepad mapping, and a fifth gamepad, are
// not gamepads of the Sample.
func TestGamepadsHotPlug(t *testing.T) {
	f := newFake()
	f.plug(3, true)
	f.plug(1, true)
	f.plug(2, false) // a joystick GLFW has no mapping for
	g := newPads(t, f, 0)
	var rec padEvents
	g.Poll(10*time.Millisecond, rec.push)
	if got, want := rec.take(), "10ms PadConnected pad 0; 10ms PadConnected pad 1"; got != want {
		t.Fatalf("first poll: %s\nwant %s", got, want)
	}
	g.Poll(20*time.Millisecond, rec.push)
	if got := rec.take(); got != "" {
		t.Fatalf("nothing changed: %s", got)
	}
	f.unplug(1) // pad 0
	f.plug(7, true)
	f.plug(8, true)
	f.plug(9, true)
	f.plug(10, true) // a fifth: no pad free
	g.Poll(30*time.Millisecond, rec.push)
	if got, want := rec.take(), "30ms PadDisconnected pad 0; 30ms PadConnected pad 0; 30ms PadConnected pad 2; 30ms PadConnected pad 3"; got != want {
		t.Fatalf("hot-plug: %s\nwant %s", got, want)
	}
	delete(f.present, 8) // gone without a callback: found by the read
	g.Poll(40*time.Millisecond, rec.push)
	if got, want := rec.take(), "40ms PadDisconnected pad 2"; got != want {
		t.Fatalf("a gamepad that stops reading: %s\nwant %s", got, want)
	}
	f.plug(10, true) // plugged again: now there is a pad for it
	g.Poll(50*time.Millisecond, rec.push)
	if got, want := rec.take(), "50ms PadConnected pad 2"; got != want {
		t.Fatalf("the fifth replugged: %s\nwant %s", got, want)
	}
}

// Sticks have a radial dead zone, rescaled so the rim reads 1; triggers
// read 0 released and 1 pressed; only axes that move are pushed.
func TestGamepadsDeadZone(t *testing.T) {
	f := newFake()
	p := f.plug(0, true)
	g := newPads(t, f, platform.DefaultDeadZone)
	var rec padEvents
	g.Poll(0, rec.push)
	if got := rec.take(); got != "0s PadConnected pad 0" {
		t.Fatalf("connect: %s (resting triggers must not move)", got)
	}
	for _, tc := range []struct {
		x, y float32
		want string
	}{
		{0.19, 0, ""},            // inside the dead zone
		{0.14, 0.14, ""},         // inside, though each axis alone is not tiny
		{0.5, 0, "LeftX=0.3750"}, // (0.5-0.2)/0.8
		{0, -1, "LeftX=0.0000 LeftY=-1.0000"},
		{0.6, 0.8, "LeftX=0.6000 LeftY=0.8000"}, // on the rim: unchanged
		{0.9, 0.9, "LeftX=0.7071 LeftY=0.7071"}, // past the rim: clamped to 1
		{0.1, 0.1, "LeftX=0.0000 LeftY=0.0000"},
	} {
		p.r.Axes[input.PadLeftX], p.r.Axes[input.PadLeftY] = tc.x, tc.y
		g.Poll(0, rec.push)
		var got []string
		for _, ev := range rec.evs {
			got = append(got, fmt.Sprintf("%v=%.4f", ev.Axis, ev.X))
		}
		rec.take()
		if strings.Join(got, " ") != tc.want {
			t.Errorf("stick %v, %v: %q, want %q", tc.x, tc.y, strings.Join(got, " "), tc.want)
		}
	}
	p.r.Axes[input.PadRightTrigger] = 0
	g.Poll(0, rec.push)
	if got := rec.take(); got != "0s PadAxisMove pad 0 RightTrigger=0.5000" {
		t.Errorf("half a trigger: %s", got)
	}
	if _, err := platform.NewGamepads(f, platform.GamepadConfig{DeadZone: 1}); err == nil {
		t.Error("a dead zone of 1 is accepted")
	}
	if _, err := platform.NewGamepads(f, platform.GamepadConfig{DeadZone: -0.1}); err == nil {
		t.Error("a negative dead zone is accepted")
	}
}

// Button edges are stamped with the poll's clock time, so that the tick
// they fall in sees them: a press polled at 20 ms is pressed in the tick
// due at 33.3 ms, not the one due at 16.7 ms; a press and release between
// two ticks is a tap in one tick.
func TestGamepadsButtonEdgesAtTheRightTick(t *testing.T) {
	f := newFake()
	p := f.plug(4, true)
	g := newPads(t, f, platform.DefaultDeadZone)
	var q input.Queue
	const tick = time.Second / 60
	g.Poll(1*time.Millisecond, q.Push)
	s := q.Advance(tick)
	if !s.PadConnected(0) {
		t.Fatal("not connected at tick 1")
	}
	p.r.Buttons[input.PadX] = true
	g.Poll(20*time.Millisecond, q.Push)
	s1, s2 := q.Advance(tick), q.Advance(2*tick)
	if s1.PadJustPressed(0, input.PadX) || !s2.PadJustPressed(0, input.PadX) || !s2.PadDown(0, input.PadX) {
		t.Errorf("X at 20 ms: pressed at 16.7 ms %v, at 33.3 ms %v", s1.PadJustPressed(0, input.PadX), s2.PadJustPressed(0, input.PadX))
	}
	p.r.Buttons[input.PadX] = false
	g.Poll(35*time.Millisecond, q.Push)
	p.r.Buttons[input.PadX] = true
	g.Poll(40*time.Millisecond, q.Push)
	p.r.Buttons[input.PadX] = false
	g.Poll(45*time.Millisecond, q.Push)
	s3, s4 := q.Advance(3*tick), q.Advance(4*tick)
	if !s3.PadJustReleased(0, input.PadX) || !s3.PadJustPressed(0, input.PadX) || !s3.PadDown(0, input.PadX) ||
		!s4.PadJustReleased(0, input.PadX) || s4.PadDown(0, input.PadX) {
		t.Errorf("up, down, up within tick 3: the second release must wait for tick 4: tick 3 released %v pressed %v down %v, tick 4 released %v down %v",
			s3.PadJustReleased(0, input.PadX), s3.PadJustPressed(0, input.PadX), s3.PadDown(0, input.PadX), s4.PadJustReleased(0, input.PadX), s4.PadDown(0, input.PadX))
	}
	// Unplugged while held: released in the tick it happens.
	p.r.Buttons[input.PadStart] = true
	g.Poll(70*time.Millisecond, q.Push)
	f.unplug(4)
	g.Poll(80*time.Millisecond, q.Push)
	s5 := q.Advance(5 * tick)
	if !s5.PadJustPressed(0, input.PadStart) || !s5.PadJustReleased(0, input.PadStart) || s5.PadConnected(0) {
		t.Errorf("Start pressed then unplugged: pressed %v released %v connected %v", s5.PadJustPressed(0, input.PadStart), s5.PadJustReleased(0, input.PadStart), s5.PadConnected(0))
	}
	if q.Pending() != 0 {
		t.Errorf("%d events still queued", q.Pending())
	}
}

// A window reads gamepads through GLFW: a valid SDL mapping line is
// accepted at Open and later, junk is refused with an error, a bad dead
// zone is refused before anything opens, and polling a display with no
// joysticks pushes nothing.
func TestWindowGamepadMappings(t *testing.T) {
	const xbox = "030000005e0400008e02000014010000,Test Xbox 360 Controller,a:b0,b:b1,back:b6,dpdown:h0.4,dpleft:h0.8,dpright:h0.2,dpup:h0.1,guide:b8,leftshoulder:b4,leftstick:b9,lefttrigger:a2,leftx:a0,lefty:a1,rightshoulder:b5,rightstick:b10,righttrigger:a5,rightx:a3,righty:a4,start:b7,x:b2,y:b3,platform:Linux,"
	bad := platformtest.SmallHidden()
	bad.Gamepads.DeadZone = 1.5
	if _, err := open(bad); err == nil || !strings.Contains(err.Error(), "dead zone") {
		t.Fatalf("Open with dead zone 1.5: %v", err)
	}
	cfg := platformtest.SmallHidden()
	cfg.Gamepads.Mappings = xbox
	win := platformtest.OpenWindow(t, cfg)
	var events []input.Event
	platformtest.OnMain(func() {
		win.SetCallbacks(platform.Callbacks{Clock: func() time.Duration { return 0 }, Input: func(ev input.Event) {
			if ev.Kind >= input.PadConnected {
				events = append(events, ev)
			}
		}})
		win.PollEvents()
		win.PollEvents()
	})
	if len(events) != 0 {
		t.Errorf("gamepad events on a display without joysticks: %v", events)
	}
	var errOK, errBad error
	platformtest.OnMain(func() {
		errOK = win.UpdateGamepadMappings(xbox)
		errBad = win.UpdateGamepadMappings("# a comment\n" + xbox + "\n030000005e0400008e02000014010000,Broken,a\n")
	})
	if errOK != nil {
		t.Errorf("a valid mapping: %v", errOK)
	}
	if errBad == nil || errBad.Error() != `platform: gamepad mappings line 3: "a" is not element:binding` {
		t.Errorf("junk mapping: %v", errBad)
	}
}

// A joystick that is connected without a mapping becomes a pad at the Poll
// after Rescan (new mappings), and a gamepad that found no free pad takes
// the first one freed, without being plugged again.
func TestGamepadsRescan(t *testing.T) {
	f := newFake()
	f.plug(2, false) // no mapping yet
	for id := 10; id < 10+input.MaxGamepads+1; id++ {
		f.plug(id, true) // one more than there are pads
	}
	g := newPads(t, f, 0)
	var rec padEvents
	g.Poll(0, rec.push)
	if got, want := rec.take(), "0s PadConnected pad 0; 0s PadConnected pad 1; 0s PadConnected pad 2; 0s PadConnected pad 3"; got != want {
		t.Fatalf("first poll: %s\nwant %s", got, want)
	}
	f.unplug(10) // pad 0 frees: the fifth takes it in the same Poll
	g.Poll(10*time.Millisecond, rec.push)
	if got, want := rec.take(), "10ms PadDisconnected pad 0; 10ms PadConnected pad 0"; got != want {
		t.Fatalf("a freed pad: %s\nwant %s", got, want)
	}
	f.unplug(11) // pad 1 frees, and no gamepad waits for it
	g.Poll(20*time.Millisecond, rec.push)
	f.present[2].gamepad = true // a mapping for joystick 2, which is connected
	g.Poll(30*time.Millisecond, rec.push)
	g.Rescan()
	g.Poll(40*time.Millisecond, rec.push)
	if got, want := rec.take(), "20ms PadDisconnected pad 1; 40ms PadConnected pad 1"; got != want {
		t.Fatalf("new mappings: %s\nwant %s", got, want)
	}
}
