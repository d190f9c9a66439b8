package physics

// Contacts between a convex shape (sphere, capsule, box) and the triangles
// of a mesh. Each touching triangle gives a manifold of its own (its sub
// is the triangle's index), as a floor and a wall meeting at a crease push
// a box out along two different normals. The work is done in the convex
// shape's frame (the box's axes are the coordinate axes there) and the
// results are turned back to the world frame.

// Region codes of closestOnTriangle: the feature of triangle abc that
// holds the closest point.
const (
	regionFace = iota
	regionA
	regionB
	regionC
	regionAB
	regionBC
	regionCA
)

// regionEdges gives, for each region of closestOnTriangle, the triangle's
// edges it lies on (bit i: from corner i to corner i+1).
var regionEdges = [...]uint8{
	regionFace: 0,
	regionA:    1<<2 | 1<<0,
	regionB:    1<<0 | 1<<1,
	regionC:    1<<1 | 1<<2,
	regionAB:   1 << 0,
	regionBC:   1 << 1,
	regionCA:   1 << 2,
}

// seamTolerance is how far, relative to its height above the plane, a
// ball's centre may lie beside a seam it touches and still count as
// straight above it.
const seamTolerance = 1e-3

// closestOnTriangle returns the point of triangle abc closest to p and the
// feature it lies on (Ericson, Real-Time Collision Detection, 5.1.5).
func closestOnTriangle(p, a, b, c vec3) (vec3, uint32) {
	q, region, _, _, _ := closestOnTriangleWeights(p, a, b, c)
	return q, region
}

// sphereTriangle writes into m the contact of the ball at c with radius r
// and triangle abc, all in one frame, normal from the triangle to the ball.
// Edges not in active (the triangle's active-edge bits) are seams inside a
// flat stretch of the mesh: a point on one counts only when the ball's
// centre is straight above it, with the face's normal.
func sphereTriangle(c vec3, r float32, a, b, cc vec3, active uint8, margin float32, m *manifold) {
	m.n = 0
	q, region := closestOnTriangle(c, a, b, cc)
	var n vec3
	var dist float32
	if region == regionFace {
		// Exactly along the face's normal, on the ball's side.
		n, _ = b.sub(a).cross(cc.sub(a)).normalize()
		dist = c.sub(a).dot(n)
		if dist < 0 {
			n, dist = n.neg(), -dist
		}
	} else if n, dist = c.sub(q).normalize(); dist == 0 {
		n, _ = b.sub(a).cross(cc.sub(a)).normalize() // the centre on an edge or a corner
	} else if regionEdges[region]&active == 0 {
		// A seam: keep the point only with the centre straight above it.
		fn, _ := b.sub(a).cross(cc.sub(a)).normalize()
		d := c.sub(q).dot(fn)
		if d < 0 {
			fn, d = fn.neg(), -d
		}
		if lateral := c.sub(q).addScaled(fn, -d).length(); lateral > float32(seamTolerance*(1+d)) {
			return
		}
		n, dist = fn, d
	}
	if dist-r > margin {
		return
	}
	sep := dist - r
	m.normal = n
	m.n = 1
	m.pts[0] = contactPoint{p: q.addScaled(n, float32(sep*0.5)), sep: sep, id: region}
}

// capsuleTriangle writes into m the contact of the capsule with axis p0p1
// and radius r and triangle abc, all in one frame, normal from the
// triangle to the capsule. A capsule lying along the face touches at up
// to two points: its axis clipped to the triangle's prism.
//
// An edge not in active (a seam inside a flat stretch) gives no point:
// the neighbouring triangle's face does.
func capsuleTriangle(p0, p1 vec3, r float32, a, b, c vec3, active uint8, margin float32, m *manifold) {
	m.n = 0
	fn, _ := b.sub(a).cross(c.sub(a)).normalize()
	mid := p0.add(p1).scale(0.5)
	if mid.sub(a).dot(fn) < 0 {
		fn = fn.neg()
	}
	// The axis clipped to the prism over the triangle: keep the part on
	// the inner side of each edge's plane.
	t0, t1 := float32(0), float32(1)
	corners := [3]vec3{a, b, c}
	for i := range 3 {
		e0, e1 := corners[i], corners[(i+1)%3]
		in := fn.cross(e1.sub(e0))
		if corners[(i+2)%3].sub(e0).dot(in) < 0 { // wound the other way round fn
			in = in.neg()
		}
		d0, d1 := p0.sub(e0).dot(in), p1.sub(e0).dot(in)
		switch {
		case d0 < 0 && d1 < 0:
			t0, t1 = 1, 0
		case d0 < 0:
			t0 = max(t0, d0/(d0-d1))
		case d1 < 0:
			t1 = min(t1, d0/(d0-d1))
		}
	}
	if t0 <= t1 {
		// The face: the clipped ends, if they are near enough.
		ends := [2]float32{t0, t1}
		n := 2
		if t0 == t1 {
			n = 1
		}
		for i, t := range ends[:n] {
			p := p0.addScaled(p1.sub(p0), t)
			sep := p.sub(a).dot(fn) - r
			if sep > margin {
				continue
			}
			m.pts[m.n] = contactPoint{p: p.addScaled(fn, -(r + float32(sep*0.5))), sep: sep, id: uint32(8 + i)}
			m.n++
		}
		if m.n > 0 {
			m.normal = fn
			return
		}
	}
	// An edge or a corner: the closest points of the axis and the edges.
	best, bestS, bestT := float32(-1), float32(0), float32(0)
	bestEdge := 0
	for i := range 3 {
		e0, e1 := corners[i], corners[(i+1)%3]
		s, t := nearestOnSegments(p0, p1, e0, e1)
		d := p0.addScaled(p1.sub(p0), s).sub(e0.addScaled(e1.sub(e0), t)).lengthSq()
		if best < 0 || d < best {
			best, bestS, bestT, bestEdge = d, s, t, i
		}
	}
	if active&(1<<bestEdge) == 0 {
		return
	}
	p := p0.addScaled(p1.sub(p0), bestS)
	e0, e1 := corners[bestEdge], corners[(bestEdge+1)%3]
	q := e0.addScaled(e1.sub(e0), bestT)
	n, dist := p.sub(q).normalize()
	if dist == 0 {
		n = fn
	}
	sep := dist - r
	if sep > margin {
		return
	}
	m.normal = n
	m.n = 1
	m.pts[0] = contactPoint{p: q.addScaled(n, float32(sep*0.5)), sep: sep, id: uint32(16 + bestEdge)}
}

// polyVertex is a polygon corner while clipping a triangle or a box face, with the id of the
// features that made it.
type polyVertex struct {
	p  vec3
	id uint32
}

// maxClip is the most corners a clipped polygon can have here: a
// triangle or a quad clipped by up to four planes.
const maxClip = 8

// clipPolygon keeps the part of polygon in (n corners) on the side of the
// plane dot(p, normal) <= offset and writes it to out, returning its
// corner count. New corners get ids made from the plane's code and the
// ids of the edge's ends.
func clipPolygon(in []polyVertex, normal vec3, offset float32, plane uint32, out *[maxClip]polyVertex) int {
	n := 0
	if len(in) == 0 {
		return 0
	}
	prev := in[len(in)-1]
	dp := prev.p.dot(normal) - offset
	for _, cur := range in {
		dc := cur.p.dot(normal) - offset
		if (dp <= 0) != (dc <= 0) && n < maxClip {
			t := dp / (dp - dc)
			out[n] = polyVertex{p: prev.p.addScaled(cur.p.sub(prev.p), t), id: plane<<24 | (prev.id&0xfff)<<12 | cur.id&0xfff}
			n++
		}
		if dc <= 0 && n < maxClip {
			out[n] = cur
			n++
		}
		prev, dp = cur, dc
	}
	return n
}

// reduceToFour keeps at most maxPoints of pts (n of them) in m: the
// deepest, the one farthest from it, then the ones that span the largest
// area with them, so a face contact keeps its corners. The choice depends
// only on the points and their order.
func reduceToFour(pts []contactPoint, normal vec3, m *manifold) {
	if len(pts) <= maxPoints {
		m.n = copy(m.pts[:], pts)
		return
	}
	var used [2 * maxClip]bool
	i0 := 0
	for i, p := range pts {
		if p.sep < pts[i0].sep {
			i0 = i
		}
	}
	used[i0] = true
	a := pts[i0].p
	i1, best := -1, float32(-1)
	for i, p := range pts {
		if d := p.p.sub(a).lengthSq(); !used[i] && d > best {
			i1, best = i, d
		}
	}
	used[i1] = true
	b := pts[i1].p
	i2, best := -1, float32(-1)
	for i, p := range pts {
		if ar := abs(b.sub(a).cross(p.p.sub(a)).dot(normal)); !used[i] && ar > best {
			i2, best = i, ar
		}
	}
	used[i2] = true
	c := pts[i2].p
	i3, best := -1, float32(-1)
	for i, p := range pts {
		if used[i] {
			continue
		}
		ar := abs(b.sub(a).cross(p.p.sub(a)).dot(normal)) + abs(c.sub(b).cross(p.p.sub(b)).dot(normal)) + abs(a.sub(c).cross(p.p.sub(c)).dot(normal))
		if ar > best {
			i3, best = i, ar
		}
	}
	m.pts[0], m.pts[1], m.pts[2], m.pts[3] = pts[i0], pts[i1], pts[i2], pts[i3]
	m.n = 4
}

// boxTriangle writes into m the contact of the box with half extents h at
// the origin of its frame (its axes the frame's) and triangle abc in that
// frame, normal from the triangle to the box: the separating-axis test on
// the triangle's normal, the box's three axes and the nine products of
// their edges, with face axes preferred unless an edge axis separates
// more by edgeTolerance, then the incident face clipped against the
// reference one.
//
// Edges not in active (seams inside a flat stretch) are not tried as
// separating axes: a box sliding over a seam keeps the face's normal.
func boxTriangle(h vec3, a, b, c vec3, active uint8, margin float32, m *manifold) {
	m.n = 0
	tri := [3]vec3{a, b, c}
	fn, _ := b.sub(a).cross(c.sub(a)).normalize()
	if a.dot(fn) > 0 { // the box's centre, the origin, on the normal's side
		fn = fn.neg()
	}
	// The triangle's face: every corner is at a.dot(fn) <= 0 along fn.
	bestSep := -fn.abs().dot(h) - a.dot(fn)
	if bestSep > margin {
		return
	}
	bestKind, bestAxis := 0, 0 // 0 triangle face, 1 box face, 2 edges
	bestN := fn
	// The box's faces.
	for k := range 3 {
		p0, p1, p2 := a.at(k), b.at(k), c.at(k)
		lo, hi := min(p0, p1, p2), max(p0, p1, p2)
		hk := h.at(k)
		sep, dir := lo-hk, float32(-1) // triangle above: the normal points down the axis
		if s := -hk - hi; s > sep {
			sep, dir = s, 1
		}
		if sep > margin {
			return
		}
		if sep > bestSep+faceTolerance {
			bestSep, bestKind, bestAxis = sep, 1, k
			bestN = vec3{}
			switch k {
			case 0:
				bestN.x = dir
			case 1:
				bestN.y = dir
			default:
				bestN.z = dir
			}
		}
	}
	// The edges.
	faceSep := bestSep
	for i := range 3 {
		var e vec3
		switch i {
		case 0:
			e.x = 1
		case 1:
			e.y = 1
		default:
			e.z = 1
		}
		for j := range 3 {
			if active&(1<<j) == 0 {
				continue
			}
			l, length := e.cross(tri[(j+1)%3].sub(tri[j])).normalize()
			if length < 1e-6 {
				continue
			}
			r := l.abs().dot(h)
			p0, p1, p2 := a.dot(l), b.dot(l), c.dot(l)
			lo, hi := min(p0, p1, p2), max(p0, p1, p2)
			sep, n := lo-r, l.neg()
			if s := -r - hi; s > sep {
				sep, n = s, l
			}
			if sep > margin {
				return
			}
			if sep > faceSep+edgeTolerance && sep > bestSep {
				bestSep, bestKind, bestAxis, bestN = sep, 2, i*3+j, n
			}
		}
	}
	switch bestKind {
	case 0:
		triangleFaceContact(h, tri, fn, margin, m)
	case 1:
		boxFaceContact(h, tri, bestAxis, bestN, margin, m)
	default:
		boxEdgeContact(h, tri, bestAxis/3, bestAxis%3, bestN, bestSep, m)
	}
}

// faceTolerance and edgeTolerance are how much more a box face and an edge
// pair must separate than the faces before them to be chosen: a box
// resting on a triangle keeps the triangle's face, and its contact ids,
// from step to step.
const (
	faceTolerance = 0.001
	edgeTolerance = 0.005
)

// triangleFaceContact: the triangle's face is the reference; the box face
// most opposed to it is clipped against the triangle's edges.
func triangleFaceContact(h vec3, tri [3]vec3, fn vec3, margin float32, m *manifold) {
	var poly [maxClip]polyVertex
	n := boxFace(h, fn.neg(), &poly)
	var buf [maxClip]polyVertex
	for i := range 3 {
		e0, e1 := tri[i], tri[(i+1)%3]
		out := e1.sub(e0).cross(fn)
		if tri[(i+2)%3].sub(e0).dot(out) > 0 { // wound the other way round fn
			out = out.neg()
		}
		n = clipPolygon(poly[:n], out, out.dot(e0), uint32(i+1), &buf)
		poly = buf
	}
	var pts [maxClip]contactPoint
	k := 0
	for _, v := range poly[:n] {
		sep := v.p.sub(tri[0]).dot(fn)
		if sep > margin {
			continue
		}
		pts[k] = contactPoint{p: v.p.addScaled(fn, float32(sep*-0.5)), sep: sep, id: v.id}
		k++
	}
	m.normal = fn
	reduceToFour(pts[:k], fn, m)
}

// boxFace writes the corners of the box face whose outward normal is most
// along dir into poly, with ids naming them, and returns 4.
func boxFace(h vec3, dir vec3, poly *[maxClip]polyVertex) int {
	ad := dir.abs()
	k := 0
	if ad.y > ad.at(k) {
		k = 1
	}
	if ad.z > ad.at(k) {
		k = 2
	}
	s := float32(1)
	if dir.at(k) < 0 {
		s = -1
	}
	u, v := (k+1)%3, (k+2)%3
	signs := [4][2]float32{{1, 1}, {-1, 1}, {-1, -1}, {1, -1}}
	face := uint32(k * 2)
	if s < 0 {
		face++
	}
	for i, sg := range signs {
		var p [3]float32
		p[k] = float32(s * h.at(k))
		p[u] = float32(sg[0] * h.at(u))
		p[v] = float32(sg[1] * h.at(v))
		poly[i] = polyVertex{p: vec3{p[0], p[1], p[2]}, id: face<<2 | uint32(i)}
	}
	return 4
}

// boxFaceContact: the box's face along axis k is the reference; the
// triangle is clipped against its side planes. n, from the triangle to
// the box, is the face's inward direction.
func boxFaceContact(h vec3, tri [3]vec3, k int, n vec3, margin float32, m *manifold) {
	var poly, buf [maxClip]polyVertex
	for i, p := range tri {
		poly[i] = polyVertex{p: p, id: uint32(i)}
	}
	cnt := 3
	for _, j := range [2]int{(k + 1) % 3, (k + 2) % 3} {
		var e vec3
		switch j {
		case 0:
			e.x = 1
		case 1:
			e.y = 1
		default:
			e.z = 1
		}
		cnt = clipPolygon(poly[:cnt], e, h.at(j), uint32(2*j+1), &buf)
		poly = buf
		cnt = clipPolygon(poly[:cnt], e.neg(), h.at(j), uint32(2*j+2), &buf)
		poly = buf
	}
	o := n.neg() // the reference face's outward normal
	var pts [maxClip]contactPoint
	c := 0
	for _, v := range poly[:cnt] {
		sep := v.p.dot(o) - h.at(k)
		if sep > margin {
			continue
		}
		pts[c] = contactPoint{p: v.p.addScaled(o, float32(sep*-0.5)), sep: sep, id: 1<<30 | v.id}
		c++
	}
	m.normal = n
	reduceToFour(pts[:c], n, m)
}

// boxEdgeContact: box edge along axis i against triangle edge j; one
// point midway between the two edges' closest points.
func boxEdgeContact(h vec3, tri [3]vec3, i, j int, n vec3, sep float32, m *manifold) {
	// The box's edge along axis i nearest the triangle: its other two
	// coordinates at the corner farthest along -n.
	var lo, hi [3]float32
	for k := range 3 {
		c := h.at(k)
		if n.at(k) > 0 {
			c = -c
		}
		lo[k], hi[k] = c, c
	}
	lo[i], hi[i] = -h.at(i), h.at(i)
	p0, p1 := vec3{lo[0], lo[1], lo[2]}, vec3{hi[0], hi[1], hi[2]}
	e0, e1 := tri[j], tri[(j+1)%3]
	s, t := nearestOnSegments(p0, p1, e0, e1)
	pb := p0.addScaled(p1.sub(p0), s)
	pt := e0.addScaled(e1.sub(e0), t)
	m.normal = n
	m.n = 1
	m.pts[0] = contactPoint{p: pb.add(pt).scale(0.5), sep: sep, id: 2<<30 | uint32(i*3+j)}
}

// meshQuery is collideMesh's scratch, reused from call to call.
type meshQuery struct {
	tris, stack []uint32
	gen         convexScratch // the general convex contact's (convexTriangle)
}

// collideMesh appends to out a manifold for each triangle of mesh (carried
// at pm) within margin of the convex shape s at ps, in ascending triangle
// order, each with the triangle's index as its sub and its normal from the
// shape to the mesh, and returns out.
func collideMesh(s *shape, ps pose, mesh *TriangleMesh, pm pose, margin float32, q *meshQuery, out []manifold) []manifold {
	rel := pose{pm.unapply(ps.p), pm.q.conj().mul(ps.q)} // the shape in the mesh's frame
	q.tris, q.stack = mesh.overlapping(s.aabb(rel).grow(margin), q.tris[:0], q.stack)
	for _, t := range q.tris {
		a, b, c := mesh.triangle(t)
		a, b, c = rel.unapply(a), rel.unapply(b), rel.unapply(c)
		var m manifold
		switch s.kind {
		case Sphere:
			sphereTriangle(vec3{}, s.radius, a, b, c, mesh.active[t], margin, &m)
		case Capsule:
			capsuleTriangle(vec3{0, -s.halfHeight, 0}, vec3{0, s.halfHeight, 0}, s.radius, a, b, c, mesh.active[t], margin, &m)
		case Box:
			boxTriangle(s.half, a, b, c, mesh.active[t], margin, &m)
		default:
			q.convexTriangle(s, a, b, c, mesh.active[t], margin, &m)
		}
		if m.n == 0 {
			continue
		}
		m.normal = ps.q.rotate(m.normal).neg()
		for i := range m.n {
			m.pts[i].p = ps.apply(m.pts[i].p)
		}
		m.sub = t
		out = append(out, m)
	}
	return out
}
