package physics

import (
	"fmt"
	"math"
	"slices"
)

// The broad phase finds the pairs of bodies whose boxes overlap. It is
// built anew on every call, so its result is a pure function of its input:
// nothing it keeps between calls changes what it returns, only how fast (its
// slices are reused, and last call's sorted order is where the next sort
// starts).
//
// It is a sweep and prune in rows: the two axes across the boxes' longest
// spread (the "row axes") are cut into square cells, a power of two larger
// than every "small" box (small: at most about four times the median size;
// the rest are "large", see below); each small box is filed once, in the row
// of its minimum corner, and the rows are sorted by the boxes' minimum on
// the third axis (the "sweep axis"), all with one sort (a radix sort, or an
// insertion sort from last call's order when bodies moved little). Because the
// boxes are narrower than a cell, a box that overlaps box i has its minimum
// corner in the rows from row(i.min)-1 to row(i.max) on each row axis, and
// its minimum on the sweep axis between i.min less the widest small box and
// i.max. When many boxes are active, each row is swept against itself and
// against the four neighbouring rows that follow it: both are sorted, so
// the window of each box in the other row is found by a pointer that only
// moves forward (and a box that does not reach into the neighbour's cell
// skips it). When few are, each active box binary-searches the rows around
// it. The cell size is a power of two, so a coordinate's cell is an exact
// product, and the lower end of a window is rounded down: the argument
// holds in floating point, at any coordinate. Only occupied rows are stored (a
// sorted list, searched), so worlds of any extent cost the same.
//
// Boxes far smaller than the median (by 16 times or more) would crowd a
// cell by the thousand: they go to a finer level, a broad phase of their
// own (which may have finer and coarser levels in turn). Each of them also
// searches the rows around it in every coarser level, at most four (it is
// smaller than their cells), and their large boxes.
//
// Boxes far larger than the median (four times and more) are "large". A
// few (floors, walls; also infinite or inverted boxes, a caller's bug, and
// boxes wider than 2^16 m) are kept in a list, swept against each other on
// the sweep axis, and tested against the small boxes in the rows they cover
// (or against the active ones, when that is cheaper). When there are more
// than coarseMin finite ones (level geometry), they go to a coarser level
// of their own instead, which every smaller box queries (it meets at most
// four of its rows); an inactive box only when the coarser level holds
// active boxes. Boxes with a NaN overlap nothing (aabb.overlaps is false
// for them) and are left out.
//
// Inactive boxes (sleeping or static bodies) are only tested against active
// ones: a pair of inactive boxes is never tested, and when few boxes are
// active only they search.

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
	// tinyFactorExp: a box is tiny, and goes to a finer level, when its
	// size's binary exponent is below the median's less this.
	tinyFactorExp = 4
	// coarseMin: when more large boxes than this are finite and narrower
	// than the largest cell, they go to a coarser level of their own
	// instead of the large list.
	coarseMin = 32
)

// Box classes.
const (
	classSmall  uint8 = iota // in the rows
	classLarge               // in the large list
	classNone                // has a NaN: overlaps nothing
	classTiny                // in the finer level below (bp.child)
	classCoarse              // in the coarser level above (bp.coarse)
	classOther               // not this level's: another level has it
)

// rowSpan is an occupied row: its cells on the two row axes and its
// entries, ents[s:e].
type rowSpan struct{ v, w, s, e int32 }

// sortItem is a small box being sorted into the rows: by w, then v, then
// key, then index.
type sortItem struct {
	key, v, w uint32 // order-preserving maps of the key and the row
	i         int32
}

// rowEntry is a small box as filed in its row.
type rowEntry struct {
	box    aabb
	key    float32 // box.min on the sweep axis
	rv, rw int32   // its row: the cells of box.min on the two row axes
	i      int32   // index into the boxes
	active bool
	// nextV and nextW tell whether box.max lies in the next cell on the
	// row axes (it cannot lie farther: the box is narrower than a cell).
	nextV, nextW bool
}

// broadphase finds the pairs of bodies whose boxes overlap, and answers
// queries (overlapping boxes) about the boxes of its last build.
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
	n           int         // number of boxes
	class       []uint8     // per box
	large       []int32     // indices of large boxes, increasing
	largeBoxes  []aabb      // their boxes
	largeOrder  []int32     // indices into large, by (min on the sweep axis, index)
	activeList  []int32     // indices of active small boxes, increasing
	activeCount int         // active boxes in this level, small and large
	tinyList    []int32     // indices of the boxes of the finer levels, increasing
	child       *broadphase // the finer level, for the tiny boxes (used when tinyList is not empty)
	coarseList  []int32     // indices of the boxes of the coarser levels, increasing
	coarse      *broadphase // the coarser level (used when coarseList is not empty)
	activeTotal int         // active boxes in this level and those it made
	su, sv, sw  int         // the sweep axis and the two row axes (0, 1, 2 for x, y, z)
	inv         float32     // 1 / cell size (a power of two)
	reach       float64     // the widest small box on the sweep axis, or more
	rows        []rowSpan   // the occupied rows, by (w, v)
	ents        []rowEntry  // the small boxes, row after row, each row by (key, index)
	entKeys     []float32   // ents[k].key, packed for the binary searches
	entFrom     []float64   // the lowest key that ents[k] may overlap (see span)
	lo, hi      [2]int32    // the rows that hold entries (lo > hi: none)
	bounds      aabb        // of the small boxes

	// The boxes and flags of the last pairs call when it left the build
	// out (none active), until a query builds them; nil otherwise.
	unbuilt       []aabb
	unbuiltActive []bool

	// Scratch.
	exps    [256]int32
	sizeExp []uint8 // per box: the binary exponent of its size
	rowOf   []int64 // per small box: its row, w<<32 | v (as uint32)
	keys    []sortItem
	keys2   []sortItem
	last    []int32 // the small boxes in last call's order: a head start for the sort, nothing more
	added   []bool
	raw     []pair
	tmp     []pair
	count   []int32
	near    []int32
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
// picks the sweep axis. A finer or coarser level classifies only the boxes
// the level that made it calls tiny or coarse (parent is that level's
// classes and want the class, parent is nil at the top).
func (bp *broadphase) classify(boxes []aabb, parent []uint8, want uint8) {
	bp.exps = [256]int32{}
	bp.class = slices.Grow(bp.class[:0], len(boxes))[:len(boxes)]
	bp.sizeExp = slices.Grow(bp.sizeExp[:0], len(boxes))[:len(boxes)]
	valid := 0
	for i := range boxes {
		b := &boxes[i]
		if parent != nil && parent[i] != want {
			bp.class[i] = classOther
			continue
		}
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
		k := expOf(e)
		bp.sizeExp[i] = uint8(k)
		bp.exps[k]++
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
	tiny := med - tinyFactorExp
	// The cell: the smallest power of two above every small box; the sweep
	// axis: the one along which the small boxes spread farthest; the reach
	// along it: the widest small box, measured in float64 and rounded up,
	// so that it is at least the exact width.
	top := -1
	lo := vec3{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1))}
	hi := lo.neg()
	var wide [3]float64
	coarse := 0
	for i := range boxes {
		if bp.class[i] != classSmall {
			continue
		}
		k := int(bp.sizeExp[i])
		if k >= 127+maxCellExp {
			bp.class[i] = classLarge
			continue
		}
		if k > limit {
			bp.class[i] = classCoarse
			coarse++
			continue
		}
		if k < tiny {
			bp.class[i] = classTiny
			continue
		}
		b := &boxes[i]
		top = max(top, k)
		lo, hi = lo.min(b.min), hi.max(b.min)
		wide = [3]float64{
			max(wide[0], float64(b.max.x)-float64(b.min.x)),
			max(wide[1], float64(b.max.y)-float64(b.min.y)),
			max(wide[2], float64(b.max.z)-float64(b.min.z)),
		}
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
	bp.reach = math.Nextafter(wide[bp.su], math.Inf(1))
	if coarse <= coarseMin {
		for i, c := range bp.class {
			if c == classCoarse {
				bp.class[i] = classLarge
			}
		}
	}
}

// boxSize is the largest side of b.
func boxSize(b *aabb) float32 {
	return max(b.max.x-b.min.x, b.max.y-b.min.y, b.max.z-b.min.z)
}

// expOf is the biased binary exponent of a non-negative size (0 for zero and
// subnormal sizes).
func expOf(e float32) int { return int(math.Float32bits(e)>>23) & 0xff }

// boxHasNaN reports whether any of b's coordinates is NaN.
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
	// floor(c): truncation, one less for a negative non-integer (exact:
	// |c| < 2^30, and every float32 that large is an integer).
	//detcheck:inrange c is within ±cellLimit, checked above
	i := int32(c)
	if float32(i) > c {
		i--
	}
	return i
}

// row is the row of point p.
func (bp *broadphase) row(p vec3) (v, w int32) {
	return bp.cellCoord(comp(p, bp.sv)), bp.cellCoord(comp(p, bp.sw))
}

// build files the boxes into the rows for pairs and for the queries
// (overlapping), which answer about the boxes of the last build:
// pairs calls it; call it directly to query boxes without looking for
// pairs. active may be nil (none active).
func (bp *broadphase) build(boxes []aabb, active []bool) {
	if active != nil && len(active) != len(boxes) {
		panic(fmt.Sprintf("physics: broad phase given %d boxes and %d active flags", len(boxes), len(active)))
	}
	bp.unbuilt, bp.unbuiltActive = nil, nil
	bp.buildLevel(boxes, active, nil, 0)
}

// buildLevel builds one level: the boxes parent calls tiny, or all of them
// at the top (parent nil); then the finer level below it, if it has tiny
// boxes.
func (bp *broadphase) buildLevel(boxes []aabb, active []bool, parent []uint8, want uint8) {
	bp.n = len(boxes)
	bp.classify(boxes, parent, want)
	bp.large = bp.large[:0]
	bp.largeBoxes = bp.largeBoxes[:0]
	bp.activeList = bp.activeList[:0]
	bp.tinyList = bp.tinyList[:0]
	bp.coarseList = bp.coarseList[:0]
	bp.activeCount = 0
	small := 0
	for i, c := range bp.class {
		switch c {
		case classSmall:
			small++
			if active != nil && active[i] {
				bp.activeList = append(bp.activeList, int32(i))
				bp.activeCount++
			}
		case classLarge:
			bp.large = append(bp.large, int32(i))
			bp.largeBoxes = append(bp.largeBoxes, boxes[i])
			if active != nil && active[i] {
				bp.activeCount++
			}
		case classTiny:
			bp.tinyList = append(bp.tinyList, int32(i))
		case classCoarse:
			bp.coarseList = append(bp.coarseList, int32(i))
		}
	}
	bp.largeOrder = bp.largeOrder[:0]
	for k := range bp.large {
		bp.largeOrder = append(bp.largeOrder, int32(k))
	}
	slices.SortFunc(bp.largeOrder, func(x, y int32) int {
		mx, my := comp(bp.largeBoxes[x].min, bp.su), comp(bp.largeBoxes[y].min, bp.su)
		switch {
		case mx < my:
			return -1
		case mx > my:
			return 1
		}
		return int(x - y)
	})
	bp.ents = slices.Grow(bp.ents[:0], small)[:small]
	bp.lo = [2]int32{cellLimit, cellLimit}
	bp.hi = [2]int32{-cellLimit, -cellLimit}
	bp.bounds = aabb{vec3{1, 1, 1}, vec3{-1, -1, -1}} // empty
	bp.rowOf = slices.Grow(bp.rowOf[:0], len(boxes))[:len(boxes)]
	first := true
	for i, c := range bp.class {
		if c != classSmall {
			continue
		}
		if first {
			bp.bounds, first = boxes[i], false
		}
		bp.bounds = bp.bounds.union(boxes[i])
		v, w := bp.row(boxes[i].min)
		bp.rowOf[i] = int64(w)<<32 | int64(uint32(v))
		bp.lo = [2]int32{min(bp.lo[0], v), min(bp.lo[1], w)}
		bp.hi = [2]int32{max(bp.hi[0], v), max(bp.hi[1], w)}
	}
	// Sort the small boxes by (w, v, key, index). Bodies move little from
	// one step to the next, so last call's order, fixed up by an insertion
	// sort, is usually the fastest way there; when it is far off, a radix
	// sort from scratch. The order is a total one, so both give the same.
	if !bp.sortFromLast(boxes) {
		bp.keys = bp.keys[:0]
		for i, c := range bp.class {
			if c == classSmall {
				bp.keys = append(bp.keys, bp.item(boxes, int32(i)))
			}
		}
		bp.sortKeys()
	}
	bp.last = bp.last[:0]
	for _, it := range bp.keys {
		bp.last = append(bp.last, it.i)
	}
	bp.entKeys = slices.Grow(bp.entKeys[:0], small)[:small]
	bp.entFrom = slices.Grow(bp.entFrom[:0], small)[:small]
	bp.rows = bp.rows[:0]
	for k, it := range bp.keys {
		b := &boxes[it.i]
		v, w := int32(it.v^1<<31), int32(it.w^1<<31)
		key := comp(b.min, bp.su)
		v1, w1 := bp.row(b.max)
		bp.ents[k] = rowEntry{box: *b, key: key, rv: v, rw: w, i: it.i, active: active != nil && active[it.i],
			nextV: v1 != v, nextW: w1 != w}
		bp.entKeys[k] = key
		bp.entFrom[k] = bp.from(key)
		if n := len(bp.rows); n == 0 || bp.rows[n-1].v != v || bp.rows[n-1].w != w {
			bp.rows = append(bp.rows, rowSpan{v, w, int32(k), int32(k)})
		}
		bp.rows[len(bp.rows)-1].e++
	}
	if len(bp.tinyList) > 0 {
		if bp.child == nil {
			bp.child = new(broadphase) // once: later builds reuse it
		}
		bp.child.buildLevel(boxes, active, bp.class, classTiny)
	}
	if len(bp.coarseList) > 0 {
		if bp.coarse == nil {
			bp.coarse = new(broadphase) // once: later builds reuse it
		}
		bp.coarse.buildLevel(boxes, active, bp.class, classCoarse)
	}
	bp.activeTotal = bp.activeCount
	if len(bp.tinyList) > 0 {
		bp.activeTotal += bp.child.activeTotal
	}
	if len(bp.coarseList) > 0 {
		bp.activeTotal += bp.coarse.activeTotal
	}
}

// item is box i as the sort sees it.
func (bp *broadphase) item(boxes []aabb, i int32) sortItem {
	r := bp.rowOf[i]
	v, w := int32(r), int32(r>>32)
	return sortItem{sortable(comp(boxes[i].min, bp.su)), uint32(v) ^ 1<<31, uint32(w) ^ 1<<31, i}
}

// less orders sort items by (w, v, key, index).
func (it *sortItem) less(o *sortItem) bool {
	switch {
	case it.w != o.w:
		return it.w < o.w
	case it.v != o.v:
		return it.v < o.v
	case it.key != o.key:
		return it.key < o.key
	}
	return it.i < o.i
}

// sortFromLast fills bp.keys with the small boxes in the order of the last
// call (then any new ones) and insertion-sorts them. It gives up, returning
// false, when that takes more than two moves a box on average.
func (bp *broadphase) sortFromLast(boxes []aabb) bool {
	if len(bp.last) == 0 {
		return false
	}
	bp.added = slices.Grow(bp.added[:0], len(boxes))[:len(boxes)]
	clear(bp.added)
	bp.keys = bp.keys[:0]
	for _, i := range bp.last {
		if int(i) < len(boxes) && bp.class[i] == classSmall && !bp.added[i] {
			bp.added[i] = true
			bp.keys = append(bp.keys, bp.item(boxes, i))
		}
	}
	for i, c := range bp.class {
		if c == classSmall && !bp.added[i] {
			bp.keys = append(bp.keys, bp.item(boxes, int32(i)))
		}
	}
	budget := 2 * len(bp.keys)
	a := bp.keys
	for k := 1; k < len(a); k++ {
		x := a[k]
		j := k
		for ; j > 0 && x.less(&a[j-1]); j-- {
			a[j] = a[j-1]
		}
		a[j] = x
		if budget -= k - j; budget < 0 {
			return false
		}
	}
	return true
}

// sortable maps a float32 (not NaN) to a uint32 in the same order.
func sortable(x float32) uint32 {
	b := math.Float32bits(x)
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// sortKeys sorts bp.keys by (w, v, key), keeping the order of equal ones
// (by index): a least significant digit radix sort, one byte a pass; a pass
// in which every item has the same byte is skipped.
func (bp *broadphase) sortKeys() {
	n := len(bp.keys)
	bp.keys2 = slices.Grow(bp.keys2[:0], n)[:n]
	src, dst := bp.keys, bp.keys2
	for pass := range 12 {
		field, shift := pass/4, uint(pass%4)*8
		var count [257]int32
		for k := range src {
			count[src[k].digit(field, shift)+1]++
		}
		if n == 0 || count[src[0].digit(field, shift)+1] == int32(n) {
			continue
		}
		for d := 1; d <= 256; d++ {
			count[d] += count[d-1]
		}
		for k := range src {
			d := src[k].digit(field, shift)
			dst[count[d]] = src[k]
			count[d]++
		}
		src, dst = dst, src
	}
	bp.keys, bp.keys2 = src, dst
}

// digit is one byte of field 0 (key), 1 (v) or 2 (w).
func (it *sortItem) digit(field int, shift uint) uint32 {
	switch field {
	case 0:
		return it.key >> shift & 0xff
	case 1:
		return it.v >> shift & 0xff
	}
	return it.w >> shift & 0xff
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

// firstRow returns the index of the first row at or after index r that
// comes at or after (v, w) in the rows' order (len(bp.rows) if none).
func (bp *broadphase) firstRow(v, w int32, r int) int {
	l, h := r, len(bp.rows)
	for l < h {
		m := int(uint(l+h) >> 1)
		if row := bp.rows[m]; row.w < w || (row.w == w && row.v < v) {
			l = m + 1
		} else {
			h = m
		}
	}
	return l
}

// nextRow returns the index of the first row at or after index r that lies
// in the range [lo, hi] (len(bp.rows) if none). It skips the rows outside
// by binary searches, so walking a range costs the rows in it plus a search
// for each w, never the range's area.
func (bp *broadphase) nextRow(r int, lo, hi [2]int32) int {
	for r < len(bp.rows) {
		row := bp.rows[r]
		switch {
		case row.w > hi[1]:
			return len(bp.rows)
		case row.w < lo[1] || row.v < lo[0]:
			r = bp.firstRow(lo[0], max(row.w, lo[1]), r+1)
		case row.v > hi[0]:
			r = bp.firstRow(lo[0], row.w+1, r+1)
		default:
			return r
		}
	}
	return r
}

// from is the lowest key an entry with the given key can overlap: the key
// less the reach, rounded down.
func (bp *broadphase) from(key float32) float64 {
	return nextDown(float64(key) - bp.reach)
}

// nextDown returns the float64 just below x (x itself for NaN and -Inf).
func nextDown(x float64) float64 {
	switch {
	case x > 0:
		return math.Float64frombits(math.Float64bits(x) - 1)
	case x < 0:
		return math.Float64frombits(math.Float64bits(x) + 1)
	case x == 0:
		return -math.SmallestNonzeroFloat64
	}
	return x
}

// span is the range of keys of the entries that may overlap box b on the
// sweep axis: [b.min - reach, b.max], the lower end rounded down.
func (bp *broadphase) span(b *aabb) (from float64, to float32) {
	return bp.from(comp(b.min, bp.su)), comp(b.max, bp.su)
}

// window returns the entries of row r whose key lies in [from, to].
func (bp *broadphase) window(r int, from float64, to float32) []rowEntry {
	l, h := bp.windowRange(r, from, to)
	return bp.ents[l:h]
}

// windowRange returns the entries of row r whose key lies in [from, to] as
// a range of indices into bp.ents.
func (bp *broadphase) windowRange(r int, from float64, to float32) (int, int) {
	s0, s1 := int(bp.rows[r].s), int(bp.rows[r].e)
	// First entry with key >= from.
	l, h := s0, s1
	for l < h {
		m := int(uint(l+h) >> 1)
		if float64(bp.entKeys[m]) < from {
			l = m + 1
		} else {
			h = m
		}
	}
	// First entry after it with key > to.
	e, h := l, s1
	for e < h {
		m := int(uint(e+h) >> 1)
		if bp.entKeys[m] <= to {
			e = m + 1
		} else {
			h = m
		}
	}
	return l, e
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
	bp.dropped = 0
	if !slices.Contains(active, true) {
		// Nothing moves (a world asleep): no pair, and the build waits
		// for a query, if one comes (the next build starts its sort from
		// an older order, which costs only time).
		bp.unbuilt, bp.unbuiltActive = boxes, active
		return out[:0]
	}
	bp.build(boxes, active)
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

// sortPairs writes bp.raw into out sorted by (a, b): a stable counting sort
// by b, then one by a (both counted in one pass).
func (bp *broadphase) sortPairs(out []pair) []pair {
	m, n := len(bp.raw), bp.n
	out = slices.Grow(out[:0], m)[:m]
	bp.tmp = slices.Grow(bp.tmp[:0], m)[:m]
	bp.count = slices.Grow(bp.count[:0], 2*n)[:2*n]
	clear(bp.count)
	byB, byA := bp.count[:n], bp.count[n:]
	for _, p := range bp.raw {
		byB[p.b]++
		byA[p.a]++
	}
	sumB, sumA := int32(0), int32(0)
	for k := range n {
		cb, ca := byB[k], byA[k]
		byB[k], byA[k] = sumB, sumA
		sumB += cb
		sumA += ca
	}
	tmp := bp.tmp
	for _, p := range bp.raw {
		tmp[byB[p.b]] = p
		byB[p.b]++
	}
	for _, p := range tmp {
		out[byA[p.a]] = p
		byA[p.a]++
	}
	return out
}

// pairsInOrder is the path taken when there are more than limit pairs: it
// goes through the boxes in index order, keeps the first limit pairs in
// (a, b) order and stops within the box where the cap is reached, counting
// the rest of that box's pairs in bp.dropped. Every box searches, active or
// not, but an inactive one only for active partners, in the rows or in the
// list of active boxes, whichever is shorter; so a box costs about its
// pairs or the number of active boxes, and the cap comes soon where pairs
// are dense. Its scratch is at most one index per box.
func (bp *broadphase) pairsInOrder(boxes []aabb, active []bool, limit int, out []pair) []pair {
	out = out[:0]
	for a := range boxes {
		if bp.class[a] == classNone {
			continue
		}
		if active[a] {
			bp.near = bp.overlapsUnsorted(boxes[a], bp.near[:0])
		} else {
			bp.near = bp.activeOverlaps(boxes, boxes[a], active, bp.near[:0])
		}
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
