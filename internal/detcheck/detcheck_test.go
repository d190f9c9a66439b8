package detcheck

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// check runs Files on one file made of src's body, which may use math.
func check(t *testing.T, body string) []Finding {
	t.Helper()
	src := "package p\n\nimport \"math\"\n\nvar _ = math.Pi\n\n" + body
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	findings, err := Files(fset, "p", []*ast.File{f}, importer.Default())
	if err != nil {
		t.Fatal(err)
	}
	return findings
}

func TestFiles(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string // each finding's "line: expr", in order
	}{
		{"fusable", "func f(a, b, c float32) float32 { return a*b + c }",
			[]string{"7: a * b"}},
		{"rounded", "func f(a, b, c float32) float32 { return float32(a*b) + c }", nil},
		{"parenthesised", "func f(a, b, c float32) float32 { return float32((a * b)) + c }", nil},
		{"float64", "func f(a, b, c float64) float64 { return float64(a*b) + c }", nil},
		{"float64 unrounded", "func f(a, b, c float64) float64 { return a*b - c }",
			[]string{"7: a * b"}},
		{"wrong precision", "func f(a, b float32) float64 { return float64(a * b) }",
			[]string{"7: a * b"}},
		{"alone too", "func f(a, b float32) float32 { x := a * b; return x }",
			[]string{"7: a * b"}},
		{"across statements", "func f(a, b, c float32) float32 {\n\tx := a * b\n\treturn x + c\n}",
			[]string{"8: a * b"}},
		{"chained", "func f(a, b, c float32) float32 { return float32(a * b * c) }",
			[]string{"7: a * b"}},
		{"chained rounded", "func f(a, b, c float32) float32 { return float32(float32(a*b) * c) }", nil},
		{"inside a conversion's sum", "func f(a, b, c float32) float32 { return float32(a*b + c) }",
			[]string{"7: a * b"}},
		{"by a constant", "func f(a float32) float32 { return a * 0.5 }",
			[]string{"7: a * 0.5"}},
		{"constant", "const k = 2.0 * 3\n\nfunc f(a float32) float32 { return a + k*k + 2*1.5 }", nil},
		{"integers", "func f(a, b, c int) int { return a*b + c }", nil},
		{"named float", "type meters float32\n\nfunc f(a, b meters) meters { return meters(a*b) + a*b }",
			[]string{"9: a * b"}},
		{"fields", "type v struct{ x, y float32 }\n\nfunc f(a v) float32 { return a.x*a.y + 1 }",
			[]string{"9: a.x * a.y"}},
		{"multiply-assign", "func f(a, b float32) float32 { a *= b; return a }",
			[]string{"7: a *= b"}},
		{"complex", "func f(a, b complex64) complex64 { return a*b + 1 }",
			[]string{"7: a * b"}},
		{"exact math", "func f(a float64) float64 { return math.Sqrt(math.Abs(a)) + math.Floor(a) + math.Max(a, 1) }", nil},
		{"bits", "func f(a float32) uint32 { return math.Float32bits(a) }", nil},
		{"trigonometry", "func f(a float64) float64 { return math.Sin(a) + math.Atan2(a, 1) }",
			[]string{"7: math.Sin", "7: math.Atan2"}},
		{"fma", "func f(a, b, c float64) float64 { return math.FMA(a, b, c) }",
			[]string{"7: math.FMA"}},
		{"math as a value", "var g = math.Exp", []string{"7: math.Exp"}},
		{"map range", "func f(m map[int]float32) (s float32) {\n\tfor _, v := range m {\n\t\ts += v\n\t}\n\treturn s\n}",
			[]string{"8: m"}},
		{"map lookup", "func f(m map[int]float32) float32 { return m[1] }", nil},
		{"slice range", "func f(m []float32) (s float32) {\n\tfor _, v := range m {\n\t\ts += v\n\t}\n\treturn s\n}", nil},
		{"goroutine", "func f() { go f() }", []string{"7: f()"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range check(t, tt.body) {
				got = append(got, strings.Join([]string{strconv.Itoa(f.Pos.Line), f.Expr}, ": "))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A finding names the file, line and column, the expression and the fix.
func TestFindingString(t *testing.T) {
	fs := check(t, "func f(a, b, c float32) float32 { return a*b + c }")
	if len(fs) != 1 {
		t.Fatalf("findings %v, want one", fs)
	}
	const want = "p.go:7:42: a * b: a float32 product outside a conversion: write float32(...) around it"
	if got := fs[0].String(); !strings.HasPrefix(got, want) {
		t.Errorf("String() = %q, want it to start with %q", got, want)
	}
}

// A package that does not type-check is an error, not a pass.
func TestFilesTypeError(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", "package p\n\nfunc f() float32 { return undefined * 2 }\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Files(fset, "p", []*ast.File{f}, importer.Default())
	if err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Errorf("error %v, want one naming the undefined name", err)
	}
}

// Dir finds the package's files and imports through go list: its testdata
// package has one fused product and one call of mathgl.
func TestDir(t *testing.T) {
	fs, err := Dir("testdata/fused")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.String())
	}
	want := []string{
		"fused.go:9:9: a.X() * b",
		"fused.go:14:9: a.Dot",
	}
	if len(got) != len(want) {
		t.Fatalf("findings:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]+": ") {
			t.Errorf("finding %d = %q, want it to start with %q", i, got[i], want[i])
		}
	}
}
