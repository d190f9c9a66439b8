package gfx

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// Stats.GLCalls is exact only if the per-frame code makes every GL call
// through the counting glCounter: frame.go must call no gl function
// directly (gl constants are fine).
func TestFrameCallsGLOnlyThroughCounter(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "frame.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	methods := 0
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Name.Name == "Frame" || n.Name.Name == "DrawPerInstance" {
				methods++
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "gl" {
					t.Errorf("%s: frame.go calls gl.%s directly; call it through glCounter so it is counted", fset.Position(n.Pos()), sel.Sel.Name)
				}
			}
		}
		return true
	})
	if methods != 2 {
		t.Errorf("frame.go declares %d of Frame and DrawPerInstance, want both there", methods)
	}
}
