package template

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// grownGame is a copy made by newgame.sh, as the test grows it.
type grownGame struct {
	dir     string // the copy's root
	module  string // its module path
	program string // its renamed cmd/nebula-minimal, or "" (not renamed)
	tool    string // the program the test adds: "cmd/arena-tool", or a free name like it
	pkg     string // the package the test adds: "internal/game", or a free name like it
}

// freeDir returns base, or base with the first number from 2 up that
// makes it a path dir does not have: a copy of a grown game already has
// the names the test grew it with.
func freeDir(t *testing.T, dir, base string) string {
	t.Helper()
	for i := 1; i < 100; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s%d", base, i)
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); os.IsNotExist(err) {
			return name
		}
	}
	t.Fatalf("%s: no free name like %s", dir, base)
	return ""
}

// growProgram does what a game made from the copy does first, in its
// program's main.go (cmd/mygame, the copy's renamed cmd/nebula-minimal)
// and nowhere else, as README.md says: it names its window (the title
// constant), turns recording on (Records in its app.Game) and adds a flag
// of its own (-greeting, with app.Game.Flags), touching nothing under
// internal/. The copy builds; the game records a run that -replay -verify
// checks; -h lists the flag and the recording flags beside the common
// ones; the game prints the greeting, then plays.
func growProgram(t *testing.T, g *grownGame, bin string) {
	t.Helper()
	before := treeDigest(t, g.dir)
	mainGo := "cmd/" + g.program + "/main.go"
	path := filepath.Join(g.dir, filepath.FromSlash(mainGo))
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	grown, err := growMain(src)
	if err != nil {
		t.Fatalf("%s: %v: the test no longer knows how to grow the game", mainGo, err)
	}
	if err := os.WriteFile(path, grown, 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd(t, g.dir, "build", "-o", bin, "./cmd/"+g.program)
	after := treeDigest(t, g.dir)
	for f, d := range after {
		if before[f] != d && f != mainGo {
			t.Errorf("the copy's %s changed (or appeared) when its game grew", f)
		}
	}
	if after[mainGo] == before[mainGo] {
		t.Errorf("%s did not change", mainGo)
	}

	rec := filepath.Join(t.TempDir(), "run.rep")
	out := runOut(t, bin, "-greeting", "hello from mygame", "-headless", "-ticks", "60", "-print-hash", "-record", rec, "-log-level", "error")
	if !strings.HasPrefix(out, "hello from mygame\nstate-hash 60 ") {
		t.Errorf("the copy's game printed %q, want the greeting, then its state hash", out)
	}
	if out := runOut(t, bin, "-headless", "-replay", rec, "-verify", "-log-level", "error"); out != "replay ok 60\n" {
		t.Errorf("-replay -verify of the game's recording printed %q, want \"replay ok 60\"", out)
	}
	help, err := exec.Command(bin, "-h").CombinedOutput()
	if err != nil {
		t.Fatalf("-h: %v\n%s", err, help)
	}
	for _, want := range []string{"  -greeting string\n    \tsay this before playing\n", "  -record file\n", "  -headless\n", "  -tick-rate int\n"} {
		if !strings.Contains(string(help), want) {
			t.Errorf("the copy's -h lacks %q:\n%s", want, help)
		}
	}
}

// gameTitle is the window title growMain gives the game.
const gameTitle = "My game"

// growMain returns main.go's source grown as growProgram says. The places
// to change are found by Go's parser, not by their text, so that the
// game's definition may change in other ways: the title constant, the one
// app.Game literal (keyed fields), its Run, the import block.
func growMain(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "main.go", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	var title *ast.BasicLit
	var games []*ast.CompositeLit
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if lit, ok := valueAt(n, i).(*ast.BasicLit); ok && name.Name == "title" && lit.Kind == token.STRING {
					title = lit
				}
			}
		case *ast.CompositeLit:
			if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Game" {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "app" {
					games = append(games, n)
				}
			}
		}
		return true
	})
	if title == nil {
		return nil, fmt.Errorf("no string constant title (the window's title)")
	}
	edits = append(edits, edit{off(title.Pos()), off(title.End()), fmt.Sprintf("%q", gameTitle)})
	if len(games) != 1 {
		return nil, fmt.Errorf("%d app.Game literals, want one", len(games))
	}
	game := games[0]
	var run ast.Expr
	for _, el := range game.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			return nil, fmt.Errorf("the app.Game literal has unkeyed fields")
		}
		switch key := fmt.Sprint(kv.Key); key {
		case "Run":
			run = kv.Value
		case "Records", "Flags":
			return nil, fmt.Errorf("the app.Game literal sets %s already", key)
		}
	}
	if run == nil || len(game.Elts) == 0 {
		return nil, fmt.Errorf("the app.Game literal has no Run")
	}
	edits = append(edits,
		edit{off(run.Pos()), off(run.End()), "greet(" + string(src[off(run.Pos()):off(run.End())]) + ")"},
		edit{off(game.Elts[len(game.Elts)-1].End()), off(game.Elts[len(game.Elts)-1].End()),
			", Records: true, Flags: func(fs *flag.FlagSet) { fs.StringVar(&greeting, \"greeting\", \"\", \"say this before playing\") }"})
	var imports *ast.GenDecl
	for _, d := range f.Decls {
		if d, ok := d.(*ast.GenDecl); ok && d.Tok == token.IMPORT && d.Lparen.IsValid() {
			imports = d
			break
		}
	}
	if imports == nil {
		return nil, fmt.Errorf("no import block")
	}
	var add []string
	for _, want := range []string{"flag", "fmt"} {
		found := false
		for _, imp := range f.Imports {
			found = found || imp.Path.Value == `"`+want+`"` && imp.Name == nil
		}
		if !found {
			add = append(add, fmt.Sprintf("\n\t%q", want))
		}
	}
	at := off(imports.Lparen) + 1
	edits = append(edits, edit{at, at, strings.Join(add, "")})
	end := len(src)
	edits = append(edits, edit{end, end, `
// greeting is the -greeting flag: what the game says before it plays.
var greeting string

// greet returns run, saying the greeting (if any) first.
func greet(run func(*app.Process) error) func(*app.Process) error {
	return func(s *app.Process) error {
		if greeting != "" {
			fmt.Fprintln(s.Stdout, greeting)
		}
		return run(s)
	}
}
`})
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return format.Source(out)
}

// valueAt returns the i-th value of a const or var spec, or nil.
func valueAt(s *ast.ValueSpec, i int) ast.Expr {
	if i < len(s.Values) {
		return s.Values[i]
	}
	return nil
}

// addProgram adds, as a game made from the copy does next, a program of
// its own under cmd/ (g.tool: a main package with an exported type and
// fields and no doc comments, importing the engine and internal/app, and
// two packages of its own beside it) and a package of its own outside cmd/
// (g.pkg: exported names with no doc comments, an error without the
// package's name in front, and a test). Nothing else changes: README.md's
// layout table and docs/architecture.md do not name them, and the copy's
// checks (layers, doc comments, error prefixes) take them as they are
// (they are the game's: package internal/layout).
func addProgram(t *testing.T, g *grownGame) {
	t.Helper()
	files := map[string]string{
		"{{tool}}/main.go": `package main

import (
	"fmt"
	"os"

	"{{module}}/{{tool}}/rules"
	"{{module}}/engine"
	"{{module}}/internal/app"
	"{{module}}/{{pkg}}"
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
	score := game.Score{Player: "arena"}
	if err := score.Add(rules.Rounds); err != nil {
		return err
	}
	fmt.Fprintln(s.Stdout, Settings{Rounds: score.Points, Name: score.Player}.Name)
	return s.RunHeadless(e)
}
`,
		// The game itself, in a package of its own that imports only the
		// engine's public packages (nothing under internal/, nothing of
		// engine/desktop): a system in the Physics stage, a child entity
		// riding on a parent, and an action bound to a gamepad button.
		"{{tool}}/play/play.go": `// Package play is the arena tool's game: a ball falls under gravity
// in the Physics stage and jumps on the "jump" action (a gamepad's A
// button), with a lamp riding one unit above it.
package play

import (
	"strings"

	"github.com/go-gl/mathgl/mgl32"

	"{{module}}/engine"
	"{{module}}/engine/geom"
	"{{module}}/engine/input"
)

// Jump is the game's one action.
const Jump input.Action = 0

// Game is the ball, the lamp on it and the ball's vertical speed.
type Game struct {
	Ball  engine.Entity              // the ball
	Lamp  engine.Entity              // the lamp, the ball's child
	Speed *engine.Component[float32] // the ball's vertical speed
}

// New spawns the ball and the lamp, binds Jump and adds the systems.
func New(e *engine.Engine) (*Game, error) {
	g := &Game{Speed: engine.NewComponent[float32](e.World, "speed")}
	g.Ball = e.World.Spawn(geom.NewTransform(mgl32.Vec3{0, 5, 0}), engine.Interpolate)
	g.Lamp = e.World.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), engine.Interpolate)
	if err := e.World.SetParent(g.Lamp, g.Ball, engine.KeepLocal); err != nil {
		return nil, err
	}
	g.Speed.Set(g.Ball, 0)
	actions, err := input.NewActions("jump")
	if err != nil {
		return nil, err
	}
	if err := actions.LoadBindings(strings.NewReader("jump button A\n")); err != nil {
		return nil, err
	}
	e.Input.SetActions(actions)
	if err := e.AddSystem(engine.StageScripts, "jump", g.jump); err != nil {
		return nil, err
	}
	if err := e.AddSystem(engine.StagePhysics, "fall", g.fall); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *Game) jump(c *engine.FixedContext) {
	if c.Input.ActionPressed(Jump) {
		g.Speed.Set(g.Ball, 6)
	}
}

func (g *Game) fall(c *engine.FixedContext) {
	v := g.Speed.Ptr(g.Ball)
	t := c.World.Transform(g.Ball)
	*v -= float32(10 * c.DT)
	t.Pos[1] += float32(*v * c.DT)
	if t.Pos[1] < 0 {
		t.Pos[1], *v = 0, 0
	}
	c.World.SetTransform(g.Ball, t)
}
`,
		"{{tool}}/play/play_test.go": `package play_test

import (
	"testing"
	"time"

	"{{module}}/{{tool}}/play"
	"{{module}}/engine"
	"{{module}}/engine/input"
)

// The ball falls to the floor, jumps when the gamepad's A goes down, and
// the lamp is one unit above it at every tick.
func TestJumpOnTheGamepad(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	g, err := play.New(e)
	if err != nil {
		t.Fatal(err)
	}
	e.SetInputScript(func(tick uint64, due time.Duration, q *input.Queue) {
		switch tick {
		case 1:
			q.Push(input.Event{Time: due, Kind: input.PadConnected})
		case 120:
			q.Push(input.Event{Time: due, Kind: input.PadButtonDown, PadButton: input.PadA})
		case 121:
			q.Push(input.Event{Time: due, Kind: input.PadButtonUp, PadButton: input.PadA})
		}
	})
	var highest float32
	e.AddSystem(engine.StageTransforms, "watch", func(c *engine.FixedContext) {
		ball, lamp := c.World.WorldTransform(g.Ball), c.World.WorldTransform(g.Lamp)
		if lamp.Pos[1] != ball.Pos[1]+1 {
			t.Errorf("tick %d: the lamp is at %v, the ball at %v: want it one unit above", c.Tick, lamp.Pos, ball.Pos)
		}
		if c.Tick == 119 && ball.Pos[1] != 0 {
			t.Errorf("tick 119: the ball is at height %v, want on the floor", ball.Pos[1])
		}
		if c.Tick > 120 {
			highest = max(highest, ball.Pos[1])
		}
	})
	if _, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 144, Ticks: 180}); err != nil {
		t.Fatal(err)
	}
	if highest < 1 {
		t.Errorf("after A the ball rose to %v, want a jump over 1", highest)
	}
}
`,
		"{{tool}}/rules/rules.go": `// Package rules is the arena tool's own package.
package rules

// Rounds is how many rounds a match has.
const Rounds = 3
`,
		"{{tool}}/main_test.go": `package main

import (
	"bytes"
	"strings"
	"testing"

	"{{module}}/internal/app"
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
		// A package of the game's own outside cmd/, in no table, with
		// exported names and no doc comments, an error without the
		// package's name in front, and a test.
		"{{pkg}}/score.go": `package game

import "errors"

type Score struct {
	Player string
	Points int
}

func (s *Score) Add(n int) error {
	if s.Player == "" {
		return errors.New("no player to score")
	}
	s.Points += n
	return nil
}
`,
		"{{pkg}}/score_test.go": `package game

import "testing"

func TestAdd(t *testing.T) {
	s := Score{Player: "a"}
	if err := s.Add(3); err != nil || s.Points != 3 {
		t.Errorf("Add(3): %v, %d points; want 3", err, s.Points)
	}
	if err := (&Score{}).Add(1); err == nil {
		t.Error("Add without a player: no error")
	}
}
`,
	}
	r := strings.NewReplacer("{{module}}", g.module, "{{tool}}", g.tool, "{{pkg}}", g.pkg)
	for name, src := range files {
		p := filepath.Join(g.dir, filepath.FromSlash(r.Replace(name)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		// As the game's author saves it: gofmt'd (free names may sort
		// its imports differently).
		data, err := format.Source([]byte(r.Replace(src)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd(t, g.dir, "vet", "./"+g.tool+"/...", "./"+g.pkg+"/...")
}

// lintCopy runs the copy's make lint (gofmt, go vet, staticcheck; make
// deps first, which only checks that the Debian packages are installed,
// as make test has made sure) as its user does: the module proxy as the
// environment says (staticcheck is fetched by go run at a pinned version,
// once per module cache), go.mod and go.sum left as they are.
func lintCopy(t *testing.T, g *grownGame) {
	t.Helper()
	start := time.Now()
	cmd := exec.Command("make", "lint")
	cmd.Dir = g.dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly -buildvcs=false", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the copy's make lint: %v\n%s", err, out)
	}
	t.Logf("the copy's make lint passed in %v", time.Since(start).Round(time.Second))
}

// testCopy runs the copy's own tests, with no network: in full, the checks
// that look at the layout (layers with the architecture page, doc
// comments, and, in a copy of Nebula's own module, the copy's own
// template test, which copies the copy); with -short, the error-prefix
// check, the checks' helpers, the renamed game and what the test added,
// and in a copy of Nebula's own module internal/app (the program set-up
// the game builds on: its recording and match tests) and engine/replay
// (the recording format). The rest of the copy's suite is the original's
// with another import path, which make test runs already: running it again
// would take many minutes for nothing new. In a copy of a copy its
// template test is not run (it would copy again), nor are the game's
// program's tests (they are the game's, run by its own suite).
func testCopy(t *testing.T, g *grownGame, own bool) {
	t.Helper()
	full := []string{"./internal/layers", "./internal/doccheck"}
	short := []string{"./internal/srccheck", "./internal/layout", "./internal/newgame", "./" + g.tool + "/...", "./" + g.pkg + "/..."}
	if own {
		full = append(full, "./internal/template")
		short = append(short, "./internal/app", "./engine/replay")
		if g.program != "" {
			short = append(short, "./cmd/"+g.program)
		}
	}
	for _, run := range [][]string{
		append([]string{"test", "-count=1"}, full...),
		append([]string{"test", "-short", "-count=1"}, short...),
	} {
		start := time.Now()
		cmd := exec.Command("go", run...)
		cmd.Dir = g.dir
		cmd.Env = copyEnv()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the copy's own tests (go %s): %v\n%s", strings.Join(run, " "), err, out)
		}
		t.Logf("the copy's own tests (go %s) passed in %v:\n%s", strings.Join(run, " "), time.Since(start).Round(time.Second), bytes.TrimSpace(out))
	}
}
