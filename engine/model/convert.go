package model

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"errors"
	"fmt"
	"image"
	"io/fs"
	"math"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
)

// converter turns one glTF document into a Model.
type converter struct {
	doc    *gltf.Document
	fsys   fs.FS // the files URIs name, or nil
	dir    string
	budget int // values left to read (maxValues at the start)
	m      *Model

	newIndex []int               // file node -> index in m.Nodes, -1 outside the scene
	order    []int               // file nodes in m.Nodes order
	skins    map[int]int         // skin -> palette index of its first joint
	rigid    map[int]int         // unskinned mesh node (file index) -> its palette entry
	blocks   map[int]weightBlock // mesh node with morph targets (file index) -> its weights
	images   map[int]*image.RGBA // decoded images, by image index
	imageErr map[int]error       // images that failed, by image index
}

// weightBlock locates one mesh node's blend-shape weights in the model's.
type weightBlock struct{ first, count int }

// convert converts doc; fsys and dir, when fsys is not nil, locate the
// files the document's images name.
func convert(doc *gltf.Document, name string, fsys fs.FS, dir string) (m *Model, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("model: %s: internal error while converting (a bug in the loader): %v", name, r)
		}
	}()
	c := &converter{
		doc: doc, fsys: fsys, dir: dir, budget: maxValues,
		m:      &Model{Name: name},
		skins:  map[int]int{},
		rigid:  map[int]int{},
		blocks: map[int]weightBlock{},
		images: map[int]*image.RGBA{}, imageErr: map[int]error{},
	}
	if err := c.run(); err != nil {
		return nil, fmt.Errorf("model: %s: %w", name, err)
	}
	return c.m, nil
}

func (c *converter) run() error {
	if len(c.doc.ExtensionsRequired) > 0 {
		return fmt.Errorf("requires the extension %s, which the loader does not support", c.doc.ExtensionsRequired[0])
	}
	if v := c.doc.Asset.Version; v != "" && !strings.HasPrefix(v, "2.") {
		return fmt.Errorf("glTF version %q, only 2.x is read", v)
	}
	roots, err := c.roots()
	if err != nil {
		return err
	}
	if err := c.hierarchy(roots); err != nil {
		return err
	}
	if err := c.checkMeshes(); err != nil {
		return err
	}
	if err := c.palette(); err != nil {
		return err
	}
	if err := c.weights(); err != nil {
		return err
	}
	if err := c.parts(); err != nil {
		return err
	}
	return c.clips()
}

func (c *converter) nodeName(i int) string {
	if n := c.doc.Nodes[i]; n != nil && n.Name != "" {
		return fmt.Sprintf("node %d (%s)", i, n.Name)
	}
	return fmt.Sprintf("node %d", i)
}

func (c *converter) meshName(i int) string {
	if m := c.doc.Meshes[i]; m != nil && m.Name != "" {
		return fmt.Sprintf("mesh %d (%s)", i, m.Name)
	}
	return fmt.Sprintf("mesh %d", i)
}

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

// maxParts bounds the parts of a model: a mesh of many primitives used by
// many nodes would otherwise make the loader work and allocate far beyond
// the file's size.
const maxParts = 1 << 16

// checkMeshes checks the meshes the scene's nodes refer to, once each, and
// the number of parts they make.
func (c *converter) checkMeshes() error {
	doc := c.doc
	checked := make([]bool, len(doc.Meshes))
	parts := 0
	for _, f := range c.order {
		n := doc.Nodes[f]
		if n.Mesh == nil {
			continue
		}
		mi := *n.Mesh
		if mi < 0 || mi >= len(doc.Meshes) {
			return fmt.Errorf("%s: mesh %d does not exist (the file has %d)", c.nodeName(f), mi, len(doc.Meshes))
		}
		mesh := doc.Meshes[mi]
		if mesh != nil {
			if parts += len(mesh.Primitives); parts > maxParts {
				return fmt.Errorf("more than %d parts (primitives of the scene's mesh nodes)", maxParts)
			}
		}
		if checked[mi] {
			continue
		}
		checked[mi] = true
		if mesh == nil {
			return fmt.Errorf("mesh %d is null", mi)
		}
		if len(mesh.Primitives) == 0 {
			return fmt.Errorf("%s has no primitives", c.meshName(mi))
		}
		for pi, p := range mesh.Primitives {
			if p == nil {
				return fmt.Errorf("%s primitive %d is null", c.meshName(mi), pi)
			}
			if len(p.Targets) != len(mesh.Primitives[0].Targets) {
				return fmt.Errorf("%s: primitive %d has %d morph targets, primitive 0 has %d",
					c.meshName(mi), pi, len(p.Targets), len(mesh.Primitives[0].Targets))
			}
		}
		if nt := len(mesh.Primitives[0].Targets); nt > MaxTargets {
			return fmt.Errorf("%s: %d morph targets, at most %d", c.meshName(mi), nt, MaxTargets)
		}
	}
	return nil
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

// weights gives every mesh node with morph targets its block of the
// model's weights, at rest the node's weights, else its mesh's, else 0.
func (c *converter) weights() error {
	doc := c.doc
	for _, f := range c.order {
		n := doc.Nodes[f]
		if n.Mesh == nil {
			continue
		}
		mesh := doc.Meshes[*n.Mesh]
		nt := len(mesh.Primitives[0].Targets)
		if nt == 0 {
			continue
		}
		w := n.Weights
		if len(w) == 0 {
			w = mesh.Weights
		}
		if len(w) != 0 && len(w) != nt {
			return fmt.Errorf("%s: %d morph target weights for %s's %d morph targets", c.nodeName(f), len(w), c.meshName(*n.Mesh), nt)
		}
		first := len(c.m.RestWeights)
		if first+nt > MaxWeights {
			return fmt.Errorf("%s: its %d morph targets make %d blend-shape weights, at most %d", c.nodeName(f), nt, first+nt, MaxWeights)
		}
		c.blocks[f] = weightBlock{first, nt}
		for k := range nt {
			var v float32
			if len(w) != 0 {
				v = float32(w[k])
			}
			if !finite(v) {
				return fmt.Errorf("%s: morph target weight %d is %g", c.nodeName(f), k, w[k])
			}
			c.m.RestWeights = append(c.m.RestWeights, v)
		}
	}
	return nil
}

// binding is how a part's vertices are skinned.
type binding struct {
	skin   int // the skin, or -1 for a rigid node
	first  int // palette index of the skin's first joint, or of the rigid node's entry
	joints int // the skin's joints
}

// parts converts every primitive of every mesh node, in node order.
func (c *converter) parts() error {
	doc := c.doc
	for _, f := range c.order {
		n := doc.Nodes[f]
		if n.Mesh == nil {
			continue
		}
		b := binding{skin: -1, first: c.rigid[f]}
		if n.Skin != nil {
			b = binding{skin: *n.Skin, first: c.skins[*n.Skin], joints: len(doc.Skins[*n.Skin].Joints)}
		}
		mi := *n.Mesh
		for pi, p := range doc.Meshes[mi].Primitives {
			name := fmt.Sprintf("%s primitive %d", c.meshName(mi), pi)
			part, err := c.part(p, b, c.blocks[f])
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			part.Name = name
			c.m.Parts = append(c.m.Parts, part)
		}
	}
	return nil
}

// part converts one primitive.
func (c *converter) part(p *gltf.Primitive, b binding, block weightBlock) (Part, error) {
	var part Part
	switch p.Mode {
	case gltf.PrimitiveTriangles, gltf.PrimitiveTriangleStrip, gltf.PrimitiveTriangleFan:
	default:
		return part, fmt.Errorf("mode %s is not supported (triangles, triangle strips and fans are)", p.Mode)
	}
	pi, ok := p.Attributes[gltf.POSITION]
	if !ok {
		return part, errors.New("no POSITION attribute")
	}
	pos, _, err := c.floats(pi, floatVec3)
	if err != nil {
		return part, fmt.Errorf("attribute POSITION: %w", err)
	}
	n := len(pos) / 3
	if part.Positions, err = vec3s(pos); err != nil {
		return part, fmt.Errorf("attribute POSITION: %w", err)
	}
	// read reads attribute name as floats, checking its count.
	read := func(name string, use accessorUse) ([]float32, int, bool, error) {
		i, ok := p.Attributes[name]
		if !ok {
			return nil, 0, false, nil
		}
		v, comps, err := c.floats(i, use)
		if err == nil && len(v)/comps != n {
			err = fmt.Errorf("%d elements, POSITION has %d", len(v)/comps, n)
		}
		if err == nil && !finite(v...) {
			err = errors.New("a value is not finite")
		}
		if err != nil {
			return nil, 0, true, fmt.Errorf("attribute %s: %w", name, err)
		}
		return v, comps, true, nil
	}

	if v, _, ok, err := read(gltf.NORMAL, floatVec3); err != nil {
		return part, err
	} else if ok {
		part.Normals, _ = vec3s(v)
		for i, nv := range part.Normals {
			part.Normals[i] = unitOrUp(nv)
		}
	}
	if v, comps, ok, err := read(gltf.COLOR_0, colorUse); err != nil {
		return part, err
	} else if ok {
		part.Colors = make([][4]uint8, n)
		for i := range part.Colors {
			col := [4]uint8{0, 0, 0, 255}
			for k := range comps {
				col[k] = unorm8(v[i*comps+k])
			}
			part.Colors[i] = col
		}
	}
	if v, _, ok, err := read(gltf.TEXCOORD_0, texcoordUse); err != nil {
		return part, err
	} else if ok {
		part.UVs = make([]mgl32.Vec2, n)
		for i := range part.UVs {
			part.UVs[i] = mgl32.Vec2{v[2*i], v[2*i+1]}
		}
	}

	if part.Indices, err = c.indices(p, n); err != nil {
		return part, err
	}
	if part.Normals == nil {
		part.Normals = SmoothNormals(part.Positions, part.Indices)
	}
	if err := c.skinning(&part, p, b, n, read); err != nil {
		return part, err
	}
	for ti, t := range p.Targets {
		target, err := c.target(t, n)
		if err != nil {
			return part, fmt.Errorf("morph target %d: %w", ti, err)
		}
		part.Targets = append(part.Targets, target)
	}
	part.FirstWeight = block.first
	if part.Material, err = c.material(p, part.UVs != nil); err != nil {
		return part, err
	}
	return part, nil
}

// indices reads a primitive's indices (0 to n-1 when it has none) and
// turns strips and fans into triangles.
func (c *converter) indices(p *gltf.Primitive, n int) ([]uint32, error) {
	var idx []uint32
	if p.Indices != nil {
		var err error
		if idx, _, err = c.uints(*p.Indices, indicesUse); err != nil {
			return nil, fmt.Errorf("indices: %w", err)
		}
		for k, v := range idx {
			if int64(v) >= int64(n) {
				return nil, fmt.Errorf("indices: index %d is %d, the primitive has %d vertices", k, v, n)
			}
		}
	} else {
		if err := c.spend(n); err != nil {
			return nil, err
		}
		idx = make([]uint32, n)
		for i := range idx {
			idx[i] = uint32(i)
		}
	}
	if p.Mode == gltf.PrimitiveTriangleStrip || p.Mode == gltf.PrimitiveTriangleFan {
		if len(idx) < 3 {
			return nil, nil
		}
		if err := c.spend(3 * (len(idx) - 2)); err != nil {
			return nil, err
		}
		tri := make([]uint32, 0, 3*(len(idx)-2))
		for i := 0; i+2 < len(idx); i++ {
			switch {
			case p.Mode == gltf.PrimitiveTriangleFan:
				tri = append(tri, idx[i+1], idx[i+2], idx[0])
			case i%2 == 0:
				tri = append(tri, idx[i], idx[i+1], idx[i+2])
			default:
				tri = append(tri, idx[i], idx[i+2], idx[i+1])
			}
		}
		return tri, nil
	}
	if len(idx)%3 != 0 {
		return nil, fmt.Errorf("indices: %d, not a multiple of 3", len(idx))
	}
	return idx, nil
}

// skinning fills a part's joints (palette indices) and weights.
func (c *converter) skinning(part *Part, p *gltf.Primitive, b binding, n int,
	read func(string, accessorUse) ([]float32, int, bool, error)) error {
	if err := c.spend(8 * n); err != nil {
		return err
	}
	part.Joints = make([][4]uint16, n)
	part.Weights = make([][4]float32, n)
	if b.skin < 0 {
		r := uint16(b.first)
		for i := range n {
			part.Joints[i] = [4]uint16{r, r, r, r}
			part.Weights[i] = [4]float32{1, 0, 0, 0}
		}
		return nil
	}
	ji, ok := p.Attributes[gltf.JOINTS_0]
	if !ok {
		return errors.New("no JOINTS_0 attribute")
	}
	if _, ok := p.Attributes[gltf.WEIGHTS_0]; !ok {
		return errors.New("no WEIGHTS_0 attribute")
	}
	js, _, err := c.uints(ji, jointsUse)
	if err == nil && len(js)/4 != n {
		err = fmt.Errorf("%d elements, POSITION has %d", len(js)/4, n)
	}
	if err != nil {
		return fmt.Errorf("attribute JOINTS_0: %w", err)
	}
	ws, _, _, err := read(gltf.WEIGHTS_0, weightsUse)
	if err != nil {
		return err
	}
	for i := range n {
		w := [4]float32(ws[4*i : 4*i+4])
		var sum float32
		for k, x := range w {
			if !(x >= 0) {
				return fmt.Errorf("attribute WEIGHTS_0: vertex %d: weight %d is %g", i, k, x)
			}
			sum += x
		}
		if !(sum > 0) || math.IsInf(float64(sum), 0) {
			return fmt.Errorf("attribute WEIGHTS_0: vertex %d: the weights sum to %g", i, sum)
		}
		for k := range w {
			w[k] /= sum
			j := js[4*i+k]
			switch {
			case w[k] == 0:
				j = 0
			case int64(j) >= int64(b.joints):
				return fmt.Errorf("attribute JOINTS_0: vertex %d: joint %d, skin %d has %d joints", i, j, b.skin, b.joints)
			}
			part.Joints[i][k] = uint16(b.first + int(j))
		}
		part.Weights[i] = w
	}
	return nil
}

// target reads one morph target's position and normal offsets.
func (c *converter) target(t gltf.PrimitiveAttributes, n int) (Target, error) {
	var target Target
	for _, name := range []string{gltf.POSITION, gltf.NORMAL} {
		i, ok := t[name]
		if !ok {
			continue
		}
		v, _, err := c.floats(i, floatVec3)
		if err == nil && len(v)/3 != n {
			err = fmt.Errorf("%d elements, the primitive has %d vertices", len(v)/3, n)
		}
		var vs []mgl32.Vec3
		if err == nil {
			vs, err = vec3s(v)
		}
		if err != nil {
			return target, fmt.Errorf("attribute %s: %w", name, err)
		}
		if name == gltf.POSITION {
			target.Positions = vs
		} else {
			target.Normals = vs
		}
	}
	if target.Positions == nil {
		if err := c.spend(3 * n); err != nil {
			return target, err
		}
		target.Positions = make([]mgl32.Vec3, n)
	}
	return target, nil
}

// material reads a primitive's base colour factor and texture.
func (c *converter) material(p *gltf.Primitive, hasUVs bool) (Material, error) {
	mat := Material{BaseColor: [4]float32{1, 1, 1, 1}}
	if p.Material == nil {
		return mat, nil
	}
	mi := *p.Material
	if mi < 0 || mi >= len(c.doc.Materials) {
		return mat, fmt.Errorf("material %d does not exist (the file has %d)", mi, len(c.doc.Materials))
	}
	m := c.doc.Materials[mi]
	if m == nil {
		return mat, fmt.Errorf("material %d is null", mi)
	}
	where := fmt.Sprintf("material %d", mi)
	if m.Name != "" {
		where = fmt.Sprintf("material %d (%s)", mi, m.Name)
	}
	pbr := m.PBRMetallicRoughness
	if pbr == nil {
		return mat, nil
	}
	f := pbr.BaseColorFactorOrDefault()
	for k := range f {
		mat.BaseColor[k] = float32(f[k])
	}
	if !finite(mat.BaseColor[:]...) {
		return mat, fmt.Errorf("%s: base colour factor %v is not finite", where, f)
	}
	tex := pbr.BaseColorTexture
	if tex == nil {
		return mat, nil
	}
	if tex.TexCoord != 0 {
		return mat, fmt.Errorf("%s: the base colour texture uses TEXCOORD_%d, only TEXCOORD_0 is read", where, tex.TexCoord)
	}
	if !hasUVs {
		return mat, fmt.Errorf("%s: a base colour texture, but the primitive has no TEXCOORD_0", where)
	}
	img, err := c.texture(tex.Index)
	if err != nil {
		return mat, fmt.Errorf("%s: base colour texture: %w", where, err)
	}
	mat.Texture = img
	return mat, nil
}

// texture returns the decoded image of texture i.
func (c *converter) texture(i int) (*image.RGBA, error) {
	if i < 0 || i >= len(c.doc.Textures) {
		return nil, fmt.Errorf("texture %d does not exist (the file has %d)", i, len(c.doc.Textures))
	}
	t := c.doc.Textures[i]
	if t == nil {
		return nil, fmt.Errorf("texture %d is null", i)
	}
	if t.Source == nil {
		return nil, fmt.Errorf("texture %d has no source image (images of extensions are not read)", i)
	}
	src := *t.Source
	if src < 0 || src >= len(c.doc.Images) {
		return nil, fmt.Errorf("texture %d: image %d does not exist (the file has %d)", i, src, len(c.doc.Images))
	}
	if img, ok := c.images[src]; ok {
		return img, nil
	}
	if err, ok := c.imageErr[src]; ok {
		return nil, err
	}
	img, err := c.image(src)
	if err != nil {
		err = fmt.Errorf("image %d: %w", src, err)
		c.imageErr[src] = err
		return nil, err
	}
	c.images[src] = img
	return img, nil
}

// clips converts every animation, in the file's order (clip i is
// animation i). A channel that targets a node outside the converted scene,
// or no node (an extension's), is dropped.
func (c *converter) clips() error {
	doc := c.doc
	for ai, an := range doc.Animations {
		if an == nil {
			return fmt.Errorf("animation %d is null", ai)
		}
		where := fmt.Sprintf("animation %d", ai)
		if an.Name != "" {
			where = fmt.Sprintf("animation %d (%s)", ai, an.Name)
		}
		clip := Clip{Name: an.Name}
		for ci, ch := range an.Channels {
			if ch == nil {
				return fmt.Errorf("%s: channel %d is null", where, ci)
			}
			if ch.Target.Node == nil {
				continue
			}
			f := *ch.Target.Node
			if f < 0 || f >= len(doc.Nodes) {
				return fmt.Errorf("%s channel %d: node %d does not exist (the file has %d)", where, ci, f, len(doc.Nodes))
			}
			if c.newIndex[f] < 0 {
				continue
			}
			if ch.Sampler < 0 || ch.Sampler >= len(an.Samplers) || an.Samplers[ch.Sampler] == nil {
				return fmt.Errorf("%s channel %d: sampler %d does not exist (the animation has %d)", where, ci, ch.Sampler, len(an.Samplers))
			}
			channel, err := c.channel(an.Samplers[ch.Sampler], ch.Sampler, ch.Target.Path, f)
			if err != nil {
				return fmt.Errorf("%s channel %d: %w", where, ci, err)
			}
			clip.Duration = max(clip.Duration, channel.Times[len(channel.Times)-1])
			clip.Channels = append(clip.Channels, channel)
		}
		c.m.Clips = append(c.m.Clips, clip)
	}
	return nil
}

// channel converts one animation channel that targets node f.
func (c *converter) channel(s *gltf.AnimationSampler, si int, path gltf.TRSProperty, f int) (Channel, error) {
	ch := Channel{Node: c.newIndex[f]}
	var per int
	var use accessorUse
	switch path {
	case gltf.TRSTranslation:
		ch.Path, per, use = Translation, 3, floatVec3
	case gltf.TRSRotation:
		ch.Path, per, use = Rotation, 4, rotationUse
	case gltf.TRSScale:
		ch.Path, per, use = Scale, 3, floatVec3
	case gltf.TRSWeights:
		block, ok := c.blocks[f]
		if !ok {
			return ch, fmt.Errorf("drives the weights of %s, which has no morph targets", c.nodeName(f))
		}
		ch.Path, per, use = Weights, block.count, morphWeightsUse
		ch.FirstWeight, ch.Count = block.first, block.count
	default:
		return ch, fmt.Errorf("path %s is not supported", path)
	}
	perKey := per
	switch s.Interpolation {
	case gltf.InterpolationLinear:
		ch.Interpolation = Linear
	case gltf.InterpolationStep:
		ch.Interpolation = Step
	case gltf.InterpolationCubicSpline:
		ch.Interpolation, perKey = CubicSpline, 3*per
	default:
		return ch, fmt.Errorf("sampler %d: interpolation %s is not supported", si, s.Interpolation)
	}
	times, _, err := c.floats(s.Input, floatScalar)
	if err != nil {
		return ch, fmt.Errorf("sampler %d: input: %w", si, err)
	}
	for k, t := range times {
		if !finite(t) || t < 0 {
			return ch, fmt.Errorf("sampler %d: input: key %d at time %g", si, k, t)
		}
		if k > 0 && t < times[k-1] {
			return ch, fmt.Errorf("sampler %d: input: key %d at %g s comes before key %d at %g s", si, k, t, k-1, times[k-1])
		}
	}
	values, _, err := c.floats(s.Output, use)
	if err != nil {
		return ch, fmt.Errorf("sampler %d: output: %w", si, err)
	}
	if len(values) != len(times)*perKey {
		return ch, fmt.Errorf("sampler %d: output: %d values, %d keys of %d need %d", si, len(values), len(times), perKey, len(times)*perKey)
	}
	if !finite(values...) {
		return ch, fmt.Errorf("sampler %d: output: a value is not finite", si)
	}
	if ch.Path == Rotation {
		for k := range times {
			at := 4 * k
			if ch.Interpolation == CubicSpline {
				at = 12*k + 4
			}
			q := values[at : at+4]
			l := math.Sqrt(float64(q[0])*float64(q[0]) + float64(q[1])*float64(q[1]) + float64(q[2])*float64(q[2]) + float64(q[3])*float64(q[3]))
			if !(l > 1e-6) {
				return ch, fmt.Errorf("sampler %d: output: key %d's rotation %v is not a unit quaternion", si, k, q)
			}
			for i := range q {
				q[i] = float32(float64(q[i]) / l)
			}
		}
	}
	ch.Times, ch.Values = times, values
	return ch, nil
}

// vec3s groups floats by three, checking they are finite.
func vec3s(v []float32) ([]mgl32.Vec3, error) {
	out := make([]mgl32.Vec3, len(v)/3)
	for i := range out {
		out[i] = mgl32.Vec3{v[3*i], v[3*i+1], v[3*i+2]}
		if !finite(out[i][:]...) {
			return nil, fmt.Errorf("vertex %d is not finite: %v", i, out[i])
		}
	}
	return out, nil
}

// finite reports whether every value is neither infinite nor NaN.
func finite(vs ...float32) bool {
	for _, v := range vs {
		if v-v != 0 {
			return false
		}
	}
	return true
}

// unitOrUp returns v normalised, or +Y when v has no length.
func unitOrUp(v mgl32.Vec3) mgl32.Vec3 {
	l := math.Sqrt(float64(v[0])*float64(v[0]) + float64(v[1])*float64(v[1]) + float64(v[2])*float64(v[2]))
	if !(l > 1e-20) || math.IsInf(l, 0) {
		return mgl32.Vec3{0, 1, 0}
	}
	return mgl32.Vec3{float32(float64(v[0]) / l), float32(float64(v[1]) / l), float32(float64(v[2]) / l)}
}

// unorm8 converts a colour component in [0, 1] (clamped) to 0..255.
func unorm8(v float32) uint8 {
	switch {
	case !(v > 0):
		return 0
	case v >= 1:
		return 255
	}
	return uint8(v*255 + 0.5)
}
