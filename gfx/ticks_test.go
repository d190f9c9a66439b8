package gfx_test

import (
	"image"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/render"
	"github.com/nebulaengine/nebula/gfx"
)

// The GPU path draws what the CPU path draws: the same world, moving and
// turning between two ticks, with a teleport, a jump past the snap
// distance, an entity drawn without interpolation, a child of a turning
// parent, a hidden entity, a pivot and transparent ones, drawn through
// Interpolate and Draw and through TickInstances and DrawTicks at alphas
// 0, 0.3, 0.7 and 1, gives the same pixels: on llvmpipe every byte is the
// same. The shader's slerp rounds differently from the CPU's series, so a
// GPU may differ at the edges of moving shapes: no more than 0.5 % of the
// pixels may differ by more than 24 steps in a channel, and the mean
// difference must stay below half a step.
func TestGPUPathMatchesCPUPath(t *testing.T) {
	r, w, h := newRenderer(t, 160)
	cam := gfx.Camera{Eye: mgl32.Vec3{0, 6, 14}, Target: mgl32.Vec3{0, 0, 0}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(60), Near: 0.1, Far: 100}
	wd := engine.NewWorld(1)
	rng := engine.NewRNG(5)
	type moved struct {
		e    engine.Entity
		to   geom.Transform
		jump bool // teleported
	}
	var moves []moved
	meshes := []render.MeshID{render.MeshCube, render.MeshSphere, render.MeshPlane}
	for i := range 40 {
		from := geom.Transform{Pos: mgl32.Vec3{rng.Range(-6, 6), rng.Range(-2, 3), rng.Range(-5, 3)}, Rot: mgl32.QuatRotate(rng.Range(-3, 3), mgl32.Vec3{rng.Range(-1, 1), 1, rng.Range(-1, 1)}.Normalize()), Scale: mgl32.Vec3{1, rng.Range(0.5, 1.5), 1}}
		mode := engine.Interpolate
		if i%9 == 4 {
			mode = engine.NoInterpolation
		}
		e := wd.Spawn(from, mode)
		wd.SetMesh(e, meshes[i%3])
		wd.SetColor(e, [4]uint8{uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(rng.Intn(256)), 255})
		switch i % 10 {
		case 3:
			wd.SetColor(e, [4]uint8{200, 220, 90, 120}) // transparent
		case 6:
			wd.SetEmissive(e, [3]uint8{90, 30, 0})
		case 7:
			wd.SetVisible(e, false)
		case 8:
			wd.SetMesh(e, render.MeshNone)
		}
		to := from
		to.Pos = to.Pos.Add(mgl32.Vec3{rng.Range(-1, 1), rng.Range(-0.5, 0.5), rng.Range(-1, 1)})
		to.Rot = mgl32.QuatRotate(rng.Range(-1, 1), mgl32.Vec3{1, 0, 0}).Mul(from.Rot).Normalize()
		moves = append(moves, moved{e: e, to: to, jump: i%11 == 5})
	}
	// A child on a turning parent.
	parent, child := moves[0].e, wd.Spawn(geom.NewTransform(mgl32.Vec3{0, 1.5, 0}), engine.Interpolate)
	if err := wd.SetParent(child, parent, engine.KeepLocal); err != nil {
		t.Fatal(err)
	}
	wd.BeginTick(1)
	for i, m := range moves {
		switch {
		case m.jump:
			wd.Teleport(m.e, m.to)
		case i == 13:
			m.to.Pos = m.to.Pos.Add(mgl32.Vec3{0, 0, -30}) // past the snap distance
			wd.SetTransform(m.e, m.to)
		default:
			wd.SetTransform(m.e, m.to)
		}
	}
	cfg := engine.DefaultInterpolationConfig()
	var rb engine.RenderBuffer
	slots := wd.TickInstances(cfg, nil)
	for _, alpha := range []float32{0, 0.3, 0.7, 1} {
		wd.Interpolate(alpha, 1.0/60, cfg, &rb)
		cpu, cs := framePosed(t, r, w, h, cam, rb.Instances, nil)
		var gpu *image.RGBA
		var gs gfx.Stats
		gpu = image.NewRGBA(image.Rect(0, 0, w, h))
		onMain(func() {
			r.DrawTicks(w, h, black, cam, wd.Tick(), slots, alpha)
			gs = r.Stats()
			if err := gfx.CheckError(); err != nil {
				t.Errorf("alpha %v: DrawTicks: %v", alpha, err)
			}
			if err := r.ReadRGBA(gpu); err != nil {
				t.Error(err)
			}
		})
		if gs.Instances != cs.Instances+cs.Culled || gs.Transparent != cs.Transparent {
			t.Errorf("alpha %v: the GPU path drew %d (%d transparent), the CPU path %d and culled %d (%d transparent)", alpha, gs.Instances, gs.Transparent, cs.Instances, cs.Culled, cs.Transparent)
		}
		far, sum := 0, 0
		for i := range cpu.Pix {
			d := int(cpu.Pix[i]) - int(gpu.Pix[i])
			if d < 0 {
				d = -d
			}
			sum += d
			if d > 24 {
				far++
			}
		}
		px := w * h
		mean := float64(sum) / float64(len(cpu.Pix))
		t.Logf("alpha %v: %d channel values of %d pixels differ by more than 24, mean difference %.3f", alpha, far, px, mean)
		if far > px*4/200 || mean > 0.5 {
			t.Errorf("alpha %v: %d channel values differ by more than 24 (at most %d allowed), mean difference %.3f (at most 0.5)", alpha, far, px*4/200, mean)
		}
	}
}
