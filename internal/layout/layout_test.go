package layout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const readme = "# A game\n\n| layer | path | what it is |\n| --- | --- | --- |\n" +
	"| 1 | `cmd/nebula-minimal` | the smallest game |\n" +
	"| 2 | `internal/app`, `internal/gameserver` | set-up |\n" +
	"| 8 | `engine` | the engine |\n\nText | 3 | `not/a/row` |\n"

func load(t *testing.T, module string) *Layout {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+module+"\n\ngo 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// In Nebula's own module every package is the engine's: one outside cmd/
// the table does not list has no layer. In a game's module a package the
// table does not list is the game's, at the top; a listed one is the
// engine's wherever it is.
func TestLayer(t *testing.T) {
	for _, tc := range []struct {
		module, rel string
		layer       int
		listed, ok  bool
		game        bool
	}{
		{Module, "engine", 8, true, true, false},
		{Module, "internal/gameserver", 2, true, true, false},
		{Module, "cmd/nebula-minimal", 1, true, true, false},
		{Module, "cmd/tool", TopLayer, false, true, false},
		{Module, "internal/game", 0, false, false, false},
		{Module, "not/a/row", 0, false, false, false},
		{"game.example/arena", "engine", 8, true, true, false},
		{"game.example/arena", "cmd/arena", TopLayer, false, true, true},
		{"game.example/arena", "cmd/arena/play", TopLayer, false, true, true},
		{"game.example/arena", "internal/game", TopLayer, false, true, true},
		{"game.example/arena", "engine/mine", TopLayer, false, true, true},
	} {
		l := load(t, tc.module)
		layer, listed, ok := l.Layer(tc.rel)
		if layer != tc.layer || listed != tc.listed || ok != tc.ok {
			t.Errorf("%s: Layer(%q) = %d, %v, %v; want %d, %v, %v", tc.module, tc.rel, layer, listed, ok, tc.layer, tc.listed, tc.ok)
		}
		if got := l.Game(tc.rel); got != tc.game {
			t.Errorf("%s: Game(%q) = %v, want %v", tc.module, tc.rel, got, tc.game)
		}
		if got, want := l.Own(), tc.module == Module; got != want {
			t.Errorf("%s: Own() = %v, want %v", tc.module, got, want)
		}
	}
}

// A README without a table, or a module without go.mod, is an error
// naming the file.
func TestLoadErrors(t *testing.T) {
	root := t.TempDir()
	if _, err := Load(root); err == nil || !strings.HasPrefix(err.Error(), "layout: ") || !strings.Contains(err.Error(), "go.mod") {
		t.Errorf("no go.mod: %v", err)
	}
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("go 1.26.0\n"), 0o644)
	if _, err := Load(root); err == nil || !strings.Contains(err.Error(), "go.mod: no module line") {
		t.Errorf("no module line: %v", err)
	}
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module game.example/arena\n"), 0o644)
	os.WriteFile(filepath.Join(root, "README.md"), []byte("# A game\n"), 0o644)
	if _, err := Load(root); err == nil || !strings.Contains(err.Error(), "README.md: no layout table rows") {
		t.Errorf("no table: %v", err)
	}
}

// The module's own README.md has a table that lists this package.
func TestOwnREADME(t *testing.T) {
	l, err := Load(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, listed, _ := l.Layer("internal/layout"); !listed {
		t.Errorf("README.md's layout table does not list internal/layout")
	}
}
