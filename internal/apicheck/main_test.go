package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture writes a small module into a new temporary folder: a public
// package lib, an internal package and a program, and a change log whose
// latest release is 0.1.0 with the given Unreleased section.
func fixture(t *testing.T, unreleased string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod": "module example.com/fix\n\ngo 1.26\n",
		"lib/lib.go": `// Package lib is public.
package lib

// Old is renamed in the tests.
func Old() {}

// T has a field and a method.
type T struct{ A int }

// M is removed in a test.
func (*T) M() {}
`,
		"internal/in/in.go": "// Package in is internal.\npackage in\n\n// X may change freely.\nfunc X() {}\n",
		"cmd/prog/main.go":  "package main\n\n// Y is a program's.\nfunc Y() {}\n\nfunc main() {}\n",
		"CHANGELOG.md":      changelog(unreleased, "0.1.0"),
	})
	return dir
}

func changelog(unreleased string, releases ...string) string {
	s := "# Changelog\n\n## [Unreleased]\n\n" + unreleased + "\n"
	for _, r := range releases {
		s += "## [" + r + "] - 2026-11-27\n\n### Added\n\n- `lib.Old`, `lib.T`.\n\n"
	}
	return s
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// apicheck runs the command on dir and returns its status and output.
func apicheck(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"-C", dir}, args...), &out, &errOut)
	return code, out.String() + errOut.String()
}

func recordAPI(t *testing.T, dir string) {
	t.Helper()
	if code, out := apicheck(t, dir, "-write"); code != 0 {
		t.Fatalf("apicheck -write: status %d\n%s", code, out)
	}
}

// The API as recorded passes; a removed function, a removed method and a
// changed field fail until the Unreleased section names each of them.
func TestIncompatibleChangeMustBeInTheChangeLog(t *testing.T) {
	dir := fixture(t, "")
	recordAPI(t, dir)
	listing, err := os.ReadFile(filepath.Join(dir, listingFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# API v0.1.0 of example.com/fix", "pkg lib, func Old()", "pkg lib, type T struct, A int", "pkg lib, method (*T) M()"} {
		if !strings.Contains(string(listing), want) {
			t.Errorf("api/nebula.txt lacks %q:\n%s", want, listing)
		}
	}
	if strings.Contains(string(listing), "in, func X") || strings.Contains(string(listing), "Y()") {
		t.Errorf("api/nebula.txt lists an internal package or a program:\n%s", listing)
	}
	if code, out := apicheck(t, dir); code != 0 || !strings.Contains(out, "0 incompatible changes") {
		t.Fatalf("unchanged API: status %d, want 0\n%s", code, out)
	}

	writeFiles(t, dir, map[string]string{
		"lib/lib.go": `// Package lib is public.
package lib

// New was Old.
func New() {}

// T has a field.
type T struct{ A string }
`,
		// Internal packages and programs may change freely.
		"internal/in/in.go": "// Package in is internal.\npackage in\n\n// Z replaced X.\nfunc Z() {}\n",
	})
	code, out := apicheck(t, dir)
	if code != 1 {
		t.Fatalf("unlisted incompatible changes: status %d, want 1\n%s", code, out)
	}
	_, unlisted, ok := strings.Cut(out, "NOT IN THE CHANGE LOG")
	if !ok {
		t.Fatalf("no list of the changes not in the change log:\n%s", out)
	}
	for _, want := range []string{"lib.Old: removed", "lib.T.M: removed", "lib.T.A: changed from int to string"} {
		if !strings.Contains(unlisted, want) {
			t.Errorf("the unlisted changes lack %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "compatible:\n  lib.New: added") {
		t.Errorf("the compatible addition of lib.New is not reported:\n%s", out)
	}
	if strings.Contains(out, "in.") {
		t.Errorf("a change in an internal package is reported:\n%s", out)
	}

	// Two of three named, one only as a longer or shorter name: still failing.
	writeFiles(t, dir, map[string]string{"CHANGELOG.md": changelog(
		"### Removed\n\n- `lib.Old`: use `lib.New`.\n- `lib.T.M`: gone.\n- `lib.T.Ab` and `lib.T` changed.\n", "0.1.0")})
	code, out = apicheck(t, dir)
	if code != 1 || !strings.Contains(out, "2 in CHANGELOG.md's Unreleased section") {
		t.Fatalf("lib.T.A not named: status %d, want 1 with 2 listed\n%s", code, out)
	}
	if _, unlisted, _ := strings.Cut(out, "NOT IN THE CHANGE LOG"); !strings.Contains(unlisted, "lib.T.A:") || strings.Contains(unlisted, "lib.Old") {
		t.Errorf("the unlisted change is not exactly lib.T.A:\n%s", out)
	}

	// A name in an older release's section does not count.
	writeFiles(t, dir, map[string]string{"CHANGELOG.md": changelog(
		"### Removed\n\n- `lib.Old`: use `lib.New`.\n- `lib.T.M`: gone.\n", "0.1.0") +
		"## [0.0.1] - 2026-11-20\n\n- `lib.T.A` was an int.\n"})
	if code, out := apicheck(t, dir); code != 1 {
		t.Fatalf("lib.T.A named only in an older release: status %d, want 1\n%s", code, out)
	}

	// All three named: passes, and says so.
	writeFiles(t, dir, map[string]string{"CHANGELOG.md": changelog(
		"### Changed\n\n- `lib.T.A` is a string: convert with strconv.Itoa.\n\n### Removed\n\n- `lib.Old`: use `lib.New`.\n- `lib.T.M` (`(*lib.T).M`): gone.\n", "0.1.0")})
	code, out = apicheck(t, dir)
	if code != 0 || !strings.Contains(out, "3 incompatible changes (3 in CHANGELOG.md's Unreleased section)") {
		t.Fatalf("every change listed: status %d, want 0\n%s", code, out)
	}
}

// The record must be of the change log's latest release, and its listing
// must be what its export data holds.
func TestRecordMatchesTheRelease(t *testing.T) {
	dir := fixture(t, "")
	recordAPI(t, dir)

	// A release cut without recording its API.
	writeFiles(t, dir, map[string]string{"CHANGELOG.md": changelog("", "0.2.0", "0.1.0")})
	code, out := apicheck(t, dir)
	if code != 1 || !strings.Contains(out, "records the API of v0.1.0, but CHANGELOG.md's latest release is v0.2.0: run make api") {
		t.Fatalf("stale record: status %d, want 1 naming both versions\n%s", code, out)
	}
	recordAPI(t, dir)
	if code, out := apicheck(t, dir); code != 0 {
		t.Fatalf("after make api: status %d, want 0\n%s", code, out)
	}

	// The listing edited by hand.
	path := filepath.Join(dir, listingFile)
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Replace(text, []byte("func Old()"), []byte("func Older()"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := apicheck(t, dir); code != 1 || !strings.Contains(out, "does not list what api/nebula.export holds") {
		t.Fatalf("edited listing: status %d, want 1\n%s", code, out)
	}
}

// A copy of the module under another path (scripts/newgame.sh) is not
// compared with the original's record, whose every type path differs.
func TestCopyUnderAnotherModulePathIsSkipped(t *testing.T) {
	dir := fixture(t, "")
	recordAPI(t, dir)
	writeFiles(t, dir, map[string]string{
		"go.mod":     "module example.com/game\n\ngo 1.26\n",
		"lib/lib.go": "// Package lib is public.\npackage lib\n",
	})
	code, out := apicheck(t, dir)
	if code != 0 || !strings.Contains(out, "skipped: api/ records the API of example.com/fix, and this module is example.com/game") {
		t.Fatalf("a renamed copy: status %d, want 0 and a line saying why nothing was compared\n%s", code, out)
	}
}

func TestMissingRecordOrChangeLog(t *testing.T) {
	dir := fixture(t, "")
	if code, out := apicheck(t, dir); code != 1 || !strings.Contains(out, "make api records it") {
		t.Errorf("no record: status %d, want 1 with a hint\n%s", code, out)
	}
	writeFiles(t, dir, map[string]string{"CHANGELOG.md": "# Changelog\n\n## [0.1.0] - 2026-11-27\n"})
	if code, out := apicheck(t, dir); code != 1 || !strings.Contains(out, `no "## [Unreleased]" section`) {
		t.Errorf("no Unreleased section: status %d, want 1\n%s", code, out)
	}
	if code, _ := apicheck(t, dir, "extra"); code != 2 {
		t.Errorf("an extra argument: status %d, want 2", code)
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		text, key string
		want      bool
	}{
		{"- `engine.Engine.AddFixed`: use AddSystem", "engine.Engine.AddFixed", true},
		{"engine.Engine.AddFixed.", "engine.Engine.AddFixed", true},
		{"(engine.Engine.AddFixed)", "engine.Engine.AddFixed", true},
		{"`engine.Engine.AddFixedRate`", "engine.Engine.AddFixed", false},
		{"`xengine.Engine.AddFixed`", "engine.Engine.AddFixed", false},
		{"`engine.Engine`", "engine.Engine.AddFixed", false},
		{"`engine.Engine.AddFixed.X`", "engine.Engine.AddFixed", false},
		{"`engine/geom.Transform`", "geom.Transform", false},
		{"`engine/geom.Transform` and `geom.Transform`", "geom.Transform", true},
		{"the package `engine/foo` is gone", "engine/foo", true},
		{"`engine/foo/bar`", "engine/foo", false},
	} {
		if got := names(tc.text, tc.key); got != tc.want {
			t.Errorf("names(%q, %q) = %v, want %v", tc.text, tc.key, got, tc.want)
		}
	}
}

func TestSplitMessage(t *testing.T) {
	for _, tc := range []struct{ msg, name, rest string }{
		{"Old: removed", "Old", ": removed"},
		{"(*World).Spawn: removed", "World.Spawn", ": removed"},
		{"Config.Rate: changed from int to float64", "Config.Rate", ": changed from int to float64"},
		{"(*embedded).M, method set of *T: removed", "embedded.M", ", method set of *T: removed"},
		{"World.Step: changed from func() to func(int)", "World.Step", ": changed from func() to func(int)"},
	} {
		if name, rest := splitMessage(tc.msg); name != tc.name || rest != tc.rest {
			t.Errorf("splitMessage(%q) = %q, %q; want %q, %q", tc.msg, name, rest, tc.name, tc.rest)
		}
	}
}
