package namecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"
)

// TestCardLoopCallsTick pins the design card (see the package doc):
// (*timing.Loop).Tick has its documented signature under that one name,
// the desktop runner's main-thread loop reaches it and GLFW's event
// processing, and engine/desktop's init locks the main OS thread.
func TestCardLoopCallsTick(t *testing.T) {
	l := list(t)
	desktopPath := l.module + "/engine/desktop"
	prog, err := l.checkFromSource(desktopPath)
	if err != nil {
		t.Fatal(err)
	}
	timing := prog.pkgs[l.module+"/timing"]
	if timing == nil {
		t.Fatalf("%s does not import package timing", desktopPath)
	}
	tick, problems := checkTick(timing)
	for _, p := range problems {
		t.Error(p)
	}
	if tick == nil {
		return
	}

	g := newGraph()
	for _, files := range prog.files {
		g.addFiles(files, prog.info)
	}
	loop, err := runLoop(prog.files[desktopPath])
	if err != nil {
		t.Fatal(err)
	}
	fromLoop := named(loop.Body, prog.info)
	for _, target := range []types.Object{tick, pkgFunc(prog, "glfw", "PollEvents")} {
		if target == nil {
			t.Errorf("%s does not import glfw, whose events its loop must process", desktopPath)
			continue
		}
		path := g.path(fromLoop, target)
		if path == nil {
			pos := prog.fset.Position(loop.Pos())
			if rel, err := filepath.Rel(l.byPath[desktopPath].Dir, pos.Filename); err == nil {
				pos.Filename = "engine/desktop/" + rel
			}
			t.Errorf("the for loop of (*desktop.Runner).Run (%s) does not reach %s: the card's main-thread loop calls it",
				pos, prog.short(target))
			continue
		}
		t.Logf("Runner.Run's loop -> %s", prog.shortPath(path))
	}

	var inits []types.Object
	for _, f := range prog.files[desktopPath] {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" && fd.Body != nil {
				inits = append(inits, named(fd.Body, prog.info)...)
			}
		}
	}
	lock := pkgFunc(prog, "runtime", "LockOSThread")
	if path := g.path(inits, lock); lock == nil || path == nil {
		t.Errorf("no init of %s calls runtime.LockOSThread: the card's loop is main-thread-locked", desktopPath)
	} else {
		t.Logf("desktop's init -> %s", prog.shortPath(path))
	}
}

// checkTick returns (*Loop).Tick of package timing when it has the card's
// signature, and what is wrong otherwise: a missing or different Tick, a
// method Frame, another method of Tick's signature.
func checkTick(timing *types.Package) (*types.Func, []string) {
	const doc = "func (l *Loop) Tick(now time.Duration, fixed func(Step), render func(alpha float64)) int"
	loop, _ := timing.Scope().Lookup("Loop").(*types.TypeName)
	step, _ := timing.Scope().Lookup("Step").(*types.TypeName)
	var duration types.Type
	for _, imp := range timing.Imports() {
		if imp.Path() == "time" {
			if d, ok := imp.Scope().Lookup("Duration").(*types.TypeName); ok {
				duration = d.Type()
			}
		}
	}
	if loop == nil || step == nil || duration == nil {
		return nil, []string{fmt.Sprintf("package timing has no type Loop or Step, or does not use time.Duration: the card's method is %s", doc)}
	}
	ptr := types.NewPointer(loop.Type())
	obj, _, _ := types.LookupFieldOrMethod(ptr, false, timing, "Tick")
	tick, _ := obj.(*types.Func)
	if tick == nil {
		return nil, []string{fmt.Sprintf("timing.Loop has no method Tick: the card names it, %s", doc)}
	}
	sig := tick.Type().(*types.Signature)
	param := func(t types.Type) *types.Var { return types.NewParam(token.NoPos, nil, "", t) }
	fn := func(params, results *types.Tuple) *types.Signature {
		return types.NewSignatureType(nil, nil, nil, params, results, false)
	}
	want := fn(types.NewTuple(param(duration),
		param(fn(types.NewTuple(param(step.Type())), nil)),
		param(fn(types.NewTuple(param(types.Typ[types.Float64])), nil))),
		types.NewTuple(param(types.Typ[types.Int])))
	got := fn(sig.Params(), sig.Results())
	var problems []string
	if _, isPtr := sig.Recv().Type().(*types.Pointer); !isPtr || sig.Variadic() || !types.Identical(got, want) {
		problems = append(problems, fmt.Sprintf("%s, want %s",
			types.ObjectString(tick, types.RelativeTo(timing)), doc))
	}
	mset := types.NewMethodSet(ptr)
	for i := range mset.Len() {
		m := mset.At(i).Obj().(*types.Func)
		switch {
		case m.Name() == "Frame":
			problems = append(problems, "timing.Loop has a method Frame: the card's name is Tick, and one name only")
		case m != tick && types.Identical(fn(m.Signature().Params(), m.Signature().Results()), got):
			problems = append(problems, fmt.Sprintf("timing.Loop.%s has Tick's signature: the card's method has one name only", m.Name()))
		}
	}
	return tick, problems
}

// runLoop returns the for statement at the top level of (*Runner).Run's
// body, the runner's main-thread loop.
func runLoop(files []*ast.File) (*ast.ForStmt, error) {
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name.Name != "Run" || fd.Recv == nil || len(fd.Recv.List) != 1 || fd.Body == nil {
				continue
			}
			star, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
			if id, isID := star.X.(*ast.Ident); !ok || !isID || id.Name != "Runner" {
				continue
			}
			var loops []*ast.ForStmt
			for _, s := range fd.Body.List {
				if fs, ok := s.(*ast.ForStmt); ok {
					loops = append(loops, fs)
				}
			}
			if len(loops) != 1 {
				return nil, fmt.Errorf("(*Runner).Run has %d for loops at the top level of its body; the test looks for one, the main-thread loop", len(loops))
			}
			return loops[0], nil
		}
	}
	return nil, fmt.Errorf("engine/desktop has no method (*Runner).Run")
}

// pkgFunc returns the function name of the package named pkgName that the
// program imports, or nil.
func pkgFunc(prog *program, pkgName, name string) types.Object {
	for _, p := range prog.pkgs {
		if p.Name() == pkgName {
			if fn, ok := p.Scope().Lookup(name).(*types.Func); ok {
				return fn
			}
		}
	}
	return nil
}

// shortPath writes a path of the call graph as "a -> b -> c".
func (prog *program) shortPath(path []types.Object) string {
	s := make([]string, len(path))
	for i, o := range path {
		s[i] = prog.short(o)
	}
	return strings.Join(s, " -> ")
}

// graph is what each function (by its body) and each variable or field of
// function type (by the values assigned to it) reaches; the package doc
// gives the rules.
type graph struct {
	edges map[types.Object][]types.Object
}

func newGraph() *graph { return &graph{edges: map[types.Object][]types.Object{}} }

// reachable returns what naming obj reaches: a function or method, or a
// variable or field of function type (its generic origin); otherwise nil.
func reachable(obj types.Object) types.Object {
	switch o := obj.(type) {
	case *types.Func:
		return o.Origin()
	case *types.Var:
		if _, ok := o.Type().Underlying().(*types.Signature); ok {
			return o.Origin()
		}
	}
	return nil
}

// named returns the functions and function-typed variables n names.
func named(n ast.Node, info *types.Info) []types.Object {
	var objs []types.Object
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if o := reachable(info.Uses[id]); o != nil {
				objs = append(objs, o)
			}
		}
		return true
	})
	return objs
}

// addFiles adds the edges of a package's files: each function body's,
// and each assignment's of a value to a function-typed variable or field.
func (g *graph) addFiles(files []*ast.File, info *types.Info) {
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if from := info.Defs[fd.Name]; from != nil {
					g.edges[from] = append(g.edges[from], named(fd.Body, info)...)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) {
					for i := range n.Lhs {
						g.assign(n.Lhs[i], n.Rhs[i], info)
					}
				}
			case *ast.ValueSpec:
				for i := range min(len(n.Names), len(n.Values)) {
					g.assign(n.Names[i], n.Values[i], info)
				}
			case *ast.KeyValueExpr: // a struct literal's field: value
				g.assign(n.Key, n.Value, info)
			}
			return true
		})
	}
}

// assign adds the edges of lhs = rhs when lhs is a variable or field of
// function type.
func (g *graph) assign(lhs, rhs ast.Expr, info *types.Info) {
	var obj types.Object
	switch l := ast.Unparen(lhs).(type) {
	case *ast.Ident:
		if obj = info.Defs[l]; obj == nil {
			obj = info.Uses[l]
		}
	case *ast.SelectorExpr:
		obj = info.Uses[l.Sel]
	}
	if v, ok := obj.(*types.Var); ok {
		if to := reachable(v); to != nil {
			g.edges[to] = append(g.edges[to], named(rhs, info)...)
		}
	}
}

// path returns a shortest path from one of from to target, or nil.
func (g *graph) path(from []types.Object, target types.Object) []types.Object {
	if target == nil {
		return nil
	}
	parent := map[types.Object]types.Object{}
	var queue []types.Object
	for _, o := range from {
		if _, seen := parent[o]; !seen {
			parent[o] = nil
			queue = append(queue, o)
		}
	}
	for len(queue) > 0 {
		o := queue[0]
		queue = queue[1:]
		if o == target {
			var path []types.Object
			for ; o != nil; o = parent[o] {
				path = append(path, o)
			}
			for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
				path[i], path[j] = path[j], path[i]
			}
			return path
		}
		for _, next := range g.edges[o] {
			if _, seen := parent[next]; !seen {
				parent[next] = o
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// The graph follows calls, method values handed on, and function-typed
// fields to the values assigned to them; it finds no path where the loop
// only names a field nothing assigns, or calls through an interface.
func TestGraphFollowsFieldsAndValues(t *testing.T) {
	const src = `package p

type Loop struct{}

func (l *Loop) Tick() {}

type R struct {
	body func()
	l    *Loop
}

func New() *R {
	r := &R{}
	r.body = r.frame
	return r
}

func (r *R) frame() { r.l.Tick() }
func (r *R) Run() {
	for {
		region(r.body)
	}
}

func region(f func()) { f() }

type S struct {
	body func()
	t    interface{ Tick() }
}

func (s *S) Run() {
	for {
		region(s.body)
		s.t.Tick()
	}
}

type U struct{ f func() }

func (u U) Run() {
	for {
		u.f()
	}
}

var _ = U{f: func() { new(Loop).Tick() }}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	pkg, err := new(types.Config).Check("p", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	g := newGraph()
	g.addFiles([]*ast.File{f}, info)
	tick, _, _ := types.LookupFieldOrMethod(types.NewPointer(pkg.Scope().Lookup("Loop").Type()), false, pkg, "Tick")
	loopOf := func(typ string) []types.Object {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "Run" && strings.Contains(types.ExprString(fd.Recv.List[0].Type), typ) {
				return named(fd.Body.List[0].(*ast.ForStmt).Body, info)
			}
		}
		t.Fatalf("no %s.Run", typ)
		return nil
	}
	short := func(path []types.Object) string {
		var s []string
		for _, o := range path {
			s = append(s, o.Name())
		}
		return strings.Join(s, " -> ")
	}
	if got, want := short(g.path(loopOf("R"), tick)), "body -> frame -> Tick"; got != want {
		t.Errorf("R's loop: path %q, want %q", got, want)
	}
	if p := g.path(loopOf("S"), tick); p != nil {
		t.Errorf("S's loop: path %q, want none (nothing is assigned to S.body; interface calls are not followed)", short(p))
	}
	if got, want := short(g.path(loopOf("U"), tick)), "f -> Tick"; got != want {
		t.Errorf("U's loop: path %q, want %q", got, want)
	}
}
