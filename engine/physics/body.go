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
	// Kinematic bodies move with their own velocity (or to the pose
	// given to Space.MoveKinematic), push dynamic bodies and are never
	// pushed; they do not collide with static or other kinematic bodies,
	// but a sensor reports them and a kinematic sensor reports those.
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
	// Mass, when positive, is a dynamic body's mass in kg instead of
	// Density times its shape's volume; the shape's inertia is scaled to
	// it (as Jolt's CalculateInertia override does).
	Mass float32
	// Inertia, when not zero, is a dynamic body's principal moments of
	// inertia in kg·m², along its own axes (a compound's principal axes),
	// instead of its shape's: all three positive. A larger moment makes
	// the body harder to turn about that axis.
	Inertia mgl32.Vec3

	// Friction is the Coulomb coefficient (static = dynamic); a contact
	// combines its two bodies' (FrictionCombine: the average by default).
	Friction float32
	// Restitution is the ratio of separating to approaching normal speed
	// in a collision faster than Config.RestitutionThreshold; a contact
	// combines its two bodies' (RestitutionCombine: the average by
	// default).
	Restitution float32

	// FrictionCombine and RestitutionCombine say how a contact combines
	// this body's coefficient with the other body's (CombineRule; the
	// zero value is CombineAverage).
	FrictionCombine, RestitutionCombine CombineRule

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
	// step, not only with what it touches at the step's start: with
	// dynamic and kinematic bodies too (a bullet against a crate), not
	// only static ones.
	//
	// Against static bodies and meshes it is automatic (as Box2D's
	// continuous collision and Rapier's CCD are): a dynamic body that
	// moves, in one step, at least half of the least distance from its
	// centre to its surface (its radius, a box's least half extent, a
	// compound's least part's) gets contacts with every static body on
	// its path, so a fast ball does not pass through a wall or a floor
	// without this flag. Config.NoAutoCCD turns that off. Only the
	// body's travel along its velocity counts, not its turning.
	CCD bool
	// Sensor makes the body a trigger: it reports begin and end events
	// for what overlaps it and pushes nothing.
	Sensor bool
	// NoSleep keeps a dynamic body awake however still it is, and with
	// it every body of its island (what it has contacts with, and theirs):
	// a body the game moves by forces every tick, or queries while it
	// rests. The default, false, lets it sleep (Config.TimeToSleep).
	NoSleep bool
	// StartAsleep adds a dynamic body asleep: it does not move until
	// something wakes it (a contact with an awake body, a force or an
	// impulse, WakeUp). Its velocities must be zero and NoSleep false.
	StartAsleep bool

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
	if !finite(d.Mass) || d.Mass < 0 {
		return fmt.Errorf("mass must be finite and non-negative (0: from the density), got %v", d.Mass)
	}
	if in := toVec3(d.Inertia); in != (vec3{}) && (!in.finite() || !(in.x > 0 && in.y > 0 && in.z > 0)) {
		return fmt.Errorf("inertia must be zero (from the shape) or three positive finite moments, got %v", d.Inertia)
	}
	if d.Kind == Dynamic && !(d.Density > 0) {
		return fmt.Errorf("a dynamic body's density must be positive, got %v", d.Density)
	}
	if d.FrictionCombine > CombineMax || d.RestitutionCombine > CombineMax {
		return fmt.Errorf("unknown combine rule %d or %d (CombineAverage, CombineMin, CombineMultiply or CombineMax)", d.FrictionCombine, d.RestitutionCombine)
	}
	if d.StartAsleep && d.Kind != Dynamic {
		return fmt.Errorf("a %v body cannot start asleep (only dynamic bodies sleep)", d.Kind)
	}
	if d.StartAsleep && d.NoSleep {
		return errors.New("a body cannot both start asleep and never sleep (StartAsleep and NoSleep)")
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

	Friction, Restitution         float32     // as in BodyDef
	FrictionCombine               CombineRule // as in BodyDef
	RestitutionCombine            CombineRule // as in BodyDef
	LinearDamping, AngularDamping float32     // as in BodyDef
	GravityScale                  float32     // as in BodyDef
	Locks                         Locks       // as in BodyDef
	CCD, Sensor                   bool        // as in BodyDef
	NoSleep                       bool        // as in BodyDef; Space.SetNoSleep changes it
	Layer, Mask                   uint32      // as in BodyDef

	// Force and Torque accumulate what ApplyForce and ApplyTorque add,
	// world frame, until the end of the next Step.
	Force, Torque mgl32.Vec3

	// SleepTime is how long, in seconds, the body has moved slower than
	// the sleep thresholds. 0 on a sleeping body means its contacts are
	// not known yet (it was added asleep, or put to sleep by Space.Sleep):
	// the next Step finds them.
	SleepTime float32
	// Asleep is true while the body sleeps: it does not move and costs
	// next to nothing until something wakes it.
	Asleep bool

	// Target and TargetRot are the pose a kinematic body reaches at the
	// end of the next Step, when HasTarget (Space.MoveKinematic).
	Target    mgl32.Vec3
	TargetRot mgl32.Quat // the rotation at Target
	HasTarget bool       // MoveKinematic set Target for the next Step
}

// newBody returns the component for d (validated); sh is d's shape as the
// step reads it (with its compound or hull).
func newBody(d *BodyDef, sh *shape) Body {
	b := Body{
		Kind: d.Kind, Shape: d.Shape,
		Friction: d.Friction, Restitution: d.Restitution,
		FrictionCombine: d.FrictionCombine, RestitutionCombine: d.RestitutionCombine,
		LinearDamping: d.LinearDamping, AngularDamping: d.AngularDamping,
		GravityScale: d.GravityScale, Locks: d.Locks,
		CCD: d.CCD, Sensor: d.Sensor, Layer: d.Layer, Mask: d.Mask,
		NoSleep: d.NoSleep, Asleep: d.StartAsleep,
	}
	if d.Kind != Dynamic {
		return b
	}
	var m float32
	var in vec3
	if comp := sh.comp; comp != nil {
		// The compound's mass properties at density 1, scaled.
		m, in = float32(comp.volume*d.Density), comp.moments.scale(d.Density)
	} else {
		m, in = sh.massProperties(d.Density)
	}
	m, in = overrideMass(m, in, d.Mass, toVec3(d.Inertia))
	b.Mass, b.InvMass = m, 1/m
	b.InvInertia = mgl32.Vec3{inv(in.x), inv(in.y), inv(in.z)}
	return b
}

// overrideMass returns the mass m and principal moments in of a shape
// with the overrides mass (when positive: in scaled to it) and inertia
// (when not zero).
func overrideMass(m float32, in vec3, mass float32, inertia vec3) (float32, vec3) {
	if mass > 0 {
		in = in.scale(mass / m)
		m = mass
	}
	if inertia != (vec3{}) {
		in = inertia
	}
	return m, in
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
