package timing

import (
	"encoding/binary"
	"math/big"
	"testing"
	"time"
)

// FuzzLoopTick drives a loop with arbitrary frame-time sequences (each four
// bytes of data are one signed frame interval in nanoseconds, about ±2 s)
// and arbitrary configurations, and checks the loop's promises: render runs
// once per frame with alpha in [0, 1), no frame runs more ticks than the
// cap, and the ticks run plus the ticks dropped by the cap are exactly
// floor(accumulated time × rate), where accumulated time is the sum of the
// positive intervals, each clamped to MaxFrameTime.
func FuzzLoopTick(f *testing.F) {
	f.Add([]byte{}, uint16(60), uint8(5), uint16(250))
	f.Add(binary.LittleEndian.AppendUint32(nil, 16666667), uint16(60), uint8(5), uint16(250))
	f.Add(binary.LittleEndian.AppendUint32(nil, 1_000_000_000), uint16(60), uint8(0), uint16(250))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0x10, 0x27, 0, 0}, uint16(1000), uint8(1), uint16(1))
	f.Add([]byte{0x40, 0x42, 0x0f, 0x00, 0x40, 0x42, 0x0f, 0x00}, uint16(7), uint8(3), uint16(60000))
	f.Fuzz(func(t *testing.T, data []byte, rate uint16, maxSteps uint8, maxFrameMs uint16) {
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
		)
		fixed := func(Step) { stepsNow++ }
		render := func(a float64) {
			renders++
			if a < 0 || a >= 1 {
				t.Fatalf("alpha %v outside [0, 1)", a)
			}
		}
		l.Tick(now, fixed, render)
		for len(data) >= 4 {
			d := time.Duration(int32(binary.LittleEndian.Uint32(data)))
			data = data[4:]
			now += d
			stepsNow, renders = 0, 0
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
			}
		}
		want := new(big.Int).Mul(big.NewInt(int64(fed)), big.NewInt(int64(cfg.TickRate)))
		want.Quo(want, big.NewInt(int64(time.Second)))
		s := l.Stats()
		got := new(big.Int).SetUint64(l.Ticks() + s.CappedTicks)
		if got.Cmp(want) != 0 {
			t.Fatalf("ticks %d + capped %d = %v, want floor(%v × %d Hz) = %v", l.Ticks(), s.CappedTicks, got, fed, cfg.TickRate, want)
		}
		if cfg.MaxStepsPerFrame == 0 && s.CappedTicks != 0 {
			t.Fatalf("no cap but %d ticks capped", s.CappedTicks)
		}
	})
}
