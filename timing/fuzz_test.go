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
// the frame's fixed callback, 128 and up changes it before the frame) and
// arbitrary held ticks (each byte of holds belongs to one frame: 0 holds
// nothing, n > 0 makes step (n-1)%16+1 of the frame's fixed callback call
// Hold, unless that step changes the rate). It checks the loop's promises:
//
//   - render runs once per frame with alpha in [0, 1], exactly 1 in a frame
//     that held a tick and until a frame runs the tick (a non-positive or
//     paused frame does not); no frame runs more ticks than the cap; Tick
//     returns the steps it ran;
//   - each step's DT is that of the rate in force; its tick number is one
//     more than the last tick run, and its sim time later than that tick's
//     (a held tick runs again later with the same number and sim time);
//     its due time is not after this frame's start, after the start of
//     the frame before (or, while ticks held in earlier frames are owed,
//     of the frame before the first of those), and not earlier than the
//     last tick run's while the clock does not go back (the last two
//     unless the rate changed between frames while a held tick was owed,
//     which moves the owed time's phase);
//   - real time is accounted for: the time fed (positive intervals, each
//     clamped to MaxFrameTime) equals the ticks run, at their rates, plus
//     the ticks the cap dropped plus the time cut while held plus the time
//     still owed, except for what SetTickRate is documented to change:
//     between frames the fraction of a tick is kept (so its time changes
//     with the rate), inside a tick the owed time is kept to under a
//     nanosecond; and HeldTime is rounded down to the nanosecond;
//   - without rate changes and time cut while held, the ticks run plus the
//     ticks dropped by the cap plus the whole ticks still owed are exactly
//     floor(time fed × rate).
func FuzzLoopTick(f *testing.F) {
	f.Add([]byte{}, uint16(60), uint8(5), uint16(250), []byte{}, []byte{})
	f.Add(binary.LittleEndian.AppendUint32(nil, 16666667), uint16(60), uint8(5), uint16(250), []byte{}, []byte{})
	f.Add(binary.LittleEndian.AppendUint32(nil, 1_000_000_000), uint16(60), uint8(0), uint16(250), []byte{}, []byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0x10, 0x27, 0, 0}, uint16(1000), uint8(1), uint16(1), []byte{}, []byte{})
	f.Add([]byte{0x40, 0x42, 0x0f, 0x00, 0x40, 0x42, 0x0f, 0x00}, uint16(7), uint8(3), uint16(60000), []byte{}, []byte{})
	// The conformance check's cases: 60 -> 1000 Hz, 1000 -> 1 Hz and
	// 7 -> 60 Hz from the first tick of a frame, and back between frames.
	twoFrames := func(d time.Duration) []byte {
		return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, uint32(d)), uint32(d))
	}
	f.Add(twoFrames(20*time.Millisecond), uint16(60), uint8(5), uint16(250), []byte{1, 0xe8, 0x03, 128, 60, 0}, []byte{})
	f.Add(twoFrames(4500*time.Microsecond), uint16(1000), uint8(5), uint16(250), []byte{1, 1, 0, 200, 0xe8, 0x03}, []byte{})
	f.Add(twoFrames(650*time.Millisecond), uint16(7), uint8(5), uint16(1000), []byte{1, 60, 0, 2, 7, 0}, []byte{})
	f.Add(twoFrames(650*time.Millisecond), uint16(7), uint8(0), uint16(1000), []byte{1, 60, 0, 3, 1, 0}, []byte{})
	// Held ticks: a second of 60 Hz frames on a 144 Hz display, holding
	// the first tick of most frames, with and without a cap; and a held
	// tick after an in-tick rate change.
	var display []byte
	for range 144 {
		display = binary.LittleEndian.AppendUint32(display, 6944444)
	}
	holdMost := []byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 2, 0, 1}
	f.Add(display, uint16(60), uint8(5), uint16(250), []byte{}, holdMost)
	f.Add(display, uint16(60), uint8(0), uint16(250), []byte{}, holdMost)
	f.Add(twoFrames(650*time.Millisecond), uint16(7), uint8(5), uint16(1000), []byte{1, 60, 0, 1, 7, 0}, []byte{3, 2})
	f.Fuzz(func(t *testing.T, data []byte, rate uint16, maxSteps uint8, maxFrameMs uint16, changes, holds []byte) {
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
			dueFloor              time.Duration // due times are after it
			lastDue               = time.Duration(-1 << 62)
			lastSim               time.Duration // of the last tick run
			lastTick              uint64
			changeAt              int // step of this frame that changes the rate; 0 = none
			changeTo              int
			holdAt                int  // step of this frame that holds; 0 = none
			heldNow               bool // this frame held a tick
			cut                   bool // time was cut while held
			// A rate change between frames while a held tick is owed
			// moves the owed time's phase (see SetTickRate): the due
			// times of the ticks owed then are checked only against the
			// frame's start.
			rephased bool
		)
		fixed := func(s Step) {
			stepsNow++
			if s.DT != l.DT() {
				t.Fatalf("step %d DT %v, loop's %v", s.Tick, s.DT, l.DT())
			}
			if s.Tick != lastTick+1 || s.SimTime <= lastSim {
				t.Fatalf("step %d sim time %v after tick %d at %v", s.Tick, s.SimTime, lastTick, lastSim)
			}
			if s.Due > frameStart || !rephased && (s.Due <= dueFloor || s.Due < lastDue) {
				t.Fatalf("step %d due %v: previous due %v, after %v, frame start %v", s.Tick, s.Due, lastDue, dueFloor, frameStart)
			}
			if stepsNow == holdAt && holdAt != changeAt {
				// Not run: its due time binds no later tick (a rate
				// change between frames may make the owed time's first
				// tick due earlier at the new rate).
				l.Hold()
				stepsNow--
				heldNow = true
				return
			}
			lastTick, lastSim, lastDue = s.Tick, s.SimTime, s.Due
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
			if a < 0 || a > 1 || heldNow && a != 1 || (a == 1) != (l.acc >= unitsPerTick) {
				t.Fatalf("alpha %v; want it in [0, 1], exactly 1 in a held frame (held %v) and while a held tick is owed (owed %v ticks)", a, heldNow, owedRat(l).FloatString(3))
			}
		}
		l.Tick(now, fixed, render)
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
					rephased = rephased || l.acc >= unitsPerTick
					if err := l.SetTickRate(hz); err != nil {
						t.Fatal(err)
					}
					owed.Add(owed, owedRat(l))
					changed = true
				case sel > 0:
					changeAt, changeTo = int(sel-1)%16+1, hz
				}
			}
			holdAt = 0
			if len(holds) > 0 {
				if holds[0] > 0 {
					holdAt = int(holds[0]-1)%16 + 1
				}
				holds = holds[1:]
			}
			prevStart, frameStart = now, now+d
			if l.acc < unitsPerTick {
				// No held tick is owed: the frame's ticks became due
				// after the previous frame's start.
				dueFloor, rephased = prevStart, false
			}
			if d < 0 {
				lastDue = -1 << 62 // the clock went back
				dueFloor = -1 << 62
			}
			now += d
			stepsNow, renders = 0, 0
			before := l.Stats()
			heldNow = false
			n := l.Tick(now, fixed, render)
			if renders != 1 {
				t.Fatalf("render ran %d times in a frame", renders)
			}
			if n != stepsNow {
				t.Fatalf("Tick returned %d but ran %d steps", n, stepsNow)
			}
			if cfg.MaxStepsPerFrame > 0 && n > cfg.MaxStepsPerFrame {
				t.Fatalf("frame ran %d steps, cap %d", n, cfg.MaxStepsPerFrame)
			}
			if d > 0 {
				fed += min(d, cfg.MaxFrameTime)
				owed.Add(owed, nsRat(min(d, cfg.MaxFrameTime)))
			}
			// The cap runs after any change in the frame: at the rate now.
			after := l.Stats()
			owed.Sub(owed, ticksRat(int64(after.CappedTicks-before.CappedTicks), l.rate))
			if heldNow != (after.HeldFrames == before.HeldFrames+1) {
				t.Fatalf("held a tick: %v, but HeldFrames went from %d to %d", heldNow, before.HeldFrames, after.HeldFrames)
			}
			limit := ticksRat(int64(max(cfg.MaxStepsPerFrame, 1)), l.rate)
			if c := after.HeldTime - before.HeldTime; c > 0 || heldNow && owedRat(l).Cmp(limit) == 0 && owed.Cmp(limit) > 0 {
				// Rounded down to the nanosecond: up to 1 ns more was cut
				// (all of it, when less than a nanosecond was).
				owed.Sub(owed, nsRat(c))
				roundings.Add(roundings, big.NewRat(1, 1))
				cut = true
			}
			if heldNow {
				if owedRat(l).Cmp(limit) > 0 {
					t.Fatalf("after a held frame the loop owes %s ns, more than the %s ns of its cap", owedRat(l).FloatString(3), limit.FloatString(3))
				}
			}
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
		if changed || cut {
			return
		}
		want := new(big.Int).Mul(big.NewInt(int64(fed)), big.NewInt(int64(cfg.TickRate)))
		want.Quo(want, big.NewInt(int64(time.Second)))
		owing := uint64(l.acc / unitsPerTick)
		got := new(big.Int).SetUint64(l.Ticks() + s.CappedTicks + owing)
		if got.Cmp(want) != 0 {
			t.Fatalf("ticks %d + capped %d + owed %d = %v, want floor(%v × %d Hz) = %v", l.Ticks(), s.CappedTicks, owing, got, fed, cfg.TickRate, want)
		}
	})
}
