package engine

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/nebulaengine/nebula/engine/render"
)

// TickInstances writes into dst, reusing its memory, one render.TickInstance
// per entity slot (World.Slots, in slot order): what a renderer that
// interpolates on the GPU draws between the last two ticks. Each holds the
// slot's world transform at the start of the last tick and at its end
// (the transforms Interpolate draws between), scaled by the mesh scale,
// its colour, mesh and emissive colour, and flags: render.TickDrawn for an
// entity Interpolate would draw (alive, visible with its ancestors, not a
// pivot), render.TickSnap for one Interpolate would draw at its current
// state at every alpha (teleported, beyond cfg's thresholds, drawn with
// NoInterpolation, or cfg.Enabled false). A slot not drawn holds zeros
// but for its flags.
//
// Call it once a tick (when World.Tick changes), not every frame: it
// costs the CPU per slot, and the frames between ticks cost nothing per
// entity, the shader placing each at the frame's alpha. An entity drawn
// with Hermite is placed on the straight line between its two states
// here, as on the GPU path it is. It panics if cfg is not valid. Past
// 32,768 slots, on more than one processor, it shares the slots among
// goroutines (a few small allocations a call); below that, it does not
// allocate once dst has grown to the world's slots.
func (w *World) TickInstances(cfg InterpolationConfig, dst []render.TickInstance) []render.TickInstance {
	if err := cfg.Validate(); err != nil {
		panic(err.Error())
	}
	dst, _ = w.tickInstances(cfg, dst, nil)
	return dst
}

// tickInstances is TickInstances, also setting in changed (nil: not)
// the bit of every slot whose instance differs from the one dst held, and
// returning the snaps (as RenderBuffer.Snaps counts them).
// Past tickChunk slots a share of them is made on each processor: the
// instances are the same whatever the share (each slot's depends on that
// slot alone, and the shares split at whole words of changed).
func (w *World) tickInstances(cfg InterpolationConfig, dst []render.TickInstance, changed []uint64) ([]render.TickInstance, int) {
	w.propagateIfStale()
	n := len(w.gen)
	dst = slices.Grow(dst[:0], n)[:n]
	hidden := w.hiddenInTree() // made once: it writes a scratch slice
	parts := min(runtime.GOMAXPROCS(0), n/tickChunk)
	if parts < 2 {
		return dst, w.tickRange(cfg, dst, changed, hidden, 0, n)
	}
	var wg sync.WaitGroup
	var snaps atomic.Int64
	lo := 0
	for k := range parts - 1 {
		from, to := lo, (n*(k+1)/parts)&^63
		wg.Go(func() { snaps.Add(int64(w.tickRange(cfg, dst, changed, hidden, from, to))) })
		lo = to
	}
	snaps.Add(int64(w.tickRange(cfg, dst, changed, hidden, lo, n)))
	wg.Wait()
	return dst, int(snaps.Load())
}

// tickChunk is the fewest slots worth a processor of their own in
// tickInstances.
const tickChunk = 1 << 14

// tickRange makes the instances of slots lo to hi (tickInstances); hidden
// is hiddenInTree's. It only reads the world. It returns the snaps among
// them: drawn entities snapped by a teleport or a threshold.
func (w *World) tickRange(cfg InterpolationConfig, dst []render.TickInstance, changed []uint64, hidden []bool, lo, hi int) int {
	snaps := 0
	n := len(w.gen)
	curPos, curRot, curScale := w.cur.Pos[:n], w.cur.Rot[:n], w.cur.Scale[:n]
	prevPos, prevRot, prevScale := w.prev.Pos[:n], w.prev.Rot[:n], w.prev.Scale[:n]
	if h := &w.hier; h.linked > 0 {
		curPos, curRot, curScale = h.cur.Pos[:n], h.cur.Rot[:n], h.cur.Scale[:n]
		prevPos, prevRot, prevScale = h.prv.Pos[:n], h.prv.Rot[:n], h.prv.Scale[:n]
	}
	modes, colors, meshes, meshScales, emissive := w.cur.Mode[:n], w.cur.Color[:n], w.cur.Mesh[:n], w.cur.MeshScale[:n], w.cur.Emissive[:n]
	maxDist2, minDot := cfg.snapLimits()
	for i := lo; i < hi; i++ {
		g := w.gen[i]
		var t render.TickInstance
		if g&1 != 0 && meshes[i] != render.MeshNone && (hidden == nil || !hidden[i]) {
			cp, cr := curPos[i], curRot[i]
			pp, pr := prevPos[i], prevRot[i]
			ms := &meshScales[i]
			t.Pos, t.Rot, t.Scale = cp, cr, scaled(curScale[i], ms)
			t.PrevPos, t.PrevRot, t.PrevScale = pp, pr, scaled(prevScale[i], ms)
			t.Color, t.Mesh, t.Emissive = colors[i], meshes[i], emissive[i]
			flags := render.TickDrawn
			dx, dy, dz := cp[0]-pp[0], cp[1]-pp[1], cp[2]-pp[2]
			dot := pr.W*cr.W + pr.V[0]*cr.V[0] + pr.V[1]*cr.V[1] + pr.V[2]*cr.V[2]
			switch {
			case !cfg.Enabled || modes[i] == NoInterpolation:
				flags |= render.TickSnap
			case w.snap[i] || dx*dx+dy*dy+dz*dz > maxDist2 || float32(math.Abs(float64(dot))) < minDot:
				flags |= render.TickSnap
				snaps++
			}
			t.Flags = flags
		}
		// A slot that did not change is not written: a world mostly at
		// rest reads its instances but dirties no memory. The bits are
		// compared (a float comparison would take -0 for 0 and a NaN
		// for a change).
		if *(*tickWords)(unsafe.Pointer(&dst[i])) != *(*tickWords)(unsafe.Pointer(&t)) {
			if changed != nil {
				changed[i/64] |= 1 << (i % 64)
			}
			dst[i] = t
		}
	}
	return snaps
}

// tickWords is a render.TickInstance as the words compared.
type tickWords [unsafe.Sizeof(render.TickInstance{}) / 8]uint64

// InterpolateOnGPU is Interpolate for a renderer that places the entities
// between the ticks itself, on the GPU (gfx.Renderer.DrawTicks): it
// empties dst's instances and lights, records alpha, tickDT and cfg
// (World.DrawTransform, and so package light, place what rides an entity
// as Interpolate would), sets dst.OnGPU, and makes dst.Ticks again with
// TickInstances when a tick has begun, or a state was restored or loaded,
// since it last did (dst.Ticks.Epoch then changes by one, dst.NewTicks
// is set, dst.Poses is emptied for the Render systems to pose the new
// tick's slots, and dst.Ticks.Changed marks the slots that differ from
// the ones made before). A frame without a new tick costs it nothing per
// entity. Changes made outside the ticks (at set-up, between frames) show
// from the next tick.
//
// Render systems that write into the instances (a render correction) have
// nothing to write into on this path.
func (w *World) InterpolateOnGPU(alpha, tickDT float32, cfg InterpolationConfig, dst *RenderBuffer) {
	mustInterpolate(alpha, tickDT, cfg)
	dst.Instances, dst.Entities = dst.Instances[:0], dst.Entities[:0]
	dst.Snaps = dst.tickSnaps // the snaps of the tick, drawn snapped until the next
	dst.Lights = dst.Lights[:0]
	dst.current = dst.current[:0]
	dst.Alpha = alpha
	if !cfg.Enabled {
		dst.Alpha = 1
	}
	dst.cfg, dst.tickDT, dst.interpolated = cfg, tickDT, true
	dst.OnGPU, dst.NewTicks = true, false
	if dst.ticksEpoch == w.epoch+1 && len(dst.Ticks.Slots) == len(w.gen) && dst.cfg == dst.ticksCfg {
		return
	}
	t := &dst.Ticks
	n := len(w.gen)
	t.Changed = nil
	if len(t.Slots) == n {
		words := (n + 63) / 64
		dst.changed = slices.Grow(dst.changed[:0], words)[:words]
		clear(dst.changed)
		t.Changed = dst.changed
	}
	t.Slots, dst.tickSnaps = w.tickInstances(cfg, t.Slots, t.Changed)
	dst.Snaps = dst.tickSnaps
	if !dst.counted || dst.countedTick != w.tick {
		dst.TotalSnaps += uint64(dst.tickSnaps)
		dst.countedTick, dst.counted = w.tick, true
	}
	t.Epoch++
	dst.ticksEpoch, dst.ticksCfg = w.epoch+1, cfg
	dst.NewTicks = true
	dst.Poses.Reset()
}
