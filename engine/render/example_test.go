package render_test

import (
	"fmt"

	"github.com/nebulaengine/nebula/engine/render"
)

// A Render system adds a pose for an animated instance and points the
// instance at it.
func ExamplePoses_Add() {
	var f render.Frame
	f.Instances = append(f.Instances, render.Instance{Mesh: render.MeshFirstGame})
	pose, bones, weights := f.Poses.Add(2, 1)
	for i := range bones {
		bones[i] = render.Bone{0: 1, 5: 1, 10: 1} // identity rows
	}
	weights[0] = 0.5
	f.Instances[0].Pose = pose
	fmt.Println(pose, f.Poses.Len(), len(f.Poses.Bones), f.Poses.Refs[0])
	// Output: 1 1 2 {0 0}
}
