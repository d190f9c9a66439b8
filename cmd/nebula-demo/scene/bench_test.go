package scene

import (
	"testing"

	"github.com/nebulaengine/nebula/engine"
)

// BenchmarkHeadless measures the headless demo at 1,000 cubes: ticks per
// second of wall time on a 144 Hz simulated display.
func BenchmarkHeadless(b *testing.B) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	Setup(e, 1000)
	e.SetInputScript(Script)
	cfg := engine.DefaultHeadlessConfig()
	cfg.Ticks = uint64(b.N)
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := engine.RunHeadless(e, cfg); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ticks/s")
}

// BenchmarkMove measures the scene's move system alone on 1,000 cubes.
func BenchmarkMove(b *testing.B) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	s := Setup(e, 1000)
	ctx := &engine.FixedContext{World: e.World, DT: 1.0 / 60, Tick: 1}
	b.ReportAllocs()
	for b.Loop() {
		s.move(ctx)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(e.World.Len()), "ns/entity")
}
