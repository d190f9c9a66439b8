package engine

import (
	"fmt"
	"iter"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
)

// Keep says what SetParent and Unparent keep of an entity that changes
// parent: its place in the world, or its transform local to its parent.
// Its String is "keep world" or "keep local".
type Keep uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Keep -linecomment

const (
	// KeepWorld keeps the entity where it is in the world: its transform,
	// which is local to its parent, is recomputed for the new parent (up
	// to rounding), and it is drawn moving on from where it was.
	KeepWorld Keep = iota // keep world
	// KeepLocal keeps its transform as it is, now local to the new parent:
	// the entity jumps in the world, and is drawn at its new place at once,
	// as after a Teleport.
	KeepLocal // keep local
)

// hierarchy is the world's transform hierarchy. Its arrays are empty
// until the first SetParent of the world (or of the state it was loaded
// from), and then have one entry per slot; when no live entity has a
// parent (linked == 0) every parent and child link is zero and the world
// transforms are not kept.
type hierarchy struct {
	// parent holds each slot's parent's slot plus one, 0 for none. It is
	// simulated state: hashed, snapshotted, saved.
	parent []uint32
	// Each slot's children in slot order, as a doubly linked list: its
	// first and last child, and each child's next and previous sibling,
	// all slot plus one, 0 for none. Derived from parent.
	first, last, next, prev []uint32
	// linked counts the live entities that have a parent.
	linked int
	// cur and prv are the world transforms of every slot at the last
	// propagation and at the start of the tick (interpolation draws
	// between them), kept while linked > 0.
	cur, prv poses
	// order lists the slots that have a parent, each after its parent:
	// the propagation order (hierarchy_order.go), kept as links change,
	// with holes (-1) where an entity left it. at holds each slot's index
	// in order plus one, 0 for none.
	order []int32
	at    []uint32
	// holes counts order's holes; moved the entries appended since the
	// last layout in a lower slot than the entry before them. When either
	// passes an eighth of the order, propagation first compacts it or lays
	// it out again (tidy), so that it stays close to slot order, which
	// reads and writes memory in sequence.
	holes, moved int
	// ascending: the order's entries (holes aside) are in ascending slots
	// and every entry's parent is in a lower slot, so that propagation can
	// copy the roots as it goes; tail is the slot last appended (or laid
	// out last), which stays above every entry while it is.
	ascending bool
	tail      int32
	// stale: a transform or the hierarchy changed since the last
	// propagation: BeginTick, Interpolate, Hash and the tick's end
	// propagate first, so that what is drawn from and hashed is never an
	// old world transform.
	stale bool
	// taken: World.Bodies was called since the last propagation, so its
	// arrays may have been written. A tick that ends stale or taken
	// propagates again (World.endTick), so that a system that ran after
	// the propagation of StageTransforms is drawn and hashed in the tick
	// it moved things.
	taken bool
	// chain and list are scratch for WorldTransform and Despawn.
	chain []int32
	list  []int32
}

// poses are transforms of every slot, struct-of-arrays.
type poses struct {
	Pos   []mgl32.Vec3
	Rot   []mgl32.Quat
	Scale []mgl32.Vec3
}

func (p *poses) at(i int) geom.Transform {
	return geom.Transform{Pos: p.Pos[i], Rot: p.Rot[i], Scale: p.Scale[i]}
}

func (p *poses) set(i int, t geom.Transform) {
	p.Pos[i], p.Rot[i], p.Scale[i] = t.Pos, t.Rot, t.Scale
}

func (p *poses) copyFrom(pos []mgl32.Vec3, rot []mgl32.Quat, scale []mgl32.Vec3) {
	copyInto(&p.Pos, pos)
	copyInto(&p.Rot, rot)
	copyInto(&p.Scale, scale)
}

// on reports whether the hierarchy's arrays exist.
func (h *hierarchy) on() bool { return len(h.parent) != 0 }

// grow adds a slot (Spawn), when the arrays exist.
func (h *hierarchy) grow() {
	if !h.on() {
		return
	}
	h.parent = append(h.parent, 0)
	h.first = append(h.first, 0)
	h.last = append(h.last, 0)
	h.next = append(h.next, 0)
	h.prev = append(h.prev, 0)
	h.at = append(h.at, 0)
	h.cur.Pos = append(h.cur.Pos, mgl32.Vec3{})
	h.cur.Rot = append(h.cur.Rot, mgl32.Quat{})
	h.cur.Scale = append(h.cur.Scale, mgl32.Vec3{})
	h.prv.Pos = append(h.prv.Pos, mgl32.Vec3{})
	h.prv.Rot = append(h.prv.Rot, mgl32.Quat{})
	h.prv.Scale = append(h.prv.Scale, mgl32.Vec3{})
}

// spawned resets slot i for a new entity at t.
func (h *hierarchy) spawned(i int, t geom.Transform) {
	if !h.on() {
		return
	}
	h.parent[i], h.first[i], h.last[i], h.next[i], h.prev[i] = 0, 0, 0, 0, 0
	h.cur.set(i, t)
	h.prv.set(i, t)
}

// start makes the arrays exist and, as no entity has a parent yet, the
// world transforms the local ones: the first link of a hierarchy.
func (w *World) startHierarchy() {
	h := &w.hier
	n := len(w.gen)
	if !h.on() {
		h.parent = make([]uint32, n, cap(w.gen))
		h.first = make([]uint32, n, cap(w.gen))
		h.last = make([]uint32, n, cap(w.gen))
		h.next = make([]uint32, n, cap(w.gen))
		h.prev = make([]uint32, n, cap(w.gen))
		h.at = make([]uint32, n, cap(w.gen))
	}
	h.cur.copyFrom(w.cur.Pos, w.cur.Rot, w.cur.Scale)
	h.prv.copyFrom(w.prev.Pos, w.prev.Rot, w.prev.Scale)
}

// link makes slot p the parent of slot c (which has none), keeping p's
// children in slot order.
func (h *hierarchy) link(c, p uint32) {
	h.parent[c] = p + 1
	after := h.last[p] // the child c goes after: the last one below c
	for after != 0 && after-1 > c {
		after = h.prev[after-1]
	}
	if after == 0 {
		h.next[c] = h.first[p]
		h.first[p] = c + 1
	} else {
		h.next[c] = h.next[after-1]
		h.next[after-1] = c + 1
	}
	h.prev[c] = after
	if h.next[c] == 0 {
		h.last[p] = c + 1
	} else {
		h.prev[h.next[c]-1] = c + 1
	}
	h.linked++
	h.stale = true
}

// propagateIfStale brings the world transforms up to date when something
// changed since the last propagation (see hierarchy.stale).
func (w *World) propagateIfStale() {
	if w.hier.linked > 0 && w.hier.stale {
		w.PropagateTransforms()
	}
}

// endTick brings the world transforms up to date at the end of a tick's
// stages, when a system moved something after StageTransforms' own
// propagation (a stage placed after it, or a system added to it): what is
// drawn and hashed for a tick is the world as it stands at its end,
// whatever stage moved it. It propagates again only when a transform or
// the hierarchy changed through the World's methods (stale) or Bodies was
// taken (taken) since the last propagation; propagating again gives the
// same bits for what did not move, so it changes no hash but the moved
// entities'.
func (w *World) endTick() {
	if h := &w.hier; h.linked > 0 && (h.stale || h.taken) {
		w.PropagateTransforms()
	}
}

// unlink takes slot c (which has a parent) from its parent's children.
func (h *hierarchy) unlink(c uint32) {
	p := h.parent[c] - 1
	if h.prev[c] == 0 {
		h.first[p] = h.next[c]
	} else {
		h.next[h.prev[c]-1] = h.next[c]
	}
	if h.next[c] == 0 {
		h.last[p] = h.prev[c]
	} else {
		h.prev[h.next[c]-1] = h.prev[c]
	}
	h.parent[c], h.next[c], h.prev[c] = 0, 0, 0
	h.linked--
	h.stale = true
}

// local returns slot i's transform (local to its parent).
func (w *World) local(i int) geom.Transform {
	return geom.Transform{Pos: w.cur.Pos[i], Rot: w.cur.Rot[i], Scale: w.cur.Scale[i]}
}

// worldNow returns slot i's world transform from the current local
// transforms: its ancestors' composed from the root down, the same
// arithmetic as PropagateTransforms, so the same bits.
func (w *World) worldNow(i int) geom.Transform {
	h := &w.hier
	if !h.on() || h.parent[i] == 0 {
		return w.local(i)
	}
	chain := h.chain[:0]
	for k := uint32(i); ; k = h.parent[k] - 1 {
		chain = append(chain, int32(k))
		if h.parent[k] == 0 {
			break
		}
	}
	h.chain = chain
	t := w.local(int(chain[len(chain)-1]))
	for k := len(chain) - 2; k >= 0; k-- {
		t = t.Mul(w.local(int(chain[k])))
	}
	return t
}

// prevWorld returns slot i's world transform at the start of the tick
// (the hierarchy is on and linked).
func (w *World) prevWorld(i int) geom.Transform { return w.hier.prv.at(i) }

// SetParent makes parent the parent of child: from then on child's
// transform (Transform, SetTransform, Teleport) is local to parent, and
// child moves with it. keep says whether child keeps its place in the
// world (KeepWorld: its transform is recomputed, up to rounding) or its
// transform (KeepLocal: it jumps with the new parent, drawn there at
// once). Setting the parent child already has does nothing.
//
// It returns an error, and changes nothing, when child or parent is not
// alive, when they are the same entity, or when parent is child's
// descendant (the hierarchy would have a cycle).
//
// The world transforms of child's descendants follow at the next
// PropagateTransforms (the end of the tick); WorldTransform reads them at
// once. Like every change of the world, call SetParent in fixed code or at
// set-up.
func (w *World) SetParent(child, parent Entity, keep Keep) error {
	switch {
	case !w.Alive(child):
		return fmt.Errorf("engine: SetParent(%v, %v): the child %v is not alive", child, parent, child)
	case !w.Alive(parent):
		return fmt.Errorf("engine: SetParent(%v, %v): the parent %v is not alive", child, parent, parent)
	case child == parent:
		return fmt.Errorf("engine: SetParent(%v, %v): an entity cannot be its own parent", child, parent)
	case keep > KeepLocal:
		return fmt.Errorf("engine: SetParent(%v, %v): %v is not a Keep", child, parent, keep)
	}
	h := &w.hier
	if h.on() {
		for k := h.parent[parent.index]; k != 0; k = h.parent[k-1] {
			if k-1 == child.index {
				return fmt.Errorf("engine: SetParent(%v, %v): %v is a descendant of %v, so the hierarchy would have a cycle", child, parent, parent, child)
			}
		}
		if h.parent[child.index] == parent.index+1 {
			return nil
		}
	}
	if h.linked == 0 {
		w.startHierarchy()
	}
	c, p := child.index, parent.index
	world := w.worldNow(int(c))
	prevWorld := w.prevWorld(int(c))
	if h.parent[c] != 0 {
		h.unlink(c)
	}
	h.link(c, p)
	h.place(c)
	switch keep {
	case KeepWorld:
		l := w.worldNow(int(p)).Relative(world)
		w.cur.Pos[c], w.cur.Rot[c], w.cur.Scale[c] = l.Pos, l.Rot, l.Scale
		// The previous local transform in the new parent's space too, so
		// that the transform drawn in local terms (once no entity has a
		// parent) does not swoop.
		pl := w.prevWorld(int(p)).Relative(prevWorld)
		w.prev.Pos[c], w.prev.Rot[c], w.prev.Scale[c] = pl.Pos, pl.Rot, pl.Scale
		h.cur.set(int(c), world)
	case KeepLocal:
		h.cur.set(int(c), w.worldNow(int(c)))
		w.snap[c] = true
	}
	return nil
}

// Unparent takes child from its parent, making it a root whose
// transform is in world space, and reports whether it had a parent (a
// dead child has none). keep says whether it keeps its place in the world
// (KeepWorld: its transform becomes its world transform, up to rounding)
// or its transform (KeepLocal: it jumps, drawn at its new place at once).
// Its own children stay its children. A keep that is neither KeepWorld nor
// KeepLocal changes nothing and reports false.
func (w *World) Unparent(child Entity, keep Keep) bool {
	h := &w.hier
	if keep != KeepWorld && keep != KeepLocal || !w.Alive(child) || !h.on() || h.parent[child.index] == 0 {
		return false
	}
	c := child.index
	world, prevWorld := w.worldNow(int(c)), w.prevWorld(int(c))
	h.unlink(c)
	h.drop(c) // its descendants stay where they are, after it
	if keep == KeepLocal {
		w.snap[c] = true
		world = w.local(int(c))
	} else {
		w.cur.Pos[c], w.cur.Rot[c], w.cur.Scale[c] = world.Pos, world.Rot, world.Scale
		w.prev.Pos[c], w.prev.Rot[c], w.prev.Scale[c] = prevWorld.Pos, prevWorld.Rot, prevWorld.Scale
	}
	h.cur.set(int(c), world)
	return true
}

// Parent returns e's parent and true, or the zero Entity and false when e
// has none (or is not alive).
func (w *World) Parent(e Entity) (Entity, bool) {
	h := &w.hier
	if !w.Alive(e) || !h.on() || h.parent[e.index] == 0 {
		return Entity{}, false
	}
	p := h.parent[e.index] - 1
	return Entity{index: p, gen: w.gen[p]}, true
}

// Children iterates over e's children in slot order, without allocating
// (nothing when e is not alive). Do not change the hierarchy during the
// loop.
func (w *World) Children(e Entity) iter.Seq[Entity] {
	return func(yield func(Entity) bool) {
		h := &w.hier
		if !w.Alive(e) || !h.on() {
			return
		}
		for k := h.first[e.index]; k != 0; k = h.next[k-1] {
			if !yield(Entity{index: k - 1, gen: w.gen[k-1]}) {
				return
			}
		}
	}
}

// WorldTransform returns e's transform in world space now: its transform
// composed with its ancestors' (parent.Mul(child), from the root down),
// or its transform when it has no parent (the zero Transform when e is
// not alive). It is the same bits PropagateTransforms computes from the
// same transforms.
func (w *World) WorldTransform(e Entity) geom.Transform {
	if !w.Alive(e) {
		return geom.Transform{}
	}
	return w.worldNow(int(e.index))
}

// PropagateTransforms computes the world transform of every entity from
// the transforms, parents before children, into the transforms the
// renderer draws from, and marks an entity teleported when its parent was
// teleported during the tick (so a parent's teleport snaps its children).
// The engine runs it in every tick (StageTransforms), and again at the
// tick's end when a later system moved something; a World driven without
// an Engine calls it after its fixed systems. It does nothing when no
// entity has a parent, and does not allocate once warm.
//
// It takes the order kept as the hierarchy changes (see
// hierarchy_order.go), so its cost does not depend on which slots parents
// and children are in as much as on how far apart they lie in memory: on
// one core of a shared Xeon, 100,000 entities in trees, chains or wide
// trees take 8 ns per entity with every child in a higher slot than its
// parent, 1 to 1.4 times that reversed (every parent in a higher slot) or
// after slot reuse, and 3 to 4 times that in slots scrambled at random,
// where every entity's transform and its parent's are on cache lines of
// their own, too far apart for any order to read them in sequence
// (BenchmarkPropagateLayouts); 0.3 ns per root.
//
// The order is deterministic, and each world transform depends only on
// its ancestors' transforms, so the order changes no result (a restored
// snapshot, laid out afresh, propagates to the same bits).
func (w *World) PropagateTransforms() {
	h := &w.hier
	if h.linked == 0 {
		return
	}
	h.tidy()
	h.stale, h.taken = false, false
	n := len(w.gen)
	parent := h.parent[:n]
	snap := w.snap[:n]
	wp, wr, ws := h.cur.Pos[:n], h.cur.Rot[:n], h.cur.Scale[:n]
	lp, lr, ls := w.cur.Pos[:n], w.cur.Rot[:n], w.cur.Scale[:n]
	// A root's world transform is its transform. When the order is
	// ascending the roots are copied in the gaps between its entries, as
	// the loop goes (memory is read and written once, in sequence);
	// otherwise first, run by run of consecutive roots.
	ascending := h.ascending
	for j := 0; !ascending && j < n; {
		if parent[j] != 0 {
			j++
			continue
		}
		k := j + 1
		for k < n && parent[k] == 0 {
			k++
		}
		if k-j > 8 {
			copy(wp[j:k], lp[j:k])
			copy(wr[j:k], lr[j:k])
			copy(ws[j:k], ls[j:k])
		} else {
			for ; j < k; j++ {
				wp[j], wr[j], ws[j] = lp[j], lr[j], ls[j]
			}
		}
		j = k
	}
	next := 0 // ascending: the first slot not done yet
	for _, i := range h.order {
		if i < 0 {
			continue // a hole
		}
		if ascending {
			if gap := int(i) - next; gap > 8 {
				copy(wp[next:i], lp[next:i])
				copy(wr[next:i], lr[next:i])
				copy(ws[next:i], ls[next:i])
			} else if gap > 0 {
				for j := next; j < int(i); j++ {
					wp[j], wr[j], ws[j] = lp[j], lr[j], ls[j]
				}
			}
			next = int(i) + 1
		}
		// geom.Transform.Mul, the same arithmetic written out here: 10%
		// faster than the call (the bits are the same;
		// TestPropagateAnyLayout compares them with WorldTransform). The
		// scale, then the rotation, then the position: in this order the
		// compiler keeps every value in a register (25% faster than the
		// position first).
		p := parent[i] - 1
		ps, lsc := &ws[p], &ls[i]
		psx, psy, psz := ps[0], ps[1], ps[2]
		sc := &ws[i]
		sc[0], sc[1], sc[2] = float32(psx*lsc[0]), float32(psy*lsc[1]), float32(psz*lsc[2])
		pr, lq := &wr[p], &lr[i]
		aw, ax, ay, az := pr.W, pr.V[0], pr.V[1], pr.V[2]
		bw, bx, by, bz := lq.W, lq.V[0], lq.V[1], lq.V[2]
		q := &wr[i]
		q.W = float32(aw*bw) - float32(ax*bx) - float32(ay*by) - float32(az*bz)
		q.V[0] = float32(aw*bx) + float32(ax*bw) + float32(ay*bz) - float32(az*by)
		q.V[1] = float32(aw*by) - float32(ax*bz) + float32(ay*bw) + float32(az*bx)
		q.V[2] = float32(aw*bz) + float32(ax*by) - float32(ay*bx) + float32(az*bw)
		l := &lp[i]
		vx, vy, vz := float32(psx*l[0]), float32(psy*l[1]), float32(psz*l[2])
		tx := 2 * (float32(ay*vz) - float32(az*vy))
		ty := 2 * (float32(az*vx) - float32(ax*vz))
		tz := 2 * (float32(ax*vy) - float32(ay*vx))
		pp, o := &wp[p], &wp[i]
		o[0] = pp[0] + (vx + float32(aw*tx) + (float32(ay*tz) - float32(az*ty)))
		o[1] = pp[1] + (vy + float32(aw*ty) + (float32(az*tx) - float32(ax*tz)))
		o[2] = pp[2] + (vz + float32(aw*tz) + (float32(ax*ty) - float32(ay*tx)))
		if snap[p] {
			snap[i] = true
		}
	}
	if ascending {
		copy(wp[next:], lp[next:])
		copy(wr[next:], lr[next:])
		copy(ws[next:], ls[next:])
	}
}

// appendSubtree appends the descendants of slot r to list, depth first,
// children in slot order (r itself not included), walking the links
// without a stack.
func (h *hierarchy) appendSubtree(list []int32, r uint32) []int32 {
	k := h.first[r]
	for k != 0 {
		c := k - 1
		list = append(list, int32(c))
		if h.first[c] != 0 {
			k = h.first[c]
			continue
		}
		// Up to the nearest ancestor below r with a next sibling.
		for k = h.next[c]; k == 0 && h.parent[c]-1 != r; k = h.next[c] {
			c = h.parent[c] - 1
		}
	}
	return list
}

// despawnTree despawns slot i and its descendants: i first, then its
// descendants depth first, children in slot order.
func (w *World) despawnTree(i uint32) {
	h := &w.hier
	list := append(h.list[:0], int32(i))
	list = h.appendSubtree(list, i)
	h.list = list
	if h.parent[i] != 0 {
		h.unlink(i)
	}
	for _, d := range list[1:] {
		h.parent[d], h.next[d], h.prev[d] = 0, 0, 0
		h.linked--
	}
	for _, d := range list {
		h.drop(uint32(d))
		h.first[d], h.last[d] = 0, 0
		w.freeSlot(uint32(d))
	}
}

// hasLinks reports whether slot i has a parent or children.
func (h *hierarchy) hasLinks(i uint32) bool {
	return h.on() && (h.parent[i] != 0 || h.first[i] != 0)
}

// WorldPositions returns every slot's world position as the last
// PropagateTransforms computed it, what interpolation draws from (index i
// is slot i): Bodies().Pos itself when no entity has a parent. For code
// on the render side that works on drawn positions (a rollback's
// smoothing of corrections); fixed code reads WorldTransform. Do not
// change it; it is valid until the next Spawn or change of the hierarchy.
func (w *World) WorldPositions() []mgl32.Vec3 {
	if w.hier.linked == 0 {
		return w.cur.Pos
	}
	w.propagateIfStale()
	return w.hier.cur.Pos
}
