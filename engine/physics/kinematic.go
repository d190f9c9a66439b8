package physics

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// MoveKinematic makes the kinematic body e reach the pose pos, rot (the
// entity's position and rotation; rot is normalised) at the end of the
// next Step, as Jolt's MoveKinematic: it sets e's velocities to those
// that carry it there in one step, so it pushes the dynamic bodies in its
// way as it goes, and the Step puts it exactly at the pose. It keeps those
// velocities afterwards (call MoveKinematic each step to steer it, with
// its current pose to stop it, or SetVelocity). The angular velocity is
// the turn's angle over the step's length, about the turn's axis (the
// shorter way round).
//
//	// A lift that rises 1 m a second, driven by a game system each tick:
//	err := space.MoveKinematic(lift, pos.Add(mgl32.Vec3{0, 1.0 / 60, 0}), rot)
func (s *Space) MoveKinematic(e engine.Entity, pos mgl32.Vec3, rot mgl32.Quat) error {
	b := s.bodies.Ptr(e)
	p, q := toVec3(pos), toQuat(rot)
	switch {
	case b == nil:
		return fmt.Errorf("physics: MoveKinematic(%v): the entity is not a body", e)
	case b.Kind != Kinematic:
		return fmt.Errorf("physics: MoveKinematic(%v): the body is %v, not kinematic", e, b.Kind)
	case !p.finite() || !q.finite() || q.lengthSq() == 0:
		return fmt.Errorf("physics: MoveKinematic(%v): the pose %v %v is not finite and non-zero", e, pos, rot)
	}
	q = q.normalize()
	wb := s.w.Bodies()
	i := e.Index()
	cur := pose{toVec3(wb.Pos[i]), toQuat(wb.Rot[i])}
	sh := s.bodyShape(b.Shape)
	rate := float32(s.cfg.TickRate)
	// The centre of mass's velocity (a compound's is not its entity's).
	v := centreOfMass(&sh, pose{p, q}).sub(centreOfMass(&sh, cur)).scale(rate)
	// The turn from cur.q to q, the shorter way: d = q·cur.q⁻¹ with d.w >= 0.
	d := q.mul(cur.q.conj())
	if d.w < 0 {
		d = quat{-d.x, -d.y, -d.z, -d.w}
	}
	var w vec3
	axis, sinHalf := vec3{d.x, d.y, d.z}.normalize()
	if sinHalf > 0 {
		w = axis.scale(float32(float32(2*halfAngle(sinHalf, d.w)) * rate))
	}
	b.Target, b.TargetRot, b.HasTarget = pos, fromQuat(q), true
	s.w.SetDrawVelocity(e, fromVec3(v), fromVec3(w))
	return nil
}

// halfAngle returns the angle in [0, π/2] whose sine is s and cosine c
// (s, c >= 0, s² + c² = 1), from asin's series on half of the smaller
// of it and its complement (sin(φ/2) = s/√(2(1+c)), at most sin 22.5°),
// with each product rounded: no function whose result differs by
// platform (within 2e-6 rad of atan2).
func halfAngle(s, c float32) float32 {
	if s <= c {
		return float32(2 * asinSmall(s/sqrt(float32(2*(1+c)))))
	}
	return float32(0.5*3.14159265358979) - float32(2*asinSmall(c/sqrt(float32(2*(1+s)))))
}

// asinSmall returns asin(x) for x in [0, 0.39], from its Taylor series
// to x¹⁹ (the remainder is below 1e-9 there).
func asinSmall(x float32) float32 {
	// asin x = Σ (2k)! / (4^k (k!)² (2k+1)) x^(2k+1).
	x2 := float32(x * x)
	sum, term := x, x
	coef := float32(1)
	for k := 1; k <= 9; k++ {
		fk := float32(k)
		coef = float32(coef * float32(float32(float32(2*fk)-1)/float32(2*fk)))
		term = float32(term * x2)
		sum += float32(float32(coef*term) / float32(float32(2*fk)+1))
	}
	return sum
}

// SetMassProperties sets the dynamic body e's mass (kg, positive) and
// principal moments of inertia (kg·m², along its own axes; a compound's
// principal axes), as BodyDef.Mass and BodyDef.Inertia do when it is
// added: an inertia of zero scales the body's present moments to the new
// mass. It wakes e.
func (s *Space) SetMassProperties(e engine.Entity, mass float32, inertia mgl32.Vec3) error {
	b := s.bodies.Ptr(e)
	in := toVec3(inertia)
	switch {
	case b == nil:
		return fmt.Errorf("physics: SetMassProperties(%v): the entity is not a body", e)
	case b.Kind != Dynamic:
		return fmt.Errorf("physics: SetMassProperties(%v): the body is %v; only dynamic bodies have a mass", e, b.Kind)
	case !(mass > 0) || !finite(mass):
		return fmt.Errorf("physics: SetMassProperties(%v): the mass must be positive and finite, got %v", e, mass)
	case in != (vec3{}) && (!in.finite() || !(in.x > 0 && in.y > 0 && in.z > 0)):
		return fmt.Errorf("physics: SetMassProperties(%v): the inertia must be zero or three positive finite moments, got %v", e, inertia)
	}
	// The shape's moments now, scaled to the new mass.
	cur := toVec3(b.InvInertia)
	shapeIn := vec3{inv(cur.x), inv(cur.y), inv(cur.z)}
	m, newIn := overrideMass(b.Mass, shapeIn, mass, in)
	b.Mass, b.InvMass = m, 1/m
	b.InvInertia = mgl32.Vec3{inv(newIn.x), inv(newIn.y), inv(newIn.z)}
	wake(b)
	return nil
}
