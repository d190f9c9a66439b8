package input_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/internal/binread"
)

const (
	jump input.Action = iota
	fire
	moveX
)

func testActions(t testing.TB) *input.Actions {
	t.Helper()
	a, err := input.NewActions("jump", "fire", "move-x")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct {
		a input.Action
		b input.Binding
	}{
		{jump, input.KeyBinding(input.KeySpace)},
		{jump, input.PadButtonBinding(input.PadA)},
		{fire, input.MouseBinding(input.MouseButtonLeft)},
		{fire, input.PadAxisBinding(input.PadRightTrigger)},
		{moveX, input.KeyBinding(input.KeyArrowLeft).WithScale(-1)},
		{moveX, input.KeyBinding(input.KeyArrowRight)},
		{moveX, input.PadAxisBinding(input.PadLeftX)},
		{moveX, input.PadButtonBinding(input.PadDPadLeft).WithScale(-1)},
		{moveX, input.PadButtonBinding(input.PadDPadRight)},
	} {
		if err := a.Bind(b.a, b.b); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

func pad(kind input.EventKind, p uint8, b input.GamepadButton) input.Event {
	return input.Event{Kind: kind, Pad: p, PadButton: b}
}

func axis(p uint8, a input.GamepadAxis, v float64) input.Event {
	return input.Event{Kind: input.PadAxisMove, Pad: p, Axis: a, X: v}
}

// Gamepad buttons have the keys' edges: down, pressed and released per
// tick, one press and one release per tick (a second waits), and a
// gamepad that disconnects releases what it held.
func TestPadButtonEdges(t *testing.T) {
	var q input.Queue
	q.Push(pad(input.PadConnected, 1, 0))
	q.Push(pad(input.PadButtonDown, 1, input.PadB))
	q.Push(pad(input.PadButtonUp, 1, input.PadB))
	q.Push(pad(input.PadButtonDown, 1, input.PadB)) // a second press: next tick
	s := q.Advance(0)
	if !s.PadConnected(1) || s.PadConnected(0) || !s.PadJustPressed(1, input.PadB) || !s.PadJustReleased(1, input.PadB) || s.PadDown(1, input.PadB) {
		t.Fatalf("tick 1: connected %v, B pressed %v released %v down %v; want a connected pad 1 and a tap of B",
			s.PadConnected(1), s.PadJustPressed(1, input.PadB), s.PadJustReleased(1, input.PadB), s.PadDown(1, input.PadB))
	}
	s = q.Advance(0)
	if !s.PadJustPressed(1, input.PadB) || !s.PadDown(1, input.PadB) || q.Pending() != 0 {
		t.Fatalf("tick 2: B pressed %v down %v, %d pending; want the second press", s.PadJustPressed(1, input.PadB), s.PadDown(1, input.PadB), q.Pending())
	}
	q.Push(axis(1, input.PadLeftY, -0.5))
	q.Push(pad(input.PadDisconnected, 1, 0))
	s = q.Advance(0)
	if s.PadConnected(1) || !s.PadJustReleased(1, input.PadB) || s.PadDown(1, input.PadB) || s.PadAxis(1, input.PadLeftY) != 0 {
		t.Fatalf("after the disconnect: connected %v, B released %v down %v, axis %v; want B released and the axes at 0",
			s.PadConnected(1), s.PadJustReleased(1, input.PadB), s.PadDown(1, input.PadB), s.PadAxis(1, input.PadLeftY))
	}
	for _, bad := range []int{-1, input.MaxGamepads} {
		if s.PadConnected(bad) || s.PadDown(bad, input.PadA) || s.PadAxis(bad, input.PadLeftX) != 0 {
			t.Errorf("pad %d answers", bad)
		}
	}
}

// Axes are quantised to exact integers: the value read back is
// float32(q)/AxisUnit, whatever float the platform layer pushed.
func TestAxisQuantised(t *testing.T) {
	type axisCase struct {
		v    float64
		want int16
	}
	for _, tc := range []axisCase{{0, 0}, {1, 32767}, {-1, -32767}, {2, 32767}, {-7, -32767}, {0.5, 16384}, {-0.5, -16384}, {1.0 / 32767, 1}, {0.4 / 32767, 0}} {
		var q input.Queue
		q.Push(axis(0, input.PadRightX, tc.v))
		s := q.Advance(0)
		if got := s.PadAxisUnits(0, input.PadRightX); got != tc.want || s.PadAxis(0, input.PadRightX) != float32(tc.want)/input.AxisUnit {
			t.Errorf("axis %v: %d (%v), want %d", tc.v, got, s.PadAxis(0, input.PadRightX), tc.want)
		}
	}
	if input.QuantizeAxis(nan()) != 0 {
		t.Error("NaN is not 0")
	}
}

func nan() float64 { z := 0.0; return z / z }

// Actions follow their bindings: down when any binding is, pressed on the
// tick the first goes down (a tap within a tick too), the value the sum
// of the bindings' values, clamped; an axis past its threshold is down.
func TestActionsResolve(t *testing.T) {
	var q input.Queue
	q.SetActions(testActions(t))
	q.Push(input.Event{Kind: input.KeyDown, Key: input.KeySpace})
	s := q.Advance(0)
	if !s.Action(jump) || !s.ActionPressed(jump) || s.ActionReleased(jump) || s.ActionValue(jump) != 1 {
		t.Fatalf("Space: jump %v pressed %v released %v value %v", s.Action(jump), s.ActionPressed(jump), s.ActionReleased(jump), s.ActionValue(jump))
	}
	// A held by a second binding: no new press; Space up: still down.
	q.Push(pad(input.PadConnected, 0, 0))
	q.Push(pad(input.PadButtonDown, 0, input.PadA))
	q.Push(input.Event{Kind: input.KeyUp, Key: input.KeySpace})
	s = q.Advance(0)
	if !s.Action(jump) || s.ActionPressed(jump) || s.ActionReleased(jump) {
		t.Fatalf("A for Space: jump %v pressed %v released %v; want held throughout", s.Action(jump), s.ActionPressed(jump), s.ActionReleased(jump))
	}
	q.Push(pad(input.PadButtonUp, 0, input.PadA))
	s = q.Advance(0)
	if s.Action(jump) || !s.ActionReleased(jump) {
		t.Fatalf("A up: jump %v released %v", s.Action(jump), s.ActionReleased(jump))
	}
	// A tap within one tick.
	q.Push(input.Event{Kind: input.ButtonDown, Button: input.MouseButtonLeft})
	q.Push(input.Event{Kind: input.ButtonUp, Button: input.MouseButtonLeft})
	s = q.Advance(0)
	if s.Action(fire) || !s.ActionPressed(fire) || !s.ActionReleased(fire) {
		t.Fatalf("a click within a tick: fire %v pressed %v released %v; want pressed and released", s.Action(fire), s.ActionPressed(fire), s.ActionReleased(fire))
	}
	// The trigger past 0.5 is a press; the stick and keys sum, clamped.
	q.Push(axis(0, input.PadRightTrigger, 0.6))
	q.Push(axis(0, input.PadLeftX, 0.25))
	s = q.Advance(0)
	if !s.ActionPressed(fire) || s.ActionUnits(fire) != input.QuantizeAxis(0.6) || s.ActionUnits(moveX) != input.QuantizeAxis(0.25) {
		t.Fatalf("trigger 0.6, stick 0.25: fire pressed %v value %d, move-x %d", s.ActionPressed(fire), s.ActionUnits(fire), s.ActionUnits(moveX))
	}
	q.Push(input.Event{Kind: input.KeyDown, Key: input.KeyArrowLeft})
	s = q.Advance(0)
	if got, want := s.ActionUnits(moveX), input.QuantizeAxis(0.25)-input.AxisUnit; got != want {
		t.Errorf("stick 0.25 and ArrowLeft: move-x %d, want %d", got, want)
	}
	q.Push(input.Event{Kind: input.KeyDown, Key: input.KeyArrowRight})
	q.Push(pad(input.PadButtonDown, 0, input.PadDPadRight))
	s = q.Advance(0)
	if got := s.ActionValue(moveX); got != 1 {
		t.Errorf("stick 0.25, Left, Right and DPadRight: move-x %v, want 1 (clamped)", got)
	}
	q.Push(axis(0, input.PadRightTrigger, 0.3))
	s = q.Advance(0)
	if s.Action(fire) || !s.ActionReleased(fire) {
		t.Errorf("trigger back to 0.3: fire %v released %v", s.Action(fire), s.ActionReleased(fire))
	}
	// No Actions: every action up, value 0.
	q.SetActions(nil)
	s = q.Advance(0)
	if s.Action(moveX) || s.ActionValue(moveX) != 0 || s.ActionPressed(fire) {
		t.Error("actions resolved without Actions")
	}
	if s.Action(input.MaxActions) || s.ActionValue(200) != 0 {
		t.Error("an action out of range answers")
	}
}

// Rebinding takes effect at the next tick and only for the local Queue:
// the Samples already made keep what they said.
func TestRebindNextTick(t *testing.T) {
	a := testActions(t)
	var q input.Queue
	q.SetActions(a)
	q.Push(input.Event{Kind: input.KeyDown, Key: input.KeyJ})
	before := q.Advance(0)
	if before.Action(jump) {
		t.Fatal("J jumps before it is bound")
	}
	if err := a.Bind(jump, input.KeyBinding(input.KeyJ)); err != nil {
		t.Fatal(err)
	}
	if s := q.Advance(0); !s.Action(jump) || !s.ActionPressed(jump) {
		t.Errorf("after binding J (held): jump %v pressed %v, want a press", s.Action(jump), s.ActionPressed(jump))
	}
	a.Clear(jump)
	if s := q.Advance(0); s.Action(jump) || !s.ActionReleased(jump) {
		t.Errorf("after clearing jump: jump %v released %v", s.Action(jump), s.ActionReleased(jump))
	}
	if before.Action(jump) {
		t.Error("an earlier Sample changed")
	}
}

// A Sample with gamepads and actions survives Words and SetWords, and a
// saved Queue with gamepad events in its queue reads back the same.
func TestPadWordsRoundTrip(t *testing.T) {
	var q input.Queue
	q.SetActions(testActions(t))
	q.Push(pad(input.PadConnected, 3, 0))
	q.Push(pad(input.PadButtonDown, 3, input.PadDPadLeft))
	q.Push(axis(3, input.PadLeftX, -1))
	q.Push(axis(3, input.PadRightTrigger, 0.75))
	q.Push(axis(3, input.PadLeftY, 0.125))
	s := q.Advance(0)
	var w [input.SampleWords]uint64
	s.Words(&w)
	var back input.Sample
	if err := back.SetWords(&w); err != nil || back != s {
		t.Fatalf("SetWords(Words) = %v, equal %v", err, back == s)
	}
	if !s.Action(moveX) || s.ActionValue(moveX) != -1 || !s.ActionPressed(fire) {
		t.Errorf("move-x %v %v, fire pressed %v", s.Action(moveX), s.ActionValue(moveX), s.ActionPressed(fire))
	}
	for i := input.KeyMouseWords; i < input.SampleWords; i++ {
		if i == input.KeyMouseWords+input.MaxGamepads*input.PadWords {
			continue // actions down and pressed: every bit is an action's
		}
		bad := w
		bad[i] = 0x8000 << 48
		if err := back.SetWords(&bad); err == nil {
			t.Errorf("word %d with bit 63 set: no error", i)
		}
	}
	q.Push(pad(input.PadButtonUp, 3, input.PadDPadLeft))
	q.Push(axis(3, input.PadLeftX, 0.5))
	saved := q.AppendState(nil)
	var r input.Queue
	r.SetActions(q.Actions())
	rd := binread.New(saved)
	r.ReadState(&rd, input.StateCurrent)
	if err := rd.Err(); err != nil || rd.Left() != 0 {
		t.Fatalf("ReadState: %v, %d bytes left", err, rd.Left())
	}
	a, b := q.Advance(0), r.Advance(0)
	a.Words(&w)
	var wb [input.SampleWords]uint64
	b.Words(&wb)
	if wb != w {
		t.Errorf("the restored queue's next tick differs:\n%x\n%x", w, wb)
	}
}

// Every gamepad and action word of a Sample that never saw a gamepad or
// actions is zero: old formats' inputs read as such Samples.
func TestKeyMouseSampleHasZeroPadWords(t *testing.T) {
	var q input.Queue
	q.Push(input.Event{Kind: input.KeyDown, Key: input.KeyZ})
	q.Push(input.Event{Kind: input.CursorMove, X: 1, Y: 2})
	s := q.Advance(0)
	var w [input.SampleWords]uint64
	s.Words(&w)
	for i := input.KeyMouseWords; i < input.SampleWords; i++ {
		if w[i] != 0 {
			t.Errorf("word %d is %x", i, w[i])
		}
	}
}

const testBindings = `# a test file
jump key Space        # the big key
jump button A
fire mouse left
fire axis RightTrigger threshold=0.25 pad=1
move-x key ArrowLeft scale=-1
move-x	axis	LeftX	scale=-0.5
`

// A bindings file replaces the bindings of the actions it names, and
// WriteBindings writes text LoadBindings reads back to the same bindings.
func TestLoadAndWriteBindings(t *testing.T) {
	a := testActions(t)
	if err := a.LoadBindings(strings.NewReader(testBindings)); err != nil {
		t.Fatal(err)
	}
	want := map[input.Action][]input.Binding{
		jump:  {input.KeyBinding(input.KeySpace), input.PadButtonBinding(input.PadA)},
		fire:  {input.MouseBinding(input.MouseButtonLeft), input.PadAxisBinding(input.PadRightTrigger).WithThreshold(0.25).OnPad(1)},
		moveX: {input.KeyBinding(input.KeyArrowLeft).WithScale(-1), input.PadAxisBinding(input.PadLeftX).WithScale(-0.5)},
	}
	for act, bs := range want {
		if got := a.Bindings(act); fmt.Sprint(got) != fmt.Sprint(bs) || len(got) != len(bs) {
			t.Errorf("%s: %v, want %v", a.Name(act), got, bs)
		}
	}
	var buf bytes.Buffer
	if err := a.WriteBindings(&buf); err != nil {
		t.Fatal(err)
	}
	b := testActions(t)
	b.Clear(fire)
	if err := b.LoadBindings(&buf); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	for act := range input.Action(a.Len()) {
		if fmt.Sprint(a.Bindings(act)) != fmt.Sprint(b.Bindings(act)) {
			t.Errorf("%s after a round trip: %v, want %v", a.Name(act), b.Bindings(act), a.Bindings(act))
		}
	}
	// An action not named keeps its bindings; "none" clears.
	if err := a.LoadBindings(strings.NewReader("jump none\n")); err != nil {
		t.Fatal(err)
	}
	if len(a.Bindings(jump)) != 0 || len(a.Bindings(fire)) != 2 {
		t.Errorf("after \"jump none\": jump %v, fire %v", a.Bindings(jump), a.Bindings(fire))
	}
}

// A faulty file is refused with its line and what is wrong, and changes
// nothing.
func TestLoadBindingsErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"jump key Space\njunp key J", `input: bindings line 2: no action is named "junp" (the actions: jump, fire, move-x)`},
		{"\n\njump", "input: bindings line 3: jump: a source (key, mouse, button, axis or none) is missing"},
		{"jump key", "input: bindings line 1: jump: key: the name of the key, button or axis is missing"},
		{"jump key Spcae", `input: bindings line 1: jump: key "Spcae": no such key`},
		{"jump key Unknown", `input: bindings line 1: jump: key "Unknown": no such key`},
		{"jump joystick 1", `input: bindings line 1: jump: source "joystick" is not key, mouse, button, axis or none`},
		{"jump button Z", `input: bindings line 1: jump: button "Z": no such gamepad button`},
		{"fire axis LeftX threshold=0", "input: bindings line 1: fire: threshold 0 is not within (0, 1]"},
		{"fire axis LeftX threshold=x", "input: bindings line 1: fire: threshold=x: not a number"},
		{"fire key F threshold=0.5", "input: bindings line 1: fire: threshold=0.5: a threshold applies to an axis only"},
		{"fire key F pad=1", "input: bindings line 1: fire: pad=1: a pad applies to a gamepad button or axis only"},
		{"fire button A pad=4", "input: bindings line 1: fire: pad=4: not a gamepad number from 0 to 3"},
		{"fire key F scale=17", "input: bindings line 1: fire: scale 17 is not within [-16, 16]"},
		{"fire key F scale=NaN", "input: bindings line 1: fire: scale NaN is not within [-16, 16]"},
		{"fire key F scale=1 scale=2", "input: bindings line 1: fire: option scale is given twice"},
		{"fire key F speed=2", `input: bindings line 1: fire: option "speed" is not scale, threshold or pad`},
		{"fire key F 2", `input: bindings line 1: fire: option "2" is not scale=S, threshold=T or pad=P`},
		{"fire none now", `input: bindings line 1: fire none: "now" after none`},
		{"fire key Z\n" + bindingsOver(), "input: bindings line 17: fire: more than 16 bindings"},
	} {
		a := testActions(t)
		err := a.LoadBindings(strings.NewReader(tc.text))
		var be *input.BindingsError
		if err == nil || err.Error() != tc.want || !errors.As(err, &be) {
			t.Errorf("%q:\n got %v\nwant %s", tc.text, err, tc.want)
		}
		if fmt.Sprint(a.Bindings(jump), a.Bindings(fire)) != fmt.Sprint(testActions(t).Bindings(jump), testActions(t).Bindings(fire)) {
			t.Errorf("%q: a refused file changed the bindings", tc.text)
		}
	}
	if err := testActions(t).LoadBindings(bytes.NewReader(make([]byte, input.MaxBindingsFile+1))); err == nil {
		t.Error("a file over MaxBindingsFile is read")
	}
}

// bindingsOver binds fire to 16 more keys (A to P): one too many after F.
func bindingsOver() string {
	var b strings.Builder
	for k := input.KeyA; k <= input.KeyP; k++ {
		fmt.Fprintf(&b, "fire key %s\n", k)
	}
	return b.String()
}

// Bind refuses what the file format would refuse.
func TestBindRefuses(t *testing.T) {
	a := testActions(t)
	for _, b := range []input.Binding{
		{},
		input.KeyBinding(input.KeyUnknown),
		input.KeyBinding(input.KeyCount),
		input.PadAxisBinding(input.PadLeftX).WithThreshold(2),
		input.PadButtonBinding(input.PadA).OnPad(9),
		input.KeyBinding(input.KeyA).OnPad(0),
	} {
		if err := a.Bind(jump, b); err == nil {
			t.Errorf("Bind(%v) = nil", b)
		}
	}
	if err := a.Bind(9, input.KeyBinding(input.KeyA)); err == nil {
		t.Error("Bind of action 9 of 3 = nil")
	}
	if !a.Unbind(jump, input.KeyBinding(input.KeySpace)) || a.Unbind(jump, input.KeyBinding(input.KeySpace)) {
		t.Error("Unbind does not report what it removed")
	}
	for _, names := range [][]string{{"a", "a"}, {""}, {"has space"}, {strings.Repeat("x", 33)}, make([]string, input.MaxActions+1)} {
		if _, err := input.NewActions(names...); err == nil {
			t.Errorf("NewActions(%q) = nil error", names)
		}
	}
	if act, ok := a.Lookup("move-x"); !ok || act != moveX || a.Name(act) != "move-x" || a.Name(99) != "" {
		t.Errorf("Lookup(move-x) = %d, %v", act, ok)
	}
	if _, ok := a.Lookup("nope"); ok {
		t.Error("Lookup(nope) found it")
	}
}

// FuzzLoadBindings: any text either loads, and then writes text that
// loads to the same bindings, or is refused with a line number; never a
// panic.
func FuzzLoadBindings(f *testing.F) {
	f.Add(testBindings)
	f.Add("jump none\nfire axis LeftTrigger scale=-16 threshold=1 pad=3\n")
	f.Add("move-x key ArrowLeft scale=1e-45\n")
	f.Fuzz(func(t *testing.T, text string) {
		a := testActions(t)
		err := a.LoadBindings(strings.NewReader(text))
		if err != nil {
			var be *input.BindingsError
			if !errors.As(err, &be) || be.Line < 1 || be.Line > strings.Count(text, "\n")+1 {
				t.Fatalf("error %v has no line of the text", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := a.WriteBindings(&buf); err != nil {
			t.Fatal(err)
		}
		b := testActions(t)
		if err := b.LoadBindings(bytes.NewReader(buf.Bytes())); err != nil {
			t.Fatalf("written bindings do not load: %v\n%s", err, buf.String())
		}
		for act := range input.Action(a.Len()) {
			if x, y := a.Bindings(act), b.Bindings(act); fmt.Sprint(x) != fmt.Sprint(y) || len(x) != len(y) {
				t.Fatalf("%s: %v after a round trip, want %v", a.Name(act), y, x)
			}
		}
	})
}

// The package's example bindings file loads.
func TestExampleBindingsFile(t *testing.T) {
	data, err := os.ReadFile("testdata/bindings.txt")
	if err != nil {
		t.Fatal(err)
	}
	a := testActions(t)
	if err := a.LoadBindings(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
}
