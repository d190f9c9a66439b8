package model

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Single returns a model of one rigid part, for a game's own static
// meshes: one root node named name at the origin, a palette of one
// identity matrix, and a blend-shape weight at 0 per target of p. The
// fields p leaves nil are filled in: Normals with SmoothNormals, Joints
// with 0 and Weights with 1 on that joint; Name with name. It panics,
// with a message from Validate, when the model is not valid (p's indices
// beyond its vertices, for instance).
func Single(name string, p Part) *Model {
	n := len(p.Positions)
	if p.Name == "" {
		p.Name = name
	}
	if p.Normals == nil {
		p.Normals = SmoothNormals(p.Positions, p.Indices)
	}
	if p.Joints == nil {
		p.Joints = make([][4]uint16, n)
	}
	if p.Weights == nil {
		p.Weights = make([][4]float32, n)
		for i := range p.Weights {
			p.Weights[i][0] = 1
		}
	}
	p.FirstWeight = 0
	m := &Model{
		Name:        name,
		Parts:       []Part{p},
		Nodes:       []Node{{Name: name, Parent: -1, Rest: geom.NewTransform(mgl32.Vec3{})}},
		Palette:     []Joint{{Node: 0, InverseBind: mgl32.Ident4()}},
		RestWeights: make([]float32, len(p.Targets)),
	}
	if err := m.Validate(); err != nil {
		panic(err.Error())
	}
	return m
}

// SmoothNormals returns a unit normal per position: the sum of the normals
// of the triangles (indices, three per triangle, counter-clockwise from
// the front) that use the vertex, each weighted by its area, normalised.
// Vertices shared by several triangles get a smooth normal; a vertex no
// triangle uses gets +Y. A triangle with an index beyond positions is
// skipped.
func SmoothNormals(positions []mgl32.Vec3, indices []uint32) []mgl32.Vec3 {
	sum := make([][3]float64, len(positions))
	for t := 0; t+2 < len(indices); t += 3 {
		a, b, c := indices[t], indices[t+1], indices[t+2]
		if int64(a) >= int64(len(positions)) || int64(b) >= int64(len(positions)) || int64(c) >= int64(len(positions)) {
			continue
		}
		pa, pb, pc := positions[a], positions[b], positions[c]
		u := [3]float64{float64(pb[0] - pa[0]), float64(pb[1] - pa[1]), float64(pb[2] - pa[2])}
		v := [3]float64{float64(pc[0] - pa[0]), float64(pc[1] - pa[1]), float64(pc[2] - pa[2])}
		n := [3]float64{u[1]*v[2] - u[2]*v[1], u[2]*v[0] - u[0]*v[2], u[0]*v[1] - u[1]*v[0]}
		for _, i := range [3]uint32{a, b, c} {
			sum[i][0] += n[0]
			sum[i][1] += n[1]
			sum[i][2] += n[2]
		}
	}
	out := make([]mgl32.Vec3, len(positions))
	for i, s := range sum {
		l := math.Sqrt(s[0]*s[0] + s[1]*s[1] + s[2]*s[2])
		if !(l > 1e-30) || math.IsInf(l, 0) {
			out[i] = mgl32.Vec3{0, 1, 0}
			continue
		}
		out[i] = mgl32.Vec3{float32(s[0] / l), float32(s[1] / l), float32(s[2] / l)}
	}
	return out
}

// ClipIndex returns the index in m.Clips of the first clip named name, or
// -1 when there is none.
func (m *Model) ClipIndex(name string) int {
	for i := range m.Clips {
		if m.Clips[i].Name == name {
			return i
		}
	}
	return -1
}

// Validate reports the first way m breaks the rules the renderer and the
// animation player rely on, or nil: nodes parents first; palette, weights
// and targets within the limits; every per-vertex slice as long as
// Positions (Normals, Joints and Weights present), every index below the
// vertex count, every joint in the palette, each vertex's weights in
// [0, 1] summing to 1; every weight block and channel within the model's
// weights and nodes; channel times from 0 up, never decreasing, within the
// clip's duration, with as many values as their keys need; every number
// finite. Every model Load returns is valid; Validate is for models built
// in code.
func (m *Model) Validate() error {
	if err := m.validate(); err != nil {
		return fmt.Errorf("model: %s: %w", m.Name, err)
	}
	return nil
}

// validate is Validate's checks.
//
//srccheck:wrapped by Validate, as "model: <name>: ..."
func (m *Model) validate() error {
	for i, n := range m.Nodes {
		if n.Parent < -1 || n.Parent >= i {
			return fmt.Errorf("node %d: parent %d, want -1 to %d", i, n.Parent, i-1)
		}
		r := n.Rest
		if !finite(r.Pos[:]...) || !finite(r.Scale[:]...) || !finite(r.Rot.W) || !finite(r.Rot.V[:]...) {
			return fmt.Errorf("node %d: rest transform is not finite", i)
		}
		if l := r.Rot.Dot(r.Rot); l < 0.999 || l > 1.001 {
			return fmt.Errorf("node %d: rest rotation %v is not a unit quaternion", i, r.Rot)
		}
	}
	if len(m.Palette) > MaxPalette {
		return fmt.Errorf("%d palette matrices, at most %d", len(m.Palette), MaxPalette)
	}
	for i, j := range m.Palette {
		if j.Node < 0 || j.Node >= len(m.Nodes) {
			return fmt.Errorf("palette %d: node %d, the model has %d", i, j.Node, len(m.Nodes))
		}
		if !finite(j.InverseBind[:]...) {
			return fmt.Errorf("palette %d: inverse bind matrix is not finite", i)
		}
	}
	if len(m.RestWeights) > MaxWeights {
		return fmt.Errorf("%d blend-shape weights, at most %d", len(m.RestWeights), MaxWeights)
	}
	if !finite(m.RestWeights...) {
		return errors.New("a rest weight is not finite")
	}
	for i := range m.Parts {
		if err := m.validatePart(&m.Parts[i]); err != nil {
			return fmt.Errorf("part %d (%s): %w", i, m.Parts[i].Name, err)
		}
	}
	for i := range m.Clips {
		if err := m.validateClip(&m.Clips[i]); err != nil {
			return fmt.Errorf("clip %d (%s): %w", i, m.Clips[i].Name, err)
		}
	}
	return nil
}

// validatePart checks one part.
//
//srccheck:wrapped by validate, as "model: <name>: part i (name): ..."
func (m *Model) validatePart(p *Part) error {
	n := len(p.Positions)
	if len(p.Normals) != n || len(p.Joints) != n || len(p.Weights) != n {
		return fmt.Errorf("%d positions, %d normals, %d joints, %d weights", n, len(p.Normals), len(p.Joints), len(p.Weights))
	}
	if p.Colors != nil && len(p.Colors) != n {
		return fmt.Errorf("%d colours for %d positions", len(p.Colors), n)
	}
	if p.UVs != nil && len(p.UVs) != n {
		return fmt.Errorf("%d texture coordinates for %d positions", len(p.UVs), n)
	}
	for v := range n {
		if !finite(p.Positions[v][:]...) || !finite(p.Normals[v][:]...) {
			return fmt.Errorf("vertex %d: position or normal is not finite", v)
		}
		if l := p.Normals[v].Dot(p.Normals[v]); l < 0.999 || l > 1.001 {
			return fmt.Errorf("vertex %d: normal %v is not a unit vector", v, p.Normals[v])
		}
		if p.UVs != nil && !finite(p.UVs[v][:]...) {
			return fmt.Errorf("vertex %d: texture coordinates are not finite", v)
		}
		var sum float32
		for k, w := range p.Weights[v] {
			if !(w >= 0 && w <= 1) {
				return fmt.Errorf("vertex %d: weight %d is %g", v, k, w)
			}
			sum += w
			if int(p.Joints[v][k]) >= len(m.Palette) {
				return fmt.Errorf("vertex %d: joint %d, the palette has %d", v, p.Joints[v][k], len(m.Palette))
			}
		}
		if sum < 0.999 || sum > 1.001 {
			return fmt.Errorf("vertex %d: the weights sum to %g", v, sum)
		}
	}
	if len(p.Indices)%3 != 0 {
		return fmt.Errorf("%d indices, not a multiple of 3", len(p.Indices))
	}
	for k, i := range p.Indices {
		if int64(i) >= int64(n) {
			return fmt.Errorf("index %d is %d, the part has %d vertices", k, i, n)
		}
	}
	if len(p.Targets) > MaxTargets {
		return fmt.Errorf("%d morph targets, at most %d", len(p.Targets), MaxTargets)
	}
	if len(p.Targets) > 0 && (p.FirstWeight < 0 || p.FirstWeight+len(p.Targets) > len(m.RestWeights)) {
		return fmt.Errorf("weights %d to %d, the model has %d", p.FirstWeight, p.FirstWeight+len(p.Targets), len(m.RestWeights))
	}
	for t, tg := range p.Targets {
		if len(tg.Positions) != n || (tg.Normals != nil && len(tg.Normals) != n) {
			return fmt.Errorf("morph target %d: %d position and %d normal offsets for %d vertices", t, len(tg.Positions), len(tg.Normals), n)
		}
		for v := range n {
			if !finite(tg.Positions[v][:]...) || (tg.Normals != nil && !finite(tg.Normals[v][:]...)) {
				return fmt.Errorf("morph target %d: vertex %d is not finite", t, v)
			}
		}
	}
	if !finite(p.Material.BaseColor[:]...) {
		return errors.New("base colour is not finite")
	}
	if tex := p.Material.Texture; tex != nil {
		if p.UVs == nil {
			return errors.New("a texture but no texture coordinates")
		}
		if tex.Bounds().Dx() < 1 || tex.Bounds().Dy() < 1 {
			return fmt.Errorf("an empty texture (%v)", tex.Bounds())
		}
	}
	return nil
}

// validateClip checks one clip.
//
//srccheck:wrapped by validate, as "model: <name>: clip i (name): ..."
func (m *Model) validateClip(c *Clip) error {
	if !finite(c.Duration) || c.Duration < 0 {
		return fmt.Errorf("duration %g", c.Duration)
	}
	for i := range c.Channels {
		ch := &c.Channels[i]
		var per int
		switch ch.Path {
		case Translation, Scale:
			per = 3
		case Rotation:
			per = 4
		case Weights:
			per = ch.Count
			if ch.Count < 1 || ch.FirstWeight < 0 || ch.FirstWeight+ch.Count > len(m.RestWeights) {
				return fmt.Errorf("channel %d: weights %d to %d, the model has %d", i, ch.FirstWeight, ch.FirstWeight+ch.Count, len(m.RestWeights))
			}
		default:
			return fmt.Errorf("channel %d: path %d", i, ch.Path)
		}
		if ch.Path != Weights && (ch.Node < 0 || ch.Node >= len(m.Nodes)) {
			return fmt.Errorf("channel %d: node %d, the model has %d", i, ch.Node, len(m.Nodes))
		}
		switch ch.Interpolation {
		case Linear, Step:
		case CubicSpline:
			per *= 3
		default:
			return fmt.Errorf("channel %d: interpolation %d", i, ch.Interpolation)
		}
		if len(ch.Times) == 0 {
			return fmt.Errorf("channel %d: no keys", i)
		}
		for k, t := range ch.Times {
			if !finite(t) || t < 0 || t > c.Duration || (k > 0 && t < ch.Times[k-1]) {
				return fmt.Errorf("channel %d: key %d at %g s (keys from 0 s, never decreasing, up to the duration %g s)", i, k, t, c.Duration)
			}
		}
		if len(ch.Values) != len(ch.Times)*per {
			return fmt.Errorf("channel %d: %d values for %d keys of %d", i, len(ch.Values), len(ch.Times), per)
		}
		if !finite(ch.Values...) {
			return fmt.Errorf("channel %d: a value is not finite", i)
		}
	}
	return nil
}
