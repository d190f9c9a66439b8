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
	b.eps = float64(size * 1e-5)
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
	for b.count < maxV {
		// The point farthest outside any face.
		bp, bd := -1, float64(0)
		for fi := range b.faces {
			f := &b.faces[fi]
			if !f.alive {
				continue
			}
			for _, p := range f.outside {
				if d := b.dist(f, p); d > bd || d == bd && p < bp {
					bp, bd = p, d
				}
			}
		}
		if bp < 0 {
			break
		}
		visible = visible[:0]
		for fi := range b.faces {
			if f := &b.faces[fi]; f.alive && b.dist(f, bp) > b.eps {
				visible = append(visible, fi)
			}
		}
		// The horizon: the visible faces' edges whose twin is on a face
		// that is not visible.
		horizon = horizon[:0]
		for _, fi := range visible {
			f := &b.faces[fi]
			for k := range 3 {
				u, v := f.v[k], f.v[(k+1)%3]
				shared := false
				for _, gi := range visible {
					g := &b.faces[gi]
					for j := range 3 {
						if g.v[j] == v && g.v[(j+1)%3] == u {
							shared = true
						}
					}
				}
				if !shared {
					horizon = append(horizon, edge{u, v})
				}
			}
		}
		orphans = orphans[:0]
		for _, fi := range visible {
			f := &b.faces[fi]
			f.alive = false
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

// assign puts each point of pts outside the faces from index first on
// on the face it is farthest above (the lowest index among equals), or
// drops it when it is above none.
func (b *hullBuilder) assign(pts []int, first int) {
	for _, p := range pts {
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
		if best >= 0 {
			b.faces[best].outside = append(b.faces[best].outside, p)
		}
	}
}
