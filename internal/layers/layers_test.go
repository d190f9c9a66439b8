package layers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// root is the module's root, two folders up from this package.
const root = "../.."

// tableRow matches a row of README's layout table: "| 3 | `a`, `b` | what |".
var tableRow = regexp.MustCompile("^\\| (\\d+) \\| ((?:`[^`]+`(?:, )?)+) \\|")

// readLayers returns the layer of every path README.md's layout table
// lists.
func readLayers(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	layers := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := tableRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		for _, p := range strings.Split(m[2], ", ") {
			layers[strings.Trim(p, "`")] = n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(layers) == 0 {
		t.Fatal("README.md has no layout table rows (| layer | `path` | ... |)")
	}
	return layers
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

// programLayer is the layer of a package under cmd/ that the table does
// not list: a game's own program (and the packages beside it), at the top.
const programLayer = 1

// layerOf returns path's layer: the table's, or programLayer for a package
// under cmd/ the table does not list (listed says which).
func layerOf(layers map[string]int, path string) (layer int, listed, ok bool) {
	if l, ok := layers[path]; ok {
		return l, true, true
	}
	if strings.HasPrefix(path, "cmd/") {
		return programLayer, false, true
	}
	return 0, false, false
}

// check returns one line per import that breaks the layering, and per
// package the table does not list. A package under cmd/ needs no row: it
// is a program's, at the top (programLayer), and imports among such
// unlisted packages are not checked (a game's program and its own packages
// beside it).
func check(module string, pkgs []goPackage, layers map[string]int) []string {
	var bad []string
	rel := func(path string) (string, bool) {
		if path == module {
			return ".", true
		}
		r, ok := strings.CutPrefix(path, module+"/")
		return r, ok
	}
	for _, p := range pkgs {
		from, _ := rel(p.ImportPath)
		lf, fromListed, ok := layerOf(layers, from)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is not in README.md's layout table", from))
			continue
		}
		for _, imp := range p.Imports {
			to, ours := rel(imp)
			if !ours {
				continue
			}
			lt, toListed, ok := layerOf(layers, to)
			if !ok || !fromListed && !toListed {
				continue
			}
			if lt <= lf {
				bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s (layer %d): a package imports only lower layers", from, lf, to, lt))
			}
		}
	}
	return bad
}

func TestImportsFollowTheLayers(t *testing.T) {
	layers := readLayers(t)
	module, pkgs := listPackages(t)
	for _, line := range check(module, pkgs, layers) {
		t.Error(line)
	}
	listed := map[string]bool{}
	for _, p := range pkgs {
		r := strings.TrimPrefix(p.ImportPath, module+"/")
		listed[r] = true
	}
	for path := range layers {
		// A game may delete a program (the demo) and its row with it, or
		// keep the row: a missing program is not an error.
		if !listed[path] && !strings.HasPrefix(path, "cmd/") {
			t.Errorf("README.md's layout table lists %s, which is not a package", path)
		}
	}
}

// The check finds an import that goes up, one within a layer, and a
// package the table does not list.
func TestCheckFindsBadImports(t *testing.T) {
	layers := map[string]int{"cmd/game": 1, "engine": 7, "gfx": 5, "timing": 8, "engine/replay": 5}
	pkgs := []goPackage{
		{"m/cmd/game", []string{"m/engine", "fmt"}},
		{"m/engine", []string{"m/timing", "m/gfx"}},
		{"m/gfx", []string{"m/engine/replay"}},
		{"m/extra", nil},
	}
	got := check("m", pkgs, layers)
	want := []string{
		"engine (layer 7) imports gfx (layer 5): a package imports only lower layers",
		"gfx (layer 5) imports engine/replay (layer 5): a package imports only lower layers",
		"extra is not in README.md's layout table",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("check found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A program the table does not list, under cmd/, is at the top: it and
// its own packages import whatever is below, and nothing listed imports
// them.
func TestUnlistedProgramsAreAtTheTop(t *testing.T) {
	layers := map[string]int{"cmd/nebula-demo": 1, "internal/app": 2, "engine": 7}
	pkgs := []goPackage{
		{"m/cmd/mygame", []string{"m/internal/app", "m/engine", "m/cmd/mygame/world"}},
		{"m/cmd/mygame/world", []string{"m/engine"}},
		{"m/engine", []string{"m/cmd/mygame/world"}},
		{"m/cmd/tool", []string{"m/cmd/nebula-demo"}},
	}
	got := check("m", pkgs, layers)
	want := []string{
		"engine (layer 7) imports cmd/mygame/world (layer 1): a package imports only lower layers",
		"cmd/tool (layer 1) imports cmd/nebula-demo (layer 1): a package imports only lower layers",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("check found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
