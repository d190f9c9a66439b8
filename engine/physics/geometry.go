package physics

import (
	"fmt"
	"math"
)

// Shape sizes a body may have, in metres. Below the minimum the contact
// arithmetic loses its precision in float32; above the maximum the mass of
// a dense shape overflows float32.
const (
	minShapeSize = 1e-4
	maxShapeSize = 1e4
)

// validate reports whether s describes a shape the step can use: a known
// kind and sizes that are finite and within [minShapeSize, maxShapeSize]
// (a capsule's half height may also be zero: a ball).
func (s Shape) validate() error {
	switch s.Kind {
	case Sphere:
		return checkSize("sphere radius", s.Radius, false)
	case Capsule:
		if err := checkSize("capsule radius", s.Radius, false); err != nil {
			return err
		}
		return checkSize("capsule half height", s.HalfHeight, true)
	case Box:
		h := s.HalfExtents
		for _, v := range h {
			if !finite(v) || v <= 0 {
				return fmt.Errorf("physics: box half extents must be positive and finite, got %v", h)
			}
		}
		for _, v := range h {
			if v < minShapeSize || v > maxShapeSize {
				return fmt.Errorf("physics: box half extents must be between %g and %g m, got %v",
					minShapeSize, maxShapeSize, h)
			}
		}
		return nil
	case Mesh:
		// Triangle meshes carry their own geometry, checked where they
		// are built; the Space checks the MeshID.
		if s.Mesh == 0 {
			return fmt.Errorf("physics: a mesh shape needs the MeshID of a mesh added with Space.AddMesh, got 0")
		}
		return nil
	case Cylinder:
		if err := checkSize("cylinder radius", s.Radius, false); err != nil {
			return err
		}
		return checkSize("cylinder half height", s.HalfHeight, false)
	case ConvexHull:
		if s.Hull == 0 {
			return fmt.Errorf("physics: a convex hull shape needs the HullID of a hull added with Space.AddConvexHull (HullShape(id)), got 0")
		}
		return nil
	case HeightField:
		if s.HeightField == 0 {
			return fmt.Errorf("physics: a height field shape needs the HeightFieldID of a height field added with Space.AddHeightField, got 0")
		}
		return nil
	case Compound:
		// The parts are checked by Space.AddCompound; the Space checks
		// the CompoundID.
		if s.Compound == 0 {
			return fmt.Errorf("physics: a compound shape needs the CompoundID of a compound added with Space.AddCompound (CompoundShape(id)), got 0")
		}
		return nil
	}
	return fmt.Errorf("physics: unknown shape kind %d", s.Kind)
}

// checkSize checks one length of a shape; zeroOK allows exactly zero.
func checkSize(what string, v float32, zeroOK bool) error {
	if zeroOK && v == 0 {
		return nil
	}
	if !finite(v) || v <= 0 {
		if zeroOK {
			return fmt.Errorf("physics: %s must be zero or positive and finite, got %v", what, v)
		}
		return fmt.Errorf("physics: %s must be positive and finite, got %v", what, v)
	}
	if v < minShapeSize || v > maxShapeSize {
		return fmt.Errorf("physics: %s must be between %g and %g m, got %v", what, minShapeSize, maxShapeSize, v)
	}
	return nil
}

// aabb returns the smallest axis-aligned box around s placed at p.
func (s *shape) aabb(p pose) aabb {
	var e vec3 // half size of the world box
	switch s.kind {
	case Sphere:
		e = vec3{s.radius, s.radius, s.radius}
	case Capsule:
		// The axis's world half extent plus the radius on every axis.
		a := p.q.rotate(vec3{0, s.halfHeight, 0}).abs()
		e = a.add(vec3{s.radius, s.radius, s.radius})
	case Box:
		// |R| h: each world axis gathers the box's half extents projected
		// on it.
		r := p.q.rotation()
		h := s.half
		e = vec3{r.r0.abs().dot(h), r.r1.abs().dot(h), r.r2.abs().dot(h)}
	case Compound:
		if s.comp == nil {
			return aabb{p.p, p.p}
		}
		return s.comp.aabb(p)
	case ConvexHull:
		if s.hull == nil {
			return aabb{p.p, p.p}
		}
		return s.hull.aabb(p)
	case Cylinder:
		return cylinderAABB(p, s.halfHeight, s.radius)
	default:
		if s.mesh == nil {
			return aabb{p.p, p.p}
		}
		// Mesh: its own bounds, turned and moved.
		b := s.mesh.box
		c := p.apply(b.min.add(b.max).scale(0.5))
		h := b.max.sub(b.min).scale(0.5)
		r := p.q.rotation()
		e = vec3{r.r0.abs().dot(h), r.r1.abs().dot(h), r.r2.abs().dot(h)}
		return aabb{c.sub(e), c.add(e)}
	}
	return aabb{p.p.sub(e), p.p.add(e)}
}

// massProperties returns the mass of s filled with the given density and
// the diagonal of its inertia tensor about its centre, in its own frame
// (where the tensor of every shape here is diagonal). A mesh is static and
// has neither.
func (s *shape) massProperties(density float32) (mass float32, inertia vec3) {
	const pi = float32(math.Pi)
	switch s.kind {
	case Sphere:
		r := s.radius
		r2 := float32(r * r)
		mass = float32(float32(float32(float32(4.0/3.0)*pi)*float32(r2*r)) * density)
		i := float32(float32(0.4*mass) * r2)
		return mass, vec3{i, i, i}
	case Capsule:
		// A cylinder of height 2h and two hemispheres (together a ball);
		// each hemisphere's inertia about a transverse axis through the
		// capsule's centre is its own about its centre of mass (3r/8 from
		// the flat face) moved by the parallel-axis theorem:
		// 2/5 m r² + m (h² + 3hr/4) for the two together.
		r, h := s.radius, s.halfHeight
		r2, h2 := float32(r*r), float32(h*h)
		mc := float32(float32(float32(pi*r2)*float32(2*h)) * density)
		ms := float32(float32(float32(float32(4.0/3.0)*pi)*float32(r2*r)) * density)
		mass = mc + ms
		iy := float32(float32(0.5*mc)*r2) + float32(float32(0.4*ms)*r2)
		ic := float32(mc * (float32(h2/3) + float32(r2/4)))
		is := float32(ms * (float32(0.4*r2) + h2 + float32(0.75*float32(h*r))))
		ix := ic + is
		return mass, vec3{ix, iy, ix}
	case Box:
		h := s.half
		mass = float32(float32(float32(8*float32(h.x*h.y))*h.z) * density)
		x2, y2, z2 := float32(h.x*h.x), float32(h.y*h.y), float32(h.z*h.z)
		k := mass / 3
		return mass, vec3{float32(k * (y2 + z2)), float32(k * (x2 + z2)), float32(k * (x2 + y2))}
	case Cylinder:
		return cylinderMass(s.radius, s.halfHeight, density)
	case ConvexHull:
		if s.hull == nil {
			return 0, vec3{}
		}
		return float32(s.hull.volume * density), s.hull.moments.scale(density)
	}
	return 0, vec3{}
}
