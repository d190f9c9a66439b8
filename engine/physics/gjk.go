package physics

// The distance between two convex shapes, by the Gilbert–Johnson–Keerthi
// algorithm, and a shape cast (a shape moved along a line until it first
// touches another) by conservative advancement on that distance. They
// serve continuous collision and the sweep queries.
//
// Spheres and capsules are handled as their cores (a point, a segment)
// with a radius, boxes and triangles with none: the distance of the cores
// less the radii is the distance of the shapes, and the cores never
// overlap while the shapes are apart by more than the radii.

// convex is a shape's core in the world frame: a point (sphere), a segment
// (capsule), a box or a triangle, and the radius around it.
type convex struct {
	kind   ShapeKind // Sphere, Capsule, Box, ConvexHull, Cylinder; 0 for a triangle
	p      pose
	half   vec3    // box
	hh     float32 // capsule: half the segment; cylinder: half its height
	radius float32
	cylR   float32 // cylinder: its radius (the core is the whole cylinder)
	hull   *Hull   // ConvexHull
	tri    [3]vec3 // triangle, world frame
	// hint is the hull's vertex its last support found, where the next
	// one's climb starts (the directions of one contact's searches are
	// near each other).
	hint int
	// rot is p.q's matrix (hulls and cylinders): the support
	// turns each direction in and each point out with it, cheaper than
	// with the quaternion.
	rot mat3
}

// convexOf returns s at p as a convex core.
func convexOf(s *shape, p pose) convex {
	c := convex{kind: s.kind, p: p, half: s.half, hh: s.halfHeight, hull: s.hull}
	switch s.kind {
	case Sphere, Capsule:
		c.radius = s.radius
	case Cylinder:
		c.cylR = s.radius
		c.rot = p.q.rotation()
	case ConvexHull:
		c.rot = p.q.rotation()
	}
	return c
}

// support returns the core's point farthest along d (any point of a face
// for ties, always the same one for the same d) and its id.
func (c *convex) support(d vec3) vec3 {
	switch c.kind {
	case Sphere:
		return c.p.p
	case Capsule:
		axis := c.p.q.rotate(vec3{0, c.hh, 0})
		if axis.dot(d) >= 0 {
			return c.p.p.add(axis)
		}
		return c.p.p.sub(axis)
	case Box:
		l := c.p.q.unrotate(d)
		v := c.half
		if l.x < 0 {
			v.x = -v.x
		}
		if l.y < 0 {
			v.y = -v.y
		}
		if l.z < 0 {
			v.z = -v.z
		}
		return c.p.apply(v)
	case ConvexHull:
		c.hint = c.hull.support(c.rot.mulTVec(d), c.hint)
		return c.p.p.add(c.rot.mulVec(c.hull.verts[c.hint]))
	case Cylinder:
		return c.p.p.add(c.rot.mulVec(cylinderSupport(c.rot.mulTVec(d), c.hh, c.cylR)))
	}
	best, bd := c.tri[0], c.tri[0].dot(d)
	for _, v := range c.tri[1:] {
		if vd := v.dot(d); vd > bd {
			best, bd = v, vd
		}
	}
	return best
}

// centre returns a point inside the core.
func (c *convex) centre() vec3 {
	if c.kind == 0 {
		return c.tri[0].add(c.tri[1]).add(c.tri[2]).scale(1.0 / 3)
	}
	return c.p.p
}

// simplexVertex is a corner of GJK's simplex: w = a - b of the two
// cores' support points.
type simplexVertex struct{ a, b, w vec3 }

// gjkOriginRel is the squared length, relative to the simplex's farthest
// corner's, under which GJK's closest point is the origin: |v| under 1e-5
// of that corner's distance is the corners' rounding.
const gjkOriginRel = 1e-10

// gjkFlatRel is the squared volume, relative to the cube of its longest
// edge's, under which a tetrahedron of GJK's counts as flat.
const gjkFlatRel = 1e-10

// gjkGapRelSq is the square of GJK's tolerance on the gap between its
// upper and lower bounds of the distance, relative to the larger of |v|
// and |w| (a millionth).
const gjkGapRelSq = 1e-12

// gjkMaxIterations bounds GJK's loop; it converges in a handful.
const gjkMaxIterations = 32

// coreDistance returns the distance between the cores of a and b and the
// closest points on them; overlapping cores give 0 (and points that are
// not meaningful).
func coreDistance(a, b *convex) (dist float32, pa, pb vec3) {
	var s [4]simplexVertex
	var lam [4]float32
	d := a.centre().sub(b.centre())
	if d.lengthSq() == 0 {
		d = vec3{1, 0, 0}
	}
	n := 0
	v := d
	last := float32(maxFloat32) // |v|² of the previous iteration
	for range gjkMaxIterations {
		sa, sb := a.support(v.neg()), b.support(v)
		w := sa.sub(sb)
		vv := v.lengthSq()
		// Converged: the new point is no closer along v than a millionth
		// of |v| or of |w|, whichever is more. The second bounds the
		// rounding of v·w: two faces resting on each other, their points
		// a metre from the origin and v a centimetre long, would
		// otherwise turn from corner to corner of the faces until the
		// iteration bound.
		if n > 0 {
			g := vv - v.dot(w)
			if g <= 0 || float32(g*g) <= float32(gjkGapRelSq*float32(vv*max(vv, w.lengthSq()))) {
				break
			}
		}
		dup := false
		for i := range n {
			if s[i].w == w {
				dup = true
			}
		}
		if dup {
			break
		}
		s[n] = simplexVertex{sa, sb, w}
		n++
		n = closestSimplex(&s, &lam, n)
		if n == 4 {
			return 0, vec3{}, vec3{}
		}
		v = vec3{}
		far := float32(0)
		for i := range n {
			v = v.addScaled(s[i].w, lam[i])
			far = max(far, s[i].w.lengthSq())
		}
		// The origin on the simplex, up to the rounding of its corners:
		// far from the origin (shapes tens of metres across), that
		// rounding alone leaves v a few millionths long, and the next
		// support points repeat (coaxial cylinders; parry issue 396).
		l := v.lengthSq()
		if l < 1e-12 || l <= float32(gjkOriginRel*far) {
			return 0, vec3{}, vec3{}
		}
		// No nearer than the last: the rounding, not the shapes, moves it
		// now.
		if l >= last {
			break
		}
		last = l
	}
	for i := range n {
		pa = pa.addScaled(s[i].a, lam[i])
		pb = pb.addScaled(s[i].b, lam[i])
	}
	return v.length(), pa, pb
}

// closestSimplex reduces simplex s (n corners) to the smallest subset
// whose hull holds the point closest to the origin, writes that point's
// barycentric weights to lam and returns the subset's size; 4 means the
// origin is inside the tetrahedron.
func closestSimplex(s *[4]simplexVertex, lam *[4]float32, n int) int {
	switch n {
	case 1:
		lam[0] = 1
		return 1
	case 2:
		return closestSegment(s, lam)
	case 3:
		return closestTriangle(s, lam)
	}
	return closestTetrahedron(s, lam)
}

func closestSegment(s *[4]simplexVertex, lam *[4]float32) int {
	a, b := s[0].w, s[1].w
	ab := b.sub(a)
	l := ab.lengthSq()
	t := float32(0)
	if l > 0 {
		t = -a.dot(ab) / l
	}
	switch {
	case t <= 0:
		lam[0] = 1
		return 1
	case t >= 1:
		s[0] = s[1]
		lam[0] = 1
		return 1
	}
	lam[0], lam[1] = 1-t, t
	return 2
}

func closestTriangle(s *[4]simplexVertex, lam *[4]float32) int {
	a, b, c := s[0].w, s[1].w, s[2].w
	_, region, u, v, w := closestOnTriangleWeights(vec3{}, a, b, c)
	switch region {
	case regionA:
		lam[0] = 1
		return 1
	case regionB:
		s[0] = s[1]
		lam[0] = 1
		return 1
	case regionC:
		s[0] = s[2]
		lam[0] = 1
		return 1
	case regionAB:
		lam[0], lam[1] = u, v
		return 2
	case regionCA:
		s[1] = s[2]
		lam[0], lam[1] = u, w
		return 2
	case regionBC:
		s[0], s[1] = s[1], s[2]
		lam[0], lam[1] = v, w
		return 2
	}
	lam[0], lam[1], lam[2] = u, v, w
	return 3
}

func closestTetrahedron(s *[4]simplexVertex, lam *[4]float32) int {
	// The origin is inside unless it is outside the plane of a face
	// (relative to the fourth corner); then the closest point is on one of
	// those faces.
	faces := [4][4]int{{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}}
	// A flat tetrahedron (its fourth corner in the plane of the other
	// three, up to rounding: a capsule's segment parallel to a box's
	// face gives one) holds no point in its inside: every face is
	// tried, and the origin is never taken for inside it (it would read
	// a capsule 7 mm from a wall as touching it).
	a0, a1, a2, a3 := s[0].w, s[1].w, s[2].w, s[3].w
	e1, e2, e3 := a1.sub(a0), a2.sub(a0), a3.sub(a0)
	vol := e1.dot(e2.cross(e3))
	scale := max(e1.lengthSq(), e2.lengthSq(), e3.lengthSq())
	flat := float32(vol*vol) <= float32(gjkFlatRel*float32(scale*float32(scale*scale)))
	best := float32(-1)
	var bestS [4]simplexVertex
	var bestLam [4]float32
	bestN := 0
	for _, f := range faces {
		a, b, c, d := s[f[0]].w, s[f[1]].w, s[f[2]].w, s[f[3]].w
		nrm := b.sub(a).cross(c.sub(a))
		sa, sd := a.neg().dot(nrm), d.sub(a).dot(nrm) // origin and d relative to the face
		if !flat && float32(sa*sd) >= 0 {
			continue // the origin is on d's side of this face
		}
		t := [4]simplexVertex{s[f[0]], s[f[1]], s[f[2]]}
		var l [4]float32
		k := closestTriangle(&t, &l)
		var p vec3
		for i := range k {
			p = p.addScaled(t[i].w, l[i])
		}
		if dd := p.lengthSq(); best < 0 || dd < best {
			best, bestS, bestLam, bestN = dd, t, l, k
		}
	}
	if best < 0 {
		return 4
	}
	*s, *lam = bestS, bestLam
	return bestN
}

// closestOnTriangleWeights is closestOnTriangle with the barycentric
// weights (u, v, w) of the point on a, b and c.
func closestOnTriangleWeights(p, a, b, c vec3) (vec3, uint32, float32, float32, float32) {
	ab, ac, ap := b.sub(a), c.sub(a), p.sub(a)
	d1, d2 := ab.dot(ap), ac.dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a, regionA, 1, 0, 0
	}
	bp := p.sub(b)
	d3, d4 := ab.dot(bp), ac.dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b, regionB, 0, 1, 0
	}
	vc := float32(d1*d4) - float32(d3*d2)
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		t := d1 / (d1 - d3)
		return a.addScaled(ab, t), regionAB, 1 - t, t, 0
	}
	cp := p.sub(c)
	d5, d6 := ab.dot(cp), ac.dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return c, regionC, 0, 0, 1
	}
	vb := float32(d5*d2) - float32(d1*d6)
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		t := d2 / (d2 - d6)
		return a.addScaled(ac, t), regionCA, 1 - t, 0, t
	}
	va := float32(d3*d6) - float32(d5*d4)
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		t := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		return b.addScaled(c.sub(b), t), regionBC, 0, 1 - t, t
	}
	denom := 1 / (va + vb + vc)
	v, w := float32(vb*denom), float32(vc*denom)
	return a.addScaled(ab, v).addScaled(ac, w), regionFace, 1 - v - w, v, w
}

// distance returns the distance between shapes a and b (0 when they
// overlap) and the direction from a to b along which it is measured (zero
// when they overlap).
func distance(a, b *convex) (float32, vec3) {
	d, pa, pb := coreDistance(a, b)
	if d == 0 {
		return 0, vec3{}
	}
	n := pb.sub(pa).scale(1 / d)
	return max(0, d-a.radius-b.radius), n
}

// castMaxIterations bounds a cast's advancement steps.
const castMaxIterations = 32

// cast moves a by delta (its pose's translation only) and returns the
// fraction t in [0, 1] of delta at which it comes within target of b, and
// the normal there (from a to b); hit is false when it does not within
// delta, or when the two are already within target at the start (a
// resting contact is not a hit).
func cast(a, b *convex, delta vec3, target float32) (t float32, normal vec3, hit bool) {
	start := a.p.p
	defer func() { a.p.p = start }()
	d, n := distance(a, b)
	if d <= target {
		return 0, vec3{}, false
	}
	for range castMaxIterations {
		closing := delta.dot(n) // how fast the gap shrinks per unit of t
		if closing <= 0 {
			return 1, vec3{}, false
		}
		t += (d - float32(target*0.5)) / closing
		if t >= 1 {
			return 1, vec3{}, false
		}
		a.p.p = start.addScaled(delta, t)
		dn, nn := distance(a, b)
		if nn == (vec3{}) { // overlapping: the last normal is the one to keep
			return t, n, true
		}
		d, n = dn, nn
		if d <= target {
			return t, n, true
		}
	}
	return t, n, true
}
