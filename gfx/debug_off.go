//go:build !nebuladebug

package gfx

// DebugChecks is true in builds with the nebuladebug tag, where Renderer.Draw
// checks for OpenGL errors after every frame and panics with
// the error's name. In this build it is false and they do not check: call
// CheckError where an error matters.
const DebugChecks = false

func checkFrame(string) {}
