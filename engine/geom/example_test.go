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
