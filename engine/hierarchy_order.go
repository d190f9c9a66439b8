package engine

// The propagation order: the slots that have a parent, each after its
// parent, kept as links change so that propagation never searches for it
// and runs one loop, without calls, whatever slots the entities are in.
//
// A link appends the child at the end (its parent, a root or already in
// the order, is before it); an entity that already had descendants in the
// order goes to the end with them, depth first. An unlink or a despawn
// leaves a hole. The order is laid out again, in one pass over the slots,
// when an eighth of it (and a 64th of the slots) was appended out of slot
// order since the last layout, and compacted when an eighth of it is
// holes: so it stays close to slot order (which reads and writes memory in
// sequence), at a cost per change that does not grow with the world.
//
// The layout is slot order, but that an entity whose ancestors are not
// laid out yet comes after them, the highest first: slot order itself when
// every parent is in a lower slot than its children. Each world
// transform depends only on its ancestors' transforms, so the order
// changes no result: a world restored from a snapshot, which is laid out
// afresh, propagates to the same bits as the world that saved it.

// onChain marks, in hierarchy.at, a slot that layOut is laying out.
const onChain = ^uint32(0)

// push appends slot c (which has a parent) to the order.
func (h *hierarchy) push(c uint32) {
	if len(h.order) == 0 {
		h.ascending = true
	} else if h.tail > int32(c) {
		h.moved++
		h.ascending = false
	}
	if h.parent[c] > c { // its parent, maybe a root, is in a higher slot
		h.ascending = false
	}
	h.tail = int32(c)
	h.order = append(h.order, int32(c))
	h.at[c] = uint32(len(h.order))
}

// drop takes slot c out of the order, leaving a hole, if it is in it.
func (h *hierarchy) drop(c uint32) {
	if k := h.at[c]; k != 0 {
		h.order[k-1] = -1
		h.at[c] = 0
		h.holes++
	}
}

// place puts slot c, which has just been given a parent, in the order
// after its parent, with its descendants after it.
func (h *hierarchy) place(c uint32) {
	p := h.parent[c] - 1
	if k := h.at[c]; k != 0 {
		if h.at[p] < k { // the new parent (0 for a root) is before c, and c before its descendants
			if p > c {
				h.ascending = false // a root in a higher slot, not copied before c
			}
			return
		}
	} else if h.first[c] == 0 {
		h.push(c)
		return
	}
	// c's descendants may be before c's new place: c and its
	// descendants go to the end, depth first.
	list := h.appendSubtree(append(h.list[:0], int32(c)), c)
	h.list = list
	for _, d := range list {
		h.drop(uint32(d))
	}
	for _, d := range list {
		h.push(uint32(d))
	}
}

// tidy lays the order out again, or compacts it, when it has drifted from
// slot order or has many holes, before a propagation.
func (h *hierarchy) tidy() {
	switch {
	case h.moved > max(len(h.order)/8, len(h.parent)/64):
		h.layOut()
	case h.holes > len(h.order)/8:
		k := 0
		for _, s := range h.order {
			if s >= 0 {
				h.order[k] = s
				h.at[s] = uint32(k + 1)
				k++
			}
		}
		h.order, h.holes = h.order[:k], 0
	}
}

// layOut lays the order out from the parents alone, in one pass over the
// slots: slot order, but that a slot whose ancestors with a parent are not
// laid out yet comes after them (see the top of this file). It also serves
// to check a decoded hierarchy: it returns the number of slots it laid
// out, which is less than linked when some are on a cycle or below one.
func (h *hierarchy) layOut() int {
	order, chain := h.order[:0], h.chain[:0]
	ascending := true // no slot pulled before a lower one
	clear(h.at)
	for i, p := range h.parent {
		if p == 0 || h.at[i] != 0 {
			continue
		}
		// i and its ancestors that have a parent and are not laid out
		// yet, from i up.
		chain = chain[:0]
		k := uint32(i)
		for h.parent[k] != 0 && h.at[k] == 0 {
			h.at[k] = onChain
			chain = append(chain, int32(k))
			k = h.parent[k] - 1
		}
		if h.parent[k] != 0 && h.at[k] == onChain {
			continue // a cycle (only in a decoded hierarchy, which is refused)
		}
		for j := len(chain) - 1; j >= 0; j-- {
			order = append(order, chain[j])
			h.at[chain[j]] = uint32(len(order))
		}
		ascending = ascending && len(chain) == 1 && h.parent[i] <= uint32(i)
	}
	h.order, h.chain = order, chain
	h.holes, h.moved, h.ascending = 0, 0, ascending
	if len(order) > 0 {
		h.tail = order[len(order)-1]
	}
	return len(order)
}
