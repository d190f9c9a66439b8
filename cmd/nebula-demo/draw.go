package main

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/gfx"
)

// moonlight is the physics mode's directional light: the arena at night,
// where the lamps (scene.LampColor) do most of the lighting. The moon is
// low to the right, so the bodies' shadows fall long to the left, where
// the camera sees them (a light from behind the camera hides a shadow
// behind its caster).
var moonlight = gfx.Light{Dir: mgl32.Vec3{0.75, 0.55, 0.37}.Normalize(), Ambient: 0.1, Diffuse: 0.4}

// edgeColor is the colour of the box's edges.
var edgeColor = [4]float32{0.55, 0.6, 0.7, 1}

// sceneDrawer draws the demo's frame: the render buffer's instances
// (cubes, spheres, the floor and the animated figure) with the runner's
// renderer, then the box's edges over them.
//
// Its GL objects are made by setup, once the window's context exists, and
// live as long as that context: closing the window frees them.
type sceneDrawer struct {
	ren    *gfx.Renderer
	edges  *gfx.Lines
	figure *gfx.Model
}

// setup makes the box's edges and the figure's model on the GPU, registers
// the model with the renderer under scene.MeshFigure and with the scene's
// animations, and adds the animations' Pose render system; it turns the
// shadows on unless shadows is false (-shadows=false).
func (d *sceneDrawer) setup(r *desktop.Runner, sc *scene.Scene, shadows bool) error {
	m, err := scene.FigureModel()
	if err != nil {
		return err
	}
	d.ren = r.Renderer()
	if d.edges, err = gfx.NewLines(d.ren.Memory(), gfx.BoxEdges(scene.Box)); err != nil {
		return fmt.Errorf("the box's edges: %w", err)
	}
	if d.figure, err = gfx.NewModel(d.ren.Memory(), m); err != nil {
		return fmt.Errorf("the figure: %w", err)
	}
	d.ren.Register(scene.MeshFigure, d.figure)
	sc.Anim.SetModel(scene.MeshFigure, m)
	r.Engine().AddRender("pose", sc.Anim.Pose)
	if sc.Ragdolls != nil { // the physics mode: the figure's skin follows its ragdoll
		r.Engine().AddRender("ragdoll", sc.Ragdolls.Pose)
	}
	if sc.Lights != nil { // the physics mode: the arena at night, lit by its lamps
		d.ren.SetLight(moonlight)
	}
	if shadows {
		if err := d.ren.SetShadows(gfx.DefaultShadows()); err != nil {
			return err
		}
	}
	return nil
}

// Draw draws v: the instances, then the edges.
func (d *sceneDrawer) Draw(v desktop.View) {
	v.Draw(d.ren)
	d.edges.Draw(v.Width, v.Height, v.Camera, edgeColor)
}
