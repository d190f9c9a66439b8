package physics

import (
	"errors"
	"math"
	"slices"
)

// The convex hull builder: an incremental hull (quickhull's order: the
// point farthest outside a face first) in float64, every product rounded
// on its own as in the rest of the package, so the same points give the
// same hull on every build. Coplanar triangles are then merged into
// polygon faces and the mass properties found by splitting the hull into
// tetrahedra (Blow and Binstock, "How to find the inertia tensor (or other
// mass properties) of a 3D solid body represented by a triangle mesh").

// hullTolerance is the least distance, m, a point must lie outside the
// hull to be taken (Jolt's default hull tolerance); on a large hull it is
// 1e-5 of its size.
const hullTolerance = 1e-3

// dvec is a float64 vector, for building hulls.
type dvec struct{ x, y, z float64 }

func (a dvec) add(b dvec) dvec { return dvec{a.x + b.x, a.y + b.y, a.z + b.z} }
func (a dvec) sub(b dvec) dvec { return dvec{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a dvec) scale(s float64) dvec {
	return dvec{float64(a.x * s), float64(a.y * s), float64(a.z * s)}
}
func (a dvec) dot(b dvec) float64 {
	return float64(a.x*b.x) + float64(a.y*b.y) + float64(a.z*b.z)
}
func (a dvec) cross(b dvec) dvec {
	return dvec{
		float64(a.y*b.z) - float64(a.z*b.y),
		float64(a.z*b.x) - float64(a.x*b.z),
		float64(a.x*b.y) - float64(a.y*b.x),
	}
}

// errHullDegenerate is returned when the points are so nearly flat or
// so badly spread that the builder cannot make a consistent hull of them.
var errHullDegenerate = errors.New("physics: NewConvexHull: the points are too nearly flat to build a consistent hull")

// bface is a triangle of the hull being built: corners a, b, c counter-
// clockwise from outside, its unit normal and offset, and the points
// outside it not yet on the hull.
type bface struct {
	v       [3]int
	n       dvec
	d       float64
	alive   bool
	seen    bool // visible from the point being added
	outside []int
}

type hullBuilder struct {
	pts   []dvec
	eps   float64
	faces []bface
	onHul []bool
	count int // vertices on the hull
}

// dist returns how far point p is above face f's plane.
func (b *hullBuilder) dist(f *bface, p int) float64 { return b.pts[p].dot(f.n) - f.d }

// addFace appends the face abc and reports whether it has an area.
func (b *hullBuilder) addFace(a, c1, c2 int) bool {
	pa := b.pts[a]
	n := b.pts[c1].sub(pa).cross(b.pts[c2].sub(pa))
	l := sqrt64(n.dot(n))
	if !(l > 0) {
		return false
	}
	n = n.scale(1 / l)
	b.faces = append(b.faces, bface{v: [3]int{a, c1, c2}, n: n, d: pa.dot(n), alive: true})
	return true
}

func sqrt64(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return math.Sqrt(x)
}

// build makes the hull's triangles, with at most maxV vertices.
func (b *hullBuilder) build(maxV int) error {
	pts := b.pts
	lo, hi := pts[0], pts[0]
	for _, p := range pts[1:] {
		lo = dvec{min(lo.x, p.x), min(lo.y, p.y), min(lo.z, p.z)}
		hi = dvec{max(hi.x, p.x), max(hi.y, p.y), max(hi.z, p.z)}
	}
	size := max(hi.x-lo.x, hi.y-lo.y, hi.z-lo.z)
	if !(size > 0) {
		return ErrFlatHull
	}
	b.eps = max(hullTolerance, float64(size*1e-5))
	// The first tetrahedron: the lowest x, the point farthest from it,
	// the one farthest from their line, the one farthest from their
	// plane (ties: the lowest index).
	i0 := 0
	for i, p := range pts {
		if p.x < pts[i0].x {
			i0 = i
		}
	}
	far := func(f func(p dvec) float64) (int, float64) {
		bi, bd := -1, float64(-1)
		for i, p := range pts {
			if d := f(p); d > bd {
				bi, bd = i, d
			}
		}
		return bi, bd
	}
	i1, d1 := far(func(p dvec) float64 { q := p.sub(pts[i0]); return q.dot(q) })
	if sqrt64(d1) <= b.eps {
		return ErrFlatHull
	}
	axis := pts[i1].sub(pts[i0])
	i2, d2 := far(func(p dvec) float64 { c := p.sub(pts[i0]).cross(axis); return c.dot(c) })
	if sqrt64(d2)/sqrt64(d1) <= b.eps {
		return ErrFlatHull
	}
	pn := pts[i1].sub(pts[i0]).cross(pts[i2].sub(pts[i0]))
	pn = pn.scale(1 / sqrt64(pn.dot(pn)))
	i3, d3 := far(func(p dvec) float64 { d := p.sub(pts[i0]).dot(pn); return max(d, -d) })
	if d3 <= b.eps {
		return ErrFlatHull
	}
	b.onHul = make([]bool, len(pts))
	for _, i := range [4]int{i0, i1, i2, i3} {
		b.onHul[i] = true
	}
	b.count = 4
	tet := [4]int{i0, i1, i2, i3}
	for _, f := range [4][4]int{{0, 1, 2, 3}, {0, 3, 1, 2}, {1, 3, 2, 0}, {2, 3, 0, 1}} {
		a, c1, c2, o := tet[f[0]], tet[f[1]], tet[f[2]], tet[f[3]]
		if pts[o].sub(pts[a]).dot(pts[c1].sub(pts[a]).cross(pts[c2].sub(pts[a]))) > 0 {
			c1, c2 = c2, c1
		}
		if !b.addFace(a, c1, c2) {
			return ErrFlatHull
		}
	}
	all := make([]int, 0, len(pts))
	for i := range pts {
		if !b.onHul[i] {
			all = append(all, i)
		}
	}
	b.assign(all, 0)
	var visible []int
	type edge struct{ u, v int }
	var horizon []edge
	var orphans []int
	for pass := 0; b.count < maxV; {
		// The point farthest outside any face.
		bp, bf, bd := -1, -1, float64(0)
		for fi := range b.faces {
			f := &b.faces[fi]
			if !f.alive {
				continue
			}
			for _, p := range f.outside {
				if d := b.dist(f, p); d > bd || d == bd && p < bp {
					bp, bf, bd = p, fi, d
				}
			}
		}
		if bp < 0 {
			// Every point is inside but those dropped on the way: a
			// face through a point near the line of a horizon edge
			// tilts in the rounding and may leave one of those outside.
			// Take them up again, a few times at most.
			if pass++; pass > 4 {
				break
			}
			all = all[:0]
			for i := range pts {
				if !b.onHul[i] {
					all = append(all, i)
				}
			}
			b.assign(all, 0)
			if b.pending() {
				continue
			}
			break
		}
		// The faces bp sees, grown from the one it is farthest above
		// through their neighbours (a face it sees that is not joined to
		// those would make a hole), and the horizon: their edges whose
		// neighbour it does not see. A neighbour it is above by any
		// amount is seen: one left in place with bp a hair above it
		// would fold the hull inwards at their edge, the more the nearer
		// bp is to that edge.
		visible = append(visible[:0], bf)
		b.faces[bf].seen = true
		horizon = horizon[:0]
		for i := 0; i < len(visible); i++ {
			f := &b.faces[visible[i]]
			for k := range 3 {
				u, v := f.v[k], f.v[(k+1)%3]
				g := b.neighbour(v, u)
				switch {
				case g < 0:
					return errHullDegenerate
				case b.faces[g].seen:
				case b.dist(&b.faces[g], bp) > 0:
					b.faces[g].seen = true
					visible = append(visible, g)
				default:
					horizon = append(horizon, edge{u, v})
				}
			}
		}
		// The horizon's order is the visit's: after a neighbour joined
		// the visible faces, an edge taken for the horizon before may be
		// inside; drop those.
		k := 0
		for _, e := range horizon {
			if g := b.neighbour(e.v, e.u); g >= 0 && !b.faces[g].seen {
				horizon[k] = e
				k++
			}
		}
		horizon = horizon[:k]
		orphans = orphans[:0]
		for _, fi := range visible {
			f := &b.faces[fi]
			f.alive, f.seen = false, false
			for _, p := range f.outside {
				if p != bp {
					orphans = append(orphans, p)
				}
			}
			f.outside = nil
		}
		first := len(b.faces)
		for _, e := range horizon {
			if !b.addFace(e.u, e.v, bp) {
				return errHullDegenerate
			}
		}
		b.recount()
		slices.Sort(orphans)
		b.assign(orphans, first)
	}
	// Every vertex must be inside every face: a hull that is not convex
	// came from points too flat for the arithmetic.
	for fi := range b.faces {
		f := &b.faces[fi]
		if !f.alive {
			continue
		}
		for i, on := range b.onHul {
			if on && b.dist(f, i) > float64(10*b.eps) {
				return errHullDegenerate
			}
		}
	}
	return nil
}

// pending reports whether a face alive has points outside it.
func (b *hullBuilder) pending() bool {
	for fi := range b.faces {
		if f := &b.faces[fi]; f.alive && len(f.outside) > 0 {
			return true
		}
	}
	return false
}

// neighbour returns the face alive with the directed edge u→v, or -1.
func (b *hullBuilder) neighbour(u, v int) int {
	for fi := range b.faces {
		f := &b.faces[fi]
		if !f.alive {
			continue
		}
		for k := range 3 {
			if f.v[k] == u && f.v[(k+1)%3] == v {
				return fi
			}
		}
	}
	return -1
}

// recount sets onHul and count from the faces alive: a vertex whose
// faces were all replaced is inside the hull now.
func (b *hullBuilder) recount() {
	clear(b.onHul)
	b.count = 0
	for fi := range b.faces {
		f := &b.faces[fi]
		if !f.alive {
			continue
		}
		for _, v := range f.v {
			if !b.onHul[v] {
				b.onHul[v] = true
				b.count++
			}
		}
	}
}

// assign puts each point of pts on the face alive it is farthest above
// (the lowest index among equals), from the faces from index first on
// when it is above one of them, or else from all (a point outside a
// face that was replaced may be outside an old one too), or drops it
// when it is above none.
func (b *hullBuilder) assign(pts []int, first int) {
	for _, p := range pts {
		best := b.farthestAbove(p, first)
		if best < 0 && first > 0 {
			best = b.farthestAbove(p, 0)
		}
		if best >= 0 {
			b.faces[best].outside = append(b.faces[best].outside, p)
		}
	}
}

// farthestAbove returns the face alive from index first on that point p
// is farthest above, by more than the tolerance, or -1.
func (b *hullBuilder) farthestAbove(p, first int) int {
	{
		best, bd := -1, b.eps
		for fi := first; fi < len(b.faces); fi++ {
			f := &b.faces[fi]
			if !f.alive {
				continue
			}
			if d := b.dist(f, p); d > bd {
				best, bd = fi, d
			}
		}
		return best
	}
}
