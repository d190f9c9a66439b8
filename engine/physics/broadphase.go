package physics

import (
	"fmt"
	"math"
	"slices"
)

// The broad phase finds the pairs of bodies whose boxes overlap. It is a
// hashed uniform grid built anew on every call, so its result is a pure
// function of its input: nothing it keeps between calls changes what it
// returns, only how fast (its slices are reused).
//
// The grid's cell is the smallest power of two larger than every "small"
// box (small: at most about four times the median size; the rest are
// "large", see below). Each small box is filed once, in the cell of its
// minimum corner. Because a small box is narrower than a cell on every axis,
// a box that overlaps box i has its minimum corner in the cells from
// cell(i.min)-1 to cell(i.max) on each axis: at most 27 cells, usually 8 to
// 12. The cell size is a power of two, so a coordinate's cell is an exact
// product and the argument holds in floating point with no margin. Cells are
// hashed into a table twice the number of boxes, so worlds of any extent
// cost the same; entries remember their cell, so a hash collision costs a
// comparison, never a wrong pair.
//
// Large boxes (floors, walls, level geometry; also infinite or inverted
// boxes, a caller's bug) are kept in a list and tested against the grid over
// the cells they cover, or against every small box when that is cheaper.
// Boxes with a NaN overlap nothing (aabb.overlaps is false for them) and are
// left out.
//
// Inactive boxes (sleeping or static bodies) are only tested against active
// ones: only active boxes search the grid.

// pair is two bodies whose boxes overlap, a < b (indices into the boxes).
type pair struct{ a, b int32 }

// DefaultMaxPairs is the number of overlapping pairs the broad phase keeps
// unless told otherwise.
const DefaultMaxPairs = 1 << 20

const (
	// cellLimit bounds cell coordinates so that far-away boxes share the
	// outermost cells instead of overflowing int32.
	cellLimit = 1 << 30
	// minCellExp and maxCellExp bound the cell size to [2^-16, 2^16] m:
	// scaling by a power of two in that range is exact for every finite
	// float32 coordinate that matters, and a box wider than 2^16 m is large.
	minCellExp = -16
	maxCellExp = 16
	// smallFactorExp: a box is small when its size's binary exponent is at
	// most the median's plus this.
	smallFactorExp = 1
)

// Box classes.
const (
	classSmall uint8 = iota // in the grid
	classLarge              // in the large list
	classNone               // has a NaN: overlaps nothing
)

// gridEntry is a small box as filed in the grid.
type gridEntry struct {
	box        aabb
	cx, cy, cz int32 // its cell (of its minimum corner)
	i          int32 // index into the boxes
	active     bool
}

// broadphase finds the pairs of bodies whose boxes overlap, and answers
// queries (overlapping boxes, ray casts) about the boxes of its last build.
// Its zero value is ready to use.
type broadphase struct {
	// maxPairs is the most pairs pairs returns; 0 means DefaultMaxPairs.
	maxPairs int
	// dropped is how many overlapping pairs the last pairs call left out
	// because of maxPairs: 0 when the result is complete, otherwise at least
	// 1 and a lower bound (the search stops soon after the cap is reached,
	// so that 100,000 boxes in one spot cannot make it run for minutes).
	dropped int

	// The grid of the last build.
	n          int     // number of boxes
	class      []uint8 // per box
	large      []int32 // indices of large boxes, increasing
	largeBoxes []aabb  // their boxes
	activeList []int32 // indices of active small boxes, increasing
	inv        float32 // 1 / cell size (a power of two)
	mask       uint32  // table size - 1
	start      []int32 // per hash bucket: first entry; len = table size + 1
	ents       []gridEntry
	lo, hi     [3]int32 // the cells that hold entries (lo > hi: none)

	// Scratch.
	exps  [256]int32
	raw   []pair
	tmp   []pair
	count []int32
	near  []int32
	stamp []uint32
	mark  uint32
}

// classify fills bp.class and sets the grid's cell size (a power of two).
func (bp *broadphase) classify(boxes []aabb) {
	bp.exps = [256]int32{}
	bp.class = slices.Grow(bp.class[:0], len(boxes))[:len(boxes)]
	valid := 0
	for i := range boxes {
		b := &boxes[i]
		if !b.min.finite() || !b.max.finite() {
			if boxHasNaN(b) {
				bp.class[i] = classNone
			} else {
				bp.class[i] = classLarge
			}
			continue
		}
		e := boxSize(b)
		if !(b.min.x <= b.max.x && b.min.y <= b.max.y && b.min.z <= b.max.z) ||
			e == float32(math.Inf(1)) { // inverted, or wider than float32 holds
			bp.class[i] = classLarge
			continue
		}
		bp.class[i] = classSmall
		bp.exps[expOf(e)]++
		valid++
	}
	// The median size's exponent.
	med, seen := 0, int32(0)
	for k := range bp.exps {
		seen += bp.exps[k]
		if int(seen)*2 >= valid {
			med = k
			break
		}
	}
	limit := max(med+smallFactorExp, 127+minCellExp-1)
	// The cell: the smallest power of two above every small box.
	top := -1
	for i := range boxes {
		if bp.class[i] != classSmall {
			continue
		}
		k := expOf(boxSize(&boxes[i]))
		if k > limit || k >= 127+maxCellExp {
			bp.class[i] = classLarge
			continue
		}
		top = max(top, k)
	}
	// size < 2^(top-127+1) for every small box (its exponent is at most
	// top), so the cell 2^(top-126) is strictly larger.
	cellExp := min(max(top-126, minCellExp), maxCellExp)
	bp.inv = float32(math.Ldexp(1, -cellExp))
}

// boxSize is the largest side of b (negative for an inverted box).
func boxSize(b *aabb) float32 {
	return max(b.max.x-b.min.x, b.max.y-b.min.y, b.max.z-b.min.z)
}

// expOf is the biased binary exponent of a non-negative size (0 for zero and
// subnormal sizes).
func expOf(e float32) int { return int(math.Float32bits(e)>>23) & 0xff }

func boxHasNaN(b *aabb) bool {
	return b.min.x != b.min.x || b.min.y != b.min.y || b.min.z != b.min.z ||
		b.max.x != b.max.x || b.max.y != b.max.y || b.max.z != b.max.z
}

// cellCoord is the cell of coordinate x: floor(x/size), clamped to
// ±cellLimit. It is monotonic in x.
func (bp *broadphase) cellCoord(x float32) int32 {
	c := float32(x * bp.inv)
	if !(c > -cellLimit) { // also NaN, which callers keep out
		return -cellLimit
	}
	if c >= cellLimit {
		return cellLimit
	}
	return int32(math.Floor(float64(c)))
}

// bucket hashes a cell into the table.
func (bp *broadphase) bucket(x, y, z int32) uint32 {
	h := uint32(x)*73856093 ^ uint32(y)*19349663 ^ uint32(z)*83492791
	h ^= h >> 13
	return h & bp.mask
}

// build files the boxes into the grid. active may be nil (none active).
func (bp *broadphase) build(boxes []aabb, active []bool) {
	if active != nil && len(active) != len(boxes) {
		panic(fmt.Sprintf("physics: broad phase given %d boxes and %d active flags", len(boxes), len(active)))
	}
	bp.n = len(boxes)
	bp.classify(boxes)
	bp.large = bp.large[:0]
	bp.largeBoxes = bp.largeBoxes[:0]
	bp.activeList = bp.activeList[:0]
	small := 0
	for i, c := range bp.class {
		switch c {
		case classSmall:
			small++
			if active != nil && active[i] {
				bp.activeList = append(bp.activeList, int32(i))
			}
		case classLarge:
			bp.large = append(bp.large, int32(i))
			bp.largeBoxes = append(bp.largeBoxes, boxes[i])
		}
	}
	size := 64
	for size < 2*small {
		size *= 2
	}
	bp.mask = uint32(size - 1)
	bp.start = slices.Grow(bp.start[:0], size+1)[:size+1]
	clear(bp.start)
	bp.ents = slices.Grow(bp.ents[:0], small)[:small]
	bp.lo = [3]int32{cellLimit, cellLimit, cellLimit}
	bp.hi = [3]int32{-cellLimit, -cellLimit, -cellLimit}
	// Counting sort by bucket; within a bucket, by index.
	for i, c := range bp.class {
		if c != classSmall {
			continue
		}
		b := &boxes[i]
		x, y, z := bp.cellCoord(b.min.x), bp.cellCoord(b.min.y), bp.cellCoord(b.min.z)
		bp.lo = [3]int32{min(bp.lo[0], x), min(bp.lo[1], y), min(bp.lo[2], z)}
		bp.hi = [3]int32{max(bp.hi[0], x), max(bp.hi[1], y), max(bp.hi[2], z)}
		bp.start[bp.bucket(x, y, z)+1]++
	}
	for k := 1; k <= size; k++ {
		bp.start[k] += bp.start[k-1]
	}
	// Fill with start[k] as the cursor of bucket k, then shift back.
	for i, c := range bp.class {
		if c != classSmall {
			continue
		}
		b := &boxes[i]
		x, y, z := bp.cellCoord(b.min.x), bp.cellCoord(b.min.y), bp.cellCoord(b.min.z)
		k := bp.bucket(x, y, z)
		bp.ents[bp.start[k]] = gridEntry{box: *b, cx: x, cy: y, cz: z, i: int32(i), active: active != nil && active[i]}
		bp.start[k]++
	}
	copy(bp.start[1:], bp.start[:size])
	bp.start[0] = 0
}

// cellRange is the range of cells whose entries can overlap box b on each
// axis, clipped to the occupied cells; ok is false when it is empty.
func (bp *broadphase) cellRange(b *aabb) (lo, hi [3]int32, ok bool) {
	lo = [3]int32{bp.cellCoord(b.min.x), bp.cellCoord(b.min.y), bp.cellCoord(b.min.z)}
	hi = [3]int32{bp.cellCoord(b.max.x), bp.cellCoord(b.max.y), bp.cellCoord(b.max.z)}
	for k := range 3 {
		lo[k] = max(lo[k]-1, bp.lo[k])
		hi[k] = min(hi[k], bp.hi[k])
		if lo[k] > hi[k] {
			return lo, hi, false
		}
	}
	return lo, hi, true
}

// cellCount is the number of cells in a range (saturating at 2^62).
func cellCount(lo, hi [3]int32) int64 {
	n := int64(1)
	for k := range 3 {
		n *= int64(hi[k]) - int64(lo[k]) + 1
		if n > 1<<40 {
			return 1 << 62
		}
	}
	return n
}

// pairs appends to out[:0] every pair of boxes that overlap where at least
// one of the two is active (a moving body), sorted by (a, b), and returns
// it. At most bp.maxPairs pairs are returned: the first ones in (a, b)
// order; bp.dropped tells whether (and at least how many) were left out.
// Boxes with a NaN overlap nothing. active must be as long as boxes.
func (bp *broadphase) pairs(boxes []aabb, active []bool, out []pair) []pair {
	if len(active) != len(boxes) {
		panic(fmt.Sprintf("physics: broad phase given %d boxes and %d active flags", len(boxes), len(active)))
	}
	bp.build(boxes, active)
	bp.dropped = 0
	limit := bp.maxPairs
	if limit <= 0 {
		limit = DefaultMaxPairs
	}
	bp.raw = bp.raw[:0]
	if !bp.search(boxes, active, limit) {
		return bp.pairsInOrder(boxes, active, limit, out)
	}
	return bp.sortPairs(out)
}

// emit adds a pair to bp.raw unless it already holds limit pairs; it
// reports whether the pair fit.
func (bp *broadphase) emit(i, j int32, limit int) bool {
	if len(bp.raw) >= limit {
		return false
	}
	if j < i {
		i, j = j, i
	}
	bp.raw = append(bp.raw, pair{i, j})
	return true
}

// search puts every pair into bp.raw in no particular order; it returns
// false when there are more than limit.
func (bp *broadphase) search(boxes []aabb, active []bool, limit int) bool {
	// Small active boxes against the grid.
	for _, i := range bp.activeList {
		b := boxes[i]
		lo, hi, ok := bp.cellRange(&b)
		if !ok {
			continue
		}
		for z := lo[2]; z <= hi[2]; z++ {
			for y := lo[1]; y <= hi[1]; y++ {
				for x := lo[0]; x <= hi[0]; x++ {
					k := bp.bucket(x, y, z)
					for _, e := range bp.ents[bp.start[k]:bp.start[k+1]] {
						// An active neighbour with a lower index found
						// this pair already.
						if e.i == i || (e.active && e.i < i) || e.cx != x || e.cy != y || e.cz != z {
							continue
						}
						if b.overlaps(e.box) && !bp.emit(i, e.i, limit) {
							return false
						}
					}
				}
			}
		}
	}
	// Large boxes against large boxes: both orders are seen, so the pair
	// is taken from its lower index when that is active, else from the
	// higher.
	for _, i := range bp.large {
		for _, j := range bp.large {
			if j == i || !(active[i] && (j > i || !active[j])) {
				continue
			}
			if boxes[i].overlaps(boxes[j]) && !bp.emit(i, j, limit) {
				return false
			}
		}
	}
	// Large boxes against small ones, through the grid or, when the large
	// box covers more cells than there are candidates, against each.
	for _, i := range bp.large {
		b := boxes[i]
		cand := bp.ents
		if !active[i] {
			cand = nil // the active small boxes, below
		}
		lo, hi, ok := bp.cellRange(&b)
		if !ok {
			continue
		}
		n := len(bp.ents)
		if !active[i] {
			n = len(bp.activeList)
		}
		if cellCount(lo, hi) < int64(n) {
			for z := lo[2]; z <= hi[2]; z++ {
				for y := lo[1]; y <= hi[1]; y++ {
					for x := lo[0]; x <= hi[0]; x++ {
						k := bp.bucket(x, y, z)
						for _, e := range bp.ents[bp.start[k]:bp.start[k+1]] {
							if e.cx != x || e.cy != y || e.cz != z || !(e.active || active[i]) {
								continue
							}
							if b.overlaps(e.box) && !bp.emit(i, e.i, limit) {
								return false
							}
						}
					}
				}
			}
			continue
		}
		if cand != nil {
			for _, e := range cand {
				if b.overlaps(e.box) && !bp.emit(i, e.i, limit) {
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
	}
	return true
}

// sortPairs writes bp.raw into out sorted by (a, b): a stable counting sort
// by b, then one by a.
func (bp *broadphase) sortPairs(out []pair) []pair {
	m := len(bp.raw)
	out = slices.Grow(out[:0], m)[:m]
	bp.tmp = slices.Grow(bp.tmp[:0], m)[:m]
	bp.count = slices.Grow(bp.count[:0], bp.n+1)[:bp.n+1]
	clear(bp.count)
	for _, p := range bp.raw {
		bp.count[p.b+1]++
	}
	for k := 1; k <= bp.n; k++ {
		bp.count[k] += bp.count[k-1]
	}
	for _, p := range bp.raw {
		bp.tmp[bp.count[p.b]] = p
		bp.count[p.b]++
	}
	clear(bp.count)
	for _, p := range bp.tmp {
		bp.count[p.a+1]++
	}
	for k := 1; k <= bp.n; k++ {
		bp.count[k] += bp.count[k-1]
	}
	for _, p := range bp.tmp {
		out[bp.count[p.a]] = p
		bp.count[p.a]++
	}
	return out
}

// pairsInOrder is the path taken when there are more than limit pairs: it
// goes through the boxes in index order, keeps the first limit pairs in
// (a, b) order and stops within the box where the cap is reached, counting
// the rest of that box's pairs in bp.dropped. It is slower than search
// (every box searches, active or not) but bounded: its scratch is at most
// one index per box.
func (bp *broadphase) pairsInOrder(boxes []aabb, active []bool, limit int, out []pair) []pair {
	out = out[:0]
	for a := range boxes {
		bp.near = bp.neighbours(boxes, int32(a), bp.near[:0])
		slices.Sort(bp.near)
		for _, b := range bp.near {
			if b <= int32(a) || !(active[a] || active[b]) {
				continue
			}
			if len(out) >= limit {
				bp.dropped++
				continue
			}
			out = append(out, pair{int32(a), b})
		}
		if bp.dropped > 0 {
			break
		}
	}
	return out
}

// neighbours appends to out every box other than a that overlaps box a, in
// no particular order.
func (bp *broadphase) neighbours(boxes []aabb, a int32, out []int32) []int32 {
	if bp.class[a] == classNone {
		return out
	}
	out = bp.overlapsUnsorted(boxes[a], out)
	// Remove a itself.
	for k, j := range out {
		if j == a {
			out[k] = out[len(out)-1]
			out = out[:len(out)-1]
			break
		}
	}
	return out
}

// overlapping appends to out[:0] the indices of the boxes of the last build
// that overlap box, in increasing order, and returns it. A box with a NaN
// overlaps nothing.
func (bp *broadphase) overlapping(box aabb, out []int32) []int32 {
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
	if lo, hi, ok := bp.cellRange(&box); ok {
		if cellCount(lo, hi) < int64(len(bp.ents)) {
			for z := lo[2]; z <= hi[2]; z++ {
				for y := lo[1]; y <= hi[1]; y++ {
					for x := lo[0]; x <= hi[0]; x++ {
						k := bp.bucket(x, y, z)
						for _, e := range bp.ents[bp.start[k]:bp.start[k+1]] {
							if e.cx == x && e.cy == y && e.cz == z && box.overlaps(e.box) {
								out = append(out, e.i)
							}
						}
					}
				}
			}
		} else {
			for _, e := range bp.ents {
				if box.overlaps(e.box) {
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
	return out
}
