package physics

// Contacts between two boxes.

// clipSlop is how far, as a fraction of the smallest half extent of the
// reference face and the incident box, the incident face may reach past
// the reference face's sides before it is clipped (the points are then
// clamped onto the face).
const clipSlop = 0.01

// lesser returns the lesser of a and b (the min builtin also orders
// zeros and NaNs, which costs here).
func lesser(a, b float32) float32 {
	if b < a {
		return b
	}
	return a
}

// mirror returns a (in the reference box's frame) in the order (u, v, h)
// = axes (i+1, i+2, i), h negated when neg.
func mirror(a vec3, i int, neg bool) vec3 {
	u, v, h := permute(a, i)
	if neg {
		h = -h
	}
	return vec3{u, v, h}
}

// clipVertex is a corner of the incident face's polygon while it is
// clipped, in the reference box's frame with its axes taken in the order
// (i1, i2, i): u and v along the reference face, h along its normal axis;
// ein and eout are the polygon edges that meet there: 0..3 the incident
// face's own edges, 4..7 the reference face's side planes.
type clipVertex struct {
	u, v, h   float32
	ein, eout uint8
}

// permute returns p's coordinates in the order (i+1, i+2, i).
func permute(p vec3, i int) (u, v, h float32) {
	switch i {
	case 0:
		return p.y, p.z, p.x
	case 1:
		return p.z, p.x, p.y
	}
	return p.x, p.y, p.z
}

// collideBoxes: the separating-axis test over the 15 axes (the faces of A,
// the faces of B, the 9 edge pairs), preferring faces; a face axis clips
// the other box's most opposed face against the reference face's side
// planes, an edge axis gives one point between the two edges.
func collideBoxes(a *shape, pa pose, b *shape, pb pose, margin float32, m *manifold) {
	ha, hb := a.half, b.half
	d := pb.p.sub(pa.p)
	ra := pa.q.rotation()
	c := pa.q.conj().mul(pb.q).rotation() // c[i][j] = A_i · B_j
	ta := ra.mulTVec(d)                   // d along A's axes
	tb := c.mulTVec(ta)                   // d along B's axes
	ac := mat3{c.r0.abs(), c.r1.abs(), c.r2.abs()}

	// Faces of A, faces of B: |t| − (own half extent + the other's
	// projected); ties go to the lower axis.
	fa := ta.abs().sub(ha.add(ac.mulVec(hb)))
	fb := tb.abs().sub(hb.add(ac.mulTVec(ha)))
	if fa.x > margin || fa.y > margin || fa.z > margin || fb.x > margin || fb.y > margin || fb.z > margin {
		return
	}
	sA, iA := maxAxis(fa)
	sB, iB := maxAxis(fb)
	// A's face against B's: the tie rule, with the face of last step's
	// contact as the best so far. Two boxes resting face to face with a
	// slight tilt have two face axes that separate them within a
	// millimetre or two of each other; without the hint the reference
	// face (and so the points) would flip between them as they wobble.
	refB := preferred(sB, sA)
	if m.lastRefB {
		refB = !preferred(sA, sB)
	}
	sFace := sA
	if refB {
		sFace = sB
	}
	// Edge pairs A_i × B_j, one row of c (one i) at a time: with i1, i2
	// the next axes, d · (A_i × B_j) = ta[i2] c[i1][j] − ta[i1] c[i2][j],
	// A's extent on it ha[i1] |c[i2][j]| + ha[i2] |c[i1][j]|, B's
	// hb[j1] |c[i][j2]| + hb[j2] |c[i][j1]|.
	dl0 := c.r1.scale(ta.z).sub(c.r2.scale(ta.y))
	dl1 := c.r2.scale(ta.x).sub(c.r0.scale(ta.z))
	dl2 := c.r0.scale(ta.y).sub(c.r1.scale(ta.x))
	n0 := dl0.abs().sub(ac.r2.scale(ha.y).add(ac.r1.scale(ha.z)).add(extentB(hb, ac.r0)))
	n1 := dl1.abs().sub(ac.r0.scale(ha.z).add(ac.r2.scale(ha.x)).add(extentB(hb, ac.r1)))
	n2 := dl2.abs().sub(ac.r1.scale(ha.x).add(ac.r0.scale(ha.y)).add(extentB(hb, ac.r2)))
	e := edgeAxes{i: -1, beat: axisBeat(sFace), margin: margin}
	if e.one(0, 0, n0.x, dl0.x, c.r0.x) || e.one(0, 1, n0.y, dl0.y, c.r0.y) || e.one(0, 2, n0.z, dl0.z, c.r0.z) ||
		e.one(1, 0, n1.x, dl1.x, c.r1.x) || e.one(1, 1, n1.y, dl1.y, c.r1.y) || e.one(1, 2, n1.z, dl1.z, c.r1.z) ||
		e.one(2, 0, n2.x, dl2.x, c.r2.x) || e.one(2, 1, n2.y, dl2.y, c.r2.y) || e.one(2, 2, n2.z, dl2.z, c.r2.z) {
		return
	}
	if e.i >= 0 && preferred(e.s, sFace) {
		onB, k, near := e.nearFace(&c)
		if !near {
			edgeContact(pa, pb, ra, pb.q.rotation(), ha, hb, e.i, e.j, e.dl, e.s, m)
			return
		}
		// The face the edge axis lies near is the reference, whichever
		// face axis separated best (the same face taken the other way
		// round).
		refB = onB
		if onB {
			iB = k
		} else {
			iA = k
		}
	}
	var missed bool
	if !refB {
		// B's axes in A's frame: c's columns.
		missed = faceContact(ha, hb, ta, c.col(0), c.col(1), c.col(2), iA, 0, ra, pa.p, margin, m)
	} else {
		// A's axes in B's frame: c's rows.
		missed = faceContact(hb, ha, tb.neg(), c.r0, c.r1, c.r2, iB, 6, pb.q.rotation(), pb.p, margin, m)
	}
	if missed && e.i >= 0 && e.s < 0 {
		// The boxes overlap, but the incident face clipped to the
		// reference face left nothing (they meet nearer edge to edge than
		// the tie rule let on): the edges' point.
		edgeContact(pa, pb, ra, pb.q.rotation(), ha, hb, e.i, e.j, e.dl, e.s, m)
	}
}

// maxAxis returns v's largest component and its axis (ties: lower axis).
func maxAxis(v vec3) (float32, int) {
	s, k := v.x, 0
	if v.y > s {
		s, k = v.y, 1
	}
	if v.z > s {
		s, k = v.z, 2
	}
	return s, k
}

// edgeAxes finds the best of the nine edge axes A_i × B_j of a box pair.
type edgeAxes struct {
	s, dl        float32 // the best one's separation and d · A_i × B_j
	i, j         int     // its axes (i = −1: none yet)
	beat, margin float32 // the least separation that could beat the faces; the margin
}

// extentB returns, for j = 0, 1, 2, B's extent on the axis A_i × B_j
// (unnormalised): hb[j1] a[j2] + hb[j2] a[j1], a = |c|'s row i.
func extentB(hb, a vec3) vec3 {
	return vec3{
		float32(hb.y*a.z) + float32(hb.z*a.y),
		float32(hb.z*a.x) + float32(hb.x*a.z),
		float32(hb.x*a.y) + float32(hb.y*a.x),
	}
}

// one considers the axis A_i × B_j: its separation is num/|A_i × B_j|,
// |A_i × B_j|² = 1 − cij². A negative num that cannot beat the faces
// needs no square root (dividing by a length <= 1 only lowers it), and
// parallel edges are left to the faces.
func (e *edgeAxes) one(i, j int, num, dl, cij float32) bool {
	if num <= 0 && num <= e.beat {
		return false
	}
	lsq := 1 - float32(cij*cij)
	if lsq < 1e-6 {
		return false
	}
	s := num / sqrt(lsq)
	if s > e.margin {
		return true
	}
	if e.i < 0 || s > e.s {
		e.s, e.dl, e.i, e.j = s, dl, i, j
	}
	return false
}

// edgeFaceCos is the cosine of the angle within which an edge axis lies
// so near a face normal of either box that the contact is a face's: two
// boxes resting face on face, one turned about the normal, have edge
// pairs (a horizontal edge of each) whose axis is the face normal itself,
// and with a small tilt such an axis can separate the boxes a little
// better than the faces do. One point between two edges would then hold
// what a face holds with four, and the contact would flip between the two
// from step to step (a pile never settles); as Jolt, which clips the
// supporting faces whatever the axis, the face contact is kept.
const edgeFaceCos = 0.99 // about 8°

// nearFace reports whether the best edge axis A_i × B_j lies within
// acos(edgeFaceCos) of a face normal of A or of B (c: B's axes in A's
// frame), and which: B's (onB) or A's, axis k, the nearest of them (ties:
// A's, then the lower axis). In A's frame the axis is A_i × c.col(j),
// whose components along A's other axes i1, i2 are −c[i2][j] and
// c[i1][j]; in B's frame it is c's row i × B_j, with components c[i][j2]
// and −c[i][j1] along j1, j2; its length squared is 1 − c[i][j]².
func (e *edgeAxes) nearFace(c *mat3) (onB bool, k int, near bool) {
	i1, i2 := next(e.i), next(next(e.i))
	j1, j2 := next(e.j), next(next(e.j))
	lsq := 1 - float32(c.at(e.i, e.j)*c.at(e.i, e.j))
	best := float32(float32(edgeFaceCos*edgeFaceCos) * lsq)
	for n, x := range [4]float32{c.at(i2, e.j), c.at(i1, e.j), c.at(e.i, j2), c.at(e.i, j1)} {
		if x2 := float32(x * x); x2 > best || (!near && x2 == best) {
			best, near = x2, true
			onB, k = n >= 2, [4]int{i1, i2, j1, j2}[n]
		}
	}
	return onB, k, near
}

// next returns the axis after k (0, 1, 2, then 0 again).
func next(k int) int {
	if k == 2 {
		return 0
	}
	return k + 1
}

// edgeContact writes the one point of an edge–edge contact: A's edge along
// axis i and B's along axis j, those farthest towards each other on the
// axis A_i × B_j (dl = d · that axis, unnormalised), with separation s.
func edgeContact(pa, pb pose, ra, rb mat3, ha, hb vec3, i, j int, dl, s float32, m *manifold) {
	axA := [3]vec3{ra.col(0), ra.col(1), ra.col(2)}
	axB := [3]vec3{rb.col(0), rb.col(1), rb.col(2)}
	hA := [3]float32{ha.x, ha.y, ha.z}
	hB := [3]float32{hb.x, hb.y, hb.z}
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
			ca = ca.addScaled(axA[k], float32(hA[k]*da[k]))
		}
		if k != j {
			cb = cb.addScaled(axB[k], float32(hB[k]*db[k]))
		}
	}
	dirA, dirB := vec3{da[0], da[1], da[2]}, vec3{db[0], db[1], db[2]}
	ua, ub := axA[i].scale(hA[i]), axB[j].scale(hB[j])
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

// clipSide keeps the part of polygon src[:n] on the inner side of one of
// the reference face's side planes (onV: the plane is across v, else
// across u; neg: the plane at −lim, else at +lim), writing it to dst and
// returning its corner count (Sutherland–Hodgman). label names the plane
// for the new corners' edges.
func clipSide(src, dst *[8]clipVertex, n int, onV, neg bool, lim float32, label uint8) int {
	// A convex polygon gains at most one corner per plane; the bound on
	// out only guards against rounding making it otherwise.
	out := 0
	for k := 0; k < n && k < 8; k++ {
		v0, v1 := &src[k], &src[(k+1)&7]
		if k+1 == n {
			v1 = &src[0]
		}
		d0, d1 := v0.u, v1.u
		if onV {
			d0, d1 = v0.v, v1.v
		}
		if neg {
			d0, d1 = -d0, -d1
		}
		d0, d1 = d0-lim, d1-lim
		in0, in1 := d0 <= 0, d1 <= 0
		if in0 && out < 8 {
			dst[out] = *v0
			out++
		}
		if in0 != in1 && out < 8 {
			t := d0 / (d0 - d1)
			p := clipVertex{
				u: v0.u + float32((v1.u-v0.u)*t),
				v: v0.v + float32((v1.v-v0.v)*t),
				h: v0.h + float32((v1.h-v0.h)*t),
			}
			if in0 {
				p.ein, p.eout = v0.eout, label
			} else {
				p.ein, p.eout = label, v0.eout
			}
			dst[out] = p
			out++
		}
	}
	return out
}

// faceContact writes the contact of the reference box (half extents hr)
// through its face on axis i with the incident box (half extents hi,
// centre ci and axes inc0, inc1, inc2 in the reference box's frame): the
// incident box's face most opposed to the reference face, clipped to the
// reference face's side planes, its corners within margin, at most
// maxPoints of them, turned to the world by the reference box's rotation r
// and centre o. refBase is 0 when the reference is A (the normal is the
// face's), 6 when it is B (the normal is flipped to point from A to B; 6 is
// added to the face index in the ids). It reports whether the clipping
// left nothing (the two faces do not overlap).
func faceContact(hr, hi vec3, ci vec3, inc0, inc1, inc2 vec3, i int, refBase uint32, r mat3, o vec3, margin float32, m *manifold) (missed bool) {
	// In the frame (u, v, h) = axes (i+1, i+2, i) of the reference box,
	// mirrored along h when the face is the − one, the reference face is
	// h = hf, |u| <= lu, |v| <= lv.
	fu, fv, hf := permute(hr, i)
	// The side planes stand a little outside the face, so the corners of
	// an equal box resting flush keep their ids (and the solver its warm
	// start) while it drifts by less than that; the points are then
	// clamped onto the face.
	slop := float32(clipSlop * lesser(lesser(fu, fv), lesser(hi.x, lesser(hi.y, hi.z))))
	lu, lv := fu+slop, fv+slop
	cu, cv, ch := permute(ci, i)
	refNeg := ch < 0
	refFace := refBase + uint32(2*i)
	az := r.col(i) // the world axis along h
	if refNeg {
		refFace++
		az = az.neg()
	}
	// The incident box's axes in (u, v, h).
	e0, e1, e2 := mirror(inc0, i, refNeg), mirror(inc1, i, refNeg), mirror(inc2, i, refNeg)
	if refNeg {
		ch = -ch
	}
	// The incident face: the axis most parallel to the reference normal
	// (ties: lower), on the side facing the reference face; its normal
	// axis and the two others scaled by the half extents.
	j := 0
	nI, hn, eu, ev := e0, hi.x, e1.scale(hi.y), e2.scale(hi.z)
	if z1 := abs(e1.z); z1 > abs(e0.z) && z1 >= abs(e2.z) {
		j = 1
		nI, hn, eu, ev = e1, hi.y, e2.scale(hi.z), e0.scale(hi.x)
	} else if abs(e2.z) > abs(e0.z) && abs(e2.z) > z1 {
		j = 2
		nI, hn, eu, ev = e2, hi.z, e0.scale(hi.x), e1.scale(hi.y)
	}
	incFace := uint32(2 * j)
	if nI.z >= 0 { // the +j face looks away from the reference face: take −j
		nI = nI.neg()
		incFace++
	}
	c := vec3{cu, cv, ch}.addScaled(nI, hn)
	// The incident face's corners, each with the edges that meet there
	// (corner k: edges (k+3)&3 in, k out).
	p0, p1 := c.add(eu).add(ev), c.sub(eu).add(ev)
	p2, p3 := c.sub(eu).sub(ev), c.add(eu).sub(ev)
	// Which of the four side planes (+u, −u, +v, −v) some corner lies
	// beyond: clipping only shrinks the polygon, so a plane no corner
	// passes is skipped, and when none is passed (a box resting inside a
	// larger face, or flush on an equal one) the corners are the contact.
	beyond := [4]bool{
		p0.x > lu || p1.x > lu || p2.x > lu || p3.x > lu,
		-p0.x > lu || -p1.x > lu || -p2.x > lu || -p3.x > lu,
		p0.y > lv || p1.y > lv || p2.y > lv || p3.y > lv,
		-p0.y > lv || -p1.y > lv || -p2.y > lv || -p3.y > lv,
	}
	ax, ay := r.col(next(i)), r.col(next(next(i))) // the world axes along u, v
	f := faceFrame{o: o, ax: ax, ay: ay, az: az, fu: fu, fv: fv, hf: hf, margin: margin,
		ids: refFace<<9 | incFace<<6}
	normal := az
	if refBase != 0 {
		normal = az.neg()
	}
	if !beyond[0] && !beyond[1] && !beyond[2] && !beyond[3] {
		f.corner(p0, 3<<3, m) // edges 3 in, 0 out
		f.corner(p1, 0<<3|1, m)
		f.corner(p2, 1<<3|2, m)
		f.corner(p3, 2<<3|3, m)
		if m.n > 0 {
			m.normal = normal
		}
		return false
	}
	return f.clip(p0, p1, p2, p3, beyond, normal, lu, lv, m)
}

// faceFrame is the reference face of a box–box face contact: its centre o
// and world axes ax, ay (along u, v) and az (along h, out of the face), its
// half extents fu, fv, its height hf in (u, v, h), the contact's margin and
// the id bits of the two faces.
type faceFrame struct {
	o, ax, ay, az vec3
	fu, fv, hf    float32
	margin        float32
	ids           uint32
}

// world returns the point (u, v, h) of the reference box's frame in the
// world, u and v clamped onto the face.
func (f *faceFrame) world(u, v, h float32) vec3 {
	if u > f.fu {
		u = f.fu
	} else if u < -f.fu {
		u = -f.fu
	}
	if v > f.fv {
		v = f.fv
	} else if v < -f.fv {
		v = -f.fv
	}
	return f.o.addScaled(f.ax, u).addScaled(f.ay, v).addScaled(f.az, h)
}

// corner appends to m the incident face's corner p = (u, v, h) whose edges
// are edges (in<<3 | out) when it lies within the margin of the reference
// face, moved half way to it. m has room: the unclipped face has four
// corners.
func (f *faceFrame) corner(p vec3, edges uint32, m *manifold) {
	s := p.z - f.hf
	if s > f.margin {
		return
	}
	h := f.hf + float32(0.5*s)
	// m.n < maxPoints (a power of two): the mask only spares the bounds
	// check.
	m.pts[m.n&(maxPoints-1)] = contactPoint{p: f.world(p.x, p.y, h), sep: s, id: f.ids | edges}
	m.n++
}

// clip writes the contact of the incident face with corners p0..p3 (in
// (u, v, h)) that reaches past the reference face's side planes marked in
// beyond (+u, −u, +v, −v, the planes at lu, lv): the face clipped to
// them (Sutherland–Hodgman), its corners within the margin, at most
// maxPoints of them. It reports whether the clipping left nothing.
func (f *faceFrame) clip(p0, p1, p2, p3 vec3, beyond [4]bool, normal vec3, lu, lv float32, m *manifold) (missed bool) {
	var bufA, bufB [8]clipVertex
	src, dst := &bufA, &bufB
	src[0] = clipVertex{p0.x, p0.y, p0.z, 3, 0}
	src[1] = clipVertex{p1.x, p1.y, p1.z, 0, 1}
	src[2] = clipVertex{p2.x, p2.y, p2.z, 1, 2}
	src[3] = clipVertex{p3.x, p3.y, p3.z, 2, 3}
	n := 4
	for pl := range 4 {
		if !beyond[pl] {
			continue
		}
		onV, neg := pl >= 2, pl&1 == 1
		lim := lu
		if onV {
			lim = lv
		}
		n = clipSide(src, dst, n, onV, neg, lim, uint8(4+pl))
		src, dst = dst, src
		if n == 0 {
			return true
		}
	}
	hf, margin := f.hf, f.margin
	// Corners within margin of the reference face, moved half way to it,
	// in the world.
	if n <= maxPoints {
		// Straight into m: no reduction is needed.
		for k := 0; k < n && k < maxPoints; k++ {
			x := src[k]
			s := x.h - hf
			if s > margin {
				continue
			}
			x.h = hf + float32(0.5*s)
			id := f.ids | uint32(x.ein)<<3 | uint32(x.eout)
			// m.n <= k < maxPoints (a power of two): the mask only spares
			// the bounds check.
			m.pts[m.n&(maxPoints-1)] = contactPoint{p: f.world(x.u, x.v, x.h), sep: s, id: id}
			m.n++
		}
		if m.n > 0 {
			m.normal = normal
		}
		return false
	}
	var seps [8]float32
	var ids [8]uint32
	kept := 0
	for k := 0; k < n && k < 8; k++ {
		x := src[k]
		s := x.h - hf
		if s > margin {
			continue
		}
		w := kept & 7 // kept <= k < 8
		ids[w] = f.ids | uint32(x.ein)<<3 | uint32(x.eout)
		x.h = hf + float32(0.5*s)
		src[w] = x
		seps[w] = s
		kept++
	}
	if kept == 0 {
		return false
	}
	m.normal = normal
	if kept <= maxPoints {
		for k := range kept {
			m.pts[k] = contactPoint{p: f.world(src[k].u, src[k].v, src[k].h), sep: seps[k], id: ids[k]}
		}
		m.n = kept
		return false
	}
	sel := reducePoints(src[:kept], seps[:kept])
	for k, s := range sel {
		m.pts[k] = contactPoint{p: f.world(src[s].u, src[s].v, src[s].h), sep: seps[s], id: ids[s]}
	}
	m.n = maxPoints
	return false
}

// reducePoints chooses maxPoints of the points (more than maxPoints) that
// keep the contact's extent on the reference face: the deepest, the
// farthest from it, the farthest on each side of the line through those
// two (or, when all lie on one side, the farthest from those chosen).
// Ties go to the lower index; the choice is returned in index order.
func reducePoints(pts []clipVertex, seps []float32) [maxPoints]int {
	k0 := 0
	for k := range seps {
		if seps[k] < seps[k0] {
			k0 = k
		}
	}
	x0, y0 := pts[k0].u, pts[k0].v
	k1, best := -1, float32(-1)
	for k := range pts {
		dx, dy := pts[k].u-x0, pts[k].v-y0
		if d := float32(dx*dx) + float32(dy*dy); k != k0 && d > best {
			k1, best = k, d
		}
	}
	ex, ey := pts[k1].u-x0, pts[k1].v-y0
	k2, k3 := -1, -1
	var hiA, loA float32
	for k := range pts {
		if k == k0 || k == k1 {
			continue
		}
		a := float32(ex*(pts[k].v-y0)) - float32(ey*(pts[k].u-x0))
		if a > hiA {
			k2, hiA = k, a
		}
		if a < loA {
			k3, loA = k, a
		}
	}
	// All on one side (or on the line): the farthest from those chosen.
	for k2 < 0 || k3 < 0 {
		far, bestD := -1, float32(-1)
		for k := range pts {
			if k == k0 || k == k1 || k == k2 || k == k3 {
				continue
			}
			dmin := float32(-1)
			for _, c := range [4]int{k0, k1, k2, k3} {
				if c < 0 {
					continue
				}
				dx, dy := pts[k].u-pts[c].u, pts[k].v-pts[c].v
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
	sel := [maxPoints]int{k0, k1, k2, k3}
	// Index order (insertion sort of four).
	for a := 1; a < maxPoints; a++ {
		for b := a; b > 0 && sel[b] < sel[b-1]; b-- {
			sel[b], sel[b-1] = sel[b-1], sel[b]
		}
	}
	return sel
}
