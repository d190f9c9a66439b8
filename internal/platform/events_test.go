package platform_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/internal/platform"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
	"github.com/nebulaengine/nebula/timing"
)

type keyCall struct {
	key             input.Key
	pressed, repeat bool
}

// recorder keeps everything a window's callbacks report. It is only
// touched on the main thread (inside OnMain), and read by the test after
// OnMain has returned.
type recorder struct {
	events  []input.Event
	keys    []keyCall
	sizes   [][2]int
	focus   []bool
	iconify []bool
	closes  int
}

func (r *recorder) callbacks(clock func() time.Duration) platform.Callbacks {
	return platform.Callbacks{
		Clock: clock,
		Input: func(ev input.Event) { r.events = append(r.events, ev) },
		Key: func(k input.Key, pressed, repeat bool) {
			r.keys = append(r.keys, keyCall{k, pressed, repeat})
		},
		FramebufferSize: func(w, h int) { r.sizes = append(r.sizes, [2]int{w, h}) },
		Focus:           func(f bool) { r.focus = append(r.focus, f) },
		Iconify:         func(i bool) { r.iconify = append(r.iconify, i) },
		Close:           func() { r.closes++ },
	}
}

// openDriven opens a visible window for xdotool to drive, records its
// callbacks on a real clock and returns its X window id.
func openDriven(t *testing.T) (*platform.Window, *recorder, *timing.MonotonicClock, string) {
	t.Helper()
	platformtest.RequireTool(t, "xdotool")
	platformtest.LockInput(t)
	// The window opens at the top-left corner, where an earlier test may
	// have left the pointer: move it away first, so that no pointer event
	// reaches the window however late the X server delivers it.
	platformtest.XDoTool(t, "mousemove", "--sync", "1000", "900")
	title := platformtest.UniqueTitle(t)
	win := platformtest.OpenWindow(t, platformtest.Visible(title))
	id := platformtest.FindWindow(t, title)
	clock := timing.NewMonotonicClock()
	rec := new(recorder)
	platformtest.OnMain(func() {
		win.PollEvents() // what opening the window reported
		win.SetCallbacks(rec.callbacks(clock.Now))
	})
	return win, rec, clock, id
}

// waitFor processes win's events on the main thread until cond, which also
// runs there, holds, or fails the test after 5 seconds.
func waitFor(t *testing.T, win *platform.Window, what string, cond func() bool) {
	t.Helper()
	const wait = 30 * time.Second // a hang, not a slow machine
	deadline := time.Now().Add(wait)
	for {
		var ok bool
		platformtest.OnMain(func() {
			win.PollEvents()
			ok = cond()
		})
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", wait, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Keys sent to the window reach Input as engine events stamped with the
// caller's clock at delivery, and Key with the press and the release; keys
// the engine does not know reach neither.
func TestKeysFromXdotool(t *testing.T) {
	win, rec, clock, id := openDriven(t)

	before := clock.Now()
	platformtest.XDoTool(t, "key", "--window", id, "KP_Enter", "Right")
	waitFor(t, win, "the Right key's press and release", func() bool { return len(rec.keys) >= 2 })
	after := clock.Now()

	wantKeys := []keyCall{{input.KeyArrowRight, true, false}, {input.KeyArrowRight, false, false}}
	if !slices.Equal(rec.keys, wantKeys) {
		t.Errorf("Key hook calls = %v, want %v (KP_Enter is not an engine key)", rec.keys, wantKeys)
	}
	if len(rec.events) != 2 {
		t.Fatalf("Input events = %+v, want a KeyDown and a KeyUp of ArrowRight", rec.events)
	}
	for i, kind := range []input.EventKind{input.KeyDown, input.KeyUp} {
		ev := rec.events[i]
		if ev.Kind != kind || ev.Key != input.KeyArrowRight {
			t.Errorf("event %d = %v %v, want %v ArrowRight", i, ev.Kind, ev.Key, kind)
		}
		if ev.Time < before || ev.Time > after {
			t.Errorf("event %d stamped %v, want the delivery time, between %v and %v", i, ev.Time, before, after)
		}
	}
	if rec.events[0].Time > rec.events[1].Time {
		t.Errorf("the release (%v) is stamped before the press (%v)", rec.events[1].Time, rec.events[0].Time)
	}
}

// A held key repeats (the X server repeats keys held through XTEST, as
// xdotool keydown on the focused window does): Key sees the repeats, Input
// only the press and the release, since repeats change nothing.
func TestKeyRepeat(t *testing.T) {
	win, rec, _, _ := openDriven(t)
	platformtest.XDoTool(t, "keydown", "Up")
	// Released whatever happens, so that a failure here leaves no key held
	// for the next test's window.
	t.Cleanup(func() { platformtest.XDoTool(t, "keyup", "Up") })
	waitFor(t, win, "a repeat of the Up key", func() bool {
		return slices.ContainsFunc(rec.keys, func(k keyCall) bool { return k.repeat })
	})
	platformtest.XDoTool(t, "keyup", "Up")
	waitFor(t, win, "the Up key's release", func() bool {
		return slices.ContainsFunc(rec.keys, func(k keyCall) bool { return !k.pressed })
	})
	for i, k := range rec.keys {
		if k.key != input.KeyArrowUp || k.pressed != (i < len(rec.keys)-1) || k.repeat != (i > 0 && i < len(rec.keys)-1) {
			t.Errorf("Key call %d of %d = %+v, want a press, repeats, then a release of ArrowUp", i, len(rec.keys), k)
		}
	}
	var kinds []input.EventKind
	for _, ev := range rec.events {
		kinds = append(kinds, ev.Kind)
	}
	if !slices.Equal(kinds, []input.EventKind{input.KeyDown, input.KeyUp}) {
		t.Errorf("Input events = %v, want [KeyDown KeyUp]: repeats are not sent", kinds)
	}
}

// Mouse moves, clicks and the wheel reach Input; the buttons keep GLFW's
// numbers and the cursor is in window pixels.
func TestMouseFromXdotool(t *testing.T) {
	win, rec, _, id := openDriven(t)

	platformtest.XDoTool(t, "mousemove", "--window", id, "10", "12")
	waitFor(t, win, "the cursor move", func() bool { return len(rec.events) > 0 })
	platformtest.XDoTool(t, "click", "--window", id, "1")
	platformtest.XDoTool(t, "click", "--window", id, "3")
	platformtest.XDoTool(t, "click", "--window", id, "4") // wheel up
	platformtest.XDoTool(t, "click", "--window", id, "5") // wheel down
	isScroll := func(ev input.Event) bool { return ev.Kind == input.Scroll }
	waitFor(t, win, "two scroll events", func() bool {
		n := 0
		for _, ev := range rec.events {
			if isScroll(ev) {
				n++
			}
		}
		return n == 2
	})

	var got []string
	for _, ev := range rec.events {
		switch ev.Kind {
		case input.CursorMove:
			if ev.X != 10 || ev.Y != 12 {
				t.Errorf("cursor moved to %v, %v, want 10, 12", ev.X, ev.Y)
			}
		case input.ButtonDown, input.ButtonUp:
			got = append(got, ev.Kind.String()+" "+ev.Button.String())
		case input.Scroll:
			got = append(got, "Scroll "+strings.TrimSpace(strings.Repeat("+", int(max(ev.Y, 0)))+strings.Repeat("-", int(max(-ev.Y, 0)))))
		default:
			t.Errorf("unexpected %v event", ev.Kind)
		}
	}
	want := []string{"ButtonDown Left", "ButtonUp Left", "ButtonDown Right", "ButtonUp Right", "Scroll +", "Scroll -"}
	if !slices.Equal(got, want) {
		t.Errorf("button and scroll events = %q, want %q", got, want)
	}
	var x, y float64
	platformtest.OnMain(func() { x, y = win.CursorPos() })
	if x != 10 || y != 12 {
		t.Errorf("CursorPos() = %v, %v, want 10, 12", x, y)
	}
}

// KeyHeld and ButtonHeld follow the devices; a runner asks them when it
// resumes a paused simulation.
func TestHeldKeysAndButtons(t *testing.T) {
	win, _, _, id := openDriven(t)
	held := func() (k, b bool) {
		return win.KeyHeld(input.KeyArrowLeft), win.ButtonHeld(input.MouseButtonLeft)
	}
	platformtest.XDoTool(t, "keydown", "--window", id, "Left")
	platformtest.XDoTool(t, "mousemove", "--window", id, "5", "5", "mousedown", "1")
	waitFor(t, win, "Left key and button held", func() bool { k, b := held(); return k && b })
	platformtest.XDoTool(t, "keyup", "--window", id, "Left")
	platformtest.XDoTool(t, "mouseup", "1")
	waitFor(t, win, "Left key and button released", func() bool { k, b := held(); return !k && !b })

	var unknown, outOfRange bool
	platformtest.OnMain(func() {
		unknown = win.KeyHeld(input.KeyUnknown)
		outOfRange = win.ButtonHeld(input.MouseButtonCount)
	})
	if unknown || outOfRange {
		t.Errorf("KeyHeld(KeyUnknown) = %v, ButtonHeld(MouseButtonCount) = %v, want false", unknown, outOfRange)
	}
}

// A resize reaches FramebufferSize, and FramebufferSize() follows it.
func TestResizeFromXdotool(t *testing.T) {
	win, rec, _, id := openDriven(t)
	platformtest.XDoTool(t, "windowsize", id, "120", "90")
	var w, h int
	waitFor(t, win, "the resize", func() bool {
		w, h = win.FramebufferSize()
		return len(rec.sizes) > 0 && w == 120 && h == 90
	})
	if last := rec.sizes[len(rec.sizes)-1]; last != [2]int{120, 90} {
		t.Errorf("last FramebufferSize callback = %v, want [120 90]", last)
	}
}

// Xvfb has no window manager, but the X server itself moves the focus: an
// unmapped window loses it, and XSetInputFocus gives it back.
func TestFocusFromXdotool(t *testing.T) {
	win, rec, _, id := openDriven(t)
	waitFor(t, win, "the new window to have the focus", win.Focused)
	platformtest.OnMain(func() {
		win.PollEvents()
		rec.focus = nil // what opening the window reported
	})
	platformtest.XDoTool(t, "windowunmap", "--sync", id)
	waitFor(t, win, "the focus to go", func() bool { return !win.Focused() })
	platformtest.XDoTool(t, "windowmap", "--sync", id)
	platformtest.XDoTool(t, "windowfocus", "--sync", id)
	waitFor(t, win, "the focus to come back", win.Focused)
	// A focus report of the opening may come after the reset on a loaded
	// machine: leading true reports say nothing about the unmap.
	got := rec.focus
	for len(got) > 0 && got[0] {
		got = got[1:]
	}
	if !slices.Equal(got, []bool{false, true}) {
		t.Errorf("Focus callbacks = %v, want [false true], each change once", rec.focus)
	}
}

// xdotool windowclose destroys the X window under GLFW. Without platform's
// X error guard, Xlib's default handler would end the test binary with
// "BadDrawable" at the next swap; with it the window reports Lost and
// ShouldClose, closes cleanly, and GLFW goes on working.
func TestWindowDestroyedByAnotherClient(t *testing.T) {
	win, _, _, id := openDriven(t)
	platformtest.XDoTool(t, "windowclose", id)
	waitFor(t, win, "the window to report it was lost", func() bool {
		win.SwapBuffers() // a request naming the window, as every frame makes
		return win.Lost() && win.ShouldClose()
	})
	platformtest.OnMain(win.Close)

	// Still alive, and GLFW reinitialises for the next window.
	next := platformtest.OpenWindow(t, platformtest.SmallHidden())
	var lost bool
	platformtest.OnMain(func() {
		next.SwapBuffers()
		next.PollEvents()
		lost = next.Lost()
	})
	if lost {
		t.Errorf("a new window after a lost one reports Lost")
	}
}

// The Simulate methods change the window's state and run its callbacks, as
// real events do.
func TestSimulatedEvents(t *testing.T) {
	win := platformtest.OpenWindow(t, platformtest.SmallHidden())
	rec := new(recorder)
	var (
		iconified, focused bool
		w, h               int
	)
	var initiallyFocused bool
	platformtest.OnMain(func() {
		win.SetCallbacks(rec.callbacks(func() time.Duration { return 0 }))
		win.SimulateIconify(true)
		iconified = win.Iconified()
		initiallyFocused = win.Focused()
		win.SimulateFocus(true) // nothing to report if it had the focus
		win.SimulateFocus(false)
		focused = win.Focused()
		win.SimulateFramebufferSize(0, 0)
		w, h = win.FramebufferSize()
		win.SimulateIconify(false)
		win.SimulateFocus(true)
		win.SimulateFramebufferSize(64, 64)
	})
	if !iconified || focused || w != 0 || h != 0 {
		t.Errorf("after simulating: Iconified %v, Focused %v, FramebufferSize %dx%d; want true, false, 0x0", iconified, focused, w, h)
	}
	wantFocus := []bool{true, false, true}
	if initiallyFocused {
		wantFocus = wantFocus[1:]
	}
	if !slices.Equal(rec.iconify, []bool{true, false}) || !slices.Equal(rec.focus, wantFocus) ||
		!slices.Equal(rec.sizes, [][2]int{{0, 0}, {64, 64}}) {
		t.Errorf("callbacks: iconify %v, focus %v, sizes %v; want [true false], %v, [[0 0] [64 64]]", rec.iconify, rec.focus, rec.sizes, wantFocus)
	}
}

func TestSetCallbacksInputWithoutClockPanics(t *testing.T) {
	win := platformtest.OpenWindow(t, platformtest.SmallHidden())
	var got any
	platformtest.OnMain(func() {
		defer func() { got = recover() }()
		win.SetCallbacks(platform.Callbacks{Input: func(input.Event) {}})
	})
	if msg, _ := got.(string); !strings.HasPrefix(msg, "platform: ") || !strings.Contains(msg, "Clock") {
		t.Errorf("SetCallbacks with Input and no Clock panicked with %v, want a message starting with \"platform: \" naming Clock", got)
	}
}

// Wake, from another goroutine, ends a WaitEvents long before its timeout;
// with no window open it does nothing.
func TestWake(t *testing.T) {
	win := platformtest.OpenWindow(t, platformtest.SmallHidden())
	go func() {
		time.Sleep(100 * time.Millisecond)
		platform.Wake()
	}()
	var waited time.Duration
	platformtest.OnMain(func() {
		start := time.Now()
		win.WaitEvents(10 * time.Second)
		waited = time.Since(start)
	})
	if waited > 5*time.Second {
		t.Errorf("WaitEvents(10s) returned after %v despite Wake after 100ms", waited)
	}
	platformtest.OnMain(win.Close)
	platform.Wake() // no window: must not panic
}

func TestSetTitleAndVSync(t *testing.T) {
	platformtest.RequireTool(t, "xdotool")
	platformtest.LockInput(t)
	win := platformtest.OpenWindow(t, platformtest.Visible(platformtest.UniqueTitle(t)))
	renamed := platformtest.UniqueTitle(t)
	var vsyncOn, vsyncOff bool
	platformtest.OnMain(func() {
		win.SetTitle(renamed)
		win.PollEvents()
		win.SetVSync(true)
		vsyncOn = win.VSync()
		win.SwapBuffers()
		win.SetVSync(false)
		vsyncOff = win.VSync()
		win.SwapBuffers()
	})
	platformtest.FindWindow(t, renamed)
	if !vsyncOn || vsyncOff {
		t.Errorf("VSync() after SetVSync(true), SetVSync(false) = %v, %v", vsyncOn, vsyncOff)
	}
}
