package engine_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"fmt"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/detmath"
	"github.com/nebulaengine/nebula/engine/input"
)

// A minimal game: one cube that the arrow keys move, simulated in a system
// of the scripts stage that reads only the tick's input, the world and the
// fixed step. Headless, the keys come from an input script keyed by tick
// (Right held for ticks 1 to 30, Up for ticks 31 to 45, in the tick's own
// due time), so the run is a pure function of its code: the same position
// and the same state hash on every machine and at every display rate.
func Example() {
	e, err := engine.New(engine.DefaultConfig()) // 60 Hz ticks, seed 1
	if err != nil {
		panic(err)
	}
	cube := e.World.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), engine.Interpolate)

	const speed = 6 // units per second
	e.AddSystem(engine.StageScripts, "move", func(c *engine.FixedContext) {
		var v mgl32.Vec3
		if c.Input.Down(input.KeyArrowRight) {
			v[0] += speed
		}
		if c.Input.Down(input.KeyArrowUp) {
			v[1] += speed
		}
		t := c.World.Transform(cube)
		t.Pos = detmath.AddScaled(t.Pos, v, c.DT) // pos + v*dt, never fused
		c.World.SetTransform(cube, t)
		c.World.SetDrawVelocity(cube, v, mgl32.Vec3{})
	})

	e.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		key := func(kind input.EventKind, k input.Key) {
			in.Push(input.Event{Time: due, Kind: kind, Key: k})
		}
		switch tick {
		case 1:
			key(input.KeyDown, input.KeyArrowRight)
		case 31:
			key(input.KeyUp, input.KeyArrowRight)
			key(input.KeyDown, input.KeyArrowUp)
		case 46:
			key(input.KeyUp, input.KeyArrowUp)
		}
	})

	res, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 144, Ticks: 60})
	if err != nil {
		panic(err)
	}
	p := e.World.Transform(cube).Pos
	fmt.Printf("tick %d: cube at (%.2f, %.2f)\n", res.Ticks, p[0], p[1])
	fmt.Printf("state-hash %d %016x\n", e.World.Tick(), e.World.Hash())
	// Output:
	// tick 60: cube at (3.00, 1.50)
	// state-hash 60 f7e6782848b50ab0
}

// A body that falls under gravity, run headless for one
// simulated second on a 144 Hz display (the first frame only starts the
// clock, so 145 frames). Semi-implicit Euler lands it at 10 - 9.81*61/120.
func Example_gravity() {
	e, err := engine.New(engine.DefaultConfig()) // 60 Hz ticks
	if err != nil {
		panic(err)
	}
	ball := e.World.Spawn(geom.NewTransform(mgl32.Vec3{0, 10, 0}), engine.Interpolate)

	e.AddSystem(engine.StagePhysics, "gravity", func(c *engine.FixedContext) {
		v, _ := c.World.DrawVelocity(ball)
		v[1] = detmath.MulAdd(-9.81, c.DT, v[1]) // rounded, never fused
		t := c.World.Transform(ball)
		t.Pos = detmath.AddScaled(t.Pos, v, c.DT)
		c.World.SetTransform(ball, t)
		c.World.SetDrawVelocity(ball, v, mgl32.Vec3{})
	})

	res, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 144, Ticks: 60})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d ticks in %d frames, ball at y = %.2f\n", res.Ticks, res.Frames, e.World.Transform(ball).Pos[1])
	// Output: 60 ticks in 145 frames, ball at y = 5.01
}
