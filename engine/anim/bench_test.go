package anim

import (
	"testing"

	"github.com/nebulaengine/nebula/engine"
)

// BenchmarkPose measures Pose, one frame's poses of 100 entities with a
// 64-bone model (a chain, every bone animated by rotation and translation
// keys 30 a second, 4 blend weights) into the render buffer: the target is
// 0.5 ms a frame on one core, 0 allocations.
//
//   - between: a frame with no new tick since the last one, which only
//     blends the two cached poses and builds the palette;
//   - after-tick: a tick (Advance) then a frame, which samples one new pose
//     per entity as well;
//   - 144Hz-60Hz: frames at 144 Hz on a 60 Hz tick, a tick before 5 frames
//     in 12, ns/op per frame;
//   - current: interpolation off, every entity at its current tick (a copy
//     of the cached palette);
//   - resample: after a rollback or restore, both poses sampled again.
//
// World.Interpolate, which Pose follows in a frame, is not included: the
// render buffer is reset as it resets it.
func BenchmarkPose(b *testing.B) {
	const entities, bones, weights, keys = 100, 64, 4, 30
	setup := func(b *testing.B) (*engine.Engine, *Animations, *engine.RenderBuffer, *engine.FrameContext, *engine.FixedContext) {
		e, a, ents := newEngine(b, 60, entities)
		a.SetModel(meshChain, chain(bones, weights, keys))
		for i, ent := range ents {
			a.Play(ent, 0, true)
			a.Component().Ptr(ent).Time = uint64(i) * 7_777_777 // out of phase
		}
		rb := &e.Render
		e.StepTick(0)
		e.World.Interpolate(0.5, 1.0/60, e.Interpolation(), rb)
		fc := &engine.FrameContext{World: e.World, Render: rb, Alpha: 0.5}
		a.Pose(fc)
		xc := &engine.FixedContext{World: e.World, DT: 1.0 / 60}
		return e, a, rb, fc, xc
	}
	frame := func(a *Animations, rb *engine.RenderBuffer, fc *engine.FrameContext, alpha float32) {
		rb.Poses.Reset()
		rb.Alpha, fc.Alpha = alpha, alpha
		a.Pose(fc)
	}
	b.Run("between", func(b *testing.B) {
		_, a, rb, fc, _ := setup(b)
		b.ReportAllocs()
		alpha := float32(0.1)
		for b.Loop() {
			alpha += 0.1
			if alpha >= 1 {
				alpha = 0.1
			}
			frame(a, rb, fc, alpha)
		}
	})
	b.Run("after-tick", func(b *testing.B) {
		_, a, rb, fc, xc := setup(b)
		b.ReportAllocs()
		for b.Loop() {
			a.Advance(xc)
			frame(a, rb, fc, 0.3)
		}
	})
	b.Run("144Hz-60Hz", func(b *testing.B) {
		_, a, rb, fc, xc := setup(b)
		b.ReportAllocs()
		acc := 0.0
		for b.Loop() {
			acc += 60.0 / 144
			if acc >= 1 {
				acc--
				a.Advance(xc)
			}
			frame(a, rb, fc, float32(acc))
		}
	})
	b.Run("current", func(b *testing.B) {
		_, a, rb, fc, _ := setup(b)
		b.ReportAllocs()
		for b.Loop() {
			frame(a, rb, fc, 1)
		}
	})
	b.Run("resample", func(b *testing.B) {
		_, a, rb, fc, _ := setup(b)
		b.ReportAllocs()
		for b.Loop() {
			for i := range a.cache {
				a.cache[i].valid = [2]bool{}
			}
			frame(a, rb, fc, 0.5)
		}
	})
}
