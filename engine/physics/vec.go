package physics

import "math"

// The step's arithmetic is float32 on small structs the compiler keeps in
// registers (mgl32's arrays stay in memory). Every product that is added to
// something is rounded first, float32(a*b) + c, so Go cannot fuse the two
// into one multiply-add (it does on arm64 and on amd64 built with
// GOAMD64=v3, and the fused result differs in the last bit): the step gives
// the same bits on every build. TestNoFusedArithmetic checks the source.
// Division and square roots are correctly rounded everywhere; no
// trigonometry runs in the step. The rule here is simpler than the
// minimum: every floating-point product is written inside a conversion.

// vec3 is a vector or a point.
type vec3 struct{ x, y, z float32 }

func (a vec3) add(b vec3) vec3 { return vec3{a.x + b.x, a.y + b.y, a.z + b.z} }
func (a vec3) sub(b vec3) vec3 { return vec3{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a vec3) neg() vec3       { return vec3{-a.x, -a.y, -a.z} }
func (a vec3) scale(s float32) vec3 {
	return vec3{float32(a.x * s), float32(a.y * s), float32(a.z * s)}
}
func (a vec3) mul(b vec3) vec3 {
	return vec3{float32(a.x * b.x), float32(a.y * b.y), float32(a.z * b.z)}
}
func (a vec3) dot(b vec3) float32 { return float32(a.x*b.x) + float32(a.y*b.y) + float32(a.z*b.z) }
func (a vec3) lengthSq() float32  { return a.dot(a) }
func (a vec3) length() float32    { return sqrt(a.dot(a)) }
func (a vec3) min(b vec3) vec3    { return vec3{min(a.x, b.x), min(a.y, b.y), min(a.z, b.z)} }
func (a vec3) max(b vec3) vec3    { return vec3{max(a.x, b.x), max(a.y, b.y), max(a.z, b.z)} }
func (a vec3) abs() vec3          { return vec3{abs(a.x), abs(a.y), abs(a.z)} }
func (a vec3) finite() bool       { return finite(a.x) && finite(a.y) && finite(a.z) }
func (a vec3) at(i int) float32   { return [3]float32{a.x, a.y, a.z}[i] }
func (a vec3) addScaled(b vec3, s float32) vec3 { // a + b*s
	return vec3{a.x + float32(b.x*s), a.y + float32(b.y*s), a.z + float32(b.z*s)}
}

func (a vec3) cross(b vec3) vec3 {
	return vec3{
		float32(a.y*b.z) - float32(a.z*b.y),
		float32(a.z*b.x) - float32(a.x*b.z),
		float32(a.x*b.y) - float32(a.y*b.x),
	}
}

// normalize returns a scaled to unit length and its length; a zero vector
// stays zero.
func (a vec3) normalize() (vec3, float32) {
	l := a.length()
	if l == 0 {
		return vec3{}, 0
	}
	inv := 1 / l
	return a.scale(inv), l
}

// orthonormal returns two unit vectors that, with the unit vector n, form a
// right-handed orthonormal basis (n, t1, t2). The choice depends only on n.
func orthonormal(n vec3) (t1, t2 vec3) {
	// Erin Catto's branch on the largest component keeps the division away
	// from zero.
	if abs(n.x) >= 0.57735 {
		t1 = vec3{n.y, -n.x, 0}
	} else {
		t1 = vec3{0, n.z, -n.y}
	}
	t1, _ = t1.normalize()
	t2 = n.cross(t1)
	return t1, t2
}

// quat is a rotation, a unit quaternion (x, y, z vector part, w scalar).
type quat struct{ x, y, z, w float32 }

var identity = quat{0, 0, 0, 1}

func (q quat) conj() quat { return quat{-q.x, -q.y, -q.z, q.w} }

// mul returns q*r: r's rotation, then q's.
func (q quat) mul(r quat) quat {
	return quat{
		float32(q.w*r.x) + float32(q.x*r.w) + float32(q.y*r.z) - float32(q.z*r.y),
		float32(q.w*r.y) - float32(q.x*r.z) + float32(q.y*r.w) + float32(q.z*r.x),
		float32(q.w*r.z) + float32(q.x*r.y) - float32(q.y*r.x) + float32(q.z*r.w),
		float32(q.w*r.w) - float32(q.x*r.x) - float32(q.y*r.y) - float32(q.z*r.z),
	}
}

// rotate returns v turned by q: v + 2w(u×v) + 2u×(u×v), u = q's vector part.
func (q quat) rotate(v vec3) vec3 {
	u := vec3{q.x, q.y, q.z}
	t := u.cross(v).scale(2)
	return v.addScaled(t, q.w).add(u.cross(t))
}

// unrotate returns v turned by q's inverse.
func (q quat) unrotate(v vec3) vec3 { return q.conj().rotate(v) }

func (q quat) lengthSq() float32 {
	return float32(q.x*q.x) + float32(q.y*q.y) + float32(q.z*q.z) + float32(q.w*q.w)
}

// normalize returns q scaled to unit length (the identity when q is zero).
func (q quat) normalize() quat {
	l := sqrt(q.lengthSq())
	if l == 0 {
		return identity
	}
	inv := 1 / l
	return quat{float32(q.x * inv), float32(q.y * inv), float32(q.z * inv), float32(q.w * inv)}
}

// integrate turns q by the angular velocity w (rad/s, world axes) over h
// seconds, exactly as a turn about w's axis by |w|·h (Jolt's
// Body::AddRotationStep): (sin(θ/2)·w/|w|, cos(θ/2)) q with θ = |w|·h,
// normalised. The sine and cosine come from sinCosHalf's series, so every
// platform turns a body by the same bits; a first-order step (q + h/2
// (w, 0) q) is off by 3e-6 at a turn of 0.02 rad.
func (q quat) integrate(w vec3, h float32) quat {
	hh := float32(h * 0.5)
	sinc, c := sinCosHalf(float32(w.lengthSq() * float32(hh*hh)))
	k := float32(hh * sinc)
	d := quat{float32(w.x * k), float32(w.y * k), float32(w.z * k), c}
	return d.mul(q).normalize()
}

// sinCosHalf returns sin(x)/x and cos(x) for the x >= 0 whose square is
// x2, from their Taylor series to x¹² with each product rounded (the
// remainder is below 1e-12 for x <= 1), halving x until it is at most 1
// and doubling the angle back (sin 2x = 2 sin x cos x, cos 2x = 1 - 2
// sin² x): no function whose result differs by platform.
func sinCosHalf(x2 float32) (sinc, cos float32) {
	halvings := 0
	for x2 > 1 && halvings < 64 {
		x2 = float32(x2 * 0.25)
		halvings++
	}
	// Horner in x²: sin(x)/x = Σ (-x²)^k/(2k+1)!, cos x = Σ (-x²)^k/(2k)!.
	sinc, cos = float32(1.0/6227020800), float32(1.0/479001600)
	for k := 5; k >= 0; k-- {
		sinc = sincCoef[k] - float32(sinc*x2)
		cos = cosCoef[k] - float32(cos*x2)
	}
	for range halvings {
		// x doubles: sin(2x)/(2x) = sinc(x)·cos(x), cos(2x) = 1 - 2 sin² x.
		s := float32(sinc * sinc)
		sinc, cos = float32(sinc*cos), 1-float32(float32(2*s)*x2)
		x2 = float32(x2 * 4)
	}
	return sinc, cos
}

// sincCoef and cosCoef are 1/(2k+1)! and 1/(2k)! for k = 0..5.
var (
	sincCoef = [6]float32{1, 1.0 / 6, 1.0 / 120, 1.0 / 5040, 1.0 / 362880, 1.0 / 39916800}
	cosCoef  = [6]float32{1, 1.0 / 2, 1.0 / 24, 1.0 / 720, 1.0 / 40320, 1.0 / 3628800}
)

func (q quat) finite() bool { return finite(q.x) && finite(q.y) && finite(q.z) && finite(q.w) }

// mat3 is a 3×3 matrix by rows.
type mat3 struct{ r0, r1, r2 vec3 }

// rotation returns q's rotation matrix.
func (q quat) rotation() mat3 {
	x2, y2, z2 := q.x+q.x, q.y+q.y, q.z+q.z
	xx, yy, zz := float32(q.x*x2), float32(q.y*y2), float32(q.z*z2)
	xy, xz, yz := float32(q.x*y2), float32(q.x*z2), float32(q.y*z2)
	wx, wy, wz := float32(q.w*x2), float32(q.w*y2), float32(q.w*z2)
	return mat3{
		vec3{1 - (yy + zz), xy - wz, xz + wy},
		vec3{xy + wz, 1 - (xx + zz), yz - wx},
		vec3{xz - wy, yz + wx, 1 - (xx + yy)},
	}
}

func (m mat3) mulVec(v vec3) vec3 { return vec3{m.r0.dot(v), m.r1.dot(v), m.r2.dot(v)} }

// col returns column i.
func (m mat3) col(i int) vec3 {
	switch i {
	case 0:
		return vec3{m.r0.x, m.r1.x, m.r2.x}
	case 1:
		return vec3{m.r0.y, m.r1.y, m.r2.y}
	}
	return vec3{m.r0.z, m.r1.z, m.r2.z}
}

// at returns the element in row i, column j.
func (m *mat3) at(i, j int) float32 {
	switch i {
	case 0:
		return m.r0.at(j)
	case 1:
		return m.r1.at(j)
	}
	return m.r2.at(j)
}

// mulTVec returns mᵀv.
func (m mat3) mulTVec(v vec3) vec3 {
	return m.r0.scale(v.x).add(m.r1.scale(v.y)).add(m.r2.scale(v.z))
}

// pose places a shape or a body: rotation q, then translation p.
type pose struct {
	p vec3
	q quat
}

func (t pose) apply(v vec3) vec3   { return t.q.rotate(v).add(t.p) }
func (t pose) unapply(v vec3) vec3 { return t.q.unrotate(v.sub(t.p)) }

// aabb is an axis-aligned box, min ≤ max.
type aabb struct{ min, max vec3 }

func (a aabb) overlaps(b aabb) bool {
	return a.min.x <= b.max.x && b.min.x <= a.max.x &&
		a.min.y <= b.max.y && b.min.y <= a.max.y &&
		a.min.z <= b.max.z && b.min.z <= a.max.z
}

func (a aabb) union(b aabb) aabb { return aabb{a.min.min(b.min), a.max.max(b.max)} }

func (a aabb) grow(d float32) aabb {
	g := vec3{d, d, d}
	return aabb{a.min.sub(g), a.max.add(g)}
}

func sqrt(x float32) float32 { return float32(math.Sqrt(float64(x))) }

func abs(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

func finite(x float32) bool { return math.Float32bits(x)&0x7f800000 != 0x7f800000 }

func clamp(x, lo, hi float32) float32 { return max(lo, min(x, hi)) }
