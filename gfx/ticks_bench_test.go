package gfx_test

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/render"
)

// BenchmarkInterpolationPaths measures what a frame costs the CPU to
// place n moving cubes, on each path, interleaved in one run:
//
//   - cpu: the CPU path's work of a frame, World.Interpolate then Draw's
//     sort (Renderer.SortInstances) and the copy of the instances that
//     its upload makes (a copy of as many bytes);
//   - gpu-tick: the GPU path's work of a frame that follows a tick,
//     World.TickInstances then the draw list's sort
//     (Renderer.SortTickInstances) and the copy of the slots;
//   - gpu-frame: the GPU path's work of any other frame, the frame's
//     uniforms: nothing per entity (Renderer.TickFrameWork).
//
// Each reports ms/frame. The driver's own work (its copy into GPU
// memory, its vertex processing) is left out: on llvmpipe it is the
// rasteriser's, not what a GPU would cost.
func BenchmarkInterpolationPaths(b *testing.B) {
	r, _, _ := newRenderer(b, 32)
	sizes := []int{10_000, 100_000, 1_000_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		w := engine.NewWorld(1)
		rng := engine.NewRNG(2)
		for range n {
			w.Spawn(geom.Transform{Pos: mgl32.Vec3{rng.Range(-50, 50), rng.Range(-50, 50), rng.Range(-50, 50)}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1, 1, 1}}, engine.Interpolate)
		}
		w.BeginTick(1)
		bodies := w.Bodies()
		for i := range bodies.Pos {
			bodies.Pos[i] = bodies.Pos[i].Add(mgl32.Vec3{0.1, 0, 0})
			bodies.Rot[i] = mgl32.QuatRotate(0.05, mgl32.Vec3{0, 1, 0})
		}
		cfg := engine.DefaultInterpolationConfig()
		var rb engine.RenderBuffer
		var slots []render.TickInstance
		upload := make([]byte, n*96)
		cam := benchCamera
		b.Run(fmt.Sprintf("cpu-%d", n), func(b *testing.B) {
			onMain(func() {
				for b.Loop() {
					w.Interpolate(0.4, 1.0/60, cfg, &rb)
					r.SortInstances(rb.Instances)
					copy(upload, bytesOfInstances(rb.Instances))
				}
			})
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
		})
		b.Run(fmt.Sprintf("gpu-tick-%d", n), func(b *testing.B) {
			onMain(func() {
				for b.Loop() {
					slots = w.TickInstances(cfg, slots)
					r.SortTickInstances(cam, slots)
					copy(upload, bytesOfTicks(slots))
				}
			})
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
		})
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

// bytesOfInstances and bytesOfTicks are the bytes the paths upload.
func bytesOfInstances(s []render.Instance) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(render.Instance{})))
}

func bytesOfTicks(s []render.TickInstance) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(render.TickInstance{})))
}
