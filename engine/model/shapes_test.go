package model_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
)

// Every built-in shape is one rigid white part on one root node with an
// identity palette entry, its triangles face outward, its normals are unit
// and it has the size engine/mesh.go promises.
func TestShapes(t *testing.T) {
	tests := []struct {
		name      string
		m         *model.Model
		vertices  int
		triangles int
		area      float64 // the exact surface's area
		areaTol   float64 // relative
		outward   func(p mgl32.Vec3) mgl32.Vec3
		onSurface func(p mgl32.Vec3) bool
	}{
		{
			name: "cube", m: model.Cube(), vertices: 24, triangles: 12, area: 6, areaTol: 1e-6,
			outward: func(p mgl32.Vec3) mgl32.Vec3 { return p }, // the centroid of a face's triangle is off centre, outward
			onSurface: func(p mgl32.Vec3) bool {
				return max(abs(p[0]), abs(p[1]), abs(p[2])) == 0.5
			},
		},
		{
			name: "sphere", m: model.Sphere(32), vertices: 17 * 33, triangles: 2*32*16 - 2*32, area: math.Pi, areaTol: 0.02,
			outward:   func(p mgl32.Vec3) mgl32.Vec3 { return p },
			onSurface: func(p mgl32.Vec3) bool { return math.Abs(float64(p.Len())-0.5) < 1e-6 },
		},
		{
			name: "plane", m: model.Plane(), vertices: 4, triangles: 2, area: 1, areaTol: 1e-6,
			outward:   func(mgl32.Vec3) mgl32.Vec3 { return mgl32.Vec3{0, 1, 0} },
			onSurface: func(p mgl32.Vec3) bool { return p[1] == 0 && abs(p[0]) == 0.5 && abs(p[2]) == 0.5 },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.m
			if m.Name != tt.name || len(m.Parts) != 1 || len(m.Nodes) != 1 || len(m.Palette) != 1 || len(m.RestWeights) != 0 || len(m.Clips) != 0 {
				t.Fatalf("%s: name %q, %d parts, %d nodes, %d palette entries, %d weights, %d clips; want one part, node and joint",
					tt.name, m.Name, len(m.Parts), len(m.Nodes), len(m.Palette), len(m.RestWeights), len(m.Clips))
			}
			if n := m.Nodes[0]; n.Parent != -1 || n.Rest.Pos != (mgl32.Vec3{}) || n.Rest.Rot != mgl32.QuatIdent() || n.Rest.Scale != (mgl32.Vec3{1, 1, 1}) {
				t.Errorf("root node %+v, want a root at rest at the origin", n)
			}
			if j := m.Palette[0]; j.Node != 0 || j.InverseBind != mgl32.Ident4() {
				t.Errorf("palette[0] = %+v, want node 0 with the identity", j)
			}
			p := m.Parts[0]
			n := len(p.Positions)
			if n != tt.vertices || len(p.Indices) != 3*tt.triangles {
				t.Errorf("%d vertices and %d indices, want %d and %d", n, len(p.Indices), tt.vertices, 3*tt.triangles)
			}
			if len(p.Normals) != n || len(p.UVs) != n || len(p.Joints) != n || len(p.Weights) != n || p.Colors != nil || p.Targets != nil {
				t.Fatalf("per-vertex slices: %d normals, %d uvs, %d joints, %d weights, colours %v, targets %v; want %d each, no colours or targets",
					len(p.Normals), len(p.UVs), len(p.Joints), len(p.Weights), p.Colors != nil, p.Targets != nil, n)
			}
			if p.Material.BaseColor != [4]float32{1, 1, 1, 1} || p.Material.Texture != nil {
				t.Errorf("material %+v, want white without a texture", p.Material)
			}
			for i := range n {
				if !tt.onSurface(p.Positions[i]) {
					t.Errorf("vertex %d at %v is not on the shape's surface", i, p.Positions[i])
				}
				if l := p.Normals[i].Len(); math.Abs(float64(l)-1) > 1e-6 {
					t.Errorf("normal %d %v has length %v", i, p.Normals[i], l)
				}
				if p.Normals[i].Dot(tt.outward(p.Positions[i])) <= 0 {
					t.Errorf("normal %d %v at %v points inward", i, p.Normals[i], p.Positions[i])
				}
				if uv := p.UVs[i]; uv[0] < 0 || uv[0] > 1 || uv[1] < 0 || uv[1] > 1 {
					t.Errorf("uv %d = %v, want within [0, 1]", i, uv)
				}
				if p.Joints[i] != [4]uint16{} || p.Weights[i] != [4]float32{1, 0, 0, 0} {
					t.Errorf("vertex %d: joints %v weights %v, want joint 0 with weight 1", i, p.Joints[i], p.Weights[i])
				}
			}
			area := 0.0
			for k := 0; k+2 < len(p.Indices); k += 3 {
				ia, ib, ic := p.Indices[k], p.Indices[k+1], p.Indices[k+2]
				if int(max(ia, ib, ic)) >= n {
					t.Fatalf("triangle %d indexes %d %d %d, there are %d vertices", k/3, ia, ib, ic, n)
				}
				a, b, c := p.Positions[ia], p.Positions[ib], p.Positions[ic]
				cross := b.Sub(a).Cross(c.Sub(a))
				centroid := a.Add(b).Add(c).Mul(1.0 / 3)
				if cross.Dot(tt.outward(centroid)) <= 0 {
					t.Errorf("triangle %d (%v %v %v) is clockwise seen from outside, or has no area", k/3, a, b, c)
				}
				area += float64(cross.Len()) / 2
			}
			if math.Abs(area-tt.area) > tt.areaTol*tt.area {
				t.Errorf("surface area %v, want %v within %v%%", area, tt.area, 100*tt.areaTol)
			}
		})
	}
}

// A sphere's texture runs from u 0 at +X toward -Z, v 0 at the top.
func TestSphereUVs(t *testing.T) {
	p := model.Sphere(8).Parts[0]
	for i, pos := range p.Positions {
		uv := p.UVs[i]
		if math.Abs(float64(uv[1])-math.Acos(float64(2*pos[1]))/math.Pi) > 1e-6 {
			t.Errorf("vertex %d at %v: v = %v, want the polar angle over π", i, pos, uv[1])
		}
		if abs(pos[1]) < 0.49 { // away from the poles, where u is arbitrary
			phi := math.Atan2(float64(-pos[2]), float64(pos[0]))
			if phi < 0 || uv[0] == 1 && phi < 1e-6 {
				phi += 2 * math.Pi
			}
			if math.Abs(float64(uv[0])-phi/(2*math.Pi)) > 1e-6 {
				t.Errorf("vertex %d at %v: u = %v, want %v", i, pos, uv[0], phi/(2*math.Pi))
			}
		}
	}
}

func TestSphereRejectsBadSegments(t *testing.T) {
	for _, s := range []int{-1, 0, 3, 1025} {
		func() {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.HasPrefix(msg, "model: Sphere(") {
					t.Errorf("Sphere(%d) panicked with %q, want a message starting \"model: Sphere(\"", s, msg)
				}
			}()
			model.Sphere(s)
		}()
	}
}

// Each call returns new slices.
func TestShapesAreFreshCopies(t *testing.T) {
	a, b := model.Plane(), model.Plane()
	a.Parts[0].Positions[0][0] = 7
	a.Palette[0].InverseBind[0] = 7
	if b.Parts[0].Positions[0][0] == 7 || b.Palette[0].InverseBind[0] == 7 {
		t.Error("changing one Plane() changed another")
	}
}

func abs(x float32) float32 { return float32(math.Abs(float64(x))) }
