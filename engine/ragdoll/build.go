package ragdoll

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/anim"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/engine/physics"
)

// MaxParts is the most bodies a ragdoll has.
const MaxParts = 24

// Def is a model's ragdoll, as Build makes it: one body per mapped bone,
// in the model's units, and the joints between them. It is set-up data
// (Ragdolls.SetDef), the same in every run; the bodies a character gets
// from it are simulated state.
type Def struct {
	// Model is the model the ragdoll was built from.
	Model *model.Model
	// Parts are the ragdoll's bodies, parents before their children; the
	// first is the root.
	Parts []PartDef

	nodePart []int32 // per node, the part whose bone it is, or -1
	// follow says how a node without a part is posed from the ragdoll:
	// followParent (from its parent, as animated), a part's index (fixed
	// to that part as animated: a root above the parts), or followAnim
	// (as animated: a node no part moves).
	follow []int32
	offInv []geom.Transform // each part's Offset inverted
}

// The follow codes of a node without a part.
const (
	followParent = -1
	followAnim   = -2
)

// PartDef is one body of a ragdoll.
type PartDef struct {
	// Name is the bone's node name.
	Name string
	// Bone is the bone's index in Model.Nodes.
	Bone int
	// Part is which body of a figure it is.
	Part Part
	// Parent is the index in Def.Parts of the body it is joined to, -1
	// for the root.
	Parent int
	// Shape is the body's shape in model units (a character drawn at
	// scale s gets it scaled by s): a capsule along the body's Y axis or
	// a box, sized from the vertices skinned mostly to the bone.
	Shape physics.Shape
	// Offset is the body's frame in the bone's: the body is at the
	// bone's global transform times Offset. The body's Y axis runs along
	// the bone, its Z axis towards the model's front (+Z) as far as the
	// bone allows.
	Offset geom.Transform
	// Bind is the body's frame in the model's space in the bind pose.
	Bind geom.Transform
	// Joint joins the body (B) to its parent's (A), its anchors and frames
	// in model units in each body's frame (A and B are set when the
	// ragdoll is spawned); Kind 0 for the root.
	Joint physics.JointDef
}

// Build makes m's ragdoll from mp (DefaultMapping(m), or a file's
// ParseMapping): for each mapped bone, a body sized from the vertices
// skinned mostly to it (those whose largest weight is that bone's; a tie
// counts for each bone tied) and placed along it, joined to the body of
// its nearest mapped ancestor (or, for a bone below an unmapped root such
// as a hips bone without vertices, to the body of that root's first
// mapped descendant) by the joint the mapping says, at the bone's origin.
//
// The joints' rest pose is the bind pose. It returns an error naming the
// bone when a mapped bone is not one of m's nodes, names two nodes, is not
// a joint of m's skin, is mapped twice, or has no vertex skinned mostly
// to it; when the mapping is empty or has more than MaxParts bones, when
// its bones make more than one tree, when a joint's limits are out of
// range, or when m cannot be animated (anim.Check) or a bone's inverse
// bind matrix is not a rotation, a translation and a uniform scale.
func Build(m *model.Model, mp Mapping) (*Def, error) {
	if err := anim.Check(m); err != nil {
		return nil, fmt.Errorf("ragdoll: Build(%s): %w", m.Name, err)
	}
	d, err := build(m, mp)
	if err != nil {
		return nil, fmt.Errorf("ragdoll: Build(%s): %w", m.Name, err)
	}
	return d, nil
}

// bindFrames returns, per node, the node's frame in the model's space at
// bind (the inverse of its first palette joint's inverse bind matrix) and
// whether it is a skin joint.
//
//srccheck:wrapped by Build, as "ragdoll: Build(<model>): ..."
func bindFrames(m *model.Model) ([]geom.Transform, []bool, error) {
	bind := make([]geom.Transform, len(m.Nodes))
	joint := make([]bool, len(m.Nodes))
	for _, j := range m.Palette {
		if joint[j.Node] {
			continue
		}
		t, ok := invertAffine(&j.InverseBind)
		if !ok {
			return nil, nil, fmt.Errorf("bone %q: the inverse bind matrix is not a rotation, a translation and a uniform scale", m.Nodes[j.Node].Name)
		}
		bind[j.Node], joint[j.Node] = t, true
	}
	return bind, joint, nil
}

// invertAffine returns the transform whose matrix is the inverse of m, when
// m is a rotation, a translation and a uniform scale.
func invertAffine(m *mgl32.Mat4) (geom.Transform, bool) {
	c0, c1, c2 := mgl32.Vec3{m[0], m[1], m[2]}, mgl32.Vec3{m[4], m[5], m[6]}, mgl32.Vec3{m[8], m[9], m[10]}
	s := length(c0)
	if !(s > 1e-9) || m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1 {
		return geom.Transform{}, false
	}
	for _, c := range [2]mgl32.Vec3{c1, c2} {
		if l := length(c); l < float32(s*(1-1e-3)) || l > float32(s*(1+1e-3)) {
			return geom.Transform{}, false
		}
	}
	x, y, z := scale(c0, 1/s), scale(c1, 1/s), scale(c2, 1/s)
	if d := dot(cross(x, y), z); d < 1-1e-3 || d > 1+1e-3 || abs(dot(x, y)) > 1e-3 || abs(dot(x, z)) > 1e-3 || abs(dot(y, z)) > 1e-3 {
		return geom.Transform{}, false
	}
	fwd := geom.Transform{Pos: mgl32.Vec3{m[12], m[13], m[14]}, Rot: quatFromFrame(x, y, z), Scale: mgl32.Vec3{s, s, s}}
	return fwd.Inverse(), true
}

func abs(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// dominant returns, per vertex of every part in order, the nodes the
// vertex is skinned mostly to (its largest weight's joints; ties count
// for each), calling f for each (vertex position, node).
func dominant(m *model.Model, f func(pos mgl32.Vec3, node int)) {
	for pi := range m.Parts {
		p := &m.Parts[pi]
		if len(p.Joints) != len(p.Positions) || len(p.Weights) != len(p.Positions) {
			continue
		}
		for v, pos := range p.Positions {
			w := p.Weights[v]
			top := max(w[0], w[1], w[2], w[3])
			if !(top > 0) {
				continue
			}
			var done [4]int
			nd := 0
			for k := range 4 {
				if w[k] != top || int(p.Joints[v][k]) >= len(m.Palette) {
					continue
				}
				n := m.Palette[p.Joints[v][k]].Node
				if slices.Contains(done[:nd], n) {
					continue
				}
				done[nd] = n
				nd++
				f(pos, n)
			}
		}
	}
}

// build is Build after the model's check.
//
//srccheck:wrapped by Build, as "ragdoll: Build(<model>): ..."
func build(m *model.Model, mp Mapping) (*Def, error) {
	switch {
	case len(mp.Bones) == 0:
		return nil, errors.New("the mapping has no bones")
	case len(mp.Bones) > MaxParts:
		return nil, fmt.Errorf("the mapping has %d bones, at most %d", len(mp.Bones), MaxParts)
	}
	bind, isJoint, err := bindFrames(m)
	if err != nil {
		return nil, err
	}
	// The mapped nodes, in node order.
	nodePart := make([]int32, len(m.Nodes))
	for i := range nodePart {
		nodePart[i] = -1
	}
	byNode := make(map[int]BoneMapping, len(mp.Bones))
	var nodes []int
	for i, b := range mp.Bones {
		n, err := findNode(m, b.Bone)
		if err != nil {
			return nil, fmt.Errorf("mapping bone %d: %w", i, err)
		}
		if _, ok := byNode[n]; ok {
			return nil, fmt.Errorf("bone %q is mapped twice", b.Bone)
		}
		if !isJoint[n] {
			return nil, fmt.Errorf("bone %q is not a joint of the model's skin", b.Bone)
		}
		if b.Part < PartPelvis || b.Part > lastPart {
			return nil, fmt.Errorf("bone %q: the part %d is unknown", b.Bone, b.Part)
		}
		if b.Joint.Kind == 0 {
			b.Joint = DefaultJoint(b.Part)
		}
		if msg := b.Joint.check(); msg != "" {
			return nil, fmt.Errorf("bone %q: %s", b.Bone, msg)
		}
		if b.Shape != 0 && b.Shape != physics.Capsule && b.Shape != physics.Box {
			return nil, fmt.Errorf("bone %q: the shape must be a capsule or a box, not %v", b.Bone, b.Shape)
		}
		byNode[n] = b
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	d := &Def{Model: m, Parts: make([]PartDef, len(nodes)), nodePart: nodePart}
	for i, n := range nodes {
		nodePart[n] = int32(i)
		d.Parts[i] = PartDef{Name: m.Nodes[n].Name, Bone: n, Part: byNode[n].Part}
	}
	// The vertices skinned mostly to each mapped bone.
	verts := make([][]mgl32.Vec3, len(nodes))
	dominant(m, func(pos mgl32.Vec3, n int) {
		if i := nodePart[n]; i >= 0 {
			verts[i] = append(verts[i], pos)
		}
	})
	for i, n := range nodes {
		if len(verts[i]) == 0 {
			return nil, fmt.Errorf("bone %q: no vertex is skinned mostly to it", m.Nodes[n].Name)
		}
	}
	d.linkParts()
	var roots []string
	for _, p := range d.Parts {
		if p.Parent < 0 {
			roots = append(roots, fmt.Sprintf("%q", p.Name))
		}
	}
	if len(roots) > 1 {
		return nil, fmt.Errorf("the mapped bones make %d separate trees (roots %s): map a bone that joins them", len(roots), strings.Join(roots, ", "))
	}
	for i := range d.Parts {
		p := &d.Parts[i]
		p.size(m, bind, isJoint, verts[i], byNode[p.Bone].Shape)
		p.Offset = bind[p.Bone].Relative(p.Bind)
		p.Offset.Rot = quatUnit(p.Offset.Rot)
		d.offInv = append(d.offInv, p.Offset.Inverse())
	}
	for i := range d.Parts {
		if p := &d.Parts[i]; p.Parent >= 0 {
			p.Joint = joint(&d.Parts[p.Parent], p, bind[p.Bone].Pos, byNode[p.Bone].Joint)
		}
	}
	return d, nil
}

// findNode returns the index of the node named name.
//
//srccheck:wrapped by Build, as "ragdoll: Build(<model>): ..."
func findNode(m *model.Model, name string) (int, error) {
	found := -1
	for i, n := range m.Nodes {
		if n.Name != name {
			continue
		}
		if found >= 0 {
			return 0, fmt.Errorf("bone %q names two nodes (%d and %d)", name, found, i)
		}
		found = i
	}
	if found < 0 {
		return 0, fmt.Errorf("bone %q is not a node of the model", name)
	}
	return found, nil
}

// linkParts sets each part's Parent and each node's follow code.
func (d *Def) linkParts() {
	m := d.Model
	// first[n]: the part of the lowest node index among n's descendants
	// (n included), or -1.
	first := make([]int32, len(m.Nodes))
	for i := range first {
		first[i] = -1
	}
	for n := len(m.Nodes) - 1; n >= 0; n-- {
		if d.nodePart[n] >= 0 {
			first[n] = d.nodePart[n]
		}
		if p := m.Nodes[n].Parent; p >= 0 && first[n] >= 0 && (first[p] < 0 || first[n] < first[p]) {
			first[p] = first[n]
		}
	}
	for i := range d.Parts {
		p := &d.Parts[i]
		p.Parent = -1
		for a := m.Nodes[p.Bone].Parent; a >= 0; a = m.Nodes[a].Parent {
			if k := d.nodePart[a]; k >= 0 {
				p.Parent = int(k)
				break
			}
			if k := first[a]; k >= 0 && int(k) != i {
				p.Parent = int(k)
				break
			}
		}
	}
	d.follow = make([]int32, len(m.Nodes))
	under := make([]bool, len(m.Nodes)) // a part is n or one of its ancestors
	for n := range m.Nodes {
		par := m.Nodes[n].Parent
		under[n] = d.nodePart[n] >= 0 || par >= 0 && under[par]
		switch {
		case d.nodePart[n] >= 0:
			d.follow[n] = d.nodePart[n]
		case par >= 0 && under[par]:
			d.follow[n] = followParent
		case first[n] >= 0:
			d.follow[n] = first[n]
		default:
			d.follow[n] = followAnim
		}
	}
}

// forward is the model's front, glTF's +Z.
var forward = mgl32.Vec3{0, 0, 1}

// size sets p's frame (Bind) and shape from its bone's vertices.
func (p *PartDef) size(m *model.Model, bind []geom.Transform, isJoint []bool, verts []mgl32.Vec3, kind physics.ShapeKind) {
	o := bind[p.Bone].Pos
	var c mgl32.Vec3
	for _, v := range verts {
		c = add(c, v)
	}
	c = scale(c, 1/float32(len(verts)))
	// The bone's direction: towards the child bone nearest the vertices'
	// direction, else towards their centroid.
	toC, okC := normalize(sub(c, o))
	y, ok := mgl32.Vec3{}, false
	if okC {
		best := float32(0.5)
		for n := range m.Nodes {
			if m.Nodes[n].Parent != p.Bone || !isJoint[n] {
				continue
			}
			if dir, okD := normalize(sub(bind[n].Pos, o)); okD && dot(dir, toC) > best {
				best, y, ok = dot(dir, toC), dir, true
			}
		}
		if !ok {
			y, ok = toC, true
		}
	}
	if !ok {
		y = mgl32.Vec3{0, 1, 0}
	}
	z, ok := normalize(sub(forward, scale(y, dot(y, forward))))
	if !ok {
		up := mgl32.Vec3{0, 1, 0}
		z, _ = normalize(sub(up, scale(y, dot(y, up))))
	}
	x := cross(y, z)
	lo := mgl32.Vec3{maxFloat, maxFloat, maxFloat}
	hi := mgl32.Vec3{-maxFloat, -maxFloat, -maxFloat}
	for _, v := range verts {
		r := sub(v, o)
		l := mgl32.Vec3{dot(r, x), dot(r, y), dot(r, z)}
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], l[k]), max(hi[k], l[k])
		}
	}
	const least = 1e-3 // the smallest half extent, model units
	half := scale(sub(hi, lo), 0.5)
	for k := range half {
		half[k] = max(half[k], least)
	}
	mid := scale(add(lo, hi), 0.5)
	r := min(half[0], half[2])
	if kind == 0 {
		kind = physics.Box
		if r >= float32(0.6*max(half[0], half[2])) && half[1] >= float32(1.2*r) {
			kind = physics.Capsule
		}
	}
	if kind == physics.Capsule {
		r = min(r, half[1])
		p.Shape = physics.Shape{Kind: physics.Capsule, Radius: r, HalfHeight: max(half[1]-r, least)}
	} else {
		p.Shape = physics.Shape{Kind: physics.Box, HalfExtents: half}
	}
	centre := add(add(add(o, scale(x, mid[0])), scale(y, mid[1])), scale(z, mid[2]))
	p.Bind = geom.Transform{Pos: centre, Rot: quatFromFrame(x, y, z), Scale: mgl32.Vec3{1, 1, 1}}
}

const maxFloat = 3.4e38

// joint returns the joint between the parent's body a and the child's b,
// at the model-space point at (the child's bone origin in the bind pose).
func joint(a, b *PartDef, at mgl32.Vec3, l Limits) physics.JointDef {
	limb := geom.Rotate(b.Bind.Rot, mgl32.Vec3{0, 1, 0}) // the child's length
	front := geom.Rotate(b.Bind.Rot, mgl32.Vec3{0, 0, 1})
	side := geom.Rotate(b.Bind.Rot, mgl32.Vec3{1, 0, 0})
	var axis, normal mgl32.Vec3
	switch l.Kind {
	case physics.JointRevolute:
		// A positive turn about axis carries the limb towards the front
		// (or back): axis × limb = front, so axis = limb × front.
		bend := forward
		if l.Bend == BendBackward {
			bend = scale(forward, -1)
		}
		var ok bool
		if axis, ok = normalize(cross(limb, bend)); !ok {
			axis = side
			if l.Bend == BendBackward {
				axis = scale(side, -1)
			}
		}
		normal = limb
	case physics.JointSpherical:
		axis, normal = limb, front
	default:
		axis, normal = side, limb
	}
	d := physics.NewJointDef(l.Kind, engine.Entity{}, engine.Entity{})
	d.AnchorA = unrotate(a.Bind.Rot, sub(at, a.Bind.Pos))
	d.AnchorB = unrotate(b.Bind.Rot, sub(at, b.Bind.Pos))
	d.AxisA, d.NormalA = unit(unrotate(a.Bind.Rot, axis)), unit(unrotate(a.Bind.Rot, normal))
	d.AxisB, d.NormalB = unit(unrotate(b.Bind.Rot, axis)), unit(unrotate(b.Bind.Rot, normal))
	switch l.Kind {
	case physics.JointRevolute:
		d.Limits, d.Lower, d.Upper = true, l.Lower, l.Upper
	case physics.JointSpherical:
		d.SwingLimit = l.Swing
		d.Limits, d.Lower, d.Upper = true, l.Lower, l.Upper
	}
	return d
}

// unit returns v normalised (v when it has no direction).
func unit(v mgl32.Vec3) mgl32.Vec3 {
	u, _ := normalize(v)
	return u
}
