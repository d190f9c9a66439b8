package input_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/timing"
)

const ms = time.Millisecond

// Event constructors for the tables.
func keyDown(t time.Duration, k input.Key) input.Event {
	return input.Event{Time: t, Kind: input.KeyDown, Key: k}
}

func keyUp(t time.Duration, k input.Key) input.Event {
	return input.Event{Time: t, Kind: input.KeyUp, Key: k}
}

func buttonDown(t time.Duration, b input.MouseButton) input.Event {
	return input.Event{Time: t, Kind: input.ButtonDown, Button: b}
}

func buttonUp(t time.Duration, b input.MouseButton) input.Event {
	return input.Event{Time: t, Kind: input.ButtonUp, Button: b}
}

func cursorMove(t time.Duration, x, y float64) input.Event {
	return input.Event{Time: t, Kind: input.CursorMove, X: x, Y: y}
}

func scroll(t time.Duration, dx, dy float64) input.Event {
	return input.Event{Time: t, Kind: input.Scroll, X: dx, Y: dy}
}

// describe spells out a snapshot for the tables: the keys and buttons down,
// just pressed and just released, then the cursor and the scroll when they
// are not zero, e.g. "down=A pressed=A,B released=B cursor=3,4". The empty
// snapshot is "".
func describe(s input.Sample) string {
	var parts []string
	keys := func(name string, has func(input.Key) bool) {
		var names []string
		for k := range input.KeyCount {
			if has(k) {
				names = append(names, k.String())
			}
		}
		if names != nil {
			parts = append(parts, name+"="+strings.Join(names, ","))
		}
	}
	buttons := func(name string, has func(input.MouseButton) bool) {
		var names []string
		for b := range input.MouseButtonCount {
			if has(b) {
				names = append(names, b.String())
			}
		}
		if names != nil {
			parts = append(parts, name+"="+strings.Join(names, ","))
		}
	}
	pair := func(name string, x, y float64) {
		if x != 0 || y != 0 {
			parts = append(parts, name+"="+strconv.FormatFloat(x, 'g', -1, 64)+","+strconv.FormatFloat(y, 'g', -1, 64))
		}
	}
	keys("down", s.Down)
	keys("pressed", s.JustPressed)
	keys("released", s.JustReleased)
	buttons("bdown", s.ButtonDown)
	buttons("bpressed", s.ButtonJustPressed)
	buttons("breleased", s.ButtonJustReleased)
	x, y := s.Cursor()
	pair("cursor", x, y)
	dx, dy := s.Scroll()
	pair("scroll", dx, dy)
	return strings.Join(parts, " ")
}

// An inputFrame is one frame of a table test: the events pushed (and the
// calls made) before it, its time, and what it must produce: one snapshot
// description per tick it runs, and the events still queued after it.
type inputFrame struct {
	push    []input.Event
	before  func(in *input.Queue)
	now     time.Duration
	want    []string
	pending int
}

// At 60 Hz from a first frame at 0, the ticks are due at 16.666667 ms,
// 33.333334 ms, 50 ms, 66.666667 ms, 83.333334 ms, 100 ms and so on (the
// time is rounded up to the nanosecond).
var inputFrameTests = []struct {
	name   string
	frames []inputFrame
}{
	{
		name: "press and release within one tick are both seen",
		frames: []inputFrame{
			{now: 0},
			{push: []input.Event{keyDown(5*ms, input.KeyA), keyUp(10*ms, input.KeyA)}, now: 20 * ms,
				want: []string{"pressed=A released=A"}},
			{now: 40 * ms, want: []string{""}},
		},
	},
	{
		name: "events of frames without a tick wait for the next tick",
		frames: []inputFrame{
			{now: 0},
			{push: []input.Event{keyDown(3*ms, input.KeyA)}, now: 10 * ms, pending: 1},
			{push: []input.Event{cursorMove(11*ms, 5, 5)}, now: 12 * ms, pending: 2},
			{now: 12 * ms, pending: 2}, // a repeated frame time: no tick either
			{now: 20 * ms, want: []string{"down=A pressed=A cursor=5,5"}},
		},
	},
	{
		name: "a frame of five ticks hands each event to the tick it falls in",
		frames: []inputFrame{
			{now: 0},
			{
				push: []input.Event{
					keyDown(1*ms, input.KeyA),
					keyUp(20*ms, input.KeyA),
					keyDown(40*ms, input.KeyB),
					keyDown(45*ms, input.KeyA),
					keyUp(60*ms, input.KeyB),
					keyUp(70*ms, input.KeyA),
					keyDown(84*ms, input.KeyC), // after the fifth tick, at the frame's time
				},
				now: 84 * ms,
				want: []string{
					"down=A pressed=A",     // due 16.67 ms
					"released=A",           // due 33.33 ms
					"down=A,B pressed=A,B", // due 50 ms
					"down=A released=B",    // due 66.67 ms
					"released=A",           // due 83.33 ms
				},
				pending: 1,
			},
			{now: 100 * ms, want: []string{"down=C pressed=C"}},
		},
	},
	{
		name: "an event due exactly at a tick belongs to that tick",
		frames: []inputFrame{
			{now: 0},
			{push: []input.Event{keyDown(50*ms, input.KeyA), keyDown(50*ms+1, input.KeyB)}, now: 60 * ms,
				want: []string{"", "", "down=A pressed=A"}, pending: 1},
			{now: 80 * ms, want: []string{"down=A,B pressed=B"}},
		},
	},
	{
		name: "a held key is pressed on its first tick and released on its last",
		frames: []inputFrame{
			{now: 0},
			{push: []input.Event{keyDown(10*ms, input.KeySpace)}, now: 20 * ms, want: []string{"down=Space pressed=Space"}},
			{now: 40 * ms, want: []string{"down=Space"}},
			{now: 60 * ms, want: []string{"down=Space"}},
			{now: 80 * ms, want: []string{"down=Space"}},
			{push: []input.Event{keyUp(90*ms, input.KeySpace)}, now: 100 * ms,
				want: []string{"down=Space", "released=Space"}}, // due 83.33 ms and 100 ms
			{now: 120 * ms, want: []string{""}},
		},
	},
	{
		name: "key repeat is not a press",
		frames: []inputFrame{
			{now: 0},
			{push: []input.Event{keyDown(5*ms, input.KeyW), keyDown(10*ms, input.KeyW)}, now: 20 * ms,
				want: []string{"down=W pressed=W"}},
			{push: []input.Event{keyDown(25*ms, input.KeyW), keyDown(30*ms, input.KeyW)}, now: 40 * ms,
				want: []string{"down=W"}},
			{push: []input.Event{keyDown(45*ms, input.KeyW), keyUp(48*ms, input.KeyW)}, now: 60 * ms,
				want: []string{"released=W"}},
		},
	},
	{
		name: "a release of a key that is up is not a release",
		frames: []inputFrame{
			{now: 0},
			{push: []input.Event{keyUp(5*ms, input.KeyQ)}, now: 20 * ms, want: []string{""}},
		},
	},
	{
		name: "release and press again within one tick",
		frames: []inputFrame{
			{now: 0},
			{push: []input.Event{keyDown(1*ms, input.KeyA)}, now: 20 * ms, want: []string{"down=A pressed=A"}},
			{push: []input.Event{keyUp(25*ms, input.KeyA), keyDown(30*ms, input.KeyA)}, now: 40 * ms,
				want: []string{"down=A pressed=A released=A"}},
		},
	},
	{
		name: "a second press within one tick waits for the next tick, with what follows it",
		frames: []inputFrame{
			{now: 0},
			{
				push: []input.Event{
					keyDown(2*ms, input.KeyA), keyUp(4*ms, input.KeyA),
					keyDown(6*ms, input.KeyA), cursorMove(7*ms, 3, 4), keyUp(8*ms, input.KeyA),
				},
				now: 20 * ms, want: []string{"pressed=A released=A"}, pending: 3,
			},
			{now: 40 * ms, want: []string{"pressed=A released=A cursor=3,4"}},
		},
	},
	{
		name: "mouse buttons",
		frames: []inputFrame{
			{now: 0},
			{
				push: []input.Event{
					buttonDown(2*ms, input.MouseButtonLeft), buttonDown(3*ms, input.MouseButtonRight),
					buttonDown(4*ms, input.MouseButtonRight), buttonUp(5*ms, input.MouseButtonLeft),
				},
				now: 20 * ms, want: []string{"bdown=Right bpressed=Left,Right breleased=Left"},
			},
			{now: 40 * ms, want: []string{"bdown=Right"}},
			{push: []input.Event{buttonUp(45*ms, input.MouseButtonRight)}, now: 60 * ms, want: []string{"breleased=Right"}},
			{
				push: []input.Event{
					buttonDown(61*ms, input.MouseButton8), buttonUp(62*ms, input.MouseButton8),
					buttonDown(63*ms, input.MouseButton8),
				},
				now: 80 * ms, want: []string{"bpressed=Button8 breleased=Button8"}, pending: 1,
			},
			{now: 100 * ms, want: []string{"bdown=Button8 bpressed=Button8", "bdown=Button8"}}, // due 83.33 ms and 100 ms
		},
	},
	{
		name: "cursor is the latest position, scroll the sum over the tick",
		frames: []inputFrame{
			{now: 0},
			{
				push: []input.Event{
					cursorMove(2*ms, 10, 20), scroll(3*ms, 0, 1), cursorMove(5*ms, 30, 40),
					scroll(10*ms, 0, 2), scroll(20*ms, 1.5, -1),
				},
				now: 20 * ms, want: []string{"cursor=30,40 scroll=0,3"}, pending: 1,
			},
			{now: 40 * ms, want: []string{"cursor=30,40 scroll=1.5,-1"}},
			{now: 60 * ms, want: []string{"cursor=30,40"}},
		},
	},
	{
		name: "an event stamped before the latest one takes the latest time",
		frames: []inputFrame{
			{now: 0},
			{
				push: []input.Event{
					keyDown(50*ms, input.KeyA),
					keyUp(10*ms, input.KeyA),                 // seen at 50 ms, after the press
					cursorMove(5*ms, 1, 1),                   // seen at 50 ms
					scroll(49*ms+999*time.Microsecond, 0, 1), // seen at 50 ms
				},
				now: 20 * ms, want: []string{""}, pending: 4,
			},
			{now: 60 * ms, want: []string{"", "pressed=A released=A cursor=1,1 scroll=0,1"}}, // due 33.33 ms and 50 ms
		},
	},
	{
		name: "an event older than a tick already run goes to the next tick",
		frames: []inputFrame{
			{now: 0},
			{now: 40 * ms, want: []string{"", ""}},
			{push: []input.Event{keyDown(1*ms, input.KeyA)}, now: 60 * ms, want: []string{"down=A pressed=A"}},
		},
	},
	{
		name: "ReleaseAll releases every key and button down, queued presses included",
		frames: []inputFrame{
			{now: 0},
			{push: []input.Event{keyDown(1*ms, input.KeyA), buttonDown(2*ms, input.MouseButtonMiddle)}, now: 20 * ms,
				want: []string{"down=A pressed=A bdown=Middle bpressed=Middle"}},
			{
				push:   []input.Event{keyDown(25*ms, input.KeyB), keyDown(26*ms, input.KeyLeftShift), keyUp(27*ms, input.KeyLeftShift)},
				before: func(in *input.Queue) { in.ReleaseAll(30 * ms) },
				now:    40 * ms, want: []string{"pressed=B,LeftShift released=A,B,LeftShift breleased=Middle"},
			},
			{now: 60 * ms, want: []string{""}},
			{before: func(in *input.Queue) { in.ReleaseAll(61 * ms) }, now: 80 * ms, want: []string{""}},
		},
	},
	clampedFrameTest(),
}

// clampedFrameTest taps A ten times during one frame of a second, which the
// loop clamps to 250 ms (15 ticks) and caps at 5 ticks. The ticks of that
// frame are due in its first 83 ms; the taps after them wait, and the
// following frames catch up one tap per tick.
func clampedFrameTest() (tc struct {
	name   string
	frames []inputFrame
}) {
	tc.name = "a clamped and capped frame loses no event"
	var taps []input.Event
	for k := range time.Duration(10) {
		taps = append(taps, keyDown(k*100*ms+10*ms, input.KeyA), keyUp(k*100*ms+50*ms, input.KeyA))
	}
	tc.frames = []inputFrame{
		{now: 0},
		{push: taps, now: time.Second, want: []string{"down=A pressed=A", "down=A", "released=A", "", ""}, pending: 18},
	}
	for i := range 9 {
		tc.frames = append(tc.frames, inputFrame{
			now:     time.Second + time.Duration(i+1)*17*ms,
			want:    []string{"pressed=A released=A"},
			pending: 16 - 2*i,
		})
	}
	tc.frames = append(tc.frames, inputFrame{now: time.Second + 10*17*ms, want: []string{""}})
	return tc
}

func TestInputFrames(t *testing.T) {
	for _, tc := range inputFrameTests {
		t.Run(tc.name, func(t *testing.T) {
			loop := timing.MustNewLoop(timing.DefaultConfig())
			var in input.Queue
			var got []string
			fixed := func(s timing.Step) { got = append(got, describe(in.Advance(s.Due))) }
			for i, f := range tc.frames {
				for _, ev := range f.push {
					in.Push(ev)
				}
				if f.before != nil {
					f.before(&in)
				}
				got = got[:0]
				loop.Tick(f.now, fixed, nil)
				if !slices.Equal(got, f.want) {
					t.Errorf("frame %d at %v: ticks saw\n\t%q\nwant\n\t%q", i, f.now, got, f.want)
				}
				if in.Pending() != f.pending {
					t.Errorf("frame %d at %v: %d events pending, want %d", i, f.now, in.Pending(), f.pending)
				}
			}
		})
	}
}

func TestInputClampedFrameSeesEveryPress(t *testing.T) {
	tc := clampedFrameTest()
	loop := timing.MustNewLoop(timing.DefaultConfig())
	var in input.Queue
	presses, releases := 0, 0
	fixed := func(s timing.Step) {
		snap := in.Advance(s.Due)
		if snap.JustPressed(input.KeyA) {
			presses++
		}
		if snap.JustReleased(input.KeyA) {
			releases++
		}
	}
	for _, f := range tc.frames {
		for _, ev := range f.push {
			in.Push(ev)
		}
		loop.Tick(f.now, fixed, nil)
	}
	if st := loop.Stats(); st.ClampedFrames != 1 || st.CappedFrames != 1 {
		t.Fatalf("the second frame was not clamped and capped: %+v", st)
	}
	if presses != 10 || releases != 10 || in.Pending() != 0 {
		t.Errorf("%d presses and %d releases seen, %d events pending; want 10, 10, 0", presses, releases, in.Pending())
	}
}

func TestInputAdvance(t *testing.T) {
	var in input.Queue
	in.Push(keyDown(10, input.KeyA))
	in.Push(keyUp(20, input.KeyA))
	in.Push(keyDown(30, input.KeyB))
	tests := []struct {
		due     time.Duration
		want    string
		pending int
	}{
		{9, "", 3},
		{10, "down=A pressed=A", 2},
		{10, "down=A", 2},
		{29, "released=A", 1},
		{100, "down=B pressed=B", 0},
		{200, "down=B", 0},
	}
	for _, tt := range tests {
		if got := describe(in.Advance(tt.due)); got != tt.want || in.Pending() != tt.pending {
			t.Errorf("Advance(%d) = %q with %d pending, want %q with %d", tt.due, got, in.Pending(), tt.want, tt.pending)
		}
	}
}

func TestInputUnknownKeyIsDropped(t *testing.T) {
	var in input.Queue
	in.Push(keyDown(1, input.KeyUnknown))
	in.Push(keyUp(2, input.KeyUnknown))
	if in.Pending() != 0 {
		t.Fatalf("%d events pending, want 0", in.Pending())
	}
	if s := in.Advance(10); s != (input.Sample{}) {
		t.Errorf("snapshot %q, want empty", describe(s))
	}
}

func TestInputPushPanicsOnBadEvents(t *testing.T) {
	tests := []struct {
		name string
		ev   input.Event
		want string
	}{
		{"zero kind", input.Event{Time: 1}, "input: Queue.Push: event kind 0 is not an EventKind"},
		{"unknown kind", input.Event{Kind: input.PadAxisMove + 1}, "input: Queue.Push: event kind 12 is not an EventKind"},
		{"pad out of range", input.Event{Kind: input.PadButtonDown, Pad: input.MaxGamepads}, "input: Queue.Push: PadButtonDown event for pad 4, button 0, axis 0, out of range (4 pads, 15 buttons, 6 axes)"},
		{"pad button out of range", input.Event{Kind: input.PadButtonUp, PadButton: input.GamepadButtonCount}, "input: Queue.Push: PadButtonUp event for pad 0, button 15, axis 0, out of range (4 pads, 15 buttons, 6 axes)"},
		{"axis out of range", input.Event{Kind: input.PadAxisMove, Axis: input.GamepadAxisCount}, "input: Queue.Push: PadAxisMove event for pad 0, button 0, axis 6, out of range (4 pads, 15 buttons, 6 axes)"},
		{"key out of range", input.Event{Kind: input.KeyDown, Key: input.KeyCount}, "input: Queue.Push: KeyDown event for key 68, out of range [0, 68)"},
		{"button out of range", input.Event{Kind: input.ButtonUp, Button: input.MouseButtonCount}, "input: Queue.Push: ButtonUp event for mouse button 8, out of range [0, 8)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in input.Queue
			defer func() {
				if r := recover(); r != tt.want {
					t.Errorf("panic %v, want %q", r, tt.want)
				}
				if in.Pending() != 0 {
					t.Errorf("%d events pending after a rejected event", in.Pending())
				}
			}()
			in.Push(tt.ev)
		})
	}
}

func TestInputQueriesOutOfRangeAreFalse(t *testing.T) {
	var in input.Queue
	for k := range input.KeyCount {
		in.Push(keyDown(1, k))
	}
	for b := range input.MouseButtonCount {
		in.Push(buttonDown(1, b))
	}
	s := in.Advance(1)
	for k := input.Key(1); k < input.KeyCount; k++ {
		if !s.Down(k) || !s.JustPressed(k) {
			t.Fatalf("%v is not down and pressed", k)
		}
	}
	if s.Down(input.KeyUnknown) || s.JustPressed(input.KeyUnknown) {
		t.Error("KeyUnknown is down or pressed")
	}
	for _, k := range []input.Key{input.KeyCount, 200, 255} {
		if s.Down(k) || s.JustPressed(k) || s.JustReleased(k) {
			t.Errorf("out-of-range key %d reported down, pressed or released", k)
		}
	}
	for _, b := range []input.MouseButton{input.MouseButtonCount, 255} {
		if s.ButtonDown(b) || s.ButtonJustPressed(b) || s.ButtonJustReleased(b) {
			t.Errorf("out-of-range button %d reported down, pressed or released", b)
		}
	}
}

func TestInputReset(t *testing.T) {
	var in input.Queue
	in.Push(keyDown(10*ms, input.KeyA))
	in.Push(buttonDown(10*ms, input.MouseButtonLeft))
	in.Push(cursorMove(10*ms, 7, 8))
	in.Push(keyDown(100*ms, input.KeyB))
	in.Advance(50 * ms)
	in.Reset()
	if in.Pending() != 0 {
		t.Fatalf("%d events pending after Reset", in.Pending())
	}
	if s := in.Advance(200 * ms); s != (input.Sample{}) {
		t.Fatalf("snapshot after Reset %q, want empty", describe(s))
	}
	// The latest event time is forgotten too: a restarted clock's early
	// events are not moved to the old latest time.
	in.Push(keyDown(5*ms, input.KeyC))
	if got := describe(in.Advance(5 * ms)); got != "down=C pressed=C" {
		t.Errorf("after Reset: %q, want %q", got, "down=C pressed=C")
	}
	// Nothing is down for ReleaseAll to release but C.
	in.ReleaseAll(6 * ms)
	if in.Pending() != 1 {
		t.Errorf("ReleaseAll after Reset queued %d events, want 1", in.Pending())
	}
}

func TestSamplesCompare(t *testing.T) {
	events := []input.Event{
		keyDown(1, input.KeyA), buttonDown(2, input.MouseButtonRight), cursorMove(3, 1.25, 2.5), scroll(4, 0, -1),
	}
	var a, b input.Queue
	for _, ev := range events {
		a.Push(ev)
		b.Push(ev)
	}
	sa, sb := a.Advance(10), b.Advance(10)
	if sa != sb {
		t.Fatalf("the same events gave different snapshots: %q and %q", describe(sa), describe(sb))
	}
	if next := a.Advance(20); next == sa {
		t.Errorf("a tick without presses compares equal to the tick with them: %q", describe(next))
	}
	if (input.Sample{}) != (input.Sample{}) {
		t.Error("zero snapshots differ")
	}
}

// TestInputRandomSequences drives random events through random frame times
// and loop configurations and checks that every press and release pushed
// is seen by exactly one tick, that no event is seen before its time, and
// that the final state is the one the events describe.
func TestInputRandomSequences(t *testing.T) {
	keys := []input.Key{input.KeyA, input.KeyB, input.KeySpace, input.KeyUnknown}
	buttons := []input.MouseButton{input.MouseButtonLeft, input.MouseButtonRight}
	for seed := range uint64(40) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0x5eed))
			cfg := timing.DefaultConfig()
			cfg.TickRate = []int{30, 60, 144}[rng.IntN(3)]
			cfg.MaxStepsPerFrame = []int{0, 1, 5}[rng.IntN(3)]
			cfg.MaxFrameTime = []time.Duration{50 * ms, 250 * ms}[rng.IntN(2)]
			loop := timing.MustNewLoop(cfg)
			var in input.Queue

			// What the pushed events describe.
			var (
				times                   []time.Duration // effective time of each pushed event
				keyPresses, keyReleases [input.KeyCount]int
				btnPresses, btnReleases [input.MouseButtonCount]int
				isDown                  [input.KeyCount]bool
				btnDown                 [input.MouseButtonCount]bool
				cursorX, cursorY        float64
				scrollX, scrollY        float64
			)
			push := func(ev input.Event) {
				in.Push(ev)
				switch ev.Kind {
				case input.KeyDown, input.KeyUp:
					if ev.Key == input.KeyUnknown {
						return
					}
					if d := ev.Kind == input.KeyDown; d != isDown[ev.Key] {
						isDown[ev.Key] = d
						if d {
							keyPresses[ev.Key]++
						} else {
							keyReleases[ev.Key]++
						}
					}
				case input.ButtonDown, input.ButtonUp:
					if d := ev.Kind == input.ButtonDown; d != btnDown[ev.Button] {
						btnDown[ev.Button] = d
						if d {
							btnPresses[ev.Button]++
						} else {
							btnReleases[ev.Button]++
						}
					}
				case input.CursorMove:
					cursorX, cursorY = ev.X, ev.Y
				case input.Scroll:
					scrollX += ev.X
					scrollY += ev.Y
				}
				if n := len(times); n > 0 {
					ev.Time = max(ev.Time, times[n-1])
				}
				times = append(times, ev.Time)
			}

			// What the ticks saw.
			var (
				ticks                       int
				seenPresses, seenReleases   [input.KeyCount]int
				seenBPresses, seenBReleases [input.MouseButtonCount]int
				seenScrollX, seenScrollY    float64
				prev, last                  input.Sample
			)
			fixed := func(st timing.Step) {
				s := in.Advance(st.Due)
				ticks++
				consumed := len(times) - in.Pending()
				if consumed > 0 && times[consumed-1] > st.Due {
					t.Fatalf("tick %d due %v consumed an event of %v", st.Tick, st.Due, times[consumed-1])
				}
				for k := range input.KeyCount {
					checkTransition(t, st.Tick, k.String(), prev.Down(k), s.JustPressed(k), s.JustReleased(k), s.Down(k))
					if s.JustPressed(k) {
						seenPresses[k]++
					}
					if s.JustReleased(k) {
						seenReleases[k]++
					}
				}
				for b := range input.MouseButtonCount {
					checkTransition(t, st.Tick, b.String(), prev.ButtonDown(b), s.ButtonJustPressed(b), s.ButtonJustReleased(b), s.ButtonDown(b))
					if s.ButtonJustPressed(b) {
						seenBPresses[b]++
					}
					if s.ButtonJustReleased(b) {
						seenBReleases[b]++
					}
				}
				dx, dy := s.Scroll()
				seenScrollX += dx
				seenScrollY += dy
				prev, last = s, s
			}

			var now time.Duration
			loop.Tick(now, fixed, nil)
			for range 300 {
				// A frame interval: sometimes none, mostly a display's, sometimes a stall.
				prevNow := now
				switch r := rng.IntN(20); {
				case r < 2:
				case r < 14:
					now += time.Duration(1+rng.IntN(20_000)) * time.Microsecond
				case r < 18:
					now += time.Duration(20+rng.IntN(80)) * ms
				default:
					now += time.Duration(100+rng.IntN(1400)) * ms
				}
				// Events between the frames, now and then one out of order.
				evs := make([]input.Event, rng.IntN(9))
				for i := range evs {
					ev := input.Event{Time: prevNow + time.Duration(rng.Int64N(int64(now-prevNow)+1))}
					switch ev.Kind = input.EventKind(1 + rng.IntN(6)); ev.Kind {
					case input.KeyDown, input.KeyUp:
						ev.Key = keys[rng.IntN(len(keys))]
					case input.ButtonDown, input.ButtonUp:
						ev.Button = buttons[rng.IntN(len(buttons))]
					case input.CursorMove:
						ev.X, ev.Y = float64(rng.IntN(1920)), float64(rng.IntN(1080))
					case input.Scroll:
						ev.X, ev.Y = float64(rng.IntN(7)-3), float64(rng.IntN(7)-3)
					}
					evs[i] = ev
				}
				slices.SortFunc(evs, func(a, b input.Event) int { return cmp.Compare(a.Time, b.Time) })
				if len(evs) > 1 && rng.IntN(10) == 0 {
					i := rng.IntN(len(evs) - 1)
					evs[i], evs[i+1] = evs[i+1], evs[i]
				}
				for _, ev := range evs {
					push(ev)
				}
				loop.Tick(now, fixed, nil)
			}
			// Let the queue drain.
			for i := 0; in.Pending() > 0; i++ {
				if i == 10_000 {
					t.Fatalf("%d events still pending after %d more frames", in.Pending(), i)
				}
				now += 10 * ms
				loop.Tick(now, fixed, nil)
			}

			if ticks == 0 {
				t.Fatal("no tick ran")
			}
			for k := range input.KeyCount {
				if seenPresses[k] != keyPresses[k] || seenReleases[k] != keyReleases[k] {
					t.Errorf("%v: ticks saw %d presses and %d releases, %d and %d were pushed", k, seenPresses[k], seenReleases[k], keyPresses[k], keyReleases[k])
				}
				if last.Down(k) != isDown[k] {
					t.Errorf("%v: down %v at the end, want %v", k, last.Down(k), isDown[k])
				}
			}
			for b := range input.MouseButtonCount {
				if seenBPresses[b] != btnPresses[b] || seenBReleases[b] != btnReleases[b] {
					t.Errorf("%v: ticks saw %d presses and %d releases, %d and %d were pushed", b, seenBPresses[b], seenBReleases[b], btnPresses[b], btnReleases[b])
				}
				if last.ButtonDown(b) != btnDown[b] {
					t.Errorf("%v: down %v at the end, want %v", b, last.ButtonDown(b), btnDown[b])
				}
			}
			if x, y := last.Cursor(); x != cursorX || y != cursorY {
				t.Errorf("cursor at %v,%v at the end, want %v,%v", x, y, cursorX, cursorY)
			}
			// Whole numbers, so the sums are exact in any grouping.
			if seenScrollX != scrollX || seenScrollY != scrollY {
				t.Errorf("ticks scrolled %v,%v in all, %v,%v were pushed", seenScrollX, seenScrollY, scrollX, scrollY)
			}
		})
	}
}

// checkTransition checks that one tick's flags for a key or button agree
// with its state before and after the tick.
func checkTransition(t *testing.T, tick uint64, name string, before, pressed, released, after bool) {
	t.Helper()
	var ok bool
	switch {
	case pressed && released: // down and up, or up and down: back where it was
		ok = after == before
	case pressed:
		ok = !before && after
	case released:
		ok = before && !after
	default:
		ok = after == before
	}
	if !ok {
		t.Fatalf("tick %d, %s: down %v before, pressed %v, released %v, down %v after", tick, name, before, pressed, released, after)
	}
}

var snapshotSink input.Sample

func TestInputDoesNotAllocate(t *testing.T) {
	var in input.Queue
	var now time.Duration
	step := func() {
		for i := range 16 {
			now += 1000
			k := input.KeyA + input.Key(i%4)
			in.Push(keyDown(now, k))
			in.Push(cursorMove(now, float64(i), 2))
			in.Push(scroll(now, 0, 1))
			in.Push(keyUp(now+500, k))
			in.Push(buttonDown(now, input.MouseButtonLeft))
		}
		in.ReleaseAll(now)
		for in.Pending() > 0 {
			now += 1000
			snapshotSink = in.Advance(now)
		}
	}
	step() // grows the queue
	if allocs := testing.AllocsPerRun(100, step); allocs != 0 {
		t.Errorf("Push and Advance allocate %v times per run, want 0", allocs)
	}
}

func BenchmarkInputPushAdvance(b *testing.B) {
	var in input.Queue
	var now time.Duration
	b.ReportAllocs()
	for b.Loop() {
		// A busy tick: four key changes and eight cursor moves.
		now += 16_666_667
		in.Push(keyDown(now-10_000_000, input.KeyW))
		in.Push(keyUp(now-5_000_000, input.KeyA))
		in.Push(keyDown(now-4_000_000, input.KeySpace))
		in.Push(keyUp(now-1_000_000, input.KeySpace))
		for i := range 8 {
			in.Push(cursorMove(now-time.Duration(8-i)*1_000_000, float64(i), float64(i)))
		}
		snapshotSink = in.Advance(now)
	}
}

func TestKeyNames(t *testing.T) {
	tests := []struct {
		k    input.Key
		want string
	}{
		{input.KeyUnknown, "Unknown"},
		{input.KeyA, "A"},
		{input.KeyZ, "Z"},
		{input.Key0, "0"},
		{input.Key9, "9"},
		{input.KeySpace, "Space"},
		{input.KeyArrowUp, "ArrowUp"},
		{input.KeyRightAlt, "RightAlt"},
		{input.KeyF12, "F12"},
		{input.KeyEqual, "Equal"},
		{input.KeyCount, "Key(68)"},
		{255, "Key(255)"},
	}
	for _, tt := range tests {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("Key(%d).String() = %q, want %q", uint8(tt.k), got, tt.want)
		}
	}
	seen := map[string]input.Key{}
	for k := range input.KeyCount {
		name := k.String()
		if name == "" || strings.HasPrefix(name, "Key(") {
			t.Errorf("key %d has no name", uint8(k))
		}
		if other, dup := seen[name]; dup {
			t.Errorf("keys %d and %d are both %q", uint8(other), uint8(k), name)
		}
		seen[name] = k
	}
}

func TestMouseButtonAndEventKindNames(t *testing.T) {
	buttons := []struct {
		b    input.MouseButton
		want string
	}{
		{input.MouseButtonLeft, "Left"},
		{input.MouseButtonRight, "Right"},
		{input.MouseButtonMiddle, "Middle"},
		{input.MouseButton4, "Button4"},
		{input.MouseButton8, "Button8"},
		{input.MouseButtonCount, "MouseButton(8)"},
	}
	for _, tt := range buttons {
		if got := tt.b.String(); got != tt.want {
			t.Errorf("MouseButton(%d).String() = %q, want %q", uint8(tt.b), got, tt.want)
		}
	}
	kinds := []struct {
		k    input.EventKind
		want string
	}{
		{0, "EventKind(0)"},
		{input.KeyDown, "KeyDown"},
		{input.KeyUp, "KeyUp"},
		{input.ButtonDown, "ButtonDown"},
		{input.ButtonUp, "ButtonUp"},
		{input.CursorMove, "CursorMove"},
		{input.Scroll, "Scroll"},
		{input.PadConnected, "PadConnected"},
		{input.PadAxisMove, "PadAxisMove"},
		{12, "EventKind(12)"},
	}
	for _, tt := range kinds {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("EventKind(%d).String() = %q, want %q", uint8(tt.k), got, tt.want)
		}
	}
}

// ExampleQueue feeds timed events to an Input and hands each fixed tick of
// a timing.Loop its own snapshot. The platform layer pushes events as the
// window system reports them, stamped with the loop's clock.
func ExampleQueue() {
	loop := timing.MustNewLoop(timing.DefaultConfig()) // 60 Hz
	var in input.Queue
	fixed := func(s timing.Step) {
		snap := in.Advance(s.Due)
		fmt.Printf("tick %d: jump %v, run %v\n", s.Tick, snap.JustPressed(input.KeySpace), snap.Down(input.KeyArrowRight))
	}

	loop.Tick(0, fixed, nil)
	in.Push(input.Event{Time: 5 * time.Millisecond, Kind: input.KeyDown, Key: input.KeyArrowRight})
	in.Push(input.Event{Time: 30 * time.Millisecond, Kind: input.KeyDown, Key: input.KeySpace})
	in.Push(input.Event{Time: 32 * time.Millisecond, Kind: input.KeyUp, Key: input.KeySpace})
	loop.Tick(50*time.Millisecond, fixed, nil) // three ticks, due at 16.7, 33.3 and 50 ms

	// Output:
	// tick 1: jump false, run true
	// tick 2: jump true, run true
	// tick 3: jump false, run true
}

// A fixed tick sees every event due by its time, once: the press and the
// release of a tap within one tick both show.
func ExampleSample() {
	var q input.Queue
	q.Push(input.Event{Time: 2 * time.Millisecond, Kind: input.KeyDown, Key: input.KeySpace})
	q.Push(input.Event{Time: 9 * time.Millisecond, Kind: input.KeyUp, Key: input.KeySpace})
	s := q.Advance(16 * time.Millisecond)
	fmt.Println(s.JustPressed(input.KeySpace), s.JustReleased(input.KeySpace), s.Down(input.KeySpace))
	// Output: true true false
}
