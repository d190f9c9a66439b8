package platform

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"
)

func init() {
	// GLFW and OpenGL contexts must be used from the main OS thread: GLFW
	// requires its event and window functions to be called from the thread
	// that initialised it (Cocoa insists on the process's first thread), and
	// a GL context is current on one thread only. Package initialisation runs
	// on the main goroutine while it is still on the main thread, so locking
	// here keeps main() there for the life of the program.
	runtime.LockOSThread()
}

// Connecting to an X server that is resetting is retried xConnectAttempts
// times, waiting xConnectFirstDelay and then twice as long each time (about
// 1.3 s in all); see xhold.
const (
	xConnectAttempts   = 9
	xConnectFirstDelay = 5 * time.Millisecond
)

// The GL version every window's context is created with. gfx checks the same
// floor when it loads the functions.
const (
	glMajor = 4
	glMinor = 1
)

var (
	// ErrNoDisplay is matched (errors.Is) by Open's error when there is no
	// display to open a window on: no X server, or $DISPLAY unset or wrong.
	ErrNoDisplay = errors.New("no display")
	// ErrNoGL41 is matched (errors.Is) by Open's error when the driver cannot
	// create an OpenGL 4.1 core, forward-compatible context.
	ErrNoGL41 = errors.New("OpenGL 4.1 core context not available")
)

// Config describes the window to open. Start from DefaultConfig: the zero
// value has no size and is rejected.
type Config struct {
	// Title is the window's title.
	Title string
	// Width and Height are the window's client-area size in screen
	// coordinates; the framebuffer may be larger on high-DPI screens (see
	// Window.FramebufferSize). Both must be positive. They are ignored when
	// Fullscreen is set.
	Width, Height int
	// Fullscreen opens the window on the primary monitor at that monitor's
	// current video mode ("borderless fullscreen": no mode switch).
	Fullscreen bool
	// VSync makes SwapBuffers wait for the display's vertical refresh
	// (swap interval 1); without it buffers swap immediately (interval 0).
	VSync bool
	// Visible shows the window. Tests open hidden windows: rendering and
	// reading pixels back work the same in a hidden window's framebuffer.
	Visible bool
	// Gamepads says how the window reads gamepads (dead zone, extra
	// mappings).
	Gamepads GamepadConfig
}

// Defaults used by DefaultConfig.
const (
	DefaultTitle  = "Nebula"
	DefaultWidth  = 1280
	DefaultHeight = 720
)

// DefaultConfig returns a visible 1280x720 window titled "Nebula", windowed,
// without vsync, whose gamepads' sticks have the DefaultDeadZone.
func DefaultConfig() Config {
	return Config{
		Title:    DefaultTitle,
		Width:    DefaultWidth,
		Height:   DefaultHeight,
		Visible:  true,
		Gamepads: GamepadConfig{DeadZone: DefaultDeadZone},
	}
}

// Window is an open window with a current OpenGL 4.1 core context. All its
// methods must be called from the main thread.
type Window struct {
	w  *glfw.Window
	cb Callbacks

	// State as of the last event processed (see events.go).
	focused, iconified bool
	fbWidth, fbHeight  int
	vsync              bool

	guard int  // slot in the X error guard, or -1
	lost  bool // destroyed by another client (see x11.go)

	joys *glfwJoysticks // the window's joystick source
	pads *Gamepads      // polled in PollEvents and WaitEvents
}

// openWindows counts the windows Open has created and Close has not yet
// closed: GLFW is initialised by the first Open and terminated when the last
// window closes. It is only touched on the main thread, like GLFW itself.
var openWindows int

// glfwInitialised says whether GLFW is initialised. Wake, which may run on
// any goroutine, reads it; glfwMu orders that with Init and Terminate.
var (
	glfwMu          sync.Mutex
	glfwInitialised bool
)

// Open initialises GLFW if needed and opens a window with an OpenGL 4.1 core,
// forward-compatible context, made current on the calling (main) thread, with
// the swap interval set from cfg.VSync. Errors are single-line messages that
// start with "platform:"; see ErrNoDisplay and ErrNoGL41.
func Open(cfg Config) (*Window, error) {
	if !cfg.Fullscreen && (cfg.Width <= 0 || cfg.Height <= 0) {
		return nil, fmt.Errorf("platform: window size must be positive, got %dx%d", cfg.Width, cfg.Height)
	}
	if err := cfg.Gamepads.check(); err != nil {
		return nil, err
	}
	if openWindows == 0 {
		tuneCAllocator()
		if err := initGLFW(); err != nil {
			return nil, err
		}
	}
	gw, err := createWindow(cfg)
	if err == nil && cfg.Gamepads.Mappings != "" {
		if err = updateMappings(cfg.Gamepads.Mappings); err != nil {
			gw.Destroy()
		}
	}
	if err != nil {
		if openWindows == 0 {
			terminateGLFW()
		}
		return nil, err
	}
	openWindows++
	w := &Window{
		w:         gw,
		focused:   gw.GetAttrib(glfw.Focused) == glfw.True,
		iconified: gw.GetAttrib(glfw.Iconified) == glfw.True,
		vsync:     cfg.VSync,
		guard:     xguardWatch(gw),
	}
	w.fbWidth, w.fbHeight = gw.GetFramebufferSize()
	w.installCallbacks()
	w.joys = newGLFWJoysticks()
	w.pads, _ = NewGamepads(w.joys, cfg.Gamepads) // checked above
	return w, nil
}

// initGLFW initialises GLFW and reports a failure as an error.
//
// go-gl/glfw's Init does not return platform errors: it prints them with the
// standard logger and returns nil, and "cannot open the X display" is such a
// platform error. So the absence of a display is checked first: an empty
// $DISPLAY, then a connection of our own (xhold, which also rides out an X
// server's reset); and success is confirmed afterwards with a call that
// fails, by panicking with NotInitialized, when Init did not succeed.
func initGLFW() error {
	if usesX11 && os.Getenv("DISPLAY") == "" {
		return fmt.Errorf("platform: cannot open a window: %w: $DISPLAY is not set (run under xvfb-run, or set DISPLAY)", ErrNoDisplay)
	}
	release, ok := xhold()
	if !ok {
		return fmt.Errorf("platform: cannot open a window: %w: cannot connect to X display %q (is $DISPLAY right? run under xvfb-run)",
			ErrNoDisplay, os.Getenv("DISPLAY"))
	}
	defer release()
	glfwMu.Lock()
	err := catch(func() error { return glfw.Init() })
	if err == nil && catch(func() error { glfw.GetTime(); return nil }) != nil {
		err = errInitFailed
	}
	if err == nil {
		glfwInitialised = true
		xguardInstall()
		glfw.SetJoystickCallback(onJoystick)
	}
	glfwMu.Unlock()
	if err == nil {
		return nil
	}
	if usesX11 {
		return fmt.Errorf("platform: cannot open a window: %w: cannot connect to X display %q (is $DISPLAY right? run under xvfb-run): %w",
			ErrNoDisplay, os.Getenv("DISPLAY"), err)
	}
	return fmt.Errorf("platform: cannot open a window: %w: %w", ErrNoDisplay, err)
}

// errInitFailed is GLFW failing to initialise without an error of its own.
//
//srccheck:wrapped by the window opener, as "platform: cannot open a window: ..."
var errInitFailed = errors.New("GLFW failed to initialise (go-gl/glfw logged the reason above)")

// terminateGLFW terminates GLFW, after which Wake does nothing.
func terminateGLFW() {
	glfwMu.Lock()
	defer glfwMu.Unlock()
	glfw.Terminate()
	glfwInitialised = false
	// Terminate closed the display, which delivered any error still on its
	// way; the guard has nothing left to catch.
	xguardUninstall()
}

// usesX11 says whether GLFW was built for X11 on this OS (it is on Linux and
// the BSDs unless built with the wayland tag), which is what makes $DISPLAY
// matter.
const usesX11 = runtime.GOOS == "linux" || runtime.GOOS == "freebsd" || runtime.GOOS == "netbsd" || runtime.GOOS == "openbsd"

func createWindow(cfg Config) (*glfw.Window, error) {
	glfw.DefaultWindowHints()
	glfw.WindowHint(glfw.ClientAPI, glfw.OpenGLAPI)
	glfw.WindowHint(glfw.ContextVersionMajor, glMajor)
	glfw.WindowHint(glfw.ContextVersionMinor, glMinor)
	glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
	glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
	glfw.WindowHint(glfw.DoubleBuffer, glfw.True)
	glfw.WindowHint(glfw.Visible, hint(cfg.Visible))

	width, height := cfg.Width, cfg.Height
	var monitor *glfw.Monitor
	if cfg.Fullscreen {
		monitor = glfw.GetPrimaryMonitor()
		if monitor == nil {
			return nil, errors.New("platform: cannot open a fullscreen window: no monitor is connected")
		}
		mode := monitor.GetVideoMode()
		if mode == nil {
			return nil, errors.New("platform: cannot open a fullscreen window: the primary monitor reports no video mode")
		}
		glfw.WindowHint(glfw.RedBits, mode.RedBits)
		glfw.WindowHint(glfw.GreenBits, mode.GreenBits)
		glfw.WindowHint(glfw.BlueBits, mode.BlueBits)
		glfw.WindowHint(glfw.RefreshRate, mode.RefreshRate)
		width, height = mode.Width, mode.Height
	}

	var w *glfw.Window
	err := catch(func() (err error) {
		w, err = glfw.CreateWindow(width, height, cfg.Title, monitor, nil)
		return err
	})
	var gerr *glfw.Error
	switch {
	case errors.As(err, &gerr) && isContextError(gerr.Code):
		return nil, fmt.Errorf("platform: %w: %w (update the graphics driver, or use Mesa's software renderer with LIBGL_ALWAYS_SOFTWARE=1)", ErrNoGL41, err)
	case err != nil:
		return nil, fmt.Errorf("platform: cannot create the window: %w", err)
	case w == nil:
		// go-gl/glfw logs platform errors instead of returning them.
		return nil, errors.New("platform: cannot create the window: GLFW reported a platform error (logged above)")
	}

	err = catch(func() error {
		w.MakeContextCurrent()
		if cfg.VSync {
			glfw.SwapInterval(1)
		} else {
			glfw.SwapInterval(0)
		}
		return nil
	})
	if err != nil {
		w.Destroy()
		return nil, fmt.Errorf("platform: cannot make the OpenGL context current: %w", err)
	}
	return w, nil
}

// isContextError reports whether a window-creation error code means that the
// requested context (API, version, profile or pixel format) is unavailable.
func isContextError(code glfw.ErrorCode) bool {
	return code == glfw.APIUnavailable || code == glfw.VersionUnavailable || code == glfw.FormatUnavailable
}

// catch calls f and returns its error, or the *glfw.Error it panicked with:
// go-gl/glfw panics on error codes it considers programmer errors, which
// include NotInitialized after a failed Init and FormatUnavailable when no
// pixel format matches. Other panics are not ours to hide and propagate.
func catch(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			gerr, ok := r.(*glfw.Error)
			if !ok {
				panic(r)
			}
			err = gerr
		}
	}()
	return f()
}

func hint(b bool) int {
	if b {
		return glfw.True
	}
	return glfw.False
}

// Close destroys the window and its context and, when it was the last open
// window, terminates GLFW. Closing a closed (or nil) window does nothing.
func (w *Window) Close() {
	if w == nil || w.w == nil {
		return
	}
	if !w.checkLost() {
		xguardForget(w.guard)
	}
	w.w.Destroy()
	w.w = nil
	w.cb = Callbacks{}
	w.joys.close()
	openWindows--
	if openWindows == 0 {
		terminateGLFW()
	}
}

// ShouldClose reports whether the user asked to close the window (the close
// button, Alt+F4 or the window manager's equivalent), SetShouldClose set
// the flag, or the window was lost (see Lost).
func (w *Window) ShouldClose() bool {
	gw := w.live()
	return w.checkLost() || gw.ShouldClose()
}

// Lost reports whether another X client destroyed the window (xdotool
// windowclose does). On X11 that would normally end the process at the next
// request naming the window, from inside Xlib; platform catches those X
// errors instead, and the window then reports ShouldClose. Drawing into a
// lost window does nothing; Close it. Always false on other systems.
func (w *Window) Lost() bool {
	w.live()
	return w.checkLost()
}

func (w *Window) checkLost() bool {
	if !w.lost && xguardLost(w.guard) {
		w.lost = true
	}
	return w.lost
}

// SwapBuffers presents the frame drawn into the back buffer. With VSync it
// waits for the display's vertical refresh.
func (w *Window) SwapBuffers() { w.live().SwapBuffers() }

// PollEvents processes pending window-system events, calling the windows'
// Callbacks, and returns at once. It serves every open window; it is a
// method so callers need only a Window.
func (w *Window) PollEvents() {
	w.live()
	glfw.PollEvents()
	w.checkLost()
	w.pollGamepads()
}

// FramebufferSize returns the size of the window's framebuffer in pixels,
// which is what the GL viewport and ReadPixels use; on high-DPI screens it
// may differ from Config.Width and Config.Height, which are in screen
// coordinates. It is the size the window system last reported (it is kept
// from the resize events, so asking costs no round trip to the X server);
// it can be 0x0 while the window is minimised on some systems.
func (w *Window) FramebufferSize() (width, height int) {
	w.live()
	return w.fbWidth, w.fbHeight
}

// live returns the GLFW window, panicking if it has been closed: using a
// closed Window is a programming error, and GLFW would crash on it.
func (w *Window) live() *glfw.Window {
	if w == nil || w.w == nil {
		panic("platform: use of a closed or nil Window")
	}
	return w.w
}
