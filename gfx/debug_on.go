//go:build nebuladebug

package gfx

import "strings"

// DebugChecks is true in builds with the nebuladebug tag, where Renderer.Draw
// checks for OpenGL errors after every frame and panics with
// the error's name.
const DebugChecks = true

// checkFrame panics if OpenGL recorded an error (during the frame, or
// before it and unchecked), naming the error and the method.
func checkFrame(method string) {
	if err := CheckError(); err != nil {
		panic("gfx: OpenGL error after " + method + " (nebuladebug build): " + strings.TrimPrefix(err.Error(), "gfx: OpenGL "))
	}
}
