package timing

import (
	"fmt"
	"math/big"
	"slices"
	"testing"
	"time"
)

// nsRat is d as an exact rational number of nanoseconds.
func nsRat(d time.Duration) *big.Rat { return new(big.Rat).SetInt64(int64(d)) }

// ticksRat is the real time of n ticks at hz, in exact nanoseconds.
func ticksRat(n int64, hz int64) *big.Rat {
	return new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(n), big.NewInt(int64(time.Second))), big.NewInt(hz))
}

// owedRat is the real time the accumulator holds, in exact nanoseconds.
func owedRat(l *Loop) *big.Rat { return new(big.Rat).SetFrac64(l.acc, l.rate) }

// A tick-rate change made by the fixed callback keeps the real time the
// frame still owes: the frame runs what that time holds at the new rate,
// the due times go on increasing and stay within the frame, and nothing is
// lost but the accumulator's rounding (under a nanosecond) and what the
// cap drops, which is counted.
func TestSetTickRateInsideTickKeepsOwedTime(t *testing.T) {
	type tc struct {
		from, to int
		at       int           // the frame's step that changes the rate
		warm     time.Duration // a first frame, to leave a fraction of a tick
		frame    time.Duration // the frame that changes the rate
		maxSteps int
	}
	var cases []tc
	pairs := [][2]int{{60, 1000}, {1000, 1}, {7, 60}, {60, 7}, {1, 1000}, {1000, 999}, {144, 60}, {60, 144}, {30, 30}, {1, 2}}
	for _, p := range pairs {
		for _, maxSteps := range []int{0, 5} {
			for _, at := range []int{1, 2} {
				for _, frame := range []time.Duration{4500 * time.Microsecond, 20 * time.Millisecond, 100 * time.Millisecond, 650 * time.Millisecond, 1900 * time.Millisecond} {
					cases = append(cases, tc{p[0], p[1], at, 7 * time.Millisecond, frame, maxSteps})
				}
			}
		}
	}
	checked := 0
	for _, c := range cases {
		name := fmt.Sprintf("%d-%dHz/at%d/%v/cap%d", c.from, c.to, c.at, c.frame, c.maxSteps)
		l := newLoopConfig(t, Config{TickRate: c.from, MaxFrameTime: 2 * time.Second, MaxStepsPerFrame: c.maxSteps})
		start := 3 * time.Second
		l.Tick(start, nil, nil)
		l.Tick(start+c.warm, nil, nil)
		prev := start + c.warm
		now := prev + c.frame
		before := owedRat(l)
		tickBefore := l.Ticks()
		simBefore := l.SimTime()
		statsBefore := l.Stats()

		var (
			steps    []Step
			changed  bool
			simAtChg time.Duration
		)
		n := l.Tick(now, func(s Step) {
			steps = append(steps, s)
			if len(steps) == c.at {
				if err := l.SetTickRate(c.to); err != nil {
					t.Fatal(err)
				}
				changed = true
				simAtChg = s.SimTime
			}
		}, func(a float64) {
			if a < 0 || a >= 1 {
				t.Errorf("%s: alpha %v outside [0, 1)", name, a)
			}
		})

		if n != len(steps) || l.Ticks() != tickBefore+uint64(n) {
			t.Fatalf("%s: Tick returned %d, ran %d steps", name, n, len(steps))
		}
		if c.maxSteps > 0 && n > c.maxSteps {
			t.Errorf("%s: %d steps, cap %d", name, n, c.maxSteps)
		}
		if !changed {
			// The frame owed fewer ticks than c.at: nothing to check.
			continue
		}
		checked++

		// Due times: non-decreasing, between the frame's start and now.
		last := prev
		for i, s := range steps {
			if s.Due < last || s.Due > now {
				t.Errorf("%s: step %d of %d due %v, after %v and before frame start %v; dues %v", name, i+1, n, s.Due, last, now, dues(steps))
				break
			}
			last = s.Due
		}

		// Steps after the change: the new DT, sim times from the change on.
		for i, s := range steps[c.at:] {
			want := simAtChg + time.Duration(int64(i+1)*int64(time.Second)/int64(c.to))
			if s.DT != 1/float64(c.to) || s.SimTime != want {
				t.Errorf("%s: step %d after the change: DT %v sim %v, want %v and %v", name, i+1, s.DT, s.SimTime, 1/float64(c.to), want)
				break
			}
		}
		if len(steps) > c.at && steps[c.at].SimTime <= simBefore {
			t.Errorf("%s: sim time went back", name)
		}

		// Real time: owed before + the frame = ticks run at their rates +
		// capped ticks at the new rate + owed after + rounding under 1 ns.
		s := l.Stats()
		s.CappedTicks -= statsBefore.CappedTicks
		s.CappedTime -= statsBefore.CappedTime
		s.ClampedTime -= statsBefore.ClampedTime
		fed := new(big.Rat).Add(before, nsRat(c.frame))
		ran := new(big.Rat).Add(ticksRat(int64(c.at), int64(c.from)), ticksRat(int64(n-c.at), int64(c.to)))
		ran.Add(ran, ticksRat(int64(s.CappedTicks), int64(c.to)))
		ran.Add(ran, owedRat(l))
		lost := new(big.Rat).Sub(fed, ran)
		if lost.Sign() < 0 || lost.Cmp(big.NewRat(1, 1)) >= 0 {
			t.Errorf("%s: owed %s ns + frame %v, but ran %d+%d ticks, capped %d, %s ns left: %s ns unaccounted",
				name, before.FloatString(3), c.frame, c.at, n-c.at, s.CappedTicks, owedRat(l).FloatString(3), lost.FloatString(3))
		}
		if s.CappedTicks > 0 {
			if c.maxSteps == 0 || n != c.maxSteps {
				t.Errorf("%s: %d ticks capped in a frame of %d steps, cap %d", name, s.CappedTicks, n, c.maxSteps)
			}
			if want := time.Duration(int64(s.CappedTicks) * int64(time.Second) / int64(c.to)); s.CappedTime != want || s.DroppedTime() != want {
				t.Errorf("%s: capped time %v dropped %v, want %v", name, s.CappedTime, s.DroppedTime(), want)
			}
		} else if s.DroppedTime() != 0 {
			t.Errorf("%s: %v dropped", name, s.DroppedTime())
		}

		// The next frames go on from there: dues keep increasing.
		for k := 1; k <= 3; k++ {
			at := now + time.Duration(k)*time.Second/time.Duration(c.to)
			l.Tick(at, func(s Step) {
				if s.Due <= last || s.Due > at {
					t.Errorf("%s: next frame's step due %v, after %v, frame start %v", name, s.Due, last, at)
				}
				last = s.Due
			}, nil)

		}
	}
	if checked < len(cases)/2 {
		t.Errorf("only %d of %d cases changed the rate", checked, len(cases))
	}
}

func dues(steps []Step) []time.Duration {
	var d []time.Duration
	for _, s := range steps {
		d = append(d, s.Due)
	}
	return d
}

// The cases the conformance check reported, with the figures the rule
// gives.
func TestSetTickRateInsideTickExamples(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name       string
		from, to   int
		frame      time.Duration
		wantDues   []time.Duration
		wantCapped uint64
	}{
		// 20 ms at 60 Hz: one 60 Hz tick (16.67 ms), then the 3.33 ms
		// left are three 1000 Hz ticks due a millisecond apart.
		{"60 to 1000", 60, 1000, 20 * ms, []time.Duration{16666667, 17666667, 18666667, 19666667}, 0},
		// 4.5 ms at 1000 Hz: one tick, then 3.5 ms are not a 1 Hz tick.
		{"1000 to 1", 1000, 1, 4500 * time.Microsecond, []time.Duration{ms}, 0},
		// 650 ms at 7 Hz: one 7 Hz tick (142.86 ms), then 507.14 ms are
		// 30.43 ticks at 60 Hz: four run (the cap), 26 are dropped and
		// counted.
		{"7 to 60", 7, 60, 650 * ms, []time.Duration{142857143, 159523810, 176190477, 192857143, 209523810}, 26},
	}
	for _, tc := range tests {
		l := newLoopConfig(t, Config{TickRate: tc.from, MaxFrameTime: time.Second, MaxStepsPerFrame: 5})
		l.Tick(0, nil, nil)
		var got []time.Duration
		l.Tick(tc.frame, func(s Step) {
			if s.Tick == 1 {
				_ = l.SetTickRate(tc.to)
			}
			got = append(got, s.Due)
		}, nil)

		s := l.Stats()
		if !slices.Equal(got, tc.wantDues) || s.CappedTicks != tc.wantCapped {
			t.Errorf("%s: dues %v capped %d, want %v and %d", tc.name, got, s.CappedTicks, tc.wantDues, tc.wantCapped)
		}
		if s.ClampedTime != 0 {
			t.Errorf("%s: %v clamped", tc.name, s.ClampedTime)
		}
	}
}

// Between frames SetTickRate keeps alpha, not time: the next tick comes
// after the rest of a tick at the new rate, due after the frame that came
// before the change.
func TestSetTickRateBetweenFramesKeepsAlpha(t *testing.T) {
	for _, p := range [][2]int{{60, 1000}, {1000, 1}, {7, 60}, {60, 7}} {
		l := newLoopConfig(t, Config{TickRate: p[0], MaxFrameTime: 2 * time.Second})
		l.Tick(0, nil, nil)
		frame := time.Second/time.Duration(p[0]) + time.Second/time.Duration(2*p[0]) // 1.5 ticks
		l.Tick(frame, nil, nil)
		alpha, acc := l.Alpha(), l.acc
		if err := l.SetTickRate(p[1]); err != nil {
			t.Fatal(err)
		}
		if l.Alpha() != alpha || l.acc != acc {
			t.Errorf("%d to %d Hz between frames: alpha %v -> %v", p[0], p[1], alpha, l.Alpha())
		}
		// The next tick is due (1-alpha) of a new tick after the frame.
		rest := new(big.Rat).SetFrac64(int64(time.Second)-acc, int64(p[1]))
		restNs := new(big.Int).Quo(new(big.Int).Add(rest.Num(), new(big.Int).Sub(rest.Denom(), big.NewInt(1))), rest.Denom()) // ceil
		want := frame + time.Duration(restNs.Int64())
		var due time.Duration
		n := l.Tick(want, func(s Step) { due = s.Due }, nil)
		if n != 1 || due != want {
			t.Errorf("%d to %d Hz between frames: next frame ran %d ticks, due %v, want 1 due %v", p[0], p[1], n, due, want)
		}
		if n := l.Tick(want, nil, nil); n != 0 {
			t.Errorf("ran %d", n)
		}
	}
}
