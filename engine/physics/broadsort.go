package physics

// The broad phase's sort of the small boxes into their rows.

import (
	"math"
	"slices"
)

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
