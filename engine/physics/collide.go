package physics

// The narrow phase: exact contacts between two convex shapes.
//
// Every routine writes a manifold in place (no allocation) whose normal
// points from shape A to shape B and whose points lie midway between the
// two surfaces, with their separation along the normal (negative when the
// shapes overlap). Points farther apart than the margin are left out, so a
// manifold may hold speculative points (0 < sep <= margin) that let the
// solver stop a body before it arrives. Each point's id names the features
// that made it, so the same touching features keep their id from step to
// step. Ties are broken by index and nothing depends on map order: the
// same inputs give the same bits.

// Contact ids. Each pair kind has its own codes: two spheres use 0;
// capsule–capsule 0 for its single point, 1 and 2 for the two ends of a
// line of contact; sphere–capsule, sphere–box and capsule–box the codes
// below; the capsule–box edge codes and box–box's are in boxes.go.
const (
	idCapsuleSide   = 0  // sphere–capsule: the capsule's cylinder
	idCapsuleBottom = 1  // sphere–capsule: the cap at −half height
	idCapsuleTop    = 2  // sphere–capsule: the cap at +half height
	idBoxInside     = 32 // sphere–box, centre inside: + face index (0..5)
	idBoxRegion     = 64 // sphere–box and capsule–box: + boxRegion code (0..26)
	idBoxFace       = 96 // capsule–box lying on a face: + 2·face + end (0..11)
)

// minDirLengthSq is the squared length under which a vector is too short
// to give a precise direction; a fallback direction is used instead.
const minDirLengthSq = 1e-30

// parallelSinSq is the squared sine of the angle under which two capsule
// axes count as parallel (about 1.1°): they touch along a line and get two
// points.
const parallelSinSq = 4e-4

// collide writes into m the contact of shape a at pa with shape b at pb:
// every point whose separation is at most margin (speculative points
// included), normal from a to b. The caller passes a.kind <= b.kind. m.n is
// 0 when they are farther apart than margin.
func collide(a *shape, pa pose, b *shape, pb pose, margin float32, m *manifold) {
	collideWith(a, pa, b, pb, margin, nil, m)
}

// collideWith is collide with the general convex contact's working memory
// (hulls and cylinders) in gen, reused from call to call: the step passes
// its own, so no pair clears a fresh one; nil takes one on the stack.
func collideWith(a *shape, pa pose, b *shape, pb pose, margin float32, gen *convexScratch, m *manifold) {
	m.n = 0
	if a.kind == ConvexHull || a.kind == Cylinder || b.kind == ConvexHull || b.kind == Cylinder {
		if gen == nil {
			gen = new(convexScratch)
		}
		collideGeneral(a, pa, b, pb, margin, gen, m)
		return
	}
	switch a.kind {
	case Sphere:
		switch b.kind {
		case Sphere:
			ballContact(pa.p, a.radius, pb.p, b.radius, vec3{0, 1, 0}, margin, 0, m)
		case Capsule:
			collideSphereCapsule(a, pa, b, pb, margin, m)
		case Box:
			collideSphereBox(a, pa, b, pb, margin, m)
		}
	case Capsule:
		switch b.kind {
		case Capsule:
			collideCapsules(a, pa, b, pb, margin, m)
		case Box:
			collideCapsuleBox(a, pa, b, pb, margin, m)
		}
	case Box:
		if b.kind == Box {
			collideBoxes(a, pa, b, pb, margin, m)
		}
	}
	// Triangle meshes (b.kind == Mesh) are static level geometry; their
	// pairs are handled per triangle by the mesh code, not here.
}

// direction returns v's direction and length, or fallback and 0 when v is
// too short for a precise direction.
func direction(v, fallback vec3) (vec3, float32) {
	l2 := v.lengthSq()
	if l2 < minDirLengthSq {
		return fallback, 0
	}
	l := sqrt(l2)
	return v.scale(1 / l), l
}

// perpendicular returns a unit vector perpendicular to v (any one, chosen
// from v alone), or (1, 0, 0) when v is zero.
func perpendicular(v vec3) vec3 {
	u, l := direction(v, vec3{})
	if l == 0 {
		return vec3{1, 0, 0}
	}
	t, _ := orthonormal(u)
	return t
}

// ballContact writes the contact of a ball at c with radius ra and a ball
// at d with radius rb (fallback is the normal when the centres coincide):
// one point with the given id.
func ballContact(c vec3, ra float32, d vec3, rb float32, fallback vec3, margin float32, id uint32, m *manifold) {
	n, l := direction(d.sub(c), fallback)
	sep := l - ra - rb
	if !(sep <= margin) {
		return
	}
	m.normal = n
	m.n = 1
	m.pts[0] = contactPoint{p: c.addScaled(n, ra+float32(sep*0.5)), sep: sep, id: id}
}

// capsuleAxis returns the ends of the axis of capsule s at p.
func capsuleAxis(s *shape, p pose) (p0, p1 vec3) {
	u := p.q.rotate(vec3{0, s.halfHeight, 0})
	return p.p.sub(u), p.p.add(u)
}

// nearestOnSegment returns the parameter in [0, 1] of the point of segment
// pq nearest to x.
func nearestOnSegment(x, p, q vec3) float32 {
	d := q.sub(p)
	l := d.lengthSq()
	if l < minDirLengthSq {
		return 0
	}
	return clamp(x.sub(p).dot(d)/l, 0, 1)
}

// nearestOnSegments returns the parameters s, t in [0, 1] of the nearest
// points of segments p1q1 and p2q2 (Ericson, Real-Time Collision Detection,
// 5.1.9); parallel segments give the pair at s = 0 when it is one.
func nearestOnSegments(p1, q1, p2, q2 vec3) (s, t float32) {
	d1, d2, r := q1.sub(p1), q2.sub(p2), p1.sub(p2)
	a, e, f := d1.lengthSq(), d2.lengthSq(), d2.dot(r)
	if a < minDirLengthSq && e < minDirLengthSq {
		return 0, 0
	}
	if a < minDirLengthSq {
		return 0, clamp(f/e, 0, 1)
	}
	c := d1.dot(r)
	if e < minDirLengthSq {
		return clamp(-c/a, 0, 1), 0
	}
	b := d1.dot(d2)
	denom := float32(a*e) - float32(b*b)
	if denom > 0 {
		s = clamp((float32(b*f)-float32(c*e))/denom, 0, 1)
	}
	t = (float32(b*s) + f) / e
	if t < 0 {
		t, s = 0, clamp(-c/a, 0, 1)
	} else if t > 1 {
		t, s = 1, clamp((b-c)/a, 0, 1)
	}
	return s, t
}

// collideSphereCapsule: the ball against the nearest point of the axis.
func collideSphereCapsule(a *shape, pa pose, b *shape, pb pose, margin float32, m *manifold) {
	q0, q1 := capsuleAxis(b, pb)
	t := nearestOnSegment(pa.p, q0, q1)
	id := uint32(idCapsuleSide)
	switch t {
	case 0:
		id = idCapsuleBottom
	case 1:
		id = idCapsuleTop
	}
	q := q0.addScaled(q1.sub(q0), t)
	// A centre on the axis: push out sideways.
	fallback := pb.q.rotate(vec3{1, 0, 0})
	ballContact(pa.p, a.radius, q, b.radius, fallback, margin, id, m)
}

// collideCapsules: the nearest points of the two axes, or two points where
// parallel axes overlap (a capsule lying on another).
func collideCapsules(a *shape, pa pose, b *shape, pb pose, margin float32, m *manifold) {
	p0, p1 := capsuleAxis(a, pa)
	q0, q1 := capsuleAxis(b, pb)
	s, t := nearestOnSegments(p0, p1, q0, q1)
	da, db := p1.sub(p0), q1.sub(q0)
	x := p0.addScaled(da, s)
	y := q0.addScaled(db, t)
	r := a.radius + b.radius
	n, l := direction(y.sub(x), vec3{})
	if l-r > margin {
		return
	}
	if l == 0 {
		// The axes cross: push out along their common perpendicular, or
		// sideways from a's axis when they are parallel too.
		var cl float32
		n, cl = direction(da.cross(db), vec3{})
		if cl == 0 {
			n = perpendicular(da)
		}
		if n.dot(pb.p.sub(pa.p)) < 0 {
			n = n.neg()
		}
	}
	m.normal = n
	ea, eb := da.lengthSq(), db.lengthSq()
	if ea >= minDirLengthSq && eb >= minDirLengthSq &&
		da.cross(db).lengthSq() <= float32(parallelSinSq*float32(ea*eb)) {
		// b's ends projected on a's axis; where they overlap it, a line
		// of contact: its two ends.
		u0, u1 := q0.sub(p0).dot(da)/ea, q1.sub(p0).dot(da)/ea
		lo, hi := max(0, min(u0, u1)), min(1, max(u0, u1))
		if hi-lo > 1e-3 {
			for k, u := range [2]float32{lo, hi} {
				xk := p0.addScaled(da, u)
				yk := q0.addScaled(db, nearestOnSegment(xk, q0, q1))
				sep := yk.sub(xk).dot(n) - r
				if sep <= margin {
					m.pts[m.n] = contactPoint{p: xk.addScaled(n, a.radius+float32(sep*0.5)), sep: sep, id: uint32(1 + k)}
					m.n++
				}
			}
			if m.n > 0 {
				return
			}
		}
	}
	sep := l - r
	m.n = 1
	m.pts[0] = contactPoint{p: x.addScaled(n, a.radius+float32(sep*0.5)), sep: sep, id: 0}
}

// boxRegion returns the code of the region of the box with half extents h
// that holds x (in the box's frame): per axis 0 inside the slab, 1 below,
// 2 above, as the digits of a base-3 number (0..26).
func boxRegion(x, h vec3) uint32 {
	code := uint32(0)
	for k := range 3 {
		v, hk := x.at(k), h.at(k)
		d := uint32(0)
		if v > hk {
			d = 2
		} else if v < -hk {
			d = 1
		}
		code = code*3 + d
	}
	return code
}

// collideSphereBox: the ball against the nearest point of the box, or, when
// its centre is inside, against the face nearest to the centre.
func collideSphereBox(a *shape, pa pose, b *shape, pb pose, margin float32, m *manifold) {
	rb := pb.q.rotation()
	x := rb.mulTVec(pa.p.sub(pb.p)) // the centre in the box's frame
	h := b.half
	y := x.max(h.neg()).min(h) // the nearest point of the box
	r := a.radius
	if y != x {
		d := y.sub(x)
		n, l := direction(d, vec3{})
		if l == 0 {
			// Outside by a hair: in through the first face it is past.
			for k := 2; k >= 0; k-- {
				if x.at(k) != y.at(k) {
					n = unitAxis(k, x.at(k) > 0)
				}
			}
		}
		sep := l - r
		if sep > margin {
			return
		}
		wn := rb.mulVec(n)
		m.normal = wn
		m.n = 1
		m.pts[0] = contactPoint{p: pa.p.addScaled(wn, r+float32(sep*0.5)), sep: sep, id: idBoxRegion + boxRegion(x, h)}
		return
	}
	// Inside: out through the face of least depth (ties: lower axis).
	best, face := h.x-abs(x.x), 0
	if d := h.y - abs(x.y); d < best {
		best, face = d, 1
	}
	if d := h.z - abs(x.z); d < best {
		best, face = d, 2
	}
	neg := x.at(face) < 0
	f := unitAxis(face, neg) // outward normal of that face
	fi := uint32(2 * face)
	if neg {
		fi++
	}
	sep := -best - r
	if sep > margin {
		return
	}
	wn := rb.mulVec(f.neg())
	m.normal = wn
	m.n = 1
	m.pts[0] = contactPoint{p: pa.p.addScaled(wn, r+float32(sep*0.5)), sep: sep, id: idBoxInside + fi}
}

// unitAxis returns the unit vector along axis k (0, 1, 2), negated when neg.
func unitAxis(k int, neg bool) vec3 {
	var v vec3
	switch k {
	case 0:
		v = vec3{1, 0, 0}
	case 1:
		v = vec3{0, 1, 0}
	default:
		v = vec3{0, 0, 1}
	}
	if neg {
		return v.neg()
	}
	return v
}
