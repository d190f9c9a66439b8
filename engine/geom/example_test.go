package geom_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/nebulaengine/nebula/engine/geom"
)

func ExampleNewTransform() {
	t := geom.NewTransform(mgl32.Vec3{1, 2, 3})
	fmt.Println(t.Pos, t.Rot.W, t.Scale)
	// Output: [1 2 3] 1 [1 1 1]
}

// A child's world transform is its parent's times its own; Relative goes
// back.
func ExampleTransform_Mul() {
	parent := geom.Transform{Pos: mgl32.Vec3{10, 0, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{2, 2, 2}}
	child := geom.NewTransform(mgl32.Vec3{0, 1, 0})
	world := parent.Mul(child)
	fmt.Println(world.Pos, world.Scale)
	fmt.Println(parent.Relative(world).Pos)
	// Output:
	// [10 2 0] [2 2 2]
	// [0 1 0]
}
