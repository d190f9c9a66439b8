// Package namecheck holds no code: its tests check that the names the
// project promises exist and that its examples run.
//
// TestCardLoopCallsTick pins the design card: "A main-thread-locked GLFW
// event loop calls timing.Loop.Tick, which runs fixed FixedUpdate systems
// and then an OpenGL renderer that interpolates". It type-checks the
// windowed runner and the module packages below it from source (the
// packages outside the module from their export data) and checks that
//
//   - (*timing.Loop).Tick exists with the documented signature
//     func (l *Loop) Tick(now time.Duration, fixed func(Step), render func(alpha float64)) int
//     (parameter names aside), and is the loop's only name for it: Loop has
//     no method Frame, nor another method of Tick's signature;
//   - the for loop of (*desktop.Runner).Run reaches glfw.PollEvents and
//     (*timing.Loop).Tick, and engine/desktop's init reaches
//     runtime.LockOSThread.
//
// "Reaches" follows the calls the source makes without running it: a
// function body reaches every function and method it names (called, or
// taken as a value: a value handed to trace.WithRegion is called there),
// and every variable or struct field of function type it names; such a
// variable or field reaches whatever function value the module's source
// assigns to it anywhere (x.f = g, f := g, var f = g, T{f: g}). Calls
// through interfaces are not followed. The test logs the path it found.
//
// TestDocNamesExist checks the Go names that README.md and docs/*.md write
// in code: inline code spans (`...`) and fenced code blocks marked go. In
// them, a name is a selector chain: identifiers joined by dots, where an
// element may carry type arguments ("NewResource[T]") or an empty call
// ("Renderer()"), so `Runner.Renderer().Register(id, m)` names
// Runner.Renderer and its result's Register. A chain ending in a file
// extension (`doc.go`, `cmd/nebula-demo/main.go`) or followed by a slash
// is a path, not checked. A chain written after a package's path
// (`engine/replay.Open`, from the module's root or in full) resolves in
// that package. Otherwise the chain's first element decides:
//
//   - the name of a package of the module (engine, desktop, netplay, ...),
//     or, where no package of the module has that name, of a package the
//     module imports (time, flag, net, glfw, ...), read from its export
//     data: the next element must be declared in that package (Example,
//     Test, Benchmark and Fuzz functions in its _test.go files);
//   - an exported identifier declared at the top level of a package of the
//     module (World, Runner, Loop, ...): the chain resolves from it, in
//     any package declaring that name;
//   - anything else is not checked: a lower-case first element is a
//     variable of an example (`c.Tick`, `cfg.Loop.TickRate`: its type is
//     not written) or a host (`github.com`). A variable named like a
//     package the module imports is read as that package: examples name
//     their variables otherwise (logger, not log).
//
// Each further element must be a field or method of the type of what
// precedes it: of the type itself, of a variable's or constant's type, of
// a function's first result when the function is called ("()").
//
// TestExamplesCheckOutput checks that every Example function in the
// module's _test.go files runs under go test: it has an "// Output:" or
// "// Unordered output:" comment (an empty one checks that it prints
// nothing), or it says why it cannot with a comment line "No output:"
// followed by the reason, in its doc comment or its body, for example
// "// No output: opens a window, which go test may not have".
package namecheck
