package physics

// Contacts with boxes: capsule–box and box–box.

// Contact ids of the box pairs (besides those in collide.go).
const (
	// idBoxEdge + 4·axis + sign bits: capsule–box, the axis against one
	// edge of the box (axis = the edge's direction; bit 0 and bit 1 are
	// set when the edge lies on the + side of the next and the one after).
	idBoxEdge = 128
	// Box–box face contact: ref<<9 | incident<<6 | in<<3 | out, where ref
	// is the reference face (0..5 on A, 6..11 on B; face 2k is +axis k,
	// 2k+1 is −axis k), incident the other box's face (0..5), and in, out
	// the two edges of the clipped polygon meeting at the point (0..3 the
	// incident face's edges, 4..7 the reference face's side planes).
	// Box–box edge contact: idEdgeEdge | edgeA<<4 | edgeB, an edge being
	// 4·axis + sign bits as for idBoxEdge.
	idEdgeEdge = 1 << 14
)

// Axis choice between near ties (Box2D's rule): a later axis (a face of B,
// then an edge pair) replaces the best so far only when its separation is
// larger by a clear amount, so a box resting on a face keeps the same
// reference face, and the same ids, while it wobbles.
const (
	axisRelTol = 0.98
	axisAbsTol = 0.001
)

// faceAlignCos is the cosine under which a capsule–box normal counts as a
// face normal (about 0.8°): the capsule's axis is then clipped to the face
// for up to two points.
const faceAlignCos = 0.9999

// preferred reports whether separation s beats the best one so far under
// the tie rule.
func preferred(s, best float32) bool {
	return s > float32(axisRelTol*best)+axisAbsTol
}

// clipToSlab narrows the parameter range [t0, t1] of the line p + t·d
// (one coordinate of it) to the slab −h <= x <= h; t0 > t1 when nothing is
// left.
func clipToSlab(p, d, h, t0, t1 float32) (float32, float32) {
	if d == 0 {
		if abs(p) > h {
			return 1, 0
		}
		return t0, t1
	}
	ta, tb := (-h-p)/d, (h-p)/d
	if ta > tb {
		ta, tb = tb, ta
	}
	return max(t0, ta), min(t1, tb)
}

// edgeCode names the edge of a box along axis k whose other coordinates
// have the signs of dir's (non-negative counts as +): 4k + sign bits.
func edgeCode(k int, dir vec3) uint32 {
	code := uint32(4 * k)
	if dir.at((k+1)%3) >= 0 {
		code |= 1
	}
	if dir.at((k+2)%3) >= 0 {
		code |= 2
	}
	return code
}

// boxEdge returns the ends, in the box's frame, of the edge of the box
// with half extents h along axis k whose other coordinates have the signs
// of dir's.
func boxEdge(h vec3, k int, dir vec3) (e0, e1 vec3) {
	c := [3]float32{h.x, h.y, h.z}
	for j := range 3 {
		if j != k && dir.at(j) < 0 {
			c[j] = -c[j]
		}
	}
	c[k] = -h.at(k)
	e0 = vec3{c[0], c[1], c[2]}
	c[k] = h.at(k)
	return e0, vec3{c[0], c[1], c[2]}
}

// collideCapsuleBox works in the box's frame with the capsule's axis p0p1:
// when the axis enters the box, a separating-axis test over the box's
// faces and the axis crossed with its edges gives the least push-out;
// otherwise the nearest points of the axis and the box give the normal. A
// contact on a face clips the axis to the face (a capsule lying on a face
// touches at two points); any other is one point.
func collideCapsuleBox(a *shape, pa pose, b *shape, pb pose, margin float32, m *manifold) {
	rb := pb.q.rotation()
	w0, w1 := capsuleAxis(a, pa)
	p0 := rb.mulTVec(w0.sub(pb.p))
	d := rb.mulTVec(w1.sub(pb.p)).sub(p0)
	h := b.half
	r := a.radius

	var (
		n       vec3 // from the capsule to the box, box frame
		sep     float32
		x       vec3 // nearest point of the axis
		face    = -1 // the axis of the face touched (outward normal −n), or −1
		singleI uint32
	)
	t0, t1 := float32(0), float32(1)
	for k := range 3 {
		t0, t1 = clipToSlab(p0.at(k), d.at(k), h.at(k), t0, t1)
	}
	if t0 <= t1 {
		// The axis enters the box.
		mid := p0.addScaled(d, 0.5)
		half := d.scale(0.5)
		best, bestK := float32(0), 0
		for k := range 3 {
			s := abs(mid.at(k)) - (h.at(k) + abs(half.at(k)))
			if k == 0 || s > best {
				best, bestK = s, k
			}
		}
		face = bestK
		n = unitAxis(bestK, mid.at(bestK) >= 0)
		// Edge axes: e_k × d; the axis has no extent along them.
		dd := d.lengthSq()
		for k := range 3 {
			u := unitAxis(k, false).cross(d)
			ul := u.lengthSq()
			if ul < float32(1e-6*dd) || ul < minDirLengthSq {
				continue
			}
			u = u.scale(1 / sqrt(ul))
			s := abs(mid.dot(u)) - h.dot(u.abs())
			if preferred(s, best) {
				best, face = s, -1
				if mid.dot(u) > 0 {
					u = u.neg()
				}
				n = u
				e0, e1 := boxEdge(h, k, n.neg())
				sa, _ := nearestOnSegments(p0, p0.add(d), e0, e1)
				x = p0.addScaled(d, sa)
				singleI = idBoxEdge + edgeCode(k, n.neg())
			}
		}
		sep = best - r
		if sep > margin {
			return
		}
	} else {
		// Apart: the nearest pair among the ends against the box and the
		// axis against the twelve edges (ties: the first found).
		bestD := float32(0)
		var y vec3
		for e, p := range [2]vec3{p0, p0.add(d)} {
			q := p.max(h.neg()).min(h)
			if dd := p.sub(q).lengthSq(); e == 0 || dd < bestD {
				bestD, x, y = dd, p, q
			}
		}
		for k := range 3 {
			for s := range 4 {
				var dc [3]float32 // the edge's side: s's bits for the two other axes
				dc[k] = 1
				dc[(k+1)%3] = sgn(s&1 != 0)
				dc[(k+2)%3] = sgn(s&2 != 0)
				dir := vec3{dc[0], dc[1], dc[2]}
				e0, e1 := boxEdge(h, k, dir)
				sa, sb := nearestOnSegments(p0, p0.add(d), e0, e1)
				xa := p0.addScaled(d, sa)
				yb := e0.addScaled(e1.sub(e0), sb)
				if dd := xa.sub(yb).lengthSq(); dd < bestD {
					bestD, x, y = dd, xa, yb
				}
			}
		}
		var l float32
		n, l = direction(y.sub(x), vec3{})
		if l == 0 {
			n, _ = direction(p0.addScaled(d, 0.5).neg(), vec3{0, -1, 0})
		}
		sep = l - r
		if sep > margin {
			return
		}
		for k := range 3 {
			if abs(n.at(k)) >= faceAlignCos {
				face = k
			}
		}
		singleI = idBoxRegion + boxRegion(x, h)
	}

	m.normal = rb.mulVec(n)
	if face >= 0 {
		// On a face: the axis clipped to the face's side slabs.
		neg := n.at(face) > 0 // the outward normal −n points to −axis
		f := unitAxis(face, neg)
		t0, t1 := float32(0), float32(1)
		for k := range 3 {
			if k != face {
				t0, t1 = clipToSlab(p0.at(k), d.at(k), h.at(k), t0, t1)
			}
		}
		if t0 <= t1 {
			fi := uint32(2 * face)
			if neg {
				fi++
			}
			ends := 2
			if d.scale(t1-t0).lengthSq() < 1e-8 {
				ends = 1
			}
			hf := h.at(face)
			for e, t := range [2]float32{t0, t1} {
				if e >= ends {
					break
				}
				xk := p0.addScaled(d, t)
				s := xk.dot(f) - hf - r
				if s <= margin {
					pl := xk.addScaled(n, r+float32(s*0.5))
					m.pts[m.n] = contactPoint{p: rb.mulVec(pl).add(pb.p), sep: s, id: idBoxFace + 2*fi + uint32(e)}
					m.n++
				}
			}
			if m.n > 0 {
				return
			}
		}
		singleI = idBoxRegion + boxRegion(x, h)
	}
	m.n = 1
	pl := x.addScaled(n, r+float32(sep*0.5))
	m.pts[0] = contactPoint{p: rb.mulVec(pl).add(pb.p), sep: sep, id: singleI}
}

// sgn returns 1 when pos, else −1.
func sgn(pos bool) float32 {
	if pos {
		return 1
	}
	return -1
}

// clipVertex is a corner of the incident face's polygon while it is
// clipped, in the reference box's frame, with the two polygon edges that
// meet there: 0..3 the incident face's own edges, 4..7 the reference
// face's side planes.
type clipVertex struct {
	p         vec3
	ein, eout uint8
}

// collideBoxes: the separating-axis test over the 15 axes (the faces of A,
// the faces of B, the 9 edge pairs), preferring faces; a face axis clips
// the other box's most opposed face against the reference face's side
// planes, an edge axis gives one point between the two edges.
func collideBoxes(a *shape, pa pose, b *shape, pb pose, margin float32, m *manifold) {
	ra, rb := pa.q.rotation(), pb.q.rotation()
	axA := [3]vec3{ra.col(0), ra.col(1), ra.col(2)}
	axB := [3]vec3{rb.col(0), rb.col(1), rb.col(2)}
	ha := [3]float32{a.half.x, a.half.y, a.half.z}
	hb := [3]float32{b.half.x, b.half.y, b.half.z}
	d := pb.p.sub(pa.p)
	var c, ac [3][3]float32 // c[i][j] = A_i · B_j
	var ta, tb [3]float32   // d along A's axes, along B's
	for i := range 3 {
		ta[i] = axA[i].dot(d)
		tb[i] = axB[i].dot(d)
		for j := range 3 {
			c[i][j] = axA[i].dot(axB[j])
			ac[i][j] = abs(c[i][j])
		}
	}

	// Faces of A.
	sA, iA := float32(0), 0
	for i := range 3 {
		s := abs(ta[i]) - (ha[i] + float32(hb[0]*ac[i][0]) + float32(hb[1]*ac[i][1]) + float32(hb[2]*ac[i][2]))
		if s > margin {
			return
		}
		if i == 0 || s > sA {
			sA, iA = s, i
		}
	}
	// Faces of B.
	sB, iB := float32(0), 0
	for j := range 3 {
		s := abs(tb[j]) - (hb[j] + float32(ha[0]*ac[0][j]) + float32(ha[1]*ac[1][j]) + float32(ha[2]*ac[2][j]))
		if s > margin {
			return
		}
		if j == 0 || s > sB {
			sB, iB = s, j
		}
	}
	// Edge pairs A_i × B_j; parallel ones are left to the faces.
	sE, iE, jE := float32(0), -1, -1
	var dlE float32
	for i := range 3 {
		i1, i2 := (i+1)%3, (i+2)%3
		for j := range 3 {
			j1, j2 := (j+1)%3, (j+2)%3
			lsq := 1 - float32(c[i][j]*c[i][j])
			if lsq < 1e-6 {
				continue
			}
			dl := float32(ta[i2]*c[i1][j]) - float32(ta[i1]*c[i2][j])
			rA := float32(ha[i1]*ac[i2][j]) + float32(ha[i2]*ac[i1][j])
			rB := float32(hb[j1]*ac[i][j2]) + float32(hb[j2]*ac[i][j1])
			s := (abs(dl) - (rA + rB)) / sqrt(lsq)
			if s > margin {
				return
			}
			if iE < 0 || s > sE {
				sE, iE, jE, dlE = s, i, j, dl
			}
		}
	}

	refB := preferred(sB, sA)
	sFace := sA
	if refB {
		sFace = sB
	}
	if iE >= 0 && preferred(sE, sFace) {
		edgeContact(pa, pb, axA, axB, ha, hb, iE, jE, dlE, sE, m)
		return
	}
	if !refB {
		var inc [3]vec3 // B's axes in A's frame
		for j := range 3 {
			inc[j] = vec3{c[0][j], c[1][j], c[2][j]}
		}
		faceContact(ha, hb, vec3{ta[0], ta[1], ta[2]}, inc, iA, 0, margin, m)
		toWorld(m, ra, pa.p, false)
		return
	}
	var inc [3]vec3 // A's axes in B's frame
	for i := range 3 {
		inc[i] = vec3{c[i][0], c[i][1], c[i][2]}
	}
	faceContact(hb, ha, vec3{-tb[0], -tb[1], -tb[2]}, inc, iB, 6, margin, m)
	toWorld(m, rb, pb.p, true)
}

// toWorld turns m's normal and points from the frame (rotation r, origin o)
// of the reference box to the world, flipping the normal when the
// reference box is B.
func toWorld(m *manifold, r mat3, o vec3, flip bool) {
	if m.n == 0 {
		return
	}
	m.normal = r.mulVec(m.normal)
	if flip {
		m.normal = m.normal.neg()
	}
	for k := range m.n {
		m.pts[k].p = r.mulVec(m.pts[k].p).add(o)
	}
}

// edgeContact writes the one point of an edge–edge contact: A's edge along
// axis i and B's along axis j, those farthest towards each other on the
// axis A_i × B_j (dl = d · that axis, unnormalised), with separation s.
func edgeContact(pa, pb pose, axA, axB [3]vec3, ha, hb [3]float32, i, j int, dl, s float32, m *manifold) {
	n, _ := direction(axA[i].cross(axB[j]), vec3{0, 1, 0})
	if dl < 0 {
		n = n.neg()
	}
	// The supporting edges: A's towards n, B's towards −n.
	ca, cb := pa.p, pb.p
	var da, db [3]float32 // the edges' sides, in each box's frame
	for k := range 3 {
		da[k] = sgn(axA[k].dot(n) >= 0)
		db[k] = sgn(axB[k].dot(n) <= 0)
		if k != i {
			ca = ca.addScaled(axA[k], float32(ha[k]*da[k]))
		}
		if k != j {
			cb = cb.addScaled(axB[k], float32(hb[k]*db[k]))
		}
	}
	dirA, dirB := vec3{da[0], da[1], da[2]}, vec3{db[0], db[1], db[2]}
	ua, ub := axA[i].scale(ha[i]), axB[j].scale(hb[j])
	a0, a1 := ca.sub(ua), ca.add(ua)
	b0, b1 := cb.sub(ub), cb.add(ub)
	sa, sb := nearestOnSegments(a0, a1, b0, b1)
	xa := a0.addScaled(a1.sub(a0), sa)
	xb := b0.addScaled(b1.sub(b0), sb)
	m.normal = n
	m.n = 1
	m.pts[0] = contactPoint{
		p:   xa.add(xb).scale(0.5),
		sep: s,
		id:  idEdgeEdge | edgeCode(i, dirA)<<4 | edgeCode(j, dirB),
	}
}

// faceContact writes, in the reference box's frame, the contact of the
// reference box (half extents hr) through its face on axis i with the
// incident box (half extents hi, centre ci, axes inc in the reference
// frame): the incident box's face most opposed to the reference face,
// clipped to the reference face's side planes, its corners within margin,
// at most maxPoints of them. refBase is 0 when the reference is A, 6 when
// it is B (added to the face index in the ids).
func faceContact(hr, hi [3]float32, ci vec3, inc [3]vec3, i int, refBase uint32, margin float32, m *manifold) {
	refNeg := ci.at(i) < 0
	f := unitAxis(i, refNeg) // outward normal of the reference face
	refFace := refBase + uint32(2*i)
	if refNeg {
		refFace++
	}
	// The incident face: the axis most parallel to f (ties: lower), on the
	// side facing the reference face.
	j, best := 0, float32(-1)
	for k := range 3 {
		if v := abs(inc[k].at(i)); v > best {
			j, best = k, v
		}
	}
	incNeg := (inc[j].at(i) >= 0) != refNeg // the +j face points along f: take −j
	nI := inc[j]
	incFace := uint32(2 * j)
	if incNeg {
		nI = nI.neg()
		incFace++
	}
	cf := ci.addScaled(nI, hi[j])
	j1, j2 := (j+1)%3, (j+2)%3
	u, v := inc[j1].scale(hi[j1]), inc[j2].scale(hi[j2])
	var bufA, bufB [8]clipVertex
	src, dst := &bufA, &bufB
	src[0] = clipVertex{cf.add(u).add(v), 3, 0}
	src[1] = clipVertex{cf.sub(u).add(v), 0, 1}
	src[2] = clipVertex{cf.sub(u).sub(v), 1, 2}
	src[3] = clipVertex{cf.add(u).sub(v), 2, 3}
	n := 4

	// Sutherland–Hodgman against the four side planes: +i1, −i1, +i2, −i2.
	i1, i2 := (i+1)%3, (i+2)%3
	for pl := range 4 {
		axis := i1
		if pl >= 2 {
			axis = i2
		}
		neg := pl&1 == 1
		lim := hr[axis]
		label := uint8(4 + pl)
		out := 0
		for k := range n {
			v0, v1 := src[k], src[(k+1)%n]
			d0, d1 := v0.p.at(axis), v1.p.at(axis)
			if neg {
				d0, d1 = -d0, -d1
			}
			d0, d1 = d0-lim, d1-lim
			in0, in1 := d0 <= 0, d1 <= 0
			if in0 {
				dst[out] = v0
				out++
			}
			if in0 != in1 {
				p := v0.p.addScaled(v1.p.sub(v0.p), d0/(d0-d1))
				if in0 {
					dst[out] = clipVertex{p, v0.eout, label}
				} else {
					dst[out] = clipVertex{p, label, v0.eout}
				}
				out++
			}
		}
		src, dst = dst, src
		n = out
		if n == 0 {
			return
		}
	}

	// Corners within margin of the reference face, moved half way to it.
	var seps [8]float32
	var ids [8]uint32
	kept := 0
	hf := hr[i]
	for k := range n {
		x := src[k].p
		s := x.dot(f) - hf
		if s > margin {
			continue
		}
		src[kept] = clipVertex{p: x.addScaled(f, float32(-0.5*s))}
		seps[kept] = s
		ids[kept] = refFace<<9 | incFace<<6 | uint32(src[k].ein)<<3 | uint32(src[k].eout)
		kept++
	}
	if kept == 0 {
		return
	}
	m.normal = f
	if kept <= maxPoints {
		for k := range kept {
			m.pts[k] = contactPoint{p: src[k].p, sep: seps[k], id: ids[k]}
		}
		m.n = kept
		return
	}
	sel := reducePoints(src[:kept], seps[:kept], i1, i2)
	for k, s := range sel {
		m.pts[k] = contactPoint{p: src[s].p, sep: seps[s], id: ids[s]}
	}
	m.n = maxPoints
}

// reducePoints chooses maxPoints of the points (in the reference frame,
// i1 and i2 the face's axes) that keep the contact's extent: the deepest,
// the farthest from it, the farthest on each side of the line through
// those two (or, when all lie on one side, the farthest from the three).
// Ties go to the lower index; the choice is returned in index order.
func reducePoints(pts []clipVertex, seps []float32, i1, i2 int) [maxPoints]int {
	x := func(k int) (float32, float32) { return pts[k].p.at(i1), pts[k].p.at(i2) }
	k0 := 0
	for k := range seps {
		if seps[k] < seps[k0] {
			k0 = k
		}
	}
	x0, y0 := x(k0)
	k1, best := -1, float32(-1)
	for k := range pts {
		xk, yk := x(k)
		dx, dy := xk-x0, yk-y0
		if d := float32(dx*dx) + float32(dy*dy); k != k0 && d > best {
			k1, best = k, d
		}
	}
	x1, y1 := x(k1)
	ex, ey := x1-x0, y1-y0
	k2, k3 := -1, -1
	var hiA, loA float32
	for k := range pts {
		if k == k0 || k == k1 {
			continue
		}
		xk, yk := x(k)
		a := float32(ex*(yk-y0)) - float32(ey*(xk-x0))
		if a > hiA {
			k2, hiA = k, a
		}
		if a < loA {
			k3, loA = k, a
		}
	}
	if k2 < 0 || k3 < 0 {
		// All on one side (or on the line): the one farthest from the
		// chosen ones, then (if still short) again.
		for k2 < 0 || k3 < 0 {
			far, bestD := -1, float32(-1)
			for k := range pts {
				if k == k0 || k == k1 || k == k2 || k == k3 {
					continue
				}
				xk, yk := x(k)
				dmin := float32(-1)
				for _, c := range [4]int{k0, k1, k2, k3} {
					if c < 0 {
						continue
					}
					xc, yc := x(c)
					dx, dy := xk-xc, yk-yc
					if d := float32(dx*dx) + float32(dy*dy); dmin < 0 || d < dmin {
						dmin = d
					}
				}
				if dmin > bestD {
					far, bestD = k, dmin
				}
			}
			if k2 < 0 {
				k2 = far
			} else {
				k3 = far
			}
		}
	}
	sel := [maxPoints]int{k0, k1, k2, k3}
	// Index order (insertion sort of four).
	for a := 1; a < maxPoints; a++ {
		for b := a; b > 0 && sel[b] < sel[b-1]; b-- {
			sel[b], sel[b-1] = sel[b-1], sel[b]
		}
	}
	return sel
}
