package physics

// The general convex contact, for the shapes without a routine of their
// own (convex hulls and cylinders, against everything, triangles
// included):
//
//  1. the normal: GJK's between the cores when they are apart (exact);
//     when they overlap, the separating-axis test on the candidate axes
//     (the faces of boxes, hulls and triangles, a cylinder's axis and its
//     sideways direction, the line between the centres), refined by GJK
//     between the shapes pulled apart along the best of them, which
//     finds the edge-against-edge direction too;
//  2. the features of the two shapes along it (a face, an edge, a point:
//     supportFeature);
//  3. the points: the incident feature clipped against the side planes of
//     the reference face (the face most square to the normal), each with
//     its own separation, at most four kept (reduceToFour); a normal
//     within 0.8° of the reference face's is the face's, so a hull resting
//     on a face does not rock with the rounding of GJK.
//
// Like the rest of the narrow phase it allocates nothing and breaks ties
// by index.

// maxFeature is the most corners a feature has: a hull's face.
const maxFeature = MaxHullVertices

// feature is where a shape meets a plane: 1 point, 2 (an edge) or a
// convex polygon (a face, counter-clockwise about normal), world frame,
// on the shape's surface (a ball's radius included).
type feature struct {
	pts    [maxFeature]vec3
	n      int
	normal vec3   // a face's outward normal
	id     uint32 // names the face or edge
}

// Feature choice thresholds: a cylinder's end is a face when the
// direction is within about 26° of its axis, its side an edge within about
// 6° of square; a capsule's side likewise.
const (
	capCosSq  = 0.81 // cos² of the angle to the axis under which an end is a face
	sideSinSq = 0.01 // sin² of the angle to the axis under which the side is an edge
	// refMinCos is the least cosine between the normal and the reference
	// face's for a face contact; snapCos the cosine above which the
	// normal becomes the face's.
	refMinCos = 0.5
	snapCos   = 0.9999
)

// gjkTrust is how much less than GJK's distance the separation along its
// normal may be before the candidate axes are tried too, m.
const gjkTrust = 1e-4

// octagon holds the corners of a unit octagon, the end of a cylinder as a
// face.
var octagon = [8][2]float32{
	{1, 0}, {0.70710677, 0.70710677}, {0, 1}, {-0.70710677, 0.70710677},
	{-1, 0}, {-0.70710677, -0.70710677}, {0, -1}, {0.70710677, -0.70710677},
}

// supportFeature writes into f the feature of c farthest along the unit
// direction d.
func supportFeature(c *convex, d vec3, f *feature) {
	f.n, f.id = 0, 0
	switch c.kind {
	case Sphere:
		f.pts[0], f.n = c.p.p.addScaled(d, c.radius), 1
	case Capsule:
		u := c.p.q.rotate(vec3{0, 1, 0})
		ud := u.dot(d)
		if float32(ud*ud) <= sideSinSq {
			f.pts[0] = c.p.p.addScaled(u, -c.hh).addScaled(d, c.radius)
			f.pts[1] = c.p.p.addScaled(u, c.hh).addScaled(d, c.radius)
			f.n, f.id = 2, 1
			return
		}
		f.pts[0], f.n = c.support(d).addScaled(d, c.radius), 1
	case Box:
		var poly [maxClip]polyVertex
		l := c.p.q.unrotate(d)
		boxFace(c.half, l, &poly)
		for i := range 4 {
			f.pts[i] = c.p.apply(poly[i].p)
		}
		f.n, f.id = 4, poly[0].id>>2
		f.normal = c.p.q.rotate(boxFaceNormal(l))
		if f.pts[1].sub(f.pts[0]).cross(f.pts[2].sub(f.pts[0])).dot(f.normal) < 0 {
			f.pts[1], f.pts[3] = f.pts[3], f.pts[1] // counter-clockwise about the normal
		}
	case ConvexHull:
		h := c.hull
		l := c.p.q.unrotate(d)
		fi := h.bestFace(l)
		for i, v := range h.face(fi) {
			f.pts[i] = c.p.apply(h.verts[v])
		}
		f.n, f.id = int(h.faces[fi].count), uint32(fi)
		f.normal = c.p.q.rotate(h.faces[fi].normal)
	case Cylinder:
		l := c.p.q.unrotate(d)
		ly2 := float32(l.y * l.y)
		switch {
		case ly2 >= float32(capCosSq*l.lengthSq()):
			y, id := c.hh, uint32(2)
			if l.y < 0 {
				y, id = -c.hh, 3
			}
			for i, o := range octagon {
				k := i
				if l.y < 0 { // counter-clockwise about -Y
					k = (8 - i) % 8
					o = octagon[k]
				}
				f.pts[i] = c.p.apply(vec3{float32(o[0] * c.cylR), y, float32(o[1] * c.cylR)})
			}
			f.n, f.id = 8, id
			f.normal = c.p.q.rotate(vec3{0, y / c.hh, 0})
		case ly2 <= float32(sideSinSq*l.lengthSq()):
			s, _ := (vec3{l.x, 0, l.z}).normalize()
			s = s.scale(c.cylR)
			f.pts[0] = c.p.apply(vec3{s.x, -c.hh, s.z})
			f.pts[1] = c.p.apply(vec3{s.x, c.hh, s.z})
			f.n, f.id = 2, 1
		default:
			f.pts[0], f.n = c.support(d), 1
		}
	default: // a triangle
		fn, _ := c.tri[1].sub(c.tri[0]).cross(c.tri[2].sub(c.tri[0])).normalize()
		f.pts[0], f.pts[1], f.pts[2] = c.tri[0], c.tri[1], c.tri[2]
		if fn.dot(d) < 0 {
			fn = fn.neg()
			f.pts[1], f.pts[2] = c.tri[2], c.tri[1]
		}
		f.n, f.normal = 3, fn
	}
}

// boxFaceNormal returns the outward normal of the box face most along l
// (boxFace's choice).
func boxFaceNormal(l vec3) vec3 {
	a := l.abs()
	k := 0
	if a.y > a.at(k) {
		k = 1
	}
	if a.z > a.at(k) {
		k = 2
	}
	return unitAxis(k, l.at(k) < 0)
}

// separation returns how far apart a and b are along the unit axis n
// (from a to b): negative when they overlap along it.
func separation(a, b *convex, n vec3) float32 {
	return b.support(n.neg()).dot(n) - a.support(n).dot(n) - a.radius - b.radius
}

// convexScratch is the general contact's working memory (about 32 KB):
// the step keeps one (meshQuery.gen) and passes it to every pair.
type convexScratch struct {
	fa, fb   feature
	buf, out [2 * maxFeature]polyVertex
	pts      [2 * maxFeature]contactPoint
}

// collideGeneral writes into m the contact of the convex shapes a at pa
// and b at pb, normal from a to b.
func collideGeneral(a *shape, pa pose, b *shape, pb pose, margin float32, sc *convexScratch, m *manifold) {
	ca, cb := convexOf(a, pa), convexOf(b, pb)
	convexContact(&ca, &cb, margin, sc, m)
}

// convexContact writes into m the contact of a and b, normal from a to b.
func convexContact(a, b *convex, margin float32, sc *convexScratch, m *manifold) {
	m.n = 0
	var n, wa, wb vec3
	var sep float32
	if apart(a, b, margin) {
		return
	}
	{
		d, pa, pb := coreDistance(a, b)
		sep = -maxFloat32
		if d > 0 {
			n = pb.sub(pa).scale(1 / d)
			wa, wb = pa.addScaled(n, a.radius), pb.addScaled(n, -b.radius)
			// The separation along GJK's normal, measured: where GJK
			// stopped short (cores that nearly touch), it is less than
			// its distance, and the candidate axes may do better.
			sep = separation(a, b, n)
		}
		if d <= 0 || sep < d-a.radius-b.radius-gjkTrust {
			if pn, ps, pwa, pwb := penetration(a, b); ps > sep {
				n, sep, wa, wb = pn, ps, pwa, pwb
			}
		}
	}
	if !(sep <= margin) {
		return
	}
	fa, fb := &sc.fa, &sc.fb
	supportFeature(a, n, fa)
	supportFeature(b, n.neg(), fb)
	// A normal within snapCos of a face's is the face's: GJK's normal
	// wobbles in the last bits (more so against a large ball), and a
	// resting face must not.
	{
		snap := n
		if fa.n >= 3 && fa.normal.dot(n) >= snapCos {
			snap = fa.normal
		} else if fb.n >= 3 && -fb.normal.dot(n) >= snapCos {
			snap = fb.normal.neg()
		}
		if snap != n {
			n = snap
			sep = separation(a, b, n)
			supportFeature(a, n, fa)
			supportFeature(b, n.neg(), fb)
		}
	}
	if fa.n >= 3 || fb.n >= 3 {
		if featureFaceContact(fa, fb, n, margin, sc, m) {
			return
		}
	} else if fa.n == 2 && fb.n == 2 && featureEdgeContact(fa, fb, n, margin, m) {
		return
	}
	m.normal = n
	m.n = 1
	m.pts[0] = contactPoint{p: wa.add(wb).scale(0.5), sep: sep, id: 1<<31 | fa.id<<12 | fb.id}
}

// apart reports whether a and b are farther apart than margin along one of
// a few axes that cost little: the line between their centres and the
// face of a hull most along it. Most pairs the broad phase finds are so
// (boxes that overlap at a corner), and need no GJK. It is a function of
// the poses alone (no cache), so a replay or a rollback meets the same.
func apart(a, b *convex, margin float32) bool {
	c, l := b.centre().sub(a.centre()).normalize()
	if l == 0 {
		return false
	}
	if separation(a, b, c) > margin {
		return true
	}
	if a.kind == ConvexHull {
		ax := a.p.q.rotate(a.hull.faces[a.hull.bestFace(a.p.q.unrotate(c))].normal)
		if separation(a, b, ax) > margin {
			return true
		}
	}
	if b.kind == ConvexHull {
		ax := b.p.q.rotate(b.hull.faces[b.hull.bestFace(b.p.q.unrotate(c.neg()))].normal)
		if separation(a, b, ax.neg()) > margin {
			return true
		}
	}
	return false
}

// penetration returns the axis of least overlap of a and b, whose cores
// overlap, its separation (negative) and a point of each shape there.
func penetration(a, b *convex) (n vec3, sep float32, wa, wb vec3) {
	best := func(c vec3) {
		c, l := c.normalize()
		if l == 0 {
			return
		}
		if s := separation(a, b, c); s > sep {
			n, sep = c, s
		}
	}
	n, _ = b.centre().sub(a.centre()).normalize()
	if n == (vec3{}) {
		n = vec3{0, 1, 0}
	}
	sep = separation(a, b, n)
	for _, c := range [2]*convex{a, b} {
		sign := float32(1) // a's faces face b; b's face a
		if c == b {
			sign = -1
		}
		switch c.kind {
		case Box:
			for k := range 3 {
				ax := c.p.q.rotate(unitAxis(k, false))
				best(ax)
				best(ax.neg())
			}
		case ConvexHull:
			// A face's own extreme along its normal is its plane: only
			// the other shape's support is needed.
			o := b
			if c == b {
				o = a
			}
			for i := range c.hull.faces {
				f := &c.hull.faces[i]
				fn := c.p.q.rotate(f.normal)
				top := f.offset + c.p.p.dot(fn) // c's extreme along fn
				// How far o lies beyond the face's plane: the separation
				// along fn (c is a) or -fn (c is b) alike.
				s := o.support(fn.neg()).dot(fn) - top - o.radius
				if s > sep {
					n, sep = fn.scale(sign), s
				}
			}
		case Cylinder, Capsule:
			u := c.p.q.rotate(vec3{0, 1, 0})
			best(u)
			best(u.neg())
			o := b.centre()
			if c == b {
				o = a.centre()
			}
			r := o.sub(c.p.p)
			best(r.addScaled(u, -r.dot(u)).scale(sign))
		case 0:
			fn := c.tri[1].sub(c.tri[0]).cross(c.tri[2].sub(c.tri[0]))
			best(fn)
			best(fn.neg())
		}
	}
	// A cylinder's side against the other shape's edges: the line from
	// each edge to the axis (a triangle beside a lying cylinder).
	for _, c := range [2]*convex{a, b} {
		o := b
		if c == b {
			o = a
		}
		if c.kind != Cylinder || o.kind == Sphere || o.kind == Capsule || o.kind == Cylinder {
			continue
		}
		p0, p1 := c.p.apply(vec3{0, -c.hh, 0}), c.p.apply(vec3{0, c.hh, 0})
		for i := range edgeCount(o) {
			e0, e1 := edgeOf(o, i)
			s, t := nearestOnSegments(p0, p1, e0, e1)
			d := p0.addScaled(p1.sub(p0), s).sub(e0.addScaled(e1.sub(e0), t)) // from the edge to the axis
			if c == a {
				d = d.neg()
			}
			best(d)
		}
	}
	wa = a.support(n).addScaled(n, a.radius)
	wb = b.support(n.neg()).addScaled(n, -b.radius)
	// Pull a back along n until they part, and let GJK find the closest
	// features from there: an edge against an edge shows up so.
	shift := n.scale(sep - 0.01)
	start := a.p.p
	a.p.p = start.add(shift)
	d, pa, pb := coreDistance(a, b)
	a.p.p = start
	if d > 0 {
		g := pb.sub(pa).scale(1 / d)
		if s := separation(a, b, g); s > sep {
			n, sep = g, s
			wa = pa.sub(shift).addScaled(g, a.radius)
			wb = pb.addScaled(g, -b.radius)
		}
	}
	return n, sep, wa, wb
}

// edgeCount returns how many edges edgeOf gives for c: a triangle's 3, a
// box's 12, a hull's (each once); 0 for the round shapes.
func edgeCount(c *convex) int {
	switch c.kind {
	case 0:
		return 3
	case Box:
		return 12
	case ConvexHull:
		return len(c.hull.edgeEnds)
	}
	return 0
}

// edgeOf returns the ends of edge i of c (world frame).
func edgeOf(c *convex, i int) (vec3, vec3) {
	switch c.kind {
	case 0:
		return c.tri[i], c.tri[(i+1)%3]
	case Box:
		// Along axis k = i/4, at the signs of the other two from i%4.
		k := i / 4
		u, v := (k+1)%3, (k+2)%3
		var lo, hi [3]float32
		for _, j := range [2]int{u, v} {
			s := float32(1)
			if (j == u && i&1 != 0) || (j == v && i&2 != 0) {
				s = -1
			}
			lo[j] = float32(s * c.half.at(j))
			hi[j] = lo[j]
		}
		lo[k], hi[k] = -c.half.at(k), c.half.at(k)
		return c.p.apply(vec3{lo[0], lo[1], lo[2]}), c.p.apply(vec3{hi[0], hi[1], hi[2]})
	}
	h := c.hull
	e := h.edgeEnds[i]
	return c.p.apply(h.verts[e[0]]), c.p.apply(h.verts[e[1]])
}

// featureFaceContact writes the points of a face contact into m, the incident
// feature clipped by the reference face, and reports whether it found any.
func featureFaceContact(fa, fb *feature, n vec3, margin float32, sc *convexScratch, m *manifold) bool {
	// The reference: the face most square to n.
	ref, inc, refIsA := fa, fb, true
	ca, cb := float32(-2), float32(-2)
	if fa.n >= 3 {
		ca = fa.normal.dot(n)
	}
	if fb.n >= 3 {
		cb = -fb.normal.dot(n)
	}
	if cb > ca {
		ref, inc, refIsA = fb, fa, false
	}
	rn := ref.normal
	cos := max(ca, cb)
	if cos < refMinCos {
		return false
	}
	if cos >= snapCos {
		n = rn
		if !refIsA {
			n = rn.neg()
		}
	}
	// The incident feature clipped by the planes through the reference
	// face's edges.
	poly := sc.buf[:0]
	for i := range inc.n {
		poly = append(poly, polyVertex{p: inc.pts[i], id: uint32(i)})
	}
	out := sc.out[:0]
	for i := range ref.n {
		e0, e1 := ref.pts[i], ref.pts[(i+1)%ref.n]
		side := e1.sub(e0).cross(rn) // outward for a counter-clockwise face
		out = clipAgainst(poly, side, side.dot(e0), uint32(i+1), out[:0])
		if len(out) == 0 {
			return false
		}
		copy(sc.buf[:len(out)], out)
		poly = sc.buf[:len(out)]
	}
	off := ref.pts[0].dot(rn)
	den := n.dot(rn)
	k := 0
	for _, v := range poly {
		// Along n from the incident point to the reference plane.
		t := (v.p.dot(rn) - off) / den
		var sep float32
		var p vec3
		if refIsA {
			sep = t
			p = v.p.addScaled(n, float32(-0.5*t))
		} else {
			sep = -t
			p = v.p.addScaled(n, float32(-0.5*t))
		}
		if !(sep <= margin) || k >= len(sc.pts) {
			continue
		}
		sc.pts[k] = contactPoint{p: p, sep: sep, id: ref.id<<20 ^ v.id ^ boolBit(refIsA)<<30}
		k++
	}
	if k == 0 {
		return false
	}
	m.normal = n
	reduceToFour(sc.pts[:k], n, m)
	return true
}

func boolBit(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// clipAgainst appends to out the part of polygon in (a segment when it
// has two corners) on the side dot(p, normal) <= offset and returns it.
func clipAgainst(in []polyVertex, normal vec3, offset float32, plane uint32, out []polyVertex) []polyVertex {
	if len(in) == 2 {
		a, b := in[0], in[1]
		da, db := a.p.dot(normal)-offset, b.p.dot(normal)-offset
		switch {
		case da > 0 && db > 0:
			return out
		case da > 0:
			a = polyVertex{p: a.p.addScaled(b.p.sub(a.p), da/(da-db)), id: plane<<24 | a.id}
		case db > 0:
			b = polyVertex{p: a.p.addScaled(b.p.sub(a.p), da/(da-db)), id: plane<<24 | b.id}
		}
		return append(out, a, b)
	}
	if len(in) == 0 {
		return out
	}
	prev := in[len(in)-1]
	dp := prev.p.dot(normal) - offset
	for _, cur := range in {
		dc := cur.p.dot(normal) - offset
		if (dp <= 0) != (dc <= 0) && len(out) < cap(out) {
			t := dp / (dp - dc)
			out = append(out, polyVertex{p: prev.p.addScaled(cur.p.sub(prev.p), t), id: plane<<24 | (prev.id&0xfff)<<12 | cur.id&0xfff})
		}
		if dc <= 0 && len(out) < cap(out) {
			out = append(out, cur)
		}
		prev, dp = cur, dc
	}
	return out
}

// featureEdgeContact writes two points for two nearly parallel edges that
// overlap along their length (a cylinder lying against another) and
// reports whether it did.
func featureEdgeContact(fa, fb *feature, n vec3, margin float32, m *manifold) bool {
	p0, p1 := fa.pts[0], fa.pts[1]
	q0, q1 := fb.pts[0], fb.pts[1]
	da, db := p1.sub(p0), q1.sub(q0)
	ea, eb := da.lengthSq(), db.lengthSq()
	if ea < minDirLengthSq || eb < minDirLengthSq || da.cross(db).lengthSq() > float32(parallelSinSq*float32(ea*eb)) {
		return false
	}
	u0, u1 := q0.sub(p0).dot(da)/ea, q1.sub(p0).dot(da)/ea
	lo, hi := max(0, min(u0, u1)), min(1, max(u0, u1))
	if hi-lo <= 1e-3 {
		return false
	}
	m.n = 0
	for k, u := range [2]float32{lo, hi} {
		x := p0.addScaled(da, u)
		y := q0.addScaled(db, nearestOnSegment(x, q0, q1))
		sep := y.sub(x).dot(n)
		if sep <= margin {
			m.pts[m.n] = contactPoint{p: x.addScaled(n, float32(sep*0.5)), sep: sep, id: uint32(1<<29 | k)}
			m.n++
		}
	}
	m.normal = n
	return m.n > 0
}

// convexTriangle writes into m the contact of the hull or cylinder s at
// the origin of its frame and triangle abc in that frame, normal from the
// triangle to the shape. A contact on the triangle's edges that are not
// in active (seams inside a flat stretch) takes the face's normal, as the
// other shapes' do, so a body sliding over a seam is not tripped by it.
func (q *meshQuery) convexTriangle(s *shape, a, b, c vec3, active uint8, margin float32, m *manifold) {
	cs := convexOf(s, pose{q: identity})
	ct := convex{tri: [3]vec3{a, b, c}}
	convexContact(&ct, &cs, margin, &q.gen, m)
	if m.n == 0 || active == 7 {
		return
	}
	fn, _ := b.sub(a).cross(c.sub(a)).normalize()
	if a.dot(fn) > 0 { // now from the triangle to the shape, at the origin
		fn = fn.neg()
	}
	if m.normal.dot(fn) >= snapCos {
		return
	}
	tri := [3]vec3{a, b, c}
	for i := range m.n {
		p := m.pts[i].p
		best, bestD := 0, float32(-1)
		for e := range 3 {
			e0, e1 := tri[e], tri[(e+1)%3]
			x := e0.addScaled(e1.sub(e0), nearestOnSegment(p, e0, e1))
			if d := x.sub(p).lengthSq(); bestD < 0 || d < bestD {
				best, bestD = e, d
			}
		}
		if active&(1<<best) != 0 {
			return // on a real edge: keep the edge's normal
		}
	}
	// On seams only: the face's normal, the points and their
	// separations as they are (as Jolt does for inactive edges).
	m.normal = fn
}
