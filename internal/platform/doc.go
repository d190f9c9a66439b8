// Package platform opens the engine's window and its OpenGL context. It is
// the only package that imports GLFW.
//
// GLFW, and the OpenGL context it creates, must be used from the main OS
// thread. Importing this package locks the main goroutine to the main thread
// (see init), so call everything here, and everything in gfx, from the
// goroutine that runs main.
//
// A window is opened with an OpenGL 4.1 core, forward-compatible context,
// which is current on the calling thread when Open returns:
//
//	func run() int {
//		cfg := platform.DefaultConfig()
//		cfg.Title = "my game"
//		win, err := platform.Open(cfg)
//		if err != nil {
//			fmt.Fprintln(os.Stderr, "my-game:", err) // for example "platform: cannot open a window: no display: $DISPLAY is not set ..."
//			return 1
//		}
//		defer win.Close() // destroys the window and terminates GLFW
//		if err := gfx.Init(); err != nil {
//			fmt.Fprintln(os.Stderr, "my-game:", err)
//			return 1
//		}
//		for !win.ShouldClose() {
//			gfx.Clear(0.1, 0.1, 0.1, 1)
//			win.SwapBuffers()
//			win.PollEvents()
//		}
//		return 0
//	}
//
// Environment failures are returned as errors with one-line messages that
// say what to do; errors.Is reports ErrNoDisplay and ErrNoGL41 for the two
// common ones, so callers (and tests) can tell them apart.
package platform
