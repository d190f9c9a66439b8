package scene

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args []string
		want Args
	}{
		{[]string{"s.json"}, Args{Scene: "s.json", Every: 1}},
		{[]string{"--trace", "a,b", "s.json", "--every", "60"}, Args{Scene: "s.json", Trace: []string{"a", "b"}, Every: 60}},
		{[]string{"s.json", "--trace", "all"}, Args{Scene: "s.json", TraceAll: true, Every: 1}},
		{[]string{"s.json", "--trace", ",a,,b,"}, Args{Scene: "s.json", Trace: []string{"a", "b"}, Every: 1}},
		{[]string{"s.json", "--trace", "all", "--trace", "c"}, Args{Scene: "s.json", Trace: []string{"c"}, Every: 1}},
	}
	for _, tt := range tests {
		got, err := ParseArgs(tt.args)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseArgs(%q) = %+v, %v; want %+v", tt.args, got, err, tt.want)
		}
	}
}

func TestParseArgsRefuses(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "scene: no scene given; " + Usage},
		{[]string{"--every", "2"}, "scene: no scene given; " + Usage},
		{[]string{"a.json", "b.json"}, "scene: more than one scene given (b.json); " + Usage},
		{[]string{"a.json", "--trace"}, "scene: --trace needs a value; " + Usage},
		{[]string{"a.json", "--every"}, "scene: --every needs a value; " + Usage},
		{[]string{"a.json", "--every", "0"}, `scene: --every wants a whole number >= 1, got "0"`},
		{[]string{"a.json", "--every", "1.5"}, `scene: --every wants a whole number >= 1, got "1.5"`},
		{[]string{"a.json", "--trace=a"}, "scene: unknown option --trace=a; " + Usage},
		{[]string{"a.json", "-v"}, "scene: unknown option -v; " + Usage},
	}
	for _, tt := range tests {
		_, err := ParseArgs(tt.args)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseArgs(%q): %v, want %s", tt.args, err, tt.want)
		}
	}
	for _, h := range []string{"-h", "--help"} {
		if _, err := ParseArgs([]string{"a.json", h}); !errors.Is(err, ErrHelp) {
			t.Errorf("ParseArgs(%s): %v, want ErrHelp", h, err)
		}
	}
}

// The trace holds steps 0, K, 2K, ... and the last step only when it is a
// multiple of K (as the anchors' common.mjs does).
func TestTraceAt(t *testing.T) {
	a := Args{Trace: []string{"x"}, Every: 60}
	var got []int
	for s := 0; s <= 150; s++ {
		if a.TraceAt(s) {
			got = append(got, s)
		}
	}
	if want := []int{0, 60, 120}; !reflect.DeepEqual(got, want) {
		t.Errorf("traced steps %v, want %v", got, want)
	}
	if (&Args{Every: 1}).TraceAt(0) || (&Args{Trace: []string{}, Every: 1}).TraceAt(0) {
		t.Error("TraceAt is true without a body to trace")
	}
}

func TestTraceBodies(t *testing.T) {
	sc, err := ReadFile("testdata/drop.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		a    Args
		want []int
		err  string
	}{
		{Args{}, nil, ""},
		{Args{TraceAll: true}, []int{1, 2}, ""},
		{Args{Trace: []string{"pill", "ball"}}, []int{2, 1}, ""},
		{Args{Trace: []string{"floor"}}, nil, `scene: --trace: "floor" is a static body; only dynamic bodies are traced`},
		{Args{Trace: []string{"ball", "nope"}}, nil, `scene: --trace: "nope" is not a body of the scene "drop"`},
	} {
		got, err := sc.TraceBodies(tt.a)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("TraceBodies(%+v): %v, want %s", tt.a, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("TraceBodies(%+v) = %v, %v; want %v", tt.a, got, err, tt.want)
		}
	}
}
