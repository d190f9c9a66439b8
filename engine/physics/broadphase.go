package physics

import (
	"fmt"
	"math"
	"slices"
)

// The broad phase finds the pairs of bodies whose boxes overlap. It is
// built anew on every call, so its result is a pure function of its input:
// nothing it keeps between calls changes what it returns, only how fast (its
// slices are reused).
//
// It is a sweep and prune in rows: the two axes across the boxes' longest
// spread (the "row axes") are cut into square cells, a power of two larger
// than every "small" box (small: at most about four times the median size;
// the rest are "large", see below); each small box is filed once, in the row
// of its minimum corner, and each row is kept sorted by the boxes' minimum
// on the third axis (the "sweep axis"). A box that overlaps box i has its
// minimum corner in the rows from row(i.min)-1 to row(i.max) on each row
// axis (the boxes are narrower than a cell), at most 9 rows, usually 4 to 6;
// in each, a binary search finds the boxes whose minimum on the sweep axis
// lies between i.min less the widest small box and i.max. The cell size is a power of
// two, so a coordinate's cell is an exact product and the argument holds in
// floating point with no margin. Rows are hashed into a table twice the
// number of boxes, so worlds of any extent cost the same; entries remember
// their row, so a hash collision costs a comparison, never a wrong pair.
//
// Large boxes (floors, walls, level geometry; also infinite or inverted
// boxes, a caller's bug) are kept in a list and tested against the rows
// they cover, or against every small box when that is cheaper, and against
// each other. Boxes with a NaN overlap nothing (aabb.overlaps is false for
// them) and are left out.
//
// Inactive boxes (sleeping or static bodies) are only tested against active
// ones: only active boxes search the rows.

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
	classSmall uint8 = iota // in the rows
	classLarge              // in the large list
	classNone               // has a NaN: overlaps nothing
)

// rowEntry is a small box as filed in its row.
type rowEntry struct {
	box    aabb
	key    float32 // box.min on the sweep axis
	rv, rw int32   // its row: the cells of box.min on the two row axes
	i      int32   // index into the boxes
	active bool
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

	// The rows of the last build.
	n          int     // number of boxes
	class      []uint8 // per box
	large      []int32 // indices of large boxes, increasing
	largeBoxes []aabb  // their boxes
	activeList []int32 // indices of active small boxes, increasing
	su, sv, sw int     // the sweep axis and the two row axes (0, 1, 2 for x, y, z)
	inv        float32 // 1 / cell size (a power of two)
	reach      float64 // the widest small box on the sweep axis, or more
	mask       uint32  // table size - 1
	start      []int32 // per hash bucket: first entry; len = table size + 1
	ents       []rowEntry
	entKeys    []float32 // ents[k].key, packed for the binary searches
	lo, hi     [2]int32  // the rows that hold entries (lo > hi: none)

	// Scratch.
	exps  [256]int32
	keys  []uint64 // sortable key << 32 | index
	keys2 []uint64
	raw   []pair
	tmp   []pair
	count []int32
	near  []int32
	rays  []rayCandidate
}

// comp returns p's component on axis k (0, 1, 2 for x, y, z).
func comp(p vec3, k int) float32 {
	switch k {
	case 0:
		return p.x
	case 1:
		return p.y
	}
	return p.z
}

// classify fills bp.class, sets the grid's cell size (a power of two) and
// picks the sweep axis.
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
	// The cell: the smallest power of two above every small box; the sweep
	// axis: the one along which the small boxes spread farthest.
	top := -1
	lo := vec3{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1))}
	hi := lo.neg()
	for i := range boxes {
		if bp.class[i] != classSmall {
			continue
		}
		b := &boxes[i]
		k := expOf(boxSize(b))
		if k > limit || k >= 127+maxCellExp {
			bp.class[i] = classLarge
			continue
		}
		top = max(top, k)
		lo, hi = lo.min(b.min), hi.max(b.min)
	}
	// size < 2^(top-127+1) for every small box (its exponent is at most
	// top), so the cell 2^(top-126) is strictly larger.
	cellExp := min(max(top-126, minCellExp), maxCellExp)
	bp.inv = float32(math.Ldexp(1, -cellExp))
	d := hi.sub(lo)
	switch {
	case d.x >= d.y && d.x >= d.z:
		bp.su, bp.sv, bp.sw = 0, 1, 2
	case d.y >= d.z:
		bp.su, bp.sv, bp.sw = 1, 0, 2
	default:
		bp.su, bp.sv, bp.sw = 2, 0, 1
	}
	// The reach along the sweep axis: the widest small box, measured in
	// float64 and rounded up, so that it is at least the exact width.
	bp.reach = 0
	for i := range boxes {
		if bp.class[i] == classSmall {
			b := &boxes[i]
			bp.reach = max(bp.reach, float64(comp(b.max, bp.su))-float64(comp(b.min, bp.su)))
		}
	}
	bp.reach = math.Nextafter(bp.reach, math.Inf(1))
}

// boxSize is the largest side of b.
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

// bucket hashes a row into the table.
func (bp *broadphase) bucket(v, w int32) uint32 {
	h := uint64(uint32(v))*0x9e3779b97f4a7c15 ^ uint64(uint32(w))*0xc2b2ae3d27d4eb4f
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return uint32(h>>32) & bp.mask
}

// row is the row of point p.
func (bp *broadphase) row(p vec3) (v, w int32) {
	return bp.cellCoord(comp(p, bp.sv)), bp.cellCoord(comp(p, bp.sw))
}

// build files the boxes into the rows. active may be nil (none active).
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
	bp.lo = [2]int32{cellLimit, cellLimit}
	bp.hi = [2]int32{-cellLimit, -cellLimit}
	// The small boxes by (key, index), then a stable counting sort by
	// bucket: each bucket ends up sorted by (key, index).
	bp.keys = bp.keys[:0]
	for i, c := range bp.class {
		if c != classSmall {
			continue
		}
		v, w := bp.row(boxes[i].min)
		bp.lo = [2]int32{min(bp.lo[0], v), min(bp.lo[1], w)}
		bp.hi = [2]int32{max(bp.hi[0], v), max(bp.hi[1], w)}
		bp.start[bp.bucket(v, w)+1]++
		bp.keys = append(bp.keys, uint64(sortable(comp(boxes[i].min, bp.su)))<<32|uint64(i))
	}
	bp.sortKeys()
	for k := 1; k <= size; k++ {
		bp.start[k] += bp.start[k-1]
	}
	// Fill with start[k] as the cursor of bucket k, then shift back.
	for _, key := range bp.keys {
		i := int32(uint32(key))
		b := &boxes[i]
		v, w := bp.row(b.min)
		k := bp.bucket(v, w)
		bp.ents[bp.start[k]] = rowEntry{box: *b, key: comp(b.min, bp.su), rv: v, rw: w, i: i,
			active: active != nil && active[i]}
		bp.start[k]++
	}
	copy(bp.start[1:], bp.start[:size])
	bp.start[0] = 0
	bp.entKeys = slices.Grow(bp.entKeys[:0], small)[:small]
	for k := range bp.ents {
		bp.entKeys[k] = bp.ents[k].key
	}
}

// sortable maps a float32 (not NaN) to a uint32 in the same order.
func sortable(x float32) uint32 {
	b := math.Float32bits(x)
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// sortKeys sorts bp.keys by their upper 32 bits, keeping the order of equal
// ones (a least significant digit radix sort, one byte a pass; a pass in
// which every key has the same byte is skipped).
func (bp *broadphase) sortKeys() {
	n := len(bp.keys)
	bp.keys2 = slices.Grow(bp.keys2[:0], n)[:n]
	src, dst := bp.keys, bp.keys2
	for shift := 32; shift < 64; shift += 8 {
		var count [257]int32
		for _, k := range src {
			count[(k>>shift)&0xff+1]++
		}
		if n == 0 || count[(src[0]>>shift)&0xff+1] == int32(n) {
			continue
		}
		for d := 1; d <= 256; d++ {
			count[d] += count[d-1]
		}
		for _, k := range src {
			d := (k >> shift) & 0xff
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	bp.keys, bp.keys2 = src, dst
}

// rowRange is the range of rows whose entries can overlap box b, clipped to
// the occupied rows; ok is false when it is empty.
func (bp *broadphase) rowRange(b *aabb) (lo, hi [2]int32, ok bool) {
	v0, w0 := bp.row(b.min)
	v1, w1 := bp.row(b.max)
	lo = [2]int32{max(v0-1, bp.lo[0]), max(w0-1, bp.lo[1])}
	hi = [2]int32{min(v1, bp.hi[0]), min(w1, bp.hi[1])}
	return lo, hi, lo[0] <= hi[0] && lo[1] <= hi[1]
}

// rowCount is the number of rows in a range (saturating).
func rowCount(lo, hi [2]int32) int64 {
	return (int64(hi[0]) - int64(lo[0]) + 1) * (int64(hi[1]) - int64(lo[1]) + 1)
}

// span is the range of keys of the entries that may overlap box b on the
// sweep axis: [b.min - reach, b.max], the lower end rounded down.
func (bp *broadphase) span(b *aabb) (from float64, to float32) {
	// The difference rounded, then one step down.
	return math.Nextafter(float64(comp(b.min, bp.su))-bp.reach, math.Inf(-1)), comp(b.max, bp.su)
}

// window returns the entries of bucket k whose key lies in [from, to]: those
// of the wanted row, and those of other rows that share the bucket.
func (bp *broadphase) window(k uint32, from float64, to float32) []rowEntry {
	s0, s1 := bp.start[k], bp.start[k+1]
	if s0 == s1 {
		return nil
	}
	keys := bp.entKeys[s0:s1]
	// First entry with key >= from.
	l, h := 0, len(keys)
	for l < h {
		m := int(uint(l+h) >> 1)
		if float64(keys[m]) < from {
			l = m + 1
		} else {
			h = m
		}
	}
	e := l
	for e < len(keys) && keys[e] <= to {
		e++
	}
	return bp.ents[int(s0)+l : int(s0)+e]
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
	// Small active boxes against the rows.
	for _, i := range bp.activeList {
		b := boxes[i]
		lo, hi, ok := bp.rowRange(&b)
		if !ok {
			continue
		}
		from, to := bp.span(&b)
		for w := lo[1]; w <= hi[1]; w++ {
			for v := lo[0]; v <= hi[0]; v++ {
				win := bp.window(bp.bucket(v, w), from, to)
				for k := range win {
					e := &win[k]
					// An active neighbour with a lower index finds the
					// pair itself.
					if e.i == i || (e.active && e.i < i) || e.rv != v || e.rw != w {
						continue
					}
					if b.overlaps(e.box) && !bp.emit(i, e.i, limit) {
						return false
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
	// Large boxes against small ones, through the rows or, when the large
	// box covers more rows than there are candidates, against each.
	for _, i := range bp.large {
		b := boxes[i]
		lo, hi, ok := bp.rowRange(&b)
		if !ok {
			continue
		}
		from, to := bp.span(&b)
		n := len(bp.ents)
		if !active[i] {
			n = len(bp.activeList)
		}
		if rowCount(lo, hi) < int64(n) {
			for w := lo[1]; w <= hi[1]; w++ {
				for v := lo[0]; v <= hi[0]; v++ {
					win := bp.window(bp.bucket(v, w), from, to)
					for k := range win {
						e := &win[k]
						if e.rv != v || e.rw != w || !(e.active || active[i]) {
							continue
						}
						if b.overlaps(e.box) && !bp.emit(i, e.i, limit) {
							return false
						}
					}
				}
			}
			continue
		}
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
	if lo, hi, ok := bp.rowRange(&box); ok {
		from, to := bp.span(&box)
		if rowCount(lo, hi) < int64(len(bp.ents)) {
			for w := lo[1]; w <= hi[1]; w++ {
				for v := lo[0]; v <= hi[0]; v++ {
					win := bp.window(bp.bucket(v, w), from, to)
					for k := range win {
						if e := &win[k]; e.rv == v && e.rw == w && box.overlaps(e.box) {
							out = append(out, e.i)
						}
					}
				}
			}
		} else {
			for k := range bp.ents {
				if e := &bp.ents[k]; box.overlaps(e.box) {
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
