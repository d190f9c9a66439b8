package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/engine/physics/scene"
)

// Joint checks through the runner: nebula-scene/2 files made here (the
// shapes of the shared scenes pendulum and joint-types, copied so that
// the tests need nothing outside the repository), judged against closed
// forms and the anchors' end states.

// jointRecord is a joint's record in the result.
type jointRecord struct {
	ID            string
	Type          string
	PositionError *float64 `json:"position_error"`
	AngleError    *float64 `json:"angle_error"`
	Coordinate    *float64
	LimitError    *float64 `json:"limit_error"`
}

// errorStats is an entry of the result's joint_errors.
type errorStats struct {
	Max, Mean, Peak *float64
	PeakJoint       string `json:"peak_joint"`
	PeakStep        *int   `json:"peak_step"`
}

// jointResult is what a result holds of the joints; runJoints fills it.
type jointResult struct {
	Joints      []jointRecord
	JointErrors map[string]errorStats `json:"joint_errors"`
}

// writeScene2 writes a nebula-scene/2 file with bodies and joints into a
// temporary folder and returns its path.
func writeScene2(t *testing.T, name string, steps int, bodies []obj, joints []obj) string {
	t.Helper()
	data, err := json.Marshal(obj{"format": "nebula-scene/2", "name": name, "hz": 60, "steps": steps, "gravity": earth, "bodies": bodies, "joints": joints})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runJoints runs the file with args and returns its result and its joints.
func runJoints(t *testing.T, path string, args ...string) (result, jointResult) {
	t.Helper()
	code, out, errOut := runArgs(append([]string{path}, args...)...)
	if code != 0 || errOut != "" {
		t.Fatalf("exit status %d, stderr %q", code, errOut)
	}
	var j jointResult
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	return decode(t, out), j
}

func sphere(id, kind string, r float64, pos []float64) obj {
	return obj{"id": id, "kind": kind, "shape": obj{"type": "sphere", "radius": r}, "position": pos, "density": 1000.0}
}

func box(id, kind string, half, pos []float64) obj {
	return obj{"id": id, "kind": kind, "shape": obj{"type": "box", "half_extents": half}, "position": pos, "density": 1000.0}
}

func joint(id, typ, a, b string, anchorA, anchorB []float64, extra obj) obj {
	j := obj{"id": id, "type": typ, "body_a": a, "body_b": b, "anchor_a": anchorA, "anchor_b": anchorB}
	for k, v := range extra {
		j[k] = v
	}
	return j
}

// frames returns the frame fields of a joint whose two bodies share the
// axis and normal.
func frames(axis, normal []float64) obj {
	return obj{"axis_a": axis, "normal_a": normal, "axis_b": axis, "normal_b": normal}
}

// period returns the mean period, in s, of the samples x (one per step at
// 60 Hz) over their whole cycles, from the upward crossings of their mean
// (linear interpolation between samples), as the anchors' period.mjs
// measures it; 0 for fewer than two crossings.
func period(x []float64) float64 {
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var up []float64
	for i := 1; i < len(x); i++ {
		a, b := x[i-1]-mean, x[i]-mean
		if a < 0 && b >= 0 {
			up = append(up, (float64(i-1)+(-a/(b-a)))/60)
		}
	}
	if len(up) < 2 {
		return 0
	}
	return (up[len(up)-1] - up[0]) / float64(len(up)-1)
}

// The shared scene pendulum: bobs of radius 0.1 2 m below static pivots on
// a revolute joint, a spherical joint and a rope, released 0.2 m to the
// side, and a fourth on a vertical spring (rest 2 m, 100 N/m, undamped).
// Each swings with the period of its closed form, within 1 %, and the
// result holds a record of every joint and the summary of their errors.
func TestRunnerPendulumPeriods(t *testing.T) {
	const sq = 1.98997487421324 // √3.96: the bob's anchor, 2 m from its centre
	var bodies, joints []obj
	for i, kind := range []string{"revolute", "spherical", "rope", "spring"} {
		z := float64(2*i - 3)
		pivot, bob := "pivot-"+kind, "bob-"+kind
		bodies = append(bodies, box(pivot, "static", []float64{0.05, 0.05, 0.05}, []float64{0, 3, z}))
		pos := []float64{0.2, 3 - sq, z}
		if kind == "spring" {
			pos = []float64{0, 1, z}
		}
		bodies = append(bodies, sphere(bob, "dynamic", 0.1, pos))
		origin, anchor := []float64{0, 0, 0}, []float64{-0.2, sq, 0}
		switch kind {
		case "revolute":
			joints = append(joints, joint(kind, "revolute", pivot, bob, origin, anchor, frames([]float64{0, 0, 1}, []float64{1, 0, 0})))
		case "spherical":
			joints = append(joints, joint(kind, "spherical", pivot, bob, origin, anchor, nil))
		case "rope":
			joints = append(joints, joint(kind, "distance", pivot, bob, origin, origin, obj{"length": 2.0}))
		case "spring":
			joints = append(joints, joint(kind, "distance", pivot, bob, origin, origin, obj{"length": 2.0, "spring": obj{"stiffness": 100.0, "damping": 0.0}}))
		}
	}
	path := writeScene2(t, "pendulum", 1200, bodies, joints)
	r, j := runJoints(t, path, "--trace", "bob-revolute,bob-spherical,bob-rope,bob-spring", "--every", "1")

	// The records: one per joint, in scene order, with its type's fields.
	has := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return "x"
	}
	var got []string
	for _, rec := range j.Joints {
		got = append(got, rec.ID+" "+rec.Type+" "+has(rec.PositionError)+has(rec.AngleError)+has(rec.Coordinate)+has(rec.LimitError))
	}
	want := []string{"revolute revolute xxx-", "spherical spherical x---", "rope distance x-x-", "spring distance --x-"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("joint records %v, want %v", got, want)
	}
	if len(j.JointErrors) != 2 || j.JointErrors["position"].Peak == nil || j.JointErrors["angle"].PeakJoint != "revolute" {
		t.Errorf("joint_errors %+v: want position and angle (the revolute joint's alone)", j.JointErrors)
	}
	if p := j.JointErrors["position"]; p.Peak != nil {
		t.Logf("position error: max %v, mean %v, peak %v (%s, step %d)", *p.Max, *p.Mean, *p.Peak, p.PeakJoint, *p.PeakStep)
		if !(*p.Peak < 0.01) || *p.PeakStep < 1 || *p.PeakStep > 1200 {
			t.Errorf("position error peak %v at step %d: want under 1 cm, at a step from 1 to 1200", *p.Peak, *p.PeakStep)
		}
	}

	x := map[string][]float64{}
	for _, e := range r.Trace {
		k := 0 // the swing along x
		if e.ID == "bob-spring" {
			k = 1 // the spring's bounce along y
		}
		x[e.ID] = append(x[e.ID], e.Position[k])
	}
	for _, tt := range []struct {
		id   string
		want float64
	}{
		{"bob-revolute", 2.84021},  // physical pendulum: 2π√((L² + 2r²/5)/(gL)), finite amplitude
		{"bob-spherical", 2.84021}, // the same
		{"bob-rope", 2.83879},      // point mass on a 2 m rope
		{"bob-spring", 1.28595},    // 2π√(m/k)
	} {
		if n := len(x[tt.id]); n != 1201 {
			t.Errorf("%s: %d trace entries, want 1201", tt.id, n)
			continue
		}
		got := period(x[tt.id])
		t.Logf("%s: period %.5f s (%+.3f %%)", tt.id, got, 100*(got/tt.want-1))
		if math.Abs(got/tt.want-1) > 0.01 {
			t.Errorf("%s: period %.5f s, want %.5f s within 1 %%", tt.id, got, tt.want)
		}
	}
}

// End states of the shared scene joint-types, as its README gives them:
// a flap resting on its revolute joint's lower limit (−0.6 rad), a
// carriage driven by a prismatic joint's motor into its upper limit
// (1.5 m) and a ball dropped on a slack rope, hanging at its length
// (1.5 m).
func TestRunnerJointTypesEndStates(t *testing.T) {
	origin := []float64{0, 0, 0}
	bodies := []obj{
		box("post-flap", "static", []float64{0.05, 0.05, 0.05}, []float64{-3, 2, 0}),
		box("flap", "dynamic", []float64{0.5, 0.05, 0.05}, []float64{-2.5, 2, 0}),
		box("rail", "static", []float64{1.5, 0.05, 0.05}, []float64{0.5, 1, 0}),
		box("carriage", "dynamic", []float64{0.2, 0.2, 0.2}, []float64{0, 1, 0}),
		box("pivot-hang", "static", []float64{0.05, 0.05, 0.05}, []float64{9, 4, 0}),
		sphere("hang", "dynamic", 0.2, []float64{9, 3, 0}),
	}
	x, y, z := []float64{1, 0, 0}, []float64{0, 1, 0}, []float64{0, 0, 1}
	flap := frames(z, x)
	flap["limits"] = []float64{-0.6, 0.3}
	carriage := frames(x, y)
	carriage["limits"] = []float64{-1, 1.5}
	carriage["motor"] = obj{"target_velocity": 1.0, "max_force": 200.0}
	joints := []obj{
		joint("flap", "revolute", "post-flap", "flap", origin, []float64{-0.5, 0, 0}, flap),
		joint("carriage", "prismatic", "rail", "carriage", []float64{-0.5, 0, 0}, origin, carriage),
		joint("hang", "distance", "pivot-hang", "hang", origin, origin, obj{"length": 1.5}),
	}
	_, j := runJoints(t, writeScene2(t, "joint-types", 600, bodies, joints))
	if len(j.Joints) != 3 {
		t.Fatalf("%d joint records, want 3", len(j.Joints))
	}
	for i, tt := range []struct {
		id        string
		want, tol float64
	}{{"flap", -0.6, 0.01}, {"carriage", 1.5, 0.01}, {"hang", 1.5, 0.01}} {
		rec := j.Joints[i]
		if rec.ID != tt.id || rec.Coordinate == nil {
			t.Errorf("joint %d: %+v, want %s with a coordinate", i, rec, tt.id)
			continue
		}
		t.Logf("%s: coordinate %v (want %v), position error %v", tt.id, *rec.Coordinate, tt.want, *rec.PositionError)
		if math.Abs(*rec.Coordinate-tt.want) > tt.tol {
			t.Errorf("%s: coordinate %v after 10 s, want %v within %v", tt.id, *rec.Coordinate, tt.want, tt.tol)
		}
	}
	if l := j.JointErrors["limit"]; l.Max == nil || *l.Max > 0.01 {
		t.Errorf("limit errors %+v: want both limits held within 1 cm or 0.01 rad at the end", l)
	}
	if _, ok := j.JointErrors["angle"]; !ok {
		t.Error("joint_errors has no angle")
	}
}

// A nebula-scene/1 file ignores its joints (saying so on stderr), and a
// /2 file without joints gives the same result as the /1 file: the same
// bodies and hash, no joint fields.
func TestJointsVersions(t *testing.T) {
	bodies := []obj{floor(0.5, 0), cube("box", []float64{0, 2, 0})}
	ignored := []obj{joint("j", "spherical", "floor", "box", []float64{0, 0, 0}, []float64{0, -2, 0}, nil)}
	dir := t.TempDir()
	write := func(name string, v obj) string {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := write("one.json", obj{"format": "nebula-scene/1", "name": "v", "hz": 60, "steps": 30, "gravity": earth, "bodies": bodies, "joints": ignored})
	two := write("two.json", obj{"format": "nebula-scene/2", "name": "v", "hz": 60, "steps": 30, "gravity": earth, "bodies": bodies, "joints": []obj{}})
	code, out1, errOut := runArgs(one)
	if want := "nebula-physics: " + one + `: "joints" ignored (not part of nebula-scene/1)` + "\n"; code != 0 || errOut != want {
		t.Errorf("a /1 file with joints: exit status %d, stderr %q; want 0, %q", code, errOut, want)
	}
	_, out2, _ := runArgs(two)
	r1, r2 := decode(t, out1), decode(t, out2)
	if r1.Hash != r2.Hash || !reflect.DeepEqual(r1.Bodies, r2.Bodies) {
		t.Errorf("the /1 and the /2 file differ:\n%s\n%s", out1, out2)
	}
	for _, out := range []string{out1, out2} {
		if strings.Contains(out, `"joints"`) || strings.Contains(out, `"joint_errors"`) {
			t.Errorf("joint fields in a result without joints: %s", out)
		}
	}
}

// A bad joint is refused as a bad body is: exit status 2, one line on
// stderr naming the file, the joint and the field, nothing on stdout.
func TestJointRefused(t *testing.T) {
	bodies := []obj{box("post", "static", []float64{0.1, 0.1, 0.1}, []float64{0, 2, 0}), sphere("ball", "dynamic", 0.1, []float64{0, 1, 0})}
	for _, tt := range []struct {
		joint obj
		want  string
	}{
		{joint("j", "spherical", "post", "ball", []float64{0, 0, 0}, []float64{0, 1, 0}, obj{"limits": []float64{-1, 1}}),
			`joints[0] (id "j"): limits does not apply to a spherical joint; only revolute and prismatic joints take it`},
		{joint("j", "distance", "post", "nobody", []float64{0, 0, 0}, []float64{0, 0, 0}, obj{"length": 1.0}),
			`joints[0] (id "j"): body_b "nobody" is not the id of a body of the scene`},
		{joint("j", "revolute", "post", "ball", []float64{0, 0, 0}, []float64{0, 1, 0}, frames([]float64{0, 0, 1}, []float64{0, 0.6, 0.8})),
			`joints[0] (id "j"): normal_a must be perpendicular to axis_a (dot product within 1e-06 of 0), got dot product 0.8`},
	} {
		path := writeScene2(t, "bad", 10, bodies, []obj{tt.joint})
		code, out, errOut := runArgs(path)
		if want := "nebula-physics: " + path + ": " + tt.want + "\n"; code != 2 || out != "" || errOut != want {
			t.Errorf("run(%s) = %d, stdout %q, stderr %q; want 2, nothing, %q", path, code, out, errOut, want)
		}
	}
}

// Measuring the joints after a step allocates nothing, so that it adds
// nothing to allocs_while_stepping.
func TestSampleJointsDoesNotAllocate(t *testing.T) {
	bodies := []obj{box("post", "static", []float64{0.1, 0.1, 0.1}, []float64{0, 2, 0}), sphere("a", "dynamic", 0.1, []float64{0, 1, 0}),
		sphere("b", "dynamic", 0.1, []float64{0, 0.5, 0})}
	joints := []obj{
		joint("rope", "distance", "post", "a", []float64{0, 0, 0}, []float64{0, 0, 0}, obj{"length": 1.0}),
		joint("ball", "spherical", "a", "b", []float64{0, -0.25, 0}, []float64{0, 0.25, 0}, nil),
		joint("weld", "fixed", "post", "b", []float64{0, -1.5, 0}, []float64{0, 0, 0}, frames([]float64{1, 0, 0}, []float64{0, 1, 0})),
	}
	sc, err := scene.ReadFile(writeScene2(t, "allocs", 1, bodies, joints))
	if err != nil {
		t.Fatal(err)
	}
	s, err := build(sc, 60)
	if err != nil {
		t.Fatal(err)
	}
	if got := testing.AllocsPerRun(20, s.sampleJoints); got != 0 {
		t.Errorf("sampleJoints allocates %v times", got)
	}
	if s.tracker.Steps() != 21 || len(s.jointRecords) != 3 {
		t.Errorf("%d samples of %d joints, want 21 of 3", s.tracker.Steps(), len(s.jointRecords))
	}
}
