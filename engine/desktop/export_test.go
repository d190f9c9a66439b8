package desktop

import "github.com/nebulaengine/nebula/internal/platform"

// Window returns the runner's window, for tests that drive it (iconify,
// close, read its framebuffer size). It is not part of the package's API:
// platform.Window is internal, and a game talks to the window through the
// Runner's own methods.
func (r *Runner) Window() *platform.Window { r.mustOpen("Window"); return r.win }

// SetPollHook makes Run call f on every pass of its loop, right after the
// window's events were processed (also while the window is minimised, when
// no frame is drawn): tests deliver simulated window events from there, on
// the main thread.
func SetPollHook(r *Runner, f func()) { r.testHookPoll = f }

// ShotBuffer returns the image Screenshot reads frames into.
func ShotBuffer(r *Runner) any { return r.shot }

// OverlayText returns the text the overlay was last laid out with.
func OverlayText(r *Runner) string {
	if r.diag == nil {
		return ""
	}
	return string(r.diag.panel.Text)
}
