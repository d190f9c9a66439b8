package anim

import (
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/render"
)

// A sword attached to the chain's tip (its hand) moves with the hand: at
// every tick its world position is the hand's, as the renderer's bone
// palette places it, plus the offset, while the figure walks and sways.
func TestAttachFollowsJoint(t *testing.T) {
	e, a, ents := newEngine(t, 60, 1)
	joints := NewAttachments(a)
	figure := ents[0]
	e.AddSystem(engine.StageScripts, "walk", func(c *engine.FixedContext) {
		tr := c.World.Transform(figure)
		tr.Pos[0] += 0.25
		c.World.SetTransform(figure, tr)
	})
	e.AddSystem(engine.StageAI, "joints", joints.Follow)
	a.Play(figure, 0, true)
	const hand = 15
	grip := geom.NewTransform(mgl32.Vec3{0, 0.5, 0})
	sword := e.World.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	if err := joints.Attach(sword, figure, hand, grip); err != nil {
		t.Fatal(err)
	}
	e.AddRender("anim", a.Pose)

	var was mgl32.Vec3
	for tick := range 40 {
		if !e.StepTick(0) {
			t.Fatal(e.Err())
		}
		// Exactly: the figure's world transform, the joint in the sampled
		// pose, the grip.
		an, _ := a.Component().Get(figure)
		var p LocalPose
		Sample(a.Model(meshChain), int(an.Clip), an.Time, an.Loop, &p)
		want := e.World.WorldTransform(figure).Mul(jointTransform(a.rig(meshChain), &p, hand).Mul(grip))
		got := e.World.WorldTransform(sword)
		if got != want {
			t.Fatalf("tick %d: sword at %+v, want %+v", tick+1, got, want)
		}
		// As drawn at the tick: the bone palette's hand.
		var rb engine.RenderBuffer
		e.World.Interpolate(1, 1.0/60, engine.DefaultInterpolationConfig(), &rb)
		a.Pose(&engine.FrameContext{World: e.World, Render: &rb})
		kf, _ := rb.Find(figure)
		ks, _ := rb.Find(sword)
		ref := rb.Poses.Refs[rb.Instances[kf].Pose-1]
		b := rb.Poses.Bones[int(ref.FirstBone)+hand] // top three rows of global * inverse bind
		in := rb.Instances[kf]
		// The hand's tip in the model: global * (0, hand, 0) undoes the
		// inverse bind; the grip adds 0.5 along the hand's Y axis.
		local := mgl32.Vec3{
			b[1]*(hand+0.5) + b[3],
			b[5]*(hand+0.5) + b[7],
			b[9]*(hand+0.5) + b[11],
		}
		drawnHand := in.Pos.Add(in.Rot.Rotate(local))
		if d := rb.Instances[ks].Pos.Sub(drawnHand).Len(); d > 1e-4 {
			t.Fatalf("tick %d: sword drawn at %v, the hand's grip at %v (%v apart)", tick+1, rb.Instances[ks].Pos, drawnHand, d)
		}
		if tick > 0 && got.Pos.Sub(was).Len() < 1e-3 {
			t.Fatalf("tick %d: the sword moved only %v", tick+1, got.Pos.Sub(was).Len())
		}
		was = got.Pos
	}

	// Dropped: it stays where it was, and no longer follows.
	at := e.World.WorldTransform(sword)
	if !joints.Detach(sword, engine.KeepWorld) || joints.Detach(sword, engine.KeepWorld) {
		t.Error("Detach did not report the attachment, once")
	}
	e.StepTick(0)
	if got := e.World.WorldTransform(sword); got.Pos.Sub(at.Pos).Len() > 1e-5 {
		t.Errorf("the dropped sword moved from %v to %v", at.Pos, got.Pos)
	}
}

// Attach refuses a figure without a model, a joint the model does not
// have, and a cycle.
func TestAttachRefuses(t *testing.T) {
	e, a, ents := newEngine(t, 60, 2)
	joints := NewAttachments(a)
	w := e.World
	plain := w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	w.SetMesh(plain, render.MeshCube)
	for _, tc := range []struct {
		child, figure engine.Entity
		joint         int
		want          string
	}{
		{ents[1], plain, 0, "has no model"},
		{ents[1], ents[0], 16, `joint 16, model "chain" has 16`},
		{ents[0], ents[0], 0, "cannot be its own parent"},
	} {
		err := joints.Attach(tc.child, tc.figure, tc.joint, geom.NewTransform(mgl32.Vec3{}))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "anim: ") {
			t.Errorf("Attach(%v, %v, %d) = %v, want %q", tc.child, tc.figure, tc.joint, err, tc.want)
		}
	}
	if joints.Component().Len() != 0 {
		t.Error("a refused Attach attached")
	}
}
