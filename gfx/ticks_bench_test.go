package gfx_test

import (
	"fmt"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
)

// BenchmarkInterpolationPaths measures what a frame costs the CPU to
// place n cubes, on each path, interleaved in one run, with the real GL
// uploads but no drawing:
//
//   - cpu: the CPU path's frame, World.Interpolate then Draw's sort and
//     its stream into the instance buffer (Renderer.UploadInstances);
//   - gpu-tick: the GPU path's frame that follows a tick in which every
//     cube moved: World.InterpolateOnGPU making the tick, then DrawTicks'
//     upload of the changed slots and its draw list (Renderer.UploadTicks);
//   - gpu-tick-1pct: the same when 1 % of the cubes move each tick (the
//     others at rest, as in a settled pile or a city);
//   - gpu-frame: the GPU path's every other frame: nothing per entity
//     (Renderer.TickFrameWork).
//
// Each reports ms/frame; the tick benchmarks also report the slots
// uploaded per tick. The simulation's own work (moving the cubes, the
// tick's bookkeeping) is left out, as is the driver's copy into GPU
// memory where it makes one (llvmpipe's buffers are in CPU memory: a
// mapped write is the copy, and glBufferSubData copies once more).
func BenchmarkInterpolationPaths(b *testing.B) {
	r, _, _ := newRenderer(b, 32)
	sizes := []int{10_000, 100_000, 1_000_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		w := engine.NewWorld(1)
		rng := engine.NewRNG(2)
		var ents []engine.Entity
		for range n {
			ents = append(ents, w.Spawn(geom.Transform{Pos: mgl32.Vec3{rng.Range(-50, 50), rng.Range(-50, 50), rng.Range(-50, 50)}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1, 1, 1}}, engine.Interpolate))
		}
		// A few: 1 % of the cubes, spread over the slots.
		var few []engine.Entity
		for i := 0; i < n; i += 100 {
			few = append(few, ents[(i+rng.Intn(100))%n])
		}
		bodies := w.Bodies()
		tick := uint64(0)
		step := func(moving []engine.Entity) {
			tick++
			w.BeginTick(tick)
			for _, e := range moving {
				i := e.Index()
				bodies.Pos[i][0] += 0.01
				bodies.Rot[i] = mgl32.QuatRotate(float32(tick)*0.05, mgl32.Vec3{0, 1, 0})
			}
		}
		step(ents)
		cfg := engine.DefaultInterpolationConfig()
		var rb engine.RenderBuffer
		cam := benchCamera
		b.Run(fmt.Sprintf("cpu-%d", n), func(b *testing.B) {
			onMain(func() {
				for b.Loop() {
					w.Interpolate(0.4, 1.0/60, cfg, &rb)
					r.UploadInstances(rb.Instances)
				}
			})
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
		})
		for _, tc := range []struct {
			name   string
			moving []engine.Entity
		}{{"gpu-tick", ents}, {"gpu-tick-1pct", few}} {
			b.Run(fmt.Sprintf("%s-%d", tc.name, n), func(b *testing.B) {
				uploaded := 0
				onMain(func() {
					// Three ticks first: the slot buffers are filled.
					for range 3 {
						step(tc.moving)
						w.InterpolateOnGPU(0.4, 1.0/60, cfg, &rb)
						r.UploadTicks(cam, rb.Ticks)
					}
					for b.Loop() {
						b.StopTimer()
						step(tc.moving)
						b.StartTimer()
						w.InterpolateOnGPU(0.4, 1.0/60, cfg, &rb)
						up, _ := r.UploadTicks(cam, rb.Ticks)
						uploaded += up
					}
				})
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
				b.ReportMetric(float64(uploaded)/float64(b.N), "slots/tick")
			})
		}
		b.Run(fmt.Sprintf("gpu-frame-%d", n), func(b *testing.B) {
			onMain(func() {
				for b.Loop() {
					r.TickFrameWork()
				}
			})
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
		})
	}
}
