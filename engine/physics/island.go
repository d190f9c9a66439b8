package physics

// islands is a union-find over the bodies of a step (indices into the
// step's body list): two dynamic bodies whose shapes touch are in one
// island. It is rebuilt every step from the contact cache, so it holds
// no state of its own between steps.
type islands struct {
	parent []int32
}

// reset makes n singleton islands.
func (u *islands) reset(n int) {
	u.parent = grow(u.parent, n)
	for i := range u.parent {
		u.parent[i] = int32(i)
	}
}

// find returns the root of i's island, halving the path on the way.
func (u *islands) find(i int32) int32 {
	p := u.parent
	for p[i] != i {
		p[i] = p[p[i]]
		i = p[i]
	}
	return i
}

// union joins the islands of a and b. The lower root becomes the root, so
// the result does not depend on the order of the unions' arguments.
func (u *islands) union(a, b int32) {
	ra, rb := u.find(a), u.find(b)
	switch {
	case ra < rb:
		u.parent[rb] = ra
	case rb < ra:
		u.parent[ra] = rb
	}
}

// grow returns s with length n, reusing its memory when it can. The
// values are left as they were (or zero when new).
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}
