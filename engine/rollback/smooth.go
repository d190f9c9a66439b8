package rollback

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// keepPositions keeps every slot's position and entity at the present,
// before a rollback moves them.
func (r *Rollback) keepPositions() {
	w := r.sim.Simulated()
	r.before = append(r.before[:0], w.WorldPositions()...)
	n := w.Slots()
	r.beforeEnt = slices.Grow(r.beforeEnt[:0], n)[:n]
	for i := range n {
		r.beforeEnt[i], _ = w.EntityAt(i)
	}
}

// ease turns what a rollback moved into offsets to draw: the current
// position before the rollback minus the one after, for every entity that
// lived through it and was not teleported.
func (r *Rollback) ease() {
	w := r.sim.Simulated()
	n := w.Slots()
	if len(r.offset) < n {
		r.offset = slices.Grow(r.offset, n-len(r.offset))[:n]
		r.offEnt = slices.Grow(r.offEnt, n-len(r.offEnt))[:n]
	}
	limit := r.cfg.Smoothing.MaxDistance
	if limit == 0 {
		limit = r.sim.Interpolation().SnapDistance
	}
	limit2 := limit * limit
	if limit == 0 {
		limit2 = float32(math.Inf(1))
	}
	pos := w.WorldPositions()
	m := min(n, len(r.before))
	for i := range m {
		ent, alive := w.EntityAt(i)
		if !alive || r.beforeEnt[i] != ent {
			continue
		}
		d := r.before[i].Sub(pos[i])
		if d == (mgl32.Vec3{}) {
			continue
		}
		if r.offEnt[i] != ent {
			r.offset[i], r.offEnt[i] = mgl32.Vec3{}, ent
		}
		was := r.offset[i] != (mgl32.Vec3{})
		o := r.offset[i].Add(d)
		if w.SlotTeleported(i) || o.Dot(o) > limit2 {
			o = mgl32.Vec3{}
			r.stats.Snapped++
		} else {
			r.stats.Smoothed++
		}
		r.offset[i] = o
		switch now := o != (mgl32.Vec3{}); {
		case now && !was:
			r.active++
		case !now && was:
			r.active--
		}
	}
}

// CorrectRender implements engine.RenderCorrector: it adds the eased
// corrections to the frame's instances and decays them by the frame's
// time.
func (r *Rollback) CorrectRender(dt float64, dst *engine.RenderBuffer) {
	if r.active == 0 {
		return
	}
	w := r.sim.Simulated()
	hl := r.cfg.Smoothing.HalfLife.Seconds()
	keep := float32(1)
	if hl > 0 {
		keep = float32(math.Exp2(-dt / hl))
	}
	// Every live entity is drawn, so the offsets still to draw are those
	// counted here; an entity despawned meanwhile drops out.
	active := 0
	for k, ent := range dst.Entities {
		i := ent.Index()
		if i >= len(r.offset) || r.offEnt[i] != ent || r.offset[i] == (mgl32.Vec3{}) {
			continue
		}
		o := r.offset[i]
		if w.SlotTeleported(i) { // teleported since: snap
			o = mgl32.Vec3{}
		}
		dst.Instances[k].Pos = dst.Instances[k].Pos.Add(o)
		o = o.Mul(keep)
		if o.Dot(o) < 1e-8 {
			o = mgl32.Vec3{}
		}
		r.offset[i] = o
		if o != (mgl32.Vec3{}) {
			active++
		}
	}
	r.active = active
}
