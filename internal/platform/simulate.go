package platform

// The Simulate methods deliver a window event as if the window system had
// reported it: the window's state changes and its callback runs, exactly as
// in PollEvents. They exist for tests of what a game does on events a test
// display cannot produce: Xvfb has no window manager, so nothing there ever
// minimises a window (xdotool windowminimize asks the window manager, and
// none answers), and an X window cannot be 0x0. Call them on the main
// thread.
//
// A later real event of the same kind overrides a simulated one.

// SimulateFocus delivers a focus change. Unlike a real focus loss it does
// not make GLFW release the keys it saw held.
func (w *Window) SimulateFocus(focused bool) { w.onFocus(w.live(), focused) }

// SimulateIconify delivers a minimise (true) or restore (false).
func (w *Window) SimulateIconify(iconified bool) { w.onIconify(w.live(), iconified) }

// SimulateFramebufferSize delivers a framebuffer resize; FramebufferSize
// reports the simulated size until the next real resize. 0x0 is what some
// systems (Windows) report for a minimised window.
func (w *Window) SimulateFramebufferSize(width, height int) {
	w.onFramebufferSize(w.live(), width, height)
}
