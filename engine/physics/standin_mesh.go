package physics

// A stand-in for the narrow phase's shape bounds, until it lands. Delete
// this file then.
func (s *shape) aabb(p pose) aabb {
	var e vec3
	switch s.kind {
	case Sphere:
		e = vec3{s.radius, s.radius, s.radius}
	case Capsule:
		m := p.q.rotation()
		a := m.col(1).abs().scale(s.halfHeight)
		e = a.add(vec3{s.radius, s.radius, s.radius})
	case Box:
		m := p.q.rotation()
		e = vec3{m.r0.abs().dot(s.half), m.r1.abs().dot(s.half), m.r2.abs().dot(s.half)}
	}
	return aabb{p.p.sub(e), p.p.add(e)}
}
