package physics

import (
	"testing"
	"time"
)

// benchPeerScene measures the mean step of a scene that build makes in a new
// Space with cfg, over runs of cycle steps from the start (a new Space
// each cycle, built outside the timer), as benchPile does for the shared
// piles: ns/op is the wall-clock time of a step, cpu-ms/step the process's
// CPU time per step (which other work on a shared machine does not
// inflate), awake and constraints the last step's.
func benchPeerScene(b *testing.B, cfg Config, cycle int, build func(tw *testWorld)) {
	b.ReportAllocs()
	var tw *testWorld
	n := 0
	var cpu time.Duration
	b.StopTimer()
	for range b.N {
		if n%cycle == 0 {
			if tw != nil {
				b.StopTimer()
				cpu += cpuTime()
			}
			tw = newTestWorld(b, cfg)
			build(tw)
			cpu -= cpuTime()
			b.StartTimer()
		}
		tw.s.Step()
		n++
	}
	b.StopTimer()
	cpu += cpuTime()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/step")
	st := tw.s.Stats()
	b.ReportMetric(float64(st.Awake), "awake")
	b.ReportMetric(float64(st.Constraints), "constraints")
}

// benchPeer measures sc's step over the peer's own run length.
func benchPeer(b *testing.B, sc peerScene) {
	benchPeerScene(b, sc.config(), sc.steps, func(tw *testWorld) { sc.build(tw) })
}

// BenchmarkLargePyramid is Box3D's large_pyramid benchmark
// (github.com/erincatto/box3d, benchmark/main.c and shared/benchmarks.c):
// baseCount 100, 5,050 cubes, sleeping off, runs of 200 steps.
func BenchmarkLargePyramid(b *testing.B) { benchPeer(b, peerLargePyramid(100)) }

// BenchmarkLargePyramid20 is the same at Box3D's debug size (210 cubes),
// the scene of TestBox3DLargePyramidStands.
func BenchmarkLargePyramid20(b *testing.B) { benchPeer(b, peerLargePyramid(20)) }

// BenchmarkCardHouse is Box3D's CardHouse sample: 40 cards, 600 steps.
func BenchmarkCardHouse(b *testing.B) { benchPeer(b, peerCardHouse()) }

// BenchmarkBoxStack40 is Box3D's BoxStack sample: 40 cubes dropped in a
// column, 600 steps.
func BenchmarkBoxStack40(b *testing.B) { benchPeer(b, peerBoxStack(40)) }

// BenchmarkFallingBoxes is the scene of TestBox2DDeterminismFallingBoxes:
// 80 cubes, 500 steps.
func BenchmarkFallingBoxes(b *testing.B) { benchPeer(b, peerFallingBoxes()) }

// BenchmarkTumbler is Box2D's tumbler benchmark (shared/benchmarks.c,
// 750 steps) with the kinematic tumbler of peerTumbler: 20×20×5 = 2,000 cubes
// (Box2D's release size is 45×45 = 2,025 cubes in 2D).
func BenchmarkTumbler(b *testing.B) {
	benchPeerScene(b, DefaultConfig(), 750, func(tw *testWorld) {
		if _, err := buildPeerTumbler(tw, 20, 5); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkJengaStack is Box3D's JengaStack sample: 60 bars, 600 steps.
func BenchmarkJengaStack(b *testing.B) { benchPeer(b, peerJengaStack()) }

// BenchmarkDominoes is Box3D's Dominoes sample at its debug build's two
// rings (362 dominoes; 30 rings in its release build), 1,800 steps.
func BenchmarkDominoes(b *testing.B) { benchPeer(b, peerDominoes(2)) }
