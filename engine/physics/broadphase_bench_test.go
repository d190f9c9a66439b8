package physics

import (
	"slices"
	"sync"
	"testing"
)

// broadFrame is the broad phase's input in one step of a running scene.
type broadFrame struct {
	boxes  []aabb
	active []bool
}

// pileFrames steps the pile scene (pile-1000 or pile-4000 of the shared
// benchmark scenes, by nx, ny, nz and inner) n times and records the broad
// phase's input of each step. Sleeping is off: pile-4000 falls asleep
// at about 7.5 s, and a sleeping pile costs the broad phase nothing; the
// benchmarks time the pile awake, as it is while it settles or while
// something keeps it awake.
func pileFrames(tb testing.TB, nx, ny, nz int, inner float32, n int) []broadFrame {
	cfg := DefaultConfig()
	cfg.NoSleep = true
	tw := newTestWorld(tb, cfg)
	pile(tw, nx, ny, nz, inner, false)
	frames := make([]broadFrame, n)
	for k := range frames {
		tw.s.Step()
		m := tw.s.stats.Bodies
		frames[k] = broadFrame{slices.Clone(tw.s.sc.boxes[:m]), slices.Clone(tw.s.sc.active[:m])}
	}
	return frames
}

// The recorded piles: the scene's 600 steps and 20 more (with -short, as
// in make test's one run of each benchmark, 20 and 20), made once for every
// benchmark that wants them; run is the first part, settled the 20 steps
// after it.
var (
	pile1000Frames = onceFrames(10, 10, 10, 8)
	pile4000Frames = onceFrames(20, 10, 20, 16)
)

// onceFrames returns a function that records the steps of a pile on its
// first call and returns them on every call.
func onceFrames(nx, ny, nz int, inner float32) func(testing.TB) (run, settled []broadFrame) {
	var once sync.Once
	var frames []broadFrame
	return func(tb testing.TB) ([]broadFrame, []broadFrame) {
		once.Do(func() {
			n := 600
			if testing.Short() {
				n = 20
			}
			frames = pileFrames(tb, nx, ny, nz, inner, n+20)
		})
		n := len(frames) - 20
		return frames[:n], frames[n:]
	}
}

// BenchmarkPairsPile4000 times the broad phase alone on the 4,000 settled
// cubes of pile-4000, one op a step: it cycles through the 20 steps after
// the scene's 600 (it has landed: one contact island, still creeping), so
// each call starts from the previous step's state as it does in the step.
// "rows" is the same without the pair cache.
func BenchmarkPairsPile4000(b *testing.B) {
	_, frames := pile4000Frames(b)
	awake := 0
	for _, a := range frames[0].active {
		if a {
			awake++
		}
	}
	for _, rows := range []bool{false, true} {
		name := "cache"
		if rows {
			name = "rows"
		}
		b.Run(name, func(b *testing.B) {
			var bp broadphase
			call := func(f *broadFrame, out []pair) []pair {
				if rows {
					return bp.exactPairs(f.boxes, f.active, DefaultMaxPairs, out)
				}
				return bp.pairs(f.boxes, f.active, out)
			}
			var out []pair
			for k := range frames {
				out = call(&frames[k], out)
			}
			b.ReportAllocs()
			cpu := startThreadCPU()
			k := 0
			for b.Loop() {
				out = call(&frames[k], out)
				if k++; k == len(frames) {
					k = 0
				}
			}
			cpu.report(b)
			b.ReportMetric(float64(len(out)), "pairs")
			b.ReportMetric(float64(awake), "awake")
		})
	}
}

// BenchmarkPairsPileRun times the broad phase over the 600 steps of
// pile-1000 and pile-4000 (falling, landing, settling), one op a run of
// 600 calls from a fresh broad phase; "rows" is the same without the pair
// cache.
func BenchmarkPairsPileRun(b *testing.B) {
	for _, tc := range []struct {
		name   string
		frames func(testing.TB) ([]broadFrame, []broadFrame)
	}{
		{"pile-1000", pile1000Frames},
		{"pile-4000", pile4000Frames},
	} {
		for _, rows := range []bool{false, true} {
			name := tc.name
			if rows {
				name += "-rows"
			}
			b.Run(name, func(b *testing.B) {
				frames, _ := tc.frames(b)
				var out []pair
				cpu := startThreadCPU()
				for b.Loop() {
					var bp broadphase
					for k := range frames {
						f := &frames[k]
						if rows {
							out = bp.exactPairs(f.boxes, f.active, DefaultMaxPairs, out)
						} else {
							out = bp.pairs(f.boxes, f.active, out)
						}
					}
				}
				cpu.report(b)
			})
		}
	}
}
