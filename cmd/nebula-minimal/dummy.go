package main

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/anim"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/detmath"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/engine/ragdoll"
	"github.com/nebulaengine/nebula/engine/render"
	"github.com/nebulaengine/nebula/engine/sound"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/modelgen"
)

// The training dummy: a skinned figure that waves, falls as a ragdoll
// when the player walks up to it, and stands up again.
const (
	// meshDummy is the dummy's mesh: its model, registered with the
	// animations, the ragdolls and the renderer.
	meshDummy = render.MeshFirstGame
	// dummyHeight is its height, m (its model is 1 unit tall).
	dummyHeight = 1.8
	// dummyReach is how near, m, the player's centre comes to the
	// dummy's, across the floor, to knock it down, and knockSpeed the
	// speed, m/s, the dummy's body is pushed away at.
	dummyReach, knockSpeed = 1.0, 4
	// downTicks is how long it lies before it stands up (3 s at 60 Hz),
	// and standTicks how long standing up takes (0.5 s).
	downTicks, standTicks = 180, 30
)

// dummyModel makes the dummy's model: package modelgen's figure, which
// stands in for a model of your own (model.Load("hero.glb")).
func dummyModel() (*model.Model, error) {
	return model.FromDocument(modelgen.Figure(), "figure")
}

// addDummy spawns the dummy 4 m along x and -z, facing the player's
// start, waving, with its ragdoll (built from the model's skin by bone
// names), and adds the systems that play its clip, move its ragdoll and
// knock it down.
func (g *world) addDummy() error {
	m, err := dummyModel()
	if err != nil {
		return err
	}
	wave := slices.IndexFunc(m.Clips, func(c model.Clip) bool { return c.Name == modelgen.ClipWave })
	def, err := ragdoll.Build(m, ragdoll.DefaultMapping(m))
	if err != nil || wave < 0 {
		return fmt.Errorf("the dummy's ragdoll (wave clip %d): %w", wave, err)
	}
	w := g.e.World
	g.anims = anim.New(w)
	g.anims.SetModel(meshDummy, m)
	g.ragdolls = ragdoll.New(g.space, g.anims)
	if err := g.ragdolls.SetDef(meshDummy, def, ragdoll.DefaultOptions()); err != nil {
		return err
	}
	s := float32(dummyHeight)
	g.dummy = w.Spawn(geom.Transform{Pos: mgl32.Vec3{4, s / 2, -4}, Rot: detmath.AxisAngle(mgl32.Vec3{0, 1, 0}, -math.Pi/4), Scale: mgl32.Vec3{s, s, s}}, engine.Interpolate)
	w.SetMesh(g.dummy, meshDummy)
	g.anims.Play(g.dummy, wave, true)
	if err := g.ragdolls.Add(g.dummy); err != nil {
		return err
	}
	for _, err := range []error{
		g.e.AddSystem(engine.StageScripts, "anim", g.anims.Advance),
		g.e.AddStage("ragdoll", engine.Before(engine.StagePhysics)),
		g.e.AddSystem("ragdoll", "ragdoll", g.ragdolls.Update),
		g.e.AddSystem(engine.StageCollision, "knock down", g.knockDown),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// knockDown makes the dummy fall as a ragdoll, pushed away from the
// player, when the player comes within dummyReach of it, and stands it up
// where it lies downTicks later.
func (g *world) knockDown(c *engine.FixedContext) {
	w := c.World
	rd, _ := g.ragdolls.Component().Get(g.dummy)
	switch rd.Phase {
	case ragdoll.Falling:
		if rd.Ticks >= downTicks {
			t := w.Transform(g.dummy)
			root := w.Transform(rd.Bodies[0]).Pos
			t.Pos[0], t.Pos[2] = root[0], root[2]
			w.Teleport(g.dummy, t)
			if err := g.ragdolls.StandUp(g.dummy, standTicks); err != nil {
				panic(err) // a bug: it is falling
			}
		}
	case ragdoll.Animated:
		away := w.Transform(g.dummy).Pos.Sub(w.Transform(g.player).Pos)
		away[1] = 0
		d2 := detmath.Dot(away, away)
		if d2 > dummyReach*dummyReach {
			return
		}
		if err := g.ragdolls.Start(g.dummy); err != nil {
			panic(err) // a bug: it is animated
		}
		// A knock, heard from where the dummy is drawn (sound.go).
		g.sounds.Emit(c, sound.Event{Sound: g.sfx.knock, Entity: g.dummy, Spatial: true})
		if d2 > 1e-6 {
			away = away.Mul(1 / detmath.Sqrt(d2))
		}
		// Its upper half is pushed: it topples over its feet.
		rd, _ = g.ragdolls.Component().Get(g.dummy)
		for _, b := range rd.Bodies[:rd.Count] {
			if body, _ := g.space.Body(b); w.Transform(b).Pos[1] > dummyHeight/2 {
				_ = g.space.ApplyImpulse(b, away.Mul(float32(knockSpeed*body.Mass))) // a dynamic body: no error
			}
		}
	}
}

// drawDummy puts the dummy's model on the GPU, registers it with the
// renderer, and adds the render systems that pose its skin: from its clip,
// then from its ragdoll's bodies while it is down.
func (g *world) drawDummy(r *desktop.Runner) error {
	m, err := dummyModel()
	if err != nil {
		return err
	}
	gm, err := gfx.NewModel(r.Renderer().Memory(), m)
	if err != nil {
		return fmt.Errorf("the dummy: %w", err)
	}
	r.Renderer().Register(meshDummy, gm)
	g.e.AddRender("pose", g.anims.Pose)
	g.e.AddRender("ragdoll", g.ragdolls.Pose)
	return nil
}
