package gfx_test

import (
	"fmt"
	"image"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/gfx"
)

// frameOnGPU draws the frame alpha of the way from the previous tick to
// the current one on the GPU path, as a game's frame does
// (InterpolateOnGPU, the animations' Render system, DrawTicks), and reads
// it back.
func (p *pipeline) frameOnGPU(alpha float32) (*image.RGBA, gfx.Stats) {
	p.t.Helper()
	rb := &p.e.Render
	p.e.World.InterpolateOnGPU(alpha, float32(p.e.Loop.DT()), p.e.Interpolation(), rb)
	p.anims.Pose(&engine.FrameContext{World: p.e.World, Alpha: alpha, Render: rb})
	img := image.NewRGBA(image.Rect(0, 0, p.w, p.h))
	var s gfx.Stats
	var glErr, readErr error
	onMain(func() {
		p.r.DrawTicks(p.w, p.h, black, testCamera, rb.Ticks, &rb.Poses, alpha)
		s = p.r.Stats()
		glErr = gfx.CheckError()
		readErr = p.r.ReadRGBA(img)
	})
	if glErr != nil || readErr != nil {
		p.t.Fatalf("alpha %v: DrawTicks: %v; ReadRGBA: %v", alpha, glErr, readErr)
	}
	return img, s
}

// Animated models on the GPU path are posed as on the CPU path: the glTF
// arm playing its clip (bones turning a few degrees a tick, and its blend
// shape), the quad whose blend weight grows from 0 to 1 in one tick, and
// a hinge teleported in the tick its bone turns 90° (drawn at the end
// pose whatever the alpha), each drawn through Interpolate, Pose and Draw
// and through InterpolateOnGPU, Pose and DrawTicks, at alpha 0, 0.25,
// 0.5, 0.75 and 1 of two ticks. The GPU path blends the two ticks'
// skinning matrices linearly where the CPU path blends the bones' local
// poses: a bone turning θ in a tick is drawn up to 1 − cos(θ/2) short
// halfway, 0.1 % at the arm's 5°. So: no more than 0.5 % of the pixels
// may differ by more than 24 steps in a channel, and the mean difference
// must stay below half a step (llvmpipe: every byte equal but at
// outlines). A control draws the arm at rest on the GPU path and must
// fail the same bound, so the comparison sees the pose.
func TestGPUPathPosesLikeCPUPath(t *testing.T) {
	r, w, h := newRenderer(t, 192)
	arm := loadArm(t)
	bend := arm.ClipIndex("bend")
	if bend < 0 {
		t.Fatalf("%s has no clip \"bend\"", arm.Name)
	}
	cases := []struct {
		name  string
		m     *model.Model
		place geom.Transform
		play  int
		ticks []uint64 // the ticks whose frames are compared
		jump  bool     // teleported to the right at poseAfter
	}{
		{"arm", arm, geom.Transform{Pos: mgl32.Vec3{1.5, -4.5, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{3, 3, 3}}, bend, []uint64{20, 41}, false},
		{"growing quad", growQuad(), geom.Transform{Pos: mgl32.Vec3{0, -2.5, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{2.5, 2.5, 2.5}}, 0, []uint64{poseAfter}, false},
		{"teleported hinge", hinge(0, 90), geom.Transform{Pos: mgl32.Vec3{-3.5, -1, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{0.6, 0.6, 0.6}}, 0, []uint64{poseAfter}, true},
	}
	for _, tc := range cases {
		var ent engine.Entity
		p := newPipeline(t, r, w, h, tc.m, func(c *engine.FixedContext) {
			if tc.jump && c.Tick == poseAfter {
				to := tc.place
				to.Pos[0] = 3.5
				c.World.Teleport(ent, to)
			}
		})
		ent = p.spawn(tc.place)
		p.anims.Play(ent, tc.play, false)
		for _, tick := range tc.ticks {
			p.tickTo(tick)
			for _, alpha := range []float32{0, 0.25, 0.5, 0.75, 1} {
				what := fmt.Sprintf("%s, tick %d, alpha %v", tc.name, tick, alpha)
				cpu := p.frame(alpha)
				gpu, s := p.frameOnGPU(alpha)
				if s.Poses != 2 || s.Instances != 1 {
					t.Errorf("%s: the GPU path drew %d instances with %d poses; want 1 with a pair of poses", what, s.Instances, s.Poses)
				}
				far, mean := pixelDiff(cpu, gpu)
				t.Logf("%s: %d channel values differ by more than 24, mean difference %.3f", what, far, mean)
				if far > w*h*4/200 || mean > 0.5 {
					t.Errorf("%s: %d channel values differ by more than 24 (at most %d allowed), mean difference %.3f (at most 0.5)", what, far, w*h*4/200, mean)
				}
			}
		}
		if tc.name != "arm" {
			continue
		}
		// The control: the arm at rest on the GPU path is told apart.
		cpu := p.frame(0.5)
		rb := &p.e.Render
		p.e.World.InterpolateOnGPU(0.5, float32(p.e.Loop.DT()), p.e.Interpolation(), rb)
		rb.Poses.Reset()
		rb.Ticks.SetPose(int(ent.Index()), 0)
		rest := image.NewRGBA(image.Rect(0, 0, w, h))
		onMain(func() {
			r.DrawTicks(w, h, black, testCamera, rb.Ticks, &rb.Poses, 0.5)
			if err := r.ReadRGBA(rest); err != nil {
				t.Error(err)
			}
		})
		if far, mean := pixelDiff(cpu, rest); far <= w*h*4/200 && mean <= 0.5 {
			t.Errorf("control: the arm at rest passes for the posed arm (%d far, mean %.3f)", far, mean)
		}
	}
}

// pixelDiff returns how many channel values of a and b differ by more
// than 24 steps, and the mean difference.
func pixelDiff(a, b *image.RGBA) (far int, mean float64) {
	sum := 0
	for i := range a.Pix {
		d := int(a.Pix[i]) - int(b.Pix[i])
		if d < 0 {
			d = -d
		}
		sum += d
		if d > 24 {
			far++
		}
	}
	return far, float64(sum) / float64(len(a.Pix))
}
