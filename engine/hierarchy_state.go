package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/zeebo/xxh3"

	"github.com/nebulaengine/nebula/internal/binread"
)

// The hierarchy in the state hash, snapshots, SaveState and dumps. A
// world in which no entity has a parent has no hierarchy section in its
// hash (it hashes exactly as before hierarchies existed) and a zero count
// in its snapshot.

// hash writes the hierarchy's part of the state hash, when some entity
// has a parent: the number of such entities (uint64), every slot's parent
// (uint32, its slot plus one, 0 for none), and every slot's world
// position, rotation and scale as of the last propagation.
func (h *hierarchy) hash(x *xxh3.Hasher) {
	if h.linked == 0 {
		return
	}
	var head [8]byte
	binary.LittleEndian.PutUint64(head[:], uint64(h.linked))
	x.Write(head[:])
	x.Write(bytesOf(h.parent))
	x.Write(bytesOf(h.cur.Pos))
	x.Write(bytesOf(h.cur.Rot))
	x.Write(bytesOf(h.cur.Scale))
}

// appendState appends the hierarchy's part of a snapshot, when some
// entity has a parent (a version 6 or 8 snapshot; one of version 5 or 7 has none):
// the number of entities with a parent (uint32), every slot's parent (uint32, slot plus one, 0 for none), then the
// world positions, rotations and scales at the last propagation and at
// the start of the tick.
func (h *hierarchy) appendState(b []byte) []byte {
	if h.linked == 0 {
		return b
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(h.linked))
	b = appendColumn(b, h.parent)
	b = appendColumn(b, h.cur.Pos)
	b = appendColumn(b, h.cur.Rot)
	b = appendColumn(b, h.cur.Scale)
	b = appendColumn(b, h.prv.Pos)
	b = appendColumn(b, h.prv.Rot)
	return appendColumn(b, h.prv.Scale)
}

// readState decodes what appendState wrote into h (a zero hierarchy) for
// a world of the given slots, checking that every parent is a live slot of
// a live child and that there is no cycle, and lays out the child lists
// and the propagation order.
func (h *hierarchy) readState(r *binread.Reader, gen []uint32) {
	n := len(gen)
	at := r.Offset()
	linked := int(r.U32("hierarchy"))
	if r.Err() != nil {
		return
	}
	if linked == 0 || linked > n {
		r.FailAt(at, "hierarchy", fmt.Errorf("%d entities with a parent in a snapshot with a hierarchy, of %d slots (1 to %[2]d wanted)", linked, n))
		return
	}
	at = r.Offset()
	parent := readColumn[uint32](r, "parents", n)
	if r.Err() != nil {
		return
	}
	h.parent = make([]uint32, n)
	h.first = make([]uint32, n)
	h.last = make([]uint32, n)
	h.next = make([]uint32, n)
	h.prev = make([]uint32, n)
	h.at = make([]uint32, n)
	for i, p := range parent {
		if p == 0 {
			continue
		}
		if int(p) > n || int(p-1) == i || gen[i]&1 == 0 || gen[p-1]&1 == 0 {
			r.FailAt(at+4*i, "parents", fmt.Errorf("slot %d has parent %d (slot plus one): not a live slot other than itself, or slot %d is dead", i, p, i))
			return
		}
		h.link(uint32(i), p-1)
	}
	if h.linked != linked {
		r.FailAt(at, "parents", fmt.Errorf("%d entities have a parent, the count says %d", h.linked, linked))
		return
	}
	if laid := h.layOut(); laid != linked {
		r.FailAt(at, "parents", fmt.Errorf("%d of the %d entities with a parent are on a cycle", linked-laid, linked))
		return
	}
	h.cur.Pos = readColumn[mgl32.Vec3](r, "world positions", n)
	h.cur.Rot = readColumn[mgl32.Quat](r, "world rotations", n)
	h.cur.Scale = readColumn[mgl32.Vec3](r, "world scales", n)
	h.prv.Pos = readColumn[mgl32.Vec3](r, "previous world positions", n)
	h.prv.Rot = readColumn[mgl32.Quat](r, "previous world rotations", n)
	h.prv.Scale = readColumn[mgl32.Vec3](r, "previous world scales", n)
}

// copyHierarchy makes dst a copy of src, reusing dst's memory (SaveState,
// LoadState).
func copyHierarchy(dst, src *hierarchy) {
	copyInto(&dst.parent, src.parent)
	copyInto(&dst.first, src.first)
	copyInto(&dst.last, src.last)
	copyInto(&dst.next, src.next)
	copyInto(&dst.prev, src.prev)
	dst.linked = src.linked
	dst.cur.copyFrom(src.cur.Pos, src.cur.Rot, src.cur.Scale)
	dst.prv.copyFrom(src.prv.Pos, src.prv.Rot, src.prv.Scale)
	copyInto(&dst.order, src.order)
	copyInto(&dst.at, src.at)
	dst.holes, dst.moved, dst.ascending, dst.tail = src.holes, src.moved, src.ascending, src.tail
}
