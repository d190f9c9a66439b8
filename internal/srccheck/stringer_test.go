package srccheck

import (
	"bytes"
	"go/ast"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stringerCmd is the one way the module runs stringer: pinned, through go
// run, so that go.mod does not list it.
const stringerCmd = "go run golang.org/x/tools/cmd/stringer@v0.52.0 "

// handWritten lists the integer types, by folder and name, whose String
// method is still written by hand, and why.
var handWritten = map[string]string{
	// The input enums print names from tables (keyNames, buttonNames,
	// eventKindNames); not converted yet.
	"engine/input.Key":         "not converted yet",
	"engine/input.MouseButton": "not converted yet",
	"engine/input.EventKind":   "not converted yet",
}

// integerKinds are the underlying types that make a named type an enum
// candidate.
var integerKinds = map[string]bool{
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"byte": true, "uintptr": true,
}

// TestStringMethodsGenerated checks that every String method of a named
// integer type is in a file stringer generated (outside handWritten), and
// that every go:generate line that runs stringer runs the pinned version
// through go run.
func TestStringMethodsGenerated(t *testing.T) {
	_, files := parseModule(t)
	integer := map[string]bool{} // "dir.Type"
	for _, f := range files {
		for _, d := range f.file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok && ts.Assign == 0 {
					if id, ok := ts.Type.(*ast.Ident); ok && integerKinds[id.Name] {
						integer[f.dir+"."+ts.Name.Name] = true
					}
				}
			}
		}
	}
	generated := 0
	for _, f := range files {
		for _, d := range f.file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Name.Name != "String" || len(fd.Recv.List) != 1 {
				continue
			}
			typ := fd.Recv.List[0].Type
			if s, ok := typ.(*ast.StarExpr); ok {
				typ = s.X
			}
			id, ok := typ.(*ast.Ident)
			if !ok || !integer[f.dir+"."+id.Name] {
				continue
			}
			key := f.dir + "." + id.Name
			switch {
			case isStringerOutput(f.file):
				generated++
			case handWritten[key] == "":
				t.Errorf("%s: %s.String is written by hand: generate it with a line\n\t//go:generate %s-type=%s\n(-linecomment or -trimprefix keep other texts than the constants' names)", f.rel, id.Name, stringerCmd, id.Name)
			}
		}
		for _, d := range directives(f.file) {
			if strings.Contains(d, "stringer") && !strings.HasPrefix(d, stringerCmd) {
				t.Errorf("%s: go:generate %q: run stringer as %q (pinned, through go run)", f.rel, d, stringerCmd+"...")
			}
		}
	}
	t.Logf("%d generated String methods of integer types", generated)
	if generated == 0 {
		t.Error("no generated String methods found: does the test still find stringer's files?")
	}
}

// TestGenerateCurrent runs every stringer go:generate line of the module
// into a temporary folder and checks that the committed file is what it
// makes: go generate ./... leaves the tree as it is. It needs the pinned
// stringer (built once, from the module cache or the proxy) and about a
// second a line; -short skips it.
func TestGenerateCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs stringer")
	}
	_, files := parseModule(t)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	pkg := strings.Fields(stringerCmd)[2] // golang.org/x/tools/cmd/stringer@v0.52.0
	install := exec.Command("go", "install", pkg)
	install.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install %s: %v\n%s", pkg, err, out)
	}
	made := map[string]bool{} // the rel of every file a directive makes
	runs := 0
	for _, f := range files {
		for _, d := range directives(f.file) {
			if !strings.HasPrefix(d, stringerCmd) {
				continue
			}
			runs++
			args := strings.Fields(strings.TrimPrefix(d, stringerCmd))
			out, outArg := "", -1
			for i, a := range args {
				switch {
				case strings.HasPrefix(a, "-output="):
					out, outArg = strings.TrimPrefix(a, "-output="), i
				case strings.HasPrefix(a, "-type=") && out == "":
					out = strings.ToLower(strings.Split(strings.TrimPrefix(a, "-type="), ",")[0] + "_string.go")
				}
			}
			rel := f.dir + "/" + out
			made[rel] = true
			tmpOut := filepath.Join(tmp, "out.go")
			runArgs := append([]string(nil), args...)
			if outArg >= 0 {
				runArgs[outArg] = "-output=" + tmpOut
			} else {
				runArgs = append(runArgs, "-output="+tmpOut)
			}
			cmd := exec.Command(filepath.Join(bin, "stringer"), runArgs...)
			cmd.Dir = filepath.Join(root, f.dir)
			cmd.Env = append(os.Environ(), "GOFILE="+filepath.Base(f.rel), "GOPACKAGE="+f.file.Name.Name)
			if o, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: stringer %s: %v\n%s", f.rel, strings.Join(runArgs, " "), err, o)
				continue
			}
			want, err := os.ReadFile(tmpOut)
			if err != nil {
				t.Fatal(err)
			}
			// stringer writes its arguments in the first line: put back
			// the directive's.
			want = bytes.Replace(want, []byte("stringer "+strings.Join(runArgs, " ")), []byte("stringer "+strings.Join(args, " ")), 1)
			got, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Errorf("%s: go:generate %s: %v (run go generate ./%s)", f.rel, d, err, f.dir)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is not what its go:generate line in %s makes now: run go generate ./%s", rel, f.rel, f.dir)
			}
		}
	}
	for _, f := range files {
		if isStringerOutput(f.file) && !made[f.rel] {
			t.Errorf("%s: made by stringer, but no go:generate line makes it now: remove it", f.rel)
		}
	}
	t.Logf("%d stringer lines run", runs)
}

// directives returns the commands of f's //go:generate lines.
func directives(f *ast.File) []string {
	var ds []string
	for _, g := range f.Comments {
		for _, c := range g.List {
			if d, ok := strings.CutPrefix(c.Text, "//go:generate "); ok {
				ds = append(ds, strings.TrimSpace(d))
			}
		}
	}
	return ds
}

// isStringerOutput reports whether f is a file stringer generated.
func isStringerOutput(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if strings.HasPrefix(c.Text, `// Code generated by "stringer `) && strings.HasSuffix(c.Text, `"; DO NOT EDIT.`) {
				return true
			}
		}
	}
	return false
}
