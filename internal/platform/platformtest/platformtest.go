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
//
// Tests that drive a window from outside, as a user would, take LockInput
// (the display's focus, pointer and keyboard are shared with the other test
// processes), open it with Visible(UniqueTitle(t)), find it with FindWindow
// and send it keys, resizes and closes with XDoTool, from the test's
// goroutine while the main thread processes the window's events.
package platformtest

import (
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

// Visible returns a visible window's configuration with the given title, for
// tests that drive the window from outside (xdotool finds it by title).
func Visible(title string) platform.Config {
	cfg := SmallHidden()
	cfg.Title = title
	cfg.Visible = true
	return cfg
}

// UniqueTitle returns a window title naming the test and the process, so
// that FindWindow finds this test's window and no other. It contains no
// regular-expression metacharacters.
func UniqueTitle(t testing.TB) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, t.Name())
	return fmt.Sprintf("nebula-test-%s-%d-%d", name, os.Getpid(), titleSeq.Add(1))
}

var titleSeq atomic.Int64

// RequireTool skips the test when the program name is not installed, or
// fails it when NEBULA_REQUIRE_GL is set (make deps installs the tools the
// window tests use).
func RequireTool(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if RequireGL() {
			t.Fatalf("needs %s: %v (%s is set, so this fails instead of skipping; make deps installs it)", name, err, RequireGLEnv)
		}
		t.Skipf("needs %s: %v (make deps installs it)", name, err)
	}
}

// XDoTool runs xdotool with args on $DISPLAY and returns its standard
// output, trimmed. It fails the test when xdotool fails. Call it from the
// test's goroutine, never inside OnMain: the main thread must stay free to
// process the events xdotool causes.
func XDoTool(t testing.TB, args ...string) string {
	t.Helper()
	out, err := XDoToolErr(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// XDoToolErr is XDoTool returning the error instead of failing the test, for
// commands that may fail where there is no window manager.
func XDoToolErr(args ...string) (string, error) {
	cmd := exec.Command("xdotool", args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("platformtest: xdotool %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// FindWindow returns the X window id of the window titled title (see
// UniqueTitle), waiting up to 5 seconds for it to appear. It fails the test
// when it does not, or when several windows have the title.
func FindWindow(t testing.TB, title string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, err := XDoToolErr("search", "--name", "^"+title+"$")
		if ids := strings.Fields(out); err == nil && len(ids) > 0 {
			if len(ids) > 1 {
				t.Fatalf("%d windows are titled %q: %v", len(ids), title, ids)
			}
			return ids[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window titled %q appeared within 5s (last search: %q, %v)", title, out, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ReadPNG reads the PNG file at path (a screenshot a test had written),
// failing the test when it cannot.
func ReadPNG(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}
