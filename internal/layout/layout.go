// Package layout tells the module's own checks which packages are
// Nebula's and which are a game's: it reads the module's path from go.mod
// and README.md's layout table, the list of Nebula's packages with their
// layers. The checks that hold packages to Nebula's rules (internal/layers:
// the layers and docs/architecture.md; internal/doccheck: doc comments;
// internal/srccheck: error prefixes) hold the engine's packages to them
// and leave a game's alone.
//
// The rule:
//
//   - In Nebula's own module (Module) every package is the engine's: each
//     needs its row in the table, but a program under cmd/, which sits at
//     the top (layer 1) without one.
//
//   - In a game made from it (scripts/newgame.sh: any other module path),
//     the engine's packages are those the table lists. A package it does
//     not list, under cmd/ or anywhere else (internal/game, engine/mine),
//     is the game's: at the top, with the programs, and not held to the
//     engine's rules. A game may give one of its packages a row: it is then
//     checked as the engine's are.
//
//     l, err := layout.Load(root)
//     if l.Game("internal/game") { ... } // true in a copy that has not listed it
package layout

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Module is Nebula's own module path. It is written in two parts so that
// scripts/newgame.sh, which rewrites the module path in import paths only,
// has nothing to rewrite here: in a game's copy it still names Nebula.
const Module = "github.com/nebulaengine/" + "nebula"

// TopLayer is the layer of the programs, and of a game's packages.
const TopLayer = 1

// Layout is what the checks know of a module's packages.
type Layout struct {
	// Module is the module's path, from its go.mod.
	Module string
	// Layers holds README.md's layout table: the layer of every path it
	// lists, relative to the module's root ("engine/physics").
	Layers map[string]int
}

// Load reads the module path from root's go.mod and the layout table from
// root's README.md.
func Load(root string) (*Layout, error) {
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, fmt.Errorf("layout: %w", err)
	}
	module, err := modulePath(gomod)
	if err != nil {
		return nil, fmt.Errorf("layout: %s: %w", filepath.Join(root, "go.mod"), err)
	}
	f, err := os.Open(filepath.Join(root, "README.md"))
	if err != nil {
		return nil, fmt.Errorf("layout: %w", err)
	}
	defer f.Close()
	layers, err := ReadTable(f)
	if err != nil {
		return nil, fmt.Errorf("layout: %s: %w", f.Name(), err)
	}
	return &Layout{Module: module, Layers: layers}, nil
}

// tableRow matches a row of the layout table: "| 3 | `a`, `b` | what |".
var tableRow = regexp.MustCompile("^\\| (\\d+) \\| ((?:`[^`]+`(?:, )?)+) \\|")

// ReadTable reads a layout table's rows ("| LAYER | `path`, `path` | what
// it is |") from a Markdown document, ignoring every other line. A
// document without a row is an error.
//
//srccheck:wrapped by Load, as "layout: README.md: ..."
func ReadTable(r io.Reader) (map[string]int, error) {
	layers := map[string]int{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := tableRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, fmt.Errorf("layer %s: %w", m[1], err)
		}
		for _, p := range strings.Split(m[2], ", ") {
			layers[strings.Trim(p, "`")] = n
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(layers) == 0 {
		return nil, fmt.Errorf("no layout table rows (| layer | `path` | what it is |)")
	}
	return layers, nil
}

// modulePath returns the path on go.mod's module line.
//
//srccheck:wrapped by Load, as "layout: go.mod: ..."
func modulePath(gomod []byte) (string, error) {
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`), nil
		}
	}
	return "", fmt.Errorf("no module line")
}

// Own reports whether the module is Nebula's own, where every package is
// the engine's.
func (l *Layout) Own() bool { return l.Module == Module }

// Game reports whether the package in the folder rel (relative to the
// module's root, slash-separated) is a game's: in a module other than
// Nebula's, one the layout table does not list. The engine's checks leave
// a game's packages alone.
func (l *Layout) Game(rel string) bool {
	_, listed := l.Layers[rel]
	return !listed && !l.Own()
}

// Layer returns the layer of the package in the folder rel: the table's;
// TopLayer for a package the table does not list that is a program's
// (under cmd/) or a game's (Game); ok is false for a package that needs a
// row and has none (one of Nebula's own outside cmd/). listed says whether
// the table lists it.
func (l *Layout) Layer(rel string) (layer int, listed, ok bool) {
	if n, found := l.Layers[rel]; found {
		return n, true, true
	}
	if strings.HasPrefix(rel, "cmd/") || l.Game(rel) {
		return TopLayer, false, true
	}
	return 0, false, false
}
