package physics

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// JointKind says what a joint holds.
type JointKind uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=JointKind -linecomment

// The kinds of joint. A joint holds two bodies' anchors together (all but
// JointDistance) and some of their relative rotation; what it does not
// hold is free.
const (
	// JointFixed holds the anchors together and the two frames aligned:
	// no relative motion (a weld).
	JointFixed JointKind = iota + 1 // fixed
	// JointSpherical holds the anchors together and leaves the rotation
	// free (a ball and socket), within an optional swing cone about
	// AxisA and twist limits about it (a shoulder).
	JointSpherical // spherical
	// JointRevolute holds the anchors together and the two axes aligned:
	// the bodies turn about the common axis (a hinge), within optional
	// limits, driven by an optional motor.
	JointRevolute // revolute
	// JointPrismatic holds the frames aligned and B's anchor on the line
	// through A's along A's axis: the bodies slide along it (a slider),
	// within optional limits, driven by an optional motor.
	JointPrismatic // prismatic
	// JointDistance keeps the anchors between MinLength and MaxLength
	// apart (a rope: MinLength 0), or, with Spring, pulls them towards
	// MaxLength with a spring.
	JointDistance // distance
)

// JointDef describes a joint for Space.AddJoint. The anchors and frames
// are in each body's own coordinates: relative to the entity's position,
// along its unrotated axes. A is the world when it is the zero Entity: its
// anchor and frame are then in world coordinates.
type JointDef struct {
	Kind JointKind // what the joint holds
	// A and B are the two bodies, at least one of them dynamic (the other
	// may be static or kinematic). A may be the zero Entity: the world.
	A, B engine.Entity

	AnchorA, AnchorB mgl32.Vec3 // the anchors, m
	// AxisA, NormalA, AxisB and NormalB are the frames of the joints that
	// hold or limit rotation (all but JointDistance, and JointSpherical
	// without limits): unit vectors, each normal perpendicular to its
	// axis. The joint's rest pose is the one in which the two frames
	// coincide in the world: a revolute joint turns about the axis, its
	// angle 0 when the normals coincide; a prismatic joint slides along
	// A's axis; a spherical joint's swing is how far B's axis leans from
	// A's, its twist how far B turned about its axis.
	AxisA, NormalA, AxisB, NormalB mgl32.Vec3

	// Limits bounds the joint coordinate to [Lower, Upper]: a revolute
	// joint's angle (rad, −π < Lower <= 0 <= Upper < π), a prismatic
	// joint's position along the axis (m, Lower <= 0 <= Upper), a
	// spherical joint's twist (rad, as a revolute's).
	Limits       bool
	Lower, Upper float32 // the limits, when Limits
	// SwingLimit, when positive, is a spherical joint's cone: B's axis
	// leans at most this far (rad, below π) from A's.
	SwingLimit float32

	// Motor drives a revolute or prismatic joint's rate (rad/s or m/s of
	// B relative to A about or along A's axis) towards MotorSpeed with at
	// most MaxMotorForce (N·m or N, positive).
	Motor         bool
	MotorSpeed    float32 // the target rate, rad/s or m/s
	MaxMotorForce float32 // the largest torque or force, N·m or N

	// MinLength and MaxLength bound a distance joint's length (m, 0 <=
	// MinLength <= MaxLength, MaxLength > 0): a rope is MinLength 0.
	// With Spring the joint has no hard bound but a spring of rest length
	// MaxLength, Stiffness N/m (positive) and Damping N·s/m (not
	// negative).
	MinLength, MaxLength float32
	Spring               bool    // a spring instead of the bounds
	Stiffness, Damping   float32 // the spring's, N/m and N·s/m

	// CollideConnected lets the two bodies collide with each other; by
	// default they do not (with several joints between the same two
	// bodies, one without it is enough).
	CollideConnected bool

	// BreakForce and BreakTorque, when positive, break the joint in the
	// step in which the force (N) or torque (N·m) it takes to hold
	// exceeds them: it then holds nothing (Joint.Broken) and the step
	// reports it (Space.BrokenJoints).
	BreakForce, BreakTorque float32
}

// Joint is a joint's component: its definition, whether it broke, and the
// impulses the solver starts the next step from (warm start), which is
// simulated state like a body's velocity: snapshots, rollback and replays
// carry it.
type Joint struct {
	JointDef
	// Broken is set in the step in which the joint broke; a broken joint
	// holds nothing.
	Broken bool
	// Force and Torque are the magnitudes of the force (N) and torque
	// (N·m) the joint applied in the last step, limits and motor
	// included.
	Force, Torque float32

	// rest is the rotation B's frame keeps relative to A's, as a
	// quaternion taking A's local coordinates to B's (fixed and
	// prismatic joints), fa and fb the two frames as rotations (the
	// columns axis, normal, axis × normal).
	fa, fb quat
	// The accumulated impulses of the last step's last substep: the
	// anchor rows (point, or a prismatic's two across its axis), the
	// rotation rows, and the axial rows (lower limit, upper limit, motor;
	// a distance joint's spring in motor).
	lin, ang             vec3
	lower, upper, motorI float32
}

// JointComponent is the name New registers the Joint component under.
const JointComponent = "physics.joint"

// NewJointDef returns a definition of a joint of kind k between a and b,
// with every frame along the X axis, normals along Y, and the other
// fields zero.
func NewJointDef(k JointKind, a, b engine.Entity) JointDef {
	x, y := mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 1, 0}
	return JointDef{Kind: k, A: a, B: b, AxisA: x, NormalA: y, AxisB: x, NormalB: y}
}

// validate checks what d says on its own.
//
//srccheck:wrapped by AddJoint, as "physics: AddJoint(<entity>): ..."
func (d *JointDef) validate() error {
	if d.Kind < JointFixed || d.Kind > JointDistance {
		return fmt.Errorf("the joint kind %d is unknown (want JointFixed, JointSpherical, JointRevolute, JointPrismatic or JointDistance)", d.Kind)
	}
	for _, v := range []struct {
		name string
		v    mgl32.Vec3
	}{{"AnchorA", d.AnchorA}, {"AnchorB", d.AnchorB}, {"AxisA", d.AxisA}, {"NormalA", d.NormalA}, {"AxisB", d.AxisB}, {"NormalB", d.NormalB}} {
		if !toVec3(v.v).finite() {
			return fmt.Errorf("%s %v is not finite", v.name, v.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float32
	}{{"Lower", d.Lower}, {"Upper", d.Upper}, {"SwingLimit", d.SwingLimit}, {"MotorSpeed", d.MotorSpeed},
		{"MaxMotorForce", d.MaxMotorForce}, {"MinLength", d.MinLength}, {"MaxLength", d.MaxLength},
		{"Stiffness", d.Stiffness}, {"Damping", d.Damping}, {"BreakForce", d.BreakForce}, {"BreakTorque", d.BreakTorque}} {
		if !finite(f.v) {
			return fmt.Errorf("%s %v is not finite", f.name, f.v)
		}
	}
	framed := d.Kind != JointDistance
	if framed {
		for _, f := range [2]struct {
			side         string
			axis, normal mgl32.Vec3
		}{{"A", d.AxisA, d.NormalA}, {"B", d.AxisB, d.NormalB}} {
			axis, normal := toVec3(f.axis), toVec3(f.normal)
			if l := axis.length(); l < 1-1e-3 || l > 1+1e-3 {
				return fmt.Errorf("the Axis%s %v is not a unit vector", f.side, f.axis)
			}
			if l := normal.length(); l < 1-1e-3 || l > 1+1e-3 {
				return fmt.Errorf("the Normal%s %v is not a unit vector", f.side, f.normal)
			}
			if dot := axis.dot(normal); dot > 1e-3 || dot < -1e-3 {
				return fmt.Errorf("the Normal%s %v is not perpendicular to Axis%s %v", f.side, f.normal, f.side, f.axis)
			}
		}
	}
	if d.Limits {
		switch d.Kind {
		case JointRevolute, JointSpherical:
			if d.Lower <= -math.Pi || d.Lower > 0 || d.Upper < 0 || d.Upper >= math.Pi || d.Lower >= d.Upper {
				return fmt.Errorf("the limits [%v, %v] rad are out of range (want −π < Lower <= 0 <= Upper < π, Lower < Upper)", d.Lower, d.Upper)
			}
		case JointPrismatic:
			if d.Lower > 0 || d.Upper < 0 || d.Lower >= d.Upper {
				return fmt.Errorf("the limits [%v, %v] m are out of range (want Lower <= 0 <= Upper, Lower < Upper)", d.Lower, d.Upper)
			}
		default:
			return fmt.Errorf("a %v joint has no limits (revolute, prismatic and spherical joints have)", d.Kind)
		}
	}
	if d.SwingLimit != 0 && (d.Kind != JointSpherical || d.SwingLimit < 0 || d.SwingLimit >= math.Pi) {
		return fmt.Errorf("SwingLimit %v: want 0, or a spherical joint's cone in (0, π) rad", d.SwingLimit)
	}
	if d.Motor {
		if d.Kind != JointRevolute && d.Kind != JointPrismatic {
			return fmt.Errorf("a %v joint has no motor (revolute and prismatic joints have)", d.Kind)
		}
		if d.MaxMotorForce <= 0 {
			return fmt.Errorf("MaxMotorForce %v: want a positive force or torque", d.MaxMotorForce)
		}
	}
	if d.Kind == JointDistance {
		if d.MaxLength <= 0 || d.MinLength < 0 || d.MinLength > d.MaxLength {
			return fmt.Errorf("the lengths [%v, %v] m are out of range (want 0 <= MinLength <= MaxLength, MaxLength > 0)", d.MinLength, d.MaxLength)
		}
		if d.Spring && (d.Stiffness <= 0 || d.Damping < 0) {
			return fmt.Errorf("the spring's stiffness %v N/m and damping %v N·s/m: want a positive stiffness and a damping not below 0", d.Stiffness, d.Damping)
		}
	} else if d.Spring || d.MinLength != 0 || d.MaxLength != 0 {
		return fmt.Errorf("a %v joint has no lengths or spring (distance joints have)", d.Kind)
	}
	if d.BreakForce < 0 || d.BreakTorque < 0 {
		return fmt.Errorf("BreakForce %v and BreakTorque %v: want 0 (unbreakable) or positive", d.BreakForce, d.BreakTorque)
	}
	return nil
}

// frameQuat returns the rotation whose columns are axis, normal and
// axis × normal (orthonormalised).
func frameQuat(axis, normal mgl32.Vec3) quat {
	x, _ := toVec3(axis).normalize()
	y := toVec3(normal)
	y, _ = y.sub(x.scale(x.dot(y))).normalize()
	z := x.cross(y)
	return quatFromColumns(x, y, z)
}

// AddJoint makes the live entity e, which is not a body, a joint described
// by d. The joint holds from the next Step. It returns an error, and
// changes nothing, when e is not alive, is a body or already a joint, or
// when d is out of range: an unknown kind, a non-finite number, a frame
// that is not two perpendicular unit vectors, limits, a motor or lengths
// out of range or given to a kind that has none, B not a body, A neither a
// body nor the world (the zero Entity), A and B the same body, or neither
// of them dynamic.
//
//	hinge := w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.NoInterpolation)
//	w.SetMesh(hinge, render.MeshNone) // a pivot: not drawn
//	d := physics.NewJointDef(physics.JointRevolute, door, frame)
//	d.AxisA, d.NormalA = mgl32.Vec3{0, 1, 0}, mgl32.Vec3{1, 0, 0}
//	d.AxisB, d.NormalB = d.AxisA, d.NormalA
//	d.AnchorA = mgl32.Vec3{-0.5, 0, 0} // the door's edge
//	d.AnchorB = mgl32.Vec3{0.5, 0, 0}  // the frame's post
//	d.Limits, d.Lower, d.Upper = true, 0, 1.6
//	if err := space.AddJoint(hinge, d); err != nil {
//		return err
//	}
func (s *Space) AddJoint(e engine.Entity, d JointDef) error {
	if err := s.checkJoint(e, &d); err != nil {
		return fmt.Errorf("physics: AddJoint(%v): %w", e, err)
	}
	j := Joint{JointDef: d}
	j.fa, j.fb = frameQuat(d.AxisA, d.NormalA), frameQuat(d.AxisB, d.NormalB)
	s.joints.Set(e, j)
	s.wakeJoint(&j) // a sleeping body given a spring must feel it
	return nil
}

// checkJoint checks d for AddJoint(e, d).
//
//srccheck:wrapped by AddJoint, as "physics: AddJoint(<entity>): ..."
func (s *Space) checkJoint(e engine.Entity, d *JointDef) error {
	switch {
	case !s.w.Alive(e):
		return errors.New("the entity is not alive")
	case s.bodies.Has(e):
		return errors.New("the entity is a body; a joint is an entity of its own")
	case s.joints.Has(e):
		return errors.New("the entity already is a joint")
	}
	if err := d.validate(); err != nil {
		return err
	}
	bb, ok := s.bodies.Get(d.B)
	if !ok {
		return fmt.Errorf("end B %v is not a body", d.B)
	}
	aDynamic := false
	if d.A != (engine.Entity{}) {
		ba, ok := s.bodies.Get(d.A)
		if !ok {
			return fmt.Errorf("end A %v is neither a body nor the world (the zero Entity)", d.A)
		}
		if d.A == d.B {
			return fmt.Errorf("both ends, A and B, are the same body %v", d.A)
		}
		aDynamic = ba.Kind == Dynamic
	}
	if !aDynamic && bb.Kind != Dynamic {
		return errors.New("neither A nor B is a dynamic body")
	}
	return nil
}

// RemoveJoint makes e an ordinary entity again, waking the joint's
// bodies (a lamp whose rope is cut falls), and reports whether it was a
// joint. Despawning a joint's entity removes it too, but wakes nothing:
// call RemoveJoint first, or WakeUp, where it matters. A joint whose body
// is removed or despawned holds nothing until a body is added to that
// entity again.
func (s *Space) RemoveJoint(e engine.Entity) bool {
	if j := s.joints.Ptr(e); j != nil {
		s.wakeJoint(j)
	}
	return s.joints.Remove(e)
}

// Joint returns a copy of e's Joint component and whether e is a joint.
func (s *Space) Joint(e engine.Entity) (Joint, bool) { return s.joints.Get(e) }

// Joints returns the Joint component, for systems that read many joints.
// Change joints through the Space's methods.
func (s *Space) Joints() *engine.Component[Joint] { return s.joints }

// BrokenJoints returns the joints that broke in the last Step, in slot
// order. The slice is reused by the next Step.
func (s *Space) BrokenJoints() []engine.Entity { return s.broken }

// SetJointMotor sets a revolute or prismatic joint's motor: on, its target
// speed and its largest force or torque, as in JointDef, and wakes its
// bodies.
func (s *Space) SetJointMotor(e engine.Entity, on bool, speed, maxForce float32) error {
	j := s.joints.Ptr(e)
	if j == nil {
		return fmt.Errorf("physics: SetJointMotor(%v): the entity is not a joint", e)
	}
	d := j.JointDef
	d.Motor, d.MotorSpeed, d.MaxMotorForce = on, speed, maxForce
	if !on && d.MaxMotorForce == 0 {
		d.MaxMotorForce = 1 // off: the force is not used
	}
	if err := d.validate(); err != nil {
		return fmt.Errorf("physics: SetJointMotor(%v): %w", e, err)
	}
	j.Motor, j.MotorSpeed, j.MaxMotorForce = on, speed, maxForce
	if !on {
		j.motorI = 0
	}
	s.wakeJoint(j)
	return nil
}

// wakeJoint wakes j's dynamic bodies.
func (s *Space) wakeJoint(j *Joint) {
	for _, e := range [2]engine.Entity{j.A, j.B} {
		if b := s.bodies.Ptr(e); b != nil && b.Kind == Dynamic && b.Asleep {
			s.WakeUp(e)
		}
	}
}
