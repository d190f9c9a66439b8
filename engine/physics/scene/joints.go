package scene

import (
	"fmt"
	"math"
	"strconv"
)

// JointType is what a joint holds, as the file spells it.
type JointType string

// The types of joint (nebula-scene/2). A, B are the world anchors, u_a,
// u_b the world axes, n_a, n_b the world normals (see Joint).
const (
	JointFixed     JointType = "fixed"     // A = B and the frames coincide: no relative motion
	JointSpherical JointType = "spherical" // A = B: a ball and socket, rotation free
	JointRevolute  JointType = "revolute"  // A = B and u_a = u_b: a hinge about the axis
	JointPrismatic JointType = "prismatic" // the frames coincide and B is on A's axis: a slider
	JointDistance  JointType = "distance"  // a rope (‖B − A‖ <= Length) or, with a spring, a spring
)

// Motor drives a revolute or prismatic joint's rate.
type Motor struct {
	// TargetVelocity is the rate the motor holds: rad/s of body B
	// relative to body A about A's axis (revolute), or m/s along it
	// (prismatic).
	TargetVelocity float64
	MaxForce       float64 // the largest torque (N·m) or force (N) it applies, > 0
}

// Spring makes a distance joint a spring of rest length Joint.Length.
type Spring struct {
	Stiffness float64 // N/m, > 0
	Damping   float64 // N·s/m, >= 0
}

// Joint is one joint of a nebula-scene/2 file, with every default filled
// in. Anchors, axes and normals are in the local coordinates of their
// body: relative to its position (its centre of mass), along its
// unrotated axes. A body's frame is (axis, normal, axis × normal); the
// joint's rest pose is the one in which the two frames coincide in the
// world.
//
// Parse refuses a joint whose id is empty or not unique among the joints,
// whose type is unknown, whose body_a or body_b is not the id of a body of
// the file, that joins a body to itself or joins no dynamic body, that
// lacks a field its type needs (anchors; axes and normals for fixed,
// revolute and prismatic; length for distance) or has one its type does
// not take (limits and motor are for revolute and prismatic, length and
// spring for distance, axes and normals for fixed, revolute and
// prismatic), with a number that is not finite, an axis or normal whose
// length is not within UnitTolerance of 1, a normal whose dot product
// with its axis is not within UnitTolerance of 0, limits out of range
// (min <= 0 <= max, min < max, and −π < min, max < π for revolute), a
// motor's max_force <= 0, length <= 0, a spring's stiffness <= 0 or
// damping < 0.
type Joint struct {
	ID               string     // unique among the joints (a body may have the same id)
	Type             JointType  // JointFixed, JointSpherical, JointRevolute, JointPrismatic or JointDistance
	BodyA, BodyB     string     // the ids of the two bodies, different, at least one of them dynamic
	A, B             int        // the indices in Scene.Bodies of BodyA and BodyB
	AnchorA, AnchorB [3]float64 // the anchors, m, each in its body's local coordinates
	// AxisA, NormalA, AxisB and NormalB are the frames of a fixed,
	// revolute or prismatic joint: unit vectors, each normal
	// perpendicular to its axis, in local coordinates; zero for the
	// other types.
	AxisA, NormalA, AxisB, NormalB [3]float64
	// Limits bound a revolute joint's angle (rad) or a prismatic joint's
	// position (m) to [Limits[0], Limits[1]]; nil: no limits.
	Limits *[2]float64
	Motor  *Motor  // a revolute or prismatic joint's motor; nil: none
	Length float64 // a distance joint's length (or the spring's rest length), m, > 0; 0 for the other types
	Spring *Spring // a distance joint's spring; nil: a rope
	// CollideConnected lets the two bodies collide with each other
	// (default false).
	CollideConnected bool
}

// jointTypes lists the types, as messages write them.
const jointTypes = `"fixed", "spherical", "revolute", "prismatic" or "distance"`

// typeFields are the fields only some types take, with the types that
// take them, in the order Parse checks them.
var typeFields = []struct {
	key   string
	takes func(JointType) bool
	which string // the types that take it, for messages
}{
	{"axis_a", framed, "fixed, revolute and prismatic"},
	{"normal_a", framed, "fixed, revolute and prismatic"},
	{"axis_b", framed, "fixed, revolute and prismatic"},
	{"normal_b", framed, "fixed, revolute and prismatic"},
	{"limits", sliding, "revolute and prismatic"},
	{"motor", sliding, "revolute and prismatic"},
	{"length", isDistance, "distance"},
	{"spring", isDistance, "distance"},
}

// framed reports whether joints of type t have frames.
func framed(t JointType) bool {
	return t == JointFixed || t == JointRevolute || t == JointPrismatic
}

// sliding reports whether joints of type t have a coordinate with limits
// and a motor.
func sliding(t JointType) bool { return t == JointRevolute || t == JointPrismatic }

// isDistance reports whether t is JointDistance.
func isDistance(t JointType) bool { return t == JointDistance }

// parseJoints checks the "joints" of a nebula-scene/2 file, whose bodies
// are checked and indexed by id in ids; nil when it has none.
func parseJoints(top fields, bodies []Body, ids map[string]int) ([]Joint, error) {
	p := parser{body: -1}
	raw, ok := top["joints"]
	if !ok {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, p.fail("joints must be an array of joint objects, got " + excerpt(raw))
	}
	if len(list) > maxJoints {
		return nil, p.fail(fmt.Sprintf("joints has %d entries; at most %d are accepted", len(list), maxJoints))
	}
	if len(list) == 0 {
		return nil, nil
	}
	joints := make([]Joint, len(list))
	seen := make(map[string]int, len(list))
	for i, rj := range list {
		p := parser{body: i, joint: true}
		if err := p.parseJoint(rj, &joints[i], bodies, ids, seen); err != nil {
			return nil, err
		}
	}
	return joints, nil
}

// parseJoint checks one entry of "joints" and fills in j; seen holds the
// ids of the joints before it.
func (p *parser) parseJoint(raw any, j *Joint, bodies []Body, ids, seen map[string]int) error {
	f, ok := raw.(fields)
	if !ok {
		return p.fail("a joint must be a JSON object, got " + excerpt(raw))
	}
	var err error
	if j.ID, err = p.needStr(f, "id", "a non-empty string, unique among the joints"); err != nil {
		return err
	}
	p.id = j.ID
	if k, dup := seen[j.ID]; dup {
		return p.fail(fmt.Sprintf("id %q is already the id of joints[%d]; joint ids must be unique", j.ID, k))
	}
	seen[j.ID] = p.body
	typ, ok, err := p.str(f, "type", jointTypes)
	if err != nil {
		return err
	}
	switch t := JointType(typ); {
	case !ok:
		return p.fail("type is missing; it must be " + jointTypes)
	case t == JointFixed || t == JointSpherical || t == JointRevolute || t == JointPrismatic || t == JointDistance:
		j.Type = t
	default:
		return p.fail(fmt.Sprintf("type must be %s, got %q", jointTypes, typ))
	}
	if err := p.jointBodies(f, j, bodies, ids); err != nil {
		return err
	}
	for _, tf := range typeFields {
		if _, given := f[tf.key]; given && !tf.takes(j.Type) {
			return p.fail(fmt.Sprintf("%s does not apply to a %s joint; only %s joints take it", tf.key, j.Type, tf.which))
		}
	}
	if j.AnchorA, err = p.needVec3(f, "anchor_a"); err != nil {
		return err
	}
	if j.AnchorB, err = p.needVec3(f, "anchor_b"); err != nil {
		return err
	}
	if raw, ok := f["collide_connected"]; ok {
		if j.CollideConnected, ok = raw.(bool); !ok {
			return p.fail("collide_connected must be true or false, got " + excerpt(raw))
		}
	}
	if framed(j.Type) {
		if err := p.frames(f, j); err != nil {
			return err
		}
	}
	if sliding(j.Type) {
		if err := p.limits(f, j); err != nil {
			return err
		}
		if err := p.motor(f, j); err != nil {
			return err
		}
	}
	if j.Type == JointDistance {
		if j.Length, err = p.needNum(f, "length", positive); err != nil {
			return err
		}
		return p.spring(f, j)
	}
	return nil
}

// jointBodies checks body_a and body_b and fills in j's bodies.
func (p *parser) jointBodies(f fields, j *Joint, bodies []Body, ids map[string]int) error {
	const want = "the id of a body of the scene"
	for _, side := range [2]struct {
		key   string
		id    *string
		index *int
	}{{"body_a", &j.BodyA, &j.A}, {"body_b", &j.BodyB, &j.B}} {
		raw, ok := f[side.key]
		if !ok {
			return p.fail(side.key + " is missing; it must be " + want)
		}
		id, ok := raw.(string)
		if !ok {
			return p.fail(fmt.Sprintf("%s must be %s (a string), got %s", side.key, want, excerpt(raw)))
		}
		i, ok := ids[id]
		if !ok {
			return p.fail(fmt.Sprintf("%s %q is not %s", side.key, id, want))
		}
		*side.id, *side.index = id, i
	}
	if j.A == j.B {
		return p.fail(fmt.Sprintf("body_a and body_b are both %q; a joint joins two different bodies", j.BodyA))
	}
	if ka, kb := bodies[j.A].Kind, bodies[j.B].Kind; ka != Dynamic && kb != Dynamic {
		return p.fail(fmt.Sprintf("body_a %q is %s and body_b %q is %s; at least one of them must be dynamic", j.BodyA, ka, j.BodyB, kb))
	}
	return nil
}

// frames checks the axes and normals of a fixed, revolute or prismatic
// joint.
func (p *parser) frames(f fields, j *Joint) error {
	for _, side := range [2]struct {
		s            string
		axis, normal *[3]float64
	}{{"a", &j.AxisA, &j.NormalA}, {"b", &j.AxisB, &j.NormalB}} {
		axisKey, normalKey := "axis_"+side.s, "normal_"+side.s
		for _, v := range [2]struct {
			key string
			v   *[3]float64
		}{{axisKey, side.axis}, {normalKey, side.normal}} {
			if _, ok := f[v.key]; !ok {
				return p.fail(fmt.Sprintf("%s is missing; a %s joint needs a unit vector [x, y, z] in body_%s's local coordinates", v.key, j.Type, side.s))
			}
			x, err := p.vec3(f, v.key)
			if err != nil {
				return err
			}
			if n := length(x); !(math.Abs(n-1) <= UnitTolerance) {
				return p.fail(fmt.Sprintf("%s must be a unit vector (length within %g of 1), got length %s", v.key, UnitTolerance, formatFloat(n)))
			}
			*v.v = x
		}
		u, n := side.axis, side.normal
		if d := dot(*u, *n); !(math.Abs(d) <= UnitTolerance) {
			return p.fail(fmt.Sprintf("%s must be perpendicular to %s (dot product within %g of 0), got dot product %s", normalKey, axisKey, UnitTolerance, formatFloat(d)))
		}
	}
	return nil
}

// limits checks a revolute or prismatic joint's optional limits.
func (p *parser) limits(f fields, j *Joint) error {
	raw, ok := f["limits"]
	if !ok {
		return nil
	}
	xs, ok := numbers(raw, 2)
	if !ok {
		return p.fail("limits must be an array of 2 numbers [min, max], got " + excerpt(raw))
	}
	lo, hi := xs[0], xs[1]
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return p.fail("limits must hold finite numbers, got " + excerpt(raw))
	}
	if j.Type == JointRevolute {
		if !(lo > -math.Pi && lo <= 0 && hi >= 0 && hi < math.Pi && lo < hi) {
			return p.fail("limits of a revolute joint must be [min, max] in radians with -π < min <= 0 <= max < π and min < max, got " + excerpt(raw))
		}
	} else if !(lo <= 0 && hi >= 0 && lo < hi) {
		return p.fail("limits of a prismatic joint must be [min, max] in metres with min <= 0 <= max and min < max, got " + excerpt(raw))
	}
	j.Limits = &[2]float64{lo, hi}
	return nil
}

// motor checks a revolute or prismatic joint's optional motor.
func (p *parser) motor(f fields, j *Joint) error {
	raw, ok := f["motor"]
	if !ok {
		return nil
	}
	mf, ok := raw.(fields)
	if !ok {
		return p.fail(`motor must be an object {"target_velocity": v, "max_force": f}, got ` + excerpt(raw))
	}
	m := &Motor{}
	var err error
	if m.TargetVelocity, err = p.needNum(mf, "target_velocity", anyFinite); err == nil {
		m.MaxForce, err = p.needNum(mf, "max_force", positive)
	}
	if err != nil {
		return p.fail("motor." + err.(*Error).Msg)
	}
	j.Motor = m
	return nil
}

// spring checks a distance joint's optional spring.
func (p *parser) spring(f fields, j *Joint) error {
	raw, ok := f["spring"]
	if !ok {
		return nil
	}
	sf, ok := raw.(fields)
	if !ok {
		return p.fail(`spring must be an object {"stiffness": k, "damping": c}, got ` + excerpt(raw))
	}
	s := &Spring{}
	var err error
	if s.Stiffness, err = p.needNum(sf, "stiffness", positive); err == nil {
		s.Damping, err = p.needNum(sf, "damping", nonNegative)
	}
	if err != nil {
		return p.fail("spring." + err.(*Error).Msg)
	}
	j.Spring = s
	return nil
}

// formatFloat writes x in its shortest form, for messages.
func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
