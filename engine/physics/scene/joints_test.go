package scene

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/internal/detcheck"
)

// FORMAT.md's nebula-scene/2 example: a pendulum on a hinge with limits.
const pendulumText = `{"format": "nebula-scene/2", "name": "pendulum-1", "hz": 60, "steps": 600, "gravity": [0, -9.81, 0],
 "bodies": [
  {"id": "pivot", "kind": "static", "shape": {"type": "box", "half_extents": [0.05, 0.05, 0.05]},
   "position": [0, 3, 0]},
  {"id": "bob", "kind": "dynamic", "shape": {"type": "sphere", "radius": 0.1},
   "position": [0.2, 1.01002512578676, 0], "density": 1000}
 ],
 "joints": [
  {"id": "hinge", "type": "revolute", "body_a": "pivot", "body_b": "bob",
   "anchor_a": [0, 0, 0], "anchor_b": [-0.2, 1.98997487421324, 0],
   "axis_a": [0, 0, 1], "normal_a": [1, 0, 0], "axis_b": [0, 0, 1], "normal_b": [1, 0, 0],
   "limits": [-1.5, 1.5]}
 ]}`

func TestParseJoints(t *testing.T) {
	sc, err := Parse([]byte(pendulumText))
	if err != nil {
		t.Fatal(err)
	}
	z, x := [3]float64{0, 0, 1}, [3]float64{1, 0, 0}
	want := []Joint{{ID: "hinge", Type: JointRevolute, BodyA: "pivot", BodyB: "bob", A: 0, B: 1,
		AnchorB: [3]float64{-0.2, 1.98997487421324, 0}, AxisA: z, NormalA: x, AxisB: z, NormalB: x,
		Limits: &[2]float64{-1.5, 1.5}}}
	if sc.Format != Format2 || sc.JointsIgnored || !reflect.DeepEqual(sc.Joints, want) {
		t.Errorf("Parse: format %q, ignored %v, joints\n%+v\nwant\n%+v", sc.Format, sc.JointsIgnored, sc.Joints, want)
	}
	// The joint holds in the file: its record is 0 but for rounding.
	pose := func(b Body) Pose { return Pose{Position: b.Position, Rotation: b.Rotation} }
	r := sc.Joints[0].Measure(pose(sc.Bodies[0]), pose(sc.Bodies[1]))
	if !(r.PositionError < 1e-15 && r.AngleError == 0 && r.Coordinate == 0 && r.LimitError == 0) {
		t.Errorf("the example's joint at the start: %+v, want 0", r)
	}

	// Every option, and the defaults.
	text := strings.Replace(sceneText(`"format": "nebula-scene/2", "joints": [
		{"id": "s", "type": "prismatic", "body_a": "a", "body_b": "w", "anchor_a": [1, 2, 3], "anchor_b": [0, 0, 0],
		 "axis_a": [0, 1, 0], "normal_a": [1, 0, 0], "axis_b": [0, 1, 0], "normal_b": [1, 0, 0], "limits": [-1, 0],
		 "motor": {"target_velocity": -2, "max_force": 50}, "collide_connected": true, "note": "ignored"},
		{"id": "r", "type": "distance", "body_a": "w", "body_b": "a", "anchor_a": [0, 0, 0], "anchor_b": [0, 0, 0], "length": 2,
		 "spring": {"stiffness": 100, "damping": 0}},
		{"id": "a", "type": "spherical", "body_a": "a", "body_b": "w", "anchor_a": [0, 0, 0], "anchor_b": [0, 0, 0]}]`,
		goodBody, `{"id": "w", "kind": "kinematic", "shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 0]}`), "\t", " ", -1)
	sc, err = Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	y := [3]float64{0, 1, 0}
	want = []Joint{
		{ID: "s", Type: JointPrismatic, BodyA: "a", BodyB: "w", A: 0, B: 1, AnchorA: [3]float64{1, 2, 3},
			AxisA: y, NormalA: x, AxisB: y, NormalB: x, Limits: &[2]float64{-1, 0},
			Motor: &Motor{TargetVelocity: -2, MaxForce: 50}, CollideConnected: true},
		{ID: "r", Type: JointDistance, BodyA: "w", BodyB: "a", A: 1, B: 0, Length: 2, Spring: &Spring{Stiffness: 100}},
		{ID: "a", Type: JointSpherical, BodyA: "a", BodyB: "w", A: 0, B: 1},
	}
	if !reflect.DeepEqual(sc.Joints, want) {
		t.Errorf("Parse: joints\n%+v\nwant\n%+v", sc.Joints, want)
	}
}

// A nebula-scene/1 file ignores "joints", whatever it holds, and says so;
// a /2 file without joints, or with none, is the same scene.
func TestParseJointsVersions(t *testing.T) {
	one, err := Parse([]byte(sceneText(`"joints": [{"id": 3}]`, goodBody)))
	if err != nil {
		t.Fatalf("a /1 file with joints: %v", err)
	}
	if !one.JointsIgnored || one.Joints != nil || one.Format != Format {
		t.Errorf("a /1 file with joints: ignored %v, joints %v, format %q", one.JointsIgnored, one.Joints, one.Format)
	}
	plain, _ := Parse([]byte(sceneText("", goodBody)))
	if plain.JointsIgnored {
		t.Error("a /1 file without joints: JointsIgnored")
	}
	for _, top := range []string{`"format": "nebula-scene/2"`, `"format": "nebula-scene/2", "joints": []`} {
		two, err := Parse([]byte(sceneText(top, goodBody)))
		if err != nil {
			t.Fatalf("%s: %v", top, err)
		}
		if two.Joints != nil || two.JointsIgnored {
			t.Errorf("%s: joints %v, ignored %v; want none", top, two.Joints, two.JointsIgnored)
		}
		two.Format = Format
		if !reflect.DeepEqual(two, plain) {
			t.Errorf("%s: %+v differs from the /1 file %+v", top, two, plain)
		}
	}
}

// jointScene returns a nebula-scene/2 file with a static body "s", the
// dynamic body "a", a kinematic "k" and the joints given.
func jointScene(joints ...string) string {
	return sceneText(`"format": "nebula-scene/2", "joints": [`+strings.Join(joints, ", ")+`]`,
		`{"id": "s", "kind": "static", "shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 0]}`, goodBody,
		`{"id": "k", "kind": "kinematic", "shape": {"type": "sphere", "radius": 1}, "position": [0, 0, 0]}`)
}

// jointText returns a joint of type typ between "s" and "a", with its
// frames (for the types that have them) and fields added or replaced by
// extra (a later duplicate key wins).
func jointText(typ, extra string) string {
	j := `{"id": "j", "type": "` + typ + `", "body_a": "s", "body_b": "a", "anchor_a": [0, 0, 0], "anchor_b": [0, 1, 0]`
	switch typ {
	case "fixed", "revolute", "prismatic":
		j += `, "axis_a": [1, 0, 0], "normal_a": [0, 1, 0], "axis_b": [1, 0, 0], "normal_b": [0, 1, 0]`
	case "distance":
		j += `, "length": 1`
	}
	if extra != "" {
		j += ", " + extra
	}
	return j + "}"
}

func TestParseJointsRefuses(t *testing.T) {
	const at = `scene: joints[0] (id "j"): `
	tests := []struct {
		name, file, want string
	}{
		{"joints not array", sceneText(`"format": "nebula-scene/2", "joints": {}`, goodBody), `scene: joints must be an array of joint objects, got {}`},
		{"joints null", sceneText(`"format": "nebula-scene/2", "joints": null`, goodBody), `scene: joints must be an array of joint objects, got null`},
		{"joint not object", jointScene(`[1]`), `scene: joints[0]: a joint must be a JSON object, got [1]`},
		{"joint null", jointScene(`null`), `scene: joints[0]: a joint must be a JSON object, got null`},
		{"id missing", jointScene(`{"type": "fixed"}`), `scene: joints[0]: id is missing; it must be a non-empty string, unique among the joints`},
		{"id empty", jointScene(`{"id": ""}`), `scene: joints[0]: id must be a non-empty string, unique among the joints, got ""`},
		{"id number", jointScene(`{"id": 1}`), `scene: joints[0]: id must be a non-empty string, unique among the joints, got 1`},
		{"id duplicate", jointScene(jointText("spherical", ""), jointText("spherical", "")), `scene: joints[1] (id "j"): id "j" is already the id of joints[0]; joint ids must be unique`},
		{"type missing", jointScene(`{"id": "j"}`), at + `type is missing; it must be "fixed", "spherical", "revolute", "prismatic" or "distance"`},
		{"type unknown", jointScene(jointText("hinge", "")), at + `type must be "fixed", "spherical", "revolute", "prismatic" or "distance", got "hinge"`},
		{"type number", jointScene(jointText("fixed", `"type": 2`)), at + `type must be "fixed", "spherical", "revolute", "prismatic" or "distance", got 2`},
		{"body_a missing", jointScene(`{"id": "j", "type": "spherical", "body_b": "a"}`), at + `body_a is missing; it must be the id of a body of the scene`},
		{"body_b number", jointScene(jointText("spherical", `"body_b": 1`)), at + `body_b must be the id of a body of the scene (a string), got 1`},
		{"body_b unknown", jointScene(jointText("spherical", `"body_b": "nobody"`)), at + `body_b "nobody" is not the id of a body of the scene`},
		{"body to itself", jointScene(jointText("spherical", `"body_a": "a"`)), at + `body_a and body_b are both "a"; a joint joins two different bodies`},
		{"no dynamic body", jointScene(jointText("spherical", `"body_b": "k"`)), at + `body_a "s" is static and body_b "k" is kinematic; at least one of them must be dynamic`},
		{"limits on spherical", jointScene(jointText("spherical", `"limits": [-1, 1]`)), at + `limits does not apply to a spherical joint; only revolute and prismatic joints take it`},
		{"motor on fixed", jointScene(jointText("fixed", `"motor": {}`)), at + `motor does not apply to a fixed joint; only revolute and prismatic joints take it`},
		{"axis on distance", jointScene(jointText("distance", `"axis_a": [1, 0, 0]`)), at + `axis_a does not apply to a distance joint; only fixed, revolute and prismatic joints take it`},
		{"normal on spherical", jointScene(jointText("spherical", `"normal_b": null`)), at + `normal_b does not apply to a spherical joint; only fixed, revolute and prismatic joints take it`},
		{"length on revolute", jointScene(jointText("revolute", `"length": 1`)), at + `length does not apply to a revolute joint; only distance joints take it`},
		{"spring on prismatic", jointScene(jointText("prismatic", `"spring": {"stiffness": 1, "damping": 0}`)), at + `spring does not apply to a prismatic joint; only distance joints take it`},
		{"anchor missing", jointScene(`{"id": "j", "type": "spherical", "body_a": "s", "body_b": "a", "anchor_b": [0, 0, 0]}`), at + `anchor_a is missing; it must be an array of 3 finite numbers [x, y, z]`},
		{"anchor short", jointScene(jointText("spherical", `"anchor_b": [0, 1]`)), at + `anchor_b must be an array of 3 numbers [x, y, z], got [0,1]`},
		{"anchor inf", jointScene(jointText("spherical", `"anchor_b": [0, 1e999, 0]`)), at + `anchor_b must hold finite numbers, got [0,1e999,0]`},
		{"collide_connected string", jointScene(jointText("spherical", `"collide_connected": "no"`)), at + `collide_connected must be true or false, got "no"`},
		{"axis missing", jointScene(`{"id": "j", "type": "revolute", "body_a": "s", "body_b": "a", "anchor_a": [0, 0, 0], "anchor_b": [0, 0, 0]}`), at + `axis_a is missing; a revolute joint needs a unit vector [x, y, z] in body_a's local coordinates`},
		{"normal_b missing", jointScene(`{"id": "j", "type": "fixed", "body_a": "s", "body_b": "a", "anchor_a": [0, 0, 0], "anchor_b": [0, 0, 0], "axis_a": [1, 0, 0], "normal_a": [0, 1, 0], "axis_b": [1, 0, 0]}`), at + `normal_b is missing; a fixed joint needs a unit vector [x, y, z] in body_b's local coordinates`},
		{"axis not unit", jointScene(jointText("revolute", `"axis_b": [0, 0, 2]`)), at + `axis_b must be a unit vector (length within 1e-06 of 1), got length 2`},
		{"axis zero", jointScene(jointText("prismatic", `"axis_a": [0, 0, 0]`)), at + `axis_a must be a unit vector (length within 1e-06 of 1), got length 0`},
		{"normal not unit", jointScene(jointText("fixed", `"normal_a": [0, 0.999, 0]`)), at + `normal_a must be a unit vector (length within 1e-06 of 1), got length 0.999`},
		{"normal string", jointScene(jointText("fixed", `"normal_a": "y"`)), at + `normal_a must be an array of 3 numbers [x, y, z], got "y"`},
		{"normal along axis", jointScene(jointText("revolute", `"normal_b": [0.6, 0.8, 0]`)), at + `normal_b must be perpendicular to axis_b (dot product within 1e-06 of 0), got dot product 0.6`},
		{"limits short", jointScene(jointText("revolute", `"limits": [1]`)), at + `limits must be an array of 2 numbers [min, max], got [1]`},
		{"limits inf", jointScene(jointText("prismatic", `"limits": [-1e400, 1]`)), at + `limits must hold finite numbers, got [-1e400,1]`},
		{"limits above 0", jointScene(jointText("revolute", `"limits": [0.1, 1]`)), at + `limits of a revolute joint must be [min, max] in radians with -π < min <= 0 <= max < π and min < max, got [0.1,1]`},
		{"limits beyond pi", jointScene(jointText("revolute", `"limits": [-1, 3.1416]`)), at + `limits of a revolute joint must be [min, max] in radians with -π < min <= 0 <= max < π and min < max, got [-1,3.1416]`},
		{"limits at -pi", jointScene(jointText("revolute", `"limits": [-3.141592653589793, 0]`)), at + `limits of a revolute joint must be [min, max] in radians with -π < min <= 0 <= max < π and min < max, got [-3.141592653589793,0]`},
		{"limits empty", jointScene(jointText("revolute", `"limits": [0, 0]`)), at + `limits of a revolute joint must be [min, max] in radians with -π < min <= 0 <= max < π and min < max, got [0,0]`},
		{"limits below 0", jointScene(jointText("prismatic", `"limits": [-2, -1]`)), at + `limits of a prismatic joint must be [min, max] in metres with min <= 0 <= max and min < max, got [-2,-1]`},
		{"limits reversed", jointScene(jointText("prismatic", `"limits": [1, -1]`)), at + `limits of a prismatic joint must be [min, max] in metres with min <= 0 <= max and min < max, got [1,-1]`},
		{"motor number", jointScene(jointText("revolute", `"motor": 5`)), at + `motor must be an object {"target_velocity": v, "max_force": f}, got 5`},
		{"motor velocity missing", jointScene(jointText("revolute", `"motor": {"max_force": 1}`)), at + `motor.target_velocity is missing; it must be a finite number`},
		{"motor velocity string", jointScene(jointText("prismatic", `"motor": {"target_velocity": "1", "max_force": 1}`)), at + `motor.target_velocity must be a finite number, got "1"`},
		{"motor force zero", jointScene(jointText("revolute", `"motor": {"target_velocity": 1, "max_force": 0}`)), at + `motor.max_force must be a finite number > 0, got 0`},
		{"motor force missing", jointScene(jointText("prismatic", `"motor": {"target_velocity": 1}`)), at + `motor.max_force is missing; it must be a finite number > 0`},
		{"length missing", jointScene(`{"id": "j", "type": "distance", "body_a": "s", "body_b": "a", "anchor_a": [0, 0, 0], "anchor_b": [0, 0, 0]}`), at + `length is missing; it must be a finite number > 0`},
		{"length zero", jointScene(jointText("distance", `"length": 0`)), at + `length must be a finite number > 0, got 0`},
		{"length inf", jointScene(jointText("distance", `"length": 1e999`)), at + `length must be a finite number > 0, got 1e999`},
		{"spring array", jointScene(jointText("distance", `"spring": [1, 0]`)), at + `spring must be an object {"stiffness": k, "damping": c}, got [1,0]`},
		{"spring stiffness zero", jointScene(jointText("distance", `"spring": {"stiffness": 0, "damping": 0}`)), at + `spring.stiffness must be a finite number > 0, got 0`},
		{"spring damping negative", jointScene(jointText("distance", `"spring": {"stiffness": 1, "damping": -1}`)), at + `spring.damping must be a finite number >= 0, got -1`},
		{"spring damping missing", jointScene(jointText("distance", `"spring": {"stiffness": 1}`)), at + `spring.damping is missing; it must be a finite number >= 0`},
		{"second joint", jointScene(jointText("spherical", ""), strings.Replace(jointText("spherical", `"id": "k"`), `"body_b": "a"`, `"body_b": "s"`, 1)),
			`scene: joints[1] (id "k"): body_a and body_b are both "s"; a joint joins two different bodies`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse([]byte(tt.file))
			if err == nil {
				t.Fatalf("Parse(%s) = %+v, want error %q", tt.file, sc.Joints, tt.want)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Errorf("error %v is a %T, want *Error", err, err)
			} else if strings.Contains(tt.want, "joints[") != se.Joint {
				t.Errorf("Error.Joint is %v for %q", se.Joint, err)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse(%s):\n got %s\nwant %s", tt.file, err, tt.want)
			}
		})
	}
}

func TestParseJointsAccepts(t *testing.T) {
	tests := []struct{ name, file string }{
		{"every type", jointScene(jointText("fixed", ""), jointText("spherical", `"id": "b"`), jointText("revolute", `"id": "c"`),
			jointText("prismatic", `"id": "d"`), jointText("distance", `"id": "e"`))},
		{"joint id of a body", jointScene(jointText("spherical", `"id": "a"`))},
		{"dynamic body_a", jointScene(jointText("spherical", `"body_a": "a", "body_b": "k"`))},
		{"limits at the bounds", jointScene(jointText("revolute", `"limits": [-3.1415926535897927, 3.1415926535897927]`))},
		{"limits one-sided", jointScene(jointText("prismatic", `"limits": [0, 5]`))},
		{"frames within tolerance", jointScene(jointText("fixed", `"axis_a": [1.0000009, 0, 0], "normal_a": [0.0000009, 1, 0]`))},
		{"frames differ", jointScene(jointText("revolute", `"axis_b": [0, 0, -1], "normal_b": [0, -1, 0]`))},
		{"negative motor", jointScene(jointText("revolute", `"motor": {"target_velocity": -3, "max_force": 1e-9}`))},
		{"undamped spring", jointScene(jointText("distance", `"spring": {"stiffness": 1, "damping": 0}`))},
		{"collide_connected false", jointScene(jointText("spherical", `"collide_connected": false`))},
		{"unknown fields", jointScene(jointText("spherical", `"break_force": 10, "motor_": null`))},
	}
	for _, tt := range tests {
		if _, err := Parse([]byte(tt.file)); err != nil {
			t.Errorf("%s: Parse(%s): %v", tt.name, tt.file, err)
		}
	}
}

func TestParseRefusesTooManyJoints(t *testing.T) {
	old := maxJoints
	maxJoints = 2
	t.Cleanup(func() { maxJoints = old })
	j := jointText("spherical", "")
	if _, err := Parse([]byte(jointScene(j, j, j))); err == nil || err.Error() != "scene: joints has 3 entries; at most 2 are accepted" {
		t.Errorf("Parse of 3 joints: %v", err)
	}
	if _, err := Parse([]byte(jointScene(j, strings.Replace(j, `"j"`, `"k"`, 1)))); err != nil {
		t.Errorf("Parse of 2 joints: %v", err)
	}
	if MaxJoints != 1<<20 {
		t.Errorf("MaxJoints = %d, want 2^20", MaxJoints)
	}
}

// The joint measures compute the same bits on every build: no product Go
// could fuse with an addition, no platform-dependent math function
// (scripts/crossarch.sh runs this package's tests on arm64 and
// amd64-v3, where Go fuses).
func TestJointMathNotFused(t *testing.T) {
	findings, err := detcheck.Dir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		for _, file := range []string{"joints.go:", "jointresult.go:", "atan2.go:"} {
			if strings.HasPrefix(f.String(), file) {
				t.Error(f)
			}
		}
	}
}
