package physics_test

import (
	"fmt"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/physics"
)

// A ball dropped on a floor: the Space steps in the Physics stage, and a
// system in the Collision stage hears the landing.
func ExampleAttach() {
	eng, err := engine.New(engine.DefaultConfig())
	if err != nil {
		panic(err)
	}
	space, err := physics.Attach(eng, physics.DefaultConfig())
	if err != nil {
		panic(err)
	}
	floor := eng.World.Spawn(geom.NewTransform(mgl32.Vec3{0, -0.5, 0}), engine.Interpolate)
	ball := eng.World.Spawn(geom.NewTransform(mgl32.Vec3{0, 2, 0}), engine.Interpolate)
	must(space.AddBody(floor, physics.NewBodyDef(physics.Static,
		physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{10, 0.5, 10}})))
	must(space.AddBody(ball, physics.NewBodyDef(physics.Dynamic,
		physics.Shape{Kind: physics.Sphere, Radius: 0.5})))

	must(eng.AddSystem(engine.StageCollision, "landing", func(c *engine.FixedContext) {
		for _, ev := range space.Events() {
			if ev.Kind == physics.Begin && ev.B == ball {
				fmt.Printf("tick %d: the ball lands\n", c.Tick)
			}
		}
	}))
	for i := range 120 {
		eng.StepTick(time.Duration(i) * time.Second / 60)
	}
	fmt.Printf("ball at y = %.2f, asleep: %v\n", eng.World.Bodies().Pos[ball.Index()][1], space.Asleep(ball))
	// Output:
	// tick 34: the ball lands
	// ball at y = 0.50, asleep: true
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
