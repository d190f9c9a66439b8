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

// newFallingRig returns a rig whose figure, animated, falls as a ragdoll
// at tick 10 and stands up at tick 100, blending back over 20 ticks.
func newFallingRig(t *testing.T) *rig {
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
	return r
}

// The skin follows the ragdoll: while falling, each mapped bone's matrix
// carries its body's bind frame to where the body is drawn; while
// blending back it goes from there to the animation's pose.
func TestSkinFollowsTheBodies(t *testing.T) {
	r := newFallingRig(t)
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

// On the GPU path (World.InterpolateOnGPU) the figure's skin is posed once
// a tick, a pair of poses: the first is the CPU path's skin at alpha 0,
// the second its skin at alpha 1, while animated, falling and blending
// back; a frame between ticks adds none.
func TestSkinOnGPUPathIsTheTicksEnds(t *testing.T) {
	r := newFallingRig(t)
	n := len(r.def.Model.Palette)
	for k, to := range []int{5, 60, 110} {
		r.ticks(to - int(r.w.Tick()))
		ph, _ := r.rag.Phase(r.fig)
		if want := []Phase{Animated, Falling, Blending}[k]; ph != want {
			t.Fatalf("tick %d: the figure is %v, want %v", to, ph, want)
		}
		var rb engine.RenderBuffer
		cfg := engine.DefaultInterpolationConfig()
		r.w.InterpolateOnGPU(0.5, float32(r.e.Loop.DT()), cfg, &rb)
		c := &engine.FrameContext{World: r.w, Alpha: 0.5, Render: &rb}
		r.anims.Pose(c)
		r.rag.Pose(c)
		pose := rb.Ticks.Slots[r.fig.Index()].Pose
		if pose == 0 || rb.Poses.Len() != 2 || rb.Ticks.Changed != nil && rb.Ticks.Changed[r.fig.Index()/64]&(1<<(r.fig.Index()%64)) == 0 {
			t.Fatalf("tick %d (%v): pose %d of %d, want a pair, the slot marked changed", to, ph, pose, rb.Poses.Len())
		}
		for end, alpha := range []float32{0, 1} {
			_, want, _ := r.frame(alpha)
			ref := rb.Poses.Refs[int(pose)-1+end]
			got := rb.Poses.Bones[ref.FirstBone : int(ref.FirstBone)+n]
			for j := range want {
				for k := range want[j] {
					if d := got[j][k] - want[j][k]; d > 1e-6 || d < -1e-6 {
						t.Fatalf("tick %d (%v), alpha %v: bone %d is %v on the GPU path, %v on the CPU path", to, ph, alpha, j, got[j], want[j])
					}
				}
			}
		}
		c.Alpha = 0.7
		r.w.InterpolateOnGPU(0.7, float32(r.e.Loop.DT()), cfg, &rb)
		r.anims.Pose(c)
		r.rag.Pose(c)
		if rb.NewTicks || rb.Poses.Len() != 2 {
			t.Errorf("tick %d: a frame between ticks made %d poses (NewTicks %v), want the tick's 2 kept", to, rb.Poses.Len(), rb.NewTicks)
		}
	}
}
