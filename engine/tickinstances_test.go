package engine

import (
	"math/bits"
	"runtime"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/render"
)

// InterpolateOnGPU makes the ticks' instances once a tick (and after a
// restore or a load), not every frame; it leaves the instances empty and
// still places what rides an entity (DrawTransform). TickInstances holds
// the states Interpolate draws between, flags the teleported and the
// hidden, and scales by the mesh scale.
func TestInterpolateOnGPUMakesTicksOncePerTick(t *testing.T) {
	e := newEngine(t)
	w := e.World
	a := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), Interpolate)
	b := w.Spawn(geom.NewTransform(mgl32.Vec3{5, 0, 0}), Interpolate)
	hidden := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	w.SetVisible(hidden, false)
	w.SetMeshScale(a, mgl32.Vec3{2, 2, 2})
	w.BeginTick(1)
	w.SetTransform(a, geom.NewTransform(mgl32.Vec3{1, 0, 0}))
	w.Teleport(b, geom.NewTransform(mgl32.Vec3{9, 0, 0}))
	var rb RenderBuffer
	cfg := DefaultInterpolationConfig()
	w.InterpolateOnGPU(0.5, 1.0/60, cfg, &rb)
	if len(rb.Instances) != 0 || len(rb.Ticks.Slots) != 3 {
		t.Fatalf("%d instances, %d ticks; want 0 and 3", len(rb.Instances), len(rb.Ticks.Slots))
	}
	ta, tb, th := rb.Ticks.Slots[a.Index()], rb.Ticks.Slots[b.Index()], rb.Ticks.Slots[hidden.Index()]
	if ta.PrevPos != (mgl32.Vec3{}) || ta.Pos != (mgl32.Vec3{1, 0, 0}) || ta.Scale != (mgl32.Vec3{2, 2, 2}) || ta.Flags != render.TickDrawn {
		t.Errorf("a: %+v, want from 0 to (1, 0, 0), scale 2, drawn", ta)
	}
	if tb.Flags != render.TickDrawn|render.TickSnap || th.Flags != 0 {
		t.Errorf("the teleported one's flags %b, the hidden one's %b; want drawn and snap, and none", tb.Flags, th.Flags)
	}
	// The teleport is a snap, counted as the CPU path counts it: on every
	// frame until the next tick in Snaps, once in TotalSnaps.
	for range 2 {
		if rb.Snaps != 1 || rb.TotalSnaps != 1 {
			t.Errorf("Snaps %d, TotalSnaps %d; want 1 and 1", rb.Snaps, rb.TotalSnaps)
		}
		w.InterpolateOnGPU(0.5, 1.0/60, cfg, &rb)
	}
	if p, ok := w.DrawTransform(a, &rb); !ok || p.Pos != (mgl32.Vec3{0.5, 0, 0}) {
		t.Errorf("DrawTransform on the GPU path: %v, want (0.5, 0, 0)", p.Pos)
	}
	epoch := rb.Ticks.Epoch
	rb.Ticks.Slots[a.Index()].Pos = mgl32.Vec3{42, 0, 0} // a frame without a tick leaves Ticks alone
	w.InterpolateOnGPU(0.8, 1.0/60, cfg, &rb)
	if rb.Ticks.Epoch != epoch || rb.Ticks.Slots[a.Index()].Pos[0] != 42 {
		t.Error("a frame without a new tick made the ticks again")
	}
	var st State
	e.SaveState(&st)
	e.LoadState(&st)
	w.InterpolateOnGPU(0.8, 1.0/60, cfg, &rb)
	if rb.Ticks.Epoch == epoch || rb.Ticks.Slots[a.Index()].Pos[0] != 1 {
		t.Error("LoadState did not make the ticks again")
	}
	epoch = rb.Ticks.Epoch
	w.BeginTick(2)
	w.SetTransform(b, geom.NewTransform(mgl32.Vec3{9, 1, 0}))
	w.InterpolateOnGPU(0, 1.0/60, cfg, &rb)
	if rb.Ticks.Epoch != epoch+1 || !rb.NewTicks || !rb.OnGPU {
		t.Errorf("a new tick: epoch %d after %d, NewTicks %v, OnGPU %v; want the next epoch, both set", rb.Ticks.Epoch, epoch, rb.NewTicks, rb.OnGPU)
	}
	// Changed marks what differs from the ticks made before: a stopped
	// (its previous state now equals its current one) and b moved; the
	// hidden slot is the same.
	if got, want := rb.Ticks.Changed, []uint64{1<<a.Index() | 1<<b.Index()}; !slices.Equal(got, want) {
		t.Errorf("Changed %b, want %b", got, want)
	}
	w.InterpolateOnGPU(0.5, 1.0/60, cfg, &rb)
	if rb.NewTicks {
		t.Error("NewTicks is set on a frame without a new tick")
	}
	rb.Ticks.Changed[0] = 0
	rb.Ticks.SetPose(int(hidden.Index()), 3)
	if rb.Ticks.Changed[0] != 1<<hidden.Index() || rb.Ticks.Slots[hidden.Index()].Pose != 3 {
		t.Errorf("SetPose: Changed %b, pose %d; want the slot marked, pose 3", rb.Ticks.Changed[0], rb.Ticks.Slots[hidden.Index()].Pose)
	}
	// A frame on the CPU path, then one on the GPU path: the ticks are
	// made again (the CPU path emptied the poses), and a configuration
	// change makes them again too.
	var drawn RenderBuffer
	w.Interpolate(0.5, 1.0/60, cfg, &rb)
	w.InterpolateOnGPU(0.5, 1.0/60, cfg, &rb)
	if !rb.NewTicks || rb.OnGPU != true {
		t.Error("the GPU path after the CPU path did not make the ticks again")
	}
	off := cfg
	off.Enabled = false
	w.InterpolateOnGPU(0.5, 1.0/60, off, &drawn)
	w.InterpolateOnGPU(0.5, 1.0/60, off, &rb)
	if !rb.NewTicks || rb.Ticks.Slots[a.Index()].Flags&render.TickSnap == 0 {
		t.Error("turning interpolation off did not make the ticks again, snapped")
	}
}

// BenchmarkTickInstances measures InterpolateOnGPU's making of a tick's
// instances for 1,000,000 entities of which 1 % moved: the per-slot cost
// of reading the world and finding what changed.
func BenchmarkTickInstances(b *testing.B) {
	const n = 1_000_000
	w := NewWorld(1)
	rng := NewRNG(2)
	for range n {
		w.Spawn(geom.Transform{Pos: mgl32.Vec3{rng.Range(-50, 50), rng.Range(-50, 50), rng.Range(-50, 50)}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1, 1, 1}}, Interpolate)
	}
	cfg := DefaultInterpolationConfig()
	var rb RenderBuffer
	bodies := w.Bodies()
	tick := uint64(0)
	for b.Loop() {
		b.StopTimer()
		tick++
		w.BeginTick(tick)
		for i := 0; i < n; i += 100 {
			bodies.Pos[i][0] += 0.01
		}
		b.StartTimer()
		w.InterpolateOnGPU(0.5, 1.0/60, cfg, &rb)
	}
}

// Past tickChunk slots the instances are made on several processors; they
// and the changed bits are those made on one, bit for bit (with hidden
// entities and a hierarchy, so every column is read).
func TestTickInstancesInPartsMatchOne(t *testing.T) {
	// Three parts even on a machine of one processor, or the test would
	// compare one with one.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	const n = 3*tickChunk + 77
	w := NewWorld(1)
	rng := NewRNG(9)
	var ents []Entity
	for i := range n {
		e := w.Spawn(geom.NewTransform(mgl32.Vec3{rng.Range(-9, 9), rng.Range(-9, 9), 0}), Interpolate)
		if i%1000 == 7 {
			w.SetVisible(e, false)
		}
		ents = append(ents, e)
	}
	for i := 1; i < 50; i++ {
		if err := w.SetParent(ents[i*1000+1], ents[i*1000], KeepLocal); err != nil {
			t.Fatal(err)
		}
	}
	cfg := DefaultInterpolationConfig()
	var rb RenderBuffer
	w.BeginTick(1)
	w.InterpolateOnGPU(0, 1.0/60, cfg, &rb)
	w.BeginTick(2)
	for i := 0; i < n; i += 37 {
		tr := w.Transform(ents[i])
		tr.Pos[1] += 0.5
		w.SetTransform(ents[i], tr)
	}
	old := slices.Clone(rb.Ticks.Slots)
	w.InterpolateOnGPU(0, 1.0/60, cfg, &rb)
	if rb.Ticks.Changed == nil {
		t.Fatal("no changed bits")
	}
	one := slices.Clone(old)
	changed := make([]uint64, (n+63)/64)
	w.tickRange(cfg, one, changed, w.hiddenInTree(), 0, n)
	if !slices.Equal(one, rb.Ticks.Slots) || !slices.Equal(changed, rb.Ticks.Changed) {
		t.Error("the instances made in parts differ from those made in one")
	}
	moved := 0
	for _, w := range changed {
		moved += bits.OnesCount64(w)
	}
	if want := n/37 - n/1000; moved < want { // the hidden ones moved unseen
		t.Errorf("%d slots changed, want at least the %d moved and visible", moved, want)
	}
}
