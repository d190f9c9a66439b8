package anim_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"

	"fmt"
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/anim"
	"github.com/nebulaengine/nebula/engine/model"
)

// arm is a model of two bones, the forearm one unit above the upper arm,
// with one clip, "raise", that turns the forearm a quarter turn about Z
// in one second. (A game loads its models with package model, or makes
// them in code like this.)
func arm() *model.Model {
	q := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1})
	return &model.Model{
		Name: "arm",
		Nodes: []model.Node{
			{Name: "upper", Parent: -1, Rest: geom.NewTransform(mgl32.Vec3{0, 0, 0})},
			{Name: "fore", Parent: 0, Rest: geom.NewTransform(mgl32.Vec3{0, 1, 0})},
		},
		Palette: []model.Joint{
			{Node: 0, InverseBind: mgl32.Ident4()},
			{Node: 1, InverseBind: mgl32.Translate3D(0, -1, 0)},
		},
		Clips: []model.Clip{{Name: "raise", Duration: 1, Channels: []model.Channel{{
			Path: model.Rotation, Node: 1, Times: []float32{0, 1},
			Values: []float32{0, 0, 0, 1, q.V[0], q.V[1], q.V[2], q.W}, // x y z w, as glTF
		}}}},
	}
}

// The set-up of an animated entity: the animator component, the model its
// mesh plays, Advance first in the scripts stage, Pose in Render. A game
// system plays the clip at tick 3; each frame draws the forearm between the
// last two ticks.
func Example() {
	e, err := engine.New(engine.DefaultConfig()) // 60 Hz
	if err != nil {
		panic(err)
	}
	anims := anim.New(e.World)
	const armMesh = render.MeshFirstGame
	anims.SetModel(armMesh, arm())
	e.AddSystem(engine.StageScripts, "anim", anims.Advance) // first: see Advance
	ent := e.World.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	e.World.SetMesh(ent, armMesh)
	e.AddSystem(engine.StageScripts, "game", func(c *engine.FixedContext) {
		if c.Tick == 3 {
			anims.Play(ent, 0, false)
		}
	})
	e.AddRender("anim", anims.Pose)
	e.AddRender("show", func(c *engine.FrameContext) {
		in := c.Render.Instances[0]
		if in.Pose == 0 {
			fmt.Printf("tick %d: no animator yet\n", c.World.Tick())
			return
		}
		ref := c.Render.Poses.Refs[in.Pose-1]
		fore := c.Render.Poses.Bones[ref.FirstBone+1] // the forearm's matrix, rows
		deg := math.Atan2(float64(fore[4]), float64(fore[0])) * 180 / math.Pi
		a, _ := anims.Component().Get(ent)
		fmt.Printf("tick %d, alpha %.2f: clip time %5.2f ms, forearm turned %.3f degrees\n",
			c.World.Tick(), c.Alpha, float64(a.Time)/1e6, deg)
	})
	for ms := 0; ms <= 84; ms += 12 {
		e.Frame(time.Duration(ms) * time.Millisecond)
	}
	// Output:
	// tick 0: no animator yet
	// tick 0: no animator yet
	// tick 1: no animator yet
	// tick 2: no animator yet
	// tick 2: no animator yet
	// tick 3, alpha 0.60: clip time  0.00 ms, forearm turned 0.000 degrees
	// tick 4, alpha 0.32: clip time 16.67 ms, forearm turned 0.480 degrees
	// tick 5, alpha 0.04: clip time 33.33 ms, forearm turned 1.560 degrees
}

// A ball held at the tip of the arm's forearm: attached to joint 1 half a
// unit beyond it, it follows the forearm as the clip raises it.
func ExampleAttachments() {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		panic(err)
	}
	a := anim.New(e.World)
	joints := anim.NewAttachments(a)
	a.SetModel(render.MeshFirstGame, arm())
	e.AddSystem(engine.StageScripts, "anim", a.Advance)
	if err := e.AddStage("attach", engine.Before(engine.StageTransforms)); err != nil {
		panic(err)
	}
	e.AddSystem("attach", "joints", joints.Follow) // before propagation

	figure := e.World.Spawn(geom.NewTransform(mgl32.Vec3{5, 0, 0}), engine.Interpolate)
	e.World.SetMesh(figure, render.MeshFirstGame)
	a.Play(figure, 0, false)
	ball := e.World.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	if err := joints.Attach(ball, figure, 1, geom.NewTransform(mgl32.Vec3{0, 0.5, 0})); err != nil {
		panic(err)
	}
	for tick := 1; tick <= 60; tick++ {
		e.StepTick(time.Duration(tick) * time.Second / 60)
		if tick%30 == 0 {
			p := e.World.WorldTransform(ball).Pos
			fmt.Printf("tick %d: ball at %.2f %.2f %.2f\n", tick, p[0], p[1], p[2])
		}
	}
	// Output:
	// tick 30: ball at 4.65 1.35 0.00
	// tick 60: ball at 4.50 1.00 0.00
}
