package model

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// The built-in shapes, as the renderer registers them under
// render.MeshCube, render.MeshSphere and render.MeshPlane: each is a Model
// of one white part (BaseColor 1, 1, 1, 1, no texture, no vertex colours)
// with normals and texture coordinates, one root node at rest at the
// origin and a palette of one identity joint that every vertex follows
// with weight 1. Each call builds new slices, so a caller may change what
// it gets.

// Cube returns the unit cube centred on the origin, corners at ±0.5: 24
// vertices, four per face so that each face has its own outward normal,
// and 12 triangles. Each face's texture coordinates run from 0 to 1 over
// it.
func Cube() *Model {
	// Each face: its normal n and two edge directions u, v with u × v = n,
	// so the corners -u-v, +u-v, +u+v, -u+v run counter-clockwise seen
	// from outside (gfx.CubeGeometry's faces, in the same order).
	faces := [6][3]mgl32.Vec3{
		{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},  // +X
		{{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}}, // -X
		{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}},  // +Y
		{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}, // -Y
		{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},  // +Z
		{{0, 0, -1}, {0, 1, 0}, {1, 0, 0}}, // -Z
	}
	var p Part
	for _, f := range faces {
		n, u, v := f[0], f[1], f[2]
		base := uint32(len(p.Positions))
		for _, c := range [4][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			p.Positions = append(p.Positions, n.Add(u.Mul(c[0])).Add(v.Mul(c[1])).Mul(0.5))
			p.Normals = append(p.Normals, n)
			// v grows downward in texture space (glTF's convention), so
			// the face's +v edge is the top of the image.
			p.UVs = append(p.UVs, mgl32.Vec2{(c[0] + 1) / 2, (1 - c[1]) / 2})
		}
		p.Indices = append(p.Indices, base, base+1, base+2, base, base+2, base+3)
	}
	return shape("cube", p)
}

// Sphere returns the sphere of diameter 1 centred on the origin, a UV
// sphere of segments slices around the Y axis and segments/2 stacks from
// pole to pole, with unit normals pointing out. Texture coordinates run
// from u 0 to 1 around the axis (starting at +X, turning toward -Z) and from v 0
// at the top (+Y) to 1 at the bottom. It panics if segments is below 4 or
// above 1024.
func Sphere(segments int) *Model {
	if segments < 4 || segments > 1024 {
		panic(fmt.Sprintf("model: Sphere(%d): segments must be in [4, 1024]", segments))
	}
	stacks := segments / 2
	var p Part
	// (stacks+1) rings of (segments+1) vertices: the last column repeats
	// the first with u = 1, so the texture does not wrap back across a
	// triangle.
	for i := 0; i <= stacks; i++ {
		theta := math.Pi * float64(i) / float64(stacks)
		for j := 0; j <= segments; j++ {
			phi := 2 * math.Pi * float64(j) / float64(segments)
			n := mgl32.Vec3{
				float32(math.Sin(theta) * math.Cos(phi)),
				float32(math.Cos(theta)),
				float32(-math.Sin(theta) * math.Sin(phi)),
			}
			p.Positions = append(p.Positions, n.Mul(0.5))
			p.Normals = append(p.Normals, n)
			p.UVs = append(p.UVs, mgl32.Vec2{float32(j) / float32(segments), float32(i) / float32(stacks)})
		}
	}
	row := uint32(segments + 1)
	for i := 0; i < stacks; i++ {
		for j := 0; j < segments; j++ {
			a := uint32(i)*row + uint32(j) // upper left, seen from outside
			b, c, d := a+row, a+row+1, a+1 // lower left, lower right, upper right
			// The quad's triangles, counter-clockwise seen from outside;
			// the one that would have no area at a pole is left out.
			if i > 0 {
				p.Indices = append(p.Indices, a, b, d)
			}
			if i < stacks-1 {
				p.Indices = append(p.Indices, d, b, c)
			}
		}
	}
	return shape("sphere", p)
}

// Plane returns the unit square in the XZ plane centred on the origin,
// corners at ±0.5, facing +Y: two triangles, counter-clockwise seen from
// above. Texture coordinates follow X and Z: (0, 0) at the corner
// (-0.5, 0, -0.5), (1, 1) at (0.5, 0, 0.5), so seen from above with -Z up
// the image is upright.
func Plane() *Model {
	var p Part
	for _, c := range [4][2]float32{{-0.5, 0.5}, {0.5, 0.5}, {0.5, -0.5}, {-0.5, -0.5}} {
		p.Positions = append(p.Positions, mgl32.Vec3{c[0], 0, c[1]})
		p.Normals = append(p.Normals, mgl32.Vec3{0, 1, 0})
		p.UVs = append(p.UVs, mgl32.Vec2{c[0] + 0.5, c[1] + 0.5})
	}
	p.Indices = []uint32{0, 1, 2, 0, 2, 3}
	return shape("plane", p)
}

// shape makes a model of one rigid white part.
func shape(name string, p Part) *Model {
	n := len(p.Positions)
	p.Name = name
	p.Joints = make([][4]uint16, n)
	p.Weights = make([][4]float32, n)
	for i := range p.Weights {
		p.Weights[i] = [4]float32{1, 0, 0, 0}
	}
	p.Material = Material{BaseColor: [4]float32{1, 1, 1, 1}}
	return &Model{
		Name:    name,
		Parts:   []Part{p},
		Nodes:   []Node{{Name: name, Parent: -1, Rest: geom.NewTransform(mgl32.Vec3{})}},
		Palette: []Joint{{Node: 0, InverseBind: mgl32.Ident4()}},
	}
}
