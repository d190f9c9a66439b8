package timing

import (
	"slices"
	"testing"
	"time"
)

// holdUntil returns a fixed callback that holds every tick numbered at or
// after *from (0 = none) and appends the others to *ran.
func holdUntil(l *Loop, from *uint64, ran *[]Step) func(Step) {
	return func(s Step) {
		if *from != 0 && s.Tick >= *from {
			l.Hold()
			return
		}
		*ran = append(*ran, s)
	}
}

// A held tick is not counted, keeps the owed time up to the cap (the rest
// is cut and counted), renders at alpha 1, and runs later with its number,
// sim time and due time.
func TestHoldKeepsOwedTimeUpToTheCap(t *testing.T) {
	l := newLoop(t, 50, 5) // 20 ms ticks
	var ran []Step
	hold := uint64(1)
	fixed := holdUntil(l, &hold, &ran)
	var alpha float64
	render := func(a float64) { alpha = a }
	l.Tick(0, fixed, render)
	for i, want := range []struct {
		held     uint64
		heldTime time.Duration
	}{
		{1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, // 20 .. 100 ms: 1 to 5 ticks owed
		{6, 20 * time.Millisecond}, {7, 40 * time.Millisecond}, // 6 and 7 owed, cut to 5
	} {
		now := time.Duration(i+1) * 20 * time.Millisecond
		if n := l.Tick(now, fixed, render); n != 0 || len(ran) != 0 || l.Ticks() != 0 {
			t.Fatalf("held frame at %v ran %d ticks (%d seen, Ticks %d), want 0", now, n, len(ran), l.Ticks())
		}
		s := l.Stats()
		if s.HeldFrames != want.held || s.HeldTime != want.heldTime || s.DroppedTime() != want.heldTime || alpha != 1 || s.Alpha != 1 {
			t.Fatalf("at %v: HeldFrames %d, HeldTime %v, DroppedTime %v, alpha %v; want %d, %v, %v, 1",
				now, s.HeldFrames, s.HeldTime, s.DroppedTime(), alpha, want.held, want.heldTime, want.heldTime)
		}
	}
	if l.Alpha() != 1 || l.SimTime() != 0 {
		t.Errorf("between held frames: Alpha %v, SimTime %v; want 1 and 0", l.Alpha(), l.SimTime())
	}

	// Ready: 5 ticks owed since 40 ms (what was cut is gone) plus 20 ms.
	hold = 0
	if n := l.Tick(160*time.Millisecond, fixed, render); n != 5 {
		t.Fatalf("the frame after the wait ran %d ticks, want the cap, 5", n)
	}
	var ticks []uint64
	var sims, dues []time.Duration
	for _, s := range ran {
		ticks, sims, dues = append(ticks, s.Tick), append(sims, s.SimTime), append(dues, s.Due)
	}
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	if !slices.Equal(ticks, []uint64{1, 2, 3, 4, 5}) || !slices.Equal(sims, ms(20, 40, 60, 80, 100)) || !slices.Equal(dues, ms(60, 80, 100, 120, 140)) {
		t.Errorf("ticks %v, sim times %v, due %v; want 1 to 5, 20 to 100 ms, due 60 to 140 ms", ticks, sims, dues)
	}
	s := l.Stats()
	if s.CappedTicks != 1 || s.HeldFrames != 7 || l.Ticks() != 5 || alpha != 0 {
		t.Errorf("capped %d, held frames %d, Ticks %d, alpha %v; want 1, 7, 5, 0", s.CappedTicks, s.HeldFrames, l.Ticks(), alpha)
	}
}

// Without a step cap a held loop keeps one tick owed.
func TestHoldWithoutCapKeepsOneTick(t *testing.T) {
	l := newLoop(t, 50, 0)
	var ran []Step
	hold := uint64(1)
	fixed := holdUntil(l, &hold, &ran)
	l.Tick(0, fixed, nil)
	for i := range 3 {
		l.Tick(time.Duration(i+1)*20*time.Millisecond, fixed, nil)
	}
	if s := l.Stats(); s.HeldFrames != 3 || s.HeldTime != 40*time.Millisecond || l.Ticks() != 0 {
		t.Fatalf("HeldFrames %d, HeldTime %v, Ticks %d; want 3, 40ms, 0", s.HeldFrames, s.HeldTime, l.Ticks())
	}
	hold = 0
	if n := l.Tick(80*time.Millisecond, fixed, nil); n != 2 || ran[0].Tick != 1 || ran[1].Tick != 2 || ran[0].Due != 60*time.Millisecond {
		t.Errorf("ran %d ticks %+v, want ticks 1 and 2, the first due at 60 ms", n, ran)
	}
}

// A tick held in the middle of a frame ends the frame's stepping; it and
// the ticks after it run in the next frame, numbered on.
func TestHoldMidFrame(t *testing.T) {
	l := newLoop(t, 50, 5)
	var ran []Step
	hold := uint64(2)
	fixed := holdUntil(l, &hold, &ran)
	var alpha float64
	l.Tick(0, fixed, nil)
	if n := l.Tick(70*time.Millisecond, fixed, func(a float64) { alpha = a }); n != 1 || l.Ticks() != 1 || alpha != 1 {
		t.Fatalf("3.5 ticks owed, the second held: ran %d, Ticks %d, alpha %v; want 1, 1, 1", n, l.Ticks(), alpha)
	}
	hold = 0
	ran = ran[:0]
	if n := l.Tick(80*time.Millisecond, fixed, func(a float64) { alpha = a }); n != 3 {
		t.Fatalf("ran %d ticks, want 3 (2.5 owed + 0.5)", n)
	}
	for i, s := range ran {
		if want := uint64(i + 2); s.Tick != want || s.SimTime != time.Duration(want)*20*time.Millisecond {
			t.Errorf("step %d: tick %d at %v, want tick %d at %v", i, s.Tick, s.SimTime, want, time.Duration(want)*20*time.Millisecond)
		}
	}
	if l.Stats().HeldTime != 0 || alpha != 0 {
		t.Errorf("HeldTime %v, alpha %v; want 0 and 0", l.Stats().HeldTime, alpha)
	}
}

// A frame that feeds no time (non-positive, or at the Resume) runs no
// held tick either; Hold outside the fixed callback does nothing.
func TestHoldOwedTicksWaitForTime(t *testing.T) {
	l := newLoop(t, 50, 5)
	var ran []Step
	hold := uint64(1)
	fixed := holdUntil(l, &hold, &ran)
	l.Tick(0, fixed, nil)
	l.Tick(30*time.Millisecond, fixed, nil) // 1.5 owed, held
	hold = 0
	if n := l.Tick(30*time.Millisecond, fixed, nil); n != 0 || l.Alpha() != 1 {
		t.Fatalf("a zero-length frame ran %d ticks, alpha %v; want 0 and 1", n, l.Alpha())
	}
	if n := l.Tick(20*time.Millisecond, fixed, nil); n != 0 {
		t.Fatalf("a frame back in time ran %d ticks", n)
	}
	l.Hold() // between frames: nothing
	if n := l.Tick(21*time.Millisecond, fixed, nil); n != 1 || ran[0].Tick != 1 {
		t.Fatalf("ran %d ticks %+v, want tick 1", n, ran)
	}
}

// Pause and Hold in the same step: the held tick stays owed (with the
// fraction), the ticks after it are dropped like the rest of the pause.
func TestHoldAndPauseInOneStep(t *testing.T) {
	l := newLoop(t, 50, 5)
	l.Tick(0, nil, nil)
	l.Tick(70*time.Millisecond, func(Step) { l.Hold(); l.Pause() }, nil)
	if l.Ticks() != 0 || l.acc != unitsPerTick+unitsPerTick/2 {
		t.Fatalf("Ticks %d, owed %v ticks; want 0 and 1.5", l.Ticks(), float64(l.acc)/float64(unitsPerTick))
	}
	l.Resume(70 * time.Millisecond)
	var ran []Step
	if n := l.Tick(80*time.Millisecond, func(s Step) { ran = append(ran, s) }, nil); n != 2 || ran[0].Tick != 1 || ran[1].Tick != 2 {
		t.Errorf("after the resume ran %d ticks %+v, want 1 and 2", n, ran)
	}
}

// SetTickRate then Hold in one step: the held tick runs at the new rate,
// and the sim times go on from the tick before it.
func TestHoldAfterRateChangeInTheStep(t *testing.T) {
	l := newLoop(t, 50, 5)
	l.Tick(0, nil, nil)
	l.Tick(40*time.Millisecond, func(Step) {
		if err := l.SetTickRate(100); err != nil {
			t.Fatal(err)
		}
		l.Hold()
	}, nil)
	if l.Ticks() != 0 || l.SimTime() != 0 || l.TickRate() != 100 {
		t.Fatalf("Ticks %d, SimTime %v, rate %d; want 0, 0, 100", l.Ticks(), l.SimTime(), l.TickRate())
	}
	var ran []Step
	if n := l.Tick(41*time.Millisecond, func(s Step) { ran = append(ran, s) }, nil); n != 3 {
		t.Fatalf("ran %d ticks, want 3 (30 ms owed at 100 Hz, and 1 ms)", n)
	}
	for i, s := range ran {
		if want := time.Duration(i+1) * 10 * time.Millisecond; s.Tick != uint64(i+1) || s.SimTime != want || s.DT != 0.01 {
			t.Errorf("step %d: tick %d at %v DT %v, want tick %d at %v DT 0.01", i, s.Tick, s.SimTime, s.DT, i+1, want)
		}
	}
}

func TestHoldDoesNotAllocate(t *testing.T) {
	l := newLoop(t, 60, 5)
	k := int64(0)
	fixed := func(Step) {
		if k%2 == 0 {
			l.Hold()
		}
	}
	if a := testing.AllocsPerRun(10000, func() {
		l.Tick(frameAt(k, 144), fixed, nil)
		k++
	}); a != 0 {
		t.Errorf("Tick with holds allocates %v times per frame", a)
	}
}
