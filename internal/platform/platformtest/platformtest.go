// Package platformtest runs tests that need the main OS thread, as GLFW and
// OpenGL do, and decides whether tests that need a display skip or fail.
//
// A test package that touches windows or GL hands its TestMain to Main, and
// its tests send GL work to the main thread with OnMain:
//
//	func TestMain(m *testing.M) { platformtest.Main(m) }
//
//	func TestClear(t *testing.T) {
//		win := platformtest.OpenWindow(t, platformtest.SmallHidden())
//		var err error
//		platformtest.OnMain(func() {
//			err = gfx.Init()
//		})
//		...
//	}
//
// Where there is no display (or no OpenGL 4.1), such tests skip with a
// message saying why, unless NEBULA_REQUIRE_GL=1 (set by make test and CI),
// where they fail instead.
package platformtest

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/nebulaengine/nebula/internal/platform"
)

// RequireGLEnv names the environment variable that turns skipped GL tests
// into failures when it is set to a true value ("1", "true").
const RequireGLEnv = "NEBULA_REQUIRE_GL"

// calls carries work from the tests' goroutines to the main thread.
var calls = make(chan func())

// Main runs the tests on another goroutine while the main goroutine, locked
// to the main OS thread, serves OnMain calls; then it exits with the tests'
// status. Call it from TestMain.
func Main(m *testing.M) {
	// internal/platform's init has locked the main goroutine already; this
	// says so where it matters.
	runtime.LockOSThread()
	done := make(chan int)
	go func() { done <- m.Run() }()
	for {
		select {
		case f := <-calls:
			f()
		case code := <-done:
			os.Exit(code)
		}
	}
}

// OnMain runs f on the main thread and returns when it has finished. A panic
// in f is re-raised in the caller's goroutine. f must not call t.Fatal,
// t.FailNow or t.Skip (they would stop the main goroutine): carry results
// out in variables and check them after OnMain returns.
func OnMain(f func()) {
	var panicked any
	done := make(chan struct{})
	calls <- func() {
		defer close(done)
		defer func() { panicked = recover() }()
		f()
	}
	<-done
	if panicked != nil {
		panic(panicked)
	}
}

// RequireGL reports whether NEBULA_REQUIRE_GL asks GL tests to fail rather
// than skip.
func RequireGL() bool {
	v, err := strconv.ParseBool(os.Getenv(RequireGLEnv))
	return err == nil && v
}

// SkipOrFail skips the test because the environment cannot run it (no
// display, no OpenGL 4.1), or fails it when RequireGL is set.
func SkipOrFail(t testing.TB, why error) {
	t.Helper()
	if RequireGL() {
		t.Fatalf("needs a display with OpenGL %s: %v (%s is set, so this fails instead of skipping)", glVersion, why, RequireGLEnv)
	}
	t.Skipf("needs a display with OpenGL %s: %v (%s=1 makes this fail instead of skipping)", glVersion, why, RequireGLEnv)
}

const glVersion = "4.1 core"

// SmallHidden returns the configuration tests use: a hidden 64x64 window.
func SmallHidden() platform.Config {
	cfg := platform.DefaultConfig()
	cfg.Title = "nebula test"
	cfg.Width, cfg.Height = 64, 64
	cfg.Visible = false
	return cfg
}

// OpenWindow opens a window on the main thread and closes it when the test
// ends. Without a display or OpenGL 4.1 it skips or fails the test (see
// SkipOrFail); any other error fails it.
func OpenWindow(t testing.TB, cfg platform.Config) *platform.Window {
	t.Helper()
	var (
		win *platform.Window
		err error
	)
	OnMain(func() { win, err = platform.Open(cfg) })
	switch {
	case errors.Is(err, platform.ErrNoDisplay), errors.Is(err, platform.ErrNoGL41):
		SkipOrFail(t, err)
	case err != nil:
		t.Fatalf("platform.Open(%+v): %v", cfg, err)
	}
	t.Cleanup(func() { OnMain(win.Close) })
	return win
}
