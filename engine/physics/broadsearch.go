package physics

// The broad phase's search for the overlapping pairs, level by level and row by row.

// search puts every pair into bp.raw in no particular order; it returns
// false when there are more than limit.
func (bp *broadphase) search(boxes []aabb, active []bool, limit int) bool {
	if len(bp.activeList)*4 >= len(bp.ents) {
		if !bp.sweep(limit) {
			return false
		}
	} else if !bp.searchActive(boxes, limit) {
		return false
	}
	// Large boxes against each other: a sweep on the sweep axis (exact for
	// any boxes: a box after a in the order overlaps it on that axis iff
	// its minimum is at most a's maximum).
	for p, ka := range bp.largeOrder {
		a := &bp.largeBoxes[ka]
		ia, to := bp.large[ka], comp(a.max, bp.su)
		for _, kb := range bp.largeOrder[p+1:] {
			b := &bp.largeBoxes[kb]
			if comp(b.min, bp.su) > to {
				break
			}
			ib := bp.large[kb]
			if (active[ia] || active[ib]) && a.overlaps(*b) && !bp.emit(ia, ib, limit) {
				return false
			}
		}
	}
	// Large boxes against small ones: through the rows they cover, or
	// against each candidate (the active small boxes for an inactive large
	// box, all for an active one) when there are fewer of those than the
	// rows' walk would cost (a binary search or two for each w).
	for _, i := range bp.large {
		b := boxes[i]
		lo, hi, ok := bp.rowRange(&b)
		if !ok {
			continue
		}
		cands := len(bp.ents)
		if !active[i] {
			cands = len(bp.activeList)
		}
		if int64(cands) < 16*(int64(hi[1])-int64(lo[1])+1) {
			if active[i] {
				for k := range bp.ents {
					if e := &bp.ents[k]; b.overlaps(e.box) && !bp.emit(i, e.i, limit) {
						return false
					}
				}
				continue
			}
			for _, j := range bp.activeList {
				if b.overlaps(boxes[j]) && !bp.emit(i, j, limit) {
					return false
				}
			}
			continue
		}
		from, to := bp.span(&b)
		for r := bp.nextRow(0, lo, hi); r < len(bp.rows); r = bp.nextRow(r+1, lo, hi) {
			win := bp.window(r, from, to)
			for k := range win {
				e := &win[k]
				if (e.active || active[i]) && b.overlaps(e.box) && !bp.emit(i, e.i, limit) {
					return false
				}
			}
		}
	}
	if len(bp.tinyList) > 0 && !bp.searchFiner(boxes, active, limit) {
		return false
	}
	if len(bp.coarseList) > 0 && !bp.searchCoarse(boxes, active, limit) {
		return false
	}
	return true
}

// searchCoarse finds the pairs of the coarser levels: those among their own
// boxes (the coarse level's search, into bp.raw), and those between one of
// them and a box of this level or of a finer one, which the smaller box
// finds by querying the coarser levels (it is smaller than their cells, so
// it meets at most four of their rows). An inactive box queries only when
// the coarser levels hold active boxes.
func (bp *broadphase) searchCoarse(boxes []aabb, active []bool, limit int) bool {
	c := bp.coarse
	c.raw = c.raw[:0]
	ok := c.search(boxes, active, limit-len(bp.raw))
	for _, p := range c.raw {
		if !bp.emit(p.a, p.b, limit) {
			return false
		}
	}
	if !ok {
		return false
	}
	for i, cl := range bp.class {
		if cl != classSmall && cl != classTiny && cl != classLarge {
			continue
		}
		if !active[i] && c.activeTotal == 0 {
			continue
		}
		bp.near = c.overlapsUnsorted(boxes[i], bp.near[:0])
		for _, j := range bp.near {
			if (active[i] || active[j]) && !bp.emit(int32(i), j, limit) {
				return false
			}
		}
	}
	return true
}

// searchFiner finds the pairs of the finer levels: those among their own
// boxes (the child's search, into bp.raw), and those between a box of a
// finer level and one of this level, which the smaller box finds: it
// searches this level's rows around it (at most four, as it is smaller
// than a cell) and its large boxes. An inactive box searches only when this
// level has active boxes.
func (bp *broadphase) searchFiner(boxes []aabb, active []bool, limit int) bool {
	c := bp.child
	c.raw = c.raw[:0]
	ok := c.search(boxes, active, limit-len(bp.raw))
	for _, p := range c.raw {
		if !bp.emit(p.a, p.b, limit) {
			return false
		}
	}
	if !ok {
		return false
	}
	for _, i := range bp.tinyList {
		if !active[i] && bp.activeCount == 0 {
			continue
		}
		b := boxes[i]
		if lo, hi, ok := bp.rowRange(&b); ok {
			from, to := bp.span(&b)
			for r := bp.nextRow(0, lo, hi); r < len(bp.rows); r = bp.nextRow(r+1, lo, hi) {
				win := bp.window(r, from, to)
				for k := range win {
					e := &win[k]
					if (e.active || active[i]) && b.overlaps(e.box) && !bp.emit(i, e.i, limit) {
						return false
					}
				}
			}
		}
		for k, j := range bp.large {
			if (active[i] || active[j]) && b.overlaps(bp.largeBoxes[k]) && !bp.emit(i, j, limit) {
				return false
			}
		}
	}
	return true
}

// searchActive finds the pairs of small boxes when few are active: each
// active box searches the rows around it.
func (bp *broadphase) searchActive(boxes []aabb, limit int) bool {
	for _, i := range bp.activeList {
		b := boxes[i]
		lo, hi, ok := bp.rowRange(&b)
		if !ok {
			continue
		}
		from, to := bp.span(&b)
		for r := bp.nextRow(0, lo, hi); r < len(bp.rows); r = bp.nextRow(r+1, lo, hi) {
			win := bp.window(r, from, to)
			for k := range win {
				e := &win[k]
				// An active neighbour with a lower index finds the pair
				// itself.
				if e.i == i || (e.active && e.i < i) {
					continue
				}
				if b.overlaps(e.box) && !bp.emit(i, e.i, limit) {
					return false
				}
			}
		}
	}
	return true
}

// sweep finds the pairs of small boxes when many are active: each row is
// swept against itself and against the rows after it in the rows' order
// that are its neighbours, (v+1, w) and (v-1..v+1, w+1), so each pair of
// neighbouring rows is swept once. Both lists are sorted by key, so the
// sweep is a merge: no searches.
func (bp *broadphase) sweep(limit int) bool {
	q := 0 // the first row at or after (v-1, w+1)
	for r, row := range bp.rows {
		if !bp.sweepSelf(row, limit) {
			return false
		}
		if r+1 < len(bp.rows) {
			if next := bp.rows[r+1]; next.w == row.w && next.v == row.v+1 && !bp.sweepPair(row, next, limit) {
				return false
			}
		}
		for q < len(bp.rows) && (bp.rows[q].w <= row.w || (bp.rows[q].w == row.w+1 && bp.rows[q].v < row.v-1)) {
			q++
		}
		for k := q; k < len(bp.rows) && bp.rows[k].w == row.w+1 && bp.rows[k].v <= row.v+1; k++ {
			if !bp.sweepPair(row, bp.rows[k], limit) {
				return false
			}
		}
	}
	return true
}

// sweepSelf finds the pairs within a row: each entry against those after it
// whose key is within its extent.
func (bp *broadphase) sweepSelf(row rowSpan, limit int) bool {
	keys, ents := bp.entKeys[row.s:row.e], bp.ents[row.s:row.e]
	ents = ents[:len(keys)]
	for a := range ents {
		ea := &ents[a]
		to := comp(ea.box.max, bp.su)
		for b := a + 1; b < len(keys); b++ {
			if keys[b] > to {
				break
			}
			eb := &ents[b]
			if (ea.active || eb.active) && ea.box.overlaps(eb.box) && !bp.emit(ea.i, eb.i, limit) {
				return false
			}
		}
	}
	return true
}

// sweepPair finds the pairs between two different rows: each entry of ra
// against the entries of rb whose key lies in its span. rb is one of ra's
// forward neighbours, (v+1, w) or (v-1..v+1, w+1): an entry of ra that
// does not reach into rb's cell on an axis where rb is the next one cannot
// meet it, nor can an entry of rb at v-1 that does not reach ra's cell.
func (bp *broadphase) sweepPair(ra, rb rowSpan, limit int) bool {
	needV, needW, needBack := rb.v > ra.v, rb.w > ra.w, rb.v < ra.v
	aEnts, aFrom := bp.ents[ra.s:ra.e], bp.entFrom[ra.s:ra.e]
	aFrom = aFrom[:len(aEnts)]
	bKeys, bEnts := bp.entKeys[rb.s:rb.e], bp.ents[rb.s:rb.e]
	bEnts = bEnts[:len(bKeys)]
	lb := 0
	for a := range aEnts {
		ea := &aEnts[a]
		if (needV && !ea.nextV) || (needW && !ea.nextW) {
			continue
		}
		from, to := aFrom[a], comp(ea.box.max, bp.su)
		for lb < len(bKeys) && float64(bKeys[lb]) < from {
			lb++
		}
		for b := lb; b < len(bKeys); b++ {
			if bKeys[b] > to {
				break
			}
			eb := &bEnts[b]
			if (needBack && !eb.nextV) || !(ea.active || eb.active) {
				continue
			}
			if ea.box.overlaps(eb.box) && !bp.emit(ea.i, eb.i, limit) {
				return false
			}
		}
	}
	return true
}
