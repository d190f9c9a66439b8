package physics

import (
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// Queries for gameplay: ray casts, shape overlaps and shape sweeps against
// the bodies as the world holds them now (after the last step, or as game
// code has moved them since). They read the world and change nothing, and
// their results depend only on the world's state and their arguments, in
// a deterministic order, so fixed systems may use them. Each tests every
// body's bounding box before its shape: fine for the queries a game makes
// in a tick on a few thousand bodies.

// QueryFilter chooses the bodies a query sees.
type QueryFilter struct {
	// Mask is the layers seen: a body is seen when its Layer & Mask is not
	// 0. The zero Mask sees every layer.
	Mask uint32
	// Exclude is a body the query does not see (the caster's own), or the
	// zero Entity.
	Exclude engine.Entity
	// Sensors makes the query see sensor bodies too.
	Sensors bool
}

// sees reports whether f lets a query see body b of entity e.
func (f *QueryFilter) sees(e engine.Entity, b *Body) bool {
	if e == f.Exclude || b.Sensor && !f.Sensors {
		return false
	}
	return f.Mask == 0 || b.Layer&f.Mask != 0
}

// RayHit is where a ray meets a body.
type RayHit struct {
	Entity   engine.Entity // the body hit
	Point    mgl32.Vec3    // on the body's surface
	Normal   mgl32.Vec3    // the surface's outward normal there; zero when the ray starts inside the body
	Distance float32       // from the ray's origin, m
	// Part is the index of the compound's part hit, in the list given to
	// AddCompound (the lowest of those hit at the same distance); 0 for
	// other shapes.
	Part int
}

// RayCast returns the first body the ray from origin along dir (any
// nonzero length: it is normalised) meets within maxDist metres, and
// whether there is one. A ray that starts inside a body hits it at
// distance 0. Equal distances go to the body in the lower slot. It returns
// an error, and no hit, for a non-finite origin or dir, a zero dir or a
// negative or non-finite maxDist.
func (s *Space) RayCast(origin, dir mgl32.Vec3, maxDist float32, f QueryFilter) (RayHit, bool, error) {
	o, d, err := checkRay("RayCast", origin, dir, maxDist)
	if err != nil {
		return RayHit{}, false, err
	}
	var best RayHit
	found := false
	s.eachSeen(f, func(e engine.Entity, sh shape, p pose) {
		limit := maxDist
		if found {
			limit = best.Distance
		}
		if h, ok := s.rayBody(e, &sh, p, o, d, limit); ok && (!found || h.Distance < best.Distance) {
			best, found = h, true
		}
	})
	s.logRay(origin, d, maxDist, b2i(found), best)
	return best, found, nil
}

// RayCastAll appends to out every body the ray from origin along dir
// (any nonzero length: it is normalised) meets within maxDist metres, one
// hit each (where the ray first meets it), and returns out: the hits it
// added are sorted by distance, equal distances by slot (lower first).
// It allocates nothing when out has room for them. It takes the same
// arguments as RayCast and returns out unchanged and an error where
// RayCast would.
//
// For example, every body a bullet would pass through, nearest first:
//
//	hits, err := space.RayCastAll(muzzle, aim, 100, physics.QueryFilter{Exclude: shooter}, hits[:0])
func (s *Space) RayCastAll(origin, dir mgl32.Vec3, maxDist float32, f QueryFilter, out []RayHit) ([]RayHit, error) {
	o, d, err := checkRay("RayCastAll", origin, dir, maxDist)
	if err != nil {
		return out, err
	}
	n0 := len(out)
	s.eachSeen(f, func(e engine.Entity, sh shape, p pose) {
		if h, ok := s.rayBody(e, &sh, p, o, d, maxDist); ok {
			out = append(out, h)
		}
	})
	slices.SortFunc(out[n0:], cmpRayHits)
	if s.qlog.on {
		s.logRay(origin, d, maxDist, len(out)-n0, firstOr(out[n0:], RayHit{}))
	}
	return out, nil
}

// cmpRayHits orders ray hits by distance, then by slot.
func cmpRayHits(a, b RayHit) int {
	if a.Distance != b.Distance {
		if a.Distance < b.Distance {
			return -1
		}
		return 1
	}
	return a.Entity.Index() - b.Entity.Index()
}

// checkRay checks a ray's arguments for call and returns the origin and
// the unit direction.
func checkRay(call string, origin, dir mgl32.Vec3, maxDist float32) (vec3, vec3, error) {
	o, d := toVec3(origin), toVec3(dir)
	if !o.finite() || !d.finite() {
		return o, d, fmt.Errorf("physics: %s: origin %v and direction %v must be finite", call, origin, dir)
	}
	d, l := d.normalize()
	if l == 0 || !finite(l) {
		return o, d, fmt.Errorf("physics: %s: the direction must be a nonzero vector, got %v", call, dir)
	}
	if !(maxDist >= 0) || !finite(maxDist) {
		return o, d, fmt.Errorf("physics: %s: the distance must be finite and not negative, got %v", call, maxDist)
	}
	return o, d, nil
}

// rayBody returns where the ray o + t·d (d a unit vector) first meets the
// body e of shape sh at p within limit, and whether it does.
func (s *Space) rayBody(e engine.Entity, sh *shape, p pose, o, d vec3, limit float32) (RayHit, bool) {
	box := sh.aabb(p)
	if _, in := rayBoxEntry(&box, o, d, limit); !in {
		return RayHit{}, false
	}
	var t float32
	var n vec3
	var ok bool
	part := 0
	switch sh.kind {
	case Mesh:
		t, n, ok = sh.mesh.raycast(p, o, d, limit, &s.mq.stack)
	case Compound:
		t, n, part, ok = sh.comp.raycast(p, o, d, limit)
	default:
		t, n, ok = sh.raycast(p, o, d, limit)
	}
	if !ok {
		return RayHit{}, false
	}
	return RayHit{Entity: e, Point: fromVec3(o.addScaled(d, t)), Normal: fromVec3(n), Distance: t, Part: part}, true
}

// Overlap appends to out the bodies that the shape sh, placed at pos and
// turned by rot, overlaps or touches, in slot order, and returns it. It
// returns out and an error for an invalid shape (Shape's rules; a mesh or
// a compound is not a query shape) or a non-finite pose. A compound body
// is seen when one of its parts is.
func (s *Space) Overlap(sh Shape, pos mgl32.Vec3, rot mgl32.Quat, f QueryFilter, out []engine.Entity) ([]engine.Entity, error) {
	q, p, err := s.queryShape("Overlap", sh, pos, rot)
	if err != nil {
		return out, err
	}
	a := convexOf(&q, p)
	box := q.aabb(p)
	n0 := len(out)
	s.eachSeen(f, func(e engine.Entity, bs shape, bp pose) {
		if !bs.aabb(bp).overlaps(box) {
			return
		}
		if bs.kind == Mesh {
			if s.overlapsMesh(&a, box, bs.mesh, bp) {
				out = append(out, e)
			}
			return
		}
		if bs.kind == Compound {
			for i := range bs.comp.parts {
				pt := &bs.comp.parts[i]
				pp := partPose(bp, pt)
				if !pt.shape.aabb(pp).overlaps(box) {
					continue
				}
				b := convexOf(&pt.shape, pp)
				if d, _ := distance(&a, &b); d <= 0 {
					out = append(out, e)
					return
				}
			}
			return
		}
		b := convexOf(&bs, bp)
		if d, _ := distance(&a, &b); d <= 0 {
			out = append(out, e)
		}
	})
	s.logOverlap(sh, pos, rot, len(out)-n0)
	return out, nil
}

// overlapsMesh reports whether the convex shape a (with world bounds box)
// touches a triangle of mesh m carried at p.
func (s *Space) overlapsMesh(a *convex, box aabb, m *TriangleMesh, p pose) bool {
	local := boxInFrame(box, p)
	s.mq.tris, s.mq.stack = m.overlapping(local, s.mq.tris[:0], s.mq.stack)
	for _, t := range s.mq.tris {
		ta, tb, tc := m.triangle(t)
		tri := convex{tri: [3]vec3{p.apply(ta), p.apply(tb), p.apply(tc)}}
		if d, _ := distance(a, &tri); d <= 0 {
			return true
		}
	}
	return false
}

// SweepHit is where a swept shape first touches a body.
type SweepHit struct {
	// Entity is the body the shape touches first.
	Entity engine.Entity
	// Fraction is how far along the sweep, from 0 to 1, the shape first
	// touches the body.
	Fraction float32
	// Normal is the contact normal there, from the swept shape to the
	// body.
	Normal mgl32.Vec3
}

// sweepTarget is the gap, in m, at which a sweep counts as touching.
const sweepTarget = 0.001

// Sweep moves the shape sh, placed at pos and turned by rot, along delta
// (without turning it) and returns the first body it touches and whether
// there is one. Bodies it already touches at the start are not hits (a
// character standing on the floor sweeps along it). Equal fractions go to
// the body in the lower slot. It returns an error, and no hit, for an
// invalid shape, a non-finite pose or a non-finite delta.
func (s *Space) Sweep(sh Shape, pos mgl32.Vec3, rot mgl32.Quat, delta mgl32.Vec3, f QueryFilter) (SweepHit, bool, error) {
	q, p, err := s.queryShape("Sweep", sh, pos, rot)
	if err != nil {
		return SweepHit{}, false, err
	}
	dv := toVec3(delta)
	if !dv.finite() {
		return SweepHit{}, false, fmt.Errorf("physics: Sweep: the motion must be finite, got %v", delta)
	}
	a := convexOf(&q, p)
	swept := sweptBox(&q, p, dv)
	var best SweepHit
	found := false
	s.eachSeen(f, func(e engine.Entity, bs shape, bp pose) {
		if h, ok := s.sweepBody(&a, dv, swept, e, &bs, bp, sweepTarget); ok && (!found || h.Fraction < best.Fraction) {
			best, found = h, true
		}
	})
	s.logSweep(sh, pos, rot, delta, b2i(found), best)
	return best, found, nil
}

// SweepAll appends to out every body that the shape sh, placed at pos
// and turned by rot, touches as it moves along delta (without turning),
// one hit each (where it first touches it), and returns out: the hits it
// added are sorted by fraction, equal fractions by slot (lower first). As
// for Sweep, bodies it already touches at the start are not hits. It
// allocates nothing when out has room for them. It takes the same
// arguments as Sweep and returns out unchanged and an error where Sweep
// would.
//
// For example, everything a sliding door would push, in the order it
// meets them:
//
//	hits, err := space.SweepAll(door, closed, rot, travel, physics.QueryFilter{Exclude: doorBody}, hits[:0])
func (s *Space) SweepAll(sh Shape, pos mgl32.Vec3, rot mgl32.Quat, delta mgl32.Vec3, f QueryFilter, out []SweepHit) ([]SweepHit, error) {
	q, p, err := s.queryShape("SweepAll", sh, pos, rot)
	if err != nil {
		return out, err
	}
	dv := toVec3(delta)
	if !dv.finite() {
		return out, fmt.Errorf("physics: SweepAll: the motion must be finite, got %v", delta)
	}
	a := convexOf(&q, p)
	swept := sweptBox(&q, p, dv)
	n0 := len(out)
	s.eachSeen(f, func(e engine.Entity, bs shape, bp pose) {
		if h, ok := s.sweepBody(&a, dv, swept, e, &bs, bp, sweepTarget); ok {
			out = append(out, h)
		}
	})
	slices.SortFunc(out[n0:], cmpSweepHits)
	if s.qlog.on {
		s.logSweep(sh, pos, rot, delta, len(out)-n0, firstOr(out[n0:], SweepHit{}))
	}
	return out, nil
}

// cmpSweepHits orders sweep hits by fraction, then by slot.
func cmpSweepHits(a, b SweepHit) int {
	if a.Fraction != b.Fraction {
		if a.Fraction < b.Fraction {
			return -1
		}
		return 1
	}
	return a.Entity.Index() - b.Entity.Index()
}

// sweptBox returns the box that holds shape q at p moved along dv, grown
// by the sweep's target gap.
func sweptBox(q *shape, p pose, dv vec3) aabb {
	start := q.aabb(p)
	end := aabb{start.min.add(dv), start.max.add(dv)}
	return start.union(end).grow(sweepTarget)
}

// sweepBody returns where the convex a moved along dv first comes within
// target of the body e of shape bs at bp (swept holds a's path), and
// whether it does: the least fraction over the body's parts or triangles
// (ties: the first).
func (s *Space) sweepBody(a *convex, dv vec3, swept aabb, e engine.Entity, bs *shape, bp pose, target float32) (SweepHit, bool) {
	if !bs.aabb(bp).overlaps(swept) {
		return SweepHit{}, false
	}
	var best SweepHit
	found := false
	try := func(b *convex) {
		t, n, hit := cast(a, b, dv, target)
		if hit && (!found || t < best.Fraction) {
			best, found = SweepHit{Entity: e, Fraction: t, Normal: fromVec3(n)}, true
		}
	}
	switch bs.kind {
	case Compound:
		for i := range bs.comp.parts {
			pt := &bs.comp.parts[i]
			pp := partPose(bp, pt)
			if !pt.shape.aabb(pp).overlaps(swept) {
				continue
			}
			b := convexOf(&pt.shape, pp)
			try(&b)
		}
	case Mesh:
		s.mq.tris, s.mq.stack = bs.mesh.overlapping(boxInFrame(swept, bp), s.mq.tris[:0], s.mq.stack)
		for _, t := range s.mq.tris {
			ta, tb, tc := bs.mesh.triangle(t)
			ta, tb, tc = bp.apply(ta), bp.apply(tb), bp.apply(tc)
			// A triangle the shape lies on and slides along (the floor
			// under a rolling ball) touches it at every seam without
			// being in the way: only one it moves towards can stop it,
			// or one whose plane cuts into it (a shape moving in the
			// triangle's plane, or across it, meets its edges).
			fn := tb.sub(ta).cross(tc.sub(ta))
			if fn.dot(a.p.p.sub(ta)) < 0 {
				fn = fn.neg()
			}
			if fn.dot(dv) >= 0 && !cutByPlane(a, ta, fn) {
				continue
			}
			tri := convex{tri: [3]vec3{ta, tb, tc}}
			try(&tri)
		}
	default:
		b := convexOf(bs, bp)
		try(&b)
	}
	return best, found
}

// planeCut is how deep, at most, a plane may reach into a shape that
// rests on it (a body settled on a floor, a character placed on it) for
// the shape still to count as lying on it: Jolt's penetration slop, or
// half the shape's extent along the plane's normal for a smaller shape.
const planeCut = 0.02 // m

// cutByPlane reports whether the plane through x with normal fn (any
// length, facing the shape's centre) reaches into a by more than it would
// into a shape resting on the plane: by more than planeCut, or half a's
// extent along fn for a thin shape.
func cutByPlane(a *convex, x, fn vec3) bool {
	n, l := direction(fn, vec3{})
	if l == 0 {
		return true
	}
	lo := a.support(n.neg()).sub(x).dot(n) - a.radius // a's lowest point above the plane
	hi := a.support(n).sub(x).dot(n) + a.radius       // and its highest
	return lo < -min(planeCut, float32(0.5*(hi-lo)))
}

// queryShape checks a query's shape and pose and returns them as the step
// reads them.
func (s *Space) queryShape(call string, sh Shape, pos mgl32.Vec3, rot mgl32.Quat) (shape, pose, error) {
	if sh.Kind == Mesh || sh.Kind == Compound || sh.Kind == HeightField {
		return shape{}, pose{}, fmt.Errorf("physics: %s: a %v cannot be a query's shape (sphere, capsule, box, cylinder or convex hull)", call, sh.Kind)
	}
	if err := sh.validate(); err != nil {
		return shape{}, pose{}, fmt.Errorf("physics: %s: %w", call, err)
	}
	if err := s.checkAssets(sh, Static, 0); err != nil {
		return shape{}, pose{}, fmt.Errorf("physics: %s: %w", call, err)
	}
	p := pose{toVec3(pos), toQuat(rot)}
	if !p.p.finite() || !p.q.finite() || p.q.lengthSq() == 0 {
		return shape{}, pose{}, fmt.Errorf("physics: %s: the position %v and rotation %v must be finite, the rotation nonzero", call, pos, rot)
	}
	p.q = p.q.normalize()
	return s.bodyShape(sh), p, nil
}

// eachSeen calls fn for every body f sees, in slot order, with its shape
// and pose as the world holds them now.
//
// The shape is passed by value: a pointer to a local handed to fn, a
// function value, would move each one to the heap.
func (s *Space) eachSeen(f QueryFilter, fn func(e engine.Entity, sh shape, p pose)) {
	vals, _ := s.bodies.Slices()
	wb := s.w.Bodies()
	for _, slot := range s.bodies.Indices() {
		b := &vals[slot]
		e, _ := s.w.EntityAt(int(slot))
		if !f.sees(e, b) {
			continue
		}
		p := pose{toVec3(wb.Pos[slot]), toQuat(wb.Rot[slot])}
		if !p.p.finite() || !p.q.finite() {
			continue
		}
		fn(e, s.bodyShape(b.Shape), p)
	}
}

// boxInFrame returns a box that holds the world box b as seen from the
// frame p.
func boxInFrame(b aabb, p pose) aabb {
	c := b.min.add(b.max).scale(0.5)
	h := b.max.sub(b.min).scale(0.5)
	m := p.q.conj().rotation()
	lc := p.unapply(c)
	e := vec3{m.r0.abs().dot(h), m.r1.abs().dot(h), m.r2.abs().dot(h)}
	return aabb{lc.sub(e), lc.add(e)}
}

// raycast returns where the ray origin + t·dir (dir a unit vector, world
// frame) first meets a triangle of m carried at p, within maxT: the
// distance, the triangle's normal facing the ray, and ok. Triangles are
// two-sided.
func (m *TriangleMesh) raycast(p pose, origin, dir vec3, maxT float32, stackp *[]uint32) (float32, vec3, bool) {
	o, d := p.unapply(origin), p.q.unrotate(dir)
	best, found := maxT, false
	var bestN vec3
	*stackp = m.visit(*stackp,
		func(b *aabb) bool { _, in := rayBoxEntry(b, o, d, best); return in },
		func(t uint32) {
			a, b, c := m.triangle(t)
			if tt, nn, ok := rayTriangle(o, d, a, b, c); ok && (tt < best || !found && tt <= best) {
				best, bestN, found = tt, nn, true
			}
		})
	if !found {
		return 0, vec3{}, false
	}
	return best, p.q.rotate(bestN), true
}

// rayTriangle is the Möller–Trumbore test of the ray o + t·d (t >= 0)
// against triangle abc: t, the unit normal facing the ray, and ok.
func rayTriangle(o, d, a, b, c vec3) (float32, vec3, bool) {
	e1, e2 := b.sub(a), c.sub(a)
	pv := d.cross(e2)
	det := e1.dot(pv)
	if det == 0 {
		return 0, vec3{}, false // the ray runs along the triangle's plane
	}
	inv := 1 / det
	tv := o.sub(a)
	u := float32(tv.dot(pv) * inv)
	if u < 0 || u > 1 {
		return 0, vec3{}, false
	}
	qv := tv.cross(e1)
	v := float32(d.dot(qv) * inv)
	if v < 0 || u+v > 1 {
		return 0, vec3{}, false
	}
	t := float32(e2.dot(qv) * inv)
	if t < 0 {
		return 0, vec3{}, false
	}
	n, _ := e1.cross(e2).normalize()
	if n.dot(d) > 0 {
		n = n.neg()
	}
	return t, n, true
}
