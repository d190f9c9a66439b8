//go:build (linux || freebsd || netbsd || openbsd) && !wayland

package platform

/*
#cgo linux LDFLAGS: -lX11
#cgo freebsd netbsd openbsd pkg-config: x11
#include <X11/Xlib.h>

// X11 specifics: an error guard and a connection helper (see xhold).
//
// The guard notices when another X client destroys one of our windows
// (xdotool windowclose, a misbehaving tool) instead of letting Xlib's
// default error handler print the error and exit(1) the process at the next
// request that names the window, without deferred cleanup. Errors about a
// watched window's X window or GLX drawable mark it lost and are dropped;
// once a window is lost, later BadWindow, BadDrawable and extension (GLX,
// MIT-SHM) errors on the display are dropped too, since tearing the window
// and its context down produces a few of them. Every other error goes to the
// handler that was installed before (Xlib's default), unchanged.
//
// GLFW installs its own handler around the requests whose errors it wants,
// and restores this one afterwards. Everything here runs on the main thread,
// inside Xlib calls.

enum { guardMax = 64 };

static Display* guardDisplay;
static XErrorHandler guardPrev;
static int guardInstalled;
static struct { unsigned long window, drawable; int used, lost; } guardSlots[guardMax];
static volatile int guardAnyLost;

static int guardHandler(Display* d, XErrorEvent* e) {
	if (d == guardDisplay) {
		int drawableError = e->error_code == BadWindow || e->error_code == BadDrawable || e->error_code >= 128;
		if (drawableError) {
			for (int i = 0; i < guardMax; i++) {
				if (guardSlots[i].used && e->resourceid != 0 &&
				    (e->resourceid == guardSlots[i].window || e->resourceid == guardSlots[i].drawable)) {
					guardSlots[i].lost = 1;
					guardAnyLost = 1;
					return 0;
				}
			}
			if (guardAnyLost) {
				return 0;
			}
		}
	}
	return guardPrev ? guardPrev(d, e) : 0;
}

static void guardInstall(Display* d) {
	guardDisplay = d;
	if (!guardInstalled) {
		guardPrev = XSetErrorHandler(guardHandler);
		guardInstalled = 1;
	}
}

static void guardUninstall(void) {
	if (guardInstalled) {
		XSetErrorHandler(guardPrev);
		guardInstalled = 0;
	}
	guardDisplay = NULL;
	guardPrev = NULL;
	guardAnyLost = 0;
	for (int i = 0; i < guardMax; i++) {
		guardSlots[i].used = 0;
		guardSlots[i].lost = 0;
	}
}

static int guardWatch(unsigned long window, unsigned long drawable) {
	for (int i = 0; i < guardMax; i++) {
		if (!guardSlots[i].used) {
			guardSlots[i].window = window;
			guardSlots[i].drawable = drawable;
			guardSlots[i].used = 1;
			guardSlots[i].lost = 0;
			return i;
		}
	}
	return -1;
}

static int guardLost(int i) { return i >= 0 && i < guardMax && guardSlots[i].lost; }

static void guardForget(int i) {
	if (i >= 0 && i < guardMax) {
		guardSlots[i].used = 0;
	}
}

static Display* holdOpen(void) { return XOpenDisplay(NULL); }
static void holdClose(Display* d) { XCloseDisplay(d); }
*/
import "C"

import (
	"os"
	"strings"
	"time"
	"unsafe"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// xhold connects to the X server of $DISPLAY and returns a function that
// disconnects; call it once GLFW is initialised. ok is false when no X
// server answers.
//
// An X server whose last client has left resets itself, and refuses
// connections while it does: Xvfb does so unless started with -noreset, and
// xvfb-run does not pass it. A program that closes its only window and opens
// another (every window test does, and so may a game that recreates its
// window) then finds the display gone for a moment. So the connection is
// retried for about a second when a local X server's socket exists, and the
// connection is held while GLFW connects, so that the server does not reset
// again in between. Where nothing listens, the first failure is final.
func xhold() (release func(), ok bool) {
	delay := xConnectFirstDelay
	retry := localXSocketExists(os.Getenv("DISPLAY"))
	for attempt := 1; ; attempt++ {
		if d := C.holdOpen(); d != nil {
			return func() { C.holdClose(d) }, true
		}
		if !retry || attempt == xConnectAttempts {
			return nil, false
		}
		time.Sleep(delay)
		delay *= 2
	}
}

// localXSocketExists reports whether display names a local X server (":N",
// ":N.S" or "unix:N") whose Unix socket exists.
func localXSocketExists(display string) bool {
	host, num, ok := strings.Cut(display, ":")
	if !ok || (host != "" && host != "unix") {
		return false
	}
	num, _, _ = strings.Cut(num, ".")
	if num == "" || strings.Trim(num, "0123456789") != "" {
		return false
	}
	_, err := os.Stat("/tmp/.X11-unix/X" + num)
	return err == nil
}

// xguardInstall installs the X error guard on GLFW's display; call it after
// a successful glfw.Init.
func xguardInstall() {
	C.guardInstall((*C.Display)(unsafe.Pointer(glfw.GetX11Display())))
}

// xguardUninstall restores the previous X error handler; call it after
// glfw.Terminate, whose XCloseDisplay has delivered every pending error.
func xguardUninstall() { C.guardUninstall() }

// xguardWatch starts watching a window and returns its slot (-1 when every
// slot is taken: the window is then simply not guarded).
func xguardWatch(w *glfw.Window) int {
	window := uint64(w.GetX11Window())
	drawable := uint64(w.GetGLXWindow())
	return int(C.guardWatch(C.ulong(window), C.ulong(drawable)))
}

// xguardLost reports whether the window in slot was destroyed by someone
// else.
func xguardLost(slot int) bool { return C.guardLost(C.int(slot)) != 0 }

// xguardForget stops watching a window that was closed normally. A lost
// window stays watched until xguardUninstall: errors about it may still be
// on their way.
func xguardForget(slot int) { C.guardForget(C.int(slot)) }
