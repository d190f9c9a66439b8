package physics

// Finding the rows and the windows in them that a box can overlap.

import "math"

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
