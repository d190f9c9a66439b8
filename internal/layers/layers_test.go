package layers

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/internal/layout"
)

// root is the module's root, two folders up from this package.
const root = "../.."

// readLayout returns the module's path and README.md's layout table.
func readLayout(t *testing.T) *layout.Layout {
	t.Helper()
	l, err := layout.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

type goPackage struct {
	ImportPath string
	Imports    []string
}

// listPackages returns the module's path and its packages with their
// imports (test files aside), from go list.
func listPackages(t *testing.T) (string, []goPackage) {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Module", "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []goPackage
	module := ""
	for dec.More() {
		var p struct {
			goPackage
			Module struct{ Path string }
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		module = p.Module.Path
		pkgs = append(pkgs, p.goPackage)
	}
	return module, pkgs
}

// check returns one line per import that breaks the layering, and per
// package the table does not list that needs a row (l.Layer). A package
// the table does not list that is a program's (under cmd/) or a game's
// (layout.Layout.Game) is at the top: it may import anything listed below
// the top, imports among such packages are not checked, and of the listed
// packages only the top layer's (the programs) may import it.
func check(l *layout.Layout, pkgs []goPackage) []string {
	var bad []string
	rel := func(path string) (string, bool) {
		if path == l.Module {
			return ".", true
		}
		r, ok := strings.CutPrefix(path, l.Module+"/")
		return r, ok
	}
	for _, p := range pkgs {
		from, _ := rel(p.ImportPath)
		lf, fromListed, ok := l.Layer(from)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is not in README.md's layout table", from))
			continue
		}
		for _, imp := range p.Imports {
			to, ours := rel(imp)
			if !ours {
				continue
			}
			lt, toListed, ok := l.Layer(to)
			switch {
			case !ok || !fromListed && !toListed:
			case !toListed && lf > layout.TopLayer:
				bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s, which README.md's layout table does not list (a program's or a game's package, at the top): a package imports only lower layers", from, lf, to))
			case toListed && lt <= lf:
				bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s (layer %d): a package imports only lower layers", from, lf, to, lt))
			}
		}
	}
	return bad
}

func TestImportsFollowTheLayers(t *testing.T) {
	l := readLayout(t)
	_, pkgs := listPackages(t)
	for _, line := range check(l, pkgs) {
		t.Error(line)
	}
	listed := map[string]bool{}
	for _, p := range pkgs {
		r := strings.TrimPrefix(p.ImportPath, l.Module+"/")
		listed[r] = true
	}
	for path := range l.Layers {
		// A game may delete a program (the demo) and its row with it, or
		// keep the row: a missing program is not an error.
		if !listed[path] && !strings.HasPrefix(path, "cmd/") {
			t.Errorf("README.md's layout table lists %s, which is not a package", path)
		}
	}
}

// The check finds, in Nebula's own module, an import that goes up, one
// within a layer, and a package the table does not list.
func TestCheckFindsBadImports(t *testing.T) {
	m := layout.Module
	l := &layout.Layout{Module: m, Layers: map[string]int{"cmd/game": 1, "engine": 7, "gfx": 5, "timing": 8, "engine/replay": 5}}
	pkgs := []goPackage{
		{m + "/cmd/game", []string{m + "/engine", "fmt"}},
		{m + "/engine", []string{m + "/timing", m + "/gfx"}},
		{m + "/gfx", []string{m + "/engine/replay"}},
		{m + "/extra", nil},
	}
	got := check(l, pkgs)
	want := []string{
		"engine (layer 7) imports gfx (layer 5): a package imports only lower layers",
		"gfx (layer 5) imports engine/replay (layer 5): a package imports only lower layers",
		"extra is not in README.md's layout table",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("check found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A program the table does not list, under cmd/, is at the top, in any
// module: it and its own packages import whatever is below, and nothing
// listed below the top imports them.
func TestUnlistedProgramsAreAtTheTop(t *testing.T) {
	m := layout.Module
	l := &layout.Layout{Module: m, Layers: map[string]int{"cmd/nebula-demo": 1, "internal/app": 2, "engine": 7}}
	pkgs := []goPackage{
		{m + "/cmd/mygame", []string{m + "/internal/app", m + "/engine", m + "/cmd/mygame/world"}},
		{m + "/cmd/mygame/world", []string{m + "/engine"}},
		{m + "/engine", []string{m + "/cmd/mygame/world"}},
		{m + "/cmd/tool", []string{m + "/cmd/nebula-demo"}},
	}
	got := check(l, pkgs)
	want := []string{
		"engine (layer 7) imports cmd/mygame/world, which README.md's layout table does not list (a program's or a game's package, at the top): a package imports only lower layers",
		"cmd/tool (layer 1) imports cmd/nebula-demo (layer 1): a package imports only lower layers",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("check found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// In a game's module (a copy made by scripts/newgame.sh) a package the
// table does not list, anywhere, is the game's and needs no row: it sits
// at the top with the programs, so it imports anything listed below the
// top, the table's programs (cmd/nebula-minimal, layer 1) may import it,
// and the engine's packages below the top may not. A package the game
// lists is checked as the engine's are.
func TestGamePackagesAreAtTheTop(t *testing.T) {
	m := "game.example/arena"
	l := &layout.Layout{Module: m, Layers: map[string]int{"cmd/nebula-minimal": 1, "internal/app": 2, "engine": 7, "internal/rules": 6}}
	pkgs := []goPackage{
		{m + "/cmd/nebula-minimal", []string{m + "/internal/game", m + "/internal/app"}},
		{m + "/internal/game", []string{m + "/engine", m + "/internal/game/level", m + "/cmd/tool/x"}},
		{m + "/internal/game/level", []string{m + "/engine"}},
		{m + "/engine/mine", []string{m + "/internal/app"}},
		{m + "/cmd/tool/x", nil},
		{m + "/engine", []string{m + "/engine/mine"}},
		{m + "/internal/rules", []string{m + "/internal/app"}},
	}
	got := check(l, pkgs)
	want := []string{
		"engine (layer 7) imports engine/mine, which README.md's layout table does not list (a program's or a game's package, at the top): a package imports only lower layers",
		"internal/rules (layer 6) imports internal/app (layer 2): a package imports only lower layers",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("check found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
