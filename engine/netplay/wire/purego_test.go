package wire

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The netplay packages (a headless server among their users) build with
// CGO_ENABLED=0: nothing they import, directly or not, outside the
// standard library uses cgo, and none of it is GLFW, GL or Nebula's
// window and graphics packages.
func TestPureGo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard,CgoFiles", "../...")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1") // so that cgo files are listed
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Standard   bool
			CgoFiles   []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		n++
		if p.Standard {
			continue
		}
		switch {
		case len(p.CgoFiles) > 0:
			t.Errorf("%s uses cgo (%s)", p.ImportPath, strings.Join(p.CgoFiles, ", "))
		case strings.Contains(p.ImportPath, "go-gl/gl"), strings.Contains(p.ImportPath, "go-gl/glfw"),
			strings.HasSuffix(p.ImportPath, "/gfx"), strings.Contains(p.ImportPath, "/internal/platform"),
			strings.Contains(p.ImportPath, "/engine/desktop"):
			t.Errorf("%s is imported, directly or not: the netplay packages must not need a window or GL", p.ImportPath)
		}
	}
	if n == 0 {
		t.Fatal("go list listed no packages")
	}
}
