package scene

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testdata/numbers.txt holds float64 bit patterns (float32 values widened,
// and some float64s) with JSON.stringify's text for each, made by node
// from testdata/gen_numbers.mjs: AppendNumber writes the same text.
func TestAppendNumberAsJavaScript(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "numbers.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		bits, want, ok := strings.Cut(sc.Text(), " ")
		u, err := strconv.ParseUint(bits, 16, 64)
		if !ok || err != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		x := math.Float64frombits(u)
		if got := string(AppendNumber(nil, x)); got != want {
			t.Errorf("AppendNumber(%v) = %s, want %s", x, got, want)
		}
		n++
	}
	if n < 2000 {
		t.Errorf("only %d numbers checked", n)
	}
}

func TestAppendNumberSpecial(t *testing.T) {
	tests := []struct {
		x    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {60, "60"}, {-1.5, "-1.5"}, {1e21, "1e+21"},
		{1e-7, "1e-7"}, {1e-6, "0.000001"}, {123e18, "123000000000000000000"},
		{math.NaN(), "null"}, {math.Inf(-1), "null"},
	}
	for _, tt := range tests {
		if got := string(AppendNumber([]byte("x"), tt.x)); got != "x"+tt.want {
			t.Errorf("AppendNumber(%v) = %s, want %s", tt.x, got[1:], tt.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	ms := func(xs ...float64) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x * float64(time.Millisecond))
		}
		return out
	}
	tests := []struct {
		samples []time.Duration
		want    StepStats
	}{
		{nil, StepStats{}},
		{ms(3), StepStats{3, 3, 3, 3}},
		{ms(4, 1, 3, 2), StepStats{2.5, 2, 4, 4}}, // p50: 2nd of 4, p95: ⌈3.8⌉ = 4th
		// 20 samples: p50 the 10th, p95 the 19th.
		{ms(20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1), StepStats{10.5, 10, 19, 20}},
		// 21 samples: p50 the 11th (⌈10.5⌉), p95 the 20th (⌈19.95⌉).
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21), StepStats{11, 11, 20, 21}},
		{[]time.Duration{1, 2, 4}, StepStats{2e-6, 2e-6, 4e-6, 4e-6}}, // mean 2.33 ns, to the nearest ns
		{[]time.Duration{1, 2}, StepStats{2e-6, 1e-6, 2e-6, 2e-6}},
	}
	for _, tt := range tests {
		if got := Summarize(tt.samples); got != tt.want {
			t.Errorf("Summarize(%v) = %+v, want %+v", tt.samples, got, tt.want)
		}
	}
}

func TestHash(t *testing.T) {
	// sha256 of the empty string.
	if got, want := Hash(nil), "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; got != want {
		t.Errorf("Hash(nil) = %s, want %s", got, want)
	}
}

func TestWriteTo(t *testing.T) {
	r := Result{
		Engine: "nebula-physics test", Scene: "s", Steps: 2, Hz: 60,
		StepMS: StepStats{0.5, 0.25, 1, 1.125}, InitMS: 3,
		Bodies: []Record{{ID: "a", Position: [3]float32{0, 1.5, -0.1}, Rotation: [4]float32{0, 0, 0, 1},
			LinearVelocity: [3]float32{0, -9.81, 0}, Sleeping: true}},
		Hash:   "sha256:00",
		Config: []Setting{{"substeps", 4}, {"solver", "soft step"}, {"sleep", true}, {"hertz", float32(0.02)}, {"list", []int{1, 2}}},
		Trace:  []TraceEntry{{Step: 0, Record: Record{ID: "a\"b"}}},
	}
	var b bytes.Buffer
	n, err := r.WriteTo(&b)
	if err != nil || n != int64(b.Len()) {
		t.Fatalf("WriteTo = %d, %v", n, err)
	}
	want := `{"engine":"nebula-physics test","scene":"s","steps":2,"hz":60,"step_ms":{"mean":0.5,"p50":0.25,"p95":1,"max":1.125},"init_ms":3,` +
		`"bodies":[{"id":"a","position":[0,1.5,-0.10000000149011612],"rotation":[0,0,0,1],"linear_velocity":[0,-9.8100004196167,0],"angular_velocity":[0,0,0],"sleeping":true}],` +
		`"hash":"sha256:00","config":{"substeps":4,"solver":"soft step","sleep":true,"hertz":0.02,"list":[1,2]},` +
		`"trace":[{"step":0,"id":"a\"b","position":[0,0,0],"rotation":[0,0,0,0],"linear_velocity":[0,0,0],"angular_velocity":[0,0,0],"sleeping":false}]}` + "\n"
	if b.String() != want {
		t.Errorf("WriteTo wrote\n%s\nwant\n%s", b.String(), want)
	}
	if !json.Valid(b.Bytes()) {
		t.Error("not valid JSON")
	}
	// Optional parts left out, load_ms written when known.
	r2 := Result{Engine: "e", Scene: "s", LoadMS: 2.5, HasLoadMS: true}
	want = `{"engine":"e","scene":"s","steps":0,"hz":0,"step_ms":{"mean":0,"p50":0,"p95":0,"max":0},"init_ms":0,"load_ms":2.5,"bodies":[]}` + "\n"
	if got := string(r2.AppendJSON(nil)); got != want {
		t.Errorf("AppendJSON wrote\n%s\nwant\n%s", got, want)
	}
}

// A result an anchor printed (Rapier, which computes in float32, on
// testdata/drop.json with --trace ball,pill --every 50), read back into
// Records and written again, gives the same bytes for its bodies and its
// trace: Nebula's results diff cleanly against the anchors'.
func TestRecordsAsTheAnchorsPrintThem(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "drop.rapier.json"))
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		Step     *int
		ID       string
		Position []float64
		Rotation []float64
		LinVel   []float64 `json:"linear_velocity"`
		AngVel   []float64 `json:"angular_velocity"`
		Sleeping bool
	}
	var in struct {
		Bodies, Trace []rec
		Hash          string
	}
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	f32 := func(dst []float32, src []float64) {
		for i := range dst {
			dst[i] = float32(src[i])
			if float64(dst[i]) != src[i] {
				t.Fatalf("%v is not a float32", src[i])
			}
		}
	}
	record := func(r rec) Record {
		out := Record{ID: r.ID, Sleeping: r.Sleeping}
		f32(out.Position[:], r.Position)
		f32(out.Rotation[:], r.Rotation)
		f32(out.LinearVelocity[:], r.LinVel)
		f32(out.AngularVelocity[:], r.AngVel)
		return out
	}
	res := Result{Hash: in.Hash}
	for _, r := range in.Bodies {
		res.Bodies = append(res.Bodies, record(r))
	}
	for _, r := range in.Trace {
		res.Trace = append(res.Trace, TraceEntry{Step: *r.Step, Record: record(r)})
	}
	if len(res.Bodies) != 2 || len(res.Trace) != 6 {
		t.Fatalf("%d bodies and %d trace entries, want 2 and 6", len(res.Bodies), len(res.Trace))
	}
	out := string(res.AppendJSON(nil))
	section := func(s, from, to string) string {
		i := strings.Index(s, from)
		j := strings.Index(s[i:], to)
		if i < 0 || j < 0 {
			t.Fatalf("no %s...%s in %s", from, to, s)
		}
		return s[i : i+j]
	}
	for _, part := range [][2]string{{`"bodies":`, `,"hash"`}, {`"trace":`, "}\n"}} {
		if got, want := section(out, part[0], part[1]), section(string(data), part[0], part[1]); got != want {
			t.Errorf("written:\n%s\nthe anchor's:\n%s", got, want)
		}
	}
}

// WriteTo writes a long result in pieces, the same bytes as AppendJSON,
// and reports a write error.
func TestWriteToInPieces(t *testing.T) {
	r := Result{Engine: "e", Scene: "s"}
	for i := range 5000 {
		r.Trace = append(r.Trace, TraceEntry{Step: i, Record: Record{ID: "body", Position: [3]float32{float32(i), 0.1, -1e-9}}})
	}
	var w countingWriter
	n, err := r.WriteTo(&w)
	want := r.AppendJSON(nil)
	if err != nil || n != int64(len(want)) || !bytes.Equal(w.buf.Bytes(), want) {
		t.Errorf("WriteTo = %d, %v; wrote %d bytes in %d writes, want the %d bytes of AppendJSON", n, err, w.buf.Len(), w.writes, len(want))
	}
	if w.writes < 2 {
		t.Errorf("%d bytes in %d write(s), want pieces", n, w.writes)
	}
	if _, err := r.WriteTo(failingWriter{}); err == nil || err.Error() != "disk full" {
		t.Errorf("WriteTo a failing writer: %v, want disk full", err)
	}
}

type countingWriter struct {
	buf    bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) { w.writes++; return w.buf.Write(p) }

type failingWriter struct{}

func (failingWriter) Write(p []byte) (int, error) { return 0, errors.New("disk full") }

func TestAppendStringAsJavaScript(t *testing.T) {
	// JSON.stringify("a\"b\\c\n\u0001<é>\u2028")
	got := string(appendString(nil, "a\"b\\c\n\x01<é>\u2028"))
	if want := `"a\"b\\c\n\u0001<é>` + "\u2028" + `"`; got != want {
		t.Errorf("appendString = %s, want %s", got, want)
	}
}
