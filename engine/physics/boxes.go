package physics

// Contacts with boxes: the ids and helpers that capsule–box (capsulebox.go),
// box–box (boxbox.go) and the mesh pairs share.

// Contact ids of the box pairs (besides those in collide.go).
const (
	// idBoxEdge + 4·axis + sign bits: capsule–box, the axis against one
	// edge of the box (axis = the edge's direction; bit 0 and bit 1 are
	// set when the edge lies on the + side of the next and the one after).
	idBoxEdge = 128
	// Box–box face contact: ref<<9 | incident<<6 | in<<3 | out, where ref
	// is the reference face (0..5 on A, 6..11 on B; face 2k is +axis k,
	// 2k+1 is −axis k), incident the other box's face (0..5), and in, out
	// the two edges of the clipped polygon meeting at the point (0..3 the
	// incident face's edges, 4..7 the reference face's side planes).
	// Box–box edge contact: idEdgeEdge | edgeA<<4 | edgeB, an edge being
	// 4·axis + sign bits as for idBoxEdge.
	idEdgeEdge = 1 << 14
)

// Axis choice between near ties (Box2D's rule, as Bullet's and Jolt's box
// contacts also favour faces): a later axis (a face of B, then an edge
// pair) replaces the best so far only when its separation is larger by a
// clear amount, 2 % of the best one's magnitude plus 1 mm, so a box resting
// on a face keeps the same reference face, and the same ids, while it
// wobbles, and a box still apart from another (a speculative contact, a
// fast body's path) meets it face to face when a face axis separates as
// well as an edge axis does.
const (
	axisRelTol   = 0.98
	axisRelApart = 2 - axisRelTol // the same 2 % for a positive separation
	axisAbsTol   = 0.001          // m
)

// preferred reports whether separation s beats the best one so far under
// the tie rule: s > best + 2 %·|best| + 1 mm.
func preferred(s, best float32) bool {
	return s > axisBeat(best)
}

// axisBeat returns the least separation that beats best under the tie
// rule. An overlap (best <= 0) scales best by axisRelTol and a gap by
// axisRelApart, so the margin is 2 % of |best| either way (before, a gap
// was scaled by axisRelTol too, which let an edge axis as good as a face
// axis win by the 2 %: a speculative box contact got one point).
func axisBeat(best float32) float32 {
	if best > 0 {
		return float32(axisRelApart*best) + axisAbsTol
	}
	return float32(axisRelTol*best) + axisAbsTol
}

// lastRefB reports whether id is a box–box face contact's with B's face
// as the reference (faces 6..11).
func lastRefB(id uint32) bool {
	return id&idEdgeEdge == 0 && id>>9 >= 6
}

// edgeCode names the edge of a box along axis k whose other coordinates
// have the signs of dir's (non-negative counts as +): 4k + sign bits.
func edgeCode(k int, dir vec3) uint32 {
	code := uint32(4 * k)
	if dir.at((k+1)%3) >= 0 {
		code |= 1
	}
	if dir.at((k+2)%3) >= 0 {
		code |= 2
	}
	return code
}

// boxEdge returns the ends, in the box's frame, of the edge of the box
// with half extents h along axis k whose other coordinates have the signs
// of dir's.
func boxEdge(h vec3, k int, dir vec3) (e0, e1 vec3) {
	c := [3]float32{h.x, h.y, h.z}
	for j := range 3 {
		if j != k && dir.at(j) < 0 {
			c[j] = -c[j]
		}
	}
	c[k] = -h.at(k)
	e0 = vec3{c[0], c[1], c[2]}
	c[k] = h.at(k)
	return e0, vec3{c[0], c[1], c[2]}
}

// sgn returns 1 when pos, else −1.
func sgn(pos bool) float32 {
	if pos {
		return 1
	}
	return -1
}
