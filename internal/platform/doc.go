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
//
// # Events
//
// SetCallbacks connects a window to a game. Keys, mouse buttons, cursor
// moves and the wheel are translated into input.Events (GLFW key codes
// into input.Keys; mouse buttons keep their numbers) and stamped with a
// clock the caller provides, the one that drives the loop, so that events
// and fixed ticks share one time line; keys also go to a raw hook for
// actions outside the simulation. Resizes, focus, minimise and close
// requests have callbacks too, and the window keeps their latest state
// (FramebufferSize, Focused, Iconified, ShouldClose) without asking the
// window system every frame:
//
//	clock := timing.NewMonotonicClock()
//	win.SetCallbacks(platform.Callbacks{
//		Clock: clock.Now,
//		Input: e.Input.Push,
//		Key: func(k input.Key, pressed, repeat bool) {
//			if k == input.KeyEscape && pressed {
//				win.SetShouldClose(true)
//			}
//		},
//	})
//
// Callbacks run inside PollEvents and WaitEvents. WaitEvents sleeps until an
// event arrives, for a minimised window's loop; Wake, from any goroutine,
// ends the wait.
//
// # Gamepads
//
// GLFW reports no gamepad events; a window reads its gamepads once per
// PollEvents and WaitEvents, through GLFW's gamepad API (every known
// controller remapped to the standard layout by the SDL mapping database
// GLFW ships; Config.Gamepads.Mappings and Window.UpdateGamepadMappings
// add more), and pushes what changed to Callbacks.Input as input.Events,
// stamped with Callbacks.Clock like keys: connections and disconnections
// (GLFW's joystick callback, hot-plug), button presses and releases, and
// axis moves. Each gamepad gets the lowest free pad number, 0 to
// input.MaxGamepads-1. Sticks have a radial dead zone
// (Config.Gamepads.DeadZone, DefaultDeadZone 0.2 from DefaultConfig);
// triggers read 0 to 1. The reading and the events are Gamepads' work,
// which takes its joysticks from a JoystickSource: GLFW's in a window, a
// fake in tests, so gamepads are tested without hardware.
//
// Test displays cannot produce every event: Xvfb has no window manager, so
// nothing minimises a window there, and an X window is never 0x0. The
// Simulate methods deliver such events as the window system would.
//
// On X11, a window destroyed by another program (xdotool windowclose)
// would make Xlib end the process at the next request naming it; an X error
// handler installed by Open catches those errors instead, and the window
// reports Lost and ShouldClose. (A client that kills the connection itself,
// as xdotool windowkill and xkill do, still ends the process: Xlib exits on
// a lost connection whatever the program does.)
//
// # The C allocator
//
// On Linux with glibc, the first Open raises malloc's trim and mmap
// thresholds (to 64 MiB and 32 MiB) for the whole process. OpenGL drivers,
// Mesa's software renderer above all, allocate and free megabytes per
// frame; with glibc's defaults every frame gave that memory back to the
// kernel and page-faulted it in again. Go's heap is not affected. Delete
// the call in Open to keep glibc's defaults.
package platform
