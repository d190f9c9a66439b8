package physics

// Contacts of shapes made of parts: a compound against any shape, and a
// convex shape against a mesh. Each touching pair of parts gives a
// manifold of its own, named by its sub so the cache finds it again next
// step (warm starting, persistent point ids):
//
//   - convex shape and mesh: the triangle's index;
//   - compound part i and mesh triangle t: i<<24 | t (a mesh has at most
//     MaxMeshTriangles = 1<<24 triangles, a compound MaxCompoundParts =
//     256 parts);
//   - compound part i and a convex shape: i;
//   - part i of the compound in the lower slot (A) and part j of the
//     other: i<<8 | j.
//
// The manifolds come out in ascending sub order, as the cache keeps them.

// collideParts appends to out the manifolds of shape a at pa with shape b
// at pb, one of the two a mesh or a compound (not two meshes), each with
// its normal from a to b, in ascending sub order, and returns out.
func (s *Space) collideParts(a *shape, pa pose, b *shape, pb pose, margin float32, out []manifold) []manifold {
	switch {
	case a.kind == Compound:
		if b.kind == Compound {
			// b's parts' boxes, once for all of a's parts.
			s.sc.partBox = s.sc.partBox[:0]
			for j := range b.comp.parts {
				pt := &b.comp.parts[j]
				s.sc.partBox = append(s.sc.partBox, pt.shape.aabb(partPose(pb, pt)))
			}
		}
		for i := range a.comp.parts {
			pt := &a.comp.parts[i]
			out = s.collidePart(&pt.shape, partPose(pa, pt), uint32(i), false, b, pb, margin, out)
		}
	case b.kind == Compound:
		for j := range b.comp.parts {
			pt := &b.comp.parts[j]
			out = s.collidePart(&pt.shape, partPose(pb, pt), uint32(j), true, a, pa, margin, out)
		}
	case a.kind == Mesh:
		// collideMesh's normals point from the shape to the mesh, B to A
		// here.
		n0 := len(out)
		out = collideMesh(b, pb, a.mesh, pa, margin, &s.mq, out)
		for i := n0; i < len(out); i++ {
			out[i].normal = out[i].normal.neg()
		}
	default:
		out = collideMesh(a, pa, b.mesh, pb, margin, &s.mq, out)
	}
	return out
}

// collidePart appends to out the manifolds of part i of a compound, the
// convex shape p at pp, with the other body's shape o at po: a mesh, a
// convex shape or (when the part's compound is A) a compound whose parts'
// boxes are in s.sc.partBox. isB says the part's compound is the pair's
// B, so the normals, from p to o, are turned to point from A to B.
func (s *Space) collidePart(p *shape, pp pose, i uint32, isB bool, o *shape, po pose, margin float32, out []manifold) []manifold {
	switch o.kind {
	case Mesh:
		n0 := len(out)
		out = collideMesh(p, pp, o.mesh, po, margin, &s.mq, out)
		for k := n0; k < len(out); k++ {
			m := &out[k]
			m.sub |= i << 24
			if isB {
				m.normal = m.normal.neg()
			}
		}
		return out
	case Compound:
		box := p.aabb(pp).grow(margin)
		for j := range o.comp.parts {
			if !box.overlaps(s.sc.partBox[j]) {
				continue
			}
			pt := &o.comp.parts[j]
			var m manifold
			collideConvex(p, pp, &pt.shape, partPose(po, pt), margin, &s.mq.gen, &m)
			if m.n > 0 {
				m.sub = i<<8 | uint32(j)
				out = append(out, m)
			}
		}
		return out
	}
	if !p.aabb(pp).grow(margin).overlaps(o.aabb(po)) {
		return out
	}
	var m manifold
	collideConvex(p, pp, o, po, margin, &s.mq.gen, &m)
	if m.n == 0 {
		return out
	}
	if isB {
		m.normal = m.normal.neg()
	}
	m.sub = i
	return append(out, m)
}

// collideConvex writes into m the contact of the convex shapes a at pa and
// b at pb in either kind order, normal from a to b; gen is the general
// contact's working memory (collideWith).
func collideConvex(a *shape, pa pose, b *shape, pb pose, margin float32, gen *convexScratch, m *manifold) {
	if a.kind <= b.kind {
		collideWith(a, pa, b, pb, margin, gen, m)
		return
	}
	collideWith(b, pb, a, pa, margin, gen, m)
	m.normal = m.normal.neg()
}
