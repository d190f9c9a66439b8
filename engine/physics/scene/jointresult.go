package scene

import (
	"math"
	"strconv"
)

// Pose is a body's position and rotation as the engine reports them, in
// float64 (a float32 engine's values widened), for measuring joints.
type Pose struct {
	Position [3]float64 // of the centre of mass, m
	Rotation [4]float64 // quaternion [x, y, z, w], used as it is (not normalised)
}

// JointRecord is a joint's entry in a result's "joints": how well it holds,
// measured from its bodies' poses (see Joint.Measure). Each measure is
// written only when its Has field is set, which Measure does exactly
// when the measure applies to the joint.
type JointRecord struct {
	ID   string    // the joint's id
	Type JointType // the joint's type

	// PositionError is how far the anchors are apart (fixed, spherical,
	// revolute), how far B is off A's axis (prismatic), or how far a rope
	// is over-stretched (distance without a spring), m.
	PositionError float64
	// AngleError is the angle between the axes (revolute), or of the
	// rotation that carries frame a onto frame b (fixed, prismatic), rad.
	AngleError float64
	// Coordinate is the joint coordinate: the angle θ (revolute, rad), the
	// position s along A's axis (prismatic, m) or the distance between the
	// anchors (distance, m). Not an error.
	Coordinate float64
	// LimitError is how far Coordinate is beyond the limits (revolute and
	// prismatic with limits), rad or m.
	LimitError float64

	HasPositionError, HasAngleError, HasCoordinate, HasLimitError bool // which measures apply
}

// Measure returns j's record when its bodies, BodyA and BodyB, are at a
// and b: FORMAT's "Joint records", in float64. With A and B the world
// anchors, d = B − A, u the world axes and n the world normals:
//
//   - fixed: PositionError ‖d‖, AngleError the angle of the rotation from
//     frame a to frame b;
//   - spherical: PositionError ‖d‖;
//   - revolute: PositionError ‖d‖, AngleError atan2(‖u_a × u_b‖, u_a·u_b),
//     Coordinate θ = atan2(u_a·(n_a × n_b), n_a·n_b), LimitError with
//     limits;
//   - prismatic: PositionError ‖d − (d·u_a) u_a‖, AngleError as fixed,
//     Coordinate s = d·u_a, LimitError with limits;
//   - distance: Coordinate ‖d‖, and without a spring PositionError
//     max(0, ‖d‖ − Length).
//
// The angle of a rotation quaternion (v, w) is 2 atan2(‖v‖, |w|), and a
// LimitError is max(0, min − c, c − max) for the coordinate c.
func (j *Joint) Measure(a, b Pose) JointRecord {
	r := JointRecord{ID: j.ID, Type: j.Type}
	d := sub(add(b.Position, qrot(b.Rotation, j.AnchorB)), add(a.Position, qrot(a.Rotation, j.AnchorA)))
	frameAngle := func() float64 {
		fa := qmul(a.Rotation, frameQuat(j.AxisA, j.NormalA))
		fb := qmul(b.Rotation, frameQuat(j.AxisB, j.NormalB))
		return qangle(qmul(qconj(fa), fb))
	}
	limit := func(x float64) {
		if j.Limits != nil {
			r.LimitError, r.HasLimitError = math.Max(0, math.Max(j.Limits[0]-x, x-j.Limits[1])), true
		}
	}
	switch j.Type {
	case JointFixed:
		r.PositionError, r.HasPositionError = length(d), true
		r.AngleError, r.HasAngleError = frameAngle(), true
	case JointSpherical:
		r.PositionError, r.HasPositionError = length(d), true
	case JointRevolute:
		ua, ub := qrot(a.Rotation, j.AxisA), qrot(b.Rotation, j.AxisB)
		na, nb := qrot(a.Rotation, j.NormalA), qrot(b.Rotation, j.NormalB)
		r.PositionError, r.HasPositionError = length(d), true
		r.AngleError, r.HasAngleError = atan2(length(cross(ua, ub)), dot(ua, ub)), true
		r.Coordinate, r.HasCoordinate = atan2(dot(ua, cross(na, nb)), dot(na, nb)), true
		limit(r.Coordinate)
	case JointPrismatic:
		ua := qrot(a.Rotation, j.AxisA)
		s := dot(d, ua)
		r.PositionError, r.HasPositionError = length(sub(d, scale(ua, s))), true
		r.AngleError, r.HasAngleError = frameAngle(), true
		r.Coordinate, r.HasCoordinate = s, true
		limit(s)
	case JointDistance:
		r.Coordinate, r.HasCoordinate = length(d), true
		if j.Spring == nil {
			r.PositionError, r.HasPositionError = math.Max(0, r.Coordinate-j.Length), true
		}
	}
	return r
}

// ErrorStats summarise one error measure over a run's joints (FORMAT's
// "joint_errors").
type ErrorStats struct {
	Max  float64 // the largest over the joints that have the measure, after the last step
	Mean float64 // the mean over them, after the last step
	// Peak is the largest over those joints after each of the steps 1 to
	// N (with no step run: after step 0).
	Peak      float64
	PeakJoint string // the joint that first reached Peak (the first in scene order)
	PeakStep  int    // the step at which it first did
}

// JointErrors is a result's "joint_errors": one ErrorStats for each of
// the measures that at least one joint has; nil for the others.
type JointErrors struct {
	Position *ErrorStats // PositionError, m
	Angle    *ErrorStats // AngleError, rad
	Limit    *ErrorStats // LimitError, rad or m
}

// measures are the three error measures of a record, in the order of
// JointErrors: the value and whether the record has it.
var measures = [3]func(r *JointRecord) (float64, bool){
	func(r *JointRecord) (float64, bool) { return r.PositionError, r.HasPositionError },
	func(r *JointRecord) (float64, bool) { return r.AngleError, r.HasAngleError },
	func(r *JointRecord) (float64, bool) { return r.LimitError, r.HasLimitError },
}

// JointTracker gathers a run's joint errors for its JointErrors: Sample
// after every step, for the peaks, then Summary with the records after the
// last step. The zero JointTracker is ready; it allocates nothing.
type JointTracker struct {
	steps int
	peak  [3]ErrorStats // Peak, PeakJoint and PeakStep
	found [3]bool       // peak[m] holds a sample
}

// Sample takes the records of every joint, in scene order, after the next
// step: the first call is step 1, the next step 2, and so on.
func (t *JointTracker) Sample(records []JointRecord) {
	t.steps++
	for i := range records {
		for m, get := range measures {
			x, ok := get(&records[i])
			// As the anchors compare: a NaN takes the peak, and is
			// replaced by whatever comes after it.
			if ok && (!t.found[m] || !(x <= t.peak[m].Peak)) {
				t.peak[m] = ErrorStats{Peak: x, PeakJoint: records[i].ID, PeakStep: t.steps}
				t.found[m] = true
			}
		}
	}
}

// Steps returns how many times Sample was called.
func (t *JointTracker) Steps() int { return t.steps }

// Summary returns the JointErrors of the run whose records after the last
// step are final (every joint, in scene order): Max and Mean over final,
// the peaks from the samples (with none, those of final, at step 0).
func (t *JointTracker) Summary(final []JointRecord) JointErrors {
	var out [3]*ErrorStats
	for m, get := range measures {
		n, sum, largest := 0, 0.0, 0.0
		for i := range final {
			if x, ok := get(&final[i]); ok {
				n++
				sum += x
				if x > largest {
					largest = x
				}
			}
		}
		if n == 0 {
			continue
		}
		s := &ErrorStats{Max: largest, Mean: sum / float64(n)}
		if t.found[m] {
			s.Peak, s.PeakJoint, s.PeakStep = t.peak[m].Peak, t.peak[m].PeakJoint, t.peak[m].PeakStep
		} else {
			// No step run: the peak is that of the state at step 0, at the
			// first joint with the largest value.
			s.Peak = largest
			for i := range final {
				if x, ok := get(&final[i]); ok && (x == largest || s.PeakJoint == "") {
					s.PeakJoint = final[i].ID
					if x == largest {
						break
					}
				}
			}
		}
		out[m] = s
	}
	return JointErrors{Position: out[0], Angle: out[1], Limit: out[2]}
}

// appendJoints appends the result's "joints" and "joint_errors" fields,
// each with its leading comma, when r has them.
func (r *Result) appendJoints(b []byte, out *writer) []byte {
	if r.Joints != nil {
		b = append(b, `,"joints":[`...)
		for i := range r.Joints {
			if i > 0 {
				b = append(b, ',')
			}
			b = r.Joints[i].appendJSON(b)
			b = out.maybeFlush(b)
		}
		b = append(b, ']')
	}
	if e := r.JointErrors; e != nil {
		b = append(b, `,"joint_errors":{`...)
		comma := false
		for _, m := range [3]struct {
			name string
			s    *ErrorStats
		}{{"position", e.Position}, {"angle", e.Angle}, {"limit", e.Limit}} {
			if m.s == nil {
				continue
			}
			if comma {
				b = append(b, ',')
			}
			comma = true
			b = appendString(b, m.name)
			b = append(b, `:{"max":`...)
			b = AppendNumber(b, m.s.Max)
			b = append(b, `,"mean":`...)
			b = AppendNumber(b, m.s.Mean)
			b = append(b, `,"peak":`...)
			b = AppendNumber(b, m.s.Peak)
			b = append(b, `,"peak_joint":`...)
			b = appendString(b, m.s.PeakJoint)
			b = append(b, `,"peak_step":`...)
			b = strconv.AppendInt(b, int64(m.s.PeakStep), 10)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return b
}

// appendJSON appends the record as a JSON object, its measures in the
// order the anchors write them (a distance joint's coordinate first).
func (rec *JointRecord) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, rec.ID)
	b = append(b, `,"type":`...)
	b = appendString(b, string(rec.Type))
	field := func(name string, x float64, has bool) {
		if has {
			b = append(b, ',')
			b = appendString(b, name)
			b = append(b, ':')
			b = AppendNumber(b, x)
		}
	}
	if rec.Type == JointDistance {
		field("coordinate", rec.Coordinate, rec.HasCoordinate)
		field("position_error", rec.PositionError, rec.HasPositionError)
	} else {
		field("position_error", rec.PositionError, rec.HasPositionError)
		field("angle_error", rec.AngleError, rec.HasAngleError)
		field("coordinate", rec.Coordinate, rec.HasCoordinate)
		field("limit_error", rec.LimitError, rec.HasLimitError)
	}
	return append(b, '}')
}

// Small float64 vector and quaternion helpers, computed as the anchors
// compute them: every product rounded before it is added (float64(a*b)),
// so that no build fuses a multiply and an add (see internal/detcheck).
// Quaternions are [x, y, z, w].

func add(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

func scale(a [3]float64, k float64) [3]float64 {
	return [3]float64{float64(a[0] * k), float64(a[1] * k), float64(a[2] * k)}
}

func dot(a, b [3]float64) float64 {
	return float64(a[0]*b[0]) + float64(a[1]*b[1]) + float64(a[2]*b[2])
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{
		float64(a[1]*b[2]) - float64(a[2]*b[1]),
		float64(a[2]*b[0]) - float64(a[0]*b[2]),
		float64(a[0]*b[1]) - float64(a[1]*b[0]),
	}
}

// length is ‖a‖, as JavaScript's Math.hypot computes it.
func length(a [3]float64) float64 { return hypot(a[:]) }

// hypot returns √(Σ x²) as V8's Math.hypot computes it, so that a record
// matches the anchors' to the last bit for the same poses: NaN when an x
// is NaN (and none infinite), +Inf when one is infinite; otherwise the
// squares of the x scaled by the largest |x|, summed with Kahan's
// compensation, square-rooted and scaled back.
func hypot(xs []float64) float64 {
	largest, nan := 0.0, false
	for _, x := range xs {
		switch {
		case math.IsNaN(x):
			nan = true
		case math.Abs(x) > largest:
			largest = math.Abs(x)
		}
	}
	switch {
	case math.IsInf(largest, 1):
		return largest
	case nan:
		return math.NaN()
	case largest == 0:
		return 0
	}
	sum, comp := 0.0, 0.0
	for _, x := range xs {
		n := math.Abs(x) / largest
		summand := float64(n*n) - comp
		pre := sum + summand
		comp = (pre - sum) - summand
		sum = pre
	}
	return float64(math.Sqrt(sum) * largest)
}

func qmul(a, b [4]float64) [4]float64 {
	ax, ay, az, aw := a[0], a[1], a[2], a[3]
	bx, by, bz, bw := b[0], b[1], b[2], b[3]
	return [4]float64{
		float64(aw*bx) + float64(ax*bw) + float64(ay*bz) - float64(az*by),
		float64(aw*by) - float64(ax*bz) + float64(ay*bw) + float64(az*bx),
		float64(aw*bz) + float64(ax*by) - float64(ay*bx) + float64(az*bw),
		float64(aw*bw) - float64(ax*bx) - float64(ay*by) - float64(az*bz),
	}
}

func qconj(q [4]float64) [4]float64 { return [4]float64{-q[0], -q[1], -q[2], q[3]} }

// qrot returns v rotated by the unit quaternion q: v + w t + u × t with
// t = 2 u × v.
func qrot(q [4]float64, v [3]float64) [3]float64 {
	u := [3]float64{q[0], q[1], q[2]}
	t := scale(cross(u, v), 2)
	c := cross(u, t)
	wt := scale(t, q[3])
	return [3]float64{v[0] + wt[0] + c[0], v[1] + wt[1] + c[1], v[2] + wt[2] + c[2]}
}

// qangle returns the angle of the rotation q, in [0, π].
func qangle(q [4]float64) float64 {
	return float64(2 * atan2(hypot(q[:3]), math.Abs(q[3])))
}

// frameQuat returns the rotation whose matrix has the columns axis,
// normal and axis × normal (a joint frame), as a unit quaternion.
func frameQuat(axis, normal [3]float64) [4]float64 {
	c := cross(axis, normal)
	m00, m10, m20 := axis[0], axis[1], axis[2]
	m01, m11, m21 := normal[0], normal[1], normal[2]
	m02, m12, m22 := c[0], c[1], c[2]
	var q [4]float64
	switch tr := m00 + m11 + m22; {
	case tr > 0:
		s := float64(math.Sqrt(tr+1) * 2)
		q = [4]float64{(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, s / 4}
	case m00 > m11 && m00 > m22:
		s := float64(math.Sqrt(1+m00-m11-m22) * 2)
		q = [4]float64{s / 4, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s}
	case m11 > m22:
		s := float64(math.Sqrt(1+m11-m00-m22) * 2)
		q = [4]float64{(m01 + m10) / s, s / 4, (m12 + m21) / s, (m02 - m20) / s}
	default:
		s := float64(math.Sqrt(1+m22-m00-m11) * 2)
		q = [4]float64{(m02 + m20) / s, (m12 + m21) / s, s / 4, (m10 - m01) / s}
	}
	n := hypot(q[:])
	return [4]float64{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
}
