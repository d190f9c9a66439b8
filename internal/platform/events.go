package platform

import (
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/nebulaengine/nebula/engine/input"
)

// Callbacks receive what the window system reports about a window. They are
// called on the main thread from inside PollEvents and WaitEvents (and from
// the Simulate methods). Every field is optional.
//
// Input events are translated to the engine's terms: GLFW key codes become
// input.Keys (keys the engine does not know are dropped), mouse buttons
// keep their numbers, and every event is stamped with Clock(), which should
// be the clock whose readings drive the loop, so that events and fixed ticks
// are on one time line.
type Callbacks struct {
	// Clock stamps input events. It is required when Input is set.
	Clock func() time.Duration
	// Input receives key presses and releases, mouse button presses and
	// releases, cursor moves (window pixels from the top-left corner of the
	// client area) and scroll offsets, in the order they happened, and
	// after them, once per PollEvents or WaitEvents, the gamepads'
	// connections, disconnections, buttons and axes (see Gamepads). Key
	// repeats are not sent: they change no state (Key sees them).
	Input func(input.Event)
	// Key receives every press, repeat and release of a key the engine
	// knows, right after Input: for actions outside the simulation, such as
	// quit, pause or screenshot keys.
	Key func(key input.Key, pressed, repeat bool)
	// FramebufferSize receives the framebuffer's new size in pixels. It may
	// be 0x0 (a minimised window on some systems); draw nothing then.
	FramebufferSize func(width, height int)
	// Focus receives focus changes (only changes: repeated reports of the
	// same state are dropped). When a window loses focus GLFW releases the
	// keys and buttons it saw held, through Input, after Focus.
	Focus func(focused bool)
	// Iconify receives minimise (true) and restore (false), changes only.
	Iconify func(iconified bool)
	// Close is called when the user asks to close the window (the close
	// button, Alt+F4, the window manager's equivalent); ShouldClose is true
	// from then on.
	Close func()
}

// SetCallbacks replaces the window's callbacks. It panics when cb.Input is
// set without cb.Clock.
func (w *Window) SetCallbacks(cb Callbacks) {
	w.live()
	if cb.Input != nil && cb.Clock == nil {
		panic("platform: Callbacks.Input is set without Callbacks.Clock to stamp the events")
	}
	w.cb = cb
}

// installCallbacks connects GLFW's callbacks to w once, when the window is
// opened; SetCallbacks only swaps the Go functions they forward to. The
// method values are made here, once, so delivering an event allocates
// nothing.
func (w *Window) installCallbacks() {
	gw := w.w
	gw.SetKeyCallback(w.onKey)
	gw.SetMouseButtonCallback(w.onMouseButton)
	gw.SetCursorPosCallback(w.onCursorPos)
	gw.SetScrollCallback(w.onScroll)
	gw.SetFramebufferSizeCallback(w.onFramebufferSize)
	gw.SetFocusCallback(w.onFocus)
	gw.SetIconifyCallback(w.onIconify)
	gw.SetCloseCallback(w.onClose)
}

func (w *Window) push(ev input.Event) {
	if w.cb.Input == nil {
		return
	}
	ev.Time = w.cb.Clock()
	w.cb.Input(ev)
}

func (w *Window) onKey(_ *glfw.Window, key glfw.Key, _ int, action glfw.Action, _ glfw.ModifierKey) {
	k := engineKey(key)
	if k == input.KeyUnknown {
		return
	}
	switch action {
	case glfw.Press:
		w.push(input.Event{Kind: input.KeyDown, Key: k})
	case glfw.Release:
		w.push(input.Event{Kind: input.KeyUp, Key: k})
	}
	if w.cb.Key != nil {
		w.cb.Key(k, action != glfw.Release, action == glfw.Repeat)
	}
}

func (w *Window) onMouseButton(_ *glfw.Window, button glfw.MouseButton, action glfw.Action, _ glfw.ModifierKey) {
	b, ok := engineButton(button)
	if !ok {
		return
	}
	switch action {
	case glfw.Press:
		w.push(input.Event{Kind: input.ButtonDown, Button: b})
	case glfw.Release:
		w.push(input.Event{Kind: input.ButtonUp, Button: b})
	}
}

func (w *Window) onCursorPos(_ *glfw.Window, x, y float64) {
	w.push(input.Event{Kind: input.CursorMove, X: x, Y: y})
}

func (w *Window) onScroll(_ *glfw.Window, dx, dy float64) {
	w.push(input.Event{Kind: input.Scroll, X: dx, Y: dy})
}

func (w *Window) onFramebufferSize(_ *glfw.Window, width, height int) {
	w.fbWidth, w.fbHeight = width, height
	if w.cb.FramebufferSize != nil {
		w.cb.FramebufferSize(width, height)
	}
}

// The X server may report one focus change as several events (a FocusOut
// for each way it left); GLFW passes them all on. Only changes are reported.

func (w *Window) onFocus(_ *glfw.Window, focused bool) {
	if focused == w.focused {
		return
	}
	w.focused = focused
	if w.cb.Focus != nil {
		w.cb.Focus(focused)
	}
}

func (w *Window) onIconify(_ *glfw.Window, iconified bool) {
	if iconified == w.iconified {
		return
	}
	w.iconified = iconified
	if w.cb.Iconify != nil {
		w.cb.Iconify(iconified)
	}
}

func (w *Window) onClose(*glfw.Window) {
	if w.cb.Close != nil {
		w.cb.Close()
	}
}

// Focused reports whether the window has the input focus, as of the last
// event processed.
func (w *Window) Focused() bool { w.live(); return w.focused }

// Iconified reports whether the window is minimised, as of the last event
// processed.
func (w *Window) Iconified() bool { w.live(); return w.iconified }

// KeyHeld reports whether the window system says k is held down now, as
// GLFW last saw it (GLFW forgets held keys when the window loses focus).
// It is false for input.KeyUnknown.
func (w *Window) KeyHeld(k input.Key) bool {
	gk := glfwKey(k)
	if gk == glfw.KeyUnknown {
		return false
	}
	return w.live().GetKey(gk) == glfw.Press
}

// ButtonHeld reports whether mouse button b is held down now, as GLFW last
// saw it.
func (w *Window) ButtonHeld(b input.MouseButton) bool {
	if b >= input.MouseButtonCount {
		return false
	}
	return w.live().GetMouseButton(glfw.MouseButton(b)) == glfw.Press
}

// CursorPos returns the cursor's position in window pixels from the
// top-left corner of the client area.
func (w *Window) CursorPos() (x, y float64) { return w.live().GetCursorPos() }

// SetTitle changes the window's title.
func (w *Window) SetTitle(title string) { w.live().SetTitle(title) }

// SetShouldClose sets or clears the flag ShouldClose reports, as if the user
// had asked to close the window (without calling Callbacks.Close).
func (w *Window) SetShouldClose(v bool) { w.live().SetShouldClose(v) }

// SetVSync turns waiting for the display's vertical refresh on swap on (swap
// interval 1) or off (0). It makes the window's context current.
func (w *Window) SetVSync(on bool) {
	gw := w.live()
	gw.MakeContextCurrent()
	if on {
		glfw.SwapInterval(1)
	} else {
		glfw.SwapInterval(0)
	}
	w.vsync = on
}

// MakeCurrent makes the window's OpenGL context current on the calling
// (main) thread. Open already did; it matters only with several windows.
func (w *Window) MakeCurrent() { w.live().MakeContextCurrent() }

// VSync reports whether swaps wait for the vertical refresh.
func (w *Window) VSync() bool { w.live(); return w.vsync }

// WaitEvents sleeps until an event arrives, Wake is called or timeout has
// passed, then processes the pending events like PollEvents. A minimised
// window's loop waits here instead of spinning. A timeout of zero or less
// processes the pending events and returns at once.
func (w *Window) WaitEvents(timeout time.Duration) {
	w.live()
	if timeout <= 0 {
		glfw.PollEvents()
	} else {
		glfw.WaitEventsTimeout(timeout.Seconds())
	}
	w.checkLost()
	w.pollGamepads()
}

// pollGamepads pushes what the gamepads did since the last poll, stamped
// with Callbacks.Clock, when the window has an Input callback. (GLFW
// reports no gamepad events: gamepads are read, once per poll.)
func (w *Window) pollGamepads() {
	if w.cb.Input == nil || w.w == nil {
		return
	}
	w.pads.Poll(w.cb.Clock(), w.cb.Input)
}

// Wake makes a WaitEvents in progress return. Unlike everything else in this
// package it may be called from any goroutine, at any time: it does nothing
// when no window is open.
func Wake() {
	glfwMu.Lock()
	defer glfwMu.Unlock()
	if glfwInitialised {
		glfw.PostEmptyEvent()
	}
}
