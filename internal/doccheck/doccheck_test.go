package doccheck

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/internal/layout"
)

// TestExportedIdentifiersAreDocumented parses every non-test .go file of the
// engine's packages (a game's aside: doc.go) and lists, as file:line and identifier, each exported identifier
// the package documentation's rules (doc.go) say lacks a doc comment.
func TestExportedIdentifiersAreDocumented(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	lay, err := layout.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	fset, files := engineFiles(t, root, lay)
	for _, f := range files {
		for _, m := range undocumented(f) {
			missing = append(missing, position(fset, root, m.pos)+": "+m.name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d exported identifiers have no doc comment (rules: internal/doccheck/doc.go):\n\t%s",
			len(missing), strings.Join(missing, "\n\t"))
	}
}

// engineFiles parses every non-test .go file of the engine's packages under
// root (a game's aside, and testdata, vendor and hidden folders), leaving out
// package main (exempt: doc.go) and generated files (stringer's String
// methods: the type's doc covers them). It fails t when it finds none.
func engineFiles(t *testing.T, root string, lay *layout.Layout) (*token.FileSet, []*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	parsed := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" ||
				strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if rel, err := filepath.Rel(root, filepath.Dir(path)); err == nil && lay.Game(filepath.ToSlash(rel)) {
			return nil // a game's package (doc.go)
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		parsed++
		if f.Name.Name != "main" && !ast.IsGenerated(f) {
			files = append(files, f)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if parsed == 0 {
		t.Fatalf("no Go files found under %s", root)
	}
	return fset, files
}

// position is pos as file:line, the file relative to root.
func position(fset *token.FileSet, root string, pos token.Pos) string {
	p := fset.Position(pos)
	rel, _ := filepath.Rel(root, p.Filename)
	return rel + ":" + itoa(p.Line)
}

// TestUndocumented checks the rules on a small source.
func TestUndocumented(t *testing.T) {
	const src = `package p

// Doc is documented.
type Doc struct {
	// A is documented.
	A int
	B int // B is documented.
	C, D int // C and D share a comment.
	E int
	Doc2
	unexported int
	N struct {
		// X is documented.
		X int
		Y int
	}
}

type NoDoc int

type hidden struct{ Z int }

// M is documented.
func (Doc) M() {}

func (*Doc) N2() {}

func (hidden) Z2() {}

func F() {}

// Limits, documented as a group.
const (
	L1 = 1
	L2 = 2
)

const (
	// G1 is documented.
	G1 = 1
	G2 = 2 // G2 is documented.
	G3 = 3
)

var V = 1

// I is documented.
type I interface {
	// Yes is documented.
	Yes()
	No()
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range undocumented(f) {
		got = append(got, m.name)
	}
	want := []string{"Doc.E", "Doc.N", "Doc.N.Y", "NoDoc", "Doc.N2", "F", "G3", "V", "I.No"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("undocumented = %q, want %q", got, want)
	}
}

type finding struct {
	pos  token.Pos
	name string
}

// undocumented returns f's exported identifiers that lack documentation.
func undocumented(f *ast.File) []finding {
	var out []finding
	add := func(pos token.Pos, name string) { out = append(out, finding{pos, name}) }
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || hasText(d.Doc) {
				continue
			}
			if d.Recv == nil {
				add(d.Pos(), d.Name.Name)
				continue
			}
			if recv := recvName(d.Recv); ast.IsExported(recv) {
				add(d.Pos(), recv+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			groupDoc := d.Lparen.IsValid() && hasText(d.Doc)
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					if !hasText(s.Doc) && !hasText(s.Comment) && !hasText(d.Doc) {
						add(s.Pos(), s.Name.Name)
					}
					switch tt := s.Type.(type) {
					case *ast.StructType:
						out = append(out, fields(s.Name.Name, tt)...)
					case *ast.InterfaceType:
						for _, m := range tt.Methods.List {
							for _, n := range m.Names {
								if n.IsExported() && !hasText(m.Doc) && !hasText(m.Comment) {
									add(n.Pos(), s.Name.Name+"."+n.Name)
								}
							}
						}
					}
				case *ast.ValueSpec:
					if hasText(s.Doc) || hasText(s.Comment) || groupDoc || (!d.Lparen.IsValid() && hasText(d.Doc)) {
						continue
					}
					for _, n := range s.Names {
						if n.IsExported() {
							add(n.Pos(), n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// fields returns the exported fields of st (named owner) without a doc or
// line comment, looking into anonymous struct types of fields.
func fields(owner string, st *ast.StructType) []finding {
	var out []finding
	for _, fld := range st.Fields.List {
		if len(fld.Names) == 0 {
			continue // embedded
		}
		documented := hasText(fld.Doc) || hasText(fld.Comment)
		for _, n := range fld.Names {
			if !n.IsExported() {
				continue
			}
			if !documented {
				out = append(out, finding{n.Pos(), owner + "." + n.Name})
			}
			if inner, ok := fld.Type.(*ast.StructType); ok {
				out = append(out, fields(owner+"."+n.Name, inner)...)
			}
		}
	}
	return out
}

// recvName returns the name of a method's receiver type.
func recvName(fl *ast.FieldList) string {
	if fl == nil || len(fl.List) == 0 {
		return ""
	}
	t := fl.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func hasText(cg *ast.CommentGroup) bool { return cg != nil && strings.TrimSpace(cg.Text()) != "" }

// moduleRoot walks up from the working directory to the directory that
// holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("doccheck: no go.mod above the working directory")
		}
		dir = parent
	}
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
