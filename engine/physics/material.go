package physics

import (
	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// CombineRule says how a contact's friction or restitution comes from its
// two bodies' coefficients. When the two bodies name different rules, the
// greater rule wins (CombineMax over CombineMultiply over CombineMin over
// CombineAverage), as in Rapier's CoefficientCombineRule, so the result
// does not depend on which body is which.
type CombineRule uint8

// The combine rules, in the order of precedence (the greater wins).
const (
	// CombineAverage takes (a + b) / 2, the default.
	CombineAverage CombineRule = iota
	// CombineMin takes the lesser of the two.
	CombineMin
	// CombineMultiply takes a·b.
	CombineMultiply
	// CombineMax takes the greater of the two.
	CombineMax
)

// combine returns the coefficient of a contact between bodies with
// coefficients a and b and rules ra and rb.
func combine(a, b float32, ra, rb CombineRule) float32 {
	switch max(ra, rb) {
	case CombineMin:
		return min(a, b)
	case CombineMultiply:
		return float32(a * b)
	case CombineMax:
		return max(a, b)
	}
	return float32((a + b) * 0.5)
}

// ContactSettings is a contact as the contact hook (Space.SetContactHook)
// sees it, before the solver solves it. A, B, Normal, Point and
// Separation describe the contact; the hook may change Friction,
// Restitution and SurfaceVelocity, or set Disabled.
type ContactSettings struct {
	// A and B are the two bodies, A in the lower slot (as in ContactEvent).
	A, B engine.Entity
	// Normal is the contact normal, from A to B; Point the deepest point
	// and Separation its separation (negative when the shapes overlap; up
	// to Config.SpeculativeDistance for a contact that is about to touch).
	Normal, Point mgl32.Vec3
	Separation    float32 // the deepest point's separation, m
	// Friction and Restitution are the contact's coefficients, combined
	// from the two bodies' by their CombineRule. Negative or non-finite
	// values count as 0.
	Friction, Restitution float32
	// SurfaceVelocity is the velocity of B's surface relative to A's, in
	// m/s, world frame, that friction drives the bodies towards (its
	// part in the contact plane): a conveyor belt. Zero by default;
	// non-finite counts as zero.
	SurfaceVelocity mgl32.Vec3
	// Disabled set by the hook makes the solver leave the contact out of
	// this step: the bodies pass through each other (a one-way platform).
	// The contact still begins and ends (events, Space.ContactsOf).
	Disabled bool
}

// SetContactHook sets the function the Step calls for each contact
// between a body in the solver (awake dynamic, or kinematic) and
// another, before solving it, to change its friction, restitution or
// surface velocity or to disable it. Sensors' contacts are not passed.
// nil removes the hook.
//
// The hook is part of the simulation, like the bodies: it is called in
// the cache's order (by slots) on the goroutine that calls Step, and
// must decide from the world's state and the ContactSettings alone (not
// the clock, not a map's order), and be set the same on every peer and
// on a Space made for a restored world. It must not change the world.
// The settings it gets are reused: keep no pointer to them.
//
// A one-way platform lets bodies through from below:
//
//	space.SetContactHook(func(c *physics.ContactSettings) {
//		if c.A != platform && c.B != platform {
//			return
//		}
//		n := c.Normal // from A to B
//		if c.B == platform {
//			n = n.Mul(-1)
//		}
//		if n.Y() < 0 { // from the platform down to the other body
//			c.Disabled = true
//		}
//	})
//
// A conveyor belt carries what lies on it along +X at 2 m/s:
//
//	space.SetContactHook(func(c *physics.ContactSettings) {
//		switch belt {
//		case c.A: // B's surface moves relative to A's
//			c.SurfaceVelocity = mgl32.Vec3{2, 0, 0}
//		case c.B:
//			c.SurfaceVelocity = mgl32.Vec3{-2, 0, 0}
//		}
//	})
func (s *Space) SetContactHook(f func(*ContactSettings)) { s.hook = f }

// contactEdges fills sc.edges with the contacts the solver solves, in the
// cache's order: not a sensor's, with a body in the solver, not disabled
// by the hook. A disabled contact's warm-start impulses are cleared.
func (s *Space) contactEdges() {
	sc := &s.sc
	vals, _ := s.bodies.Slices()
	idx := s.bodies.Indices()
	sc.edges = sc.edges[:0]
	for mi := range sc.next {
		m := &sc.next[mi]
		if m.sensor || m.n == 0 {
			continue
		}
		ka, kb := sc.kOf[m.a.Index()], sc.kOf[m.b.Index()]
		a, b := sc.sb[ka], sc.sb[kb]
		if a == 0 && b == 0 {
			continue
		}
		ba, bb := &vals[idx[ka]], &vals[idx[kb]]
		e := edge{
			m: int32(mi), a: a, b: b,
			friction:    combine(ba.Friction, bb.Friction, ba.FrictionCombine, bb.FrictionCombine),
			restitution: combine(ba.Restitution, bb.Restitution, ba.RestitutionCombine, bb.RestitutionCombine),
		}
		if s.hook != nil && !s.callHook(m, &e) {
			for j := range int(m.n) {
				m.pts[j].normal, m.pts[j].friction = 0, vec3{}
			}
			continue
		}
		sc.edges = append(sc.edges, e)
	}
}

// callHook passes the contact m with material e to the hook and takes
// back what it changed; it reports false when the hook disabled it.
func (s *Space) callHook(m *cachedManifold, e *edge) bool {
	d := deepest(m)
	cs := &s.sc.settings
	*cs = ContactSettings{
		A: m.a, B: m.b,
		Normal: fromVec3(m.normal), Point: fromVec3(d.p), Separation: d.sep,
		Friction: e.friction, Restitution: e.restitution,
	}
	s.hook(cs)
	if cs.Disabled {
		return false
	}
	e.friction, e.restitution = nonNegative(cs.Friction), nonNegative(cs.Restitution)
	if sv := toVec3(cs.SurfaceVelocity); sv.finite() {
		e.surface = sv
	}
	return true
}

// nonNegative returns x, or 0 when x is negative or not finite.
func nonNegative(x float32) float32 {
	if !(x >= 0) || !finite(x) {
		return 0
	}
	return x
}
