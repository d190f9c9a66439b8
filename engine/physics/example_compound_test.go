package physics_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/physics"
)

// A dumbbell: two balls and a bar in one body. Its entity's position is
// the first ball's centre; it weighs, falls and turns about its centre of
// mass, between the balls.
func ExampleSpace_AddCompound() {
	w := engine.NewWorld(1)
	space, err := physics.New(w, physics.DefaultConfig())
	if err != nil {
		panic(err)
	}
	quarterZ := mgl32.Quat{W: 0.70710677, V: mgl32.Vec3{0, 0, 0.70710677}} // the bar's axis (local Y) along X
	id, err := space.AddCompound([]physics.Part{
		{Shape: physics.Shape{Kind: physics.Sphere, Radius: 0.25}},
		{Shape: physics.Shape{Kind: physics.Sphere, Radius: 0.25}, Pos: mgl32.Vec3{1, 0, 0}},
		{Shape: physics.Shape{Kind: physics.Capsule, Radius: 0.05, HalfHeight: 0.4}, Pos: mgl32.Vec3{0.5, 0, 0}, Rot: quarterZ},
	})
	if err != nil {
		panic(err)
	}
	floor := w.Spawn(geom.NewTransform(mgl32.Vec3{0, -0.5, 0}), engine.Interpolate)
	bar := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), engine.Interpolate)
	must(space.AddBody(floor, physics.NewBodyDef(physics.Static,
		physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{10, 0.5, 10}})))
	must(space.AddBody(bar, physics.NewBodyDef(physics.Dynamic, physics.CompoundShape(id))))

	b, _ := space.Body(bar)
	com, _ := space.CenterOfMass(bar)
	fmt.Printf("mass %.3f kg, centre of mass %.2f\n", b.Mass, com)
	for range 120 {
		space.Step()
	}
	p := w.Bodies().Pos[bar.Index()]
	fmt.Printf("at rest on its balls: y = %.2f, asleep: %v\n", p[1], space.Asleep(bar))
	// Output:
	// mass 0.138 kg, centre of mass [0.50 1.00 0.00]
	// at rest on its balls: y = 0.25, asleep: true
}
