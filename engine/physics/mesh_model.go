package physics

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/model"
)

// NewTriangleMeshFromModel makes a mesh of every triangle of m's parts as
// the model stands at rest (its skinned parts posed by the rest palette),
// in the model's space: level geometry made in a modelling tool and loaded
// by package model. The arithmetic rounds every product, so the mesh has
// the same bits on every machine.
func NewTriangleMeshFromModel(m *model.Model) (*TriangleMesh, error) {
	global := make([]geom.Transform, len(m.Nodes))
	for i, n := range m.Nodes {
		if n.Parent < 0 {
			global[i] = n.Rest
			continue
		}
		global[i] = global[n.Parent].Mul(n.Rest)
	}
	palette := make([]mgl32.Mat4, len(m.Palette))
	for i, j := range m.Palette {
		if j.Node < 0 || j.Node >= len(global) {
			return nil, fmt.Errorf("physics: model %s: joint %d names node %d of %d", m.Name, i, j.Node, len(global))
		}
		palette[i] = mulMat4(transformMat4(global[j.Node]), j.InverseBind)
	}
	var pos []mgl32.Vec3
	var idx []uint32
	for _, p := range m.Parts {
		base := uint32(len(pos))
		for v, x := range p.Positions {
			if p.Joints == nil || p.Weights == nil {
				pos = append(pos, x)
				continue
			}
			var s vec3
			for k, j := range p.Joints[v] {
				w := p.Weights[v][k]
				if w == 0 {
					continue
				}
				if int(j) >= len(palette) {
					return nil, fmt.Errorf("physics: model %s: %s vertex %d uses joint %d of %d", m.Name, p.Name, v, j, len(palette))
				}
				s = s.addScaled(applyMat4(palette[j], toVec3(x)), w)
			}
			pos = append(pos, fromVec3(s))
		}
		for _, i := range p.Indices {
			idx = append(idx, base+i)
		}
	}
	mesh, err := NewTriangleMesh(pos, idx)
	if err != nil {
		return nil, fmt.Errorf("physics: model %s: %w", m.Name, err)
	}
	return mesh, nil
}

// transformMat4 returns t as a matrix (columns, as mgl32 stores them).
func transformMat4(t geom.Transform) mgl32.Mat4 {
	r := toQuat(t.Rot).rotation()
	s := toVec3(t.Scale)
	c0, c1, c2 := r.col(0).scale(s.x), r.col(1).scale(s.y), r.col(2).scale(s.z)
	return mgl32.Mat4{c0.x, c0.y, c0.z, 0, c1.x, c1.y, c1.z, 0, c2.x, c2.y, c2.z, 0, t.Pos[0], t.Pos[1], t.Pos[2], 1}
}

// mulMat4 returns a*b with every product rounded.
func mulMat4(a, b mgl32.Mat4) mgl32.Mat4 {
	var m mgl32.Mat4
	for c := range 4 {
		for r := range 4 {
			var s float32
			for k := range 4 {
				s += float32(a[k*4+r] * b[c*4+k])
			}
			m[c*4+r] = s
		}
	}
	return m
}

// applyMat4 returns m applied to the point p, every product rounded.
func applyMat4(m mgl32.Mat4, p vec3) vec3 {
	return vec3{
		float32(m[0]*p.x) + float32(m[4]*p.y) + float32(m[8]*p.z) + m[12],
		float32(m[1]*p.x) + float32(m[5]*p.y) + float32(m[9]*p.z) + m[13],
		float32(m[2]*p.x) + float32(m[6]*p.y) + float32(m[10]*p.z) + m[14],
	}
}
