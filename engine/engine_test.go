package engine

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"bytes"
	"context"
	"runtime/pprof"
	"runtime/trace"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/google/pprof/profile"
)

// newTestEngine returns an engine with a few moving entities and one
// system in each schedule.
func newTestEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		id := e.World.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0, 0}), Interpolate)
		e.World.SetDrawVelocity(id, mgl32.Vec3{float32(i), 1, 0}, mgl32.Vec3{0, 1, 0})
	}
	e.AddSystem(StageScripts, "move", func(c *FixedContext) {})
	e.AddUpdate("camera", func(c *FrameContext) {})
	e.AddRender("count", func(c *FrameContext) {})
	return e
}

// Frames cost no allocation, with the phase clock on, while runtime/trace
// records (regions) as well as when it does not.
func TestFrameDoesNotAllocate(t *testing.T) {
	e := newTestEngine(t)
	var now time.Duration
	e.SetPhaseClock(func() time.Duration { return now })
	frame := func() {
		now += 7 * time.Millisecond
		e.Frame(now)
	}
	for range 10 {
		frame()
	}
	if a := testing.AllocsPerRun(200, frame); a != 0 {
		t.Errorf("Frame allocates %v times per frame, want 0", a)
	}

	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	defer trace.Stop()
	ctx, task := trace.NewTask(context.Background(), "run")
	defer task.End()
	e.SetContext(ctx)
	if a := testing.AllocsPerRun(200, frame); a != 0 {
		t.Errorf("while tracing, Frame allocates %v times per frame, want 0", a)
	}
}

// The phase clock splits each frame's time between the phases.
func TestPhaseTimes(t *testing.T) {
	e := newTestEngine(t)
	var now time.Duration
	e.SetPhaseClock(func() time.Duration { return now })
	// Each system advances the invented clock by a known amount.
	e.AddSystem(StageScripts, "slow-fixed", func(*FixedContext) { now += 2 * time.Millisecond })
	e.AddUpdate("slow-update", func(*FrameContext) { now += 3 * time.Millisecond })
	e.AddRender("slow-render", func(*FrameContext) { now += 5 * time.Millisecond })

	e.Frame(0) // the first frame sets the time reference: no tick
	now = 50 * time.Millisecond
	start := now
	if n := e.Frame(now); n != 3 {
		t.Fatalf("Frame ran %d ticks at 50 ms, want 3", n)
	}
	want := PhaseTimes{Fixed: 6 * time.Millisecond, Update: 3 * time.Millisecond, Render: 5 * time.Millisecond}
	if got := e.PhaseTimes(); got != want {
		t.Errorf("PhaseTimes() = %+v, want %+v", got, want)
	}
	if now-start != 14*time.Millisecond {
		t.Errorf("the systems advanced the clock by %v, want 14ms", now-start)
	}

	e.SetPhaseClock(nil)
	e.Frame(now + 20*time.Millisecond)
	if got := e.PhaseTimes(); got != (PhaseTimes{}) {
		t.Errorf("without a phase clock PhaseTimes() = %+v, want zero", got)
	}
}

// spin burns about d of CPU time.
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// A CPU profile of frames whose systems work files the samples under the
// phase and system labels of the system that was running. The profiler
// samples CPU time, which a loaded machine gives the test less of than
// the wall time spin counts: frames are profiled in rounds of 150 until
// every label has its 5 samples (about 30 a round on an idle machine), for
// up to a minute.
func TestProfileLabelsEveryPhase(t *testing.T) {
	e := newTestEngine(t)
	e.AddSystem(StageScripts, "busy-fixed", func(*FixedContext) { spin(2 * time.Millisecond) })
	e.AddUpdate("busy-update", func(*FrameContext) { spin(2 * time.Millisecond) })
	e.AddRender("busy-render", func(*FrameContext) { spin(2 * time.Millisecond) })
	wants := []string{"fixed/busy-fixed", "update/busy-update", "render/busy-render"}
	got := map[string]int{}
	enough := func() bool {
		for _, want := range wants {
			if got[want] < 5 {
				return false
			}
		}
		return true
	}
	frame := 0
	deadline := time.Now().Add(time.Minute)
	for round := 1; ; round++ {
		var buf bytes.Buffer
		if err := pprof.StartCPUProfile(&buf); err != nil {
			t.Skipf("CPU profiling unavailable: %v", err)
		}
		for range 150 { // a tick every frame: 150 x 6 ms of work
			e.Frame(time.Duration(frame) * time.Second / 60)
			frame++
		}
		pprof.StopCPUProfile()
		p, err := profile.Parse(&buf)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range p.Sample {
			if ph, sys := s.Label[LabelPhase], s.Label[LabelSystem]; len(ph) == 1 && len(sys) == 1 {
				got[ph[0]+"/"+sys[0]] += int(s.Value[0])
			}
		}
		t.Logf("samples by phase/system after %d rounds: %v", round, got)
		if enough() || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range wants {
		if got[want] < 5 {
			t.Errorf("%d samples labelled %s in a minute of profiling, want at least 5", got[want], want)
		}
	}
}
