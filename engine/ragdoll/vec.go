package ragdoll

import (
	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/detmath"
	"github.com/nebulaengine/nebula/engine/geom"
)

// The package's vector arithmetic, with every product rounded by a
// conversion so that Go cannot fuse it into a multiply-add: the ragdoll's
// bodies and joints enter the simulation, whose bits must be the same on
// every build (internal/detcheck checks this file and the others).

func add(a, b mgl32.Vec3) mgl32.Vec3 { return mgl32.Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func sub(a, b mgl32.Vec3) mgl32.Vec3 { return mgl32.Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func scale(a mgl32.Vec3, s float32) mgl32.Vec3 {
	return mgl32.Vec3{float32(a[0] * s), float32(a[1] * s), float32(a[2] * s)}
}
func dot(a, b mgl32.Vec3) float32 { return detmath.Dot(a, b) }
func cross(a, b mgl32.Vec3) mgl32.Vec3 {
	return mgl32.Vec3{
		float32(a[1]*b[2]) - float32(a[2]*b[1]),
		float32(a[2]*b[0]) - float32(a[0]*b[2]),
		float32(a[0]*b[1]) - float32(a[1]*b[0]),
	}
}
func length(a mgl32.Vec3) float32 { return detmath.Sqrt(dot(a, a)) }

// normalize returns a scaled to unit length, and false (and a) when a is
// too short to have a direction.
func normalize(a mgl32.Vec3) (mgl32.Vec3, bool) {
	l := length(a)
	if !(l > 1e-6) {
		return a, false
	}
	return scale(a, 1/l), true
}

// quatFromFrame returns the rotation whose columns are the orthonormal
// right-handed x, y and z (Shepperd's method: the largest of the four
// candidates divides, so it is accurate for every rotation).
func quatFromFrame(x, y, z mgl32.Vec3) mgl32.Quat {
	m00, m11, m22 := x[0], y[1], z[2]
	tr := m00 + m11 + m22
	var w, qx, qy, qz float32
	switch {
	case tr > 0:
		s := float32(detmath.Sqrt(tr+1) * 2)
		w = float32(0.25 * s)
		qx = (y[2] - z[1]) / s
		qy = (z[0] - x[2]) / s
		qz = (x[1] - y[0]) / s
	case m00 > m11 && m00 > m22:
		s := float32(detmath.Sqrt(1+m00-m11-m22) * 2)
		w = (y[2] - z[1]) / s
		qx = float32(0.25 * s)
		qy = (y[0] + x[1]) / s
		qz = (z[0] + x[2]) / s
	case m11 > m22:
		s := float32(detmath.Sqrt(1+m11-m00-m22) * 2)
		w = (z[0] - x[2]) / s
		qx = (y[0] + x[1]) / s
		qy = float32(0.25 * s)
		qz = (z[1] + y[2]) / s
	default:
		s := float32(detmath.Sqrt(1+m22-m00-m11) * 2)
		w = (x[1] - y[0]) / s
		qx = (z[0] + x[2]) / s
		qy = (z[1] + y[2]) / s
		qz = float32(0.25 * s)
	}
	q := detmath.Normalize(mgl32.Quat{W: w, V: mgl32.Vec3{qx, qy, qz}})
	if q.W < 0 {
		q = mgl32.Quat{W: -q.W, V: mgl32.Vec3{-q.V[0], -q.V[1], -q.V[2]}}
	}
	return q
}

// unrotate returns v rotated by the inverse of the unit quaternion q.
func unrotate(q mgl32.Quat, v mgl32.Vec3) mgl32.Vec3 { return geom.Rotate(geom.Conjugate(q), v) }

// angularVelocity returns the angular velocity (rad/s, world axes) that
// turns from to to in dt seconds, the shorter way round: the turn's axis
// times its angle over dt. The angle is 2 asin(|v|) of the turn's
// quaternion, from asin's series (exact to float32 below 0.5, a turn of
// 60 degrees a tick, far beyond any animation's).
func angularVelocity(from, to mgl32.Quat, dt float32) mgl32.Vec3 {
	d := detmath.Mul(to, geom.Conjugate(from))
	if d.W < 0 {
		d = mgl32.Quat{W: -d.W, V: mgl32.Vec3{-d.V[0], -d.V[1], -d.V[2]}}
	}
	axis, ok := normalize(d.V)
	if !ok {
		return mgl32.Vec3{}
	}
	s := min(length(d.V), 1)
	s2 := float32(s * s)
	// asin(s) = s (1 + s²/6 + 3s⁴/40 + 5s⁶/112 + 35s⁸/1152 + ...)
	series := 1 + float32(s2*(float32(1.0/6)+float32(s2*(float32(3.0/40)+float32(s2*(float32(5.0/112)+float32(s2*float32(35.0/1152))))))))
	angle := float32(2 * float32(s*series))
	return scale(axis, angle/dt)
}

// transformToBone writes t (rotation, translation and scale, a uniform one
// for the product to be exact) times the affine matrix m (column-major,
// its fourth row 0 0 0 1) as the top three rows of a 4×4 matrix.
func transformToBone(t geom.Transform, m *mgl32.Mat4, out *[12]float32) {
	// The columns of t's matrix: the rotated axes, scaled.
	x := scale(geom.Rotate(t.Rot, mgl32.Vec3{1, 0, 0}), t.Scale[0])
	y := scale(geom.Rotate(t.Rot, mgl32.Vec3{0, 1, 0}), t.Scale[1])
	z := scale(geom.Rotate(t.Rot, mgl32.Vec3{0, 0, 1}), t.Scale[2])
	for r := range 3 {
		a0, a1, a2, a3 := x[r], y[r], z[r], t.Pos[r]
		for c := range 4 {
			out[r*4+c] = float32(a0*m[c*4]) + float32(a1*m[c*4+1]) + float32(a2*m[c*4+2]) + float32(a3*m[c*4+3])
		}
	}
}

// one is the unit scale.
var one = mgl32.Vec3{1, 1, 1}

// quatUnit returns q normalised, its W not negative.
func quatUnit(q mgl32.Quat) mgl32.Quat {
	q = detmath.Normalize(q)
	if q.W < 0 {
		q = mgl32.Quat{W: -q.W, V: mgl32.Vec3{-q.V[0], -q.V[1], -q.V[2]}}
	}
	return q
}
