package physics

import "fmt"

// Stand-ins for the shape geometry the narrow phase provides (aabb,
// massProperties, validate), so the core compiles before it lands. Delete
// this file then.

// aabb returns the world box of s placed at p.
func (s *shape) aabb(p pose) aabb {
	var e vec3
	switch s.kind {
	case Sphere:
		e = vec3{s.radius, s.radius, s.radius}
	case Capsule:
		axis := p.q.rotate(vec3{0, s.halfHeight, 0}).abs()
		e = axis.add(vec3{s.radius, s.radius, s.radius})
	default:
		m := p.q.rotation()
		e = vec3{
			m.r0.abs().dot(s.half),
			m.r1.abs().dot(s.half),
			m.r2.abs().dot(s.half),
		}
	}
	return aabb{p.p.sub(e), p.p.add(e)}
}

// massProperties returns the mass of s at density and its principal
// moments of inertia in its own frame.
func (s *shape) massProperties(density float32) (mass float32, inertia vec3) {
	switch s.kind {
	case Sphere:
		r := s.radius
		v := float32(float32(float32(4.0/3*3.14159265)*r) * float32(r*r))
		mass = float32(density * v)
		i := float32(float32(0.4*mass) * float32(r*r))
		return mass, vec3{i, i, i}
	case Capsule:
		// Stand-in: the box around it.
		h := vec3{s.radius, s.halfHeight + s.radius, s.radius}
		return boxMass(h, density)
	}
	return boxMass(s.half, density)
}

func boxMass(h vec3, density float32) (float32, vec3) {
	mass := float32(density * float32(8*float32(float32(h.x*h.y)*h.z)))
	sq := h.mul(h)
	k := float32(mass / 3)
	return mass, vec3{float32(k * (sq.y + sq.z)), float32(k * (sq.x + sq.z)), float32(k * (sq.x + sq.y))}
}

// validate reports what is wrong with s.
func (s Shape) validate() error {
	pos := func(x float32) bool { return x > 0 && finite(x) }
	switch s.Kind {
	case Sphere:
		if !pos(s.Radius) {
			return fmt.Errorf("sphere radius must be positive and finite, got %v", s.Radius)
		}
	case Capsule:
		if !pos(s.Radius) || !(s.HalfHeight >= 0 && finite(s.HalfHeight)) {
			return fmt.Errorf("capsule radius must be positive and its half height non-negative, both finite, got %v and %v", s.Radius, s.HalfHeight)
		}
	case Box:
		h := s.HalfExtents
		if !pos(h[0]) || !pos(h[1]) || !pos(h[2]) {
			return fmt.Errorf("box half extents must be positive and finite, got %v", h)
		}
	default:
		return fmt.Errorf("unknown shape kind %d", s.Kind)
	}
	return nil
}
