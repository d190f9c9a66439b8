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
// benchmark scenes, by nx, ny, nz and inner) for settle steps, then records
// the broad phase's input of the next n steps.
func pileFrames(tb testing.TB, nx, ny, nz int, inner float32, settle, n int) []broadFrame {
	tw := newTestWorld(tb, DefaultConfig())
	pile(tw, nx, ny, nz, inner, false)
	tw.steps(settle)
	frames := make([]broadFrame, n)
	for k := range frames {
		tw.s.Step()
		m := tw.s.stats.Bodies
		frames[k] = broadFrame{slices.Clone(tw.s.sc.boxes[:m]), slices.Clone(tw.s.sc.active[:m])}
	}
	return frames
}

// pile4000Frames is 20 steps of pile-4000 after its 600 (the scene's
// length, when it has landed: one contact island, still creeping), made
// once for every benchmark that wants them.
var (
	pile4000Once sync.Once
	pile4000     []broadFrame
)

func pile4000Frames(tb testing.TB) []broadFrame {
	pile4000Once.Do(func() { pile4000 = pileFrames(tb, 20, 10, 20, 16, 600, 20) })
	return pile4000
}

// BenchmarkPairsPile4000 times the broad phase alone on the 4,000 settled
// cubes of pile-4000, one op a step: it cycles through 20 consecutive
// steps' boxes, so the sort starts from the previous step's order as it
// does in the step.
func BenchmarkPairsPile4000(b *testing.B) {
	frames := pile4000Frames(b)
	var bp broadphase
	var out []pair
	for _, f := range frames {
		out = bp.pairs(f.boxes, f.active, out)
	}
	awake := 0
	for _, a := range frames[0].active {
		if a {
			awake++
		}
	}
	b.ReportAllocs()
	cpu := startThreadCPU()
	k := 0
	for b.Loop() {
		f := &frames[k]
		out = bp.pairs(f.boxes, f.active, out)
		if k++; k == len(frames) {
			k = 0
		}
	}
	cpu.report(b)
	b.ReportMetric(float64(len(out)), "pairs")
	b.ReportMetric(float64(awake), "awake")
}
