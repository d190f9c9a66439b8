package timing

import (
	"encoding/binary"
	"math/big"
	"testing"
	"time"
)

// FuzzLoopTick drives a loop with arbitrary frame-time sequences (each four
// bytes of data are one signed frame interval in nanoseconds, about ±2 s),
// arbitrary configurations and arbitrary tick-rate changes (each three
// bytes of changes belong to one frame: a selector and a rate; selector 0
// changes nothing, 1 to 127 changes the rate from step (selector-1)%16+1 of
// the frame's fixed callback, 128 and up changes it before the frame). It checks the
// loop's promises:
//
//   - render runs once per frame with alpha in [0, 1), no frame runs more
//     ticks than the cap, Frame returns the steps it ran;
//   - each step's DT is that of the rate in force, its sim time is later
//     than the previous step's, and its due time is within its frame (after
//     the previous frame's start, not after this frame's start) and not
//     earlier than the previous step's while the clock does not go back;
//   - real time is accounted for: the time fed (positive intervals, each
//     clamped to MaxFrameTime) equals the ticks run, at their rates, plus
//     the ticks the cap dropped plus the time still owed, except for what
//     SetTickRate is documented to change: between frames the fraction of
//     a tick is kept (so its time changes with the rate), inside a tick
//     the owed time is kept to under a nanosecond;
//   - without rate changes, the ticks run plus the ticks dropped by the cap
//     are exactly floor(time fed × rate).
func FuzzLoopTick(f *testing.F) {
	f.Add([]byte{}, uint16(60), uint8(5), uint16(250), []byte{})
	f.Add(binary.LittleEndian.AppendUint32(nil, 16666667), uint16(60), uint8(5), uint16(250), []byte{})
	f.Add(binary.LittleEndian.AppendUint32(nil, 1_000_000_000), uint16(60), uint8(0), uint16(250), []byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0x10, 0x27, 0, 0}, uint16(1000), uint8(1), uint16(1), []byte{})
	f.Add([]byte{0x40, 0x42, 0x0f, 0x00, 0x40, 0x42, 0x0f, 0x00}, uint16(7), uint8(3), uint16(60000), []byte{})
	// The conformance check's cases: 60 -> 1000 Hz, 1000 -> 1 Hz and
	// 7 -> 60 Hz from the first tick of a frame, and back between frames.
	twoFrames := func(d time.Duration) []byte {
		return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, uint32(d)), uint32(d))
	}
	f.Add(twoFrames(20*time.Millisecond), uint16(60), uint8(5), uint16(250), []byte{1, 0xe8, 0x03, 128, 60, 0})
	f.Add(twoFrames(4500*time.Microsecond), uint16(1000), uint8(5), uint16(250), []byte{1, 1, 0, 200, 0xe8, 0x03})
	f.Add(twoFrames(650*time.Millisecond), uint16(7), uint8(5), uint16(1000), []byte{1, 60, 0, 2, 7, 0})
	f.Add(twoFrames(650*time.Millisecond), uint16(7), uint8(0), uint16(1000), []byte{1, 60, 0, 3, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte, rate uint16, maxSteps uint8, maxFrameMs uint16, changes []byte) {
		cfg := Config{
			TickRate:         int(rate%MaxTickRate) + 1,
			MaxFrameTime:     time.Duration(int(maxFrameMs%2000)+1) * time.Millisecond,
			MaxStepsPerFrame: int(maxSteps % 16),
		}
		l, err := NewLoop(cfg)
		if err != nil {
			t.Fatalf("valid config %+v rejected: %v", cfg, err)
		}
		var (
			now      = time.Duration(1 << 40)
			fed      time.Duration // positive intervals after the clamp
			renders  int
			stepsNow int
			changed  bool // the rate changed at least once

			// Real time in exact nanoseconds: the model of what the
			// accumulator should hold, and how far below it the loop may
			// be after inside-tick conversions.
			owed      = new(big.Rat)
			roundings = new(big.Rat)

			frameStart, prevStart time.Duration
			lastDue               = time.Duration(-1 << 62)
			lastSim               time.Duration
			changeAt              int // step of this frame that changes the rate; 0 = none
			changeTo              int
		)
		fixed := func(s Step) {
			stepsNow++
			if s.DT != l.DT() {
				t.Fatalf("step %d DT %v, loop's %v", s.Tick, s.DT, l.DT())
			}
			if s.SimTime <= lastSim {
				t.Fatalf("step %d sim time %v after %v", s.Tick, s.SimTime, lastSim)
			}
			lastSim = s.SimTime
			if s.Due > frameStart || s.Due <= prevStart || s.Due < lastDue {
				t.Fatalf("step %d due %v: previous due %v, frames start %v and %v", s.Tick, s.Due, lastDue, prevStart, frameStart)
			}
			lastDue = s.Due
			owed.Sub(owed, ticksRat(1, l.rate))
			if stepsNow == changeAt {
				roundings.Add(roundings, big.NewRat(1, int64(changeTo)))
				if err := l.SetTickRate(changeTo); err != nil {
					t.Fatal(err)
				}
				changed = true
			}
		}
		render := func(a float64) {
			renders++
			if a < 0 || a >= 1 {
				t.Fatalf("alpha %v outside [0, 1)", a)
			}
		}
		l.Frame(now, fixed, render)
		for len(data) >= 4 {
			d := time.Duration(int32(binary.LittleEndian.Uint32(data)))
			data = data[4:]
			changeAt = 0
			if len(changes) >= 3 {
				sel, hz := changes[0], int(binary.LittleEndian.Uint16(changes[1:]))%MaxTickRate+1
				changes = changes[3:]
				switch {
				case sel >= 128:
					// Between frames the fraction of a tick is kept: the
					// time it stands for changes with the rate.
					owed.Sub(owed, owedRat(l))
					if err := l.SetTickRate(hz); err != nil {
						t.Fatal(err)
					}
					owed.Add(owed, owedRat(l))
					changed = true
				case sel > 0:
					changeAt, changeTo = int(sel-1)%16+1, hz
				}
			}
			prevStart, frameStart = now, now+d
			if d < 0 {
				lastDue = -1 << 62 // the clock went back
			}
			now += d
			stepsNow, renders = 0, 0
			cappedBefore := l.Stats().CappedTicks
			n := l.Frame(now, fixed, render)
			if renders != 1 {
				t.Fatalf("render ran %d times in a frame", renders)
			}
			if n != stepsNow {
				t.Fatalf("Frame returned %d but ran %d steps", n, stepsNow)
			}
			if cfg.MaxStepsPerFrame > 0 && n > cfg.MaxStepsPerFrame {
				t.Fatalf("frame ran %d steps, cap %d", n, cfg.MaxStepsPerFrame)
			}
			if d > 0 {
				fed += min(d, cfg.MaxFrameTime)
				owed.Add(owed, nsRat(min(d, cfg.MaxFrameTime)))
			}
			// The cap runs after any change in the frame: at the rate now.
			owed.Sub(owed, ticksRat(int64(l.Stats().CappedTicks-cappedBefore), l.rate))
			lost := new(big.Rat).Sub(owed, owedRat(l))
			if lost.Sign() < 0 || lost.Cmp(roundings) > 0 {
				t.Fatalf("after frame %d the loop owes %s ns, the time fed less the ticks run and dropped is %s ns (%s ns apart, at most %s allowed)",
					l.Frames(), owedRat(l).FloatString(3), owed.FloatString(3), lost.FloatString(3), roundings.FloatString(3))
			}
		}
		s := l.Stats()
		if cfg.MaxStepsPerFrame == 0 && s.CappedTicks != 0 {
			t.Fatalf("no cap but %d ticks capped", s.CappedTicks)
		}
		if changed {
			return
		}
		want := new(big.Int).Mul(big.NewInt(int64(fed)), big.NewInt(int64(cfg.TickRate)))
		want.Quo(want, big.NewInt(int64(time.Second)))
		got := new(big.Int).SetUint64(l.Ticks() + s.CappedTicks)
		if got.Cmp(want) != 0 {
			t.Fatalf("ticks %d + capped %d = %v, want floor(%v × %d Hz) = %v", l.Ticks(), s.CappedTicks, got, fed, cfg.TickRate, want)
		}
	})
}
