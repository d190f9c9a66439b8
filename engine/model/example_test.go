package model_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/internal/modelgen"
)

// ExampleLoad loads a .glb file (here the project's own test arm, written
// to a temporary directory) and looks at what it holds.
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "model")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	data, err := modelgen.ArmGLB()
	if err != nil {
		panic(err)
	}
	path := filepath.Join(dir, "arm.glb")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		panic(err)
	}

	m, err := model.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d parts, %d nodes, %d palette matrices, rest weights %v\n", len(m.Parts), len(m.Nodes), len(m.Palette), m.RestWeights)
	for _, p := range m.Parts {
		fmt.Printf("%s: %d vertices, %d triangles, base colour %v, textured %t\n",
			p.Name, len(p.Positions), len(p.Indices)/3, p.Material.BaseColor, p.Material.Texture != nil)
	}
	bend := m.Clips[m.ClipIndex("bend")]
	fmt.Printf("clip %s: %g s, %d channels\n", bend.Name, bend.Duration, len(bend.Channels))

	_, err = model.Load(filepath.Join(dir, "missing.glb"))
	fmt.Println(strings.ReplaceAll(err.Error(), dir, "dir"))
	// Output:
	// 4 parts, 5 nodes, 4 palette matrices, rest weights [0.25]
	// mesh 1 (marker) primitive 0: 24 vertices, 12 triangles, base colour [1 1 1 1], textured true
	// mesh 0 (arm) primitive 0: 8 vertices, 12 triangles, base colour [1 0.25 0.25 1], textured false
	// mesh 0 (arm) primitive 1: 8 vertices, 12 triangles, base colour [0.25 1 0.25 1], textured false
	// mesh 0 (arm) primitive 2: 8 vertices, 12 triangles, base colour [0.25 0.25 1 1], textured false
	// clip bend: 2 s, 4 channels
	// model: open dir/missing.glb: no such file or directory
}

// ExampleSingle makes a game's own static mesh, a triangle, into a model
// the renderer can register: normals, joints and weights are filled in.
func ExampleSingle() {
	m := model.Single("triangle", model.Part{
		Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		Indices:   []uint32{0, 1, 2},
		Material:  model.Material{BaseColor: [4]float32{1, 0.5, 0, 1}},
	})
	p := m.Parts[0]
	fmt.Println(len(m.Palette), p.Normals[0], p.Joints[0], p.Weights[0], m.Validate())
	// Output:
	// 1 [0 0 1] [0 0 0 0] [1 0 0 0] <nil>
}
