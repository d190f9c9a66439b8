package desktop_test

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
	"github.com/nebulaengine/nebula/timing"
)

// These tests drive a visible window from outside with xdotool, as a user
// would, on Xvfb. What Xvfb (which has no window manager) does with each
// request was checked by hand and is written next to each test.

// drivenRunner opens a visible runner window with a unique title, records
// OnFrame, and returns the window's X id.
func drivenRunner(t *testing.T, e *engine.Engine, cfg desktop.Config) (*desktop.Runner, *frameLog, string) {
	t.Helper()
	platformtest.RequireTool(t, "xdotool")
	platformtest.LockInput(t)
	title := platformtest.UniqueTitle(t)
	cfg.Window = platformtest.Visible(title)
	log := new(frameLog)
	prev := cfg.OnFrame
	cfg.OnFrame = func(s timing.Stats) {
		log.add(s)
		if prev != nil {
			prev(s)
		}
	}
	r := newRunner(t, e, cfg)
	return r, log, platformtest.FindWindow(t, title)
}

// drive runs script on a goroutine while r runs on the main thread, and
// quits r when script returns (if the window has not ended Run already).
// script reports problems with t.Error, never t.Fatal; ended is closed when
// Run has returned.
func drive(t *testing.T, r *desktop.Runner, script func(ended <-chan struct{})) time.Duration {
	t.Helper()
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer r.Quit()
		script(ended)
	}()
	took, err := run(r)
	close(ended)
	<-done
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return took
}

// xdo runs xdotool from a driving goroutine, reporting failures with
// t.Error.
func xdo(t *testing.T, args ...string) bool {
	if _, err := platformtest.XDoToolErr(args...); err != nil {
		t.Error(err)
		return false
	}
	return true
}

// Xvfb: xdotool windowclose destroys the X window (XDestroyWindow; this
// xdotool has no "windowquit" that would ask politely). Run notices at the
// next swap, through platform's X error guard, and returns normally
// instead of the process dying in Xlib.
func TestWindowClosedByXdotool(t *testing.T) {
	e, _ := newEngine(t, 8)
	r, log, id := drivenRunner(t, e, testConfig())
	took := drive(t, r, func(ended <-chan struct{}) {
		if !poll(10*time.Second, func() bool { return log.len() >= 10 }) {
			t.Error("no 10 frames within 10s")
			return
		}
		xdo(t, "windowclose", id)
		// No Quit: the closed window must end Run by itself.
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
		}
	})
	t.Logf("Run took %v; %d frames", took, log.len())
	if took > 15*time.Second {
		t.Errorf("Run took %v: it did not notice the window was closed", took)
	}
	var lost bool
	var shotErr error
	platformtest.OnMain(func() {
		lost = r.Window().Lost()
		shotErr = r.Screenshot(t.TempDir() + "/x.png")
	})
	if !lost {
		t.Errorf("Window().Lost() = false after xdotool windowclose")
	}
	if shotErr == nil || !strings.Contains(shotErr.Error(), "destroyed") {
		t.Errorf("Screenshot of a destroyed window = %v, want an error saying it was destroyed", shotErr)
	}
}

// A close request made from inside the game (what a window manager's close
// button amounts to) ends Run after the frame in progress.
func TestCloseRequestEndsRun(t *testing.T) {
	e, _ := newEngine(t, 8)
	cfg := testConfig()
	var log frameLog
	cfg.OnFrame = log.add
	r := newRunner(t, e, cfg)
	e.AddUpdate("close at frame 10", func(c *engine.FrameContext) {
		if c.Stats.Frames == 10 {
			r.Window().SetShouldClose(true)
		}
	})
	if _, err := run(r); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if n := log.len(); n != 10 {
		t.Errorf("Run drew %d frames, want 10 (the close was asked during frame 10)", n)
	}
}

// Quit from another goroutine ends Run, also while the window is minimised
// and Run sleeps in the event wait.
func TestQuitFromAnotherGoroutine(t *testing.T) {
	for _, minimised := range []bool{false, true} {
		t.Run(fmt.Sprintf("minimised=%v", minimised), func(t *testing.T) { testQuit(t, minimised) })
	}
}

func testQuit(t *testing.T, minimised bool) {
	e, _ := newEngine(t, 8)
	cfg := testConfig()
	var log frameLog
	cfg.OnFrame = log.add
	r := newRunner(t, e, cfg)
	var away atomic.Bool
	desktop.SetPollHook(r, func() {
		if minimised && log.len() >= 5 && !away.Load() {
			r.Window().SimulateIconify(true)
			away.Store(true)
		}
	})
	var quitAt time.Time
	took := drive(t, r, func(<-chan struct{}) {
		poll(10*time.Second, func() bool { return log.len() >= 5 && (!minimised || away.Load()) })
		time.Sleep(200 * time.Millisecond)
		quitAt = time.Now()
	})
	// Generous bounds: a loaded machine may take seconds to schedule the
	// main thread; a Run that missed the Quit would never return.
	if since := time.Since(quitAt); since > 10*time.Second || took > time.Minute {
		t.Errorf("minimised=%v: Run returned %v after Quit (%v in all)", minimised, since, took)
	}
	if minimised && log.len() != 5 {
		t.Errorf("minimised=%v: %d frames drawn, want 5 (none while minimised)", minimised, log.len())
	}
}

// Xvfb: xdotool windowsize resizes the X window (no window manager needed);
// the next frames are drawn at the new framebuffer size.
func TestResizeFollowedByXdotool(t *testing.T) {
	e, _ := newEngine(t, 8)
	var r *desktop.Runner
	var drawnW, drawnH atomic.Int64
	cfg := testConfig()
	cfg.OnFrame = func(timing.Stats) {
		st := r.Renderer().Stats()
		drawnW.Store(int64(st.Width))
		drawnH.Store(int64(st.Height))
	}
	r, log, id := drivenRunner(t, e, cfg)
	drive(t, r, func(<-chan struct{}) {
		poll(10*time.Second, func() bool { return log.len() >= 10 })
		if !xdo(t, "windowsize", id, "160", "120") {
			return
		}
		if !poll(10*time.Second, func() bool { return drawnW.Load() == 160 && drawnH.Load() == 120 }) {
			t.Errorf("frames still drawn at %dx%d after the resize to 160x120", drawnW.Load(), drawnH.Load())
		}
		at := log.len()
		poll(10*time.Second, func() bool { return log.len() >= at+10 })
	})
	var w, h int
	platformtest.OnMain(func() { w, h = r.Window().FramebufferSize() })
	if w != 160 || h != 120 {
		t.Errorf("FramebufferSize() = %dx%d after the resize, want 160x120", w, h)
	}
}

// Xvfb: keys sent with xdotool key --window arrive as real key events. A
// press reaches the OnKey hook and the engine's Input, stamped when it was
// processed: the first tick due after that moment sees it. The press was
// processed less than a frame interval after the previous frame started,
// which ran every tick due until then, so the tick that sees it is one of
// the next 2 (ticks are 16.7 ms apart, frames here 8.3 ms), or a few more
// when that frame itself took longer than a tick on a loaded machine.
func TestKeysFromXdotoolReachInputAndOnKey(t *testing.T) {
	e, ticks := newEngine(t, 4)
	r, log, id := drivenRunner(t, e, testConfig())
	type keyCall struct {
		key             input.Key
		pressed, repeat bool
		tick, frame     uint64 // ticks and frames run when OnKey was called
	}
	var keys []keyCall // main thread only, read after Run
	platformtest.OnMain(func() {
		r.SetOnKey(func(k input.Key, pressed, repeat bool) {
			keys = append(keys, keyCall{k, pressed, repeat, e.Loop.Ticks(), e.Loop.Frames()})
		})
	})
	released := func(in input.Sample) bool { return in.JustReleased(input.KeyArrowRight) }
	drive(t, r, func(<-chan struct{}) {
		poll(10*time.Second, func() bool { return log.len() >= 20 })
		xdo(t, "key", "--window", id, "Right")
		if !poll(10*time.Second, func() bool { return ticks.first(released) != 0 }) {
			t.Error("no tick saw the Right key's release within 10s")
		}
	})

	want := []keyCall{{input.KeyArrowRight, true, false, 0, 0}, {input.KeyArrowRight, false, false, 0, 0}}
	got := slices.Clone(keys)
	for i := range got {
		got[i].tick, got[i].frame = 0, 0
	}
	if !slices.Equal(got, want) {
		t.Fatalf("OnKey calls = %+v, want the press and the release of ArrowRight", keys)
	}
	pressTick := ticks.first(func(in input.Sample) bool { return in.JustPressed(input.KeyArrowRight) })
	releaseTick := ticks.first(released)
	t.Logf("ticks run when OnKey saw the press: %d; tick that saw it: %d; the release: %d", keys[0].tick, pressTick, releaseTick)
	if pressTick == 0 {
		t.Fatal("no tick saw the press")
	}
	// The frame whose events held the press.
	var interval time.Duration
	for _, f := range log.snapshot() {
		if f.Frames == keys[0].frame+1 {
			interval = f.Interval
		}
	}
	allowed := 2 + uint64(interval*60/time.Second)
	if d := pressTick - keys[0].tick; d < 1 || d > allowed {
		t.Errorf("the press was seen by tick %d, %d ticks after OnKey (at tick %d); want 1 to %d (the frame took %v)",
			pressTick, d, keys[0].tick, allowed, interval)
	}
	if releaseTick < pressTick {
		t.Errorf("the release was seen by tick %d, before the press (%d)", releaseTick, pressTick)
	}
}

// Xvfb has no window manager, but the X server moves the focus itself: an
// unmapped window loses it (xdotool windowunmap), and xdotool windowfocus
// gives it back after windowmap. With PauseWhenUnfocused the simulation
// stops meanwhile; either way a key held when the focus goes is released
// then, and the simulation resumes without a burst of ticks.
//
// xdotool keydown on the focused window goes through XTEST, so the X server
// holds the key and repeats it: when the focus comes back the key, still
// held, is pressed again, as a physically held key would be.
func TestFocusLossReleasesKeysAndPauses(t *testing.T) {
	for _, pause := range []bool{true, false} {
		t.Run(fmt.Sprintf("PauseWhenUnfocused=%v", pause), func(t *testing.T) { testFocusLoss(t, pause) })
	}
}

func testFocusLoss(t *testing.T, pause bool) {
	e, ticks := newEngine(t, 4)
	cfg := testConfig()
	cfg.PauseWhenUnfocused = pause
	r, log, id := drivenRunner(t, e, cfg)
	var focused atomic.Bool // as the runner's loop last saw it
	desktop.SetPollHook(r, func() { focused.Store(r.Window().Focused()) })
	down := func(in input.Sample) bool { return in.Down(input.KeyArrowRight) }
	var tickLost, tickBack uint64
	var backFrame int
	drive(t, r, func(<-chan struct{}) {
		defer xdo(t, "keyup", "Right")
		poll(10*time.Second, func() bool { return log.len() >= 10 })
		xdo(t, "keydown", "--window", id, "Right")
		if !poll(10*time.Second, func() bool { return ticks.first(down) != 0 }) {
			t.Error("no tick saw Right held")
			return
		}
		xdo(t, "windowunmap", "--sync", id)
		// The loop has seen the focus go, and a frame has ended since.
		if !poll(10*time.Second, func() bool { return !focused.Load() }) {
			t.Error("the runner did not see the focus go")
			return
		}
		at := log.len()
		poll(10*time.Second, func() bool { return log.len() > at })
		tickLost = log.lastTick()
		time.Sleep(500 * time.Millisecond)
		if !pause { // ticks go on: wait for them, however slowly they come
			poll(10*time.Second, func() bool { return log.lastTick() >= tickLost+10 })
		}
		tickBack = log.lastTick()
		xdo(t, "windowmap", "--sync", id)
		xdo(t, "windowfocus", "--sync", id)
		time.Sleep(50 * time.Millisecond)
		backFrame = log.len()
		poll(10*time.Second, func() bool { return log.len() >= backFrame+40 })
	})
	unfocused := tickBack - tickLost
	t.Logf("PauseWhenUnfocused=%v: %d ticks unfocused (500 ms, or until 10 ran)", pause, unfocused)
	if pause && unfocused > 1 {
		t.Errorf("PauseWhenUnfocused: %d ticks ran while the window was unfocused, want 0", unfocused)
	}
	if !pause && unfocused < 10 {
		t.Errorf("without PauseWhenUnfocused only %d ticks ran in 10 s unfocused, want 10", unfocused)
	}
	firstDown := ticks.first(down)
	releasedAt := ticks.first(func(in input.Sample) bool { return in.JustReleased(input.KeyArrowRight) })
	if releasedAt <= firstDown || releasedAt > tickBack+1 {
		t.Errorf("Right, held from tick %d, was released at tick %d, want when the focus went (by tick %d)", firstDown, releasedAt, tickBack+1)
	}
	if n := ticks.countRange(firstDown, tickBack, down); uint64(n) != releasedAt-firstDown {
		t.Errorf("Right was down in %d ticks before the focus came back, want the %d from its press to the focus loss: it stuck", n, releasedAt-firstDown)
	}
	checkNoBurst(t, log.snapshot(), backFrame, "after the focus came back")
}

// Xvfb: xdotool windowminimize asks the window manager to minimise
// (XIconifyWindow sends it WM_CHANGE_STATE), and without one nothing
// happens: GLFW reports no iconify and the frames go on. That is what this
// test checks, so a change in the environment shows up; where a window
// manager does minimise, it checks that drawing stops and no tick runs
// instead. The minimised path itself is tested with simulated events in
// TestMinimisedOrEmptyWindowSuspends.
func TestXdotoolMinimise(t *testing.T) {
	e, _ := newEngine(t, 4)
	r, log, id := drivenRunner(t, e, testConfig())
	var iconified atomic.Bool
	desktop.SetPollHook(r, func() {
		if r.Window().Iconified() {
			iconified.Store(true)
		}
	})
	var before, after int
	var tickBefore, tickAfter uint64
	drive(t, r, func(<-chan struct{}) {
		poll(10*time.Second, func() bool { return log.len() >= 10 })
		xdo(t, "windowminimize", id)
		time.Sleep(100 * time.Millisecond)
		before, tickBefore = log.len(), log.lastTick()
		time.Sleep(400 * time.Millisecond)
		if !iconified.Load() { // frames go on: wait for them, however slowly they come
			poll(10*time.Second, func() bool { return log.len() >= before+3 && log.lastTick() > tickBefore })
		}
		after, tickAfter = log.len(), log.lastTick()
	})
	if iconified.Load() {
		t.Logf("a window manager minimised the window: %d frames and %d ticks while minimised", after-before, tickAfter-tickBefore)
		if after != before || tickAfter != tickBefore {
			t.Errorf("minimised: %d frames and %d ticks ran, want none", after-before, tickAfter-tickBefore)
		}
		return
	}
	t.Logf("xdotool windowminimize did not minimise (no window manager, as on Xvfb): %d frames, %d ticks went on", after-before, tickAfter-tickBefore)
	if after-before < 3 || tickAfter == tickBefore {
		t.Errorf("the window was not minimised, yet only %d frames and %d ticks ran in 10 s", after-before, tickAfter-tickBefore)
	}
}

// The user's pause (a P key through the OnKey hook): frames go on, ticks
// stop, keys pressed during the pause never reach the simulation, a key
// held across the resume does, and the resume does not catch up.
func TestUserPause(t *testing.T) {
	e, ticks := newEngine(t, 4)
	r, log, id := drivenRunner(t, e, testConfig())
	var paused atomic.Bool
	platformtest.OnMain(func() {
		r.SetOnKey(func(k input.Key, pressed, repeat bool) {
			if k == input.KeyP && pressed && !repeat {
				r.SetPaused(!r.Paused())
				paused.Store(r.Paused())
			}
		})
	})
	var tickPaused, tickResumed uint64
	var framesPaused, resumeFrame int
	drive(t, r, func(<-chan struct{}) {
		poll(10*time.Second, func() bool { return log.len() >= 10 })
		xdo(t, "key", "--window", id, "p")
		if !poll(5*time.Second, paused.Load) {
			t.Error("P did not pause")
			return
		}
		time.Sleep(50 * time.Millisecond)
		tickPaused, framesPaused = log.lastTick(), log.len()
		xdo(t, "key", "--window", id, "space")
		xdo(t, "keydown", "--window", id, "Right")
		time.Sleep(300 * time.Millisecond)
		// Frames go on: wait for them, however slowly they come.
		poll(10*time.Second, func() bool { return log.len() >= framesPaused+3 })
		tickResumed = log.lastTick()
		framesPaused = log.len() - framesPaused
		xdo(t, "key", "--window", id, "p")
		poll(5*time.Second, func() bool { return !paused.Load() })
		resumeFrame = log.len()
		poll(10*time.Second, func() bool { return log.len() >= resumeFrame+30 })
		xdo(t, "keyup", "--window", id, "Right")
		at := log.len()
		poll(10*time.Second, func() bool { return log.len() >= at+10 })
	})
	if tickResumed != tickPaused {
		t.Errorf("%d ticks ran during the pause, want 0", tickResumed-tickPaused)
	}
	if framesPaused < 3 {
		t.Errorf("only %d frames drawn in 10 s of pause: frames must go on", framesPaused)
	}
	if n := ticks.count(func(in input.Sample) bool { return in.JustPressed(input.KeySpace) }); n != 0 {
		t.Errorf("Space, pressed during the pause, reached %d ticks, want 0", n)
	}
	heldAt := ticks.first(func(in input.Sample) bool { return in.Down(input.KeyArrowRight) })
	if heldAt <= tickResumed {
		t.Errorf("Right, held across the resume, was seen down at tick %d, want after the resume (tick %d)", heldAt, tickResumed)
	}
	checkNoBurst(t, log.snapshot(), resumeFrame, "after the resume")
}
