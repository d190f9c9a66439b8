package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"

	"github.com/nebulaengine/nebula/engine/geom"
)

// roots returns the file indices of the nodes the model is made of: the
// default scene's, else scene 0's, else every node no node has as child.
func (c *converter) roots() ([]int, error) {
	doc := c.doc
	var scene int
	switch {
	case doc.Scene != nil:
		scene = *doc.Scene
		if scene < 0 || scene >= len(doc.Scenes) {
			return nil, fmt.Errorf("scene %d does not exist (the file has %d)", scene, len(doc.Scenes))
		}
	case len(doc.Scenes) > 0:
		scene = 0
	default:
		child := make([]bool, len(doc.Nodes))
		for i, n := range doc.Nodes {
			if n == nil {
				return nil, fmt.Errorf("node %d is null", i)
			}
			for _, k := range n.Children {
				if k < 0 || k >= len(doc.Nodes) {
					return nil, fmt.Errorf("%s: child %d does not exist (the file has %d nodes)", c.nodeName(i), k, len(doc.Nodes))
				}
				child[k] = true
			}
		}
		var roots []int
		for i := range doc.Nodes {
			if !child[i] {
				roots = append(roots, i)
			}
		}
		return roots, nil
	}
	sc := doc.Scenes[scene]
	if sc == nil {
		return nil, fmt.Errorf("scene %d is null", scene)
	}
	for _, k := range sc.Nodes {
		if k < 0 || k >= len(doc.Nodes) {
			return nil, fmt.Errorf("scene %d: node %d does not exist (the file has %d)", scene, k, len(doc.Nodes))
		}
	}
	return sc.Nodes, nil
}

// hierarchy orders the nodes under roots parent-first (depth first, in
// the file's order of children) into the model's Nodes.
func (c *converter) hierarchy(roots []int) error {
	doc := c.doc
	c.newIndex = make([]int, len(doc.Nodes))
	for i := range c.newIndex {
		c.newIndex[i] = -1
	}
	type visit struct{ node, parent int }
	stack := make([]visit, 0, len(roots))
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, visit{roots[i], -1})
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := doc.Nodes[v.node]
		if n == nil {
			return fmt.Errorf("node %d is null", v.node)
		}
		if c.newIndex[v.node] >= 0 {
			return fmt.Errorf("%s is reached twice from the scene's roots (a second parent, a cycle, or a root twice)", c.nodeName(v.node))
		}
		rest, err := restTransform(n)
		if err != nil {
			return fmt.Errorf("%s: %w", c.nodeName(v.node), err)
		}
		c.newIndex[v.node] = len(c.m.Nodes)
		c.order = append(c.order, v.node)
		c.m.Nodes = append(c.m.Nodes, Node{Name: n.Name, Parent: v.parent, Rest: rest})
		for i := len(n.Children) - 1; i >= 0; i-- {
			k := n.Children[i]
			if k < 0 || k >= len(doc.Nodes) {
				return fmt.Errorf("%s: child %d does not exist (the file has %d nodes)", c.nodeName(v.node), k, len(doc.Nodes))
			}
			stack = append(stack, visit{k, c.newIndex[v.node]})
		}
	}
	return nil
}

// restTransform is a node's transform relative to its parent: its
// translation, rotation and scale, or its matrix decomposed into them.
//
//srccheck:wrapped by the converter
func restTransform(n *gltf.Node) (geom.Transform, error) {
	if mat := n.MatrixOrDefault(); mat != gltf.DefaultMatrix {
		return decompose(mat)
	}
	t, r, s := n.TranslationOrDefault(), n.RotationOrDefault(), n.ScaleOrDefault()
	l := math.Sqrt(r[0]*r[0] + r[1]*r[1] + r[2]*r[2] + r[3]*r[3])
	if !(l > 1e-6) || math.IsInf(l, 0) {
		return geom.Transform{}, fmt.Errorf("rotation %v is not a unit quaternion", r)
	}
	tr := geom.Transform{
		Pos:   mgl32.Vec3{float32(t[0]), float32(t[1]), float32(t[2])},
		Rot:   mgl32.Quat{W: float32(r[3] / l), V: mgl32.Vec3{float32(r[0] / l), float32(r[1] / l), float32(r[2] / l)}},
		Scale: mgl32.Vec3{float32(s[0]), float32(s[1]), float32(s[2])},
	}
	if !finite(tr.Pos[:]...) || !finite(tr.Scale[:]...) {
		return geom.Transform{}, fmt.Errorf("translation %v or scale %v is not finite", t, s)
	}
	return tr, nil
}

// decompose splits an affine matrix (column-major) into translation,
// rotation and scale. glTF matrices hold no shear; a negative determinant
// is put in the x scale.
//
//srccheck:wrapped by the converter
func decompose(m [16]float64) (geom.Transform, error) {
	for _, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > math.MaxFloat32 {
			return geom.Transform{}, fmt.Errorf("matrix %v is not finite", m)
		}
	}
	if m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1 {
		return geom.Transform{}, fmt.Errorf("matrix's last row is %v, not 0 0 0 1", [4]float64{m[3], m[7], m[11], m[15]})
	}
	cols := [3][3]float64{{m[0], m[1], m[2]}, {m[4], m[5], m[6]}, {m[8], m[9], m[10]}}
	var s [3]float64
	for i, col := range cols {
		s[i] = math.Sqrt(col[0]*col[0] + col[1]*col[1] + col[2]*col[2])
	}
	c0, c1, c2 := cols[0], cols[1], cols[2]
	det := c0[0]*(c1[1]*c2[2]-c1[2]*c2[1]) - c0[1]*(c1[0]*c2[2]-c1[2]*c2[0]) + c0[2]*(c1[0]*c2[1]-c1[1]*c2[0])
	if det < 0 {
		s[0] = -s[0]
	}
	tr := geom.Transform{
		Pos:   mgl32.Vec3{float32(m[12]), float32(m[13]), float32(m[14])},
		Rot:   mgl32.QuatIdent(),
		Scale: mgl32.Vec3{float32(s[0]), float32(s[1]), float32(s[2])},
	}
	if !finite(tr.Scale[:]...) {
		return geom.Transform{}, fmt.Errorf("matrix %v has a scale beyond float32", m)
	}
	if s[0] != 0 && s[1] != 0 && s[2] != 0 {
		var r [3][3]float64 // r[row][column]
		for col := range 3 {
			for row := range 3 {
				r[row][col] = cols[col][row] / s[col]
			}
		}
		tr.Rot = quatFromRotation(r)
	}
	return tr, nil
}

// quatFromRotation returns the unit quaternion of a rotation matrix
// (Shepperd's method: the largest of w, x, y, z is computed first).
func quatFromRotation(r [3][3]float64) mgl32.Quat {
	var w, x, y, z float64
	switch tr := r[0][0] + r[1][1] + r[2][2]; {
	case tr > 0:
		s := math.Sqrt(tr+1) * 2
		w, x, y, z = s/4, (r[2][1]-r[1][2])/s, (r[0][2]-r[2][0])/s, (r[1][0]-r[0][1])/s
	case r[0][0] > r[1][1] && r[0][0] > r[2][2]:
		s := math.Sqrt(1+r[0][0]-r[1][1]-r[2][2]) * 2
		w, x, y, z = (r[2][1]-r[1][2])/s, s/4, (r[0][1]+r[1][0])/s, (r[0][2]+r[2][0])/s
	case r[1][1] > r[2][2]:
		s := math.Sqrt(1+r[1][1]-r[0][0]-r[2][2]) * 2
		w, x, y, z = (r[0][2]-r[2][0])/s, (r[0][1]+r[1][0])/s, s/4, (r[1][2]+r[2][1])/s
	default:
		s := math.Sqrt(1+r[2][2]-r[0][0]-r[1][1]) * 2
		w, x, y, z = (r[1][0]-r[0][1])/s, (r[0][2]+r[2][0])/s, (r[1][2]+r[2][1])/s, s/4
	}
	l := math.Sqrt(w*w + x*x + y*y + z*z)
	if !(l > 0) || math.IsInf(l, 0) {
		return mgl32.QuatIdent()
	}
	return mgl32.Quat{W: float32(w / l), V: mgl32.Vec3{float32(x / l), float32(y / l), float32(z / l)}}
}

// palette lists the joints of every skin a mesh node of the scene uses,
// skin by skin in the file's order, then one entry per unskinned mesh
// node in the model's node order.
func (c *converter) palette() error {
	doc := c.doc
	used := make([]bool, len(doc.Skins))
	for _, f := range c.order {
		n := doc.Nodes[f]
		if n.Mesh == nil || n.Skin == nil {
			continue
		}
		s := *n.Skin
		if s < 0 || s >= len(doc.Skins) {
			return fmt.Errorf("%s: skin %d does not exist (the file has %d)", c.nodeName(f), s, len(doc.Skins))
		}
		used[s] = true
	}
	for s, skin := range doc.Skins {
		if !used[s] {
			continue
		}
		if skin == nil {
			return fmt.Errorf("skin %d is null", s)
		}
		if err := c.skin(s, skin); err != nil {
			return fmt.Errorf("skin %d: %w", s, err)
		}
	}
	for _, f := range c.order {
		n := doc.Nodes[f]
		if n.Mesh == nil || n.Skin != nil {
			continue
		}
		if len(c.m.Palette) >= MaxPalette {
			return fmt.Errorf("more than %d palette matrices (skin joints and unskinned mesh nodes), at most %d", MaxPalette, MaxPalette)
		}
		c.rigid[f] = len(c.m.Palette)
		c.m.Palette = append(c.m.Palette, Joint{Node: c.newIndex[f], InverseBind: mgl32.Ident4()})
	}
	return nil
}

// skin appends skin s's joints to the palette.
func (c *converter) skin(s int, skin *gltf.Skin) error {
	if len(skin.Joints) == 0 {
		return errors.New("no joints")
	}
	if len(skin.Joints) > MaxPalette {
		return fmt.Errorf("%d joints, at most %d", len(skin.Joints), MaxPalette)
	}
	if n := len(c.m.Palette) + len(skin.Joints); n > MaxPalette {
		return fmt.Errorf("%d joints make %d palette matrices with the skins before it, at most %d", len(skin.Joints), n, MaxPalette)
	}
	var ibm []float32
	if skin.InverseBindMatrices != nil {
		var err error
		if ibm, _, err = c.floats(*skin.InverseBindMatrices, floatMat4); err != nil {
			return fmt.Errorf("inverse bind matrices: %w", err)
		}
		if len(ibm) != 16*len(skin.Joints) {
			return fmt.Errorf("inverse bind matrices: %d matrices for %d joints", len(ibm)/16, len(skin.Joints))
		}
		if !finite(ibm...) {
			return errors.New("inverse bind matrices: not finite")
		}
	}
	c.skins[s] = len(c.m.Palette)
	for j, f := range skin.Joints {
		if f < 0 || f >= len(c.doc.Nodes) {
			return fmt.Errorf("joint %d: node %d does not exist (the file has %d)", j, f, len(c.doc.Nodes))
		}
		if c.newIndex[f] < 0 {
			return fmt.Errorf("joint %d: %s is not in the scene", j, c.nodeName(f))
		}
		joint := Joint{Node: c.newIndex[f], InverseBind: mgl32.Ident4()}
		if ibm != nil {
			copy(joint.InverseBind[:], ibm[16*j:16*j+16]) // both column-major
		}
		c.m.Palette = append(c.m.Palette, joint)
	}
	return nil
}
