package physics

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
)

// Kind says how a body moves.
type Kind uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Kind -linecomment

// The kinds of body.
const (
	// Dynamic bodies are moved by gravity, forces and contacts.
	Dynamic Kind = iota + 1 // dynamic
	// Static bodies never move and have infinite mass.
	Static // static
	// Kinematic bodies move with their own velocity, push dynamic bodies
	// and are never pushed; they do not collide with static or other
	// kinematic bodies.
	Kinematic // kinematic
)

// Locks is a set of axes along or about which a dynamic body does not
// move: a character that must stay upright locks LockAngularX and
// LockAngularZ. The axes are the world's.
type Locks uint8

// The lockable axes.
const (
	LockLinearX Locks = 1 << iota
	LockLinearY
	LockLinearZ
	LockAngularX
	LockAngularY
	LockAngularZ
)

// allLocks is every lock bit.
const allLocks = LockLinearX | LockLinearY | LockLinearZ | LockAngularX | LockAngularY | LockAngularZ

// BodyDef describes a body for Space.AddBody. Start from NewBodyDef,
// which fills in the defaults.
type BodyDef struct {
	Kind  Kind  // how the body moves
	Shape Shape // its collision shape, centred on the entity's position (a compound's parts placed in the entity's frame)

	// Density is in kg/m³; a dynamic body's mass is Density times its
	// shape's volume. It must be positive for a dynamic body and is
	// ignored for the others.
	Density float32
	// Friction is the Coulomb coefficient (static = dynamic); a contact
	// uses the average of its two bodies'.
	Friction float32
	// Restitution is the ratio of separating to approaching normal speed
	// in a collision faster than Config.RestitutionThreshold; a contact
	// uses the average of its two bodies'.
	Restitution float32

	// LinearDamping and AngularDamping slow the body down: each substep
	// multiplies its velocity by 1/(1 + h·damping), h the substep's
	// length in seconds.
	LinearDamping, AngularDamping float32
	// GravityScale multiplies Config.Gravity for this body.
	GravityScale float32

	// Locks are the world axes along or about which the body does not
	// move (dynamic bodies).
	Locks Locks
	// CCD makes a fast body collide with what lies on its path during a
	// step, not only with what it touches at the step's start.
	CCD bool
	// Sensor makes the body a trigger: it reports begin and end events
	// for what overlaps it and pushes nothing.
	Sensor bool

	// Two bodies collide when a.Layer&b.Mask != 0 && b.Layer&a.Mask != 0.
	Layer, Mask uint32
}

// NewBodyDef returns the definition of a body of kind k and shape s with
// the defaults: density 1, friction 0.5, restitution 0, no damping,
// gravity scale 1, no locks, layer 1 and a mask of every layer.
func NewBodyDef(k Kind, s Shape) BodyDef {
	return BodyDef{
		Kind: k, Shape: s,
		Density: 1, Friction: 0.5, GravityScale: 1,
		Layer: 1, Mask: ^uint32(0),
	}
}

// validate checks d, naming the first thing wrong.
//
//srccheck:wrapped by AddBody, as "physics: AddBody(<entity>): ..."
func (d *BodyDef) validate() error {
	if d.Kind < Dynamic || d.Kind > Kinematic {
		return fmt.Errorf("unknown body kind %d (Dynamic, Static or Kinematic)", d.Kind)
	}
	if err := d.Shape.validate(); err != nil {
		// AddBody puts its own "physics: AddBody(e): " in front.
		return errors.New(strings.TrimPrefix(err.Error(), "physics: "))
	}
	if d.Shape.Kind == Mesh && d.Kind != Static {
		return fmt.Errorf("a %v body cannot have a mesh shape (meshes are static)", d.Kind)
	}
	if d.Shape.Kind == HeightField && d.Kind != Static {
		return fmt.Errorf("a %v body cannot have a height field shape (height fields are static)", d.Kind)
	}
	checks := [...]struct {
		name string
		v    float32
	}{
		{"density", d.Density}, {"friction", d.Friction}, {"restitution", d.Restitution},
		{"linear damping", d.LinearDamping}, {"angular damping", d.AngularDamping},
		{"gravity scale", d.GravityScale},
	}
	for _, c := range checks {
		if !finite(c.v) {
			return fmt.Errorf("%s must be finite, got %v", c.name, c.v)
		}
		if c.v < 0 && c.name != "gravity scale" {
			return fmt.Errorf("%s must not be negative, got %v", c.name, c.v)
		}
	}
	if d.Kind == Dynamic && !(d.Density > 0) {
		return fmt.Errorf("a dynamic body's density must be positive, got %v", d.Density)
	}
	if d.Locks&^allLocks != 0 {
		return fmt.Errorf("unknown lock bits %#x", uint8(d.Locks&^allLocks))
	}
	return nil
}

// Body is the physics component of an entity (registered as
// "physics.body"): everything a body needs besides what the world keeps
// for every entity (position, rotation, velocity and angular velocity in
// World.Bodies). It is plain data, so snapshots, the state hash and
// rollback carry it. Space.Body returns a copy; change a body through the
// Space's methods.
type Body struct {
	Kind  Kind  // how the body moves
	Shape Shape // its collision shape

	// Mass is in kg, InvMass its inverse; both 0 for static and kinematic
	// bodies.
	Mass, InvMass float32
	// InvInertia is the inverse of the principal moments of inertia, in
	// the body's own frame (0 for static and kinematic bodies). A
	// compound's are about its centre of mass (Space.CenterOfMass), along
	// the principal axes AddCompound found.
	InvInertia mgl32.Vec3

	Friction, Restitution         float32 // as in BodyDef
	LinearDamping, AngularDamping float32 // as in BodyDef
	GravityScale                  float32 // as in BodyDef
	Locks                         Locks   // as in BodyDef
	CCD, Sensor                   bool    // as in BodyDef
	Layer, Mask                   uint32  // as in BodyDef

	// Force and Torque accumulate what ApplyForce and ApplyTorque add,
	// world frame, until the end of the next Step.
	Force, Torque mgl32.Vec3

	// SleepTime is how long, in seconds, the body has moved slower than
	// the sleep thresholds.
	SleepTime float32
	// Asleep is true while the body sleeps: it does not move and costs
	// next to nothing until something wakes it.
	Asleep bool
}

// newBody returns the component for d (validated); sh is d's shape as the
// step reads it (with its compound or hull).
func newBody(d *BodyDef, sh *shape) Body {
	b := Body{
		Kind: d.Kind, Shape: d.Shape,
		Friction: d.Friction, Restitution: d.Restitution,
		LinearDamping: d.LinearDamping, AngularDamping: d.AngularDamping,
		GravityScale: d.GravityScale, Locks: d.Locks,
		CCD: d.CCD, Sensor: d.Sensor, Layer: d.Layer, Mask: d.Mask,
	}
	if d.Kind != Dynamic {
		return b
	}
	if comp := sh.comp; comp != nil {
		// The compound's mass properties at density 1, scaled.
		m := float32(comp.volume * d.Density)
		in := comp.moments.scale(d.Density)
		b.Mass, b.InvMass = m, 1/m
		b.InvInertia = mgl32.Vec3{inv(in.x), inv(in.y), inv(in.z)}
		return b
	}
	m, inertia := sh.massProperties(d.Density)
	b.Mass, b.InvMass = m, 1/m
	b.InvInertia = mgl32.Vec3{inv(inertia.x), inv(inertia.y), inv(inertia.z)}
	return b
}

// inv returns 1/x, or 0 when x is 0.
func inv(x float32) float32 {
	if x == 0 {
		return 0
	}
	return 1 / x
}

// shapeOf returns s as the step reads it, without its mesh.
func shapeOf(s Shape) shape {
	return shape{kind: s.Kind, half: toVec3(s.HalfExtents), radius: s.Radius, halfHeight: s.HalfHeight}
}

// bodyShape returns s as the step reads it, with its mesh or compound.
func (sp *Space) bodyShape(s Shape) shape {
	sh := shapeOf(s)
	switch {
	case s.Kind == Mesh && s.Mesh >= 1 && int(s.Mesh) <= len(sp.meshes):
		sh.mesh = sp.meshes[s.Mesh-1]
	case s.Kind == Compound && s.Compound >= 1 && int(s.Compound) <= len(sp.compounds):
		sh.comp = sp.compounds[s.Compound-1]
	case s.Kind == ConvexHull && s.Hull >= 1 && int(s.Hull) <= len(sp.hulls):
		sh.hull = sp.hulls[s.Hull-1]
	case s.Kind == HeightField && s.HeightField >= 1 && int(s.HeightField) <= len(sp.heights):
		// The step reads a height field as the triangle mesh it is.
		sh.kind, sh.mesh = Mesh, sp.heights[s.HeightField-1].mesh
	}
	return sh
}

// collides reports whether the layers and masks of a and b let them
// collide.
func collides(a, b *Body) bool { return a.Layer&b.Mask != 0 && b.Layer&a.Mask != 0 }
