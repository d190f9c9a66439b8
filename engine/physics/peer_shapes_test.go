package physics

// Peers' tests of the shapes of issue 34 (convex hulls, cylinders, height
// fields), ported: each names its source (repository, file, test case)
// and keeps the peer's expected values and tolerances unless a comment
// says why not. Parts that test what Nebula has not got (Jolt's convex
// radius, inner radius, flat hulls, height field holes, materials and
// sample quantisation) are left out, and say so.

import (
	"math"
	"math/rand"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// joltHullTolerance is cTolerance of Jolt's ConvexHullBuilderTest.cpp,
// which is also NewConvexHull's tolerance (hullTolerance).
const joltHullTolerance = 1e-3

// hullHasFace reports whether h has a face whose corners are exactly the
// points want (the hull's frame is the points' less the centre of mass).
func hullHasFace(h *Hull, want []mgl32.Vec3) bool {
	com := toVec3(h.CenterOfMass())
	for i := range h.faces {
		f := h.face(i)
		if len(f) != len(want) {
			continue
		}
		all := true
		for _, w := range want {
			found := false
			for _, v := range f {
				if approxV(h.verts[v], toVec3(w).sub(com), 1e-5) {
					found = true
				}
			}
			all = all && found
		}
		if all {
			return true
		}
	}
	return false
}

// hullMaxError returns how far the farthest of pts lies outside h.
func hullMaxError(h *Hull, pts []mgl32.Vec3) float32 {
	com := toVec3(h.CenterOfMass())
	worst := float32(0)
	for _, p := range pts {
		q := toVec3(p).sub(com)
		out := float32(-maxFloat32)
		for i := range h.faces {
			out = max(out, q.dot(h.faces[i].normal)-h.faces[i].offset)
		}
		worst = max(worst, out)
	}
	return worst
}

// Jolt: UnitTests/Geometry/ConvexHullBuilderTest.cpp, TestDegenerate.
// Jolt's TooFewPoints and Degenerate are both ErrFlatHull here.
func TestJoltConvexHullBuilderDegenerate(t *testing.T) {
	const tol = joltHullTolerance
	pts := []mgl32.Vec3{{1, 2, 3}}
	for _, p := range []mgl32.Vec3{{1 + 0.5*tol, 2, 3}, {1, 2 + 0.5*tol, 3}, {1, 2, 3 + 0.5*tol}} {
		if _, err := NewConvexHull(pts, MaxHullVertices); err != ErrFlatHull {
			t.Errorf("%d points: %v, want ErrFlatHull", len(pts), err)
		}
		pts = append(pts, p)
	}
	if _, err := NewConvexHull(pts, MaxHullVertices); err != ErrFlatHull {
		t.Errorf("4 points within the tolerance: %v, want ErrFlatHull", err)
	}
	var line []mgl32.Vec3
	for v := float32(0); v < 1.01; v += 0.1 {
		line = append(line, mgl32.Vec3{v, 0, 0})
	}
	if _, err := NewConvexHull(line, MaxHullVertices); err != ErrFlatHull {
		t.Errorf("a line: %v, want ErrFlatHull", err)
	}
}

// Jolt: UnitTests/Geometry/ConvexHullBuilderTest.cpp, Test3DHull. (Its
// Test2DHull builds flat hulls, which NewConvexHull refuses: not ported.)
func TestJoltConvexHullBuilder3DHull(t *testing.T) {
	// A cube with lots of interior points.
	var pts []mgl32.Vec3
	for x := range 10 {
		for y := range 10 {
			for z := range 10 {
				pts = append(pts, mgl32.Vec3{0.1 * float32(x), 1.0 + 0.2*float32(y), 2.0 * 0.3 * float32(z)})
			}
		}
	}
	h := mustHull(t, pts, MaxHullVertices)
	if len(h.verts) != 8 || h.Faces() != 6 {
		t.Errorf("cube: %d vertices, %d faces, want 8 and 6", len(h.verts), h.Faces())
	}
	for _, f := range [][4]int{{0, 9, 99, 90}, {0, 90, 990, 900}, {900, 990, 999, 909}, {9, 909, 999, 99}, {90, 99, 999, 990}, {0, 900, 909, 9}} {
		want := []mgl32.Vec3{pts[f[0]], pts[f[1]], pts[f[2]], pts[f[3]]}
		if !hullHasFace(h, want) {
			t.Errorf("cube: no face %v", f)
		}
	}
	// A ball with lots of interior points; the two ends have 10 points
	// each at the same place.
	pts = pts[:0]
	for r := range 10 {
		for phi := range 10 {
			for theta := range 10 {
				fr := 2.0 * float64(r)
				fphi := 2.0 * math.Pi * float64(phi) / 10
				ftheta := math.Pi * float64(theta) / 9
				// Jolt's Vec3::sUnitSpherical(theta, phi).
				st, ct := math.Sincos(ftheta)
				sp, cp := math.Sincos(fphi)
				pts = append(pts, mgl32.Vec3{float32(fr * st * cp), float32(fr * st * sp), float32(fr * ct)})
			}
		}
	}
	h = mustHull(t, pts, MaxHullVertices)
	if len(h.verts) != 82 {
		t.Errorf("ball: %d vertices, want 82", len(h.verts))
	}
	if e := hullMaxError(h, pts); e >= joltHullTolerance {
		t.Errorf("ball: a point %v outside the hull, want under %v", e, joltHullTolerance)
	}
}

// Jolt: UnitTests/Geometry/ConvexHullBuilderTest.cpp, TestRandomHull: the
// same recipe of random points (clusters, points on lines between them),
// drawn from Go's generator with Jolt's seed, so not Jolt's numbers; the
// bound is Jolt's 1.2 × tolerance.
func TestJoltConvexHullBuilderRandomHull(t *testing.T) {
	const tol = joltHullTolerance
	rng := rand.New(rand.NewSource(0x1ee7c0de))
	uni := func(lo, hi float64) float32 { return float32(lo + (hi-lo)*rng.Float64()) }
	unit := func() mgl32.Vec3 { // Vec3::sRandom: a random unit vector
		for {
			v := mgl32.Vec3{uni(-1, 1), uni(-1, 1), uni(-1, 1)}
			if l := v.Len(); l > 0.1 && l <= 1 {
				return v.Mul(1 / l)
			}
		}
	}
	for range 100 {
		start := uni(0.1, 0.5)
		span := uni(0.1, 2)
		scale := mgl32.Vec3{uni(0.1, 1), uni(0.1, 1), uni(0.1, 1)}
		var pts []mgl32.Vec3
		for range 100 {
			u := unit()
			p1 := mgl32.Vec3{u[0] * scale[0], u[1] * scale[1], u[2] * scale[2]}.Mul(uni(float64(start), float64(start+span)))
			pts = append(pts, p1)
			pts = append(pts, p1.Add(unit().Mul(tol*uni(0, 2))))
			f := uni(0, 1)
			p3 := p1.Mul(f).Add(pts[rng.Intn(len(pts))].Mul(1 - f))
			pts = append(pts, p3)
			pts = append(pts, p3.Add(unit().Mul(tol*uni(0, 2))))
		}
		h, err := NewConvexHull(pts, MaxHullVertices)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.verts) < MaxHullVertices {
			if e := hullMaxError(h, pts); e >= 1.2*tol {
				t.Errorf("a point %v outside the hull, want under %v (%d vertices)", e, 1.2*tol, len(h.verts))
			}
		}
		checkHull(t, h)
	}
}

// Jolt: UnitTests/Physics/ShapeTests.cpp, TestConvexHullShape. (Its
// inner radius check has no counterpart here.)
func TestJoltShapeConvexHullShape(t *testing.T) {
	const density = 1.5
	box := []mgl32.Vec3{{5, 6, 7}, {5, 6, 14}, {5, 12, 7}, {5, 12, 14}, {10, 6, 7}, {10, 6, 14}, {10, 12, 7}, {10, 12, 14}}
	h := mustHull(t, box, 0)
	if !nearVec(h.CenterOfMass(), mgl32.Vec3{7.5, 9, 10.5}, 1e-5) {
		t.Errorf("centre of mass %v", h.CenterOfMass())
	}
	tw := newTestWorld(t, DefaultConfig())
	id, _ := tw.s.AddConvexHull(h)
	d := NewBodyDef(Dynamic, HullShape(id))
	d.Density = density
	e := tw.add(d, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	b, _ := tw.s.Body(e)
	mass := float32(5 * 6 * 7 * density)
	if !nearF(float64(b.Mass), float64(mass), 1e-6) {
		t.Errorf("mass %v, want %v", b.Mass, mass)
	}
	// A solid box's inertia, m(b² + c²)/12 with full sizes (5, 6, 7).
	want := [3]float64{float64(mass) * (36 + 49) / 12, float64(mass) * (25 + 49) / 12, float64(mass) * (25 + 36) / 12}
	got := tensorOf(h, density)
	for i := range 3 {
		for j := range 3 {
			w := 0.0
			if i == j {
				w = want[i]
			}
			// Jolt's 1e-4 is absolute on moments of about 2,000 kg·m²,
			// finer than a float32's step there (2.4e-4): 1e-4 relative.
			if !nearF(float64(got[i][j]), w, 1e-4*want[0]) {
				t.Errorf("inertia[%d][%d] = %v, want %v", i, j, got[i][j], w)
			}
		}
	}
}

// tensorOf returns h's inertia tensor about its centre of mass at
// density, in the hull's frame: F diag(moments) Fᵀ.
func tensorOf(h *Hull, density float32) [3][3]float32 {
	r := h.frame.rotation()
	in := h.moments.scale(density)
	var out [3][3]float32
	rows := [3]vec3{r.r0, r.r1, r.r2}
	for i := range 3 {
		for j := range 3 {
			out[i][j] = rows[i].mul(in).dot(rows[j])
		}
	}
	return out
}

// Jolt: UnitTests/Physics/ShapeTests.cpp, TestCapsuleVsConvexHullInertia.
// Jolt samples the capsule's support points along its Vec3::sUnitSphere
// directions (symmetric under the flip of each axis); here along 242
// directions as symmetric: 24 longitudes on 10 latitudes, with the poles,
// none on the equator, where a capsule's support point is ambiguous, but
// 1° either side of it (the hull keeps at most MaxHullVertices = 256).
func TestJoltShapeCapsuleVsConvexHullInertia(t *testing.T) {
	const hh, r, density = 5.0, 3.0, 7.0
	capsule := shapeOf(Shape{Kind: Capsule, Radius: r, HalfHeight: hh})
	cm, ci := capsule.massProperties(density)
	massCyl := 2 * hh * math.Pi * r * r * density
	massBall := 4.0 / 3.0 * math.Pi * r * r * r * density
	if !nearF(float64(cm), massCyl+massBall, 1e-6*float64(cm)) {
		t.Errorf("capsule mass %v, want %v", cm, massCyl+massBall)
	}
	c := convexOf(&capsule, pose{q: identity})
	var pts []mgl32.Vec3
	lats := []float64{0, 18, 36, 54, 72, 89, 91, 108, 126, 144, 162, 180}
	for _, lat := range lats {
		for j := range 24 {
			if (lat == 0 || lat == 180) && j > 0 {
				break // the poles once
			}
			st, ct := math.Sincos(lat * math.Pi / 180)
			sp, cp := math.Sincos(2 * math.Pi * float64(j) / 24)
			d := vec3{float32(st * cp), float32(ct), float32(st * sp)}
			pts = append(pts, fromVec3(c.support(d).addScaled(d, c.radius)))
		}
	}
	h := mustHull(t, pts, MaxHullVertices)
	hm := h.Volume() * density
	if e := (hm - cm) / cm; e <= -0.05 || e >= 0 {
		t.Errorf("hull mass %v against the capsule's %v: error %v, want in (-0.05, 0)", hm, cm, e)
	}
	got := tensorOf(h, density)
	want := [3]float32{ci.x, ci.y, ci.z}
	for i := range 3 {
		for j := range 3 {
			if i == j {
				if e := (got[i][i] - want[i]) / want[i]; e <= -0.05 || e >= 0 {
					t.Errorf("inertia[%d][%d] %v against %v: error %v, want in (-0.05, 0)", i, i, got[i][i], want[i], e)
				}
			} else if s := got[i][j] / hm; !nearF(float64(s), 0, 1e-3) {
				t.Errorf("inertia[%d][%d]/mass = %v, want 0 within 1e-3", i, j, s)
			}
		}
	}
}

// Jolt: UnitTests/Physics/ShapeTests.cpp, TestCylinderShape: a negative
// half height or radius is refused. (Its zero-sized cylinder with a convex
// radius is a ball; Nebula's cylinders have no convex radius: not ported.)
func TestJoltShapeCylinderShape(t *testing.T) {
	for _, s := range []Shape{{Kind: Cylinder, HalfHeight: -1, Radius: 1}, {Kind: Cylinder, HalfHeight: 1, Radius: -1}} {
		if err := s.validate(); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
}

// joltRayHelper is TestRayHelperInternal of Jolt's
// UnitTests/Physics/RayShapeTests.cpp, for the closest-hit cast (its
// first test function): rays before, into, through, from inside and
// after the surface points a and b, with Jolt's expected fractions and
// its tolerance 1e-5. Jolt casts relative to the centre of mass; so does
// a hull here (its frame is its centre of mass's).
func joltRayHelper(t *testing.T, s *shape, a, b vec3) {
	t.Helper()
	const none = maxFloat32
	check := func(o, d vec3, want float32) {
		t.Helper()
		f, _, ok := s.raycast(pose{q: identity}, o, d, 1)
		switch {
		case want == none && ok:
			t.Errorf("ray %v + t·%v: hit at %v, want none", o, d, f)
		case want != none && (!ok || !approx(f, want, 1e-5)):
			t.Errorf("ray %v + t·%v: %v %v, want a hit at %v", o, d, f, ok, want)
		}
	}
	for _, ends := range [2][2]vec3{{a, b}, {b, a}} {
		ha, hb := ends[0], ends[1]
		delta := hb.sub(ha)
		l1 := ha.addScaled(delta, -2)
		l2 := ha.addScaled(delta, -0.1)
		i1 := ha.addScaled(delta, 0.1)
		i2 := hb.addScaled(delta, -0.1)
		r1 := hb.addScaled(delta, 0.1)
		r2 := hb.addScaled(delta, 2)
		check(l1, l2.sub(l1), none)
		check(l2, vec3{}, none)
		check(l2, i1.sub(l2), 0.5)
		check(l2, r1.sub(l2), float32(0.1/1.2))
		check(i2, vec3{}, 0)
		check(i2, r1.sub(i2), 0)
		check(r1, r2.sub(l1), none)
	}
}

// Jolt: UnitTests/Physics/RayShapeTests.cpp, TestConvexHullShapeRay.
func TestJoltRayConvexHullShapeRay(t *testing.T) {
	box := []mgl32.Vec3{{-2, -4, -6}, {-2, -4, 7}, {-2, 5, -6}, {-2, 5, 7}, {3, -4, -6}, {3, -4, 7}, {3, 5, -6}, {3, 5, 7}}
	h := mustHull(t, box, 0)
	s := &shape{kind: ConvexHull, hull: h}
	com := toVec3(h.CenterOfMass())
	rel := func(x, y, z float32) vec3 { return vec3{x, y, z}.sub(com) }
	joltRayHelper(t, s, rel(-2, 0, 0), rel(3, 0, 0))
	joltRayHelper(t, s, rel(0, -4, 0), rel(0, 5, 0))
	joltRayHelper(t, s, rel(0, 0, -6), rel(0, 0, 7))
	// TestRayMiss: Jolt's RayCast has no length limit; maxT 1e6 here.
	for _, o := range []vec3{rel(-3, -5, 0), rel(-3, 0, 0), rel(-3, 6, 0)} {
		if f, _, ok := s.raycast(pose{q: identity}, o, vec3{0, 1, 0}, 1e6); ok {
			t.Errorf("miss from %v: hit at %v", o, f)
		}
	}
}

// Jolt: UnitTests/Physics/RayShapeTests.cpp, TestCylinderShapeRay
// (CylinderShape(4, 2): half height 4, radius 2).
func TestJoltRayCylinderShapeRay(t *testing.T) {
	s := &shape{kind: Cylinder, halfHeight: 4, radius: 2}
	joltRayHelper(t, s, vec3{-2, 0, 0}, vec3{2, 0, 0})
	joltRayHelper(t, s, vec3{0, -4, 0}, vec3{0, 4, 0})
	joltRayHelper(t, s, vec3{0, 0, -2}, vec3{0, 0, 2})
}

// joltHeightFieldRays is the ray part of sValidateGetPosition in Jolt's
// UnitTests/Physics/HeightFieldShapeTests.cpp: a ray from 100 (scaled)
// above each inner sample straight down meets the surface at the sample,
// within 1e-3. Jolt's offset is the body's position here, its X and Z
// scale the cell size, its Y scale multiplies the heights.
func joltHeightFieldRays(t *testing.T, n int, heights []float32, offset, scale mgl32.Vec3) {
	t.Helper()
	hs := make([]float32, len(heights))
	for i, h := range heights {
		hs[i] = h * scale[1]
	}
	hf, err := NewHeightField(n, n, hs, scale[0], scale[2])
	if err != nil {
		t.Fatal(err)
	}
	s := shape{kind: Mesh, mesh: hf.mesh}
	p := pose{toVec3(offset), identity}
	var stack []uint32
	for y := 1; y < n-1; y++ {
		for x := 1; x < n-1; x++ {
			o := toVec3(offset).add(toVec3(scale).mul(vec3{float32(x), 100, float32(y)}))
			d := vec3{0, float32(scale[1] * -200), 0}
			dir, l := d.normalize()
			f, _, ok := s.mesh.raycast(p, o, dir, l, &stack)
			want := toVec3(offset).add(toVec3(scale).mul(vec3{float32(x), heights[y*n+x], float32(y)}))
			if !ok || !approxV(o.addScaled(dir, f), want, 1e-3) {
				t.Fatalf("sample (%d, %d): hit %v at %v, want %v", x, y, ok, o.addScaled(dir, f), want)
			}
		}
	}
}

// Jolt: UnitTests/Physics/HeightFieldShapeTests.cpp, TestPlane. (Its
// holes, materials and 1-bit encoding have no counterpart here.)
func TestJoltHeightFieldPlane(t *testing.T) {
	h := make([]float32, 32*32)
	for i := range h {
		h[i] = 1
	}
	joltHeightFieldRays(t, 32, h, mgl32.Vec3{3, 5, 7}, mgl32.Vec3{9, 13, 17})
}

// Jolt: UnitTests/Physics/HeightFieldShapeTests.cpp, TestPlaneCloseToOrigin.
func TestJoltHeightFieldPlaneCloseToOrigin(t *testing.T) {
	h := make([]float32, 32*32)
	for i := range h {
		h[i] = 1e-6
	}
	joltHeightFieldRays(t, 32, h, mgl32.Vec3{}, mgl32.Vec3{1, 1, 1})
}

// Jolt: UnitTests/Physics/HeightFieldShapeTests.cpp, TestRandomHeightField:
// random heights in Jolt's [-5, 10] on a 32 × 32 grid with Jolt's offset
// and scale, drawn from Go's generator (Jolt's bits-per-sample loop tests its
// quantisation; heights are kept exactly here).
func TestJoltHeightFieldRandomHeightField(t *testing.T) {
	rng := rand.New(rand.NewSource(0x1ee7c0de))
	h := make([]float32, 32*32)
	for i := range h {
		h[i] = float32(-5 + 15*rng.Float64())
	}
	joltHeightFieldRays(t, 32, h, mgl32.Vec3{0.3, 0.5, 0.7}, mgl32.Vec3{1.1, 1.2, 1.3})
}

// Jolt: UnitTests/Physics/CollideShapeTests.cpp,
// TestCollideShapeSmallTriangleVsLargeBox: a small triangle nearly
// touching a large oriented box made as a hull does not collide with it
// (at a separation margin of 0).
func TestJoltCollideShapeSmallTriangleVsLargeBox(t *testing.T) {
	tri := convex{tri: [3]vec3{
		{-81.5637589, -126.987244, -146.771729},
		{-81.8749924, -127.270691, -146.544403},
		{-81.6972275, -127.383545, -146.773254},
	}}
	h := mustHull(t, []mgl32.Vec3{
		{125.932892, -374.712250, 364.192169},
		{319.492218, -73.2614441, 475.009613},
		{-122.277550, -152.200287, 192.441437},
		{71.2817841, 149.250519, 303.258881},
		{-77.8921967, -359.410797, 678.579712},
		{115.667137, -57.9600067, 789.397095},
		{-326.102631, -136.898834, 506.828949},
		{-132.543304, 164.551971, 617.646362},
	}, 0)
	s := shape{kind: ConvexHull, hull: h}
	c := convexOf(&s, pose{toVec3(h.CenterOfMass()), identity})
	var sc convexScratch
	var m manifold
	convexContact(&tri, &c, 0, &sc, &m)
	if m.n != 0 {
		t.Errorf("a contact: %+v", m)
	}
}

// Jolt: UnitTests/Physics/CollideShapeTests.cpp,
// TestCollideParallelTriangleVsCylinder: a triangle nearly parallel to a
// cylinder's side, a hair away from it, within a margin of 1 mm: a hit
// with a depth under 1e-4 and the normal along Z. (Jolt's cylinder has a
// convex radius of 0.02 that rounds its rims; the side is the same. Jolt
// asks the normal within 1e-6; float32 gives 1e-5 here.)
func TestJoltCollideParallelTriangleVsCylinder(t *testing.T) {
	cyl := shape{kind: Cylinder, halfHeight: 0.85, radius: 0.25}
	at := vec3{-42.8155518, -4.32299995, 12.1734285}
	// In the cylinder's frame, as the step meets a mesh's triangles; Jolt
	// passes the triangle with no active edge (0).
	var q meshQuery
	var m manifold
	q.convexTriangle(&cyl,
		vec3{-42.7954292, -0.647318780, 12.4227943}.sub(at),
		vec3{-29.9111290, -0.647318780, 12.4227943}.sub(at),
		vec3{-42.7954292, -4.86970234, 12.4227943}.sub(at), 0, 0.001, &m)
	if m.n == 0 {
		t.Fatal("no hit")
	}
	if d := -minSep(&m); d >= 1e-4 {
		t.Errorf("depth %v, want under 1e-4", d)
	}
	// Jolt's penetration axis points from the cylinder to the triangle;
	// convexTriangle's normal from the triangle to the cylinder.
	m.normal = m.normal.neg()
	if !approxV(m.normal, vec3{0, 0, 1}, 1e-5) {
		t.Errorf("normal %v, want +Z", m.normal)
	}
}

// Jolt: UnitTests/Physics/CollideShapeTests.cpp,
// BoxVsConvexHullNoConvexRadius: a box 0.5 mm above a hull box, both
// turning slowly about Y through a full turn, within a margin of 1 mm:
// every step a contact whose normal is -Y (box to hull, within 1e-3) and
// whose points are on the hull's top and the box's bottom (1e-3).
func TestJoltBoxVsConvexHullNoConvexRadius(t *testing.T) {
	const sepDist = 0.001
	const gap = 0.5 * sepDist
	const hh = 0.25
	box := shape{kind: Box, half: vec3{0.25, 0.75, 0.375}}
	h := mustHull(t, []mgl32.Vec3{
		{-2.5, -hh, -1.5}, {-2.5, hh, -1.5}, {2.5, -hh, -1.5}, {-2.5, -hh, 1.5},
		{-2.5, hh, 1.5}, {2.5, hh, -1.5}, {2.5, -hh, 1.5}, {2.5, hh, 1.5},
	}, 8)
	hull := shape{kind: ConvexHull, hull: h}
	rotY := func(a float64) quat { // tests only: trigonometry
		s, c := math.Sincos(a / 2)
		return quat{0, float32(s), 0, float32(c)}
	}
	angle := 0.0
	for range 481 {
		angle += (45.0 * math.Pi / 180) / 60
		hp := pose{vec3{}, rotY(angle)}
		local := pose{vec3{0.1, 1 + gap, -0.5}, rotY(-45 * math.Pi / 180)}
		bp := pose{hp.apply(local.p), hp.q.mul(local.q)}
		var m manifold
		collide(&box, bp, &hull, hp, sepDist, &m)
		if m.n == 0 {
			t.Fatalf("angle %v: no contact", angle)
		}
		if !approxV(m.normal, vec3{0, -1, 0}, 1e-3) {
			t.Fatalf("angle %v: normal %v, want -Y", angle, m.normal)
		}
		for i := range m.n {
			p := m.pts[i]
			on1, on2 := p.p.y+float32(0.5*p.sep), p.p.y-float32(0.5*p.sep)
			if !approx(on1, hh+gap, 1e-3) || !approx(on2, hh, 1e-3) {
				t.Fatalf("angle %v: point %v (sep %v): on the box at %v, on the hull at %v", angle, p.p, p.sep, on1, on2)
			}
		}
	}
	if angle < 2*math.Pi {
		t.Errorf("turned %v, want a full turn", angle)
	}
}

// Parry: crates/parry3d/tests/geometry/cylinder_cuboid_contact.rs,
// cylinder_cuboid_contact (parry issue 157): a cylinder and a thin box
// that overlap: distance 0, intersecting, and a contact.
func TestParryCylinderCuboidContact(t *testing.T) {
	cyl := shape{kind: Cylinder, halfHeight: 0.925, radius: 0.5}
	box := shape{kind: Box, half: vec3{0.05, 0.75, 0.5}}
	pc, pb := at(10.97, 0.925, 61.02), at(11.50, 0.75, 60.5)
	a, b := convexOf(&cyl, pc), convexOf(&box, pb)
	if d, _ := distance(&a, &b); d != 0 {
		t.Errorf("distance %v, want 0", d)
	}
	var m manifold
	collide(&box, pb, &cyl, pc, 10, &m)
	if m.n == 0 || minSep(&m) > 0 {
		t.Errorf("contact %+v, want an overlap", m)
	}
}

// Parry: crates/parry3d/tests/issue_rapier810_cylinder_cap_manifold.rs,
// cuboid_on_cylinder_cap_has_multi_point_manifold: a small cube face down
// anywhere on a wide thin disc's top, 1 mm into it or 0.1 mm above, gets
// at least 3 points and a normal within |n.y| > 0.99 (prediction 0.01).
func TestParryCuboidOnCylinderCap(t *testing.T) {
	disc := shape{kind: Cylinder, halfHeight: 0.05, radius: 10}
	cube := shape{kind: Box, half: vec3{0.05, 0.05, 0.05}}
	for _, xz := range [][2]float32{{0, 0}, {3, -2}, {5.54, 4.51}, {-5.65, 5.65}, {7, 7}, {9.9, 0}} {
		for _, sep := range []float32{-0.001, 0.0001} {
			var m manifold
			collide(&cube, at(xz[0], 0.05+0.05+sep, xz[1]), &disc, at(0, 0, 0), 0.01, &m)
			if m.n < 3 || abs(m.normal.y) <= 0.99 {
				t.Errorf("cube at %v, sep %v: %d points, normal %v", xz, sep, m.n, m.normal)
			}
		}
	}
}

// Parry: crates/parry3d/tests/issue_rapier810_cylinder_cap_manifold.rs,
// cuboid_on_cylinder_side_unchanged: a cube against a cylinder's side gets
// a radial normal and every point on the side's line (within 1e-3).
func TestParryCuboidOnCylinderSide(t *testing.T) {
	cyl := shape{kind: Cylinder, halfHeight: 2, radius: 0.5}
	cube := shape{kind: Box, half: vec3{0.25, 0.25, 0.25}}
	var m manifold
	collide(&cyl, at(0, 0, 0), &cube, at(0.5+0.25-0.001, 0, 0), 0.01, &m)
	if m.n == 0 || m.normal.x <= 0.99 {
		t.Fatalf("%d points, normal %v: want a radial normal", m.n, m.normal)
	}
	for i := range m.n {
		p := m.pts[i]
		on := p.p.addScaled(m.normal, float32(-0.5*p.sep)) // on the cylinder
		if abs(on.x-0.5) >= 1e-3 || abs(on.z) >= 1e-3 {
			t.Errorf("point on the cylinder at %v, want on its side's line x = 0.5, z = 0", on)
		}
	}
}

// Parry: crates/parry3d/tests/issue_rapier810_cylinder_cap_manifold.rs,
// cylinder_standing_on_cuboid_floor: at least 3 points, normal up.
func TestParryCylinderStandingOnCuboidFloor(t *testing.T) {
	floor := shape{kind: Box, half: vec3{5, 0.5, 5}}
	cyl := shape{kind: Cylinder, halfHeight: 0.4, radius: 0.3}
	var m manifold
	collide(&floor, at(0, 0, 0), &cyl, at(1, 0.5+0.4-0.001, -2), 0.01, &m)
	if m.n < 3 || m.normal.y <= 0.99 {
		t.Errorf("%d points, normal %v", m.n, m.normal)
	}
}

// Parry: crates/parry3d/tests/issue_396_cylinder_intersection_false_negative.rs
// (coaxial_overlapping_cylinders_intersect, coaxial_cylinder_capsule_intersect,
// offset_and_rotated_cylinders_intersecting, coaxial_cylinders_separated):
// through Space.Overlap, a small cylinder or a capsule inside, offset or
// turned inside a big cylinder overlaps it; one beside it does not.
func TestParryCylinderIntersection(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	big := tw.add(NewBodyDef(Static, Shape{Kind: Cylinder, HalfHeight: 50, Radius: 100}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	small := Shape{Kind: Cylinder, HalfHeight: 1.5, Radius: 1}
	overlaps := func(sh Shape, pos mgl32.Vec3, rot mgl32.Quat) bool {
		got, err := tw.s.Overlap(sh, pos, rot, QueryFilter{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return len(got) == 1 && got[0] == big
	}
	if !overlaps(small, mgl32.Vec3{}, mgl32.QuatIdent()) {
		t.Error("coaxial cylinders: no overlap")
	}
	if !overlaps(Shape{Kind: Capsule, HalfHeight: 50, Radius: 10}, mgl32.Vec3{}, mgl32.QuatIdent()) {
		t.Error("coaxial cylinder and capsule: no overlap")
	}
	for _, off := range []mgl32.Vec3{{0.01, 0, 0}, {0, 0.01, 0}, {0, 0, -0.01}, {3, 5, -2}} {
		if !overlaps(small, off, mgl32.QuatIdent()) {
			t.Errorf("offset %v: no overlap", off)
		}
	}
	for _, a := range []float64{0.01, 0.5, math.Pi / 2} {
		if !overlaps(small, mgl32.Vec3{}, mgl32.QuatRotate(float32(a), mgl32.Vec3{0, 0, 1})) {
			t.Errorf("turned %v: no overlap", a)
		}
	}
	for _, dy := range []float32{51.6, 60, 200} {
		if overlaps(small, mgl32.Vec3{0, dy, 0}, mgl32.QuatIdent()) {
			t.Errorf("%v above: an overlap", dy)
		}
	}
	for _, dx := range []float32{101.1, 110, 500} {
		if overlaps(small, mgl32.Vec3{dx, 0, 0}, mgl32.QuatIdent()) {
			t.Errorf("%v beside: an overlap", dx)
		}
	}
	if overlaps(small, mgl32.Vec3{0, 53, 0}, mgl32.QuatRotate(0.7, mgl32.Vec3{0, 0, 1})) {
		t.Error("turned, 53 above: an overlap")
	}
}

// Parry: crates/parry3d/tests/issue_451_convex_hull_raycast.rs,
// convex_hull_nonintersecting_ray and convex_hull_intersecting_ray. (Its
// tetrahedron projection test has no counterpart here.)
func TestParryConvexHullRaycast(t *testing.T) {
	h := mustHull(t, []mgl32.Vec3{{-34, -14, 29}, {-24, -12, 29}, {-32, -12, 29}, {-32, -12, 2}, {-24, -12, 2}}, 0)
	s := shape{kind: ConvexHull, hull: h}
	p := pose{toVec3(h.CenterOfMass()), identity}
	if _, _, ok := s.raycast(p, vec3{-16, 8, 0}, vec3{-0.5956519, -0.67131174, 0.44106603}, maxFloat32); ok {
		t.Error("the ray that misses hit")
	}
	if _, _, ok := s.raycast(p, vec3{-28, 0, 10}, vec3{0, -1, 0}, maxFloat32); !ok {
		t.Error("the ray that hits missed")
	}
}
