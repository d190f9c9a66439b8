package gfx

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// Stats.GLCalls is exact only if the per-frame code makes every GL call
// through the counting glCounter: frame.go, and the per-instance baseline
// it is measured against, must call no gl function directly (gl constants
// are fine).
func TestFrameCallsGLOnlyThroughCounter(t *testing.T) {
	// The whole of frame.go; of the baseline's file, its Draw (the
	// file's glCounter methods are the counted calls themselves).
	for _, c := range []struct{ file, method string }{{"frame.go", ""}, {"perinstance_test.go", "Draw"}} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, c.file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var checked ast.Node = f
		if c.method != "" {
			checked = nil
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Name.Name == c.method {
					checked = fn
				}
			}
			if checked == nil {
				t.Fatalf("%s declares no method %s", c.file, c.method)
			}
		}
		ast.Inspect(checked, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "gl" {
						t.Errorf("%s: calls gl.%s directly; call it through glCounter so it is counted", fset.Position(call.Pos()), sel.Sel.Name)
					}
				}
			}
			return true
		})
	}
}
