package engine_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"fmt"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// The loop, driven by hand: each Frame gets the time it starts at (here
// invented; the runners read a clock) and runs the tick's stages
// once per whole tick that time owes, then the Render systems once with
// alpha, the fraction of a tick left over. At 60 Hz a tick is 16.67 ms: the
// first frame only starts the clock, the 10 ms carried plus a 40 ms frame
// are exactly three ticks, and a 400 ms stall is clamped to 250 ms (150 ms
// dropped) and capped at 5 ticks (10 more dropped).
func ExampleEngine_Frame() {
	e, err := engine.New(engine.DefaultConfig()) // 60 Hz, 250 ms clamp, 5 steps per frame
	if err != nil {
		panic(err)
	}
	e.AddSystem(engine.StageScripts, "simulate", func(c *engine.FixedContext) {}) // once per tick
	e.AddRender("draw", func(c *engine.FrameContext) {                            // once per frame
		s := c.Stats
		fmt.Printf("frame %d at %3v ms: %d steps, tick %2d, alpha %.2f\n", s.Frames, s.Time.Milliseconds(), s.Steps, s.Tick, c.Alpha)
	})
	for _, ms := range []int{0, 10, 50, 57, 457} {
		e.Frame(time.Duration(ms) * time.Millisecond)
	}
	s := e.Loop.Stats()
	fmt.Printf("clamped %v, capped %d ticks\n", s.ClampedTime, s.CappedTicks)
	// Output:
	// frame 1 at   0 ms: 0 steps, tick  0, alpha 0.00
	// frame 2 at  10 ms: 0 steps, tick  0, alpha 0.60
	// frame 3 at  50 ms: 3 steps, tick  3, alpha 0.00
	// frame 4 at  57 ms: 0 steps, tick  3, alpha 0.42
	// frame 5 at 457 ms: 5 steps, tick  8, alpha 0.42
	// clamped 150ms, capped 10 ticks
}

// Interpolation draws every entity between its state before the last tick
// and after it, alpha of the way; a teleported entity is drawn at its new
// place at once, never in between.
func ExampleWorld_Interpolate() {
	w := engine.NewWorld(1)
	walker := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), engine.Interpolate)
	jumper := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), engine.Interpolate)

	w.BeginTick(1) // saves the previous state; the engine does this before every tick
	w.SetTransform(walker, geom.NewTransform(mgl32.Vec3{2, 0, 0}))
	w.Teleport(jumper, geom.NewTransform(mgl32.Vec3{2, 0, 0}))

	var buf engine.RenderBuffer
	cfg := engine.DefaultInterpolationConfig()
	for _, alpha := range []float32{0, 0.25, 0.5, 0.75} {
		w.Interpolate(alpha, 1.0/60, cfg, &buf)
		fmt.Printf("alpha %.2f: walker at x = %.1f, jumper at x = %.1f (%d snap)\n", alpha, buf.Instances[0].Pos[0], buf.Instances[1].Pos[0], buf.Snaps)
	}
	// Output:
	// alpha 0.00: walker at x = 0.0, jumper at x = 2.0 (1 snap)
	// alpha 0.25: walker at x = 0.5, jumper at x = 2.0 (1 snap)
	// alpha 0.50: walker at x = 1.0, jumper at x = 2.0 (1 snap)
	// alpha 0.75: walker at x = 1.5, jumper at x = 2.0 (1 snap)
}
