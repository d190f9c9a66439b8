//go:build !((linux || freebsd || netbsd || openbsd) && !wayland)

package platform

import "github.com/go-gl/glfw/v3.3/glfw"

// Only X11 kills the process when a window is destroyed from outside, and
// only X servers reset when their last client leaves: elsewhere these are
// no-ops.

func xhold() (release func(), ok bool) { return func() {}, true }

func xguardInstall()               {}
func xguardUninstall()             {}
func xguardWatch(*glfw.Window) int { return -1 }
func xguardLost(int) bool          { return false }
func xguardForget(int)             {}
