package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/rollback"
	"github.com/nebulaengine/nebula/timing"
)

// flipSource confirms the demo's ticks lag ticks late: players 0 (local)
// and 1 join at tick 1, and player 1 turns the right arrow on or off
// every tick, so that each new confirmation contradicts the prediction
// (its last input) and every frame rolls back the whole lag.
type flipSource struct {
	now, lag uint64
	on, off  input.Sample
}

func newFlipSource(lag uint64) *flipSource {
	var in input.Queue
	in.Push(input.Event{Kind: input.KeyDown, Key: input.KeyArrowRight})
	on := in.Advance(0)
	return &flipSource{lag: lag, on: on}
}

func (s *flipSource) Sync() bool { return false }

func (s *flipSource) Confirmed(tick uint64, p *engine.Players) bool {
	if tick+s.lag > s.now {
		return false
	}
	if tick == 1 {
		p.Join(0)
		p.Join(1)
	}
	in := s.off
	if tick%2 == 1 {
		in = s.on
	}
	p.SetInput(1, in)
	return true
}

func (s *flipSource) Local(uint64) (engine.PlayerID, input.Sample, bool) {
	return 0, s.off, true
}

// BenchmarkRollback measures what a rollback costs a frame on the demo
// scene: loading the state of 8 ticks ago and simulating those 8 ticks
// again (the -predict 8 window, all of it mispredicted), then the frame's
// own new tick, at 1,000 and 10,000 cubes. It reports the rollback's time
// (load and re-simulation, timed by the session) as p50-ms and p99-ms,
// and the whole frame's (rollback and the new tick) as frame-p99-ms.
// Targets: rollback p99 <= 2 ms at 1,000 cubes, <= 8 ms at 10,000.
//
//	go test -run '^$' -bench BenchmarkRollback -benchtime 600x ./cmd/nebula-demo/
func BenchmarkRollback(b *testing.B) {
	for _, cubes := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("cubes=%d", cubes), func(b *testing.B) {
			benchRollback(b, func(e *engine.Engine) error { scene.Setup(e, cubes); return nil })
		})
	}
}

// BenchmarkRollbackPhysics is BenchmarkRollback on the physics mode
// (-physics) at 250 and 1,000 rigid bodies: every frame loads the state of
// 8 ticks ago (bodies, contact cache and all) and steps the physics 8
// times again. With -benchtime 600x the frames cover the whole fall,
// landing and settling of the pile. Target: rollback p99 within a 144 Hz
// frame (6.9 ms) at 250 bodies.
//
//	go test -run '^$' -bench BenchmarkRollbackPhysics -benchtime 600x ./cmd/nebula-demo/
func BenchmarkRollbackPhysics(b *testing.B) {
	for _, bodies := range []int{250, 1000} {
		b.Run(fmt.Sprintf("bodies=%d", bodies), func(b *testing.B) {
			benchRollback(b, func(e *engine.Engine) error {
				_, err := scene.SetupPhysics(e, bodies)
				return err
			})
		})
	}
}

// benchRollback measures the rollbacks of a game that setup builds.
func benchRollback(b *testing.B, setup func(*engine.Engine) error) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	if err := setup(e); err != nil {
		b.Fatal(err)
	}
	const depth = 8
	src := newFlipSource(depth)
	cfg := rollback.DefaultConfig()
	cfg.MaxPrediction = depth
	cfg.HashEvery = 60 // as a netplay client
	r, err := rollback.New(e, src, cfg)
	if err != nil {
		b.Fatal(err)
	}
	step := func() {
		src.now++
		r.StartFrame()
		e.StepTick(engine.TickTime(e.World.Tick()+1, 60))
	}
	// Fill the window first: from then on, every frame rolls back
	// 8 ticks.
	for range 2 * depth {
		step()
	}
	before := r.Stats()
	var frames timing.Durations
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		step()
		frames.Add(time.Since(start))
	}
	b.StopTimer()
	if err := e.Err(); err != nil {
		b.Fatal(err)
	}
	st := r.Stats()
	rollbacks := st.Rollbacks - before.Rollbacks
	if rollbacks != uint64(b.N) || st.Resimulated-before.Resimulated != uint64(b.N)*depth {
		b.Fatalf("%d rollbacks re-simulating %d ticks in %d frames, want one of %d ticks a frame", rollbacks, st.Resimulated-before.Resimulated, b.N, depth)
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(st.ResimTime.Percentile(0.5)), "p50-ms")
	b.ReportMetric(ms(st.ResimTime.Percentile(0.99)), "p99-ms")
	b.ReportMetric(ms(frames.Percentile(0.99)), "frame-p99-ms")
}
