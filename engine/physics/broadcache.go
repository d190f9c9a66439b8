package physics

// The broad phase's pair cache, for worlds that barely move (a settled
// pile: thousands of active bodies creeping by a millimetre a step).
//
// It keeps, between calls, a "fat" box around every box (the box grown by
// a margin, fatMarginDiv times smaller than its size) and the list of the
// pairs whose fat boxes overlap (the candidates), sorted by (a, b). While
// every box lies inside its fat box, two boxes that overlap have fat boxes
// that overlap (fat.min <= box.min <= other.max <= other fat.max, and the
// same the other way, on each axis), so the pairs are the candidates whose
// boxes overlap and one of which is active: one pass over the candidates,
// already in order. Each call checks every box against its fat box; the
// few that left theirs (or are new) get a new fat box, lose their old
// candidates and find their new ones: by a query of the rows of the fat
// boxes as they were at the last full build, which still hold for the
// boxes that have not left theirs since (the rest, "stale", are tested
// one by one).
//
// What the cache keeps decides only how fast a call is, never what it
// returns: the candidates are a superset of the overlapping pairs whatever
// happened before (the check against the fat boxes makes sure of it), and
// the result is the candidates filtered by the boxes and flags of this
// call. The pairs stay a pure function of the call's input, as rollback and
// replays need.
//
// It stands aside (the rows are searched from scratch, as without it) when
// more than a thirty-second of the boxes left their fat box (a landing
// pile: every box moves; it builds again after two calls in a row in which
// fewer did), when fewer than a quarter of the boxes are active
// (the search of the active boxes is cheaper then) and, for a while, when
// its candidates pass the cap on the pairs (boxes piled by the thousand in
// one spot: the rows' search stops at the cap, the candidates would not).

import (
	"math"
	"slices"
)

const (
	// fatMarginDiv: a box's fat box is the box grown by its size (its
	// longest side) over this on every side.
	fatMarginDiv = 32
	// cacheMovedDiv: the cache stands aside when more than the boxes over
	// this left their fat box in a call.
	cacheMovedDiv = 32
	// cacheStaleDiv: the cache builds its candidates from scratch when
	// more than the boxes over this are stale.
	cacheStaleDiv = 16
	// cacheQuietCalls is how many calls in a row must see few boxes
	// leave their fat box before the cache builds.
	cacheQuietCalls = 2
	// cacheCapWait is how many calls the cache stands aside after its
	// candidates passed the cap (boxes piled by the thousand in one spot).
	cacheCapWait = 64
)

// pairCache is the broad phase's pair cache (see above). Its zero value is
// ready to use.
type pairCache struct {
	fat  []aabb // per box: a box around it (a NaN box for a new one)
	cand []pair // the pairs whose fat boxes overlap, by (a, b), when ok
	ok   bool   // cand and rows hold
	n    int    // the number of boxes cand was made for
	// rows holds the fat boxes as they were when cand was last built from
	// scratch; a box whose fat box changed since is stale.
	rows    broadphase
	stale   []int32 // the stale boxes, in the order they became so
	isStale []bool  // per box
	wait    int     // calls left to stand aside after the cap
	quiet   int     // calls in a row with few boxes moved, while not ok

	// Scratch.
	moved   []int32 // the boxes that left their fat box in this call
	inMoved []bool  // per box
	fresh   []pair  // the moved boxes' candidates
	next    []pair  // the next cand
	all     []bool  // all true: every fat box is a candidate
	near    []int32
}

// fatBox is the fat box of b: b grown by its size over fatMarginDiv, or b
// itself when that is not a positive finite number.
func fatBox(b *aabb) aabb {
	m := float32(boxSize(b) * (1.0 / fatMarginDiv))
	if !(m > 0 && m < float32(math.Inf(1))) {
		return *b
	}
	return b.grow(m)
}

// inside reports whether b lies inside f (false when either has a NaN).
func inside(b, f *aabb) bool {
	return f.min.x <= b.min.x && f.min.y <= b.min.y && f.min.z <= b.min.z &&
		b.max.x <= f.max.x && b.max.y <= f.max.y && b.max.z <= f.max.z
}

// pairs appends to out[:0] the pairs that broadphase.pairs would return
// for boxes and active, and reports true; or it reports false, and the
// caller searches the rows. limit is the cap on the pairs.
func (c *pairCache) pairs(boxes []aabb, active []bool, limit int, out []pair) ([]pair, bool) {
	n := len(boxes)
	awake := 0
	for _, a := range active {
		if a {
			awake++
		}
	}
	if awake*4 < n {
		return out, false
	}
	if c.wait > 0 {
		c.wait--
		return out, false
	}
	c.resize(n)
	c.moved = c.moved[:0]
	for k := range boxes {
		if !inside(&boxes[k], &c.fat[k]) {
			c.moved = append(c.moved, int32(k))
			if len(c.moved) > n/cacheMovedDiv {
				break
			}
		}
	}
	if len(c.moved) > n/cacheMovedDiv {
		// Most boxes move: start over from here.
		for k := range boxes {
			c.fat[k] = fatBox(&boxes[k])
		}
		c.ok, c.quiet = false, 0
		return out, false
	}
	if !c.ok {
		// Boxes that fall slowly stay in their fat boxes for a call
		// but not two: wait for a second quiet call before building.
		if c.quiet++; c.quiet < cacheQuietCalls {
			for _, k := range c.moved {
				c.fat[k] = fatBox(&boxes[k])
			}
			return out, false
		}
	}
	if !c.ok || len(c.stale)+len(c.moved) > n/cacheStaleDiv {
		if !c.build(boxes, limit) {
			return out, false
		}
	} else if len(c.moved) > 0 || n < c.n {
		c.update(boxes)
	}
	if len(c.cand) > limit {
		// Boxes gather in one spot (or the cap came down): the cap
		// holds for the candidates too, and so for the pairs, which are
		// some of them.
		c.ok, c.wait = false, cacheCapWait
		return out, false
	}
	out = out[:0]
	for _, p := range c.cand {
		if (active[p.a] || active[p.b]) && boxes[p.a].overlaps(boxes[p.b]) {
			out = append(out, p)
		}
	}
	return out, true
}

// resize fits the per-box slices to n boxes: a box that is new gets a NaN
// fat box (so it counts as moved), one that is gone leaves the stale list
// and the candidates (at the next update, which drops pairs past n).
func (c *pairCache) resize(n int) {
	if old := len(c.fat); n > old {
		c.fat = slices.Grow(c.fat, n-old)[:n]
		nan := float32(math.NaN())
		for k := old; k < n; k++ {
			c.fat[k] = aabb{vec3{nan, nan, nan}, vec3{nan, nan, nan}}
		}
		c.isStale = slices.Grow(c.isStale, n-old)[:n]
		clear(c.isStale[old:])
		c.inMoved = slices.Grow(c.inMoved, n-old)[:n]
		clear(c.inMoved[old:])
		return
	}
	c.fat, c.isStale, c.inMoved = c.fat[:n], c.isStale[:n], c.inMoved[:n]
	kept := c.stale[:0]
	for _, k := range c.stale {
		if int(k) < n {
			kept = append(kept, k)
		}
	}
	c.stale = kept
}

// build gives the moved boxes their new fat boxes and builds the rows and
// the candidates from scratch; it reports false (and the cache stands aside
// for a while) when the candidates would pass limit.
func (c *pairCache) build(boxes []aabb, limit int) bool {
	for _, k := range c.moved {
		c.fat[k] = fatBox(&boxes[k])
	}
	n := len(boxes)
	c.all = slices.Grow(c.all[:0], n)[:n]
	for k := range c.all {
		c.all[k] = true
	}
	c.cand = c.rows.exactPairs(c.fat, c.all, limit, c.cand)
	c.n = n
	for _, k := range c.stale {
		c.isStale[k] = false
	}
	c.stale = c.stale[:0]
	c.ok = c.rows.dropped == 0
	if !c.ok {
		c.wait = cacheCapWait
	}
	return c.ok
}

// update gives the moved boxes their new fat boxes and replaces their
// candidates: the pairs of a moved box and a box that is not stale come
// from a query of the rows, those of two stale boxes from a test of each.
func (c *pairCache) update(boxes []aabb) {
	n := int32(len(boxes))
	for _, k := range c.moved {
		c.fat[k] = fatBox(&boxes[k])
		c.inMoved[k] = true
		if !c.isStale[k] {
			c.isStale[k] = true
			c.stale = append(c.stale, k)
		}
	}
	c.fresh = c.fresh[:0]
	for _, k := range c.moved {
		f := c.fat[k]
		c.near = c.rows.overlapsUnsorted(f, c.near[:0])
		for _, j := range c.near {
			if j < n && !c.isStale[j] {
				c.fresh = append(c.fresh, pair{min(j, k), max(j, k)})
			}
		}
		// Two moved boxes find each other: the lower one keeps the pair.
		for _, j := range c.stale {
			if j != k && (!c.inMoved[j] || k < j) && f.overlaps(c.fat[j]) {
				c.fresh = append(c.fresh, pair{min(j, k), max(j, k)})
			}
		}
	}
	slices.SortFunc(c.fresh, func(x, y pair) int {
		if x.a != y.a {
			return int(x.a - y.a)
		}
		return int(x.b - y.b)
	})
	// Merge the old candidates, less those of the moved boxes and of boxes
	// that are gone, with the new ones.
	c.next = c.next[:0]
	f := 0
	for _, p := range c.cand {
		if p.b >= n || c.inMoved[p.a] || c.inMoved[p.b] {
			continue
		}
		for f < len(c.fresh) && (c.fresh[f].a < p.a || c.fresh[f].a == p.a && c.fresh[f].b < p.b) {
			c.next = append(c.next, c.fresh[f])
			f++
		}
		c.next = append(c.next, p)
	}
	c.next = append(c.next, c.fresh[f:]...)
	c.cand, c.next = c.next, c.cand
	c.n = int(n)
	for _, k := range c.moved {
		c.inMoved[k] = false
	}
}
