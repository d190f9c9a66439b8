package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/internal/testbin"
)

var program = testbin.New("nebula-physics", ".")

func TestMain(m *testing.M) {
	code := m.Run()
	program.Remove()
	os.Exit(code)
}

// result is the result object as a reader of FORMAT's contract sees it.
type result struct {
	Engine string
	Scene  string
	Steps  *int
	Hz     *float64
	StepMS *struct{ Mean, P50, P95, Max *float64 } `json:"step_ms"`
	InitMS *float64                                `json:"init_ms"`
	Bodies []record
	Hash   string
	Config map[string]any
	Trace  []record
}

type record struct {
	Step     *int
	ID       string
	Position []float64
	Rotation []float64
	LinVel   []float64 `json:"linear_velocity"`
	AngVel   []float64 `json:"angular_velocity"`
	Sleeping *bool
}

// runArgs runs the runner in the test's process.
func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func decode(t *testing.T, out string) result {
	t.Helper()
	var r result
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON value:\n%s", out)
	}
	return r
}

func TestRunTinyScene(t *testing.T) {
	code, out, errOut := runArgs("testdata/tiny.json")
	if code != 0 || errOut != "" {
		t.Fatalf("exit status %d, stderr %q", code, errOut)
	}
	r := decode(t, out)
	if !strings.HasPrefix(r.Engine, "nebula-physics ") || r.Scene != "tiny" || r.Steps == nil || *r.Steps != 90 || r.Hz == nil || *r.Hz != 60 {
		t.Errorf("engine %q, scene %q, steps %v, hz %v; want nebula-physics ..., tiny, 90, 60", r.Engine, r.Scene, r.Steps, r.Hz)
	}
	if s := r.StepMS; s == nil || s.Mean == nil || s.P50 == nil || s.P95 == nil || s.Max == nil ||
		!(*s.P50 <= *s.P95 && *s.P95 <= *s.Max && *s.Mean <= *s.Max && *s.Mean > 0) {
		t.Errorf("step_ms %+v: want mean, p50 <= p95 <= max, mean > 0", r.StepMS)
	}
	if r.InitMS == nil || *r.InitMS <= 0 {
		t.Errorf("init_ms %v, want > 0", r.InitMS)
	}
	var ids []string
	for _, b := range r.Bodies {
		ids = append(ids, b.ID)
		if len(b.Position) != 3 || len(b.Rotation) != 4 || len(b.LinVel) != 3 || len(b.AngVel) != 3 || b.Sleeping == nil || b.Step != nil {
			t.Errorf("body record %+v: want position, rotation, linear_velocity, angular_velocity, sleeping, no step", b)
		}
	}
	if want := []string{"box", "ball", "pill"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("bodies %v, want the dynamic ones in scene order %v", ids, want)
	}
	// The box and the ball landed on the floor (y = 0) and stay above it.
	for _, b := range r.Bodies[:2] {
		if y := b.Position[1]; !(y > 0.4 && y < 0.6) {
			t.Errorf("%s at y = %v after 1.5 s, want resting on the floor at about 0.5", b.ID, y)
		}
	}
	if len(r.Hash) != len("sha256:")+64 || !strings.HasPrefix(r.Hash, "sha256:") {
		t.Errorf("hash %q, want sha256:<64 hex digits>", r.Hash)
	}
	if r.Config["substeps"] == nil || r.Config["threads"] != 1.0 {
		t.Errorf("config %v, want substeps and threads 1", r.Config)
	}
	if r.Trace != nil {
		t.Errorf("a trace without --trace: %v", r.Trace)
	}
}

// Two runs of one build give the same bodies and the same hash.
func TestRunTwiceSameHash(t *testing.T) {
	_, out1, _ := runArgs("testdata/tiny.json")
	_, out2, _ := runArgs("testdata/tiny.json")
	r1, r2 := decode(t, out1), decode(t, out2)
	if r1.Hash != r2.Hash || !reflect.DeepEqual(r1.Bodies, r2.Bodies) {
		t.Errorf("two runs differ:\n%s\n%s", out1, out2)
	}
}

// --trace gives the asked ids in the order asked at steps 0, K, 2K, ...;
// the last step (90) only when it is a multiple of K; and the traced state
// at the last step is the final body record.
func TestRunTrace(t *testing.T) {
	code, out, errOut := runArgs("testdata/tiny.json", "--trace", "pill,box", "--every", "30")
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, errOut)
	}
	r := decode(t, out)
	var got []string
	for _, e := range r.Trace {
		got = append(got, e.ID+"@"+itoa(*e.Step))
	}
	want := []string{"pill@0", "box@0", "pill@30", "box@30", "pill@60", "box@60", "pill@90", "box@90"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("trace %v, want %v", got, want)
	}
	last := r.Trace[len(r.Trace)-1]
	last.Step = nil
	if !reflect.DeepEqual(last, r.Bodies[0]) {
		t.Errorf("box traced at 90: %+v, final record %+v", last, r.Bodies[0])
	}
	// Step 0 is the file's state, rounded to float32.
	if p := r.Trace[1].Position; !reflect.DeepEqual(p, []float64{0, 2, 0}) {
		t.Errorf("box at step 0: %v, want [0 2 0]", p)
	}

	_, out, _ = runArgs("testdata/tiny.json", "--trace", "all", "--every", "40")
	got = got[:0]
	for _, e := range decode(t, out).Trace {
		got = append(got, e.ID+"@"+itoa(*e.Step))
	}
	want = []string{"box@0", "ball@0", "pill@0", "box@40", "ball@40", "pill@40", "box@80", "ball@80", "pill@80"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("--trace all --every 40: %v, want %v", got, want)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestRunRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tiny, err := os.ReadFile("testdata/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := write("bad.json", `{"format": "nebula-scene/1", "name": "b", "hz": 60, "steps": 1, "gravity": [0, 0, 0], "bodies": [{"id": "x", "kind": "dynamic"}]}`)
	fractional := write("ntsc.json", strings.Replace(string(tiny), `"hz": 60`, `"hz": 59.94`, 1))
	fast := write("fast.json", strings.Replace(string(tiny), `"hz": 60`, `"hz": 2000`, 1))
	tests := []struct {
		args []string
		want string
	}{
		{nil, "nebula-physics: no scene given; usage: SCENE.json [--trace ID[,ID...]|all] [--every K]"},
		{[]string{"testdata/tiny.json", "--fast"}, "nebula-physics: unknown option --fast; usage: SCENE.json [--trace ID[,ID...]|all] [--every K]"},
		{[]string{"testdata/tiny.json", "--every", "0"}, `nebula-physics: --every wants a whole number >= 1, got "0"`},
		{[]string{"testdata/tiny.json", "--trace", "floor"}, `nebula-physics: --trace: "floor" is a static body; only dynamic bodies are traced`},
		{[]string{"testdata/tiny.json", "--trace", "box,nobody"}, `nebula-physics: --trace: "nobody" is not a body of the scene "tiny"`},
		{[]string{filepath.Join(dir, "missing.json")}, "nebula-physics: open " + filepath.Join(dir, "missing.json") + ": no such file or directory"},
		{[]string{bad}, "nebula-physics: " + bad + `: bodies[0] (id "x"): shape is missing; it must be an object such as {"type": "box", "half_extents": [0.5, 0.5, 0.5]}`},
		{[]string{fractional}, "nebula-physics: " + fractional + ": hz is 59.94; nebula-physics steps at a whole number of ticks per second, from 1 to 1000"},
		{[]string{fast}, "nebula-physics: " + fast + ": hz is 2000; nebula-physics steps at a whole number of ticks per second, from 1 to 1000"},
	}
	for _, tt := range tests {
		code, out, errOut := runArgs(tt.args...)
		if code != 2 || out != "" || errOut != tt.want+"\n" {
			t.Errorf("run(%q) = %d, stdout %q, stderr %q; want 2, nothing, %q", tt.args, code, out, errOut, tt.want)
		}
	}
}

// As a program: the exit status and the streams, as compare.mjs sees them.
func TestProgram(t *testing.T) {
	bin := program.Path(t)
	out, err := exec.Command(bin, "testdata/tiny.json", "--trace", "ball", "--every", "45").Output()
	if err != nil {
		t.Fatalf("%v", err)
	}
	if r := decode(t, string(out)); len(r.Trace) != 3 || !strings.HasSuffix(string(out), "}\n") {
		t.Errorf("trace of %d entries, want 3; output ends %q", len(r.Trace), out[max(0, len(out)-10):])
	}
	cmd := exec.Command(bin, "testdata/tiny.json", "--bogus")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || len(out) != 0 || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("--bogus: %v, stdout %q, stderr %q; want exit status 2 and one line on stderr", err, out, stderr.String())
	}
	out, err = exec.Command(bin, "--help").Output()
	if err != nil || !strings.HasPrefix(string(out), "usage: nebula-physics SCENE.json") {
		t.Errorf("--help: %v, %q", err, out)
	}
}

// --cpuprofile writes a profile of the steps and changes nothing else.
func TestRunCPUProfile(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	code, out, errOut := runArgs("testdata/tiny.json", "--cpuprofile", prof)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, errOut)
	}
	_, plain, _ := runArgs("testdata/tiny.json")
	if decode(t, out).Hash != decode(t, plain).Hash {
		t.Error("profiling changed the hash")
	}
	if st, err := os.Stat(prof); err != nil || st.Size() == 0 {
		t.Errorf("profile: %v", err)
	}
	if code, _, errOut := runArgs("testdata/tiny.json", "--cpuprofile"); code != 2 || errOut != "nebula-physics: --cpuprofile needs a file name\n" {
		t.Errorf("--cpuprofile without a file: %d, %q", code, errOut)
	}
}
