package physics

// Queries of the broad phase's last build: the boxes that overlap a box.

import "slices"

// activeOverlaps appends to out the active boxes among boxes (those of the
// last build) that overlap box, in no
// particular order: from the rows box covers, or from the list of active
// boxes when that is shorter than the rows' windows.
func (bp *broadphase) activeOverlaps(boxes []aabb, box aabb, active []bool, out []int32) []int32 {
	out = bp.activeOverlapsLevel(boxes, box, active, out)
	if len(bp.tinyList) > 0 {
		out = bp.child.activeOverlaps(boxes, box, active, out)
	}
	if len(bp.coarseList) > 0 {
		out = bp.coarse.activeOverlaps(boxes, box, active, out)
	}
	return out
}

// activeOverlapsLevel is activeOverlaps in this level alone.
func (bp *broadphase) activeOverlapsLevel(boxes []aabb, box aabb, active []bool, out []int32) []int32 {
	for k, i := range bp.large {
		if active[i] && box.overlaps(bp.largeBoxes[k]) {
			out = append(out, i)
		}
	}
	lo, hi, ok := bp.rowRange(&box)
	if !ok {
		return out
	}
	from, to := bp.span(&box)
	window := 0
	for r := bp.nextRow(0, lo, hi); r < len(bp.rows) && window <= len(bp.activeList); r = bp.nextRow(r+1, lo, hi) {
		l, h := bp.windowRange(r, from, to)
		window += h - l
	}
	if window > len(bp.activeList) {
		for _, i := range bp.activeList {
			if box.overlaps(boxes[i]) {
				out = append(out, i)
			}
		}
		return out
	}
	for r := bp.nextRow(0, lo, hi); r < len(bp.rows); r = bp.nextRow(r+1, lo, hi) {
		win := bp.window(r, from, to)
		for k := range win {
			if e := &win[k]; e.active && box.overlaps(e.box) {
				out = append(out, e.i)
			}
		}
	}
	return out
}

// overlapping appends to out[:0] the indices of the boxes of the last build
// that overlap box, in increasing order, and returns it. A box with a NaN
// overlaps nothing. When the last pairs call left its build out (no box
// active), the first query builds it from the slices that call was given,
// as they are then.
func (bp *broadphase) overlapping(box aabb, out []int32) []int32 {
	if bp.unbuilt != nil {
		bp.build(bp.unbuilt, bp.unbuiltActive)
	}
	out = bp.overlapsUnsorted(box, out[:0])
	slices.Sort(out)
	return out
}

// overlapsUnsorted appends to out the indices of the boxes of the last build
// that overlap box, in no particular order.
func (bp *broadphase) overlapsUnsorted(box aabb, out []int32) []int32 {
	if boxHasNaN(&box) {
		return out
	}
	if lo, hi, ok := bp.rowRange(&box); ok {
		from, to := bp.span(&box)
		for r := bp.nextRow(0, lo, hi); r < len(bp.rows); r = bp.nextRow(r+1, lo, hi) {
			win := bp.window(r, from, to)
			for k := range win {
				if e := &win[k]; box.overlaps(e.box) {
					out = append(out, e.i)
				}
			}
		}
	}
	for k, i := range bp.large {
		if box.overlaps(bp.largeBoxes[k]) {
			out = append(out, i)
		}
	}
	if len(bp.tinyList) > 0 {
		out = bp.child.overlapsUnsorted(box, out)
	}
	if len(bp.coarseList) > 0 {
		out = bp.coarse.overlapsUnsorted(box, out)
	}
	return out
}
