package engine_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/detmath"
)

// A minimal game: one body that falls under gravity, run headless for one
// simulated second on a 144 Hz display (the first frame only starts the
// clock, so 145 frames). Semi-implicit Euler lands it at 10 - 9.81*61/120.
func Example() {
	e, err := engine.New(engine.DefaultConfig()) // 60 Hz ticks
	if err != nil {
		panic(err)
	}
	ball := e.World.Spawn(engine.NewTransform(mgl32.Vec3{0, 10, 0}), engine.Interpolate)

	e.AddFixed("gravity", func(c *engine.FixedContext) {
		v, _ := c.World.Velocity(ball)
		v[1] = detmath.MulAdd(-9.81, c.DT, v[1]) // rounded, never fused
		t := c.World.Transform(ball)
		t.Pos = detmath.AddScaled(t.Pos, v, c.DT)
		c.World.SetTransform(ball, t)
		c.World.SetVelocity(ball, v, mgl32.Vec3{})
	})

	res, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 144, Ticks: 60})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d ticks in %d frames, ball at y = %.2f\n", res.Ticks, res.Frames, e.World.Transform(ball).Pos[1])
	// Output: 60 ticks in 145 frames, ball at y = 5.01
}
