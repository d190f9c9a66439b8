package physics

import "math"

// Cylinders: Radius around the local Y axis, from -HalfHeight to
// +HalfHeight, with flat ends. The narrow phase meets them with the
// general convex routine (convexcollide.go); here are their mass, bounds,
// support points and ray casts.

// cylinderSupport returns the point of the cylinder (half height hh,
// radius r, its frame) farthest along d: on the rim of the end d points
// to (the +Y end for d.y = 0), at the rim's point along d's sideways part
// (the end's centre when d is along the axis).
func cylinderSupport(d vec3, hh, r float32) vec3 {
	y := hh
	if d.y < 0 {
		y = -hh
	}
	s, l := (vec3{d.x, 0, d.z}).normalize()
	if l == 0 {
		return vec3{0, y, 0}
	}
	return vec3{float32(s.x * r), y, float32(s.z * r)}
}

// cylinderMass returns a solid cylinder's mass and principal moments
// about its centre: m = ρπr²·2h, I_y = mr²/2, I_x = I_z = m(3r² + 4h²)/12.
func cylinderMass(r, h, density float32) (float32, vec3) {
	const pi = float32(math.Pi)
	r2 := float32(r * r)
	m := float32(float32(float32(pi*r2)*float32(2*h)) * density)
	iy := float32(float32(0.5*m) * r2)
	ix := float32(m*(float32(3*r2)+float32(4*float32(h*h)))) / 12
	return m, vec3{ix, iy, ix}
}

// cylinderAABB returns the world box around a cylinder at p: along each
// world axis, the axis's reach plus the rim's, r·sqrt(1 - u_k²) for the
// unit axis u.
func cylinderAABB(p pose, hh, r float32) aabb {
	u := p.q.rotate(vec3{0, 1, 0})
	a := u.scale(hh).abs()
	rim := func(c float32) float32 { return float32(r * sqrt(max(0, 1-float32(c*c)))) }
	e := vec3{a.x + rim(u.x), a.y + rim(u.y), a.z + rim(u.z)}
	return aabb{p.p.sub(e), p.p.add(e)}
}

// rayCylinder is the first hit of the ray o + t·d (t >= 0) on the
// cylinder of radius r from y = -hh to hh: the first of the hits on its
// side and on its two flat ends.
func rayCylinder(o, d vec3, r, hh float32) (float32, vec3, bool) {
	rr := float32(r * r)
	radial := float32(o.x*o.x) + float32(o.z*o.z)
	if abs(o.y) <= hh && radial <= rr {
		return 0, vec3{}, true
	}
	best, bestN, hit := float32(0), vec3{}, false
	take := func(t float32, n vec3) {
		if !hit || t < best {
			best, bestN, hit = t, n, true
		}
	}
	// The ends.
	if d.y != 0 {
		for _, s := range [2]float32{1, -1} {
			y := float32(s * hh)
			if float32(s*o.y) < hh || float32(s*d.y) >= 0 {
				continue // not outside this end, or moving away from it
			}
			t := (y - o.y) / d.y
			px, pz := o.x+float32(t*d.x), o.z+float32(t*d.z)
			if float32(px*px)+float32(pz*pz) <= rr {
				take(t, vec3{0, s, 0})
			}
		}
	}
	// The side, solved like a ball in the xz plane.
	if u, l := (vec3{d.x, 0, d.z}).normalize(); l > 0 && radial > rr {
		m := vec3{o.x, 0, o.z}
		if tc := -m.dot(u); tc > 0 {
			q := m.addScaled(u, tc)
			if h2 := rr - q.dot(q); h2 >= 0 {
				t := max((tc-sqrt(h2))/l, 0)
				if py := o.y + float32(t*d.y); abs(py) <= hh {
					n, _ := m.addScaled(vec3{d.x, 0, d.z}, t).normalize()
					take(t, n)
				}
			}
		}
	}
	return best, bestN, hit
}
