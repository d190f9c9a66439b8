package physics

// Stand-in until the real broad phase lands: pairs tests every pair.
// Delete this file then.

// pair is two bodies whose boxes overlap, a < b (indices into the boxes).
type pair struct{ a, b int32 }

// broadphase finds the pairs of bodies whose boxes overlap.
type broadphase struct{}

// pairs appends to out[:0] every pair of boxes that overlap where at least
// one of the two is active (a moving body), sorted by (a, b), and returns
// it.
func (bp *broadphase) pairs(boxes []aabb, active []bool, out []pair) []pair {
	out = out[:0]
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			if (active[i] || active[j]) && boxes[i].overlaps(boxes[j]) {
				out = append(out, pair{int32(i), int32(j)})
			}
		}
	}
	return out
}
