package ragdoll

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/anim"
	"github.com/nebulaengine/nebula/engine/detmath"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/render"
)

// figureScale is the test figure's height, m (the model is 1 unit tall).
const figureScale = 1.8

// meshFigure is the test figure's mesh id.
const meshFigure = render.MeshFirstGame

// rig is a headless engine with physics, animation and ragdolls, a floor
// with its top at y = 0 and the figure standing on it, walking along +x.
type rig struct {
	t     testing.TB
	e     *engine.Engine
	w     *engine.World
	space *physics.Space
	anims *anim.Animations
	rag   *Ragdolls
	def   *Def
	fig   engine.Entity
	walk  mgl32.Vec3 // the figure's velocity while Animated, m/s
	// onCollision runs in the collision stage of every tick (after the
	// physics step).
	onCollision func(tick uint64)
}

func newRig(t testing.TB, o Options) *rig {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	space, err := physics.Attach(e, physics.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, e: e, w: e.World, space: space, anims: anim.New(e.World)}
	r.rag = New(space, r.anims)
	m := figure(t)
	if r.def, err = Build(m, DefaultMapping(m)); err != nil {
		t.Fatal(err)
	}
	if err := r.rag.SetDef(meshFigure, r.def, o); err != nil {
		t.Fatal(err)
	}
	floor := r.w.Spawn(geom.NewTransform(mgl32.Vec3{0, -0.5, 0}), engine.NoInterpolation)
	if err := space.AddBody(floor, physics.NewBodyDef(physics.Static, physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{50, 0.5, 50}})); err != nil {
		t.Fatal(err)
	}
	r.fig = r.w.Spawn(geom.Transform{Pos: mgl32.Vec3{0, figureScale / 2, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{figureScale, figureScale, figureScale}}, engine.Interpolate)
	r.w.SetMesh(r.fig, meshFigure)
	r.anims.Play(r.fig, 0, true) // walk
	r.walk = mgl32.Vec3{1.2, 0, 0}
	if err := r.rag.Add(r.fig); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		e.AddSystem(engine.StageScripts, "anim", r.anims.Advance),
		e.AddSystem(engine.StageScripts, "walk", r.walkFigure),
		e.AddStage("ragdoll", engine.Before(engine.StagePhysics)),
		e.AddSystem("ragdoll", "ragdoll", r.rag.Update),
		e.AddSystem(engine.StageCollision, "test", func(c *engine.FixedContext) {
			if r.onCollision != nil {
				r.onCollision(c.Tick)
			}
		}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// walkFigure moves the figure along r.walk while it is animated.
func (r *rig) walkFigure(c *engine.FixedContext) {
	if ph, _ := r.rag.Phase(r.fig); ph != Animated {
		return
	}
	t := r.w.Transform(r.fig)
	t.Pos = detmath.AddScaled(t.Pos, r.walk, c.DT)
	r.w.SetTransform(r.fig, t)
}

// ticks runs n ticks.
func (r *rig) ticks(n int) {
	r.t.Helper()
	for range n {
		if !r.e.StepTick(0) {
			r.t.Fatal(r.e.Err())
		}
	}
}

// state returns the figure's ragdoll state.
func (r *rig) state() Ragdoll {
	rd, ok := r.rag.Component().Get(r.fig)
	if !ok {
		r.t.Fatal("the figure has no ragdoll")
	}
	return rd
}

// expectedPose returns each part's world transform in the figure's pose
// at the end of the current tick (or the previous one), computed here
// from the animator and the figure's transform with package anim and geom
// alone.
func (r *rig) expectedPose(prev bool) []geom.Transform {
	an, _ := r.anims.Component().Get(r.fig)
	clip, ns, loop, et := an.Clip, an.Time, an.Loop, r.w.Transform(r.fig)
	if prev {
		clip, ns, loop, et = an.PrevClip, an.PrevTime, an.PrevLoop, r.w.PrevTransform(r.fig)
	}
	var lp anim.LocalPose
	anim.Sample(r.def.Model, int(clip), ns, loop, &lp)
	out := make([]geom.Transform, len(r.def.Parts))
	for i, p := range r.def.Parts {
		g := lp.Nodes[p.Bone]
		for n := r.def.Model.Nodes[p.Bone].Parent; n >= 0; n = r.def.Model.Nodes[n].Parent {
			g = lp.Nodes[n].Mul(g)
		}
		out[i] = et.Mul(g.Mul(p.Offset))
	}
	return out
}

// jointReading is a joint's state measured from its bodies.
type jointReading struct {
	gap          float64 // the distance between the anchors, m
	angle        float64 // a revolute joint's angle, rad
	swing, twist float64 // a spherical joint's, rad
}

func v64(v mgl32.Vec3) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }

func rot64(q mgl32.Quat, v mgl32.Vec3) [3]float64 {
	r := geom.Rotate(q, v)
	return v64(r)
}

func dot64(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross64(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func sub64(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func norm64(a [3]float64) float64      { return math.Sqrt(dot64(a, a)) }
func unit64(a [3]float64) [3]float64 {
	l := norm64(a)
	return [3]float64{a[0] / l, a[1] / l, a[2] / l}
}

// readJoint measures joint j (a spawned joint) from its bodies' poses.
func (r *rig) readJoint(j engine.Entity) jointReading {
	jc, ok := r.space.Joint(j)
	if !ok {
		r.t.Fatalf("%v is not a joint", j)
	}
	ta, tb := r.w.Transform(jc.A), r.w.Transform(jc.B)
	pa := v64(geom.Transform{Pos: ta.Pos, Rot: ta.Rot, Scale: mgl32.Vec3{1, 1, 1}}.Apply(jc.AnchorA))
	pb := v64(geom.Transform{Pos: tb.Pos, Rot: tb.Rot, Scale: mgl32.Vec3{1, 1, 1}}.Apply(jc.AnchorB))
	var rd jointReading
	rd.gap = norm64(sub64(pa, pb))
	ua, na := rot64(ta.Rot, jc.AxisA), rot64(ta.Rot, jc.NormalA)
	ub, nb := rot64(tb.Rot, jc.AxisB), rot64(tb.Rot, jc.NormalB)
	switch jc.Kind {
	case physics.JointRevolute:
		rd.angle = math.Atan2(dot64(ua, cross64(na, nb)), dot64(na, nb))
	case physics.JointSpherical:
		rd.swing = math.Atan2(norm64(cross64(ua, ub)), dot64(ua, ub))
		// The twist: B's normal carried back by the swing (the shortest
		// turn from ub to ua), measured about ua from A's normal.
		nbs := nb
		if ax := cross64(ub, ua); norm64(ax) > 1e-12 {
			k := unit64(ax)
			c, s := dot64(ub, ua), norm64(ax)
			// Rodrigues: v cos + (k × v) sin + k (k·v)(1 − cos)
			kv := cross64(k, nb)
			kd := dot64(k, nb) * (1 - c)
			nbs = [3]float64{nb[0]*c + kv[0]*s + k[0]*kd, nb[1]*c + kv[1]*s + k[1]*kd, nb[2]*c + kv[2]*s + k[2]*kd}
		}
		rd.twist = math.Atan2(dot64(ua, cross64(na, nbs)), dot64(na, nbs))
	}
	return rd
}
