package namecheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// root is the module's root, two folders up from this package.
const root = "../.."

// listedPackage is what go list says of a package.
type listedPackage struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	Imports    []string
	ImportMap  map[string]string
	Export     string // the export data file
	Standard   bool
	Module     *struct{ Path string }
	Error      *struct{ Err string }
}

// listing is the module's packages and all they import, dependencies
// first, as go list -deps gives them.
type listing struct {
	module string
	pkgs   []*listedPackage
	byPath map[string]*listedPackage
}

// ours reports whether p is a package of the module.
func (l *listing) ours(p *listedPackage) bool {
	return p.Module != nil && p.Module.Path == l.module
}

// listOnce runs go list once per test binary: the export data it asks for
// builds every package (cgo ones included), which the go command caches.
var listOnce = sync.OnceValues(func() (*listing, error) {
	cmd := exec.Command("go", "list", "-deps", "-export",
		"-json=ImportPath,Name,Dir,GoFiles,CgoFiles,Imports,ImportMap,Export,Standard,Module,Error", "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps -export ./...: %w\n%s", err, stderr.Bytes())
	}
	cmd = exec.Command("go", "list", "-m")
	cmd.Dir = root
	mod, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m: %w", err)
	}
	l := &listing{module: strings.TrimSpace(string(mod)), byPath: map[string]*listedPackage{}}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		p := new(listedPackage)
		if err := dec.Decode(p); err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		l.pkgs = append(l.pkgs, p)
		l.byPath[p.ImportPath] = p
	}
	if len(l.pkgs) == 0 || l.module == "" {
		return nil, errors.New("go list found no packages")
	}
	return l, nil
})

// list returns the module's listing, or fails the test.
func list(t *testing.T) *listing {
	t.Helper()
	l, err := listOnce()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// exportImporter returns an importer reading the export data go list
// built, for the packages outside the module (or all of them).
func (l *listing) exportImporter(fset *token.FileSet) types.Importer {
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		p := l.byPath[path]
		if p == nil || p.Export == "" {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(p.Export)
	})
}

// importerFunc is a types.Importer made of a function.
type importerFunc func(path string) (*types.Package, error)

// Import implements types.Importer.
func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// program is the module packages a test type-checked from source, with
// everything the type checker recorded about them.
type program struct {
	fset   *token.FileSet
	pkgs   map[string]*types.Package // import path: checked from source, or imported
	files  map[string][]*ast.File    // import path: the package's files (module packages)
	info   *types.Info
	listed *listing
}

// checkFromSource type-checks from source the module's packages that roots
// depend on (roots included, test files aside), the packages outside the
// module from their export data. A package that uses cgo is checked with
// FakeImportC: its own names resolve, those of package C are not checked.
func (l *listing) checkFromSource(roots ...string) (*program, error) {
	need := map[string]bool{}
	var walk func(path string)
	walk = func(path string) {
		p := l.byPath[path]
		if p == nil || need[path] || !l.ours(p) {
			return
		}
		need[path] = true
		for _, imp := range p.Imports {
			walk(imp)
		}
	}
	for _, r := range roots {
		if l.byPath[r] == nil {
			return nil, fmt.Errorf("go list does not list %s", r)
		}
		walk(r)
	}

	prog := &program{
		fset:  token.NewFileSet(),
		pkgs:  map[string]*types.Package{},
		files: map[string][]*ast.File{},
		info: &types.Info{
			Defs:       map[*ast.Ident]types.Object{},
			Uses:       map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{},
		},
		listed: l,
	}
	exp := l.exportImporter(prog.fset)
	for _, p := range l.pkgs { // dependencies first
		if !need[p.ImportPath] {
			continue
		}
		var files []*ast.File
		for _, name := range append(append([]string(nil), p.GoFiles...), p.CgoFiles...) {
			f, err := parser.ParseFile(prog.fset, filepath.Join(p.Dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		var errs []error
		conf := types.Config{
			Importer: importerFunc(func(path string) (*types.Package, error) {
				if m, ok := p.ImportMap[path]; ok {
					path = m
				}
				if pkg, ok := prog.pkgs[path]; ok {
					return pkg, nil
				}
				if dep := l.byPath[path]; dep != nil && l.ours(dep) {
					return nil, fmt.Errorf("%s is not checked yet (go list's order is not dependencies first)", path)
				}
				pkg, err := exp.Import(path)
				if err == nil {
					prog.pkgs[path] = pkg
				}
				return pkg, err
			}),
			FakeImportC: len(p.CgoFiles) > 0,
			Sizes:       types.SizesFor("gc", runtime.GOARCH),
			Error:       func(err error) { errs = append(errs, err) },
		}
		pkg, _ := conf.Check(p.ImportPath, prog.fset, files, prog.info)
		if len(errs) > 0 {
			return nil, fmt.Errorf("type-checking %s: %w", p.ImportPath, errors.Join(errs[:min(len(errs), 5)]...))
		}
		prog.pkgs[p.ImportPath] = pkg
		prog.files[p.ImportPath] = files
	}
	return prog, nil
}

// short writes an object's full name with the module's path left out.
func (prog *program) short(obj types.Object) string {
	var s string
	switch o := obj.(type) {
	case *types.Func:
		s = o.FullName()
	case *types.Var:
		kind := "variable"
		if o.IsField() {
			kind = "field"
		}
		s = fmt.Sprintf("%s %s (%s)", kind, o.Name(), o.Pkg().Path())
	default:
		s = obj.String()
	}
	return strings.ReplaceAll(s, prog.listed.module+"/", "")
}
