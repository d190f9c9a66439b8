package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/detmath"
	"github.com/nebulaengine/nebula/engine/geom"
)

// Half turns about the axes, with which composition is exact.
var (
	halfX = mgl32.Quat{W: 0, V: mgl32.Vec3{1, 0, 0}}
	halfY = mgl32.Quat{W: 0, V: mgl32.Vec3{0, 1, 0}}
	halfZ = mgl32.Quat{W: 0, V: mgl32.Vec3{0, 0, 1}}
)

func trs(pos mgl32.Vec3, rot mgl32.Quat, s float32) geom.Transform {
	return geom.Transform{Pos: pos, Rot: rot, Scale: mgl32.Vec3{s, s, s}}
}

// A chain of three: the world transforms are exact, the same from
// WorldTransform and from PropagateTransforms (the drawn instances), and
// the local transforms are unchanged.
func TestHierarchyChainExact(t *testing.T) {
	w := NewWorld(1)
	root := w.Spawn(trs(mgl32.Vec3{1, 2, 3}, halfZ, 2), NoInterpolation)
	mid := w.Spawn(trs(mgl32.Vec3{1, 0, 0}, mgl32.QuatIdent(), 1), NoInterpolation)
	leaf := w.Spawn(trs(mgl32.Vec3{0, 1, 0}, halfX, 0.5), NoInterpolation)
	for _, p := range [][2]Entity{{mid, root}, {leaf, mid}} {
		if err := w.SetParent(p[0], p[1], KeepLocal); err != nil {
			t.Fatal(err)
		}
	}
	w.BeginTick(1)
	w.PropagateTransforms()
	want := map[Entity]geom.Transform{
		root: trs(mgl32.Vec3{1, 2, 3}, halfZ, 2),
		mid:  trs(mgl32.Vec3{-1, 2, 3}, halfZ, 2),
		leaf: trs(mgl32.Vec3{-1, 0, 3}, halfY, 1),
	}
	var rb RenderBuffer
	w.Interpolate(0.5, 1.0/60, DefaultInterpolationConfig(), &rb)
	for e, wt := range want {
		if got := w.WorldTransform(e); got != wt {
			t.Errorf("WorldTransform(%v) = %+v, want %+v", e, got, wt)
		}
		k, _ := rb.Find(e)
		if in := rb.Instances[k]; in.Pos != wt.Pos || in.Rot != wt.Rot || in.Scale != wt.Scale {
			t.Errorf("%v drawn at %v %v %v, want %+v", e, in.Pos, in.Rot, in.Scale, wt)
		}
	}
	if l := w.Transform(leaf); l != trs(mgl32.Vec3{0, 1, 0}, halfX, 0.5) {
		t.Errorf("the leaf's local transform changed: %+v", l)
	}
	if p, ok := w.Parent(leaf); !ok || p != mid {
		t.Errorf("Parent(leaf) = %v, %v", p, ok)
	}
	if _, ok := w.Parent(root); ok {
		t.Error("the root has a parent")
	}
	// Arbitrary transforms: the propagated bits are WorldTransform's, and
	// match the composition by geom.Transform.Mul.
	r := NewRNG(9)
	rnd := func() geom.Transform {
		q := mgl32.Quat{W: r.Range(-1, 1), V: mgl32.Vec3{r.Range(-1, 1), r.Range(-1, 1), r.Range(-1, 1)}}.Normalize()
		return geom.Transform{Pos: mgl32.Vec3{r.Range(-9, 9), r.Range(-9, 9), r.Range(-9, 9)}, Rot: q, Scale: mgl32.Vec3{r.Range(0.5, 2), r.Range(0.5, 2), r.Range(0.5, 2)}}
	}
	for _, e := range []Entity{root, mid, leaf} {
		w.SetTransform(e, rnd())
	}
	w.PropagateTransforms()
	composed := w.Transform(root).Mul(w.Transform(mid)).Mul(w.Transform(leaf))
	k, _ := rb.Find(leaf)
	w.Interpolate(1, 1.0/60, DefaultInterpolationConfig(), &rb)
	if got := w.WorldTransform(leaf); got != composed || rb.Instances[k].Pos != composed.Pos || rb.Instances[k].Rot != composed.Rot {
		t.Errorf("leaf: WorldTransform %+v, drawn %+v, composed %+v", got, rb.Instances[k], composed)
	}
}

// Reparenting keeps the world transform (local recomputed) or the local
// one (the world jumps, drawn at once); Unparent likewise.
func TestHierarchyReparentKeep(t *testing.T) {
	w := NewWorld(1)
	a := w.Spawn(trs(mgl32.Vec3{10, 0, 0}, halfZ, 2), Interpolate)
	b := w.Spawn(trs(mgl32.Vec3{0, 5, 0}, mgl32.QuatIdent(), 1), Interpolate)
	c := w.Spawn(trs(mgl32.Vec3{1, 1, 1}, mgl32.QuatIdent(), 1), Interpolate)
	w.BeginTick(1)

	if err := w.SetParent(c, a, KeepWorld); err != nil {
		t.Fatal(err)
	}
	if got := w.WorldTransform(c); got != trs(mgl32.Vec3{1, 1, 1}, mgl32.QuatIdent(), 1) {
		t.Errorf("KeepWorld: world %+v, want where it was", got)
	}
	// Local: (1,1,1) seen from a: (rot180z^-1 ((1,1,1)-(10,0,0)))/2 = (4.5, -0.5, 0.5).
	if got := w.Transform(c); got != trs(mgl32.Vec3{4.5, -0.5, 0.5}, mgl32.Quat{W: 0, V: mgl32.Vec3{0, 0, -1}}, 0.5) {
		t.Errorf("KeepWorld: local %+v", got)
	}
	if err := w.SetParent(c, b, KeepLocal); err != nil {
		t.Fatal(err)
	}
	if got := w.WorldTransform(c).Pos; got != (mgl32.Vec3{4.5, 4.5, 0.5}) {
		t.Errorf("KeepLocal: world position %v, want b's + the kept local [4.5 4.5 0.5]", got)
	}
	w.PropagateTransforms()
	if got := w.WorldPositions()[c.Index()]; got != (mgl32.Vec3{4.5, 4.5, 0.5}) {
		t.Errorf("WorldPositions: %v, want [4.5 4.5 0.5]", got)
	}
	if got := slices.Collect(w.Children(a)); len(got) != 0 {
		t.Errorf("a's children after the move: %v", got)
	}
	if got := slices.Collect(w.Children(b)); !slices.Equal(got, []Entity{c}) {
		t.Errorf("b's children: %v", got)
	}
	w.PropagateTransforms()
	var rb RenderBuffer
	w.Interpolate(0.5, 1.0/60, DefaultInterpolationConfig(), &rb)
	if rb.Snaps != 1 {
		t.Errorf("a KeepLocal jump: %d snaps drawn, want 1", rb.Snaps)
	}

	// Unparent keeping the world: c stays at b's + local, now a root.
	if !w.Unparent(c, KeepWorld) || w.Unparent(c, KeepWorld) {
		t.Error("Unparent did not report the parent, once")
	}
	if got := w.Transform(c).Pos; got != (mgl32.Vec3{4.5, 4.5, 0.5}) {
		t.Errorf("Unparent KeepWorld: local %v", got)
	}
	w.SetParent(c, b, KeepLocal)
	w.Unparent(c, KeepLocal)
	if got := w.WorldTransform(c).Pos; got != (mgl32.Vec3{4.5, 4.5, 0.5}) {
		t.Errorf("Unparent KeepLocal: world %v, want the local [4.5 4.5 0.5]", got)
	}
	if s := KeepWorld.String() + ", " + KeepLocal.String() + ", " + Keep(7).String(); s != "keep world, keep local, Keep(7)" {
		t.Errorf("Keep strings: %s", s)
	}
	// Children in slot order, whatever the order of attaching.
	d := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	for _, x := range []Entity{d, b, c} {
		if err := w.SetParent(x, a, KeepWorld); err != nil {
			t.Fatal(err)
		}
	}
	if got := slices.Collect(w.Children(a)); !slices.Equal(got, []Entity{b, c, d}) {
		t.Errorf("children %v, want slot order %v", got, []Entity{b, c, d})
	}
}

// A cycle, an entity its own parent, and dead entities are refused with
// an error, and nothing changes.
func TestHierarchyRefuses(t *testing.T) {
	w := NewWorld(1)
	a := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	b := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	c := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	dead := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	w.Despawn(dead)
	must(t, w.SetParent(b, a, KeepWorld))
	must(t, w.SetParent(c, b, KeepWorld))
	before := w.Hash()
	for _, tc := range []struct {
		child, parent Entity
		want          string
	}{
		{a, c, "engine: SetParent(0:1, 2:1): 2:1 is a descendant of 0:1, so the hierarchy would have a cycle"},
		{a, b, "is a descendant of 0:1"},
		{a, a, "cannot be its own parent"},
		{dead, a, "the child 3:1 is not alive"},
		{a, dead, "the parent 3:1 is not alive"},
	} {
		err := w.SetParent(tc.child, tc.parent, KeepWorld)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetParent(%v, %v) = %v, want %q", tc.child, tc.parent, err, tc.want)
		}
	}
	if w.Hash() != before {
		t.Error("a refused SetParent changed the world")
	}
}

// Despawning a parent despawns its descendants, in a fixed order; its
// siblings and its own parent stay.
func TestHierarchyDespawn(t *testing.T) {
	w := NewWorld(1)
	var e [7]Entity
	for i := range e {
		e[i] = w.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0, 0}), Interpolate)
	}
	// 0 -> 1 -> {2 -> 5, 4}; 0 -> 3; 6 alone.
	must(t, w.SetParent(e[1], e[0], KeepWorld))
	must(t, w.SetParent(e[5], e[2], KeepWorld))
	must(t, w.SetParent(e[4], e[1], KeepWorld))
	must(t, w.SetParent(e[2], e[1], KeepWorld))
	must(t, w.SetParent(e[3], e[0], KeepWorld))
	if !w.Despawn(e[1]) {
		t.Fatal("Despawn(1) = false")
	}
	for i, alive := range []bool{true, false, false, true, false, false, true} {
		if w.Alive(e[i]) != alive {
			t.Errorf("entity %d alive %v, want %v", i, !alive, alive)
		}
	}
	if w.Len() != 3 {
		t.Errorf("%d live, want 3", w.Len())
	}
	// Freed 1 first, then its subtree depth first in slot order: 2, 5, 4.
	if !slices.Equal(w.free, []uint32{1, 2, 5, 4}) {
		t.Errorf("free list %v, want [1 2 5 4]", w.free)
	}
	if got := slices.Collect(w.Children(e[0])); !slices.Equal(got, []Entity{e[3]}) {
		t.Errorf("0's children %v, want [3]", got)
	}
	if w.hier.linked != 1 {
		t.Errorf("%d linked, want 1", w.hier.linked)
	}
	w.Despawn(e[0])
	if w.Alive(e[3]) || w.hier.linked != 0 || w.Len() != 1 {
		t.Errorf("after despawning the root: 3 alive %v, %d linked, %d live", w.Alive(e[3]), w.hier.linked, w.Len())
	}
	// Reused slots start without links.
	n := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	if _, ok := w.Parent(n); ok || len(slices.Collect(w.Children(n))) != 0 {
		t.Error("a reused slot has links")
	}
}

// movingParent is an engine whose parent moves +1 along x every tick, with
// a child one unit above it and a grandchild one unit beyond that.
func movingParent(t *testing.T) (e *Engine, parent, child, grand Entity) {
	t.Helper()
	e, err := New(DefaultConfig())
	must(t, err)
	w := e.World
	parent = w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), Interpolate)
	child = w.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), Interpolate)
	grand = w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 1}), Hermite)
	must(t, w.SetParent(child, parent, KeepLocal))
	must(t, w.SetParent(grand, child, KeepLocal))
	e.AddSystem(StageScripts, "move", func(c *FixedContext) {
		tr := c.World.Transform(parent)
		tr.Pos[0]++
		c.World.SetTransform(parent, tr)
	})
	return e, parent, child, grand
}

// A child of a moving parent is drawn at the parent's drawn position plus
// its offset: no lag behind it, no swoop.
func TestHierarchyInterpolatesWorld(t *testing.T) {
	e, parent, child, grand := movingParent(t)
	for range 3 {
		if !e.StepTick(0) {
			t.Fatal(e.Err())
		}
	}
	var rb RenderBuffer
	for _, alpha := range []float32{0, 0.25, 0.5, 1} {
		e.World.Interpolate(alpha, 1.0/60, DefaultInterpolationConfig(), &rb)
		at := func(x Entity) mgl32.Vec3 { k, _ := rb.Find(x); return rb.Instances[k].Pos }
		px := 2 + alpha
		if got := at(parent); got != (mgl32.Vec3{px, 0, 0}) {
			t.Errorf("alpha %v: parent at %v", alpha, got)
		}
		if got := at(child); got != (mgl32.Vec3{px, 1, 0}) {
			t.Errorf("alpha %v: child at %v, want [%v 1 0]", alpha, got, px)
		}
		if got := at(grand); got != (mgl32.Vec3{px, 1, 1}) {
			t.Errorf("alpha %v: grandchild (Hermite) at %v, want [%v 1 1]", alpha, got, px)
		}
		if rb.Snaps != 0 {
			t.Errorf("alpha %v: %d snaps", alpha, rb.Snaps)
		}
	}
}

// A parent's teleport snaps its descendants: the whole family is drawn at
// the tick, counted as snaps.
func TestHierarchyTeleportSnapsChildren(t *testing.T) {
	e, parent, child, grand := movingParent(t)
	e.AddSystem(StageScripts, "jump", func(c *FixedContext) {
		if c.Tick == 3 {
			c.World.Teleport(parent, geom.NewTransform(mgl32.Vec3{100, 0, 0}))
		}
	})
	for range 3 {
		e.StepTick(0)
	}
	var rb RenderBuffer
	e.World.Interpolate(0.5, 1.0/60, DefaultInterpolationConfig(), &rb)
	if rb.Snaps != 3 {
		t.Errorf("%d snaps, want 3 (the parent and its descendants)", rb.Snaps)
	}
	for x, want := range map[Entity]mgl32.Vec3{parent: {100, 0, 0}, child: {100, 1, 0}, grand: {100, 1, 1}} {
		if k, _ := rb.Find(x); rb.Instances[k].Pos != want || !rb.AtCurrent(k) {
			t.Errorf("%v drawn at %v (at current %v), want %v at the tick", x, rb.Instances[k].Pos, rb.AtCurrent(k), want)
		}
	}
}

// hierScene is snapScene with a hierarchy that changes: children attached
// and detached both ways, parents despawned with their subtrees, parents
// teleported.
func hierScene(t testing.TB) *Engine {
	e := snapScene(t, JobsDeterministic)
	e.AddSystem(StageScripts, "family", func(c *FixedContext) {
		w, r := c.World, c.World.RNG()
		pick := func() (Entity, bool) { return w.EntityAt(r.Intn(w.Slots())) }
		switch c.Tick % 4 {
		case 0, 1:
			a, ok1 := pick()
			b, ok2 := pick()
			if ok1 && ok2 {
				_ = w.SetParent(a, b, Keep(r.Intn(2))) // cycles refused
			}
		case 2:
			if a, ok := pick(); ok {
				w.Unparent(a, Keep(r.Intn(2)))
			}
		}
		if c.Tick%9 == 0 {
			if a, ok := pick(); ok {
				tr := w.Transform(a)
				tr.Rot = detmath.Normalize(mgl32.Quat{W: 1, V: mgl32.Vec3{0, r.Range(-2, 2), 0}})
				w.SetTransform(a, tr)
			}
		}
		if c.Tick%17 == 0 {
			for i := range w.Slots() {
				if a, ok := w.EntityAt(i); ok && len(slices.Collect(w.Children(a))) > 0 {
					w.Despawn(a)
					break
				}
			}
		}
	})
	return e
}

// Snapshots and SaveState/LoadState of a world with a hierarchy continue
// with the uninterrupted run's hashes; the hierarchy is in the hash.
func TestHierarchySnapshotAndState(t *testing.T) {
	const total = 300
	want := map[uint64]uint64{}
	ref := hierScene(t)
	stepN(t, ref, total, want)
	if ref.World.hier.linked == 0 {
		t.Fatal("the scene ends without a hierarchy")
	}
	// Pinned: the same on every build (amd64 with and without FMA, 386,
	// arm64), like the demo's golden hashes.
	const golden = 0xdc71e9d8036e3429
	if want[total] != golden {
		t.Errorf("hash at tick %d: %#x, want %#x", total, want[total], uint64(golden))
	}
	for _, k := range []int{0, 1, 50, 123, 250} {
		e := hierScene(t)
		stepN(t, e, k, nil)
		snap := e.Snapshot()
		var st State
		e.SaveState(&st)
		stepN(t, e, 31, nil)
		for _, how := range []string{"snapshot", "state"} {
			if how == "snapshot" {
				must(t, e.Restore(snap))
			} else {
				e.LoadState(&st)
			}
			if k > 0 && e.World.Hash() != want[uint64(k)] {
				t.Fatalf("%s at %d: hash %x, want %x", how, k, e.World.Hash(), want[uint64(k)])
			}
			got := map[uint64]uint64{}
			stepN(t, e, total-k, got)
			for tick := uint64(k) + 1; tick <= total; tick++ {
				if got[tick] != want[tick] {
					t.Fatalf("%s restored at %d: tick %d hash %x, want %x", how, k, tick, got[tick], want[tick])
				}
			}
			if how == "snapshot" {
				e.Restore(snap) // back for the state's turn
				e.SaveState(&st)
			}
		}
	}
	// Another parent, same transforms otherwise: another hash.
	w := ref.World
	for i := range w.Slots() {
		if a, ok := w.EntityAt(i); ok {
			if p, ok := w.Parent(a); ok {
				h := w.Hash()
				local := w.Transform(a)
				w.Unparent(a, KeepLocal)
				w.snap[a.index] = false
				w.SetTransform(a, local)
				if w.Hash() == h {
					t.Error("unparenting did not change the hash")
				}
				_ = p
				break
			}
		}
	}
}

// A world whose hierarchy is gone again hashes and snapshots as one that
// never had one: version 5, no hierarchy section.
func TestHierarchyGoneHashesFlat(t *testing.T) {
	make := func(link bool) *World {
		w := NewWorld(3)
		a := w.Spawn(geom.NewTransform(mgl32.Vec3{1, 0, 0}), Interpolate)
		b := w.Spawn(geom.NewTransform(mgl32.Vec3{2, 0, 0}), Interpolate)
		if link {
			must(t, w.SetParent(b, a, KeepLocal))
			w.PropagateTransforms()
			w.Unparent(b, KeepLocal)
		}
		w.BeginTick(1)
		return w
	}
	flat, gone := make(false), make(true)
	if flat.Hash() != gone.Hash() {
		t.Error("a world whose only parent left hashes unlike one that never had one")
	}
	e, err := New(DefaultConfig())
	must(t, err)
	e.World = gone
	if v := e.Snapshot()[8]; v != padSnapshotVersion {
		t.Errorf("snapshot version %d, want %d (no hierarchy section)", v, padSnapshotVersion)
	}
}

// A snapshot whose parents form a cycle, or name a dead slot, is refused.
func TestHierarchyRestoreRefusesBadParents(t *testing.T) {
	e, err := New(DefaultConfig())
	must(t, err)
	w := e.World
	a := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	b := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	d := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	w.Despawn(d)
	must(t, w.SetParent(b, a, KeepWorld))
	snap := e.Snapshot()
	// The parents follow the teleport marks: find them by their values
	// (slot 0: 0, slot 1: 1 (slot 0 plus one), slot 2: 0), after the count 1.
	at := -1
	for i := 0; i+16 <= len(snap); i++ {
		if string(snap[i:i+16]) == "\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00" {
			at = i + 4
		}
	}
	if at < 0 {
		t.Fatal("parents not found")
	}
	for name, tc := range map[string]struct {
		slot int
		v    byte
		want string
	}{
		"cycle": {0, 2, "on a cycle"},
		"dead":  {1, 3, "slot 1 has parent 3"},
		"self":  {1, 2, "slot 1 has parent 2"},
	} {
		bad := slices.Clone(snap)
		bad[at+4*tc.slot] = tc.v
		if name == "cycle" {
			bad[at-4] = 2 // two linked, the count agreeing
		}
		err := e.Restore(bad)
		var se *SnapshotError
		if !errors.As(err, &se) || se.Field != "parents" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want field parents and %q", name, err, tc.want)
		}
	}
	if p, _ := w.Parent(b); p != a {
		t.Error("a refused restore changed the hierarchy")
	}
}

// Propagation and interpolation of a world with a hierarchy do not
// allocate once warm.
func TestHierarchyDoesNotAllocate(t *testing.T) {
	w := buildForest(1000, 10, 4)
	var rb RenderBuffer
	tick := uint64(0)
	run := func() {
		tick++
		w.BeginTick(tick)
		w.PropagateTransforms()
		w.Interpolate(0.5, 1.0/60, DefaultInterpolationConfig(), &rb)
		_ = w.WorldTransform(Entity{index: 999, gen: 1})
	}
	run()
	if a := testing.AllocsPerRun(50, run); a != 0 {
		t.Errorf("%v allocations per tick, want 0", a)
	}
}

// buildForest spawns n entities in trees of up to size entities and
// depth levels (the root at level 1): each non-root's parent is a random
// earlier entity of its tree at a level below depth. Slots are in tree
// order, as spawned.
func buildForest(n, depth, size int) *World {
	w := NewWorld(1)
	r := NewRNG(42)
	var tree []Entity
	var level []int
	for i := range n {
		q := mgl32.QuatRotate(r.Range(-1, 1), mgl32.Vec3{0, 0, 1})
		e := w.Spawn(geom.Transform{Pos: mgl32.Vec3{r.Range(-1, 1), 1, 0}, Rot: q, Scale: mgl32.Vec3{1, 1, 1}}, Interpolate)
		if size <= 1 || i%size == 0 {
			tree, level = append(tree[:0], e), append(level[:0], 1)
			continue
		}
		for {
			k := r.Intn(len(tree))
			if level[k] < depth {
				if err := w.SetParent(e, tree[k], KeepLocal); err != nil {
					panic(err)
				}
				tree, level = append(tree, e), append(level, level[k]+1)
				break
			}
		}
	}
	return w
}

// The forest's trees reach the depth asked for.
func TestBuildForestDepth(t *testing.T) {
	w := buildForest(2000, 10, 50)
	deepest := 0
	for i := range w.Slots() {
		d := 1
		for k := w.hier.parent[i]; k != 0; k = w.hier.parent[k-1] {
			d++
		}
		deepest = max(deepest, d)
	}
	if deepest != 10 {
		t.Errorf("deepest %d, want 10", deepest)
	}
}

// The dump of a world with a hierarchy names each slot's parent and world
// transform; that of a world without one has no such lines.
func TestHierarchyDump(t *testing.T) {
	w := NewWorld(1)
	a := w.Spawn(geom.NewTransform(mgl32.Vec3{1, 0, 0}), Interpolate)
	b := w.Spawn(geom.NewTransform(mgl32.Vec3{1.5, -2, 0.25}), Interpolate)
	var flat strings.Builder
	must(t, w.WriteDump(&flat))
	if strings.Contains(flat.String(), "parent") || strings.Contains(flat.String(), "world") {
		t.Errorf("a flat world's dump has hierarchy lines:\n%s", flat.String())
	}
	must(t, w.SetParent(b, a, KeepLocal))
	w.PropagateTransforms()
	var out strings.Builder
	must(t, w.WriteDump(&out))
	for _, line := range []string{
		"entities with a parent = 1\n",
		"entity 0:1 parent = none\n",
		"entity 1:1 parent = 0:1\n",
		"entity 1:1 world pos = 2.5 -2 0.25 [40200000 c0000000 3e800000]\n",
		"entity 1:1 prev world pos (not hashed) = 1.5 -2 0.25 [3fc00000 c0000000 3e800000]\n",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("the dump lacks %q:\n%s", line, out.String())
		}
	}
}

// Whatever order propagation takes (slot order, or parents pulled
// before their children after reparenting put them in higher slots, with
// holes and entries appended since), every world transform it computes
// is WorldTransform's, bit for bit.
func TestHierarchyPropagationIsWorldTransform(t *testing.T) {
	for _, scene := range []string{"changing", "forest"} {
		e := hierScene(t)
		stepN(t, e, 120, nil)
		w := e.World
		if scene == "forest" {
			w = buildForest(3000, 10, 30)
			w.PropagateTransforms()
		}
		checkOrder(t, w)
		checkPropagated(t, w, scene)
	}
}

// In slot order, the roots between the runs of children (one, a few,
// many; at the start and at the end) get their transforms as world
// transforms, and the children WorldTransform's, bit for bit, tick after
// tick as everything moves.
func TestHierarchyPropagationRootsBetweenRuns(t *testing.T) {
	w := NewWorld(1)
	r := NewRNG(5)
	spawn := func() Entity {
		q := mgl32.QuatRotate(r.Range(-3, 3), mgl32.Vec3{r.Range(-1, 1), 1, r.Range(-1, 1)}.Normalize())
		s := mgl32.Vec3{r.Range(0.5, 2), r.Range(0.5, 2), r.Range(0.5, 2)}
		return w.Spawn(geom.Transform{Pos: mgl32.Vec3{r.Range(-9, 9), r.Range(-9, 9), r.Range(-9, 9)}, Rot: q, Scale: s}, Interpolate)
	}
	var last Entity
	for _, roots := range []int{20, 1, 3, 8, 9, 2, 64} {
		for range roots {
			last = spawn()
		}
		for range 4 {
			c := spawn()
			must(t, w.SetParent(c, last, KeepLocal))
			last = c
		}
	}
	for range 10 {
		spawn()
	}
	for tick := range 3 {
		w.PropagateTransforms()
		checkOrder(t, w)
		for i := range w.Slots() {
			x, _ := w.EntityAt(i)
			h := &w.hier
			if got, want := (geom.Transform{Pos: h.cur.Pos[i], Rot: h.cur.Rot[i], Scale: h.cur.Scale[i]}), w.WorldTransform(x); got != want {
				t.Fatalf("tick %d: slot %d propagated %+v, WorldTransform %+v", tick, i, got, want)
			}
		}
		for i := range w.cur.Pos {
			w.cur.Pos[i][0] += r.Range(-1, 1)
			w.cur.Rot[i] = w.cur.Rot[i].Mul(mgl32.QuatRotate(r.Range(-1, 1), mgl32.Vec3{0, 1, 0}))
		}
	}
}

// The snap thresholds apply to world-space moves: a child whose parent
// jumped beyond SnapDistance snaps, though its own transform did not
// change.
func TestHierarchyThresholdsInWorldSpace(t *testing.T) {
	e, parent, child, _ := movingParent(t)
	e.AddSystem(StageScripts, "far", func(c *FixedContext) {
		if c.Tick == 2 {
			tr := c.World.Transform(parent)
			tr.Pos[0] += 50 // SetTransform, not Teleport: beyond SnapDistance 10
			c.World.SetTransform(parent, tr)
		}
	})
	e.StepTick(0)
	e.StepTick(0)
	var rb RenderBuffer
	e.World.Interpolate(0.5, 1.0/60, DefaultInterpolationConfig(), &rb)
	if rb.Snaps != 3 {
		t.Errorf("%d snaps, want 3 (parent, child, grandchild)", rb.Snaps)
	}
	if k, _ := rb.Find(child); rb.Instances[k].Pos != (mgl32.Vec3{52, 1, 0}) {
		t.Errorf("child drawn at %v, want its current world position [52 1 0]", rb.Instances[k].Pos)
	}
}

// Transforms set between ticks (at set-up) are where the first tick starts
// from, once some entity has a parent: the world transforms drawn from and
// hashed are brought up to date first, roots and children alike.
func TestSetUpMovesBeforeTheFirstTick(t *testing.T) {
	e, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	w := e.World
	a := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	b := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	c := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), Interpolate)
	if err := w.SetParent(c, b, KeepLocal); err != nil {
		t.Fatal(err)
	}
	w.SetTransform(a, geom.NewTransform(mgl32.Vec3{5, 0, 0}))
	w.SetTransform(b, geom.NewTransform(mgl32.Vec3{0, 0, 5}))
	if !e.StepTick(time.Second / 60) {
		t.Fatal(e.Err())
	}
	var rb RenderBuffer
	w.Interpolate(0.5, testTickDT, DefaultInterpolationConfig(), &rb)
	for _, tc := range []struct {
		e    Entity
		want mgl32.Vec3
	}{{a, mgl32.Vec3{5, 0, 0}}, {b, mgl32.Vec3{0, 0, 5}}, {c, mgl32.Vec3{0, 1, 5}}} {
		k, ok := rb.Find(tc.e)
		if !ok {
			t.Fatalf("%v not drawn", tc.e)
		}
		if got := rb.Instances[k].Pos; got != tc.want {
			t.Errorf("%v drawn at %v half way through tick 1, want %v (it did not move during the tick)", tc.e, got, tc.want)
		}
	}
}
