package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
)

// checkOrder fails t unless w's propagation order holds every entity with
// a parent once, after its parent, and at is its inverse.
func checkOrder(t testing.TB, w *World) {
	t.Helper()
	h := &w.hier
	if !h.on() {
		return
	}
	holes, seen := 0, 0
	for k, s := range h.order {
		if s < 0 {
			holes++
			continue
		}
		seen++
		if h.at[s] != uint32(k+1) {
			t.Fatalf("order[%d] = slot %d, whose at is %d", k, s, h.at[s])
		}
		p := h.parent[s]
		if p == 0 {
			t.Fatalf("order[%d] = slot %d, which has no parent", k, s)
		}
		if h.parent[p-1] != 0 && h.at[p-1] > uint32(k) {
			t.Fatalf("order[%d] = slot %d before its parent %d (at %d)", k, s, p-1, h.at[p-1])
		}
	}
	if h.ascending {
		last := int32(-1)
		for _, s := range h.order {
			if s < 0 {
				continue
			}
			if s <= last || h.parent[s]-1 > uint32(s) {
				t.Fatalf("the order is marked ascending, but slot %d follows %d, its parent in slot %d", s, last, h.parent[s]-1)
			}
			last = s
		}
	}
	if holes != h.holes {
		t.Fatalf("%d holes, counted %d", holes, h.holes)
	}
	if seen != h.linked {
		t.Fatalf("%d entries in the order, %d entities with a parent", seen, h.linked)
	}
	for i, k := range h.at {
		if k != 0 && (int(k) > len(h.order) || h.order[k-1] != int32(i)) {
			t.Fatalf("slot %d at %d, not there", i, k)
		}
	}
}

// checkPropagated fails t unless the world transforms w's last
// propagation computed are WorldTransform's, bit for bit.
func checkPropagated(t testing.TB, w *World, what string) {
	t.Helper()
	h := &w.hier
	if h.linked == 0 {
		return // drawn from the transforms themselves
	}
	for i := range w.Slots() {
		x, ok := w.EntityAt(i)
		if !ok {
			continue
		}
		if got, want := h.cur.at(i), w.WorldTransform(x); got != want {
			t.Fatalf("%s: slot %d propagated %+v, WorldTransform %+v", what, i, got, want)
		}
	}
}

// The shapes and slot layouts BenchmarkPropagateLayouts measures.
var (
	layoutShapes = []string{"flat", "chains=10", "chains=1000", "wide=1000", "trees=100/depth=10"}
	layoutSlots  = []string{"in-order", "reversed", "scrambled", "reused"}
)

// shapeParents returns the parent of each of n entities, in the order
// they are made (-1 for a root; a parent is made before its children):
// flat roots, chains of length entities, wide trees (a root and size-1
// children), or random trees of size entities up to depth levels.
func shapeParents(n int, shape string) []int {
	parent := make([]int, n)
	r := NewRNG(3)
	var size, depth int
	switch {
	case shape == "flat":
		for i := range parent {
			parent[i] = -1
		}
		return parent
	case scan(shape, "chains=%d", &size):
		for i := range parent {
			parent[i] = i - 1
			if i%size == 0 {
				parent[i] = -1
			}
		}
	case scan(shape, "wide=%d", &size):
		for i := range parent {
			parent[i] = i - i%size
			if i%size == 0 {
				parent[i] = -1
			}
		}
	case scan(shape, "trees=%d/depth=%d", &size, &depth):
		level := make([]int, n)
		for i := range parent {
			parent[i], level[i] = -1, 1
			if i%size == 0 {
				continue
			}
			for {
				k := i - i%size + r.Intn(i%size)
				if level[k] < depth {
					parent[i], level[i] = k, level[k]+1
					break
				}
			}
		}
	default:
		panic("unknown shape " + shape)
	}
	return parent
}

func scan(s, format string, v ...any) bool {
	k, err := fmt.Sscanf(s, format, v...)
	return err == nil && k == len(v)
}

// buildLayout returns a world of n entities of the shape in slots laid
// out as asked: in the order they are made (every parent in a lower
// slot), reversed (every parent in a higher one), scrambled (a random
// permutation), or reused: made in order, then a tenth of them despawned
// one by one, each slot reused at once by a new entity attached where a
// random other entity is (a parent then often in a higher slot). The
// world is propagated once.
func buildLayout(n int, shape, slots string) *World {
	w := NewWorld(1)
	r := NewRNG(11)
	parent := shapeParents(n, shape)
	ents := make([]Entity, n)
	for i := range n {
		q := mgl32.QuatRotate(r.Range(-1, 1), mgl32.Vec3{0, 0, 1})
		ents[i] = w.Spawn(geom.Transform{Pos: mgl32.Vec3{r.Range(-1, 1), 1, 0}, Rot: q, Scale: mgl32.Vec3{1, 1, 1}}, Interpolate)
	}
	slot := make([]int, n) // the slot of the entity made i-th
	for i := range slot {
		slot[i] = i
	}
	switch slots {
	case "reversed":
		slices.Reverse(slot)
	case "scrambled":
		for i := n - 1; i > 0; i-- {
			j := r.Intn(i + 1)
			slot[i], slot[j] = slot[j], slot[i]
		}
	}
	for i, p := range parent {
		if p >= 0 {
			if err := w.SetParent(ents[slot[i]], ents[slot[p]], KeepLocal); err != nil {
				panic(err)
			}
		}
	}
	if slots == "reused" && shape != "flat" {
		for range n / 10 {
			x := ents[r.Intn(n)]
			if !w.Alive(x) || len(slices.Collect(w.Children(x))) != 0 {
				continue // a leaf each time, so the world keeps its size
			}
			p, ok := w.Parent(ents[r.Intn(n)])
			w.Despawn(x)
			y := w.Spawn(geom.NewTransform(mgl32.Vec3{1, 0, 0}), Interpolate)
			ents[y.Index()] = y
			if ok && w.Alive(p) {
				if err := w.SetParent(y, p, KeepLocal); err != nil {
					panic(err)
				}
			}
		}
	}
	w.PropagateTransforms()
	return w
}

// Every layout propagates to WorldTransform's bits, with an order that
// holds every entity with a parent after its parent, tick after tick as
// everything moves.
func TestPropagateAnyLayout(t *testing.T) {
	for _, shape := range layoutShapes {
		for _, slots := range layoutSlots {
			name := shape + "/" + slots
			w := buildLayout(3000, shape, slots)
			r := NewRNG(2)
			for tick := range 3 {
				checkOrder(t, w)
				checkPropagated(t, w, fmt.Sprintf("%s tick %d", name, tick))
				for i := range w.cur.Pos {
					w.cur.Pos[i][0] += r.Range(-1, 1)
					w.cur.Rot[i] = w.cur.Rot[i].Mul(mgl32.QuatRotate(r.Range(-1, 1), mgl32.Vec3{0, 1, 0}))
				}
				w.PropagateTransforms()
			}
		}
	}
}

// The order stays valid through every kind of change (attach, reattach
// to a parent in a lower or higher slot, detach both ways, despawn of
// subtrees, slot reuse) and every propagation matches WorldTransform; it
// does not grow without bound with the changes.
func TestHierarchyOrderKeptAcrossChanges(t *testing.T) {
	w := NewWorld(1)
	r := NewRNG(4)
	for range 200 {
		w.Spawn(geom.NewTransform(mgl32.Vec3{r.Range(-5, 5), 0, 0}), Interpolate)
	}
	pick := func() (Entity, bool) { return w.EntityAt(r.Intn(w.Slots())) }
	for step := range 5000 {
		switch r.Intn(6) {
		case 0, 1, 2:
			a, ok1 := pick()
			b, ok2 := pick()
			if ok1 && ok2 {
				_ = w.SetParent(a, b, Keep(r.Intn(2))) // cycles refused
			}
		case 3:
			if a, ok := pick(); ok {
				w.Unparent(a, Keep(r.Intn(2)))
			}
		case 4:
			if a, ok := pick(); ok && r.Intn(4) == 0 {
				w.Despawn(a)
			}
		case 5:
			for w.Len() < 200 {
				w.Spawn(geom.NewTransform(mgl32.Vec3{0, r.Range(-5, 5), 0}), Interpolate)
			}
		}
		checkOrder(t, w)
		for range 3 { // something moves, so that a world transform left from before shows
			if a, ok := pick(); ok {
				w.SetTransform(a, geom.NewTransform(mgl32.Vec3{r.Range(-5, 5), r.Range(-5, 5), 0}))
			}
		}
		if step%7 == 0 {
			w.PropagateTransforms()
			checkOrder(t, w)
			checkPropagated(t, w, fmt.Sprintf("step %d", step))
			if len(w.hier.order) > 2*w.Slots() {
				t.Fatalf("step %d: the order has %d entries for %d slots", step, len(w.hier.order), w.Slots())
			}
		}
	}
}

// A snapshot restores the hierarchy with its order laid out from the
// parents alone, whatever order the saving world had reached: the order
// is derived from the saved state, and the hashes go on the same (the
// order changes no result; TestHierarchySnapshotAndState).
func TestHierarchyOrderFromSnapshot(t *testing.T) {
	e := hierScene(t)
	stepN(t, e, 100, nil)
	snap := e.Snapshot()
	e2 := hierScene(t)
	must(t, e2.Restore(snap))
	h := &e2.World.hier
	got := slices.Clone(h.order)
	h.layOut()
	if !slices.Equal(got, h.order) {
		t.Errorf("restored order %v, laid out from the parents %v", got, h.order)
	}
	checkOrder(t, e2.World)
	if e.World.Hash() != e2.World.Hash() {
		t.Error("the restored world hashes differently")
	}
}

// A child that moves to a parent in a higher slot while the order is
// ascending (children after their parents in slot order) follows its new
// parent: the order knows it is no longer in slot order.
func TestHierarchyReparentToHigherSlot(t *testing.T) {
	for _, keep := range []Keep{KeepLocal, KeepWorld} {
		w := NewWorld(1)
		a := w.Spawn(geom.NewTransform(mgl32.Vec3{1, 0, 0}), Interpolate)
		c := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), Interpolate)
		d := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 5}), Interpolate)
		must(t, w.SetParent(c, a, KeepLocal))
		w.PropagateTransforms()
		must(t, w.SetParent(c, d, keep))
		w.SetTransform(d, geom.NewTransform(mgl32.Vec3{0, 0, 7}))
		w.PropagateTransforms()
		checkOrder(t, w)
		checkPropagated(t, w, keep.String())
	}
}
