package main

import (
	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The rewrite moves the module's import paths, and only them, and leaves
// the file as gofmt writes it: an import that sorts elsewhere under its new
// path moves within its group (engine/geom/transform.go's case: the module
// sorted after github.com/go-gl, game.example sorts before it).
func TestRewriteFile(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
		changed         bool
	}{
		{
			name: "sorts within the group",
			src: `package geom

import (
	"github.com/go-gl/mathgl/mgl32"
	"old.example/nebula/engine/detmath"
)
`,
			want: `package geom

import (
	"game.example/arena/engine/detmath"
	"github.com/go-gl/mathgl/mgl32"
)
`,
			changed: true,
		},
		{
			// The line comments' column moves with the shorter paths,
			// as gofmt aligns them.
			name: "groups, names, comments, the module itself; strings and look-alikes kept",
			src: `// Package p is a test.
package p

import (
	"fmt"

	"github.com/zeebo/xxh3"
	neb "old.example/nebula"    // the root
	"old.example/nebula/engine" // the engine
	_ "old.example/nebula2/x"   // another module
)

// path is not an import: left alone.
const path = "old.example/nebula/engine"

var _ = fmt.Sprint(neb.X, engine.Y, xxh3.Z)
`,
			want: `// Package p is a test.
package p

import (
	"fmt"

	neb "game.example/arena"    // the root
	"game.example/arena/engine" // the engine
	"github.com/zeebo/xxh3"
	_ "old.example/nebula2/x" // another module
)

// path is not an import: left alone.
const path = "old.example/nebula/engine"

var _ = fmt.Sprint(neb.X, engine.Y, xxh3.Z)
`,
			changed: true,
		},
		{
			name:    "no import of the module",
			src:     "package p\n\nimport \"old.example/nebula2\"\n\nconst s = \"old.example/nebula\"\n",
			changed: false,
		},
		{
			name:    "does not parse, names no module path",
			src:     "package p\n\nfunc {",
			changed: false,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed, err := rewriteFile("p.go", []byte(tc.src), "old.example/nebula", "game.example/arena")
			if err != nil {
				t.Fatal(err)
			}
			if changed != tc.changed {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
			want := tc.want
			if !tc.changed {
				want = tc.src
			}
			if string(got) != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			if !tc.changed {
				return
			}
			// What gofmt would write: formatting it again changes nothing.
			again, err := format.Source(got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, got) {
				t.Errorf("the rewritten file is not gofmt-clean; gofmt writes:\n%s", again)
			}
		})
	}
}

// A Go file that names the module but does not parse is an error naming
// the file, not a file left half rewritten.
func TestRewriteFileThatDoesNotParse(t *testing.T) {
	_, _, err := rewriteFile("bad.go", []byte("package p\n\nimport \"old.example/nebula/engine\"\n\nfunc {"), "old.example/nebula", "game.example/arena")
	if err == nil || !strings.HasPrefix(err.Error(), "newgame: bad.go:5:") {
		t.Errorf("err = %v, want one starting newgame: bad.go:5:", err)
	}
}

// The command rewrites a tree, keeps the files' modes, prints how many
// files it changed, and refuses bad usage with status 2.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a/a.go":           "package a\n\nimport (\n\t\"github.com/go-gl/mathgl/mgl32\"\n\t\"old.example/m/b\"\n)\n\nvar _ = mgl32.Vec3{}\nvar _ = b.X\n",
		"b/b.go":           "package b\n\n// X is a thing.\nconst X = 1\n",
		"b/testdata/t.txt": "\"old.example/m/b\"\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-from", "old.example/m", "-to", "game.example/arena", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("status %d: %s", code, stderr.String())
	}
	if stdout.String() != "1\n" {
		t.Errorf("stdout %q, want 1 (files rewritten)", stdout.String())
	}
	p := filepath.Join(dir, "a", "a.go")
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "package a\n\nimport (\n\t\"game.example/arena/b\"\n\t\"github.com/go-gl/mathgl/mgl32\"\n)\n\nvar _ = mgl32.Vec3{}\nvar _ = b.X\n"
	if string(got) != want {
		t.Errorf("a/a.go:\n%s\nwant:\n%s", got, want)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("a/a.go's mode: %v, %v; want 0640 kept", fi.Mode(), err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "b", "testdata", "t.txt")); string(got) != files["b/testdata/t.txt"] {
		t.Errorf("a file that is not Go changed: %q", got)
	}

	for _, args := range [][]string{nil, {"-from", "a", dir}, {"-from", "a", "-to", "b"}, {"-bad"}} {
		stderr.Reset()
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%q: status %d, want 2", args, code)
		}
		if !strings.Contains(stderr.String(), "usage: go run ./internal/newgame -from OLD/MODULE -to NEW/MODULE DIR") {
			t.Errorf("%q: stderr %q, want the usage", args, stderr.String())
		}
	}
}
