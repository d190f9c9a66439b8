package physics

// Contacts between a capsule and a box.

import "math"

// faceAlignCos is the cosine under which a capsule–box normal counts as a
// face normal (about 0.8°): the capsule's axis is then clipped to the face
// for up to two points.
const faceAlignCos = 0.9999

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
	apart := t0 > t1
	if !apart {
		// The axis enters the box; x starts in the middle of its part
		// inside.
		x = p0.addScaled(d, float32(0.5*(t0+t1)))
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
			least := float32(math.Inf(1))
			for e, t := range [2]float32{t0, t1} {
				if e >= ends {
					break
				}
				xk := p0.addScaled(d, t)
				s := xk.dot(f) - hf - r
				least = min(least, s)
				if s <= margin {
					pl := xk.addScaled(n, r+float32(s*0.5))
					m.pts[m.n] = contactPoint{p: rb.mulVec(pl).add(pb.p), sep: s, id: idBoxFace + 2*fi + uint32(e)}
					m.n++
				}
			}
			// Apart, a normal within faceAlignCos of the face's may come
			// from a nearest point just beyond the face's edge: keep the
			// face's points only when they are as near as that point.
			if m.n > 0 && (!apart || least <= sep+float32(1e-5*(1+abs(sep)))) {
				return
			}
			m.n = 0
		}
		singleI = idBoxRegion + boxRegion(x, h)
	}
	m.n = 1
	pl := x.addScaled(n, r+float32(sep*0.5))
	m.pts[0] = contactPoint{p: rb.mulVec(pl).add(pb.p), sep: sep, id: singleI}
}
