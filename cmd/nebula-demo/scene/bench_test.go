package scene

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/replay"
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

// recordMinute records a headless minute (3,600 ticks at 60 Hz) of the
// scene at 1,000 cubes, planner jobs and input script included.
func recordMinute(b *testing.B) []byte {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	Setup(e, 1000)
	e.SetInputScript(Script)
	var buf bytes.Buffer
	rec, err := replay.NewRecorder(&buf, replay.Header{TickRate: 60, Seed: 1, HashEvery: replay.DefaultHashEvery, Scene: ID, Schema: e.World.Schema()})
	if err != nil {
		b.Fatal(err)
	}
	e.AddTickHook(rec)
	if _, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 144, Ticks: 3600}); err != nil {
		b.Fatal(err)
	}
	if err := rec.Close(e.World.Hash()); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkVerifyMinute measures headless verification of a recorded
// one-minute session at 1,000 cubes (setting the scene up included), as a
// multiple of real time: x_realtime = 60 s / time per verification.
func BenchmarkVerifyMinute(b *testing.B) {
	data := recordMinute(b)
	r, err := replay.Open(data)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		e, err := engine.New(engine.DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		Setup(e, 1000)
		if _, err := replay.Verify(e, r); err != nil {
			b.Fatal(err)
		}
	}
	perRun := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(60/perRun, "x_realtime")
	b.ReportMetric(float64(len(data)), "file_bytes")
}

// BenchmarkTickRecording compares a tick of the scene at 1,000 cubes with
// and without the recorder (writing to a file): the difference is the
// recording's overhead, also reported as a share of a 60 Hz tick.
func BenchmarkTickRecording(b *testing.B) {
	for _, recording := range []bool{false, true} {
		name := "plain"
		if recording {
			name = "recording"
		}
		b.Run(name, func(b *testing.B) {
			e, err := engine.New(engine.DefaultConfig())
			if err != nil {
				b.Fatal(err)
			}
			Setup(e, 1000)
			e.SetInputScript(Script)
			if recording {
				f, err := os.Create(filepath.Join(b.TempDir(), "r.rep"))
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				rec, err := replay.NewRecorder(f, replay.Header{TickRate: 60, Seed: 1, HashEvery: replay.DefaultHashEvery, Scene: ID, Schema: e.World.Schema()})
				if err != nil {
					b.Fatal(err)
				}
				e.AddTickHook(rec)
			}
			// Warm up past the first planner jobs, so the steady state is
			// measured.
			for range 600 {
				e.StepTick(time.Duration(e.World.Tick()+1) * time.Second / 60)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				e.StepTick(time.Duration(e.World.Tick()+1) * time.Second / 60)
			}
			if err := e.Err(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/tick")
		})
	}
}

// BenchmarkRollback measures a rollback of the scene at 1,000 cubes: go
// back to a state saved at tick rollbackFrom and run rollbackTicks ticks
// again, as rollback netcode does when a late input arrives. loadstate
// loads an engine.State (SaveState), restore the portable snapshot
// (Snapshot/Restore), for comparison. Both first check that the
// re-simulated ticks end with the uninterrupted run's hash.
func BenchmarkRollback(b *testing.B) {
	const (
		rollbackFrom  = 120 // warm: past the first planner job (tick 90)
		rollbackTicks = 8
	)
	newScene := func(ticks uint64) *engine.Engine {
		e, err := engine.New(engine.DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		Setup(e, 1000)
		e.SetInputScript(Script)
		for range ticks {
			e.StepTick(time.Duration(e.World.Tick()+1) * time.Second / 60)
		}
		if err := e.Err(); err != nil {
			b.Fatal(err)
		}
		return e
	}
	want := newScene(rollbackFrom + rollbackTicks).World.Hash()
	replay := func(e *engine.Engine) {
		for range rollbackTicks {
			e.StepTick(time.Duration(e.World.Tick()+1) * time.Second / 60)
		}
	}
	check := func(b *testing.B, e *engine.Engine, when string) {
		b.Helper()
		if err := e.Err(); err != nil {
			b.Fatal(err)
		}
		if tick, hash := e.World.Tick(), e.World.Hash(); tick != rollbackFrom+rollbackTicks || hash != want {
			b.Fatalf("%s: tick %d hash %016x, want the uninterrupted run's tick %d hash %016x",
				when, tick, hash, rollbackFrom+rollbackTicks, want)
		}
	}

	b.Run("loadstate", func(b *testing.B) {
		e := newScene(rollbackFrom)
		var st engine.State
		e.SaveState(&st)
		replay(e) // the run goes on; then a late input says to go back
		for k := range 2 {
			e.LoadState(&st)
			replay(e)
			check(b, e, fmt.Sprintf("LoadState and %d ticks, #%d", rollbackTicks, k+1))
		}
		b.ReportAllocs()
		for b.Loop() {
			e.LoadState(&st)
			replay(e)
		}
		check(b, e, "after the benchmark")
	})
	b.Run("restore", func(b *testing.B) {
		e := newScene(rollbackFrom)
		snap := e.Snapshot()
		replay(e)
		for k := range 2 {
			if err := e.Restore(snap); err != nil {
				b.Fatal(err)
			}
			replay(e)
			check(b, e, fmt.Sprintf("Restore and %d ticks, #%d", rollbackTicks, k+1))
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := e.Restore(snap); err != nil {
				b.Fatal(err)
			}
			replay(e)
		}
		check(b, e, "after the benchmark")
	})
}

// BenchmarkTouch measures the touch system on 1,000 cubes with 1 and with
// 64 player cubes.
func BenchmarkTouch(b *testing.B) {
	for _, n := range []int{1, 64} {
		b.Run(fmt.Sprintf("players=%d", n), func(b *testing.B) {
			e, err := engine.New(engine.DefaultConfig())
			if err != nil {
				b.Fatal(err)
			}
			s := Setup(e, 1000)
			e.AddTickHook(&crowdHook{t: b, n: n})
			stepTo(b, e, 120, nil)
			ctx := &engine.FixedContext{World: e.World, Players: e.World.Players(), DT: 1.0 / 60, Tick: 121}
			b.ReportAllocs()
			for b.Loop() {
				s.touch(ctx)
			}
		})
	}
}
