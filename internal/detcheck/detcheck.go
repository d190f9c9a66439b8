// Package detcheck finds, in a package's Go source, the floating-point
// operations whose result may differ from one build to another, for the
// tests of packages whose fixed-step results must be the same bits on every
// machine (engine/physics).
//
// Go may fuse a product with an addition into one multiply-add instruction
// that rounds once instead of twice: it does on arm64 and on amd64 built
// with GOAMD64=v3, across statements and inlined calls. Only an explicit
// conversion is sure to round the product first. The rule checked is the
// simple one, with no exceptions to argue about:
//
//   - every floating-point (or complex) product, a*b or x *= b, is the
//     direct operand of a conversion to its own type: float32(a*b) for a
//     float32 product, float64(a*b) for a float64 one (parentheses
//     around it are fine). A constant product (1.0 / 3 * 2) is folded by
//     the compiler and is fine.
//   - no function of package math is used but those whose result is
//     exact, or correctly rounded, on every platform (Sqrt, Abs, Floor,
//     Ceil, Trunc, Copysign, Max, Min, the bits conversions, Inf, NaN,
//     IsNaN, IsInf, ...): math.Sin, Exp, Pow, FMA and the rest are refused.
//     Nothing of math/cmplx is allowed.
//   - no function or method of mathgl (mgl32, mgl64) is called: their
//     arithmetic is fused on those builds too. Its types, composite
//     literals, indexing, the accessors X, Y, Z, W and Elem and the
//     constants QuatIdent and Ident2..4 are fine.
//   - no range over a map (its order changes from run to run) and no go
//     statement (goroutines finish in any order).
//
// Test files are not checked, nor files built only for another
// architecture, nor arithmetic on values of a type parameter (write the
// fixed-step math on concrete float types). A typical test:
//
//	func TestNoFusedArithmetic(t *testing.T) {
//		findings, err := detcheck.Dir(".")
//		if err != nil {
//			t.Fatal(err)
//		}
//		for _, f := range findings {
//			t.Error(f)
//		}
//	}
package detcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Finding is one operation the rule refuses.
type Finding struct {
	Pos  token.Position // where it is
	Expr string         // the expression as written
	Why  string         // what is wrong and how to write it
}

// String returns "file:line:column: expr: why", the file's base name only.
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", filepath.Base(f.Pos.Filename), f.Pos.Line, f.Pos.Column, f.Expr, f.Why)
}

// exactMath lists the functions of package math whose result is exact, or
// correctly rounded, on every platform.
var exactMath = map[string]bool{
	"Sqrt": true, "Abs": true, "Copysign": true, "Signbit": true,
	"Floor": true, "Ceil": true, "Trunc": true, "Round": true, "RoundToEven": true,
	"Max": true, "Min": true, "Inf": true, "NaN": true, "IsNaN": true, "IsInf": true,
	"Float32bits": true, "Float32frombits": true, "Float64bits": true, "Float64frombits": true,
	"Nextafter": true, "Nextafter32": true, "Frexp": true, "Ldexp": true, "Modf": true,
}

// mathglPrefix is the import path of mathgl's packages.
const mathglPrefix = "github.com/go-gl/mathgl/"

// mathglAccessors lists the functions and methods of mathgl that do no
// arithmetic: they read elements or return constants.
var mathglAccessors = map[string]bool{
	"X": true, "Y": true, "Z": true, "W": true, "Elem": true,
	"QuatIdent": true, "Ident2": true, "Ident3": true, "Ident4": true,
}

// listed is what go list says of a package.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	ImportMap  map[string]string
	Export     string
	Error      *struct{ Err string }
}

// Dir checks the non-test Go files of the package in dir, those that build
// for the host (go list chooses them). It type-checks them, importing
// their dependencies from the export data go list -export builds (the go
// command must be on PATH), and returns the findings in source order.
func Dir(dir string) ([]Finding, error) {
	cmd := exec.Command("go", "list", "-deps", "-export", "-json=ImportPath,Dir,GoFiles,ImportMap,Export,Error", ".")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("detcheck: go list in %s: %w\n%s", dir, err, stderr.Bytes())
	}
	byPath := map[string]*listed{}
	var last *listed // -deps lists the package itself last
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		p := new(listed)
		if err := dec.Decode(p); err != nil {
			return nil, fmt.Errorf("detcheck: go list's output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("detcheck: go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		byPath[p.ImportPath] = p
		last = p
	}
	if last == nil {
		return nil, fmt.Errorf("detcheck: go list found no package in %s", dir)
	}

	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range last.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(last.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("detcheck: %w", err)
		}
		files = append(files, f)
	}
	exp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		p := byPath[path]
		if p == nil || p.Export == "" {
			return nil, fmt.Errorf("detcheck: no export data for %q", path)
		}
		return os.Open(p.Export)
	})
	imp := importerFunc(func(path string) (*types.Package, error) {
		if m, ok := last.ImportMap[path]; ok {
			path = m
		}
		return exp.Import(path)
	})
	return Files(fset, last.ImportPath, files, imp)
}

// importerFunc is a types.Importer made of a function.
type importerFunc func(path string) (*types.Package, error)

// Import implements types.Importer.
func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// Files checks the parsed files of one package, whose import path is path,
// resolving its imports with imp. A package that does not type-check is an
// error. The findings come in source order.
func Files(fset *token.FileSet, path string, files []*ast.File, imp types.Importer) ([]Finding, error) {
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{},
		Uses:  map[*ast.Ident]types.Object{},
	}
	var errs []error
	conf := types.Config{Importer: imp, Error: func(err error) { errs = append(errs, err) }}
	conf.Check(path, fset, files, info)
	if len(errs) > 0 {
		if len(errs) > 10 {
			errs = append(errs[:10], fmt.Errorf("and %d more", len(errs)-10))
		}
		return nil, fmt.Errorf("detcheck: %s does not type-check: %w", path, errors.Join(errs...))
	}

	c := &checker{fset: fset, info: info, converted: map[ast.Expr]bool{}}
	for _, f := range files {
		ast.Inspect(f, c.visit)
	}
	slices.SortStableFunc(c.findings, func(a, b Finding) int {
		if a.Pos.Filename != b.Pos.Filename {
			return strings.Compare(a.Pos.Filename, b.Pos.Filename)
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Column - b.Pos.Column
	})
	return c.findings, nil
}

// checker walks the files of one type-checked package.
type checker struct {
	fset *token.FileSet
	info *types.Info
	// converted holds the products that are the operand of a conversion
	// to their own type; ast.Inspect meets the conversion first.
	converted map[ast.Expr]bool
	findings  []Finding
}

// visit is the ast.Inspect callback.
func (c *checker) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.CallExpr:
		c.call(n)
	case *ast.BinaryExpr:
		if n.Op == token.MUL && c.isFloatProduct(n) && !c.converted[n] {
			c.report(n, fmt.Sprintf("a %s product outside a conversion: write %s(...) around it so it is rounded before it is used (Go may fuse it with an addition)",
				c.info.TypeOf(n), typeName(c.info.TypeOf(n))))
		}
	case *ast.AssignStmt:
		if n.Tok == token.MUL_ASSIGN && len(n.Lhs) == 1 && isFloat(c.info.TypeOf(n.Lhs[0])) {
			c.report(n, fmt.Sprintf("a %s product outside a conversion: write x = %s(x * y)",
				c.info.TypeOf(n.Lhs[0]), typeName(c.info.TypeOf(n.Lhs[0]))))
		}
	case *ast.SelectorExpr:
		c.selector(n)
	case *ast.RangeStmt:
		if t := c.info.TypeOf(n.X); t != nil {
			if _, ok := t.Underlying().(*types.Map); ok {
				c.report(n.X, "a range over a map: its order differs from run to run; keep the keys in a slice, or sort them")
			}
		}
	case *ast.GoStmt:
		c.report(n.Call, "a goroutine: what it does lands in any order")
	}
	return true
}

// call marks the product a conversion rounds.
func (c *checker) call(n *ast.CallExpr) {
	tv, ok := c.info.Types[n.Fun]
	if !ok || !tv.IsType() || len(n.Args) != 1 || !isFloat(tv.Type) {
		return
	}
	arg := ast.Unparen(n.Args[0])
	if b, ok := arg.(*ast.BinaryExpr); ok && b.Op == token.MUL && c.isFloatProduct(b) &&
		sameKind(tv.Type, c.info.TypeOf(b)) {
		c.converted[b] = true
	}
}

// selector reports a use of a refused function of math, math/cmplx or
// mathgl: a call, or the function taken as a value.
func (c *checker) selector(n *ast.SelectorExpr) {
	obj := c.info.Uses[n.Sel]
	fn, ok := obj.(*types.Func)
	if !ok || fn.Pkg() == nil {
		return
	}
	switch path := fn.Pkg().Path(); {
	case path == "math":
		if !exactMath[fn.Name()] {
			c.report(n, "not exact on every platform (its result may differ by architecture or build): use what is exact (Sqrt, Abs, Floor, ...) or code of your own with rounded products")
		}
	case path == "math/cmplx":
		c.report(n, "math/cmplx's results may differ by architecture or build")
	case strings.HasPrefix(path, mathglPrefix) && !mathglAccessors[fn.Name()]:
		c.report(n, "mathgl's arithmetic is not rounded product by product (Go may fuse it): use your own with float32(a*b)")
	}
}

// isFloatProduct reports whether n is a product of floating-point (or
// complex) type that is not a constant.
func (c *checker) isFloatProduct(n *ast.BinaryExpr) bool {
	tv, ok := c.info.Types[n]
	return ok && tv.Value == nil && isFloat(tv.Type)
}

// report records a finding at n.
func (c *checker) report(n ast.Node, why string) {
	var b strings.Builder
	printer.Fprint(&b, c.fset, n)
	c.findings = append(c.findings, Finding{Pos: c.fset.Position(n.Pos()), Expr: b.String(), Why: why})
}

// isFloat reports whether t's underlying type is a float or complex type
// (untyped ones included).
func isFloat(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsFloat|types.IsComplex) != 0
}

// sameKind reports whether the conversion to t rounds a product of type p
// to p's own precision: float32 and float32, float64 and float64 (named
// types aside). An untyped product takes the conversion's type.
func sameKind(t, p types.Type) bool {
	tb, _ := t.Underlying().(*types.Basic)
	pb, _ := p.Underlying().(*types.Basic)
	if tb == nil || pb == nil {
		return false
	}
	return pb.Info()&types.IsUntyped != 0 || tb.Kind() == pb.Kind()
}

// typeName is how the fix spells t's conversion.
func typeName(t types.Type) string {
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return types.Default(t).String()
}
