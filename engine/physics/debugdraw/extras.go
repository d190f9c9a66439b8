package debugdraw

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/physics"
)

// The segments of the other things drawn, for the tests and the docs.
const (
	// ContactSegments: a contact point's cross (3) and its normal (1), for
	// every point of a touching pair.
	ContactSegments = 4
	// JointSegments: the line between the anchors and a cross at each;
	// a revolute or prismatic joint adds its axis (JointAxisSegments), a
	// revolute joint with limits the arc between them
	// (CircleSegments/2), a prismatic joint with limits a cross at each,
	// a spherical joint with a swing limit its cone (a circle and four
	// lines).
	JointSegments     = 1 + 2*3
	JointAxisSegments = 1
	// RaySegments: a ray's line; a hit adds a cross and its normal
	// (ContactSegments).
	RaySegments = 1
)

// contacts draws every point of the touching pairs: a cross, and the
// normal from A towards B.
func (d *Drawing) contacts(s *physics.Space) {
	p := &d.opts.Palette
	d.points = s.Contacts().Ptr().AppendPoints(d.points[:0])
	for i := range d.points {
		cp := &d.points[i]
		if !cp.Touching {
			continue
		}
		d.cross(cp.Point, d.opts.ContactSize, p.Contact)
		d.seg(cp.Point, cp.Point.Add(cp.Normal.Mul(d.opts.NormalLength)), p.Normal)
	}
}

// jointPose returns where the joint's body e is drawn: the world's frame
// for the zero Entity.
func (d *Drawing) jointPose(e engine.Entity) (mgl32.Vec3, mgl32.Quat, bool) {
	if e == (engine.Entity{}) {
		return mgl32.Vec3{}, mgl32.QuatIdent(), true
	}
	if !d.w.Alive(e) {
		return mgl32.Vec3{}, mgl32.QuatIdent(), false
	}
	pos, rot := d.pose(e)
	return pos, rot, true
}

// joints draws every joint that holds (not broken): its anchors, the line
// between them, and its axis and limits.
func (d *Drawing) joints(s *physics.Space) {
	p := &d.opts.Palette
	vals, _ := s.Joints().Slices()
	for _, i := range s.Joints().Indices() {
		j := &vals[i]
		if j.Broken || !s.Bodies().Has(j.B) || j.A != (engine.Entity{}) && !s.Bodies().Has(j.A) {
			continue // it holds nothing
		}
		pa, ra, okA := d.jointPose(j.A)
		pb, rb, okB := d.jointPose(j.B)
		if !okA || !okB {
			continue
		}
		a, b := pa.Add(ra.Rotate(j.AnchorA)), pb.Add(rb.Rotate(j.AnchorB))
		d.seg(a, b, p.Joint)
		r := d.opts.ContactSize
		d.cross(a, r, p.Joint)
		d.cross(b, r, p.Joint)
		axis := ra.Rotate(j.AxisA)
		normal := ra.Rotate(j.NormalA)
		l := d.opts.NormalLength
		switch j.Kind {
		case physics.JointRevolute:
			d.seg(a, a.Add(axis.Mul(l)), p.Limit)
			if j.Limits {
				d.limitArc(a, axis, normal, j.Lower, j.Upper, l/2, p.Limit)
			}
		case physics.JointPrismatic:
			d.seg(a, a.Add(axis.Mul(l)), p.Limit)
			if j.Limits {
				d.cross(a.Add(axis.Mul(j.Lower)), r, p.Limit)
				d.cross(a.Add(axis.Mul(j.Upper)), r, p.Limit)
			}
		case physics.JointSpherical:
			if j.SwingLimit > 0 {
				d.cone(a, axis, normal, j.SwingLimit, l, p.Limit)
			}
		}
	}
}

// limitArc adds the arc of radius r about centre, around axis, from angle
// lower to upper measured from normal (a revolute joint's limits), in
// CircleSegments/2 segments.
func (d *Drawing) limitArc(centre, axis, normal mgl32.Vec3, lower, upper, r float32, c [4]uint8) {
	bi := axis.Cross(normal)
	const n = CircleSegments / 2
	at := func(k int) mgl32.Vec3 {
		a := float64(lower) + float64(upper-lower)*float64(k)/n
		return centre.Add(normal.Mul(r * float32(math.Cos(a)))).Add(bi.Mul(r * float32(math.Sin(a))))
	}
	prev := at(0)
	for k := 1; k <= n; k++ {
		q := at(k)
		d.seg(prev, q, c)
		prev = q
	}
}

// cone adds a spherical joint's swing cone: the circle its axis may
// reach at length l from apex, and four lines from the apex to it.
func (d *Drawing) cone(apex, axis, normal mgl32.Vec3, swing, l float32, c [4]uint8) {
	sin, cos := math.Sincos(float64(swing))
	centre := apex.Add(axis.Mul(l * float32(cos)))
	r := l * float32(sin)
	bi := axis.Cross(normal)
	d.arc(centre, normal, bi, r, CircleSegments, c)
	for _, off := range [4]mgl32.Vec3{normal.Mul(r), normal.Mul(-r), bi.Mul(r), bi.Mul(-r)} {
		d.seg(apex, centre.Add(off), c)
	}
}

// queries draws the last tick's queries (Space.QueryLog): a ray to its
// hit or its end, a swept shape at its start and where it stopped with
// the line between, an overlap's shape; hits with a cross and a normal.
func (d *Drawing) queries(s *physics.Space) {
	p := &d.opts.Palette
	for i := range s.QueryLog() {
		q := &s.QueryLog()[i]
		rot := q.Rot
		if rot == (mgl32.Quat{}) {
			rot = mgl32.QuatIdent()
		}
		switch q.Kind {
		case physics.QueryRay:
			end := q.Origin.Add(q.Dir.Mul(q.Length))
			if q.Hits > 0 {
				end = q.Point
			}
			d.seg(q.Origin, end, p.Query)
		case physics.QuerySweep:
			end := q.Origin.Add(q.Dir)
			if q.Hits > 0 {
				end = q.Point
			}
			d.seg(q.Origin, end, p.Query)
			d.shape(s, q.Shape, q.Origin, rot, p.Query, true)
			c := p.Query
			if q.Hits > 0 {
				c = p.Hit
			}
			d.shape(s, q.Shape, end, rot, c, true)
		case physics.QueryOverlap:
			c := p.Query
			if q.Hits > 0 {
				c = p.Hit
			}
			d.shape(s, q.Shape, q.Origin, rot, c, true)
		}
		if q.Hits > 0 && q.Kind != physics.QueryOverlap {
			d.cross(q.Point, d.opts.ContactSize, p.Hit)
			d.seg(q.Point, q.Point.Add(q.Normal.Mul(d.opts.NormalLength)), p.Hit)
		}
	}
}
