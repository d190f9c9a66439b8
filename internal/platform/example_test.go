package platform_test

import (
	"fmt"
	"os"

	"github.com/nebulaengine/nebula/internal/platform"
)

// Open a window, run until the user closes it, and report environment
// failures in one line. Run this from main: GLFW needs the main thread.
func ExampleOpen() {
	cfg := platform.DefaultConfig()
	cfg.Title = "my game"
	cfg.VSync = true
	win, err := platform.Open(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "my-game:", err)
		return
	}
	defer win.Close()
	for !win.ShouldClose() {
		// draw with gfx here
		win.SwapBuffers()
		win.PollEvents()
	}

	// No output: it opens a window, which needs a display and the main
	// thread (go test runs examples on neither), and runs until it is
	// closed.
}
