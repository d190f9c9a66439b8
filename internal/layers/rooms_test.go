package layers

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// docs/architecture.md names every package of the engine (programs under
// cmd/ aside), each in backquotes, so that the page describing the rooms
// cannot fall behind the code. A game's own packages (layout.Layout.Game:
// in a copy, those README.md's layout table does not list) are the game's
// business, not the page's.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	l := readLayout(t)
	_, pkgs := listPackages(t)
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.ImportPath, l.Module+"/")
		if strings.HasPrefix(rel, "cmd/") || l.Game(rel) {
			continue
		}
		if !strings.Contains(string(doc), "`"+rel+"`") {
			t.Errorf("docs/architecture.md does not name %s (write it in backquotes in its room)", rel)
		}
	}
}

// engineFree are the rooms that must not depend on package engine, even
// through another package: the renderer reads engine/render, the platform
// layer and the wire speak engine/input, and the leaves are below engine.
var engineFree = []string{
	"gfx", "internal/platform", "engine/netplay/wire", "engine/netplay/udp",
	"engine/model", "engine/input", "engine/render", "engine/geom", "timing",
}

func TestRoomsBelowEngineDoNotDependOnIt(t *testing.T) {
	module, _ := listPackages(t)
	for _, rel := range engineFree {
		if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
			continue // a game's copy may have deleted it
		}
		cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./"+rel)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v", rel, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == module+"/engine" {
				t.Errorf("%s depends on package engine (go list -deps ./%s): it must not", rel, rel)
			}
		}
	}
}
