package debugdraw

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/physics"
)

// The segments each shape is drawn with, for the tests and the docs: a
// box's 12 edges; a sphere's three great circles; a capsule's two rings,
// four half circles over its ends and four lines along its sides; a
// cylinder's two rings and four lines; a hull's edges; three per triangle
// of a mesh or height field; a compound's parts as their shapes.
const (
	BoxSegments      = 12
	SphereSegments   = 3 * CircleSegments
	CapsuleSegments  = 2*CircleSegments + 4*(CircleSegments/2) + 4
	CylinderSegments = 2*CircleSegments + 4
)

// unit holds cos and sin of the angles k·2π/CircleSegments, k = 0 ...
// CircleSegments.
var unit = func() (u [CircleSegments + 1][2]float32) {
	for k := range u {
		a := 2 * math.Pi * float64(k) / CircleSegments
		u[k] = [2]float32{float32(math.Cos(a)), float32(math.Sin(a))}
	}
	return u
}()

// shape draws sh placed at pos, turned by rot, in colour c (when draw),
// and widens the bounding box being gathered (when d.boxActive).
func (d *Drawing) shape(s *physics.Space, sh physics.Shape, pos mgl32.Vec3, rot mgl32.Quat, c [4]uint8, draw bool) {
	at := func(v mgl32.Vec3) mgl32.Vec3 { return pos.Add(rot.Rotate(v)) }
	x, y, z := rot.Rotate(mgl32.Vec3{1, 0, 0}), rot.Rotate(mgl32.Vec3{0, 1, 0}), rot.Rotate(mgl32.Vec3{0, 0, 1})
	switch sh.Kind {
	case physics.Box:
		h := sh.HalfExtents
		corner := func(i int) mgl32.Vec3 {
			v := h
			for a := range 3 {
				if i&(1<<a) == 0 {
					v[a] = -v[a]
				}
			}
			return at(v)
		}
		for i := range 8 {
			d.grow(corner(i), 0)
			if !draw {
				continue
			}
			for a := range 3 {
				if j := i | 1<<a; j != i {
					d.seg(corner(i), corner(j), c)
				}
			}
		}
	case physics.Sphere:
		d.grow(pos, sh.Radius)
		if draw {
			d.arc(pos, x, y, sh.Radius, CircleSegments, c)
			d.arc(pos, y, z, sh.Radius, CircleSegments, c)
			d.arc(pos, z, x, sh.Radius, CircleSegments, c)
		}
	case physics.Capsule:
		r, hh := sh.Radius, sh.HalfHeight
		top, bot := pos.Add(y.Mul(hh)), pos.Sub(y.Mul(hh))
		d.grow(top, r)
		d.grow(bot, r)
		if draw {
			d.arc(top, x, z, r, CircleSegments, c)
			d.arc(bot, x, z, r, CircleSegments, c)
			d.arc(top, x, y, r, CircleSegments/2, c)
			d.arc(top, z, y, r, CircleSegments/2, c)
			d.arc(bot, x.Mul(-1), y.Mul(-1), r, CircleSegments/2, c)
			d.arc(bot, z.Mul(-1), y.Mul(-1), r, CircleSegments/2, c)
			d.sides(top, bot, x, z, r, c)
		}
	case physics.Cylinder:
		r, hh := sh.Radius, sh.HalfHeight
		top, bot := pos.Add(y.Mul(hh)), pos.Sub(y.Mul(hh))
		if d.boxActive {
			// The rings' extent along each world axis i: r·sqrt(1 − y_i²).
			var ext mgl32.Vec3
			for i := range 3 {
				ext[i] = r * float32(math.Sqrt(float64(max(0, 1-y[i]*y[i]))))
			}
			for _, p := range [2]mgl32.Vec3{top, bot} {
				d.growBox(p.Sub(ext), p.Add(ext))
			}
		}
		if draw {
			d.arc(top, x, z, r, CircleSegments, c)
			d.arc(bot, x, z, r, CircleSegments, c)
			d.sides(top, bot, x, z, r, c)
		}
	case physics.ConvexHull:
		h := s.ConvexHull(sh.Hull)
		if h == nil {
			return
		}
		d.edges = h.AppendEdges(d.edges[:0])
		for _, e := range d.edges {
			a, b := at(e[0]), at(e[1])
			d.grow(a, 0)
			d.grow(b, 0)
			if draw {
				d.seg(a, b, c)
			}
		}
	case physics.Mesh:
		d.mesh(s.TriangleMesh(sh.Mesh), at, c, draw)
	case physics.HeightField:
		if h := s.HeightGrid(sh.HeightField); h != nil {
			d.mesh(h.TriangleMesh(), at, c, draw)
		}
	case physics.Compound:
		// The parts are read into d.parts, which a part never reenters (a
		// part is a sphere, a capsule or a box).
		d.parts = s.AppendCompoundParts(sh.Compound, d.parts[:0])
		for i := range d.parts {
			p := d.parts[i]
			d.shape(s, p.Shape, at(p.Pos), rot.Mul(p.Rot), c, draw)
		}
	}
}

// mesh draws m's triangles' edges, placed by at, within the options'
// bound and up to their MaxTriangles.
func (d *Drawing) mesh(m *physics.TriangleMesh, at func(mgl32.Vec3) mgl32.Vec3, c [4]uint8, draw bool) {
	if m == nil {
		return
	}
	o := &d.opts
	for i := range m.Triangles() {
		a, b, cc := m.Triangle(i)
		a, b, cc = at(a), at(b), at(cc)
		d.grow(a, 0)
		d.grow(b, 0)
		d.grow(cc, 0)
		if !draw || o.MaxTriangles > 0 && d.tris >= o.MaxTriangles {
			continue
		}
		if o.MeshBound {
			lo := mgl32.Vec3{min(a[0], b[0], cc[0]), min(a[1], b[1], cc[1]), min(a[2], b[2], cc[2])}
			hi := mgl32.Vec3{max(a[0], b[0], cc[0]), max(a[1], b[1], cc[1]), max(a[2], b[2], cc[2])}
			if !overlaps(lo, hi, o.MeshBoundMin, o.MeshBoundMax) {
				continue
			}
		}
		d.tris++
		d.seg(a, b, c)
		d.seg(b, cc, c)
		d.seg(cc, a, c)
	}
}

// overlaps reports whether the boxes [alo, ahi] and [blo, bhi] overlap.
func overlaps(alo, ahi, blo, bhi mgl32.Vec3) bool {
	for i := range 3 {
		if ahi[i] < blo[i] || bhi[i] < alo[i] {
			return false
		}
	}
	return true
}

// arc adds n segments of the circle of radius r about centre in the plane
// of the unit vectors u and v, from u towards v: the full circle for n =
// CircleSegments, the half from u over v to −u for half of it.
func (d *Drawing) arc(centre, u, v mgl32.Vec3, r float32, n int, c [4]uint8) {
	prev := centre.Add(u.Mul(r))
	for k := 1; k <= n; k++ {
		p := centre.Add(u.Mul(r * unit[k][0])).Add(v.Mul(r * unit[k][1]))
		d.seg(prev, p, c)
		prev = p
	}
}

// sides adds the four lines from top to bot at ±r along x and z.
func (d *Drawing) sides(top, bot, x, z mgl32.Vec3, r float32, c [4]uint8) {
	for _, off := range [4]mgl32.Vec3{x.Mul(r), x.Mul(-r), z.Mul(r), z.Mul(-r)} {
		d.seg(top.Add(off), bot.Add(off), c)
	}
}

// grow widens the bounding box being gathered by the ball of radius r
// about p.
func (d *Drawing) grow(p mgl32.Vec3, r float32) {
	if d.boxActive {
		d.growBox(p.Sub(mgl32.Vec3{r, r, r}), p.Add(mgl32.Vec3{r, r, r}))
	}
}

// growBox widens the bounding box being gathered by the box [lo, hi].
func (d *Drawing) growBox(lo, hi mgl32.Vec3) {
	for i := range 3 {
		d.boxLo[i] = min(d.boxLo[i], lo[i])
		d.boxHi[i] = max(d.boxHi[i], hi[i])
	}
}
