package engine

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// runHeadless runs RunHeadless and fails the test, instead of hanging it,
// when the run does not return within a generous deadline (a run that
// spins forever was the bug these tests pin).
func runHeadless(t *testing.T, e *Engine, cfg HeadlessConfig) (HeadlessResult, error) {
	t.Helper()
	type result struct {
		res HeadlessResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := RunHeadless(e, cfg)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-time.After(2 * time.Minute):
		t.Fatalf("RunHeadless(%+v) did not return within 2 minutes (world at tick %d)", cfg, e.World.Tick())
		return HeadlessResult{}, nil
	}
}

// Two runs in a row, and more, end with the world of one run to the last
// limit, whatever the displays of the parts; each result counts its own
// run, and the loop's clock only goes forward.
func TestRunHeadlessContinues(t *testing.T) {
	const total = 300
	one := snapScene(t, JobsDeterministic)
	whole, err := runHeadless(t, one, HeadlessConfig{DisplayHz: 144, Ticks: total})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Ticks != total || one.World.Tick() != total {
		t.Fatalf("one run: %d ticks, world at %d; want %d", whole.Ticks, one.World.Tick(), total)
	}

	e := snapScene(t, JobsDeterministic)
	var ticks, frames uint64
	for i, part := range []HeadlessConfig{
		{DisplayHz: 144, Ticks: 100},
		{DisplayHz: 144, Ticks: 100}, // already there: no frame
		{DisplayHz: 60, Jitter: 0.5, JitterSeed: 3, Ticks: 180},
		{DisplayHz: 30, Frames: 20}, // 20 frames, about 40 ticks
		{DisplayHz: 240, Ticks: total},
	} {
		before := e.World.Tick()
		res, err := runHeadless(t, e, part)
		if err != nil {
			t.Fatalf("run %d (%+v): %v", i, part, err)
		}
		if got := e.World.Tick() - before; res.Ticks != got {
			t.Errorf("run %d: result says %d ticks, the world went on %d", i, res.Ticks, got)
		}
		if part.Ticks != 0 && e.World.Tick() != part.Ticks {
			t.Errorf("run %d: world at tick %d, want %d", i, e.World.Tick(), part.Ticks)
		}
		if part.Frames != 0 && (res.Frames != part.Frames || res.Ticks < 30 || res.Ticks > 50) {
			t.Errorf("run %d: %d frames and %d ticks, want %d frames and about 40 ticks", i, res.Frames, res.Ticks, part.Frames)
		}
		if i == 1 && (res.Frames != 0 || res.Ticks != 0) {
			t.Errorf("run to the tick the world is at: %d frames, %d ticks; want none", res.Frames, res.Ticks)
		}
		if e.Loop.Paused() {
			t.Errorf("run %d left the loop paused", i)
		}
		ticks += res.Ticks
		frames += res.Frames
	}
	if e.World.Hash() != one.World.Hash() {
		t.Errorf("runs in a row end with hash %016x, one run with %016x", e.World.Hash(), one.World.Hash())
	}
	if ticks != total || e.Loop.Ticks() != total || e.Loop.Frames() != frames {
		t.Errorf("the runs' results add up to %d ticks and %d frames; the loop ran %d and %d; want %d ticks", ticks, frames, e.Loop.Ticks(), e.Loop.Frames(), total)
	}
	if st := e.Loop.Stats(); st.NonPositiveFrames != 0 || st.ClampedFrames != 0 || st.CappedFrames != 0 {
		t.Errorf("the loop saw %d non-positive, %d clamped and %d capped frames; the runs' clock must go on evenly", st.NonPositiveFrames, st.ClampedFrames, st.CappedFrames)
	}
}

// A run after frames run by hand goes on from the latest frame's time,
// however far that clock is from 0, and ends with the world of a plain
// run; the engine's StopAfter is kept.
func TestRunHeadlessAfterHandFrames(t *testing.T) {
	const total = 200
	want := snapScene(t, JobsDeterministic)
	if _, err := runHeadless(t, want, HeadlessConfig{DisplayHz: 144, Ticks: total}); err != nil {
		t.Fatal(err)
	}
	for _, start := range []time.Duration{0, 5 * time.Hour} {
		e := snapScene(t, JobsDeterministic)
		e.StopAfter(1000)
		for i := range 30 {
			e.Frame(start + time.Duration(i)*10*time.Millisecond)
		}
		handTicks := e.World.Tick()
		if handTicks < 15 {
			t.Fatalf("start %v: the hand-run frames ran %d ticks, want some", start, handTicks)
		}
		res, err := runHeadless(t, e, HeadlessConfig{DisplayHz: 144, Ticks: total})
		if err != nil {
			t.Fatalf("start %v: %v", start, err)
		}
		if e.World.Tick() != total || res.Ticks != total-handTicks {
			t.Errorf("start %v: world at %d after %d ticks of the run; want %d after %d", start, e.World.Tick(), res.Ticks, total, total-handTicks)
		}
		if e.World.Hash() != want.World.Hash() {
			t.Errorf("start %v: hash %016x, a plain run %016x", start, e.World.Hash(), want.World.Hash())
		}
		if st := e.Loop.Stats(); st.NonPositiveFrames != 0 {
			t.Errorf("start %v: the run's clock went back (%d non-positive frames)", start, st.NonPositiveFrames)
		}
		if e.stopAfter != 1000 {
			t.Errorf("start %v: StopAfter is %d after the run, want the engine's 1000", start, e.stopAfter)
		}
	}
}

// neverGate is a TickGate that never lets a tick run.
type neverGate struct{ asked int }

func (g *neverGate) PreTick()                         {}
func (g *neverGate) BeginTick(*TickInfo)              {}
func (g *neverGate) JobApplied(uint64, JobID, []byte) {}
func (g *neverGate) EndTick(uint64, *World)           {}
func (g *neverGate) TickReady(uint64) bool            { g.asked++; return false }

// lateGate holds tick at for frames calls, then lets every tick run.
type lateGate struct {
	neverGate
	at     uint64
	frames int
}

func (g *lateGate) TickReady(tick uint64) bool {
	if tick != g.at || g.frames == 0 {
		return true
	}
	g.frames--
	return false
}

// rewinder loads a state saved at its start at the start of every frame:
// the loop runs ticks, the world never gets anywhere.
type rewinder struct {
	neverGate
	e  *Engine
	st State
}

func (r *rewinder) TickReady(uint64) bool { return true }
func (r *rewinder) StartFrame()           { r.e.LoadState(&r.st) }

// A run with a tick limit that cannot get there ends with an error that
// wraps ErrStalled and says why, after StallTicks ticks' worth of display
// time; a run limited by frames only, or a gate that opens in time, is no
// stall.
func TestRunHeadlessStalls(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(e *Engine)
		cfg   HeadlessConfig
		want  string // in the error; "" for a run that ends well
	}{
		{"paused loop", func(e *Engine) { e.Loop.Pause() },
			HeadlessConfig{DisplayHz: 144, Ticks: 10, StallTicks: 10}, "the loop is paused"},
		{"gate that never opens", func(e *Engine) { e.AddTickHook(new(neverGate)) },
			HeadlessConfig{DisplayHz: 144, Ticks: 10, StallTicks: 10}, "held tick 1 in"},
		{"hook that sets the world back", func(e *Engine) {
			r := &rewinder{e: e}
			e.SaveState(&r.st)
			e.AddTickHook(r)
		}, HeadlessConfig{DisplayHz: 144, Ticks: 10, StallTicks: 10}, "never got past tick"},
		{"default bound", func(e *Engine) { e.Loop.Pause() },
			HeadlessConfig{DisplayHz: 10000, Ticks: 10}, "no new tick for 60 ticks' worth"},
		{"paused with a frame limit only", func(e *Engine) { e.Loop.Pause() },
			HeadlessConfig{DisplayHz: 144, Frames: 500, StallTicks: 10}, ""},
		{"gate that opens in time", func(e *Engine) { e.AddTickHook(&lateGate{at: 5, frames: 20}) },
			HeadlessConfig{DisplayHz: 144, Ticks: 10, StallTicks: 10}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t)
			tc.setup(e)
			paused := e.Loop.Paused()
			res, err := runHeadless(t, e, tc.cfg)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if tc.cfg.Frames != 0 && res.Frames != tc.cfg.Frames || tc.cfg.Ticks != 0 && e.World.Tick() != tc.cfg.Ticks {
					t.Errorf("%d frames, world at %d; want the limit", res.Frames, e.World.Tick())
				}
				return
			}
			if !errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v; want ErrStalled saying %q", err, tc.want)
			}
			t.Log(err)
			// StallTicks ticks' worth at 60 Hz is 2.4 frames a tick at
			// 144 Hz, 166.7 at 10 kHz; the world's first tick may take
			// 4 frames more at 144 Hz (the first frame starts the clock).
			stall := float64(tc.cfg.StallTicks)
			if stall == 0 {
				stall = DefaultStallTicks
			}
			max := uint64(stall*tc.cfg.DisplayHz/60) + 5
			if res.Frames > max {
				t.Errorf("stalled after %d frames, want at most %d", res.Frames, max)
			}
			if e.Loop.Paused() != paused {
				t.Errorf("the loop is paused: %v after the run, %v before", e.Loop.Paused(), paused)
			}
		})
	}
}

// Limits the world cannot reach are refused at once, and an engine that
// panicked runs nothing more: RunHeadless returns its *PanicError.
func TestRunHeadlessRefuses(t *testing.T) {
	e := newEngine(t)
	if _, err := runHeadless(t, e, HeadlessConfig{DisplayHz: 144, Ticks: 20}); err != nil {
		t.Fatal(err)
	}
	frames := e.Loop.Frames()
	_, err := runHeadless(t, e, HeadlessConfig{DisplayHz: 144, Ticks: 10})
	if err == nil || !strings.Contains(err.Error(), "the world is at tick 20, past the tick limit 10") || e.Loop.Frames() != frames {
		t.Errorf("a run to a tick behind the world: %v after %d frames; want the tick limit refused", err, e.Loop.Frames()-frames)
	}

	e.AddSystem(StageScripts, "bomb", func(c *FixedContext) {
		if c.Tick == 25 {
			panic("bang")
		}
	})
	var pe *PanicError
	if _, err := runHeadless(t, e, HeadlessConfig{DisplayHz: 144, Ticks: 40}); !errors.As(err, &pe) || pe.Tick != 25 {
		t.Fatalf("run into a panic: %v, want the *PanicError of tick 25", err)
	}
	res, err := runHeadless(t, e, HeadlessConfig{DisplayHz: 144, Ticks: 40})
	if !errors.As(err, &pe) || pe.Tick != 25 || res.Frames != 0 {
		t.Errorf("a run after the panic: %v after %d frames; want the *PanicError of tick 25 and no frame", err, res.Frames)
	}
}
