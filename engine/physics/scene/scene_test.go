package scene

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseExample(t *testing.T) {
	sc, err := ReadFile(filepath.Join("testdata", "drop.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Scene{
		Format: Format, Name: "drop", Hz: 60, Steps: 120, Gravity: [3]float64{0, -9.81, 0},
		Bodies: []Body{
			{ID: "floor", Kind: Static, Shape: Shape{Type: Box, HalfExtents: [3]float64{10, 0.5, 10}},
				Position: [3]float64{0, -0.5, 0}, Rotation: [4]float64{0, 0, 0, 1}, Density: 1, Friction: 0.5},
			{ID: "ball", Kind: Dynamic, Shape: Shape{Type: Sphere, Radius: 0.5},
				Position: [3]float64{0, 3, 0}, Rotation: [4]float64{0, 0, 0, 1}, Density: 1, Friction: 0.5, Restitution: 0.5},
			{ID: "pill", Kind: Dynamic, Shape: Shape{Type: Capsule, Radius: 0.25, HalfHeight: 0.5},
				Position: [3]float64{2, 1, 0}, Rotation: [4]float64{0, 0, 0.7071067811865476, 0.7071067811865476},
				Density: 1, Friction: 0.5, CCD: true},
		},
	}
	if !reflect.DeepEqual(sc, want) {
		t.Errorf("ReadFile(drop.json) =\n%+v\nwant\n%+v", sc, want)
	}
	if got := sc.Dynamic(); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Errorf("Dynamic() = %v, want [1 2]", got)
	}
}

// The public benchmark scenes, when PHYSICS_DIR names their folder (as
// for make bench-physics).
func TestParseSharedScenes(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(os.Getenv("PHYSICS_DIR"), "scenes", "*.json"))
	if os.Getenv("PHYSICS_DIR") == "" || len(files) == 0 {
		t.Skip("PHYSICS_DIR does not name a folder with the benchmark scenes")
	}
	for _, f := range files {
		sc, err := ReadFile(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if sc.Format == Format2 {
			// The joint scenes: 600 steps (the pendulum 1,200), every
			// joint between two bodies of the file.
			if sc.Hz != 60 || sc.Steps < 600 || len(sc.Joints) == 0 {
				t.Errorf("%s: hz %v, steps %d, %d joints; want 60 Hz, 600 steps or more, some joints", f, sc.Hz, sc.Steps, len(sc.Joints))
			}
			for _, j := range sc.Joints {
				if sc.Bodies[j.A].ID != j.BodyA || sc.Bodies[j.B].ID != j.BodyB {
					t.Errorf("%s: joint %q: bodies %d and %d are not %q and %q", f, j.ID, j.A, j.B, j.BodyA, j.BodyB)
				}
			}
			continue
		}
		if sc.Hz != 60 || sc.Steps != 600 || len(sc.Bodies) < 21 {
			t.Errorf("%s: hz %v, steps %d, %d bodies; want 60 Hz, 600 steps, 21 bodies or more", f, sc.Hz, sc.Steps, len(sc.Bodies))
		}
	}
}

const goodBody = `{"id": "a", "kind": "dynamic", "shape": {"type": "sphere", "radius": 0.5}, "position": [0, 1, 0]}`

// sceneText returns a scene file with top-level fields replaced or added by
// top (a JSON fragment "k": v, ...) and the bodies given (none when top
// starts with "bodies").
func sceneText(top string, bodies ...string) string {
	head := `"format": "nebula-scene/1", "name": "t", "hz": 60, "steps": 10, "gravity": [0, -9.81, 0]`
	if top != "" {
		head += ", " + top // a later duplicate key wins, as in JavaScript
	}
	if strings.HasPrefix(top, `"bodies"`) {
		return "{" + head + "}"
	}
	return "{" + head + `, "bodies": [` + strings.Join(bodies, ", ") + "]}"
}

// body returns goodBody with fields replaced or added.
func body(extra string) string {
	return strings.TrimSuffix(goodBody, "}") + ", " + extra + "}"
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"not json", `{"format": `, `scene: not valid JSON: the file ends inside a value (line 1, column 11)`},
		{"empty", " \n", `scene: the file is empty; it must hold one JSON object {...}`},
		{"two values", "{}\n {}", `scene: the file holds more than one JSON value: more follows its object at line 2, column 2`},
		{"trailing garbage", `{"format": "nebula-scene/1"} x`, `scene: the file holds more than one JSON value: more follows its object at line 1, column 30`},
		{"string", `"scene"`, `scene: the file must hold one JSON object {...}, it holds a string`},
		{"syntax", "{\n\"format\": x}", `scene: not valid JSON at line 2, column 11: invalid character 'x' looking for beginning of value`},
		{"array", `[1, 2]`, `scene: the file must hold one JSON object {...}, it holds an array`},
		{"null", `null`, `scene: the file must hold one JSON object {...}, it holds null`},
		{"format missing", `{"name": "x"}`, `scene: format is missing; it must be "nebula-scene/1" or "nebula-scene/2"`},
		{"format other", sceneText(`"format": "nebula-scene/3"`), `scene: format must be "nebula-scene/1" or "nebula-scene/2", got "nebula-scene/3"`},
		{"format type", sceneText(`"format": 1`), `scene: format must be "nebula-scene/1" or "nebula-scene/2", got 1`},
		{"name missing", `{"format": "nebula-scene/1"}`, `scene: name is missing; it must be a non-empty string`},
		{"name empty", sceneText(`"name": ""`), `scene: name must be a non-empty string, got ""`},
		{"description type", sceneText(`"description": 3`), `scene: description must be a string, got 3`},
		{"hz zero", sceneText(`"hz": 0`), `scene: hz must be a finite number > 0, got 0`},
		{"hz string", sceneText(`"hz": "60"`), `scene: hz must be a finite number > 0, got "60"`},
		{"hz huge", sceneText(`"hz": 1e400`), `scene: hz must be a finite number > 0, got 1e400`},
		{"steps fraction", sceneText(`"steps": 1.5`), `scene: steps must be a whole number from 0 to 16777216 (2^24), got 1.5`},
		{"steps negative", sceneText(`"steps": -1`), `scene: steps must be a whole number from 0 to 16777216 (2^24), got -1`},
		{"steps over cap", sceneText(`"steps": 16777217`), `scene: steps must be a whole number from 0 to 16777216 (2^24), got 16777217`},
		{"gravity short", sceneText(`"gravity": [0, -9.81]`), `scene: gravity must be an array of 3 numbers [x, y, z], got [0,-9.81]`},
		{"gravity inf", sceneText(`"gravity": [0, -1e999, 0]`), `scene: gravity must hold finite numbers, got [0,-1e999,0]`},
		{"bodies missing", `{"format": "nebula-scene/1", "name": "t", "hz": 60, "steps": 1, "gravity": [0, 0, 0]}`,
			`scene: bodies is missing; it must be an array of body objects (it may be empty)`},
		{"bodies object", sceneText(`"bodies": {}`), `scene: bodies must be an array of body objects, got {}`},
		{"body not object", sceneText("", `7`), `scene: bodies[0]: a body must be a JSON object, got 7`},
		{"id missing", sceneText("", `{"kind": "static"}`), `scene: bodies[0]: id is missing; it must be a non-empty string, unique in the scene`},
		{"id duplicate", sceneText("", goodBody, goodBody), `scene: bodies[1] (id "a"): id "a" is already the id of bodies[0]; ids must be unique`},
		{"kind missing", sceneText("", `{"id": "b"}`), `scene: bodies[0] (id "b"): kind is missing; it must be "static", "dynamic" or "kinematic"`},
		{"kind unknown", sceneText("", body(`"kind": "Dynamic"`)), `scene: bodies[0] (id "a"): kind must be "static", "dynamic" or "kinematic", got "Dynamic"`},
		{"shape missing", sceneText("", `{"id": "b", "kind": "static"}`), `scene: bodies[0] (id "b"): shape is missing; it must be an object such as {"type": "box", "half_extents": [0.5, 0.5, 0.5]}`},
		{"shape type unknown", sceneText("", body(`"shape": {"type": "cylinder"}`)), `scene: bodies[0] (id "a"): shape.type must be "box", "sphere" or "capsule", got "cylinder"`},
		{"shape type missing", sceneText("", body(`"shape": {"radius": 1}`)), `scene: bodies[0] (id "a"): shape.type is missing; it must be "box", "sphere" or "capsule"`},
		{"shape type number", sceneText("", body(`"shape": {"type": 1}`)), `scene: bodies[0] (id "a"): shape.type must be "box", "sphere" or "capsule", got 1`},
		{"radius zero", sceneText("", body(`"shape": {"type": "sphere", "radius": 0}`)), `scene: bodies[0] (id "a"): shape.radius must be a finite number > 0, got 0`},
		{"radius missing", sceneText("", body(`"shape": {"type": "sphere"}`)), `scene: bodies[0] (id "a"): shape.radius is missing; it must be a finite number > 0`},
		{"half height negative", sceneText("", body(`"shape": {"type": "capsule", "radius": 1, "half_height": -1}`)), `scene: bodies[0] (id "a"): shape.half_height must be a finite number >= 0, got -1`},
		{"half extents zero", sceneText("", body(`"shape": {"type": "box", "half_extents": [1, 0, 1]}`)), `scene: bodies[0] (id "a"): shape.half_extents must be 3 finite numbers > 0, got [1,0,1]`},
		{"half extents missing", sceneText("", body(`"shape": {"type": "box"}`)), `scene: bodies[0] (id "a"): shape.half_extents is missing; a box needs [hx, hy, hz], each > 0`},
		{"position missing", sceneText("", `{"id": "b", "kind": "static", "shape": {"type": "sphere", "radius": 1}}`), `scene: bodies[0] (id "b"): position is missing; it must be an array of 3 finite numbers [x, y, z]`},
		{"position null", sceneText("", body(`"position": null`)), `scene: bodies[0] (id "a"): position must be an array of 3 numbers [x, y, z], got null`},
		{"rotation not unit", sceneText("", body(`"rotation": [0, 0, 0, 2]`)), `scene: bodies[0] (id "a"): rotation must be a unit quaternion [x, y, z, w] (length within 1e-06 of 1), got length 2`},
		{"rotation short", sceneText("", body(`"rotation": [0, 0, 1]`)), `scene: bodies[0] (id "a"): rotation must be an array of 4 numbers [x, y, z, w] (a unit quaternion, scalar last), got [0,0,1]`},
		{"velocity string", sceneText("", body(`"linear_velocity": [0, "1", 0]`)), `scene: bodies[0] (id "a"): linear_velocity must be an array of 3 numbers [x, y, z], got [0,"1",0]`},
		{"angular velocity inf", sceneText("", body(`"angular_velocity": [0, 1e309, 0]`)), `scene: bodies[0] (id "a"): angular_velocity must hold finite numbers, got [0,1e309,0]`},
		{"density zero", sceneText("", body(`"density": 0`)), `scene: bodies[0] (id "a"): density must be a finite number > 0, got 0`},
		{"friction negative", sceneText("", body(`"friction": -0.1`)), `scene: bodies[0] (id "a"): friction must be a finite number >= 0, got -0.1`},
		{"restitution bool", sceneText("", body(`"restitution": true`)), `scene: bodies[0] (id "a"): restitution must be a finite number >= 0, got true`},
		{"ccd string", sceneText("", body(`"ccd": "yes"`)), `scene: bodies[0] (id "a"): ccd must be true or false, got "yes"`},
		{"ccd null", sceneText("", body(`"ccd": null`)), `scene: bodies[0] (id "a"): ccd must be true or false, got null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse([]byte(tt.file))
			if err == nil {
				t.Fatalf("Parse(%s) = %+v, want error %q", tt.file, sc, tt.want)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Errorf("error %v is a %T, want *Error", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse(%s):\n got %s\nwant %s", tt.file, err, tt.want)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct{ name, file string }{
		{"no bodies", sceneText("")},
		{"steps as 600.0", sceneText(`"steps": 600.0`)},
		{"steps 0", sceneText(`"steps": 0`)},
		{"steps at the cap", sceneText(`"steps": 16777216`)},
		{"unknown fields", sceneText(`"extra": {"x": [1]}`, body(`"colour": "red"`))},
		{"rotation within tolerance", sceneText("", body(`"rotation": [0, 0, 0, 1.0000009]`))},
		{"capsule half height 0", sceneText("", body(`"shape": {"type": "capsule", "radius": 1, "half_height": 0}`))},
		{"friction 0", sceneText("", body(`"friction": 0`))},
	}
	for _, tt := range tests {
		if _, err := Parse([]byte(tt.file)); err != nil {
			t.Errorf("%s: Parse(%s): %v", tt.name, tt.file, err)
		}
	}
}

func TestReadFileNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(path, []byte(sceneText(`"hz": -1`)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	if want := "scene: " + path + ": hz must be a finite number > 0, got -1"; err == nil || err.Error() != want {
		t.Errorf("ReadFile: %v, want %s", err, want)
	}
	_, err = ReadFile(filepath.Join(t.TempDir(), "none.json"))
	if err == nil || !strings.HasPrefix(err.Error(), "scene: open ") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v, want scene: open ...: not exist", err)
	}
}

// lowerCaps sets the caps to small values for the test.
func lowerCaps(t *testing.T, fileSize, bodies int) {
	oldSize, oldBodies := maxFileSize, maxBodies
	maxFileSize, maxBodies = fileSize, bodies
	t.Cleanup(func() { maxFileSize, maxBodies = oldSize, oldBodies })
}

func TestReadRefusesABigFile(t *testing.T) {
	if maxFileSize != 256<<20 || maxBodies != 1<<20 {
		t.Fatalf("the caps are %d bytes and %d bodies, want 256 MiB and 2^20", maxFileSize, maxBodies)
	}
	lowerCaps(t, 1<<20, MaxBodies)
	text := sceneText("") + strings.Repeat(" ", 1<<20)
	want := "scene: the file is over 1048576 bytes (1 MiB), the most accepted"
	if _, err := Read(strings.NewReader(text)); err == nil || err.Error() != want {
		t.Errorf("Read of %d bytes: %v, want %s", len(text), err, want)
	}
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err == nil || err.Error() != "scene: "+path+": the file is over 1048576 bytes (1 MiB), the most accepted" {
		t.Errorf("ReadFile of %d bytes: %v", len(text), err)
	}
	if _, err := Read(strings.NewReader(text[:1<<20])); err != nil {
		t.Errorf("Read of a file of exactly the cap: %v", err)
	}
}

func TestParseRefusesTooManyBodies(t *testing.T) {
	lowerCaps(t, MaxFileSize, 3)
	_, err := Parse([]byte(sceneText(`"bodies": [0, 1, 2, 3]`)))
	if want := "scene: bodies has 4 entries; at most 3 are accepted"; err == nil || err.Error() != want {
		t.Errorf("Parse: %v, want %s", err, want)
	}
	bodies := []string{body(`"id": "a"`), body(`"id": "b"`), body(`"id": "c"`)}
	if _, err := Parse([]byte(sceneText("", bodies...))); err != nil {
		t.Errorf("Parse of 3 bodies: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sceneText("", goodBody)))
	f.Add([]byte(sceneText(`"steps": 1e3`, body(`"rotation": [0, 0.6, 0, 0.8], "ccd": true`))))
	f.Add([]byte(sceneText("", `{"id": "b", "kind": "static", "shape": {"type": "box", "half_extents": [1, 2, 3]}, "position": [0, 0, 0]}`)))
	if data, err := os.ReadFile(filepath.Join("testdata", "drop.json")); err == nil {
		f.Add(data)
	}
	// nebula-scene/2: a joint of every type and option.
	f.Add([]byte(pendulumText))
	f.Add([]byte(jointScene(jointText("fixed", `"collide_connected": true`), jointText("spherical", `"id": "b", "body_a": "k"`),
		jointText("revolute", `"id": "c", "limits": [-1, 1], "motor": {"target_velocity": 1, "max_force": 2}`),
		jointText("prismatic", `"id": "d", "limits": [0, 1]`), jointText("distance", `"id": "e", "spring": {"stiffness": 1, "damping": 0}`))))
	f.Add([]byte(sceneText(`"joints": [{"id": "ignored"}]`, goodBody)))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse(data)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), "scene: ") {
				t.Fatalf("error %v (%T) is not a *Error starting with scene: ", err, err)
			}
			return
		}
		// What Parse accepts is in range, whatever the bytes.
		if !(sc.Hz > 0) || sc.Steps < 0 || sc.Steps > MaxSteps || sc.Name == "" || len(sc.Bodies) > MaxBodies {
			t.Fatalf("accepted a scene out of range: %+v", sc)
		}
		ids := map[string]bool{}
		for _, b := range sc.Bodies {
			if ids[b.ID] || b.ID == "" {
				t.Fatalf("accepted a duplicate or empty id %q", b.ID)
			}
			ids[b.ID] = true
			if !(b.Density > 0) || !(b.Friction >= 0) || !(b.Restitution >= 0) {
				t.Fatalf("accepted materials out of range: %+v", b)
			}
			switch b.Kind {
			case Static, Dynamic, Kinematic:
			default:
				t.Fatalf("accepted kind %q", b.Kind)
			}
			switch b.Shape.Type {
			case Box, Sphere, Capsule:
			default:
				t.Fatalf("accepted shape type %q", b.Shape.Type)
			}
			q := b.Rotation
			if n := q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3]; !(n > 0.999 && n < 1.001) {
				t.Fatalf("accepted rotation %v", q)
			}
		}
		checkJoints(t, sc)
	})
}

// checkJoints fails t when sc holds a joint that breaks a rule of
// nebula-scene/2, and checks that Measure gives a record of the fields
// its type has.
func checkJoints(t *testing.T, sc *Scene) {
	if sc.Format != Format && sc.Format != Format2 || sc.Format == Format && sc.Joints != nil || len(sc.Joints) > MaxJoints {
		t.Fatalf("format %q with %d joints", sc.Format, len(sc.Joints))
	}
	unit := func(v [3]float64) bool { n := length(v); return n > 1-2e-6 && n < 1+2e-6 }
	ids := map[string]bool{}
	var tr JointTracker
	records := make([]JointRecord, len(sc.Joints))
	for i := range sc.Joints {
		j := &sc.Joints[i]
		if ids[j.ID] || j.ID == "" {
			t.Fatalf("accepted a duplicate or empty joint id %q", j.ID)
		}
		ids[j.ID] = true
		if j.A < 0 || j.A >= len(sc.Bodies) || j.B < 0 || j.B >= len(sc.Bodies) || j.A == j.B ||
			sc.Bodies[j.A].ID != j.BodyA || sc.Bodies[j.B].ID != j.BodyB ||
			sc.Bodies[j.A].Kind != Dynamic && sc.Bodies[j.B].Kind != Dynamic {
			t.Fatalf("accepted joint %q between %q (%d) and %q (%d)", j.ID, j.BodyA, j.A, j.BodyB, j.B)
		}
		f := framed(j.Type)
		if f != (unit(j.AxisA) && unit(j.NormalA) && unit(j.AxisB) && unit(j.NormalB)) ||
			f && (math.Abs(dot(j.AxisA, j.NormalA)) > 1e-6 || math.Abs(dot(j.AxisB, j.NormalB)) > 1e-6) {
			t.Fatalf("accepted the frames of %+v", *j)
		}
		if (j.Limits != nil || j.Motor != nil) && !sliding(j.Type) ||
			j.Limits != nil && !(j.Limits[0] <= 0 && j.Limits[1] >= 0 && j.Limits[0] < j.Limits[1]) ||
			j.Motor != nil && !(j.Motor.MaxForce > 0) ||
			(j.Type == JointDistance) != (j.Length > 0) || j.Spring != nil && (j.Type != JointDistance || !(j.Spring.Stiffness > 0) || !(j.Spring.Damping >= 0)) {
			t.Fatalf("accepted %+v", *j)
		}
		pose := func(b Body) Pose { return Pose{Position: b.Position, Rotation: b.Rotation} }
		records[i] = j.Measure(pose(sc.Bodies[j.A]), pose(sc.Bodies[j.B]))
		r := records[i]
		if r.ID != j.ID || r.Type != j.Type || r.HasCoordinate != (j.Type != JointFixed && j.Type != JointSpherical) ||
			r.HasAngleError != (f) || r.HasLimitError != (j.Limits != nil) || r.HasPositionError != (j.Spring == nil) {
			t.Fatalf("record %+v of %+v", r, *j)
		}
	}
	tr.Sample(records)
	if s := tr.Summary(records); (s.Position != nil) != slices.ContainsFunc(records, func(r JointRecord) bool { return r.HasPositionError }) {
		t.Fatalf("summary %+v of %+v", s, records)
	}
}
