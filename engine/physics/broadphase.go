package physics

import (
	"fmt"
	"slices"
)

// The broad phase finds the pairs of bodies whose boxes overlap. Its result
// is a pure function of its input: nothing it keeps between calls changes
// what it returns, only how fast (its slices are reused, last call's sorted
// order is where the next sort starts, and when the boxes barely move, the
// pair cache of broadcache.go answers from the candidate pairs it keeps,
// checked against this call's boxes). Without the cache, the rows below are
// built anew on every call.
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

	// The pair cache (broadcache.go), made by the first pairs call.
	cache *pairCache
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
	limit := bp.maxPairs
	if limit <= 0 {
		limit = DefaultMaxPairs
	}
	if bp.cache == nil {
		bp.cache = new(pairCache) // once: later calls reuse it
	}
	out, ok := bp.cache.pairs(boxes, active, limit, out)
	if ok {
		// The rows wait for a query, as above.
		bp.unbuilt, bp.unbuiltActive = boxes, active
		return out
	}
	return bp.exactPairs(boxes, active, limit, out)
}

// exactPairs is pairs without the cache: it builds the rows and searches
// them.
func (bp *broadphase) exactPairs(boxes []aabb, active []bool, limit int, out []pair) []pair {
	bp.dropped = 0
	bp.build(boxes, active)
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
