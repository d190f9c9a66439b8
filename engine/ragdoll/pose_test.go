package ragdoll

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/render"
)

// skinned returns where the bone matrix b puts the model-space point p.
func skinned(b *render.Bone, p mgl32.Vec3) mgl32.Vec3 {
	return mgl32.Vec3{
		b[0]*p[0] + b[1]*p[1] + b[2]*p[2] + b[3],
		b[4]*p[0] + b[5]*p[1] + b[6]*p[2] + b[7],
		b[8]*p[0] + b[9]*p[1] + b[10]*p[2] + b[11],
	}
}

// frame draws r's world at alpha and runs the animation's and the
// ragdolls' Render systems, returning the figure's palette.
func (r *rig) frame(alpha float32) (*engine.RenderBuffer, []render.Bone, render.Instance) {
	var rb engine.RenderBuffer
	r.w.Interpolate(alpha, float32(r.e.Loop.DT()), engine.DefaultInterpolationConfig(), &rb)
	c := &engine.FrameContext{World: r.w, Alpha: alpha, Render: &rb}
	r.anims.Pose(c)
	r.rag.Pose(c)
	k, ok := rb.Find(r.fig)
	if !ok || rb.Instances[k].Pose == 0 {
		r.t.Fatal("the figure is not drawn with a pose")
	}
	ref := rb.Poses.Refs[rb.Instances[k].Pose-1]
	return &rb, rb.Poses.Bones[ref.FirstBone : int(ref.FirstBone)+len(r.def.Model.Palette)], rb.Instances[k]
}

// The skin follows the ragdoll: while falling, each mapped bone's matrix
// carries its body's bind frame to where the body is drawn; while
// blending back it goes from there to the animation's pose.
func TestSkinFollowsTheBodies(t *testing.T) {
	r := newRig(t, DefaultOptions())
	r.anims.SetModel(meshFigure, r.def.Model)
	r.onCollision = func(tick uint64) {
		switch tick {
		case 10:
			if err := r.rag.Start(r.fig); err != nil {
				t.Fatal(err)
			}
		case 100:
			if err := r.rag.StandUp(r.fig, 20); err != nil {
				t.Fatal(err)
			}
		}
	}
	r.ticks(60)
	rd := r.state()
	bone := func(p PartDef) int {
		for j, jt := range r.def.Model.Palette {
			if jt.Node == p.Bone {
				return j
			}
		}
		t.Fatalf("%s is no joint", p.Name)
		return 0
	}
	for _, alpha := range []float32{1, 0.5} {
		rb, bones, inst := r.frame(alpha)
		it := geom.Transform{Pos: inst.Pos, Rot: inst.Rot, Scale: inst.Scale}
		for i, p := range r.def.Parts {
			if _, drawn := rb.Find(rd.Bodies[i]); drawn {
				t.Fatalf("%s's body is drawn: a ragdoll's bodies are pivots (the skin is drawn)", p.Name)
			}
			bt, _ := r.w.DrawTransform(rd.Bodies[i], rb)
			want := bt.Pos
			got := it.Apply(skinned(&bones[bone(p)], p.Bind.Pos))
			if d := dist(got, want); d > 1e-4 {
				t.Errorf("alpha %v: %s's centre is drawn at %v, its body at %v", alpha, p.Name, got, want)
			}
		}
	}
	// Blending: halfway through, the bones are between the ragdoll's pose
	// and the animation's; at the end, the animation's.
	r.ticks(50) // tick 110: 10 ticks of 20 into the blend
	if ph, _ := r.rag.Phase(r.fig); ph != Blending {
		t.Fatalf("the figure is %v, want blending", ph)
	}
	_, bones, _ := r.frame(1)
	animBones := func() []render.Bone {
		var rb engine.RenderBuffer
		r.w.Interpolate(1, float32(r.e.Loop.DT()), engine.DefaultInterpolationConfig(), &rb)
		r.anims.Pose(&engine.FrameContext{World: r.w, Alpha: 1, Render: &rb})
		k, _ := rb.Find(r.fig)
		ref := rb.Poses.Refs[rb.Instances[k].Pose-1]
		return rb.Poses.Bones[ref.FirstBone : int(ref.FirstBone)+len(r.def.Model.Palette)]
	}()
	differs := false
	for j := range bones {
		if bones[j] != animBones[j] {
			differs = true
		}
	}
	if !differs {
		t.Error("halfway through the blend the pose is the animation's")
	}
	r.ticks(11)
	if ph, _ := r.rag.Phase(r.fig); ph != Animated {
		t.Fatalf("after the blend the figure is %v, want animated", ph)
	}
}
