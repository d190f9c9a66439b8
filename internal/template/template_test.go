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
	"strconv"
	"strings"
	"testing"
)

const newPath = "example.com/mygame"

func TestCopyWithGonewBuildsAndRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("copies and builds the whole module")
	}
	root, modPath := moduleRoot(t)
	files := sourceFiles(t, root)
	checkRewritable(t, root, modPath, files)
	if t.Failed() {
		return
	}

	dst := t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case f == "go.mod":
			data = rewriteGoMod(t, data, modPath)
		case strings.HasSuffix(f, ".go"):
			data = rewriteImports(t, f, data, modPath)
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Nothing in the copy's code names the old module any more.
	if out, _ := exec.Command("grep", "-rl", "--include=*.go", "--include=go.mod", modPath, dst).Output(); len(out) > 0 {
		t.Errorf("the copy still names %s in:\n%s", modPath, out)
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
	t.Logf("copied %d files to %s as %s; both print %q", len(files), dst, newPath, strings.TrimSpace(got))

	addFlagToCopy(t, dst, filepath.Join(bin, "mygame"))
}

// addFlagToCopy does what a game made from the copy does first: it adds a
// flag of its own, -greeting, in cmd/nebula-minimal/main.go and nowhere
// else (nothing under internal/ changes). The copy builds; -h lists the
// flag beside the common ones; the game prints the greeting, then plays.
func addFlagToCopy(t *testing.T, dst, bin string) {
	t.Helper()
	before := treeDigest(t, dst)
	main := filepath.Join(dst, "cmd", "nebula-minimal", "main.go")
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
	Run: func(s *app.Session) error {
		fmt.Fprintln(s.Stdout, greeting)
		return game(s)
	},
}
`},
	} {
		if strings.Count(src, edit.old) != 1 {
			t.Fatalf("cmd/nebula-minimal/main.go has %d of %q, want one: the test no longer knows how to add a flag to it", strings.Count(src, edit.old), edit.old)
		}
		src = strings.Replace(src, edit.old, edit.new, 1)
	}
	if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd(t, dst, "build", "-o", bin, "./cmd/nebula-minimal")
	after := treeDigest(t, dst)
	for f, d := range after {
		if before[f] != d && f != "cmd/nebula-minimal/main.go" {
			t.Errorf("the copy's %s changed (or appeared) when its game added a flag", f)
		}
	}
	if after["cmd/nebula-minimal/main.go"] == before["cmd/nebula-minimal/main.go"] {
		t.Error("cmd/nebula-minimal/main.go did not change")
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
// tracks or would add (not ignored), as gonew's module zip would, relative
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

// checkRewritable checks that gonew's rewrite is complete: one go.mod, and
// the module path only in go.mod and in import paths (Markdown excepted:
// the README names the original, to copy it from).
func checkRewritable(t *testing.T, root, modPath string, files []string) {
	t.Helper()
	for _, f := range files {
		if path := filepath.Base(f); path == "go.mod" && f != "go.mod" {
			t.Errorf("%s: a nested module; gonew copies one module, and its imports of this one would not be rewritten", f)
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
					t.Errorf("%s:%d names %s outside go.mod and imports; gonew would not rewrite it: %s", f, i+1, modPath, strings.TrimSpace(l))
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
			t.Errorf("%s names %s %d times outside its import paths (in a comment or a string?); gonew would not rewrite those", f, modPath, total-inImports)
		}
	}
}

func rewriteGoMod(t *testing.T, data []byte, modPath string) []byte {
	t.Helper()
	old := "module " + modPath + "\n"
	if !bytes.HasPrefix(data, []byte(old)) {
		t.Fatalf("go.mod does not start with %q", old)
	}
	return append([]byte("module "+newPath+"\n"), data[len(old):]...)
}

// rewriteImports replaces the module path prefix in the file's import
// paths, as gonew does, leaving every other byte alone.
func rewriteImports(t *testing.T, name string, data []byte, modPath string) []byte {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, data, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	last := 0
	for _, imp := range file.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil || (p != modPath && !strings.HasPrefix(p, modPath+"/")) {
			continue
		}
		off := fset.Position(imp.Path.Pos()).Offset
		b.Write(data[last:off])
		b.WriteString(strconv.Quote(newPath + strings.TrimPrefix(p, modPath)))
		last = off + len(imp.Path.Value)
	}
	b.Write(data[last:])
	return b.Bytes()
}

// goCmd runs the go command in dir, resolving modules from the module
// cache (and the proxy the environment names, if something is missing).
func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off")
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
