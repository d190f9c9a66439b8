package template

import (
	"bytes"
	"crypto/sha256"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const (
	newPath = "example.com/mygame"
	newName = "mygame" // -name: cmd/nebula-minimal becomes cmd/mygame
)

// copyEnv is the environment the copy is built and tested in: no module
// proxy and no change to go.mod or go.sum, so that the copy is proven to
// need nothing the checkout did not bring (beyond the module cache the
// original was built from), as on a fresh machine without the network.
func copyEnv() []string {
	return append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly -buildvcs=false", "GOWORK=off")
}

// scripts/newgame.sh makes a game from this checkout: the copy builds with
// no network, its demo prints the original's state hash, its renamed
// program (cmd/mygame) runs headless and takes a flag of its own, a new
// program added under cmd/ passes the copy's own layering and doc checks
// untouched, and a subset of the copy's own tests passes (copyTests).
func TestNewGameScript(t *testing.T) {
	if testing.Short() {
		t.Skip("copies and builds the whole module")
	}
	root, modPath := moduleRoot(t)
	checkRewritable(t, root, modPath, sourceFiles(t, root))
	if t.Failed() {
		return
	}

	dst := filepath.Join(t.TempDir(), "mygame")
	cmd := exec.Command(filepath.Join(root, "scripts", "newgame.sh"), "-name", newName, newPath, dst)
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("newgame.sh: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "as "+newPath) || !strings.Contains(string(out), "go run ./cmd/"+newName) {
		t.Errorf("newgame.sh printed %q, want what it did and the next step", out)
	}
	// Nothing in the copy's code names the old module any more, and the
	// renamed program is where it should be.
	if out, _ := exec.Command("grep", "-rl", "--include=*.go", "--include=go.mod", modPath, dst).Output(); len(out) > 0 {
		t.Errorf("the copy still names %s in:\n%s", modPath, out)
	}
	for _, f := range []string{".git", "bin", "cmd/nebula-minimal"} {
		if _, err := os.Stat(filepath.Join(dst, f)); err == nil {
			t.Errorf("the copy has %s", f)
		}
	}

	bin := t.TempDir()
	goCmd(t, dst, "build", "./...")
	goCmd(t, dst, "build", "-o", filepath.Join(bin, "copy"), "./cmd/nebula-demo")
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
	t.Logf("newgame.sh copied the module to %s as %s; both demos print %q", dst, newPath, strings.TrimSpace(got))

	addProgramToCopy(t, dst)
	runCopyTests(t, dst)
	// Last: the game's own tests were written for the game before it.
	addFlagToCopy(t, dst, filepath.Join(bin, newName))
}

// copyTests are the copy's own tests run here: the checks a game's new
// code meets (layers, doc comments), the program set-up it builds on
// (internal/app: its recording and two-player match tests), the recording
// format, the renamed game and the added program. The rest of the copy's
// suite is the original's, which make test runs already; running it again
// would take minutes.
var copyTests = []string{"./internal/layers", "./internal/doccheck", "./internal/app", "./engine/replay", "./cmd/" + newName, "./cmd/arena-tool"}

// runCopyTests runs copyTests in the copy, short, with no network.
func runCopyTests(t *testing.T, dst string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"test", "-short", "-count=1"}, copyTests...)...)
	cmd.Dir = dst
	cmd.Env = copyEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the copy's own tests (go test -short %s): %v\n%s", strings.Join(copyTests, " "), err, out)
	}
	t.Logf("the copy's own tests:\n%s", out)
}

// addProgramToCopy adds a program of the game's own under cmd/, as a game
// made from the copy does next: a main package with an exported type and
// fields and no doc comments, importing the engine and internal/app, and a
// package of its own beside it. No file outside cmd/arena-tool changes: the
// copy's layering and doc checks take it as it is (runCopyTests runs them).
func addProgramToCopy(t *testing.T, dst string) {
	t.Helper()
	files := map[string]string{
		"cmd/arena-tool/main.go": `package main

import (
	"fmt"
	"os"

	"` + newPath + `/cmd/arena-tool/rules"
	"` + newPath + `/engine"
	"` + newPath + `/internal/app"
)

type Settings struct {
	Rounds int
	Name   string
}

func main() { os.Exit(app.Main("arena-tool", os.Args[1:], os.Stdout, os.Stderr, app.Game{Run: run})) }

func run(s *app.Process) error {
	e, err := engine.New(s.EngineConfig())
	if err != nil {
		return err
	}
	if err := e.AddStage("rounds", engine.After(engine.StageAI)); err != nil {
		return err
	}
	e.AddSystem(engine.StagePhysics, "fall", func(*engine.FixedContext) {})
	fmt.Fprintln(s.Stdout, Settings{Rounds: rules.Rounds, Name: "arena"}.Name)
	return s.RunHeadless(e)
}
`,
		"cmd/arena-tool/rules/rules.go": `// Package rules is the arena tool's own package.
package rules

// Rounds is how many rounds a match has.
const Rounds = 3
`,
		"cmd/arena-tool/main_test.go": `package main

import (
	"bytes"
	"strings"
	"testing"

	"` + newPath + `/internal/app"
)

func TestRuns(t *testing.T) {
	var out, errs bytes.Buffer
	if code := app.Main("arena-tool", []string{"-headless", "-ticks", "30", "-print-hash", "-log-level", "error"}, &out, &errs, app.Game{Run: run}); code != 0 {
		t.Fatalf("status %d: %s", code, errs.String())
	}
	if !strings.HasPrefix(out.String(), "arena\nstate-hash 30 ") {
		t.Errorf("stdout %q", out.String())
	}
	out.Reset()
	if code := app.Main("arena-tool", []string{"-schedule"}, &out, &errs, app.Game{Run: run}); code != 0 {
		t.Fatalf("-schedule: status %d: %s", code, errs.String())
	}
	if want := "arena\ninput\nscripts\nphysics\n  fall\ncollision\nai\nrounds\ntransforms\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("-schedule printed %q, want it to start %q", out.String(), want)
	}
}
`,
	}
	for name, src := range files {
		p := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd(t, dst, "vet", "./cmd/arena-tool/...")
}

// The script refuses what it cannot do, with one line and no copy: a
// directory that is not empty, a bad program name, no arguments.
func TestNewGameScriptRefuses(t *testing.T) {
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
		{[]string{"example.com/my game", filepath.Join(t.TempDir(), "x")}, 1, "newgame.sh: module path \"example.com/my game\": not a module path (example.com/mygame)\n"},
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

// addFlagToCopy does what a game made from the copy does first: it adds a
// flag of its own, -greeting, in its program's main.go (cmd/mygame, the
// copy's renamed cmd/nebula-minimal) and nowhere else (nothing under internal/ changes). The copy builds; -h lists the
// flag beside the common ones; the game prints the greeting, then plays.
func addFlagToCopy(t *testing.T, dst, bin string) {
	t.Helper()
	before := treeDigest(t, dst)
	mainGo := "cmd/" + newName + "/main.go"
	main := filepath.Join(dst, filepath.FromSlash(mainGo))
	data, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	for _, edit := range []struct{ old, new string }{
		{"import (\n", "import (\n\t\"flag\"\n\t\"fmt\"\n"},
		{"var minimal = app.Game{Run: game}\n", `var greeting string

var minimal = app.Game{
	Flags: func(fs *flag.FlagSet) { fs.StringVar(&greeting, "greeting", "", "say this before playing") },
	Run: func(s *app.Process) error {
		fmt.Fprintln(s.Stdout, greeting)
		return game(s)
	},
}
`},
	} {
		if strings.Count(src, edit.old) != 1 {
			t.Fatalf("%s has %d of %q, want one: the test no longer knows how to add a flag to it", mainGo, strings.Count(src, edit.old), edit.old)
		}
		src = strings.Replace(src, edit.old, edit.new, 1)
	}
	if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd(t, dst, "build", "-o", bin, "./cmd/"+newName)
	after := treeDigest(t, dst)
	for f, d := range after {
		if before[f] != d && f != mainGo {
			t.Errorf("the copy's %s changed (or appeared) when its game added a flag", f)
		}
	}
	if after[mainGo] == before[mainGo] {
		t.Errorf("%s did not change", mainGo)
	}

	out := runOut(t, bin, "-greeting", "hello from mygame", "-headless", "-ticks", "60", "-print-hash", "-log-level", "error")
	if !strings.HasPrefix(out, "hello from mygame\nstate-hash 60 ") {
		t.Errorf("the copy's game printed %q, want the greeting, then its state hash", out)
	}
	cmd := exec.Command(bin, "-h")
	help, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("-h: %v\n%s", err, help)
	}
	for _, want := range []string{"  -greeting string\n    \tsay this before playing\n", "  -headless\n", "  -tick-rate int\n"} {
		if !strings.Contains(string(help), want) {
			t.Errorf("the copy's -h lacks %q:\n%s", want, help)
		}
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

// checkRewritable checks that newgame.sh's rewrite is complete: one go.mod, and
// the module path only in go.mod and in import paths (Markdown excepted:
// the README names the original, to copy it from).
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
		if !bytes.Contains(data, []byte(modPath)) || f == "go.mod" {
			continue
		}
		if strings.HasSuffix(f, ".md") {
			continue // documentation names the original, where a copy comes from
		}
		if !strings.HasSuffix(f, ".go") {
			for i, l := range strings.Split(string(data), "\n") {
				if strings.Contains(l, modPath) {
					t.Errorf("%s:%d names %s outside go.mod and imports; newgame.sh would not rewrite it: %s", f, i+1, modPath, strings.TrimSpace(l))
				}
			}
			continue
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, data, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		inImports := 0
		for _, imp := range file.Imports {
			inImports += strings.Count(imp.Path.Value, modPath)
		}
		if total := bytes.Count(data, []byte(modPath)); total != inImports {
			t.Errorf("%s names %s %d times outside its import paths (in a comment or a string?); newgame.sh would not rewrite those", f, modPath, total-inImports)
		}
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
