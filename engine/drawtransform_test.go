package engine

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/render"
)

// DrawTransform places every entity where Interpolate drew it: roots and
// children, in every draw mode, moving, turning, teleported and jumping
// past the snap thresholds, at several alphas and with interpolation off.
// A pivot and a hidden entity, which Interpolate leaves out, are placed
// where they would have been drawn.
func TestDrawTransformMatchesInterpolate(t *testing.T) {
	w := NewWorld(7)
	rng := NewRNG(3)
	var all []Entity
	for i := range 40 {
		mode := DrawMode(i % 3)
		e := w.Spawn(geom.Transform{Pos: mgl32.Vec3{rng.Range(-5, 5), rng.Range(-5, 5), rng.Range(-5, 5)}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1, 2, 1}}, mode)
		w.SetDrawVelocity(e, mgl32.Vec3{rng.Range(-3, 3), 0, rng.Range(-3, 3)}, mgl32.Vec3{})
		if i >= 10 && i%4 == 0 {
			if err := w.SetParent(e, all[i%10], KeepLocal); err != nil {
				t.Fatal(err)
			}
		}
		all = append(all, e)
	}
	w.BeginTick(1)
	for i, e := range all {
		tr := w.Transform(e)
		tr.Pos = tr.Pos.Add(mgl32.Vec3{rng.Range(-1, 1), rng.Range(-1, 1), rng.Range(-1, 1)})
		tr.Rot = mgl32.QuatRotate(rng.Range(-2, 2), mgl32.Vec3{rng.Range(-1, 1), 1, rng.Range(-1, 1)}.Normalize())
		switch {
		case i%7 == 3:
			w.Teleport(e, tr)
		case i%11 == 5:
			tr.Pos = tr.Pos.Add(mgl32.Vec3{50, 0, 0}) // past SnapDistance
			w.SetTransform(e, tr)
		default:
			w.SetTransform(e, tr)
		}
		w.SetDrawVelocity(e, mgl32.Vec3{rng.Range(-3, 3), 1, 0}, mgl32.Vec3{})
	}
	pivot, hidden := all[12], all[13]
	same := func(a, b geom.Transform) bool {
		for k := range 3 {
			if math.Abs(float64(a.Pos[k]-b.Pos[k])) > 1e-5 || math.Abs(float64(a.Scale[k]-b.Scale[k])) > 1e-6 {
				return false
			}
		}
		return math.Abs(float64(a.Rot.Dot(b.Rot))) > 1-1e-6
	}
	var rb RenderBuffer
	if _, ok := w.DrawTransform(all[0], &rb); ok {
		t.Error("DrawTransform placed an entity before any Interpolate")
	}
	for _, cfg := range []InterpolationConfig{DefaultInterpolationConfig(), {}} {
		for _, alpha := range []float32{0, 0.25, 0.6, 1} {
			w.SetMesh(pivot, render.MeshCube)
			w.SetVisible(hidden, true)
			w.Interpolate(alpha, 1.0/60, cfg, &rb)
			want := map[Entity]geom.Transform{}
			for k, e := range rb.Entities {
				in := rb.Instances[k]
				want[e] = geom.Transform{Pos: in.Pos, Rot: in.Rot, Scale: in.Scale}
			}
			w.SetMesh(pivot, render.MeshNone)
			w.SetVisible(hidden, false)
			w.Interpolate(alpha, 1.0/60, cfg, &rb)
			if _, drawn := rb.Find(pivot); drawn {
				t.Fatal("the pivot was drawn")
			}
			for _, e := range all {
				got, ok := w.DrawTransform(e, &rb)
				if !ok || !same(got, want[e]) {
					t.Errorf("interpolation %v, alpha %v, entity %v (mode %v): DrawTransform %v, drawn at %v", cfg.Enabled, alpha, e, w.cur.Mode[e.index], got, want[e])
				}
			}
		}
	}
}
