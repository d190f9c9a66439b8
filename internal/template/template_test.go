package template

import (
	"bytes"
	"crypto/sha256"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/internal/layout"
)

// copyEnv is the environment the copy is built and tested in: no module
// proxy and no change to go.mod or go.sum, so that the copy is proven to
// need nothing the checkout did not bring (beyond the module cache the
// original was built from), as on a fresh machine without the network.
func copyEnv() []string {
	return append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly -buildvcs=false", "GOWORK=off")
}

// scripts/newgame.sh makes a game from this checkout, and the game grows
// as README.md says, passing its own checks: the copy is gofmt-clean and
// builds with no network, its demo prints the original's state hash; its
// program (cmd/nebula-minimal renamed cmd/mygame) is named, records and
// takes a flag of its own (growProgram); a program under cmd/ and a
// package outside it are added with no change to README.md or docs/
// (addProgram); then the copy's make lint passes (lintCopy) and its own
// tests pass (testCopy), its template test among them, which runs this
// test in the copy.
//
// In a game made from Nebula (this test run by the copy's own go test),
// the same test checks what a copy can promise: that it can be copied
// again (gofmt-clean, it builds, its demo prints the same hash), and that a
// program and a package added to that copy pass its checks. It leaves the
// game's own program alone (growProgram edits Nebula's nebula-minimal,
// not the game's), runs no make lint (the game runs its own) and not the
// copy's template test (it would copy again).
func TestNewGameScript(t *testing.T) {
	if testing.Short() {
		t.Skip("copies, builds, lints and tests the whole module")
	}
	start := time.Now()
	root, modPath := moduleRoot(t)
	lay, err := layout.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	own := lay.Own()
	checkRewritable(t, root, modPath, sourceFiles(t, root))
	if t.Failed() {
		return
	}

	// README's example path, written in two parts: a game that took it
	// has it nowhere in code (checkRewritable would find it).
	g := &grownGame{dir: filepath.Join(t.TempDir(), "mygame"), module: "example.com/" + "mygame"}
	if g.module == modPath {
		g.module += "2"
	}
	args := []string{g.module, g.dir}
	prog := "nebula-minimal"
	if exists(root, "cmd/nebula-minimal") {
		g.program, prog = "mygame", "mygame"
		args = append([]string{"-name", g.program}, args...)
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "newgame.sh"), args...)
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("newgame.sh: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "as "+g.module) || !strings.Contains(string(out), "go run ./cmd/"+prog) {
		t.Errorf("newgame.sh printed %q, want what it did and the next step", out)
	}
	// Nothing in the copy's code names the old module any more, and the
	// renamed program is where it should be.
	if left := namesModule(t, g.dir, modPath); len(left) > 0 {
		t.Errorf("the copy still names %s in:\n%s", modPath, strings.Join(left, "\n"))
	}
	gone := []string{".git", "bin"}
	if g.program != "" {
		gone = append(gone, "cmd/nebula-minimal")
		if !exists(g.dir, "cmd/"+g.program+"/main.go") {
			t.Errorf("the copy has no cmd/%s/main.go", g.program)
		}
	}
	for _, f := range gone {
		if exists(g.dir, f) {
			t.Errorf("the copy has %s", f)
		}
	}
	// In the copy, -name has nothing to rename any more: refused, with one
	// line, before anything is copied.
	if g.program != "" {
		again := filepath.Join(t.TempDir(), "again")
		cmd := exec.Command(filepath.Join(g.dir, "scripts", "newgame.sh"), "-name", "other", "example.com/other", again)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		want := "newgame.sh: -name other: " + g.dir + " has no cmd/nebula-minimal to rename (a game made with -name has renamed it already)\n"
		if err == nil || stderr.String() != want {
			t.Errorf("the copy's newgame.sh -name: %v, stderr %q; want status 1 and %q", err, stderr.String(), want)
		}
		if exists(again, ".") {
			t.Errorf("the refused copy made %s", again)
		}
	}
	// make lint's first check, on every copy.
	if out, err := exec.Command("gofmt", "-l", g.dir).CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("gofmt -l: these files of the copy are not formatted (%v):\n%s", err, out)
	}

	bin := t.TempDir()
	goCmd(t, g.dir, "build", "./...")
	if exists(root, "cmd/nebula-demo") && exists(g.dir, "cmd/nebula-demo") {
		goCmd(t, g.dir, "build", "-o", filepath.Join(bin, "copy"), "./cmd/nebula-demo")
		goCmd(t, root, "build", "-o", filepath.Join(bin, "orig"), "./cmd/nebula-demo")
		args := []string{"-headless", "-ticks", "600", "-print-hash", "-log-level", "error"}
		want := runOut(t, filepath.Join(bin, "orig"), args...)
		got := runOut(t, filepath.Join(bin, "copy"), args...)
		if !strings.HasPrefix(want, "state-hash 600 ") {
			t.Fatalf("the original printed %q, want a state-hash line", want)
		}
		if got != want {
			t.Errorf("the copy printed %q, the original %q", got, want)
		}
		t.Logf("newgame.sh copied the module to %s as %s; both demos print %q", g.dir, g.module, strings.TrimSpace(got))
	}

	if own && g.program != "" {
		growProgram(t, g, filepath.Join(bin, g.program))
	}
	g.tool = freeDir(t, g.dir, "cmd/arena-tool")
	g.pkg = freeDir(t, g.dir, "internal/game")
	addProgram(t, g)
	if own {
		lintCopy(t, g)
	}
	testCopy(t, g, own)
	t.Logf("made, grew, linted and tested the copy in %v", time.Since(start).Round(time.Second))
}

// namesModule returns the Go files under dir with a string that is
// modPath or starts with modPath and a slash, and go.mod if its module is
// modPath (a longer path that starts with modPath, such as modPath+"2", is
// another module).
func namesModule(t *testing.T, dir, modPath string) []string {
	t.Helper()
	str := regexp.MustCompile(`"` + regexp.QuoteMeta(modPath) + `["/]`)
	mod := regexp.MustCompile(`(?m)^module\s+"?` + regexp.QuoteMeta(modPath) + `"?\s*$`)
	var found []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		re := str
		switch {
		case p == filepath.Join(dir, "go.mod"):
			re = mod
		case !strings.HasSuffix(p, ".go"):
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if re.Match(data) {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// exists reports whether root has the slash-separated path rel.
func exists(root, rel string) bool {
	_, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil
}

// The script refuses what it cannot do, with one line and no copy: a
// directory that is not empty, a bad program name, no arguments.
func TestNewGameScriptRefuses(t *testing.T) {
	const newPath = "example.com/refused" // any module path but this one's
	root, _ := moduleRoot(t)
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{newPath, full}, 1, "newgame.sh: " + full + " exists and is not empty\n"},
		{[]string{"-name", "My Game", newPath, filepath.Join(t.TempDir(), "x")}, 1, "newgame.sh: -name My Game: want lower-case letters, digits and dashes, starting with a letter\n"},
		{[]string{"example.com/my game", filepath.Join(t.TempDir(), "x")}, 1, "newgame.sh: module path \"example.com/my game\": not a module path (no spaces, quotes or backslashes; no / at either end)\n"},
		{nil, 2, "usage: scripts/newgame.sh [-name PROGRAM] NEW/MODULE/PATH DIR\n"},
	} {
		cmd := exec.Command(filepath.Join(root, "scripts", "newgame.sh"), tc.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || stderr.String() != tc.want {
			t.Errorf("newgame.sh %q: status %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.want)
		}
	}
	if entries, _ := os.ReadDir(full); len(entries) != 1 {
		t.Errorf("the refused copy left %d entries in %s", len(entries), full)
	}
}

// treeDigest returns the contents of every regular file under dir, by path
// relative to dir, as their SHA-256.
func treeDigest(t *testing.T, dir string) map[string][sha256.Size]byte {
	t.Helper()
	m := map[string][sha256.Size]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = sha256.Sum256(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// moduleRoot returns the directory of the module's go.mod and its path.
func moduleRoot(t *testing.T) (string, string) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	data, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(l, "module "); ok {
			return filepath.Dir(gomod), strings.TrimSpace(p)
		}
	}
	t.Fatalf("%s has no module line", gomod)
	return "", ""
}

// sourceFiles lists what a copy of the repository holds: the files git
// tracks or would add (not ignored), as newgame.sh copies them, relative
// to root and sorted. Without git it walks root, leaving out .git and bin.
func sourceFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			if fi, err := os.Stat(filepath.Join(root, f)); err == nil && fi.Mode().IsRegular() {
				files = append(files, filepath.ToSlash(f))
			}
		}
	} else {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if d.IsDir() && (rel == ".git" || rel == "bin") {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() {
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(files)
	return files
}

// checkRewritable checks that newgame.sh's rewrite is complete: one go.mod,
// and the module path in code only in go.mod and in import paths.
// Documentation may name it (Markdown, Go comments, the comment lines of
// scripts and makefiles: it names the original, where a copy comes from, or
// gives an example); code may not (a Go string, a command in a script),
// since a copy would keep the old path there.
func checkRewritable(t *testing.T, root, modPath string, files []string) {
	t.Helper()
	for _, f := range files {
		if path := filepath.Base(f); path == "go.mod" && f != "go.mod" {
			t.Errorf("%s: a nested module; newgame.sh copies one module, and its imports of this one would not be rewritten", f)
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(modPath)) || f == "go.mod" || strings.HasSuffix(f, ".md") {
			continue
		}
		if strings.HasPrefix(f, "api/") {
			// The record of Nebula's released API (internal/apicheck)
			// names Nebula's module on purpose: in a copy, whose module
			// path differs, the API check says so and skips.
			continue
		}
		if !strings.HasSuffix(f, ".go") {
			for i, l := range strings.Split(string(data), "\n") {
				if strings.Contains(l, modPath) && !strings.HasPrefix(strings.TrimSpace(l), "#") {
					t.Errorf("%s:%d names %s outside go.mod and imports; newgame.sh would not rewrite it: %s", f, i+1, modPath, strings.TrimSpace(l))
				}
			}
			continue
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, data, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		imports := map[*ast.BasicLit]bool{}
		for _, imp := range file.Imports {
			imports[imp.Path] = true
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && !imports[lit] && strings.Contains(lit.Value, modPath) {
				t.Errorf("%s names %s in a string, outside its import paths; newgame.sh would not rewrite it: %s", fset.Position(lit.Pos()), modPath, lit.Value)
			}
			return true
		})
	}
}

// goCmd runs the go command in dir, with modules from the module cache
// only (copyEnv).
func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = copyEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
}

func runOut(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}
