// Package physicsview draws a physics Space's debug drawing
// (engine/physics/debugdraw) over a windowed runner's frames, in one call:
//
//	view, err := physicsview.Attach(runner, space, debugdraw.DefaultOptions())
//	if err != nil {
//		return err
//	}
//	view.SetEnabled(true) // or bind view.Toggle to a key
//
// The drawing is made every frame from the render buffer the frame draws
// (the bodies at their interpolated transforms, so the wireframes sit on
// the drawn bodies) and drawn through a gfx.LineBatch over what the
// runner's Drawer drew. It reads the world and changes nothing in it.
package physicsview

import (
	"fmt"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/physics/debugdraw"
	"github.com/nebulaengine/nebula/gfx"
)

// View is a Space's debug drawing over a runner's frames: a desktop.Drawer
// that draws the frame with the Drawer the runner had, then, when
// enabled, the drawing. Its GL objects live as long as the window's
// context (Delete frees them sooner).
type View struct {
	r     *desktop.Runner
	e     *engine.Engine
	next  desktop.Drawer
	space *physics.Space
	batch *gfx.LineBatch
	draw  debugdraw.Drawing
	opts  debugdraw.Options
	on    bool
}

// Attach makes r draw s's debug drawing, with o, over its frames: it
// wraps r's Drawer (Runner.Drawer) in a View and sets it (SetDrawer). The
// View starts disabled. Call it on the main thread once the window is
// open (in the set-up function a runner is made with, or before Run); it
// returns an error when the GL objects cannot be made.
func Attach(r *desktop.Runner, s *physics.Space, o debugdraw.Options) (*View, error) {
	if r == nil || s == nil {
		return nil, fmt.Errorf("physicsview: Attach: the runner (%v) or the space (%v) is nil", r != nil, s != nil)
	}
	if s.World() != r.Engine().World {
		return nil, fmt.Errorf("physicsview: Attach: the space simulates another world than the runner's engine")
	}
	b, err := gfx.NewLineBatch(r.Renderer().Memory())
	if err != nil {
		return nil, fmt.Errorf("physicsview: Attach: %w", err)
	}
	v := &View{r: r, e: r.Engine(), next: r.Drawer(), space: s, batch: b, opts: o}
	r.SetDrawer(v)
	return v, nil
}

// Draw draws the frame dv describes: with the Drawer the runner had, then
// the debug drawing when enabled. It allocates nothing once its buffers
// have grown to the scene.
func (v *View) Draw(dv desktop.View) {
	v.next.Draw(dv)
	if !v.on || v.batch == nil {
		return
	}
	v.draw.Build(v.space, &v.e.Render, v.opts)
	v.batch.Draw(dv.Width, dv.Height, dv.Camera, v.draw.Lines)
}

// SetEnabled shows or hides the drawing from the next frame on. While it
// is shown with Options.Queries, the Space's query log is on
// (Space.SetQueryLog), so the drawing has the last tick's queries; hiding
// it turns the log off again. The log changes no query's answer: turning
// it on and off is safe in a replay or a match.
func (v *View) SetEnabled(on bool) {
	v.on = on
	v.space.SetQueryLog(on && v.opts.Queries)
}

// Enabled reports whether the drawing is shown.
func (v *View) Enabled() bool { return v.on }

// Toggle shows the drawing when it is hidden and hides it when it is
// shown, and returns whether it is now shown (a key's binding).
func (v *View) Toggle() bool {
	v.SetEnabled(!v.on)
	return v.on
}

// Options returns what the drawing shows.
func (v *View) Options() debugdraw.Options { return v.opts }

// SetOptions changes what the drawing shows, from the next frame on.
func (v *View) SetOptions(o debugdraw.Options) {
	v.opts = o
	v.SetEnabled(v.on)
}

// Drawing returns the drawing the last frame drew (its Lines).
func (v *View) Drawing() *debugdraw.Drawing { return &v.draw }

// Delete gives the runner back the Drawer it had and frees the GL
// objects. Call it on the main thread while the window is open.
func (v *View) Delete() {
	if v.batch == nil {
		return
	}
	v.SetEnabled(false)
	v.r.SetDrawer(v.next)
	v.batch.Delete()
	v.batch = nil
}
