package physics

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func sphereS(r float32) *shape       { return &shape{kind: Sphere, radius: r} }
func capsuleS(r, hh float32) *shape  { return &shape{kind: Capsule, radius: r, halfHeight: hh} }
func boxS(hx, hy, hz float32) *shape { return &shape{kind: Box, half: vec3{hx, hy, hz}} }
func at(x, y, z float32) pose        { return pose{vec3{x, y, z}, identity} }
func turned(p pose, q quat) pose     { return pose{p.p, q} }
func approx(a, b, tol float32) bool  { return abs(a-b) <= tol }
func approxV(a, b vec3, tol float32) bool {
	return approx(a.x, b.x, tol) && approx(a.y, b.y, tol) && approx(a.z, b.z, tol)
}
func axisAngle(ax vec3, deg float64) quat { // tests only: trigonometry
	ax, _ = ax.normalize()
	s, c := math.Sincos(deg * math.Pi / 360)
	return quat{float32(float64(ax.x) * s), float32(float64(ax.y) * s), float32(float64(ax.z) * s), float32(c)}
}

// checkManifold fails on a manifold no caller may see: too many points,
// a normal not of unit length, anything non-finite, a point beyond margin.
func checkManifold(t *testing.T, m *manifold, margin float32) {
	t.Helper()
	if m.n < 0 || m.n > maxPoints {
		t.Fatalf("%d points", m.n)
	}
	if m.n == 0 {
		return
	}
	if !m.normal.finite() || !approx(m.normal.length(), 1, 1e-5) {
		t.Fatalf("normal %v", m.normal)
	}
	for _, p := range m.pts[:m.n] {
		if !p.p.finite() || !finite(p.sep) || p.sep > margin {
			t.Fatalf("point %+v (margin %v)", p, margin)
		}
	}
}

func ids(m *manifold) []uint32 {
	var out []uint32
	for _, p := range m.pts[:m.n] {
		out = append(out, p.id)
	}
	slices.Sort(out)
	return out
}

func minSep(m *manifold) float32 {
	s := float32(math.Inf(1))
	for _, p := range m.pts[:m.n] {
		s = min(s, p.sep)
	}
	return s
}

func TestSphereSphere(t *testing.T) {
	a, b := sphereS(1), sphereS(1.5)
	var m manifold
	collide(a, at(0, 0, 0), b, at(3, 0, 0), 0.4, &m)
	if m.n != 0 {
		t.Fatalf("0.5 apart, margin 0.4: %d points", m.n)
	}
	collide(a, at(0, 0, 0), b, at(3, 0, 0), 0.6, &m)
	checkManifold(t, &m, 0.6)
	if m.n != 1 || m.normal != (vec3{1, 0, 0}) || m.pts[0].sep != 0.5 || m.pts[0].p != (vec3{1.25, 0, 0}) {
		t.Fatalf("speculative: %+v", m)
	}
	collide(a, at(0, 0, 0), b, at(0, -2, 0), 0, &m)
	if m.n != 1 || m.normal != (vec3{0, -1, 0}) || m.pts[0].sep != -0.5 || m.pts[0].p != (vec3{0, -0.75, 0}) {
		t.Fatalf("overlap: %+v", m)
	}
	collide(a, at(1, 1, 1), b, at(1, 1, 1), 0, &m)
	checkManifold(t, &m, 0)
	if m.n != 1 || m.normal != (vec3{0, 1, 0}) || m.pts[0].sep != -2.5 {
		t.Fatalf("coincident: %+v", m)
	}
}

func TestSphereCapsule(t *testing.T) {
	c := capsuleS(0.5, 1) // axis from y=-1 to y=1
	tests := []struct {
		name   string
		at     pose
		normal vec3
		sep    float32
		id     uint32
	}{
		{"side", at(2, 0.5, 0), vec3{-1, 0, 0}, 0.5, idCapsuleSide},
		{"top", at(0, 3, 0), vec3{0, -1, 0}, 0.5, idCapsuleTop},
		{"bottom", at(0, -2.25, 0), vec3{0, 1, 0}, -0.25, idCapsuleBottom},
	}
	for _, tt := range tests {
		var m manifold
		collide(sphereS(1), tt.at, c, at(0, 0, 0), 1, &m)
		checkManifold(t, &m, 1)
		if m.n != 1 || m.normal != tt.normal || m.pts[0].sep != tt.sep || m.pts[0].id != tt.id {
			t.Errorf("%s: %+v", tt.name, m)
		}
	}
	// Lying along X (turned 90° about Z): the sphere above its middle.
	var m manifold
	q := axisAngle(vec3{0, 0, 1}, 90)
	collide(sphereS(1), at(0.3, 2, 0), c, turned(at(0, 0, 0), q), 0, &m)
	if m.n != 0 { // 2 - 1 - 0.5 = 0.5 > margin 0
		t.Fatalf("0.5 apart, margin 0: %+v", m)
	}
	collide(sphereS(1), at(0.3, 1.25, 0), c, turned(at(0, 0, 0), q), 0, &m)
	if m.n != 1 || !approxV(m.normal, vec3{0, -1, 0}, 1e-6) || !approx(m.pts[0].sep, -0.25, 1e-6) ||
		!approxV(m.pts[0].p, vec3{0.3, 0.375, 0}, 1e-6) {
		t.Fatalf("lying: %+v", m)
	}
	// The centre on the axis: finite, sideways.
	collide(sphereS(1), at(0, 0.5, 0), c, at(0, 0, 0), 0, &m)
	checkManifold(t, &m, 0)
	if m.n != 1 || m.normal.y != 0 || m.pts[0].sep != -1.5 {
		t.Fatalf("on the axis: %+v", m)
	}
}

func TestSphereBox(t *testing.T) {
	b := boxS(1, 2, 3)
	tests := []struct {
		name   string
		at     vec3
		r      float32
		normal vec3
		sep    float32
		point  vec3
	}{
		{"face", vec3{3, 0, 0}, 1, vec3{-1, 0, 0}, 1, vec3{1.5, 0, 0}},
		{"face below", vec3{0.5, -2.5, 1}, 1, vec3{0, 1, 0}, -0.5, vec3{0.5, -1.75, 1}},
		{"corner", vec3{2, 3, 4}, 1, vec3{-1, -1, -1}, float32(math.Sqrt(3)) - 1, vec3{}},
		{"inside", vec3{0.5, 0, 0}, 0.25, vec3{-1, 0, 0}, -0.75, vec3{0.625, 0, 0}},
		{"inside -z", vec3{0, 0, -2.5}, 0.25, vec3{0, 0, 1}, -0.75, vec3{0, 0, -2.625}},
	}
	for _, tt := range tests {
		var m manifold
		collide(sphereS(tt.r), pose{tt.at, identity}, b, at(0, 0, 0), 1, &m)
		checkManifold(t, &m, 1)
		n, _ := tt.normal.normalize()
		if m.n != 1 || !approxV(m.normal, n, 1e-6) || !approx(m.pts[0].sep, tt.sep, 1e-6) {
			t.Errorf("%s: %+v", tt.name, m)
		}
		if tt.point != (vec3{}) && !approxV(m.pts[0].p, tt.point, 1e-6) {
			t.Errorf("%s: point %v, want %v", tt.name, m.pts[0].p, tt.point)
		}
	}
	// The same, box turned 90° about Y and moved: its X is the world's -Z.
	var m manifold
	q := axisAngle(vec3{0, 1, 0}, 90)
	collide(sphereS(1), at(10, 0, -3), b, turned(at(10, 0, 0), q), 1, &m)
	if m.n != 1 || !approxV(m.normal, vec3{0, 0, 1}, 1e-6) || !approx(m.pts[0].sep, 1, 1e-6) {
		t.Fatalf("turned: %+v", m)
	}
	// ids follow the region.
	var m2 manifold
	collide(sphereS(1), at(3, 0.1, 0), b, at(0, 0, 0), 1, &m)
	collide(sphereS(1), at(3, 0.2, 0.1), b, at(0, 0, 0), 1, &m2)
	if m.pts[0].id != m2.pts[0].id {
		t.Fatalf("same face, ids %d %d", m.pts[0].id, m2.pts[0].id)
	}
	collide(sphereS(1), at(1.5, 2.5, 0), b, at(0, 0, 0), 1, &m2)
	if m.pts[0].id == m2.pts[0].id {
		t.Fatalf("face and edge share id %d", m.pts[0].id)
	}
}

func TestCapsuleCapsule(t *testing.T) {
	a := capsuleS(0.5, 1)
	var m manifold
	// Crossed: b along X, 1.5 above a's middle on Z.
	qx := axisAngle(vec3{0, 0, 1}, 90)
	collide(a, at(0, 0, 0), a, turned(at(0, 0.25, 1.5), qx), 1, &m)
	checkManifold(t, &m, 1)
	if m.n != 1 || !approxV(m.normal, vec3{0, 0, 1}, 1e-6) || !approx(m.pts[0].sep, 0.5, 1e-6) ||
		!approxV(m.pts[0].p, vec3{0, 0.25, 0.75}, 1e-6) {
		t.Fatalf("crossed: %+v", m)
	}
	// Parallel side by side, overlapping on y in [-0.5, 1]: two points.
	collide(a, at(0, 0, 0), a, at(0.9, 0.5, 0), 0, &m)
	checkManifold(t, &m, 0)
	if m.n != 2 || m.normal != (vec3{1, 0, 0}) || ids(&m)[0] != 1 || ids(&m)[1] != 2 {
		t.Fatalf("parallel: %+v", m)
	}
	for k, y := range []float32{-0.5, 1} {
		if !approx(m.pts[k].sep, -0.1, 1e-6) || !approxV(m.pts[k].p, vec3{0.45, y, 0}, 1e-6) {
			t.Fatalf("parallel point %d: %+v", k, m.pts[k])
		}
	}
	// End to end: one point.
	collide(a, at(0, 0, 0), a, at(0, 2.9, 0), 0, &m)
	if m.n != 1 || m.normal != (vec3{0, 1, 0}) || !approx(m.pts[0].sep, -0.1, 1e-6) {
		t.Fatalf("end to end: %+v", m)
	}
	// Coincident: finite, some sideways normal.
	collide(a, at(1, 2, 3), a, at(1, 2, 3), 0, &m)
	checkManifold(t, &m, 0)
	if m.n == 0 || m.normal.y != 0 {
		t.Fatalf("coincident: %+v", m)
	}
	// Crossing axes (they intersect): along the common perpendicular.
	collide(a, at(0, 0, 0), a, turned(at(0, 0, 0.25), qx), 0, &m)
	checkManifold(t, &m, 0)
	if m.n != 1 || !approxV(m.normal, vec3{0, 0, 1}, 1e-6) {
		t.Fatalf("intersecting axes: %+v", m)
	}
}

func TestCapsuleBox(t *testing.T) {
	floor := boxS(2, 0.5, 2)
	lying := axisAngle(vec3{0, 0, 1}, 90) // the capsule's axis along X
	var m manifold
	// Lying on the top face, 1 cm in: two points at the axis's ends.
	collide(capsuleS(0.25, 1), turned(at(0, 0.74, 0), lying), floor, at(0, 0, 0), 0.02, &m)
	checkManifold(t, &m, 0.02)
	if m.n != 2 || !approxV(m.normal, vec3{0, -1, 0}, 1e-6) {
		t.Fatalf("lying: %+v", m)
	}
	for k := range 2 {
		if !approx(m.pts[k].sep, -0.01, 1e-5) || !approx(abs(m.pts[k].p.x), 1, 1e-5) || !approx(m.pts[k].p.y, 0.495, 1e-5) {
			t.Fatalf("lying point %d: %+v", k, m.pts[k])
		}
	}
	lyingIDs := ids(&m)
	// Moved a little and turned a little: same features, same ids.
	q := axisAngle(vec3{0, 1, 0}, 3).mul(lying)
	collide(capsuleS(0.25, 1), turned(at(0.05, 0.745, -0.1), q), floor, at(0, 0, 0), 0.02, &m)
	if m.n != 2 || !slices.Equal(ids(&m), lyingIDs) {
		t.Fatalf("moved: %+v, ids %v want %v", m, ids(&m), lyingIDs)
	}
	// Hanging over the edge (x from 1.5 to 3.5): one end clipped at x=2.
	collide(capsuleS(0.25, 1), turned(at(2.5, 0.74, 0), lying), floor, at(0, 0, 0), 0.02, &m)
	checkManifold(t, &m, 0.02)
	if m.n != 2 || !approx(min(m.pts[0].p.x, m.pts[1].p.x), 1.5, 1e-5) || !approx(max(m.pts[0].p.x, m.pts[1].p.x), 2, 1e-5) {
		t.Fatalf("over the edge: %+v", m)
	}
	// Standing: one point under the lower end.
	collide(capsuleS(0.25, 1), at(0.5, 1.74, 0.5), floor, at(0, 0, 0), 0.02, &m)
	checkManifold(t, &m, 0.02)
	if m.n != 1 || !approxV(m.normal, vec3{0, -1, 0}, 1e-6) || !approx(m.pts[0].sep, -0.01, 1e-5) ||
		!approxV(m.pts[0].p, vec3{0.5, 0.495, 0.5}, 1e-5) {
		t.Fatalf("standing: %+v", m)
	}
	// Across the top edge of a unit box (axis along Z, beside the corner
	// edge x=1, y=1): one point, diagonal normal.
	cube := boxS(1, 1, 1)
	alongZ := axisAngle(vec3{1, 0, 0}, 90)
	collide(capsuleS(0.5, 2), turned(at(1.5, 1.5, 0), alongZ), cube, at(0, 0, 0), 0.3, &m)
	checkManifold(t, &m, 0.3)
	want := float32(math.Sqrt(0.5)) - 0.5
	if m.n != 1 || !approxV(m.normal, vec3{-float32(math.Sqrt(0.5)), -float32(math.Sqrt(0.5)), 0}, 1e-5) ||
		!approx(m.pts[0].sep, want, 1e-5) {
		t.Fatalf("edge: %+v", m)
	}
	// Axis through the box: finite, pushed out the nearest way (+Y face, 0.2
	// below the top: depth 0.2 + radius).
	collide(capsuleS(0.25, 3), turned(at(0, 0.8, 0.3), lying), cube, at(0, 0, 0), 0, &m)
	checkManifold(t, &m, 0)
	if m.n == 0 || !approxV(m.normal, vec3{0, -1, 0}, 1e-6) || !approx(minSep(&m), -0.45, 1e-5) {
		t.Fatalf("through: %+v", m)
	}
	// Axis diagonal through the box's centre: finite.
	collide(capsuleS(0.25, 3), turned(at(0, 0, 0), axisAngle(vec3{1, 1, 0}, 60)), cube, at(0, 0, 0), 0, &m)
	checkManifold(t, &m, 0)
	if m.n == 0 {
		t.Fatalf("through the centre: no contact")
	}
}

// TestCapsuleBoxDistance compares the separation of capsule–box pairs that
// do not touch with the distance found by sampling the capsule's axis.
func TestCapsuleBoxDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := boxS(1, 0.5, 2)
	c := capsuleS(0.3, 1)
	checked := 0
	for range 2000 {
		pa := pose{vec3{rng.Float32()*8 - 4, rng.Float32()*8 - 4, rng.Float32()*8 - 4}, randQuat(rng)}
		pb := pose{vec3{}, randQuat(rng)}
		var m manifold
		collide(c, pa, b, pb, 10, &m)
		checkManifold(t, &m, 10)
		// Sampled distance from the axis to the box.
		p0, p1 := capsuleAxis(c, pa)
		best := float32(math.Inf(1))
		for k := 0; k <= 1000; k++ {
			x := pb.unapply(p0.addScaled(p1.sub(p0), float32(k)/1000))
			y := x.max(b.half.neg()).min(b.half)
			best = min(best, x.sub(y).length())
		}
		if best == 0 {
			continue
		}
		checked++
		if m.n == 0 || !approx(minSep(&m), best-c.radius, 2e-3) {
			t.Fatalf("pose %+v: separation %v, sampled %v (%+v)", pa, minSep(&m), best-c.radius, m)
		}
		// The normal points from the capsule to the box.
		if m.normal.dot(pb.p.sub(pa.p)) < -1e-3 && minSep(&m) > 0 {
			t.Fatalf("pose %+v: normal %v points away", pa, m.normal)
		}
	}
	if checked < 500 {
		t.Fatalf("only %d apart", checked)
	}
}

func randQuat(rng *rand.Rand) quat {
	q := quat{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}
	return q.normalize()
}

func TestBoxBoxResting(t *testing.T) {
	floor := boxS(2, 0.5, 2)
	cube := boxS(0.5, 0.5, 0.5)
	var m manifold
	collide(floor, at(0, 0, 0), cube, at(0, 0.99, 0), 0.02, &m)
	checkManifold(t, &m, 0.02)
	if m.n != 4 || m.normal != (vec3{0, 1, 0}) {
		t.Fatalf("resting: %+v", m)
	}
	for _, p := range m.pts[:m.n] {
		if !approx(p.sep, -0.01, 1e-6) || !approx(abs(p.p.x), 0.5, 1e-6) || !approx(abs(p.p.z), 0.5, 1e-6) || !approx(p.p.y, 0.495, 1e-6) {
			t.Fatalf("resting point %+v", p)
		}
	}
	rest := ids(&m)
	if len(slices.Compact(slices.Clone(rest))) != 4 {
		t.Fatalf("ids not distinct: %v", rest)
	}
	// A little moved, turned and tilted: the same four ids.
	for _, q := range []quat{axisAngle(vec3{0, 1, 0}, 5), axisAngle(vec3{1, 0, 0}, 0.3), axisAngle(vec3{1, 0, 1}, -0.2)} {
		collide(floor, at(0, 0, 0), cube, turned(at(0.1, 0.99, -0.05), q), 0.02, &m)
		checkManifold(t, &m, 0.02)
		if m.n != 4 || !slices.Equal(ids(&m), rest) {
			t.Fatalf("turned %v: %+v, ids %v want %v", q, m, ids(&m), rest)
		}
	}
	// The same with the cube as A: normal down, same points.
	collide(cube, at(0, 0.99, 0), floor, at(0, 0, 0), 0.02, &m)
	checkManifold(t, &m, 0.02)
	if m.n != 4 || m.normal != (vec3{0, -1, 0}) || !approx(minSep(&m), -0.01, 1e-6) {
		t.Fatalf("swapped: %+v", m)
	}
	// Tilted 10° about X: only the lower edge's two corners within margin;
	// they are the same corners on the same face, so they keep their ids.
	collide(floor, at(0, 0, 0), cube, turned(at(0, 1.08, 0), axisAngle(vec3{1, 0, 0}, 10)), 0.02, &m)
	checkManifold(t, &m, 0.02)
	if m.n != 2 || !slices.Contains(rest, m.pts[0].id) || !slices.Contains(rest, m.pts[1].id) {
		t.Fatalf("tilted: %+v, ids %v, resting %v", m, ids(&m), rest)
	}
	// Rolled onto another face (90° about X): other features, other ids.
	collide(floor, at(0, 0, 0), cube, turned(at(0, 0.99, 0), axisAngle(vec3{1, 0, 0}, 90)), 0.02, &m)
	checkManifold(t, &m, 0.02)
	if m.n != 4 {
		t.Fatalf("rolled: %+v", m)
	}
	for _, id := range ids(&m) {
		if slices.Contains(rest, id) {
			t.Fatalf("rolled: id %d also resting (%v, %v)", id, ids(&m), rest)
		}
	}
	// Hanging over the floor's edge: clipped at x = 2.
	collide(floor, at(0, 0, 0), cube, at(1.75, 0.99, 0), 0.02, &m)
	checkManifold(t, &m, 0.02)
	if m.n != 4 {
		t.Fatalf("over the edge: %+v", m)
	}
	xs := []float32{}
	for _, p := range m.pts[:m.n] {
		xs = append(xs, p.p.x)
	}
	slices.Sort(xs)
	if !slices.Equal(xs, []float32{1.25, 1.25, 2, 2}) {
		t.Fatalf("over the edge xs %v", xs)
	}
	// The two at the side are where the cube's edges cross the floor's
	// side plane: new ids; the two inside are resting corners.
	for _, p := range m.pts[:m.n] {
		if (p.p.x == 2) == slices.Contains(rest, p.id) {
			t.Fatalf("over the edge: %+v (resting ids %v)", p, rest)
		}
	}
}

// TestBoxBoxFlushIDs: a cube resting flush on an equal cube keeps its four
// corner ids while it drifts sideways by less than the clip slop (the
// solver keeps its warm start); beyond it, the corners past the side are
// clipped and new points appear.
func TestBoxBoxFlushIDs(t *testing.T) {
	cube := boxS(0.5, 0.5, 0.5)
	var m manifold
	collide(cube, at(0, 0, 0), cube, at(0, 0.99, 0), 0.02, &m)
	rest := ids(&m)
	if m.n != 4 {
		t.Fatalf("flush: %+v", m)
	}
	for _, d := range []float32{1e-6, 1e-4, 0.003} {
		collide(cube, at(0, 0, 0), cube, turned(at(d, 0.99, -d), axisAngle(vec3{0, 1, 0}, 0.1)), 0.02, &m)
		if m.n != 4 || !slices.Equal(ids(&m), rest) {
			t.Fatalf("drift %v: ids %v, want %v", d, ids(&m), rest)
		}
	}
	collide(cube, at(0, 0, 0), cube, at(0.01, 0.99, 0), 0.02, &m)
	if m.n != 4 || slices.Equal(ids(&m), rest) {
		t.Fatalf("drift 1 cm: %+v", m)
	}
}

func TestBoxBoxReduce(t *testing.T) {
	// Two equal cubes, the top one turned 45° about Y: an octagon, reduced
	// to 4 points spanning it.
	cube := boxS(0.5, 0.5, 0.5)
	var m manifold
	collide(cube, at(0, 0, 0), cube, turned(at(0, 0.99, 0), axisAngle(vec3{0, 1, 0}, 45)), 0.02, &m)
	checkManifold(t, &m, 0.02)
	if m.n != 4 || m.normal != (vec3{0, 1, 0}) {
		t.Fatalf("octagon: %+v", m)
	}
	// The four points span at least half the octagon's area (0.83).
	p := m.pts
	area := func(a, b, c vec3) float32 { return abs(b.sub(a).cross(c.sub(a)).y) / 2 }
	// Sort around the centre to get a convex quad.
	order := []int{0, 1, 2, 3}
	slices.SortFunc(order, func(i, j int) int {
		ai := math.Atan2(float64(p[i].p.z), float64(p[i].p.x))
		aj := math.Atan2(float64(p[j].p.z), float64(p[j].p.x))
		return int(math.Copysign(1, ai-aj))
	})
	q := [4]vec3{p[order[0]].p, p[order[1]].p, p[order[2]].p, p[order[3]].p}
	if a := area(q[0], q[1], q[2]) + area(q[0], q[2], q[3]); a < 0.5 {
		t.Fatalf("reduced area %v: %+v", a, m)
	}
	// Deterministic: the same again.
	var m2 manifold
	collide(cube, at(0, 0, 0), cube, turned(at(0, 0.99, 0), axisAngle(vec3{0, 1, 0}, 45)), 0.02, &m2)
	if m2 != m {
		t.Fatalf("second run differs")
	}
}

func TestBoxBoxEdge(t *testing.T) {
	// A's top is its edge along Z (turned 45° about Z), B's bottom its edge
	// along X (turned 45° about X); they cross 1 cm deep.
	cube := boxS(1, 1, 1)
	r2 := float32(math.Sqrt2)
	pa := turned(at(0, 0, 0), axisAngle(vec3{0, 0, 1}, 45))
	pb := turned(at(0, 2*r2-0.01, 0), axisAngle(vec3{1, 0, 0}, 45))
	var m manifold
	collide(cube, pa, cube, pb, 0.02, &m)
	checkManifold(t, &m, 0.02)
	if m.n != 1 || !approxV(m.normal, vec3{0, 1, 0}, 1e-5) || !approx(m.pts[0].sep, -0.01, 1e-5) ||
		!approxV(m.pts[0].p, vec3{0, r2 - 0.005, 0}, 1e-5) || m.pts[0].id&idEdgeEdge == 0 {
		t.Fatalf("edge-edge: %+v", m)
	}
	id := m.pts[0].id
	// Slid along both edges: the same edges, the same id.
	pb.p = pb.p.add(vec3{0.2, 0, -0.3})
	collide(cube, pa, cube, pb, 0.02, &m)
	if m.n != 1 || m.pts[0].id != id || !approxV(m.pts[0].p, vec3{0, r2 - 0.005, -0.3}, 1e-5) {
		t.Fatalf("slid: %+v", m)
	}
	// Swapped: opposite normal, same separation.
	var s manifold
	collide(cube, pb, cube, pa, 0.02, &s)
	if s.n != 1 || !approxV(s.normal, m.normal.neg(), 1e-6) || !approx(s.pts[0].sep, m.pts[0].sep, 1e-6) {
		t.Fatalf("swapped: %+v vs %+v", s, m)
	}
}

func TestBoxBoxSpeculative(t *testing.T) {
	cube := boxS(0.5, 0.5, 0.5)
	var m manifold
	collide(cube, at(0, 0, 0), cube, at(0.2, 1.01, 0.1), 0.02, &m)
	checkManifold(t, &m, 0.02)
	if m.n != 4 || !approx(minSep(&m), 0.01, 1e-6) {
		t.Fatalf("1 cm apart, margin 2 cm: %+v", m)
	}
	collide(cube, at(0, 0, 0), cube, at(0.2, 1.01, 0.1), 0.005, &m)
	if m.n != 0 {
		t.Fatalf("1 cm apart, margin 5 mm: %+v", m)
	}
	collide(cube, at(0, 0, 0), cube, at(3, 0, 0), 0.02, &m)
	if m.n != 0 {
		t.Fatalf("far: %+v", m)
	}
}

func TestBoxBoxDegenerate(t *testing.T) {
	cube := boxS(0.5, 0.5, 0.5)
	var m manifold
	for _, pb := range []pose{at(0, 0, 0), turned(at(0, 0, 0), axisAngle(vec3{1, 1, 1}, 30)), at(1, 0, 0), at(0, 0, 1e-7)} {
		collide(cube, at(0, 0, 0), cube, pb, 0.02, &m)
		checkManifold(t, &m, 0.02)
		if m.n == 0 {
			t.Fatalf("%+v: no contact", pb)
		}
	}
}

// TestSwapSymmetry: the same pair taken the other way round gives the
// opposite normal and the same deepest separation.
func TestSwapSymmetry(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := []*shape{sphereS(0.5), capsuleS(0.3, 0.7), boxS(0.5, 0.3, 0.8)}
	for range 3000 {
		a := shapes[rng.IntN(3)]
		pa := pose{vec3{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}, randQuat(rng)}
		pb := pose{vec3{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}, randQuat(rng)}
		var m, s manifold
		collide(a, pa, a, pb, 0.05, &m)
		collide(a, pb, a, pa, 0.05, &s)
		checkManifold(t, &m, 0.05)
		checkManifold(t, &s, 0.05)
		if (m.n == 0) != (s.n == 0) {
			t.Fatalf("%v %+v %+v: %+v vs %+v", a.kind, pa, pb, m, s)
		}
		if m.n == 0 {
			continue
		}
		if a.kind == Box {
			// Near ties between axes may go either way (the first box's
			// faces are preferred): the depths agree within the tie rule.
			if !approx(minSep(&m), minSep(&s), 2e-3+0.03*abs(minSep(&m))) {
				t.Fatalf("%+v %+v:\n%+v\n%+v", pa, pb, m, s)
			}
			continue
		}
		if !approxV(m.normal, s.normal.neg(), 1e-3) || !approx(minSep(&m), minSep(&s), 1e-3) {
			t.Fatalf("%v %+v %+v:\n%+v\n%+v", a.kind, pa, pb, m, s)
		}
	}
}

// TestNormalAToB: pushing B along the normal by its depth separates it.
func TestNormalAToB(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	shapes := []*shape{sphereS(0.5), capsuleS(0.3, 0.7), boxS(0.5, 0.3, 0.8)}
	for range 3000 {
		i, j := rng.IntN(3), rng.IntN(3)
		if i > j {
			i, j = j, i
		}
		a, b := shapes[i], shapes[j]
		pa := pose{vec3{}, randQuat(rng)}
		pb := pose{vec3{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}, randQuat(rng)}
		var m manifold
		collide(a, pa, b, pb, 0, &m)
		checkManifold(t, &m, 0)
		if m.n == 0 {
			continue
		}
		moved := pose{pb.p.addScaled(m.normal, -minSep(&m)+0.01), pb.q}
		var after manifold
		collide(a, pa, b, moved, 0, &after)
		if after.n != 0 {
			t.Fatalf("%v-%v %+v %+v: %+v; pushed by the depth still %+v", a.kind, b.kind, pa, pb, m, after)
		}
	}
}

func TestCollideNoAllocs(t *testing.T) {
	shapes := []*shape{sphereS(0.5), capsuleS(0.3, 0.7), boxS(0.5, 0.5, 0.5)}
	pb := turned(at(0.1, 0.9, 0), axisAngle(vec3{0, 1, 0}, 45))
	var m manifold
	for i, a := range shapes {
		for _, b := range shapes[i:] {
			if n := testing.AllocsPerRun(100, func() { collide(a, at(0, 0, 0), b, pb, 0.02, &m) }); n != 0 {
				t.Errorf("%v-%v: %v allocations", a.kind, b.kind, n)
			}
		}
	}
}

// FuzzCollide feeds arbitrary finite sizes and poses: never NaN, never a
// panic, never more than maxPoints points, a unit normal.
func FuzzCollide(f *testing.F) {
	f.Add(uint8(2), uint8(2), float32(0.5), float32(0.5), float32(0.5), float32(1), float32(1), float32(1),
		float32(0), float32(0.99), float32(0), float32(0), float32(0), float32(0), float32(1), float32(0.02))
	f.Add(uint8(1), uint8(0), float32(0.3), float32(0), float32(0), float32(1), float32(0), float32(2),
		float32(0), float32(0), float32(0), float32(1), float32(1), float32(1), float32(1), float32(0))
	f.Fuzz(func(t *testing.T, ka, kb uint8, s0, s1, s2, s3, s4, s5, x, y, z, qx, qy, qz, qw, margin float32) {
		size := func(v float32) float32 {
			v = abs(v)
			if !finite(v) || v < minShapeSize {
				return minShapeSize
			}
			return min(v, maxShapeSize)
		}
		mk := func(k uint8, a, b, c float32) *shape {
			switch k % 3 {
			case 0:
				return sphereS(size(a))
			case 1:
				return capsuleS(size(a), size(b))
			}
			return boxS(size(a), size(b), size(c))
		}
		a, b := mk(ka, s0, s1, s2), mk(kb, s3, s4, s5)
		if a.kind > b.kind {
			a, b = b, a
		}
		coord := func(v float32) float32 {
			if !finite(v) {
				return 0
			}
			return clamp(v, -1e5, 1e5)
		}
		pb := pose{vec3{coord(x), coord(y), coord(z)}, quat{coord(qx), coord(qy), coord(qz), coord(qw)}.normalize()}
		pa := pose{vec3{coord(qz), coord(x), coord(qw)}, quat{coord(qw), coord(z), coord(y), coord(qx)}.normalize()}
		mg := clamp(coord(margin), 0, 1)
		var m manifold
		collide(a, pa, b, pb, mg, &m)
		checkManifold(t, &m, mg)
	})
}

func BenchmarkCollideBoxBox(b *testing.B) {
	cube := boxS(0.5, 0.5, 0.5)
	b.Run("resting", func(b *testing.B) {
		// A cube on another, a little off and turned: two side planes
		// clip.
		b.ReportAllocs()
		pa := turned(at(3, 0.5, 2), axisAngle(vec3{0, 1, 0}, 10))
		pb := turned(at(3.1, 1.49, 2.05), axisAngle(vec3{0, 1, 0}, 14))
		var m manifold
		for b.Loop() {
			collide(cube, pa, cube, pb, 0.02, &m)
		}
		if m.n != 4 {
			b.Fatalf("%d points", m.n)
		}
	})
	b.Run("floor", func(b *testing.B) {
		// A cube on a larger static box: no clipping.
		b.ReportAllocs()
		floor := boxS(8, 0.5, 8)
		pb := turned(at(3.1, 0.49, 2.05), axisAngle(vec3{0, 1, 0}, 14))
		var m manifold
		for b.Loop() {
			collide(floor, at(0, -0.5, 0), cube, pb, 0.02, &m)
		}
		if m.n != 4 {
			b.Fatalf("%d points", m.n)
		}
	})
	b.Run("tumbling", func(b *testing.B) {
		b.ReportAllocs()
		rng := rand.New(rand.NewPCG(7, 8))
		var poses [256][2]pose
		for k := range poses {
			poses[k][0] = pose{vec3{}, randQuat(rng)}
			poses[k][1] = pose{vec3{rng.Float32()*1.6 - 0.8, rng.Float32()*1.6 - 0.8, rng.Float32()*1.6 - 0.8}, randQuat(rng)}
		}
		var m manifold
		k := 0
		for b.Loop() {
			p := &poses[k&255]
			collide(cube, p[0], cube, p[1], 0.02, &m)
			k++
		}
	})
}

// TestCollideGolden hashes the exact bits of many contacts (every pair
// kind, random sizes and poses from a seeded generator, no trigonometry)
// against a pinned value, so a build that rounds differently (a fused
// multiply-add, a platform's math) fails here; scripts/crossarch.sh runs it
// on arm64, 386 and amd64-v3.
func TestCollideGolden(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	h := fnv.New64a()
	var buf []byte
	put := func(v float32) { buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v)) }
	size := func() float32 { return 0.1 + rng.Float32() }
	points := 0
	for range 20000 {
		kinds := [2]ShapeKind{ShapeKind(1 + rng.IntN(3)), ShapeKind(1 + rng.IntN(3))}
		if kinds[0] > kinds[1] {
			kinds[0], kinds[1] = kinds[1], kinds[0]
		}
		var s [2]shape
		for k := range 2 {
			s[k] = shape{kind: kinds[k], radius: size(), halfHeight: size(), half: vec3{size(), size(), size()}}
		}
		pa := pose{vec3{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}, randQuat(rng)}
		pb := pose{vec3{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}, randQuat(rng)}
		var m manifold
		collide(&s[0], pa, &s[1], pb, 0.02, &m)
		buf = append(buf[:0], byte(m.n))
		if m.n > 0 {
			put(m.normal.x)
			put(m.normal.y)
			put(m.normal.z)
		}
		for _, p := range m.pts[:m.n] {
			put(p.p.x)
			put(p.p.y)
			put(p.p.z)
			put(p.sep)
			buf = binary.LittleEndian.AppendUint32(buf, p.id)
		}
		points += m.n
		h.Write(buf)
	}
	const want = 0x00c5e79cf812c6b3
	if got := h.Sum64(); got != want {
		t.Errorf("hash of %d contact points %#016x, want %#016x", points, got, uint64(want))
	}
}

// TestNoMissedContact: whenever a corner of a box, or a point of a
// capsule's axis or a sphere's centre, lies inside the box A, the pair has
// a contact with a negative separation.
func TestNoMissedContact(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	a := boxS(0.5, 0.3, 0.8)
	others := []*shape{sphereS(0.2), capsuleS(0.2, 0.6), boxS(0.4, 0.6, 0.2)}
	checked := 0
	for range 20000 {
		b := others[rng.IntN(3)]
		pa := pose{vec3{}, randQuat(rng)}
		pb := pose{vec3{rng.Float32()*3 - 1.5, rng.Float32()*3 - 1.5, rng.Float32()*3 - 1.5}, randQuat(rng)}
		var probes []vec3
		switch b.kind {
		case Sphere:
			probes = append(probes, pb.p)
		case Capsule:
			p0, p1 := capsuleAxis(b, pb)
			for k := range 11 {
				probes = append(probes, p0.addScaled(p1.sub(p0), float32(k)/10))
			}
		case Box:
			for k := range 8 {
				probes = append(probes, pb.apply(vec3{sgn(k&1 == 0) * b.half.x, sgn(k&2 == 0) * b.half.y, sgn(k&4 == 0) * b.half.z}))
			}
		}
		inside := false
		for _, p := range probes {
			l := pa.unapply(p).abs()
			if l.x < a.half.x-1e-3 && l.y < a.half.y-1e-3 && l.z < a.half.z-1e-3 {
				inside = true
			}
		}
		if !inside {
			continue
		}
		checked++
		var m manifold
		if b.kind == Box {
			collide(a, pa, b, pb, 0.01, &m)
		} else {
			collide(b, pb, a, pa, 0.01, &m)
		}
		checkManifold(t, &m, 0.01)
		if m.n == 0 || minSep(&m) >= 0 {
			t.Fatalf("%v at %+v inside the box at %+v: %+v", b.kind, pb, pa, m)
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d overlapping", checked)
	}
}
