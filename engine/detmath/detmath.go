// Package detmath is float math for fixed-step code whose results are the
// same bits on every build.
//
// Go may fuse x*y + z into one fused multiply-add instruction (it does on
// arm64, and on amd64 when built with GOAMD64=v3), which rounds once instead
// of twice and so changes results; it may do so across inlined calls,
// mathgl's included. An explicit conversion, float32(x*y), forces the
// product to be rounded and prevents the fusion. Every function here writes
// its products that way, so a simulation built on them hashes the same on
// GOAMD64=v1 and v3, amd64 and arm64. The trigonometry is our own polynomial
// for the same reason: the math package's may be fused differently on
// different builds.
//
// In your own fixed systems, write a product that is added to something as
// float32(a*b) + c, or use MulAdd.
package detmath

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// MulAdd returns a*b + c with the product rounded first, never fused.
func MulAdd(a, b, c float32) float32 { return float32(a*b) + c }

// AddScaled returns v + s*d, component by component, without fusion.
func AddScaled(v, d mgl32.Vec3, s float32) mgl32.Vec3 {
	return mgl32.Vec3{
		float32(d[0]*s) + v[0],
		float32(d[1]*s) + v[1],
		float32(d[2]*s) + v[2],
	}
}

// Dot returns the dot product of a and b without fusion.
func Dot(a, b mgl32.Vec3) float32 {
	return float32(a[0]*b[0]) + float32(a[1]*b[1]) + float32(a[2]*b[2])
}

// Sqrt returns the square root of x, correctly rounded.
func Sqrt(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// Normalize returns q scaled to unit length (the identity when q is zero).
// A nearly unit q, the usual case after a small rotation step, is scaled by
// one Newton step for 1/sqrt(|q|^2), (3 - |q|^2)/2, which is cheaper than a
// square root and a division and as accurate there; repeated every tick it
// holds |q| within float32 rounding of 1.
func Normalize(q mgl32.Quat) mgl32.Quat {
	w, x, y, z := normalize(q.W, q.V[0], q.V[1], q.V[2])
	return mgl32.Quat{W: w, V: mgl32.Vec3{x, y, z}}
}

// normalize is Normalize on scalars, which the compiler keeps in registers
// (it keeps Go arrays such as mgl32.Vec3 in memory).
func normalize(w, x, y, z float32) (float32, float32, float32, float32) {
	n2 := float32(w*w) + float32(x*x) + float32(y*y) + float32(z*z)
	var inv float32
	switch d := n2 - 1; {
	case d > -nearUnit && d < nearUnit:
		inv = float32(1.5) - float32(0.5*n2)
	case n2 == 0:
		return 1, 0, 0, 0
	default:
		inv = 1 / Sqrt(n2)
	}
	return w * inv, x * inv, y * inv, z * inv
}

// nearUnit is how far |q|^2 may be from 1 for Normalize's Newton step: the
// step's relative error is about (3/8)d^2, under 4e-7 here.
const nearUnit = 1e-3

// Integrate turns q by the angular velocity w (radians per second, world
// axes) over dt seconds: q + dt/2 * (0, w) * q, normalised. It is the usual
// first-order step; it is exact for the rotation it defines and the same
// bits on every build.
func Integrate(q mgl32.Quat, w mgl32.Vec3, dt float32) mgl32.Quat {
	h := dt * 0.5
	qw, qx, qy, qz := q.W, q.V[0], q.V[1], q.V[2]
	wx, wy, wz := w[0], w[1], w[2]
	// (0, w) * (qw, qv) = (-w.qv, qw*w + w x qv)
	dw := -(float32(wx*qx) + float32(wy*qy) + float32(wz*qz))
	dx := float32(qw*wx) + (float32(wy*qz) - float32(wz*qy))
	dy := float32(qw*wy) + (float32(wz*qx) - float32(wx*qz))
	dz := float32(qw*wz) + (float32(wx*qy) - float32(wy*qx))
	rw, rx, ry, rz := normalize(float32(dw*h)+qw, float32(dx*h)+qx, float32(dy*h)+qy, float32(dz*h)+qz)
	return mgl32.Quat{W: rw, V: mgl32.Vec3{rx, ry, rz}}
}

// Range reduction constants: pi/2 split so that k*pio2Hi is exact for the
// k a game meets (|x| up to about 1e6 radians).
const (
	twoOverPi = 0.6366197723675814
	pio2Hi    = 1.5707963267341256 // 33 significant bits of pi/2
	pio2Lo    = 6.077100506506192e-11
)

// Sincos returns the sine and cosine of x (radians), with an error below
// 1e-15 for |x| up to about 1e6 and the same bits on every build.
func Sincos(x float64) (sin, cos float64) {
	k := math.Round(float64(x * twoOverPi))
	r := float64(x-float64(k*pio2Hi)) - float64(k*pio2Lo)
	s, c := sincosKernel(r)
	switch int64(k) & 3 {
	case 0:
		return s, c
	case 1:
		return c, -s
	case 2:
		return -s, -c
	default:
		return -c, s
	}
}

// sincosKernel evaluates Taylor polynomials for |r| <= pi/4, each product
// rounded explicitly.
func sincosKernel(r float64) (sin, cos float64) {
	z := float64(r * r)
	// sin r = r(1 - z/3! + z^2/5! - ... - z^7/15!)
	ps := -1.0 / 1307674368000 // -1/15!
	for _, c := range [...]float64{1.0 / 6227020800, -1.0 / 39916800, 1.0 / 362880, -1.0 / 5040, 1.0 / 120, -1.0 / 6, 1} {
		ps = float64(ps*z) + c
	}
	// cos r = 1 - z/2! + z^2/4! - ... + z^8/16!
	pc := 1.0 / 20922789888000 // 1/16!
	for _, c := range [...]float64{-1.0 / 87178291200, 1.0 / 479001600, -1.0 / 3628800, 1.0 / 40320, -1.0 / 720, 1.0 / 24, -0.5, 1} {
		pc = float64(pc*z) + c
	}
	return float64(r * ps), pc
}

// Mul returns the quaternion product a*b (the rotation b, then a), with
// every product rounded, so that it is the same bits on every build.
func Mul(a, b mgl32.Quat) mgl32.Quat {
	aw, ax, ay, az := a.W, a.V[0], a.V[1], a.V[2]
	bw, bx, by, bz := b.W, b.V[0], b.V[1], b.V[2]
	return mgl32.Quat{
		W: float32(aw*bw) - float32(ax*bx) - float32(ay*by) - float32(az*bz),
		V: mgl32.Vec3{
			float32(aw*bx) + float32(ax*bw) + float32(ay*bz) - float32(az*by),
			float32(aw*by) - float32(ax*bz) + float32(ay*bw) + float32(az*bx),
			float32(aw*bz) + float32(ax*by) - float32(ay*bx) + float32(az*bw),
		},
	}
}

// AxisAngle returns the rotation by angle radians about the unit axis.
func AxisAngle(axis mgl32.Vec3, angle float64) mgl32.Quat {
	s, c := Sincos(angle / 2)
	s32 := float32(s)
	return mgl32.Quat{W: float32(c), V: mgl32.Vec3{axis[0] * s32, axis[1] * s32, axis[2] * s32}}
}
