package desktop_test

import (
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/internal/platform"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
)

// A minimised window, or one whose framebuffer is 0x0 (Windows reports that
// when minimising), draws nothing and simulates nothing, sleeps in the event
// wait instead of spinning, and resumes without a burst of catch-up ticks.
//
// Xvfb has no window manager, so nothing there minimises a window, and an X
// window cannot be 0x0 (see TestXdotoolMinimise): the events are delivered
// with the platform's Simulate methods, from inside Run's loop, where the
// real ones would arrive.
func TestMinimisedOrEmptyWindowSuspends(t *testing.T) {
	tests := []struct {
		name string
		away func(w *platform.Window, away bool)
	}{
		{"iconify", func(w *platform.Window, away bool) { w.SimulateIconify(away) }},
		{"zero framebuffer", func(w *platform.Window, away bool) {
			if away {
				w.SimulateFramebufferSize(0, 0)
			} else {
				w.SimulateFramebufferSize(64, 64)
			}
		}},
	}
	const awayFor = 500 * time.Millisecond
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := newEngine(t, 8)
			cfg := testConfig()
			var log frameLog
			cfg.OnFrame = log.add
			r := newRunner(t, e, cfg)

			// The hook runs on the main thread after every event poll.
			var (
				phase                      int
				awayStart                  time.Time
				passesAway                 int
				framesAtAway, framesAtBack int
				ticksAtAway, ticksAtBack   uint64
			)
			desktop.SetPollHook(r, func() {
				n := log.len()
				switch phase {
				case 0:
					if n >= 30 {
						tt.away(r.Window(), true)
						phase, awayStart = 1, time.Now()
						framesAtAway, ticksAtAway = n, e.Loop.Ticks()
					}
				case 1:
					passesAway++
					if time.Since(awayStart) >= awayFor {
						framesAtBack, ticksAtBack = n, e.Loop.Ticks()
						tt.away(r.Window(), false)
						phase = 2
					}
				case 2:
					if n >= framesAtBack+60 {
						r.Quit()
						phase = 3
					}
				}
			})
			if _, err := run(r); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if phase != 3 {
				t.Fatalf("the run ended in phase %d", phase)
			}

			frames := log.snapshot()
			if framesAtBack != framesAtAway {
				t.Errorf("%d frames drawn while away, want 0", framesAtBack-framesAtAway)
			}
			if ticksAtBack != ticksAtAway {
				t.Errorf("%d ticks ran while away, want 0", ticksAtBack-ticksAtAway)
			}
			// One pass per SuspendedWait, not a spin.
			if limit := int(awayFor/desktop.SuspendedWait) + 5; passesAway > limit {
				t.Errorf("the loop went round %d times in %v away, want at most %d (it must wait, not spin)", passesAway, awayFor, limit)
			}
			after := frames[framesAtBack:]
			if after[0].Steps != 0 {
				t.Errorf("the first frame back ran %d ticks, want 0", after[0].Steps)
			}
			checkNoBurst(t, frames, framesAtBack+1, "after coming back")
			last := frames[len(frames)-1]
			// The time away is not simulated: ticks follow the time drawn.
			drawnTime := last.Time - frames[0].Time - (after[0].Time - frames[framesAtBack-1].Time)
			if want := uint64(drawnTime * 60 / time.Second); last.Tick > want+2 {
				t.Errorf("%d ticks in %v of frames drawn, want at most %d: the time away was caught up", last.Tick, drawnTime, want+2)
			}
			t.Logf("%d passes of the loop in %v away; %d ticks in %d frames; gap in frame times %v",
				passesAway, awayFor, last.Tick, len(frames), (after[0].Time - frames[framesAtBack-1].Time).Round(time.Millisecond))
		})
	}
}

// Run can be called again: the simulation goes on from where it stopped,
// without simulating the time between the runs.
func TestRunAgainDoesNotCatchUp(t *testing.T) {
	e, _ := newEngine(t, 4)
	cfg := testConfig()
	cfg.Frames = 20
	var log frameLog
	cfg.OnFrame = log.add
	r := newRunner(t, e, cfg)
	if _, err := run(r); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := run(r); err != nil {
		t.Fatal(err)
	}
	frames := log.snapshot()
	if len(frames) != 40 {
		t.Fatalf("two runs of 20 frames drew %d", len(frames))
	}
	second := frames[20:]
	if second[0].Steps != 0 {
		t.Errorf("the second run's first frame ran %d ticks, want 0", second[0].Steps)
	}
	checkNoBurst(t, frames, 21, "in the second run")
	// The second run simulates its own frames' time and no more: the 300 ms
	// between the runs would be 18 more ticks (or a capped frame).
	ticks := frames[39].Tick - frames[19].Tick
	if limit := uint64((frames[39].Time-frames[20].Time)*60/time.Second) + 1; ticks > limit {
		t.Errorf("the second run ran %d ticks in %v of frames, want at most %d: the time between the runs was simulated",
			ticks, frames[39].Time-frames[20].Time, limit)
	}
}

// Duration ends Run on wall time, also while the window is minimised.
func TestDurationLimit(t *testing.T) {
	for _, minimised := range []bool{false, true} {
		e, _ := newEngine(t, 4)
		cfg := testConfig()
		cfg.Duration = 400 * time.Millisecond
		r := newRunner(t, e, cfg)
		if minimised {
			platformtest.OnMain(func() { r.Window().SimulateIconify(true) })
		}
		took, err := run(r)
		if err != nil {
			t.Fatal(err)
		}
		// Not before the Duration; the upper bound only catches a Run that
		// ignores it (a loaded machine may take seconds more).
		if took < cfg.Duration || took > cfg.Duration+15*time.Second {
			t.Errorf("minimised=%v: Run with Duration %v took %v", minimised, cfg.Duration, took)
		}
		if drawn := e.Loop.Frames(); minimised && drawn != 0 {
			t.Errorf("minimised=%v: %d frames drawn, want 0", minimised, drawn)
		}
	}
}
