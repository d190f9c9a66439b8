package gfx_test

import (
	"github.com/nebulaengine/nebula/engine/render"

	"testing"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/gfx"
)

// BenchmarkRenderer draws 10,000 cubes per frame the instanced way (Draw:
// one draw call) and the naive way (the per-instance baseline: one draw call and four
// uniform updates per cube), in one run so the two are compared on the same
// machine at the same moment. Each frame ends with glFinish, so the GPU's
// work is measured, not only the submission. It reports frames/s and logs
// the ratio (as the per-cube sub-benchmark's instanced-speedup metric).
func BenchmarkRenderer(b *testing.B) {
	const size, n = 256, 10_000
	r, w, h := newRenderer(b, size)
	per := newPerInstance(b, r)
	insts := gridInstances(n, 100)
	cam := gfx.Camera{Eye: mgl32.Vec3{0, 0, 25}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(25), Near: 1, Far: 100}
	clear := [4]float32{0.1, 0.1, 0.1, 1}

	paths := []struct {
		name string
		draw func(w, h int, clear [4]float32, cam gfx.Camera, insts []render.Instance)
	}{
		{"instanced-10k", func(w, h int, clear [4]float32, cam gfx.Camera, insts []render.Instance) {
			r.Draw(w, h, clear, cam, insts, nil)
		}},
		{"per-cube-10k", per.Draw},
	}
	fps := make(map[string]float64, len(paths))
	for _, p := range paths {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			var err error
			onMain(func() {
				for b.Loop() {
					p.draw(w, h, clear, cam, insts)
					gl.Finish()
				}
				err = gfx.CheckError()
			})
			if err != nil {
				b.Fatal(err)
			}
			s := r.Stats()
			f := float64(b.N) / b.Elapsed().Seconds()
			b.ReportMetric(f, "frames/s")
			b.ReportMetric(float64(s.DrawCalls), "draws/frame")
			b.ReportMetric(float64(s.GLCalls), "glcalls/frame")
			fps[p.name] = f
			if in := fps["instanced-10k"]; p.name == "per-cube-10k" && in > 0 {
				// The ratio, on the line benchmark output shows (the
				// parent's log below is printed only with -v).
				b.ReportMetric(in/f, "instanced-speedup")
			}
		})
	}
	if in, pc := fps["instanced-10k"], fps["per-cube-10k"]; in > 0 && pc > 0 {
		b.Logf("10,000 cubes at %dx%d: instanced %.0f frames/s, per-cube %.1f frames/s: instancing is %.1fx as fast (target >= 10x)", w, h, in, pc, in/pc)
	}
}
