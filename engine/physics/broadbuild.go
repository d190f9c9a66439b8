package physics

// The broad phase's build: classifying the boxes and filing them into rows.

import (
	"fmt"
	"math"
	"slices"
)

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
