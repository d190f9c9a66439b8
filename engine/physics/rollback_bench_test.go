package physics

import (
	"slices"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
)

// benchRollback measures what a rollback costs with physics: LoadState of
// a state saved mid-landing, then 8 steps; it reports the p50 and p99 of
// that, in ms.
func benchRollback(b *testing.B, nx, ny, nz int, inner float32) {
	b.ReportAllocs()
	tw := newTestWorld(b, DefaultConfig())
	pile(tw, nx, ny, nz, inner, false)
	tw.steps(120)
	var st engine.State
	tw.e.SaveState(&st)
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		t0 := time.Now()
		tw.e.LoadState(&st)
		tw.steps(8)
		d = append(d, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
	slices.Sort(d)
	q := func(p float64) float64 { return float64(d[min(len(d)-1, int(p*float64(len(d))))].Nanoseconds()) / 1e6 }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

func BenchmarkRollback250(b *testing.B)  { benchRollback(b, 5, 10, 5, 4) }
func BenchmarkRollback1000(b *testing.B) { benchRollback(b, 10, 10, 10, 8) }

// TestRollbackNoAllocs: once its buffers have grown, a rollback (LoadState
// of a state with a full contact cache, then steps) allocates nothing.
func TestRollbackNoAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocations are counted the same on every architecture; -short (scripts/crossarch.sh under qemu) leaves it out")
	}
	cfg := DefaultConfig()
	cfg.NoSleep = true
	tw := newTestWorld(t, cfg)
	pile(tw, 4, 3, 4, 4, false)
	tw.steps(100)
	var st engine.State
	tw.e.SaveState(&st)
	tw.steps(4)
	tw.e.LoadState(&st)
	tw.steps(4)
	if a := testing.AllocsPerRun(20, func() {
		tw.e.LoadState(&st)
		tw.steps(4)
	}); a != 0 {
		t.Errorf("%v allocations per rollback", a)
	}
}
