package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/internal/layout"
)

// TestDocCommentsStartWithName checks, in the packages
// TestExportedIdentifiersAreDocumented checks, that the doc comment of an
// exported function, method or type (one declared alone, not in a
// parenthesised group) starts with its name, as Go's doc comments do
// (go.dev/doc/comment): "Queue turns ...", or "A Queue ...". A doc
// comment that names something else was left behind by a rename.
func TestDocCommentsStartWithName(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	lay, err := layout.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	var wrong []string
	fset, files := engineFiles(t, root, lay)
	for _, f := range files {
		for _, m := range misnamed(f) {
			wrong = append(wrong, position(fset, root, m.pos)+": "+m.name)
		}
	}
	if len(wrong) > 0 {
		t.Errorf("%d doc comments do not start with the name they document:\n\t%s",
			len(wrong), strings.Join(wrong, "\n\t"))
	}
}

// TestMisnamed checks the rule on a small source.
func TestMisnamed(t *testing.T) {
	const src = `package p

// Queue holds events.
type Queue struct{}

// Input turns events into samples.
type Turner struct{}

// A Sample is one tick's input.
type Sample struct{}

// Push adds an event.
func (q *Queue) Push() {}

// Pop's doc names another method.
func (q *Queue) Take() {}

// New returns a Queue.
func New() *Queue { return nil }

// Deprecated: use New.
func Make() *Queue { return nil }

// Groups are not checked.
type (
	G1 int
	G2 int
)

// hidden is not exported.
func Hidden2() {}

// unexported names are not checked.
func unexported() {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range misnamed(f) {
		got = append(got, m.name)
	}
	want := []string{"Turner", "Queue.Take", "Hidden2"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("misnamed = %q, want %q", got, want)
	}
}

// misnamed returns f's exported functions, methods and lone types whose
// doc comment does not start with their name.
func misnamed(f *ast.File) []finding {
	var out []finding
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || !hasText(d.Doc) || startsWithName(d.Doc.Text(), d.Name.Name) {
				continue
			}
			name := d.Name.Name
			if d.Recv != nil {
				recv := recvName(d.Recv)
				if !ast.IsExported(recv) {
					continue
				}
				name = recv + "." + name
			}
			out = append(out, finding{d.Pos(), name})
		case *ast.GenDecl:
			if d.Tok != token.TYPE || d.Lparen.IsValid() || len(d.Specs) != 1 || !hasText(d.Doc) {
				continue
			}
			s := d.Specs[0].(*ast.TypeSpec)
			if s.Name.IsExported() && !startsWithName(d.Doc.Text(), s.Name.Name) {
				out = append(out, finding{s.Pos(), s.Name.Name})
			}
		}
	}
	return out
}

// startsWithName reports whether doc starts with name as a word, after an
// optional article, or is a deprecation notice.
func startsWithName(doc, name string) bool {
	if strings.HasPrefix(doc, "Deprecated:") {
		return true
	}
	for _, article := range []string{"A ", "An ", "The "} {
		doc = strings.TrimPrefix(doc, article)
	}
	rest, ok := strings.CutPrefix(doc, name)
	if !ok {
		return false
	}
	return rest == "" || !isIdentChar(rest[0])
}

// isIdentChar reports whether c can continue a Go identifier (ASCII).
func isIdentChar(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
