package scene

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// jointCase is testdata/joints.json (made by gen_joints.mjs with the
// anchors' own code): a scene with a joint of every type and option, the
// poses of its bodies at steps 0 to N, and the "joints" and
// "joint_errors" the anchors compute from them, for a run of N steps and
// for one of none.
type jointCase struct {
	Scene json.RawMessage
	Steps [][]struct {
		Position [3]float64
		Rotation [4]float64
	}
	Result        json.RawMessage
	ResultNoSteps json.RawMessage `json:"result_no_steps"`
}

// jointsSection returns r's joints and joint_errors as the object
// {"joints":..., "joint_errors":...}.
func jointsSection(r *Result) string {
	b := r.appendJoints(nil, nil)
	return "{" + strings.TrimPrefix(string(b), ",") + "}"
}

// The records and the summary match the anchors' to the last bit, for the
// same poses: every engine is measured the same way.
func TestJointMeasuresAsTheAnchors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "joints.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c jointCase
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	sc, err := Parse(c.Scene)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) != sc.Steps+1 {
		t.Fatalf("%d poses for %d steps", len(c.Steps), sc.Steps)
	}
	measure := func(step int, dst []JointRecord) []JointRecord {
		dst = dst[:0]
		for i := range sc.Joints {
			j := &sc.Joints[i]
			a, b := c.Steps[step][j.A], c.Steps[step][j.B]
			dst = append(dst, j.Measure(Pose(a), Pose(b)))
		}
		return dst
	}
	for _, tt := range []struct {
		steps int
		want  json.RawMessage
	}{{sc.Steps, c.Result}, {0, c.ResultNoSteps}} {
		var tr JointTracker
		var recs []JointRecord
		for s := 1; s <= tt.steps; s++ {
			recs = measure(s, recs)
			tr.Sample(recs)
		}
		if tr.Steps() != tt.steps {
			t.Errorf("Steps() = %d, want %d", tr.Steps(), tt.steps)
		}
		final := measure(tt.steps, nil)
		sum := tr.Summary(final)
		got := jointsSection(&Result{Joints: final, JointErrors: &sum})
		var want bytes.Buffer
		if err := json.Compact(&want, tt.want); err != nil {
			t.Fatal(err)
		}
		if got != want.String() {
			t.Errorf("after %d steps, written:\n%s\nthe anchors':\n%s", tt.steps, got, want.String())
		}
	}
}

// The measures of joints that hold exactly are 0, and each type has
// exactly the fields of its row of FORMAT's table.
func TestJointMeasureFields(t *testing.T) {
	x, y, z := [3]float64{1, 0, 0}, [3]float64{0, 1, 0}, [3]float64{0, 0, 1}
	rest := Pose{Position: [3]float64{1, 2, 3}, Rotation: [4]float64{0, 0, 0, 1}}
	// b is turned 0.25 rad about z and shifted 0.5 along x: a revolute
	// joint about z reads θ = 0.25, a prismatic along x s = 0.5.
	turned := Pose{Position: [3]float64{1.5, 2, 3}, Rotation: [4]float64{0, 0, math.Sin(0.125), math.Cos(0.125)}}
	limits := &[2]float64{-0.1, 0.2}
	tests := []struct {
		j                    Joint
		b                    Pose
		fields               string
		pos, ang, coord, lim float64
	}{
		{Joint{Type: JointFixed, AxisA: x, NormalA: y, AxisB: x, NormalB: y}, rest, "PA", 0, 0, 0, 0},
		{Joint{Type: JointSpherical}, turned, "P", 0.5, 0, 0, 0},
		{Joint{Type: JointRevolute, AxisA: z, NormalA: x, AxisB: z, NormalB: x}, turned, "PAC", 0.5, 0, 0.25, 0},
		{Joint{Type: JointRevolute, AxisA: z, NormalA: x, AxisB: z, NormalB: x, Limits: limits}, turned, "PACL", 0.5, 0, 0.25, 0.05},
		{Joint{Type: JointPrismatic, AxisA: x, NormalA: y, AxisB: x, NormalB: y, Limits: limits}, turned, "PACL", 0, 0.25, 0.5, 0.3},
		{Joint{Type: JointDistance, Length: 0.4}, turned, "CP", 0.1, 0, 0.5, 0},
		{Joint{Type: JointDistance, Length: 0.4, Spring: &Spring{Stiffness: 1}}, turned, "C", 0, 0, 0.5, 0},
	}
	for _, tt := range tests {
		r := tt.j.Measure(rest, tt.b)
		var fields string
		b := r.appendJSON(nil)
		for _, f := range []struct {
			key, letter string
			has         bool
		}{{"position_error", "P", r.HasPositionError}, {"angle_error", "A", r.HasAngleError}, {"coordinate", "C", r.HasCoordinate}, {"limit_error", "L", r.HasLimitError}} {
			if f.has != bytes.Contains(b, []byte(f.key)) {
				t.Errorf("%s: Has for %s is %v, written %s", tt.j.Type, f.key, f.has, b)
			}
		}
		// The order written.
		for _, key := range strings.Split(string(b), ",") {
			switch {
			case strings.HasPrefix(key, `"position_error"`):
				fields += "P"
			case strings.HasPrefix(key, `"angle_error"`):
				fields += "A"
			case strings.HasPrefix(key, `"coordinate"`):
				fields += "C"
			case strings.HasPrefix(key, `"limit_error"`):
				fields += "L"
			}
		}
		if fields != tt.fields {
			t.Errorf("%s: fields %q (%s), want %q", tt.j.Type, fields, b, tt.fields)
		}
		near := func(name string, got, want float64) {
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("%s (limits %v): %s = %v, want %v", tt.j.Type, tt.j.Limits, name, got, want)
			}
		}
		near("position error", r.PositionError, tt.pos)
		near("angle error", r.AngleError, tt.ang)
		near("coordinate", r.Coordinate, tt.coord)
		near("limit error", r.LimitError, tt.lim)
	}
}

// The summary's peak is the first joint at the first step that reached
// it; max and mean are those of the final records; a measure no joint has
// is left out; with no step run, the peak is at step 0.
func TestJointTracker(t *testing.T) {
	rec := func(id string, pos float64) JointRecord {
		return JointRecord{ID: id, Type: JointSpherical, PositionError: pos, HasPositionError: true}
	}
	var tr JointTracker
	tr.Sample([]JointRecord{rec("a", 0.1), rec("b", 0.2)})
	tr.Sample([]JointRecord{rec("a", 0.3), rec("b", 0.3)})
	tr.Sample([]JointRecord{rec("a", 0.3), rec("b", 0.1)})
	final := []JointRecord{rec("a", 0.25), rec("b", 0.05)}
	s := tr.Summary(final)
	if s.Angle != nil || s.Limit != nil || s.Position == nil {
		t.Fatalf("summary %+v: want position only", s)
	}
	if want := (ErrorStats{Max: 0.25, Mean: 0.15, Peak: 0.3, PeakJoint: "a", PeakStep: 2}); *s.Position != want {
		t.Errorf("position %+v, want %+v", *s.Position, want)
	}
	var none JointTracker
	s = none.Summary([]JointRecord{rec("a", 0.1), rec("b", 0.4), rec("c", 0.4)})
	if want := (ErrorStats{Max: 0.4, Mean: 0.3, Peak: 0.4, PeakJoint: "b", PeakStep: 0}); s.Position == nil || math.Abs(s.Position.Mean-want.Mean) > 1e-15 {
		t.Errorf("no steps: %+v, want %+v", s.Position, want)
	} else if s.Position.Mean = want.Mean; *s.Position != want {
		t.Errorf("no steps: %+v, want %+v", *s.Position, want)
	}
	if s := none.Summary(nil); s != (JointErrors{}) {
		t.Errorf("no joints: %+v, want nothing", s)
	}
	if got := testing.AllocsPerRun(10, func() { tr.Sample(final) }); got != 0 {
		t.Errorf("Sample allocates %v times", got)
	}
}

// hypot is V8's Math.hypot: the cases that differ from a plain square
// root of the sum of squares.
func TestHypot(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, tt := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3, 4, 0}, 5},
		{[]float64{0, 0, 0}, 0},
		{[]float64{-3, 0, 4}, 5},
		{[]float64{1e300, 1e300, 0}, 1e300 * math.Sqrt2},
		{[]float64{nan, inf, 0}, inf},
		{[]float64{nan, 1, 0}, nan},
	} {
		got := hypot(tt.xs)
		if !(got == tt.want || math.IsNaN(got) && math.IsNaN(tt.want) || math.Abs(got-tt.want) <= 1e-15*tt.want) {
			t.Errorf("hypot(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
}

// atan2 is V8's Math.atan2 to the last bit (testdata/joints.json holds
// its results), and agrees with math.Atan2 on the special values.
func TestAtan2(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "joints.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Atan2 [][3]float64 }
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Atan2) < 400 {
		t.Fatalf("%d cases", len(c.Atan2))
	}
	for _, tt := range c.Atan2 {
		if got := atan2(tt[0], tt[1]); got != tt[2] {
			t.Errorf("atan2(%v, %v) = %v, JavaScript's %v (math.Atan2 %v)", tt[0], tt[1], got, tt[2], math.Atan2(tt[0], tt[1]))
		}
	}
	inf, nan := math.Inf(1), math.NaN()
	special := []float64{0, math.Copysign(0, -1), 1, -1, inf, -inf, nan, 1e-310, -3}
	for _, y := range special {
		for _, x := range special {
			got, want := atan2(y, x), math.Atan2(y, x)
			if !(got == want && math.Signbit(got) == math.Signbit(want) || math.IsNaN(got) && math.IsNaN(want) || math.Abs(got-want) <= 4e-16*math.Abs(want)) {
				t.Errorf("atan2(%v, %v) = %v, math.Atan2 %v", y, x, got, want)
			}
		}
	}
}

// "joints" and "joint_errors" come after "bodies" and before "hash", only
// when the result has them, and only the summary's measures that are set.
func TestWriteToJoints(t *testing.T) {
	r := Result{Engine: "e", Scene: "s", Hash: "sha256:00"}
	if out := string(r.AppendJSON(nil)); strings.Contains(out, "joint") {
		t.Errorf("a result without joints: %s", out)
	}
	r.Joints = []JointRecord{
		{ID: "h", Type: JointRevolute, PositionError: 0.5, AngleError: 1e-7, Coordinate: -0, LimitError: 0,
			HasPositionError: true, HasAngleError: true, HasCoordinate: true},
		{ID: "r", Type: JointDistance, Coordinate: 2, PositionError: 0, HasCoordinate: true, HasPositionError: true},
	}
	r.JointErrors = &JointErrors{Angle: &ErrorStats{Max: 1e-7, Mean: 5e-8, Peak: 0.25, PeakJoint: "h", PeakStep: 12}}
	want := `"bodies":[],"joints":[{"id":"h","type":"revolute","position_error":0.5,"angle_error":1e-7,"coordinate":0},` +
		`{"id":"r","type":"distance","coordinate":2,"position_error":0}],` +
		`"joint_errors":{"angle":{"max":1e-7,"mean":5e-8,"peak":0.25,"peak_joint":"h","peak_step":12}},"hash":"sha256:00"}`
	if out := string(r.AppendJSON(nil)); !strings.Contains(out, want) {
		t.Errorf("written:\n%s\nwant it to hold:\n%s", out, want)
	}
	var buf bytes.Buffer
	if _, err := r.WriteTo(&buf); err != nil || buf.String() != string(r.AppendJSON(nil)) {
		t.Errorf("WriteTo: %v, %s", err, buf.String())
	}
}
