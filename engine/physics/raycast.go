package physics

import (
	"math"
	"slices"
)

// Ray casts. A ray is the segment origin + t·dir for t in [0, maxT]; dir
// need not be a unit vector (t is measured in lengths of dir). Shapes are
// solid: a ray that starts inside or on a shape hits it at t = 0 with a zero
// normal, since it crosses no surface. Non-finite input, a zero dir (unless
// the origin is inside) and a negative or NaN maxT hit nothing.

// raycast returns where the ray first meets shape s placed at p: the
// parameter t, the unit outward normal there (world frame) and ok. Sphere,
// box and capsule are exact up to float32 rounding; other kinds never hit.
func (s *shape) raycast(p pose, origin, dir vec3, maxT float32) (t float32, normal vec3, ok bool) {
	if !origin.finite() || !dir.finite() || !(maxT >= 0) {
		return 0, vec3{}, false
	}
	o := p.unapply(origin)
	d := p.q.unrotate(dir)
	var n vec3
	switch s.kind {
	case Sphere:
		t, n, ok = raySphere(o, d, vec3{}, s.radius)
	case Box:
		t, n, ok = rayBox(o, d, s.half)
	case Capsule:
		t, n, ok = rayCapsule(o, d, s.radius, s.halfHeight)
	}
	if !ok || t > maxT {
		return 0, vec3{}, false
	}
	return t, p.q.rotate(n), true
}

// raySphere is the first hit of the ray o + t·d (t >= 0) on the ball of
// radius r around c, in c's frame.
func raySphere(o, d, c vec3, r float32) (float32, vec3, bool) {
	m := o.sub(c)
	cc := m.dot(m) - float32(r*r)
	if cc <= 0 {
		return 0, vec3{}, true // inside or on it
	}
	a := d.dot(d)
	b := m.dot(d)
	if b >= 0 || a == 0 {
		return 0, vec3{}, false // moving away, or not moving
	}
	disc := float32(b*b) - float32(a*cc)
	if disc < 0 {
		return 0, vec3{}, false
	}
	t := (-b - sqrt(disc)) / a
	t = max(t, 0)
	n, _ := m.addScaled(d, t).normalize()
	return t, n, true
}

// rayBox is the first hit of the ray o + t·d (t >= 0) on the box of half
// extents h around the origin (a slab test). On an edge or a corner the
// normal is that of the lowest axis among those entered last.
func rayBox(o, d, h vec3) (float32, vec3, bool) {
	if abs(o.x) <= h.x && abs(o.y) <= h.y && abs(o.z) <= h.z {
		return 0, vec3{}, true
	}
	enter, exit := float32(math.Inf(-1)), float32(math.Inf(1))
	axis, sign := -1, float32(0)
	for k := range 3 {
		ok, dk, hk := comp(o, k), comp(d, k), comp(h, k)
		if dk == 0 {
			if abs(ok) > hk {
				return 0, vec3{}, false
			}
			continue
		}
		t1, t2 := (-hk-ok)/dk, (hk-ok)/dk
		s := float32(-1) // entering through the -hk face
		if t1 > t2 {
			t1, t2, s = t2, t1, 1
		}
		if t1 > enter {
			enter, axis, sign = t1, k, s
		}
		exit = min(exit, t2)
	}
	if axis < 0 || enter > exit || enter < 0 {
		return 0, vec3{}, false
	}
	var n vec3
	switch axis {
	case 0:
		n.x = sign
	case 1:
		n.y = sign
	default:
		n.z = sign
	}
	return enter, n, true
}

// rayCapsule is the first hit of the ray o + t·d (t >= 0) on the capsule of
// radius r around the segment from (0, -hh, 0) to (0, hh, 0): the first of
// the hits on its side (a cylinder) and on the balls at its ends.
func rayCapsule(o, d vec3, r, hh float32) (float32, vec3, bool) {
	y := clamp(o.y, -hh, hh)
	if q := o.sub(vec3{0, y, 0}); q.dot(q) <= float32(r*r) {
		return 0, vec3{}, true
	}
	best, bestN, hit := float32(0), vec3{}, false
	take := func(t float32, n vec3, ok bool) {
		if ok && (!hit || t < best) {
			best, bestN, hit = t, n, true
		}
	}
	// The side: |(o + t d)_xz| = r with |y| <= hh.
	a := float32(d.x*d.x) + float32(d.z*d.z)
	b := float32(o.x*d.x) + float32(o.z*d.z)
	c := float32(o.x*o.x) + float32(o.z*o.z) - float32(r*r)
	if a > 0 && b < 0 && c > 0 {
		if disc := float32(b*b) - float32(a*c); disc >= 0 {
			t := (-b - sqrt(disc)) / a
			if py := o.y + float32(t*d.y); abs(py) <= hh {
				p := o.addScaled(d, t)
				n, _ := vec3{p.x, 0, p.z}.normalize()
				take(t, n, true)
			}
		}
	}
	take(raySphere(o, d, vec3{0, hh, 0}, r))
	take(raySphere(o, d, vec3{0, -hh, 0}, r))
	return best, bestN, hit
}

// rayCandidate is a box the ray enters at t.
type rayCandidate struct {
	t float32
	i int32
}

// rayBoxEntry returns the t in [0, maxT] at which the ray o + t·d enters
// box b (0 when it starts inside), and whether it does. Like the narrow
// tests it is a slab test; it never divides by zero.
func rayBoxEntry(b *aabb, o, d vec3, maxT float32) (float32, bool) {
	enter, exit := float32(0), maxT
	for k := range 3 {
		ok, dk := comp(o, k), comp(d, k)
		lo, hi := comp(b.min, k), comp(b.max, k)
		if dk == 0 {
			if !(lo <= ok && ok <= hi) {
				return 0, false
			}
			continue
		}
		t1, t2 := (lo-ok)/dk, (hi-ok)/dk
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		// o and d are finite, so an infinite face gives an infinite t,
		// never a NaN.
		enter, exit = max(enter, t1), min(exit, t2)
		if enter > exit {
			return 0, false
		}
	}
	return enter, finite(enter) // a box at infinity is never reached
}

// raycast casts the ray origin + t·dir, t in [0, maxT], through the boxes of
// the last build. It calls visit for the boxes the ray crosses, in the order
// in which it enters them (ties by index); visit tells where the body's
// shape is hit, if it is. Boxes entered after the nearest hit so far are not
// visited. raycast returns the nearest hit, ties going to the lower index.
// To see every body along the ray, have visit record them and report no
// hit. Boxes with a NaN are never visited; non-finite origin or dir, or a
// maxT that is negative or NaN, visit nothing.
//
// It tests every box of the last build (a slab test each), then sorts those
// the ray enters: fine for the ray casts a game makes in a tick on a few
// thousand bodies.
func (bp *broadphase) raycast(origin, dir vec3, maxT float32, visit func(i int32) (t float32, hit bool)) (index int32, t float32, ok bool) {
	if !origin.finite() || !dir.finite() || !(maxT >= 0) {
		return -1, 0, false
	}
	bp.rays = bp.rays[:0]
	for k := range bp.ents {
		e := &bp.ents[k]
		if t, in := rayBoxEntry(&e.box, origin, dir, maxT); in {
			bp.rays = append(bp.rays, rayCandidate{t, e.i})
		}
	}
	for k, i := range bp.large {
		if t, in := rayBoxEntry(&bp.largeBoxes[k], origin, dir, maxT); in {
			bp.rays = append(bp.rays, rayCandidate{t, i})
		}
	}
	slices.SortFunc(bp.rays, func(a, b rayCandidate) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return int(a.i - b.i)
	})
	index = -1
	for _, c := range bp.rays {
		if ok && (c.t > t || (c.t == t && c.i > index)) {
			break
		}
		ht, hit := visit(c.i)
		if !hit || !(ht >= 0) || ht > maxT {
			continue
		}
		if !ok || ht < t || (ht == t && c.i < index) {
			index, t, ok = c.i, ht, true
		}
	}
	return index, t, ok
}
