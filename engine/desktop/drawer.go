package desktop

import (
	"github.com/nebulaengine/nebula/engine/render"

	"github.com/nebulaengine/nebula/gfx"
)

// A Drawer draws each frame into the window: the runner calls Draw once a
// frame, after the engine's frame (the ticks, Update, interpolation and the
// Render systems), with the window's framebuffer bound, and before the
// overlay and the swap; Screenshot calls it again with the last frame's
// View. Draw must draw the whole frame (clear it first) and must not
// allocate, as the runner does not.
//
// The default Drawer is the runner's gfx.Renderer (Runner.Renderer), which
// draws every instance as the mesh or model registered under its Mesh,
// posed by its Pose. A game that draws more, or otherwise, sets
// Config.Drawer: a Drawer of its own may call the renderer's Draw and
// then draw over it (DrawerFunc makes one of a function).
type Drawer interface {
	// Draw draws the frame v describes.
	Draw(v View)
}

// View is what a frame draws.
type View struct {
	// Width and Height are the framebuffer's size in pixels.
	Width, Height int
	// Clear is the background, RGBA in [0, 1] (Runner.ClearColor).
	Clear [4]float32
	// Camera is Runner.Camera as the Update systems left it.
	Camera gfx.Camera
	// Instances are the render buffer's interpolated instances
	// (engine.RenderBuffer.Instances), one per entity drawn.
	Instances []render.Instance
	// Poses are the render buffer's poses (engine.RenderBuffer.Poses), as
	// the Render systems left them: the skinning matrices and blend-shape
	// weights of the animated instances.
	Poses *render.Poses
	// Lights are the render buffer's point and spot lights
	// (engine.RenderBuffer.Lights), as the Render systems left them
	// (package light's Gather): give them to the renderer
	// (gfx.Renderer.SetLights) before its Draw.
	Lights []render.Light
	// OnGPU says the frame is drawn on the GPU path
	// (Config.InterpolateOnGPU): Instances is empty, and Ticks holds every
	// slot's state over the last tick, to draw with
	// gfx.Renderer.DrawTicks at Alpha.
	OnGPU bool
	// Ticks is every slot's state over the last tick
	// (engine.RenderBuffer.Ticks), on the GPU path; Poses then holds the
	// animated slots' poses at the start and end of that tick.
	Ticks render.Ticks
	// Alpha is the frame's place between the last two ticks, 0 to 1
	// (engine.RenderBuffer.Alpha).
	Alpha float32
}

// Draw draws v with ren: its lights, then its instances on the CPU path
// (gfx.Renderer.Draw) or its ticks on the GPU path
// (gfx.Renderer.DrawTicks). It is what the default Drawer does; a Drawer
// of a game's own calls it and draws its own things after.
func (v View) Draw(ren *gfx.Renderer) {
	ren.SetLights(v.Lights)
	if v.OnGPU {
		ren.DrawTicks(v.Width, v.Height, v.Clear, v.Camera, v.Ticks, v.Poses, v.Alpha)
		return
	}
	ren.Draw(v.Width, v.Height, v.Clear, v.Camera, v.Instances, v.Poses)
}

// DrawerFunc is a function that is a Drawer.
type DrawerFunc func(v View)

// Draw calls f(v).
func (f DrawerFunc) Draw(v View) { f(v) }

// rendererDrawer is the default Drawer: the renderer.
type rendererDrawer struct{ ren *gfx.Renderer }

func (d rendererDrawer) Draw(v View) { v.Draw(d.ren) }
