package physics

// Stand-ins until the real narrow and broad phases land: collide knows
// spheres only and pairs tests every pair. Delete this file then.

// collide writes into m the contact of shape a at pa with shape b at pb:
// every point whose separation is at most margin, normal from a to b. The
// caller passes a.kind <= b.kind. m.n is 0 when they are farther apart.
func collide(a *shape, pa pose, b *shape, pb pose, margin float32, m *manifold) {
	m.n = 0
	if a.kind != Sphere || b.kind != Sphere {
		return
	}
	d := pb.p.sub(pa.p)
	n, l := d.normalize()
	if l == 0 {
		n = vec3{0, 1, 0}
	}
	sep := l - a.radius - b.radius
	if sep > margin {
		return
	}
	m.normal = n
	m.n = 1
	mid := pa.p.addScaled(n, a.radius+float32(sep*0.5))
	m.pts[0] = contactPoint{p: mid, sep: sep, id: 0}
}
