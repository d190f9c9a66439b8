package gfx_test

import (
	"image"
	"slices"
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
			r.DrawTicks(w, h, black, cam, render.Ticks{Slots: slots, Epoch: wd.Tick()}, nil, alpha)
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
		far, mean := pixelDiff(cpu, gpu)
		px := w * h
		t.Logf("alpha %v: %d channel values of %d pixels differ by more than 24, mean difference %.3f", alpha, far, px, mean)
		if far > px*4/200 || mean > 0.5 {
			t.Errorf("alpha %v: %d channel values differ by more than 24 (at most %d allowed), mean difference %.3f (at most 0.5)", alpha, far, px*4/200, mean)
		}
	}
}

// A tick uploads only the slots that changed, once the slot buffer it
// writes holds an earlier tick's (the first three ticks fill the three
// buffers whole), and keeps the draw list while no slot changes its mesh,
// visibility or transparency; what it draws stays the CPU path's, pixel
// for pixel within TestGPUPathMatchesCPUPath's bounds, through moves, a
// mesh change, a hidden entity, a spawn (a new slot count: every slot
// again) and frames between ticks (nothing uploaded).
func TestGPUPathUploadsOnlyChangedSlots(t *testing.T) {
	r, w, h := newRenderer(t, 128)
	cam := gfx.Camera{Eye: mgl32.Vec3{0, 8, 16}, Target: mgl32.Vec3{0, 0, 0}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(60), Near: 0.1, Far: 100}
	wd := engine.NewWorld(1)
	var ents []engine.Entity
	for i := range 300 {
		x, z := float32(i%20)-9.5, float32(i/20)-7
		e := wd.Spawn(geom.Transform{Pos: mgl32.Vec3{x * 0.8, 0, z * 0.8}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{0.3, 0.3, 0.3}}, engine.Interpolate)
		wd.SetColor(e, [4]uint8{uint8(40 + i%200), 120, uint8(255 - i%200), 255})
		ents = append(ents, e)
	}
	cfg := engine.DefaultInterpolationConfig()
	var rb, cpuRB engine.RenderBuffer
	steps := []struct {
		what   string
		change func(tick uint64)
		full   bool // every slot uploaded
		kept   bool // the draw list kept
	}{
		{"every cube moves", func(uint64) {
			for _, e := range ents {
				tr := wd.Transform(e)
				tr.Pos[1] += 0.2
				wd.SetTransform(e, tr)
			}
		}, true, false},
		{"they stop (every slot changes: its previous state)", func(uint64) {}, true, true},
		{"one moves", func(uint64) { nudge(wd, ents[7]) }, true, true},
		{"two apart move", func(uint64) { nudge(wd, ents[50]); nudge(wd, ents[250]) }, false, true},
		{"three in a row", func(uint64) { nudge(wd, ents[100]); nudge(wd, ents[101]); nudge(wd, ents[102]) }, false, true},
		{"one becomes a sphere", func(uint64) { wd.SetMesh(ents[3], render.MeshSphere) }, false, false},
		{"one is hidden", func(uint64) { wd.SetVisible(ents[4], false) }, false, false},
		{"a cube is spawned", func(uint64) {
			ents = append(ents, wd.Spawn(geom.NewTransform(mgl32.Vec3{0, 2, 0}), engine.Interpolate))
		}, true, false},
	}
	// The slots each tick must upload, after the first three fill the
	// buffers: those changed in the last three ticks (the buffer it writes
	// was written three ticks before), in runs merged across gaps of up to
	// 16 slots.
	var changed [][]uint64
	for k, st := range steps {
		tick := uint64(k + 1)
		wd.BeginTick(tick)
		st.change(tick)
		for _, alpha := range []float32{0.4, 1} {
			wd.Interpolate(alpha, 1.0/60, cfg, &cpuRB)
			cpu, _ := framePosed(t, r, w, h, cam, cpuRB.Instances, nil)
			wd.InterpolateOnGPU(alpha, 1.0/60, cfg, &rb)
			gpu := image.NewRGBA(image.Rect(0, 0, w, h))
			var s gfx.Stats
			onMain(func() {
				r.DrawTicks(w, h, black, cam, rb.Ticks, &rb.Poses, alpha)
				s = r.Stats()
				if err := gfx.CheckError(); err != nil {
					t.Errorf("%s: DrawTicks: %v", st.what, err)
				}
				if err := r.ReadRGBA(gpu); err != nil {
					t.Error(err)
				}
			})
			far, mean := pixelDiff(cpu, gpu)
			if far > w*h*4/200 || mean > 0.5 {
				t.Errorf("%s, alpha %v: %d channel values differ by more than 24 from the CPU path, mean %.3f", st.what, alpha, far, mean)
			}
			if alpha != 0.4 {
				if s.SlotsUploaded != 0 {
					t.Errorf("%s: a frame between ticks uploaded %d slots", st.what, s.SlotsUploaded)
				}
				continue
			}
			t.Logf("tick %d, %s: %d slots uploaded, list kept %v", tick, st.what, s.SlotsUploaded, s.ListKept)
			changed = append(changed, slices.Clone(rb.Ticks.Changed))
			want := len(rb.Ticks.Slots)
			if !st.full {
				want = mergedRuns(changed[len(changed)-3:], len(rb.Ticks.Slots), 16)
			}
			if s.SlotsUploaded != want {
				t.Errorf("%s: %d slots uploaded, want %d", st.what, s.SlotsUploaded, want)
			}
			if s.ListKept != st.kept {
				t.Errorf("%s: the draw list kept %v, want %v", st.what, s.ListKept, st.kept)
			}
		}
	}
}

// nudge moves e a little to the side.
func nudge(w *engine.World, e engine.Entity) {
	tr := w.Transform(e)
	tr.Pos[0] += 0.1
	w.SetTransform(e, tr)
}

// mergedRuns returns the slots in the runs of those set in any of sets,
// runs closer than gap merged with the slots between.
func mergedRuns(sets [][]uint64, n, gap int) int {
	total, end := 0, -1
	for i := range n {
		set := false
		for _, b := range sets {
			set = set || b[i/64]&(1<<(i%64)) != 0
		}
		switch {
		case !set:
		case end >= 0 && i-end <= gap:
			total += i - end + 1
			end = i + 1
		default:
			total++
			end = i + 1
		}
	}
	return total
}
