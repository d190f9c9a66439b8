package physics

// Small linear algebra and angles for the joints, every product rounded to
// float32 (no fused multiply-add), so every platform computes the same
// bits.

// quatFromColumns returns the rotation whose matrix has the orthonormal
// columns x, y, z (Shepperd's method: the largest of the four candidates
// under the square root, so the division is well away from zero).
func quatFromColumns(x, y, z vec3) quat {
	m00, m11, m22 := x.x, y.y, z.z
	tr := m00 + m11 + m22
	var q quat
	switch {
	case tr > 0:
		s := float32(sqrt(tr+1) * 2) // 4w
		q = quat{float32((y.z - z.y) / s), float32((z.x - x.z) / s), float32((x.y - y.x) / s), float32(0.25 * s)}
	case m00 > m11 && m00 > m22:
		s := float32(sqrt(1+m00-m11-m22) * 2) // 4x
		q = quat{float32(0.25 * s), float32((y.x + x.y) / s), float32((z.x + x.z) / s), float32((y.z - z.y) / s)}
	case m11 > m22:
		s := float32(sqrt(1+m11-m00-m22) * 2) // 4y
		q = quat{float32((y.x + x.y) / s), float32(0.25 * s), float32((z.y + y.z) / s), float32((z.x - x.z) / s)}
	default:
		s := float32(sqrt(1+m22-m00-m11) * 2) // 4z
		q = quat{float32((z.x + x.z) / s), float32((z.y + y.z) / s), float32(0.25 * s), float32((x.y - y.x) / s)}
	}
	return q.normalize()
}

// atan2 returns the angle of the point (x, y) in [−π, π], within 2e-7 rad,
// 0 at the origin: atan of the ratio reduced to [0, tan(π/8)] (through
// atan a = π/4 + atan((a − 1)/(a + 1))) and its Taylor series to the 15th
// power, with no math library call whose result could differ by platform.
func atan2(y, x float32) float32 {
	ax, ay := abs(x), abs(y)
	if ax == 0 && ay == 0 {
		return 0
	}
	a := ay / ax
	if ay > ax {
		a = ax / ay
	}
	var base float32
	if a > 0.41421356 { // tan(π/8)
		a = (a - 1) / (a + 1)
		base = 0.78539816 // π/4
	}
	s := float32(a * a)
	// atan a = a Σ (−s)^k / (2k + 1), Horner from k = 7.
	p := float32(-1.0 / 15)
	for _, c := range [...]float32{1.0 / 13, -1.0 / 11, 1.0 / 9, -1.0 / 7, 1.0 / 5, -1.0 / 3, 1} {
		p = c + float32(p*s)
	}
	r := base + float32(a*p)
	if ay > ax {
		r = 1.5707964 - r // π/2
	}
	if x < 0 {
		r = 3.1415927 - r // π
	}
	if y < 0 {
		r = -r
	}
	return r
}

// add returns m + n.
func (m mat3) add(n mat3) mat3 { return mat3{m.r0.add(n.r0), m.r1.add(n.r1), m.r2.add(n.r2)} }

// solve3 returns x with m x = b for a symmetric positive definite m (an
// effective mass), or 0 when m is singular (Cramer's rule).
func (m mat3) solve3(b vec3) vec3 {
	c0, c1, c2 := m.col(0), m.col(1), m.col(2)
	det := c0.dot(c1.cross(c2))
	if det == 0 || !finite(det) {
		return vec3{}
	}
	inv := 1 / det
	return vec3{
		float32(b.dot(c1.cross(c2)) * inv),
		float32(c0.dot(b.cross(c2)) * inv),
		float32(c0.dot(c1.cross(b)) * inv),
	}
}

// solve2 returns (x, y) with [[a, b], [b, d]] (x, y) = (u, v), or 0 when the
// matrix is singular.
func solve2(a, b, d, u, v float32) (float32, float32) {
	det := float32(a*d) - float32(b*b)
	if det == 0 || !finite(det) {
		return 0, 0
	}
	inv := 1 / det
	return float32((float32(d*u) - float32(b*v)) * inv), float32((float32(a*v) - float32(b*u)) * inv)
}

// pointMass returns the effective mass matrix K of a point constraint
// between anchors at arms rA and rB of bodies with masses mA and mB: the
// velocity change of the anchors' difference for a unit impulse P, K P =
// (mA + mB) P − rA × (IA (rA × P)) − rB × (IB (rB × P)).
func pointMass(mA, mB *bodyMass, rA, rB vec3) mat3 {
	var cols [3]vec3
	for j := range 3 {
		var e vec3
		switch j {
		case 0:
			e.x = 1
		case 1:
			e.y = 1
		default:
			e.z = 1
		}
		c := mA.invM.add(mB.invM).mul(e)
		c = c.sub(rA.cross(mA.invI.mulVec(rA.cross(e))))
		c = c.sub(rB.cross(mB.invI.mulVec(rB.cross(e))))
		cols[j] = c
	}
	return mat3{
		vec3{cols[0].x, cols[1].x, cols[2].x},
		vec3{cols[0].y, cols[1].y, cols[2].y},
		vec3{cols[0].z, cols[1].z, cols[2].z},
	}
}
