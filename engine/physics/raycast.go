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
// The ray is cut into pieces that cross at most one row cell each; each
// piece's box is searched in the rows like a box query, and the boxes found
// wait in a list until no later piece can find a box the ray enters
// earlier. Large boxes are each tested.
func (bp *broadphase) raycast(origin, dir vec3, maxT float32, visit func(i int32) (t float32, hit bool)) (index int32, t float32, ok bool) {
	index = -1
	if !origin.finite() || !dir.finite() || !(maxT >= 0) {
		return index, 0, false
	}
	bp.rays = bp.rays[:0]
	for k, i := range bp.large {
		if et, in := rayBoxEntry(&bp.largeBoxes[k], origin, dir, maxT); in {
			bp.rays = append(bp.rays, rayCandidate{et, i})
		}
	}
	// The part of the ray within the small boxes' bounds, and its pieces.
	t0, in := rayBoxEntry(&bp.bounds, origin, dir, maxT)
	t1 := maxT
	pieces, step := 0, float32(0)
	if in && len(bp.ents) > 0 {
		t1 = rayBoxExit(&bp.bounds, origin, dir, maxT)
		across := max(abs(comp(dir, bp.sv)), abs(comp(dir, bp.sw)))
		pieces, step = 1, t1-t0
		if across > 0 {
			step = 1 / bp.inv / across
			n := (t1 - t0) / step
			if !(n < float32(len(bp.ents)+16)) {
				pieces = -1 // longer than a walk through every box: test them all
			} else {
				pieces = int(n) + 1
			}
		}
		if !finite(step) { // a ray that hardly moves across the rows, or not at all: one piece
			pieces, step = 1, 0
		}
	}
	if pieces < 0 {
		for k := range bp.ents {
			e := &bp.ents[k]
			if et, hit := rayBoxEntry(&e.box, origin, dir, maxT); hit {
				bp.rays = append(bp.rays, rayCandidate{et, e.i})
			}
		}
		pieces = 0
	}
	bp.nextMark()
	for p := 0; p < pieces; p++ {
		ta := t0 + float32(float32(p)*step)
		tb := ta + step
		if p == pieces-1 || step == 0 {
			tb = t1
		}
		if ok && ta > t {
			break // every box not found yet is entered after the hit
		}
		bp.rayPiece(origin, dir, maxT, ta, tb, step)
		// Boxes entered before tb are all found: visit them.
		index, t, ok = bp.visitRays(tb, false, visit, index, t, ok, maxT)
	}
	return bp.visitRays(0, true, visit, index, t, ok, maxT)
}

// rayPiece adds to bp.rays the small boxes not seen yet that the ray enters,
// searching the rows around the piece of the ray from ta to tb (widened a
// little on every side, so that rounding cannot lose a box).
func (bp *broadphase) rayPiece(o, d vec3, maxT, ta, tb, step float32) {
	pad := max(float32(step*0x1p-10), float32(tb*0x1p-20))
	p0, p1 := o.addScaled(d, max(ta-pad, 0)), o.addScaled(d, tb+pad)
	if step == 0 && tb == maxT && !finite(maxT) {
		p1 = p0 // a ray that does not move across the rows: see raycast
	}
	seg := aabb{p0.min(p1), p0.max(p1)}
	a := seg.min.abs().max(seg.max.abs())
	m := max(a.x, a.y, a.z, 1e-30)
	seg = seg.grow(float32(m * 0x1p-20))
	if !finite(seg.min.x + seg.min.y + seg.min.z + seg.max.x + seg.max.y + seg.max.z) {
		seg = bp.bounds
	}
	lo, hi, ok := bp.rowRange(&seg)
	if !ok {
		return
	}
	from, to := bp.span(&seg)
	for r := bp.nextRow(0, lo, hi); r < len(bp.rows); r = bp.nextRow(r+1, lo, hi) {
		l, h := bp.windowRange(r, from, to)
		for k := l; k < h; k++ {
			if bp.stamp[k] == bp.mark {
				continue
			}
			bp.stamp[k] = bp.mark
			e := &bp.ents[k]
			if et, hit := rayBoxEntry(&e.box, o, d, maxT); hit {
				bp.rays = append(bp.rays, rayCandidate{et, e.i})
			}
		}
	}
}

// nextMark starts a new set of stamps for the entries.
func (bp *broadphase) nextMark() {
	if len(bp.stamp) != len(bp.ents) {
		bp.stamp = slices.Grow(bp.stamp[:0], len(bp.ents))[:len(bp.ents)]
		clear(bp.stamp)
		bp.mark = 0
	}
	bp.mark++
	if bp.mark == 0 {
		clear(bp.stamp)
		bp.mark = 1
	}
}

// visitRays visits the waiting boxes entered before limit (all of them when
// all is set) in order of (t, index), and keeps the others waiting. It
// returns the nearest hit so far.
func (bp *broadphase) visitRays(limit float32, all bool, visit func(int32) (float32, bool), index int32, t float32, ok bool, maxT float32) (int32, float32, bool) {
	ready := bp.ready[:0]
	keep := bp.rays[:0]
	for _, c := range bp.rays {
		if all || c.t < limit {
			ready = append(ready, c)
		} else {
			keep = append(keep, c)
		}
	}
	bp.rays = keep
	slices.SortFunc(ready, compareRays)
	for _, c := range ready {
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
	bp.ready = ready[:0]
	return index, t, ok
}

func compareRays(a, b rayCandidate) int {
	switch {
	case a.t < b.t:
		return -1
	case a.t > b.t:
		return 1
	}
	return int(a.i - b.i)
}

// rayBoxExit returns the t in [0, maxT] at which the ray o + t·d leaves box
// b, for a ray that enters it.
func rayBoxExit(b *aabb, o, d vec3, maxT float32) float32 {
	exit := maxT
	for k := range 3 {
		ok, dk := comp(o, k), comp(d, k)
		if dk == 0 {
			continue
		}
		t1, t2 := (comp(b.min, k)-ok)/dk, (comp(b.max, k)-ok)/dk
		exit = min(exit, max(t1, t2))
	}
	return exit
}
