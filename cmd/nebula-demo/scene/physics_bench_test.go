package scene

import (
	"slices"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
)

// BenchmarkPhysicsTick measures the physics mode's tick at 1,000 bodies
// over its first 10 s (600 ticks: the lattice falls, lands, piles up and
// settles), with the input script firing: the mean, p50 and p99 of a
// tick, and the bytes of a snapshot per body once the pile has settled.
//
//	go test -run '^$' -bench BenchmarkPhysicsTick -benchtime 1x ./cmd/nebula-demo/scene
func BenchmarkPhysicsTick(b *testing.B) {
	const ticks = 600
	var all []time.Duration
	var snapshot, bodies int
	for range b.N {
		e, err := engine.New(engine.DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		s, err := SetupPhysics(e, 1000)
		if err != nil {
			b.Fatal(err)
		}
		e.SetInputScript(PhysicsPlayerScript(0))
		for t := uint64(1); t <= ticks; t++ {
			start := time.Now()
			e.StepTick(engine.TickTime(t, 60))
			all = append(all, time.Since(start))
		}
		if err := e.Err(); err != nil {
			b.Fatal(err)
		}
		snapshot, bodies = len(e.Snapshot()), s.Space.Bodies().Len()
	}
	slices.Sort(all)
	var sum time.Duration
	for _, d := range all {
		sum += d
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(sum/time.Duration(len(all))), "tick-mean-ms")
	b.ReportMetric(ms(all[len(all)/2]), "tick-p50-ms")
	b.ReportMetric(ms(all[len(all)*99/100]), "tick-p99-ms")
	b.ReportMetric(float64(snapshot)/float64(bodies), "snapshot-B/body")
}
