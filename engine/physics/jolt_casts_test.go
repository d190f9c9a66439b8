package physics

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// Ports of Jolt's ray and shape cast tests for the shapes Nebula has
// (sphere, box, capsule, compound, triangle mesh): jrouwe/JoltPhysics,
// UnitTests/Physics/RayShapeTests.cpp and CastShapeTests.cpp. Jolt's
// queries through a PhysicsSystem are Nebula's Space.RayCast and
// RayCastAll (Jolt's AllHitCollisionCollector with back faces ignored and
// convex shapes solid: one hit a body) and Space.Sweep and SweepAll (its
// ClosestHitPerBodyCollisionCollector). Nebula's queries differ from
// Jolt's by contract in three ways, so those parts are not ported: a ray
// needs a nonzero direction (Jolt treats a zero one as a point test), a
// ray reports where it enters a body, never where it leaves (Jolt's
// back-face hits), and a sweep does not report a body it already touches
// at its start (Jolt returns it at fraction 0 with its penetration).

// joltRayFraction casts the ray origin + t·dir, t in [0, 1] (Jolt's
// RayCast), through the Space and returns the first hit's fraction of
// dir, or +Inf for none, and RayCastAll's hits' fractions.
func joltRayFraction(t *testing.T, s *Space, origin, dir mgl32.Vec3) (float32, []float32) {
	t.Helper()
	l := dir.Len()
	first := float32(math.Inf(1))
	if h, ok, err := s.RayCast(origin, dir, l, QueryFilter{}); err != nil {
		t.Fatal(err)
	} else if ok {
		first = h.Distance / l
	}
	hits, err := s.RayCastAll(origin, dir, l, QueryFilter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var all []float32
	for _, h := range hits {
		all = append(all, h.Distance/l)
	}
	return first, all
}

// joltSystemRay is Jolt's TestRayHelper through a physics system
// (TestSystemRay and TestSystemRayMultiHitIgnoreBackFace, tolerance
// 2.5e-5) for a body of shape sh at Jolt's test pose, (2, 3, 4) turned
// π/4 about x: rays along the line through the surface points hitA and
// hitB (in the body's frame), from outside, from inside, both ways
// (TestRayHelperInternal without its two zero-length rays).
func joltSystemRay(t *testing.T, name string, sh Shape, hitA, hitB mgl32.Vec3) {
	t.Helper()
	joltSystemRayWith(t, name, func(*testWorld) Shape { return sh }, hitA, hitB)
}

// joltSystemRayWith is joltSystemRay for the shape that mk makes in the
// test's world (a compound).
func joltSystemRayWith(t *testing.T, name string, mk func(tw *testWorld) Shape, hitA, hitB mgl32.Vec3) {
	t.Helper()
	tw := newTestWorld(t, zeroG())
	sh := mk(tw)
	pos := mgl32.Vec3{2, 3, 4}
	rot := mgl32.QuatRotate(0.25*math.Pi, mgl32.Vec3{1, 0, 0})
	tw.add(NewBodyDef(Static, sh), pos, rot, mgl32.Vec3{}, mgl32.Vec3{})
	world := func(p mgl32.Vec3) mgl32.Vec3 { return pos.Add(rot.Rotate(p)) }
	inf := float32(math.Inf(1))
	for _, ab := range [2][2]mgl32.Vec3{{hitA, hitB}, {hitB, hitA}} {
		a, b := ab[0], ab[1]
		delta := b.Sub(a)
		l1 := a.Sub(delta.Mul(2))
		l2 := a.Sub(delta.Mul(0.1))
		i1 := a.Add(delta.Mul(0.1))
		i2 := b.Sub(delta.Mul(0.1))
		r1 := b.Add(delta.Mul(0.1))
		r2 := b.Add(delta.Mul(2))
		for _, c := range []struct {
			what      string
			from, dir mgl32.Vec3
			want      float32
		}{
			{"short of the surface", l1, l2.Sub(l1), inf},
			{"into it", l2, i1.Sub(l2), 0.5},
			{"through it", l2, r1.Sub(l2), 0.1 / 1.2},
			{"from inside", i2, r1.Sub(i2), 0},
			{"beyond it", r1, r2.Sub(l1), inf},
		} {
			from, dir := world(c.from), rot.Rotate(c.dir)
			got, all := joltRayFraction(t, tw.s, from, dir)
			label := fmt.Sprintf("%s: ray %v to %v, %s", name, a, b, c.what)
			if c.want == inf {
				if got != inf || len(all) != 0 {
					t.Errorf("%s: hit at fraction %v (all: %v), want none", label, got, all)
				}
				continue
			}
			if abs(got-c.want) > 2.5e-5 {
				t.Errorf("%s: fraction %v, want %v within 2.5e-5", label, got, c.want)
			}
			if len(all) != 1 || abs(all[0]-c.want) > 2.5e-5 {
				t.Errorf("%s: RayCastAll fractions %v, want one at %v", label, all, c.want)
			}
		}
	}
}

// Jolt: RayShapeTests, TestBoxShapeRay.
func TestJoltBoxShapeRay(t *testing.T) {
	sh := Shape{Kind: Box, HalfExtents: mgl32.Vec3{2, 3, 4}}
	joltSystemRay(t, "x", sh, mgl32.Vec3{-2, 0, 0}, mgl32.Vec3{2, 0, 0})
	joltSystemRay(t, "y", sh, mgl32.Vec3{0, -3, 0}, mgl32.Vec3{0, 3, 0})
	joltSystemRay(t, "z", sh, mgl32.Vec3{0, 0, -4}, mgl32.Vec3{0, 0, 4})
}

// Jolt: RayShapeTests, TestSphereShapeRay.
func TestJoltSphereShapeRay(t *testing.T) {
	sh := Shape{Kind: Sphere, Radius: 2}
	joltSystemRay(t, "x", sh, mgl32.Vec3{-2, 0, 0}, mgl32.Vec3{2, 0, 0})
	joltSystemRay(t, "y", sh, mgl32.Vec3{0, -2, 0}, mgl32.Vec3{0, 2, 0})
	joltSystemRay(t, "z", sh, mgl32.Vec3{0, 0, -2}, mgl32.Vec3{0, 0, 2})
}

// Jolt: RayShapeTests, TestCapsuleShapeRay (CapsuleShape(4, 2): half
// height 4, radius 2).
func TestJoltCapsuleShapeRay(t *testing.T) {
	sh := Shape{Kind: Capsule, HalfHeight: 4, Radius: 2}
	joltSystemRay(t, "x", sh, mgl32.Vec3{-2, 0, 0}, mgl32.Vec3{2, 0, 0})
	joltSystemRay(t, "y", sh, mgl32.Vec3{0, -6, 0}, mgl32.Vec3{0, 6, 0})
	joltSystemRay(t, "z", sh, mgl32.Vec3{0, 0, -2}, mgl32.Vec3{0, 0, 2})
}

// Jolt: RayShapeTests, TestStaticCompoundShapeRay. Jolt's parts are a
// convex hull of the box (−2..3, −4..5, −6..7): here the box itself, half
// extents (2.5, 4.5, 6.5) centred at (0.5, 0.5, 0.5) in the part's frame.
func TestJoltStaticCompoundShapeRay(t *testing.T) {
	p1, r1 := mgl32.Vec3{10, 20, 30}, mgl32.QuatRotate(0.1*math.Pi, mgl32.Vec3{1, 0, 0}).Mul(mgl32.QuatRotate(0.2*math.Pi, mgl32.Vec3{0, 1, 0}))
	p2, r2 := mgl32.Vec3{40, 50, 60}, mgl32.QuatRotate(0.3*math.Pi, mgl32.Vec3{0, 0, 1})
	box := Shape{Kind: Box, HalfExtents: mgl32.Vec3{2.5, 4.5, 6.5}}
	off := mgl32.Vec3{0.5, 0.5, 0.5}
	mk := func(tw *testWorld) Shape {
		id, err := tw.s.AddCompound([]Part{{Shape: box, Pos: p1.Add(r1.Rotate(off)), Rot: r1}, {Shape: box, Pos: p2.Add(r2.Rotate(off)), Rot: r2}})
		if err != nil {
			t.Fatal(err)
		}
		return Shape{Kind: Compound, Compound: id}
	}
	for i, p := range []struct {
		pos mgl32.Vec3
		rot mgl32.Quat
	}{{p1, r1}, {p2, r2}} {
		in := func(v mgl32.Vec3) mgl32.Vec3 { return p.pos.Add(p.rot.Rotate(v)) }
		joltSystemRayWith(t, fmt.Sprintf("part %d x", i+1), mk, in(mgl32.Vec3{-2, 0, 0}), in(mgl32.Vec3{3, 0, 0}))
		joltSystemRayWith(t, fmt.Sprintf("part %d y", i+1), mk, in(mgl32.Vec3{0, -4, 0}), in(mgl32.Vec3{0, 5, 0}))
		joltSystemRayWith(t, fmt.Sprintf("part %d z", i+1), mk, in(mgl32.Vec3{0, 0, -6}), in(mgl32.Vec3{0, 0, 7}))
	}
}

// joltSweepTol is how close to Jolt's fraction a sweep of length l must
// be: Jolt's tolerance, or the gap at which Nebula's sweep stops short of
// the surface by contract (sweepTarget, 1 mm, so a character moved by the
// sweep does not end touching), over l, when that is larger.
func joltSweepTol(tol, l float32) float32 { return max(tol, sweepTarget/l) }

// castTriangle is the world of Jolt's sTestCastSphereTriangle: a mesh of
// the one triangle (50, 25, 0), (−50, 25, 0), (0, −25, 0), normal z.
func castTriangle(t *testing.T) (*testWorld, engine.Entity) {
	t.Helper()
	tw := newTestWorld(t, zeroG())
	m, err := NewTriangleMesh([]mgl32.Vec3{{50, 25, 0}, {-50, 25, 0}, {0, -25, 0}}, []uint32{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	id, err := tw.s.AddMesh(m)
	if err != nil {
		t.Fatal(err)
	}
	return tw, tw.add(NewBodyDef(Static, Shape{Kind: Mesh, Mesh: id}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
}

// Jolt: CastShapeTests, TestCastSphereTriangle (its triangle-mesh half,
// sTestCastSphereTriangle): a sphere of radius 0.2 cast onto the front
// face (fraction (15 − 0.2)/30, within 1e-4, normal −z within 1e-3) and
// onto the back face (Nebula's triangles are two-sided: Jolt's
// CollideWithBackFaces, normal +z), then, in the triangle's plane, onto
// each vertex and each edge (sTestCastSphereVertexOrEdge: fraction
// 1 − 0.2/|direction| within 1e-4, normal along the direction within
// 1e-3). The case that starts in collision is Jolt's contract, not
// Nebula's (see above).
func TestJoltCastSphereTriangle(t *testing.T) {
	tw, tri := castTriangle(t)
	ball := Shape{Kind: Sphere, Radius: 0.2}
	check := func(what string, from, delta mgl32.Vec3, frac float32, normal mgl32.Vec3) {
		t.Helper()
		h, ok, err := tw.s.Sweep(ball, from, mgl32.QuatIdent(), delta, QueryFilter{})
		if err != nil || !ok || h.Entity != tri {
			t.Errorf("%s: %+v %v %v, want a hit", what, h, ok, err)
			return
		}
		if tol := joltSweepTol(1e-4, delta.Len()); abs(h.Fraction-frac) > tol {
			t.Errorf("%s: fraction %v, want %v within %v", what, h.Fraction, frac, tol)
		}
		if h.Normal.Sub(normal).Len() > 1e-3 {
			t.Errorf("%s: normal %v, want %v", what, h.Normal, normal)
		}
		all, _ := tw.s.SweepAll(ball, from, mgl32.QuatIdent(), delta, QueryFilter{}, nil)
		if len(all) != 1 || all[0] != h {
			t.Errorf("%s: SweepAll %+v, want the one hit %+v", what, all, h)
		}
	}
	check("front face", mgl32.Vec3{0, 0, 15}, mgl32.Vec3{0, 0, -30}, (15-0.2)/30, mgl32.Vec3{0, 0, -1})
	check("back face", mgl32.Vec3{0, 0, -15}, mgl32.Vec3{0, 0, 30}, (15-0.2)/30, mgl32.Vec3{0, 0, 1})
	for _, c := range []struct {
		what     string
		pos, dir mgl32.Vec3
	}{
		{"vertex 1", mgl32.Vec3{50, 25, 0}, mgl32.Vec3{-10, -10, 0}},
		{"vertex 2", mgl32.Vec3{-50, 25, 0}, mgl32.Vec3{10, -10, 0}},
		{"vertex 3", mgl32.Vec3{0, -25, 0}, mgl32.Vec3{0, 10, 0}},
		{"edge 1", mgl32.Vec3{0, 25, 0}, mgl32.Vec3{0, -10, 0}},
		{"edge 2", mgl32.Vec3{-25, 0, 0}, mgl32.Vec3{10, 10, 0}},
		{"edge 3", mgl32.Vec3{25, 0, 0}, mgl32.Vec3{-10, 10, 0}},
	} {
		check(c.what, c.pos.Sub(c.dir), c.dir, 1-0.2/c.dir.Len(), c.dir.Normalize())
	}
}

// Jolt: CastShapeTests, TestCastShapePenetrationDepthOrdering, its first
// two casts (the third starts inside every box: Jolt's contract). Ten
// static boxes 0.2 m thick side by side from x = 0 to 2; a sphere of
// radius 1 cast from x = −5 by +10 hits the first at fraction 0.4 (Jolt:
// within 1e-6) and from x = 5 by −10 the last at 0.2 (within 1e-4),
// normals within 1° of the cast's direction.
func TestJoltCastShapePenetrationDepthOrdering(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	var boxes []engine.Entity
	for i := range 10 {
		boxes = append(boxes, tw.add(NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.1, 2, 2}}), mgl32.Vec3{0.1 + 0.2*float32(i), 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{}))
	}
	ball := Shape{Kind: Sphere, Radius: 1}
	cos1 := float32(math.Cos(math.Pi / 180))
	for _, c := range []struct {
		from, delta mgl32.Vec3
		want        engine.Entity
		frac, tol   float32
	}{
		{mgl32.Vec3{-5, 0, 0}, mgl32.Vec3{10, 0, 0}, boxes[0], 0.4, 1e-6},
		{mgl32.Vec3{5, 0, 0}, mgl32.Vec3{-10, 0, 0}, boxes[9], 0.2, 1e-4},
	} {
		h, ok, err := tw.s.Sweep(ball, c.from, mgl32.QuatIdent(), c.delta, QueryFilter{})
		if err != nil || !ok || h.Entity != c.want {
			t.Errorf("from %v: %+v %v %v, want %v", c.from, h, ok, err, c.want)
			continue
		}
		if tol := joltSweepTol(c.tol, c.delta.Len()); abs(h.Fraction-c.frac) > tol {
			t.Errorf("from %v: fraction %v, want %v within %v", c.from, h.Fraction, c.frac, tol)
		}
		if h.Normal.Dot(c.delta.Normalize()) < cos1 {
			t.Errorf("from %v: normal %v, more than 1° off %v", c.from, h.Normal, c.delta.Normalize())
		}
		// Every box along the way, one hit each, in order.
		all, _ := tw.s.SweepAll(ball, c.from, mgl32.QuatIdent(), c.delta, QueryFilter{}, nil)
		if len(all) != 10 || all[0] != h {
			t.Errorf("from %v: SweepAll gave %d hits, first %+v", c.from, len(all), all)
		}
	}
}

// Jolt: CastShapeTests, TestCastSphereVsDegenerateTriangle (Jolt issue
// 886): a sphere cast past a sliver triangle must not hit it.
func TestJoltCastSphereVsDegenerateTriangle(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	m, err := NewTriangleMesh([]mgl32.Vec3{{14.5536213, 10.5973721, -0.00600051880}, {14.5536213, 10.5969315, -3.18638134}, {14.5536213, 10.5969315, -5.18637228}}, []uint32{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	id, err := tw.s.AddMesh(m)
	if err != nil {
		t.Fatal(err)
	}
	tw.add(NewBodyDef(Static, Shape{Kind: Mesh, Mesh: id}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	h, ok, err := tw.s.Sweep(Shape{Kind: Sphere, Radius: 0.2}, mgl32.Vec3{14.8314590, 8.19055080, -4.30825043}, mgl32.QuatIdent(), mgl32.Vec3{-0.0988006592, 5.96046448e-08, 0.000732421875}, QueryFilter{})
	if err != nil || ok {
		t.Errorf("%+v %v %v, want no hit", h, ok, err)
	}
}

// Jolt: CastShapeTests, TestClosestHitPerBodyCollisionCollector. Two
// static bodies, each a 1 m cube made of ten slabs (a compound), side by
// side; a sphere of radius 0.1 cast through both, both ways: one hit a
// body (Jolt's closest hit per body; its all-hits collector's 20, a hit
// per slab, has no Nebula counterpart), the contact at the body's near
// face (x = −0.5 and 0.5, or 1.5 and 0.5 going back): fractions 0.4/3 and
// 1.4/3.
func TestJoltClosestHitPerBodyCollisionCollector(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	var parts []Part
	for i := range 10 {
		parts = append(parts, Part{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.05, 0.5, 0.5}}, Pos: mgl32.Vec3{0.1*float32(i) - 0.45, 0, 0}})
	}
	id := tw.compound(t, parts)
	d := NewBodyDef(Static, Shape{Kind: Compound, Compound: id})
	body1 := tw.add(d, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	body2 := tw.add(d, mgl32.Vec3{1, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	ball := Shape{Kind: Sphere, Radius: 0.1}
	for _, c := range []struct {
		from, delta mgl32.Vec3
		first, then engine.Entity
	}{
		{mgl32.Vec3{-1, 0, 0}, mgl32.Vec3{3, 0, 0}, body1, body2},
		{mgl32.Vec3{2, 0, 0}, mgl32.Vec3{-3, 0, 0}, body2, body1},
	} {
		all, err := tw.s.SweepAll(ball, c.from, mgl32.QuatIdent(), c.delta, QueryFilter{}, nil)
		if err != nil || len(all) != 2 {
			t.Fatalf("from %v: %+v %v, want 2 hits", c.from, all, err)
		}
		for i, w := range []struct {
			e    engine.Entity
			frac float32
		}{{c.first, 0.4 / 3}, {c.then, 1.4 / 3}} {
			if tol := joltSweepTol(1e-6, 3); all[i].Entity != w.e || abs(all[i].Fraction-w.frac) > tol {
				t.Errorf("from %v: hit %d %+v, want %v at %v within %v", c.from, i, all[i], w.e, w.frac, tol)
			}
		}
	}
}
