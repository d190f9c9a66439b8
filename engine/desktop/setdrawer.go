package desktop

// Drawer returns the Drawer the runner draws each frame with:
// Config.Drawer, the one SetDrawer set, or the default (the renderer).
func (r *Runner) Drawer() Drawer { return r.drawer }

// SetDrawer makes d draw the frames from the next one on (and the
// screenshots); nil restores the default, the renderer. A Drawer that adds
// to the frame wraps the one Drawer returns (package
// engine/desktop/physicsview does). Call it on the main thread, between
// frames (from a key hook, an Update system or before Run).
func (r *Runner) SetDrawer(d Drawer) {
	r.mustOpen("SetDrawer")
	if d == nil {
		d = rendererDrawer{r.ren}
	}
	r.drawer = d
}
