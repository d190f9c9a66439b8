package physics

import (
	"math"
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
	case Cylinder:
		t, n, ok = rayCylinder(o, d, s.radius, s.halfHeight)
	case ConvexHull:
		if s.hull != nil {
			t, n, ok = s.hull.raycast(o, d)
		}
	}
	if !ok || t > maxT {
		return 0, vec3{}, false
	}
	return t, p.q.rotate(n), true
}

// raySphere is the first hit of the ray o + t·d (t >= 0) on the ball of
// radius r around c. It measures the distance from c to the ray's closest
// point directly rather than through the quadratic's discriminant, which
// loses everything to cancellation when the ray starts far away.
func raySphere(o, d, c vec3, r float32) (float32, vec3, bool) {
	m := o.sub(c)
	rr := float32(r * r)
	if m.dot(m) <= rr {
		return 0, vec3{}, true // inside or on it
	}
	u, l := d.normalize()
	tc := -m.dot(u) // distance along the ray to its closest point
	if l == 0 || tc <= 0 {
		return 0, vec3{}, false // not moving, or moving away
	}
	q := m.addScaled(u, tc)
	h2 := rr - q.dot(q)
	if h2 < 0 {
		return 0, vec3{}, false
	}
	t := max((tc-sqrt(h2))/l, 0)
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
	// The side: |(o + t d)_xz| = r with |y| <= hh, solved like the ball in
	// the xz plane.
	if u, l := (vec3{d.x, 0, d.z}).normalize(); l > 0 {
		m := vec3{o.x, 0, o.z}
		if tc := -m.dot(u); tc > 0 {
			q := m.addScaled(u, tc)
			if h2 := float32(r*r) - q.dot(q); h2 >= 0 {
				t := max((tc-sqrt(h2))/l, 0)
				if py := o.y + float32(t*d.y); abs(py) <= hh {
					n, _ := m.addScaled(vec3{d.x, 0, d.z}, t).normalize()
					take(t, n, true)
				}
			}
		}
	}
	take(raySphere(o, d, vec3{0, hh, 0}, r))
	take(raySphere(o, d, vec3{0, -hh, 0}, r))
	return best, bestN, hit
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
