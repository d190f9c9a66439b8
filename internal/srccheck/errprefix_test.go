package srccheck

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/internal/layout"
)

// The folders whose errors TestErrorsPrefixed checks, with everything under
// them unless excluded.
var (
	prefixed       = []string{"engine", "gfx", "timing", "internal"}
	prefixExcluded = commandLine
)

// commandLine lists the packages that make the command line's messages,
// which app.Main (and gameserver.Main) prints after the program's name
// ("nebula-demo: replay x.rec: ..."): they start with what they are about (a flag, a file), and
// the program's name stands for the package's.
var commandLine = []string{"internal/app", "internal/cli", "internal/prof", "internal/gameserver"}

// wrappedDirective, in the doc comment of a function, of a method's type
// or of a variable, says that the errors it makes are details its callers wrap with
// the package's name; the rest of the line says who.
const wrappedDirective = "//srccheck:wrapped "

// TestErrorsPrefixed checks that every error the checked packages make
// with errors.New or fmt.Errorf from a string literal starts with the name
// of the package that made it and ": " ("model: ..."), unless
//
//   - the format starts with %w: it wraps an error that says where it
//     comes from;
//   - the error is an argument of a call (fmt.Errorf's %w, binread's
//     Fail), which wraps it;
//   - it is a package-level variable (a sentinel for errors.Is) that the
//     package only hands to calls or compares, never returns as it is;
//   - the function that makes it, the type of the method that does, or
//     the variable that holds it has a line "//srccheck:wrapped by ..." in
//     its doc comment: its callers add the prefix.
//
// The command-line packages (commandLine) are not checked, nor are a
// game's own packages in a copy made by scripts/newgame.sh (those README.md's
// layout table does not list: package internal/layout).
func TestErrorsPrefixed(t *testing.T) {
	fset, files := parseModule(t)
	// Per folder: types and functions marked wrapped, and sentinels.
	marked := map[string]bool{} // "dir.Name" or "dir.Type.Method"
	for _, f := range files {
		for _, d := range f.file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if hasWrapped(d.Doc) {
					marked[f.dir+"."+funcName(d)] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if hasWrapped(s.Doc) || len(d.Specs) == 1 && hasWrapped(d.Doc) {
							marked[f.dir+"."+s.Name.Name] = true
						}
					case *ast.ValueSpec:
						if hasWrapped(s.Doc) || len(d.Specs) == 1 && hasWrapped(d.Doc) {
							for _, n := range s.Names {
								marked[f.dir+"."+n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	type sentinel struct {
		pos  token.Pos
		text string
	}
	sentinels := map[string]sentinel{} // "dir.Name"
	lay, err := layout.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if !inScope(f.dir) || f.file.Name.Name == "main" || lay.Game(f.dir) {
			continue
		}
		want := f.file.Name.Name + ": "
		args := map[ast.Expr]bool{} // arguments of calls seen so far
		var stack []ast.Node
		ast.Inspect(f.file, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			for _, a := range call.Args {
				args[a] = true
			}
			text, ok := errorText(call)
			if !ok {
				return true
			}
			checked++
			switch {
			case args[call], strings.HasPrefix(text, want), strings.HasPrefix(text, "%w"):
				return true
			}
			if name, ok := sentinelName(stack); ok {
				if !marked[f.dir+"."+name] {
					sentinels[f.dir+"."+name] = sentinel{call.Pos(), text}
				}
				return true
			}
			if fd := enclosingFunc(stack); fd != nil && (marked[f.dir+"."+funcName(fd)] || marked[f.dir+"."+recvType(fd)]) {
				return true
			}
			t.Errorf("%s: %q: start the message with %q, or mark the function %q if its callers wrap it", fset.Position(call.Pos()), text, want, wrappedDirective+"by ...")
			return true
		})
	}
	// A sentinel without the prefix must only be handed to calls (%w) or
	// compared.
	for _, f := range files {
		var stack []ast.Node
		ast.Inspect(f.file, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			id, ok := n.(*ast.Ident)
			if !ok || len(stack) < 2 {
				return true
			}
			s, ok := sentinels[f.dir+"."+id.Name]
			if !ok {
				return true
			}
			switch p := stack[len(stack)-2].(type) {
			case *ast.CallExpr:
				if p.Fun != id {
					return true
				}
			case *ast.BinaryExpr, *ast.ValueSpec:
				return true
			}
			t.Errorf("%s: %s is used as it is at %s: start its message %q with %q", fset.Position(s.pos), id.Name, fset.Position(id.Pos()), s.text, f.file.Name.Name+": ")
			return true
		})
	}
	t.Logf("%d error messages checked, %d sentinels only wrapped", checked, len(sentinels))
	if checked == 0 {
		t.Error("no errors.New or fmt.Errorf found: does the test still find the module's files?")
	}
}

// errorText returns the message of errors.New("...") or the format of
// fmt.Errorf("...", ...).
func errorText(call *ast.CallExpr) (string, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || !(pkg.Name == "errors" && sel.Sel.Name == "New" || pkg.Name == "fmt" && sel.Sel.Name == "Errorf") {
		return "", false
	}
	return literal(call.Args[0])
}

// sentinelName returns the name of the package-level variable whose value
// the call at the top of stack is.
func sentinelName(stack []ast.Node) (string, bool) {
	if len(stack) < 4 {
		return "", false
	}
	_, file := stack[0].(*ast.File)
	_, decl := stack[1].(*ast.GenDecl)
	vs, ok := stack[2].(*ast.ValueSpec)
	if !file || !decl || !ok || len(stack) != 4 || len(vs.Names) != len(vs.Values) {
		return "", false
	}
	for i, v := range vs.Values {
		if v == stack[3] {
			return vs.Names[i].Name, true
		}
	}
	return "", false
}

// enclosingFunc returns the function declaration in stack, or nil.
func enclosingFunc(stack []ast.Node) *ast.FuncDecl {
	for _, n := range stack {
		if fd, ok := n.(*ast.FuncDecl); ok {
			return fd
		}
	}
	return nil
}

// funcName is "Name" for a function, "Type.Name" for a method.
func funcName(fd *ast.FuncDecl) string {
	if t := recvType(fd); t != "" {
		return t + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// recvType is the name of a method's receiver type, "" for a function.
func recvType(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	typ := fd.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// hasWrapped reports whether a doc comment has the wrapped directive.
func hasWrapped(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, c := range doc.List {
		if strings.HasPrefix(c.Text, wrappedDirective) {
			return true
		}
	}
	return false
}

// inScope reports whether TestErrorsPrefixed checks the package in dir.
func inScope(dir string) bool {
	return inAny(dir, prefixed) && !inAny(dir, prefixExcluded)
}

// inAny reports whether dir is one of dirs or inside one.
func inAny(dir string, dirs []string) bool {
	for _, p := range dirs {
		if under(dir, p) {
			return true
		}
	}
	return false
}

// literal returns the value of a string literal, or of a + of them.
func literal(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok := literal(e.X)
		if !ok {
			return "", false
		}
		y, ok := literal(e.Y)
		return x + y, ok
	case *ast.ParenExpr:
		return literal(e.X)
	}
	return "", false
}
