package shaders_test

import (
	"fmt"
	"io/fs"

	"github.com/nebulaengine/nebula/shaders"
)

// The files are at the root of FS; gfx.NewProgram takes FS and two of these
// paths.
func ExampleFS() {
	names, _ := fs.Glob(shaders.FS, "*")
	for _, name := range names {
		fmt.Println(name)
	}
	// Output:
	// cube.frag
	// cube.vert
	// cube_single.vert
	// depth.frag
	// instance.glsl
	// instance_gpu.glsl
	// lights.glsl
	// linebatch.frag
	// linebatch.vert
	// lines.frag
	// lines.vert
	// mesh.frag
	// mesh.vert
	// mesh_faceted.frag
	// mesh_plain.frag
	// overlay.frag
	// overlay.vert
	// shadow.glsl
	// sphere.frag
	// sphere.vert
	// sphere_depth.frag
	// sphere_hit.glsl
	// text.frag
	// text.vert
}
