package namecheck

import (
	"errors"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestExamplesCheckOutput checks that every Example function of the
// module runs under go test, or says why it cannot (see the package doc).
func TestExamplesCheckOutput(t *testing.T) {
	fset := token.NewFileSet()
	byDir := map[string][]*ast.File{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		byDir[filepath.Dir(path)] = append(byDir[filepath.Dir(path)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	examples, unchecked := 0, 0
	for _, files := range byDir {
		for _, p := range uncheckedExamples(fset, files) {
			if p.err == nil {
				unchecked++
			} else {
				rel, _ := filepath.Rel(root, p.pos.Filename)
				t.Errorf("%s:%d: %s: %v", rel, p.pos.Line, p.name, p.err)
			}
		}
		examples += len(doc.Examples(files...))
	}
	t.Logf("%d examples, %d of them say why their output is not checked", examples, unchecked)
	if examples == 0 {
		t.Error("no examples found: does the test still find the module's test files?")
	}
}

// noOutput matches the comment line of an example that says why its
// output is not checked.
var noOutput = regexp.MustCompile(`(?m)^\s*No output: *(\S.*)?$`)

// example is an Example function whose output is not checked, and err,
// when it does not say why either.
type example struct {
	name string
	pos  token.Position
	err  error
}

// uncheckedExamples returns the examples of one package's test files that
// have no output comment.
func uncheckedExamples(fset *token.FileSet, files []*ast.File) []example {
	var out []example
	for _, ex := range doc.Examples(files...) {
		if ex.Output != "" || ex.EmptyOutput {
			continue
		}
		e := example{name: "Example" + ex.Name, pos: fset.Position(ex.Code.Pos())}
		fd, file := exampleDecl(files, e.name)
		if fd != nil {
			e.pos = fset.Position(fd.Pos())
		}
		var reason string
		for _, text := range exampleComments(fd, file) {
			if m := noOutput.FindStringSubmatch(text); m != nil {
				reason = strings.TrimSpace(m[1])
				if reason == "" {
					e.err = errors.New(`"No output:" gives no reason`)
				}
				break
			}
		}
		if reason == "" && e.err == nil {
			e.err = errors.New(`no "// Output:" comment, so go test compiles it but never runs it: add the output, or a "// No output: <why>" comment`)
		}
		out = append(out, e)
	}
	return out
}

// exampleDecl returns the declaration of the function name, and its file.
func exampleDecl(files []*ast.File, name string) (*ast.FuncDecl, *ast.File) {
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == name {
				return fd, f
			}
		}
	}
	return nil, nil
}

// exampleComments returns the text of fd's doc comment and of the
// comments in its body.
func exampleComments(fd *ast.FuncDecl, f *ast.File) []string {
	if fd == nil {
		return nil
	}
	var texts []string
	if fd.Doc != nil {
		texts = append(texts, fd.Doc.Text())
	}
	for _, cg := range f.Comments {
		if fd.Body != nil && cg.Pos() > fd.Body.Lbrace && cg.End() < fd.Body.Rbrace {
			texts = append(texts, cg.Text())
		}
	}
	return texts
}

// The check passes examples with output, empty output, unordered output
// or a reason, and flags the others.
func TestUncheckedExamples(t *testing.T) {
	const src = `package p_test

import "fmt"

func ExampleA() {
	fmt.Println("a")
	// Output: a
}

func ExampleB() {
	// Output:
}

func ExampleC() {
	fmt.Println(1)
	fmt.Println(2)
	// Unordered output:
	// 2
	// 1
}

// ExampleD opens a window.
//
// No output: opens a window.
func ExampleD() {}

func ExampleE() {
	// No output: waits for a key press.
	fmt.Println("e")
}

func ExampleF() {
	fmt.Println("f")
}

// No output:
func ExampleG() {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range uncheckedExamples(fset, []*ast.File{f}) {
		s := e.name
		if e.err != nil {
			s += " flagged"
		}
		got = append(got, s)
	}
	want := []string{"ExampleD", "ExampleE", "ExampleF flagged", "ExampleG flagged"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
