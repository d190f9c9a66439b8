package namecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestDocNamesExist checks every Go name README.md and docs/*.md write in
// code against the module's packages and those it imports (the rules are
// in the package doc).
func TestDocNamesExist(t *testing.T) {
	l := list(t)
	r, err := newResolver(l)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	checked := 0
	for _, path := range docs {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		for _, c := range codeOf(string(text)) {
			for _, ch := range chainsOf(c.text) {
				line := c.line + strings.Count(c.text[:ch.at], "\n")
				ok, err := r.resolve(ch)
				if err != nil {
					t.Errorf("%s:%d: `%s`: %v", rel, line, ch, err)
				}
				if ok {
					checked++
				}
			}
		}
	}
	t.Logf("%d names checked in %d files", checked, len(docs))
	if checked < 100 {
		t.Errorf("only %d names checked in %d files: does the test still find the docs' code?", checked, len(docs))
	}
}

// code is a piece of a Markdown file in code: an inline code span, or a
// fenced code block marked go.
type code struct {
	text string
	line int // the line text starts on
}

// codeOf returns the code of a Markdown text: its inline code spans
// (outside fenced blocks; a span does not cross a blank line) and the
// contents of its fenced code blocks marked go.
func codeOf(text string) []code {
	var out []code
	lines := strings.Split(text, "\n")
	var para []string // the lines of the paragraph being read
	paraStart := 0
	flush := func() {
		out = append(out, spansOf(strings.Join(para, "\n"), paraStart)...)
		para = para[:0]
	}
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		fence := ""
		if strings.HasPrefix(trimmed, "```") {
			fence = "```"
		} else if strings.HasPrefix(trimmed, "~~~") {
			fence = "~~~"
		}
		switch {
		case fence != "":
			flush()
			lang := strings.Fields(strings.TrimLeft(trimmed, fence[:1]) + " ")
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), fence) {
				j++
			}
			if len(lang) > 0 && lang[0] == "go" {
				out = append(out, code{strings.Join(lines[i+1:min(j, len(lines))], "\n"), i + 2})
			}
			i = j
		case trimmed == "":
			flush()
		default:
			if len(para) == 0 {
				paraStart = i + 1
			}
			para = append(para, lines[i])
		}
	}
	flush()
	return out
}

// spansOf returns the inline code spans of a paragraph that starts on line:
// text between two runs of the same number of backticks.
func spansOf(para string, line int) []code {
	var out []code
	for i := 0; i < len(para); {
		if para[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(para) && para[i+n] == '`' {
			n++
		}
		start := i + n
		end := -1
		for j := start; j < len(para); {
			if para[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(para) && para[j+m] == '`' {
				m++
			}
			if m == n {
				end = j
				break
			}
			j += m
		}
		if end < 0 { // no closing run: the backticks are literal
			i = start
			continue
		}
		out = append(out, code{para[start:end], line + strings.Count(para[:start], "\n")})
		i = end + n
	}
	return out
}

// A chain is a selector chain in code: identifiers joined by dots.
type chain struct {
	elems []elem
	at    int    // its offset in the code
	dir   string // the path before its first element, with the slash ("engine/" in engine/replay.Open)
}

// elem is one identifier of a chain, and whether "()" follows it.
type elem struct {
	name   string
	called bool
}

func (c chain) String() string {
	var b strings.Builder
	b.WriteString(c.dir)
	for i, e := range c.elems {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e.name)
		if e.called {
			b.WriteString("()")
		}
	}
	return b.String()
}

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || '0' <= c && c <= '9' }

// chainsOf returns the selector chains of at least two elements in s, not
// followed by a slash; a chain after a slash keeps the path before it.
func chainsOf(s string) []chain {
	var out []chain
	for i := 0; i < len(s); i++ {
		if !isIdentStart(s[i]) || i > 0 && (isIdentChar(s[i-1]) || s[i-1] == '.') {
			continue
		}
		c := chain{at: i}
		if i > 0 && s[i-1] == '/' {
			start := i
			for start > 0 && (isIdentChar(s[start-1]) || strings.IndexByte("./-", s[start-1]) >= 0) {
				start--
			}
			c.dir, c.at = s[start:i], start
		}
		j := i
		for {
			k := j
			for k < len(s) && isIdentChar(s[k]) {
				k++
			}
			e := elem{name: s[j:k]}
			if k < len(s) && s[k] == '[' { // type arguments
				if end := strings.IndexByte(s[k:], ']'); end > 0 {
					k += end + 1
				}
			}
			if strings.HasPrefix(s[k:], "()") {
				e.called = true
				k += 2
			}
			c.elems = append(c.elems, e)
			j = k
			if j+1 < len(s) && s[j] == '.' && isIdentStart(s[j+1]) {
				j++
				continue
			}
			break
		}
		if len(c.elems) >= 2 && (j >= len(s) || s[j] != '/') {
			out = append(out, c)
		}
		i = j - 1
	}
	return out
}

// fileExts are the last elements of chains that are file names.
var fileExts = []string{"bin", "csv", "exe", "glb", "gltf", "go", "json", "md", "mod", "out", "png", "pprof", "prof", "sh", "sum", "svg", "test", "trace", "txt", "yaml", "yml"}

// resolver resolves chains against the module's packages and those they
// import.
type resolver struct {
	l        *listing
	imp      types.Importer
	ours     map[string][]*listedPackage // package name: the module's (main packages aside)
	deps     map[string][]*listedPackage // package name: the packages the module imports
	topLevel map[string][]types.Object   // the exported top-level names of the module's packages
	tests    map[string]map[string]bool  // import path: the functions of its _test.go files
}

func newResolver(l *listing) (*resolver, error) {
	r := &resolver{
		l:        l,
		imp:      l.exportImporter(token.NewFileSet()),
		ours:     map[string][]*listedPackage{},
		deps:     map[string][]*listedPackage{},
		topLevel: map[string][]types.Object{},
		tests:    map[string]map[string]bool{},
	}
	for _, p := range l.pkgs {
		switch {
		case p.Name == "main":
		case l.ours(p):
			r.ours[p.Name] = append(r.ours[p.Name], p)
			pkg, err := r.imp.Import(p.ImportPath)
			if err != nil {
				return nil, err
			}
			for _, name := range pkg.Scope().Names() {
				if obj := pkg.Scope().Lookup(name); obj.Exported() {
					r.topLevel[name] = append(r.topLevel[name], obj)
				}
			}
		case importable(p.ImportPath):
			r.deps[p.Name] = append(r.deps[p.Name], p)
		}
	}
	return r, nil
}

// importable reports whether a program may import path: it is neither an
// internal package nor one the standard library vendors.
func importable(path string) bool {
	return !strings.HasPrefix(path, "vendor/") && !slices.Contains(strings.Split(path, "/"), "internal")
}

// resolve reports whether the chain is checked (its first element is a
// package or a top-level name; see the package doc), and the error when
// it does not resolve.
func (r *resolver) resolve(c chain) (bool, error) {
	first := c.elems[0]
	if last := c.elems[len(c.elems)-1].name; slices.Contains(fileExts, last) {
		return false, nil
	}
	if c.dir != "" { // an import path, in full or from the module's root
		p := r.l.byPath[c.dir+first.name]
		if p == nil {
			p = r.l.byPath[r.l.module+"/"+c.dir+first.name]
		}
		if p == nil || p.Name == "main" {
			return false, nil // a file's or a program's path
		}
		return true, r.fromPackage(c, []*listedPackage{p})
	}
	if pkgs := r.ours[first.name]; len(pkgs) > 0 && !first.called {
		return true, r.fromPackage(c, pkgs)
	}
	if pkgs := r.deps[first.name]; len(pkgs) > 0 && !first.called {
		return true, r.fromPackage(c, pkgs)
	}
	if !unicode.IsUpper(rune(first.name[0])) {
		return false, nil
	}
	objs := r.topLevel[first.name]
	if len(objs) == 0 {
		return true, fmt.Errorf("no package of the module declares %s", first.name)
	}
	var errs []string
	for _, obj := range objs {
		err := r.walk(obj, c.elems)
		if err == nil {
			return true, nil
		}
		errs = append(errs, err.Error())
	}
	return true, fmt.Errorf("%s", strings.Join(errs, "; "))
}

// fromPackage resolves a chain whose first element names one of pkgs.
func (r *resolver) fromPackage(c chain, pkgs []*listedPackage) error {
	var errs []string
	for _, p := range pkgs {
		pkg, err := r.imp.Import(p.ImportPath)
		if err != nil {
			return err
		}
		name := c.elems[1].name
		obj := pkg.Scope().Lookup(name)
		if obj == nil {
			if r.testFunc(p, name) && len(c.elems) == 2 {
				return nil
			}
			errs = append(errs, fmt.Sprintf("package %s declares no %s", p.ImportPath, name))
			continue
		}
		if err := r.walk(obj, c.elems[1:]); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		return nil
	}
	return fmt.Errorf("%s", strings.ReplaceAll(strings.Join(errs, "; "), r.l.module+"/", ""))
}

// testFunc reports whether a _test.go file of p declares the function
// name (an Example, Test, Benchmark or Fuzz function), or the method
// "Type.Method" (of package p itself, as export_test.go files do).
func (r *resolver) testFunc(p *listedPackage, name string) bool {
	if !strings.Contains(name, ".") && !slices.ContainsFunc([]string{"Example", "Test", "Benchmark", "Fuzz"}, func(pre string) bool { return strings.HasPrefix(name, pre) }) {
		return false
	}
	funcs, ok := r.tests[p.ImportPath]
	if !ok {
		funcs = map[string]bool{}
		files, _ := filepath.Glob(filepath.Join(p.Dir, "*_test.go"))
		for _, path := range files {
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				continue // go vet and go test report it
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				switch {
				case !ok:
				case fd.Recv == nil:
					funcs[fd.Name.Name] = true
				case f.Name.Name == p.Name && len(fd.Recv.List) == 1:
					if recv := recvName(fd.Recv.List[0].Type); recv != "" {
						funcs[recv+"."+fd.Name.Name] = true
					}
				}
			}
		}
		r.tests[p.ImportPath] = funcs
	}
	return funcs[name]
}

// walk resolves elems[1:] from obj, which elems[0] names.
func (r *resolver) walk(obj types.Object, elems []elem) error {
	for i := 1; i < len(elems); i++ {
		prev, e := elems[i-1], elems[i]
		var typ types.Type
		switch o := obj.(type) {
		case *types.TypeName:
			typ = o.Type()
		case *types.Var, *types.Const:
			typ = o.Type()
		case *types.Func:
			res := o.Signature().Results()
			if !prev.called || res.Len() == 0 {
				return fmt.Errorf("%s is a function: write %s().%s for its result's %s", qualified(obj), prev.name, e.name, e.name)
			}
			typ = res.At(0).Type()
		default:
			return fmt.Errorf("%s has no fields or methods", qualified(obj))
		}
		next, _, _ := types.LookupFieldOrMethod(typ, true, obj.Pkg(), e.name)
		if next == nil && i == len(elems)-1 && r.testMethod(typ, e.name) {
			return nil
		}
		if next == nil {
			return fmt.Errorf("%s has no field or method %s", types.TypeString(typ, r.qualifier), e.name)
		}
		obj = next
	}
	return nil
}

// qualifier writes a package's path without the module's.
func (r *resolver) qualifier(p *types.Package) string {
	return strings.TrimPrefix(p.Path(), r.l.module+"/")
}

// testMethod reports whether a _test.go file of the module declares the
// method name of typ (or of what typ points to).
func (r *resolver) testMethod(typ types.Type, name string) bool {
	if ptr, ok := typ.(*types.Pointer); ok {
		typ = ptr.Elem()
	}
	named, ok := typ.(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return false
	}
	p := r.l.byPath[named.Obj().Pkg().Path()]
	return p != nil && r.l.ours(p) && r.testFunc(p, named.Obj().Name()+"."+name)
}

// recvName returns the type name of a method's receiver.
func recvName(x ast.Expr) string {
	for {
		switch e := x.(type) {
		case *ast.StarExpr:
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		case *ast.ParenExpr:
			x = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

// qualified writes obj's name with its package's.
func qualified(obj types.Object) string {
	if obj.Pkg() == nil {
		return obj.Name()
	}
	return obj.Pkg().Name() + "." + obj.Name()
}

// The extraction finds inline spans (not across a blank line, with double
// backticks too), Go blocks and not other blocks, and the chains in them,
// not paths, with calls and type arguments.
func TestCodeAndChains(t *testing.T) {
	const md = "# T\n" +
		"Use `engine.New` and `World.Spawn(x)`, or ``a `b` c.D``, `engine/replay.Open`.\n" +
		"An ` unmatched backtick\n" +
		"\n" +
		"spans `two\nlines.Here` and `cmd/main.go`, `Runner.Renderer().Register(id, m)`.\n" +
		"```sh\n" +
		"go test ./engine.x\n" +
		"```\n" +
		"```go\n" +
		"x := engine.NewResource[T](w).Get // `not a span`\n" +
		"```\n"
	var got []string
	for _, c := range codeOf(md) {
		for _, ch := range chainsOf(c.text) {
			got = append(got, fmt.Sprintf("%d:%s", c.line+strings.Count(c.text[:ch.at], "\n"), ch))
		}
	}
	want := []string{"2:engine.New", "2:World.Spawn", "2:c.D", "2:engine/replay.Open", "6:lines.Here", "6:cmd/main.go", "6:Runner.Renderer().Register", "11:engine.NewResource"}
	if !slices.Equal(got, want) {
		t.Errorf("chains %q, want %q", got, want)
	}
}
