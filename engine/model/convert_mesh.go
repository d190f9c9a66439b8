package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
)

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
