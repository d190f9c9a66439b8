package physics

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// oneTriangle returns a world holding a static mesh of one triangle,
// (0, 0, 0), (2, 0, 0), (0, 0, 2), in the plane y = 0, and its entity.
func oneTriangle(t *testing.T) (*testWorld, engine.Entity) {
	t.Helper()
	tw := newTestWorld(t, zeroG())
	m, err := NewTriangleMesh([]mgl32.Vec3{{0, 0, 0}, {2, 0, 0}, {0, 0, 2}}, []uint32{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	id, err := tw.s.AddMesh(m)
	if err != nil {
		t.Fatal(err)
	}
	e := tw.add(NewBodyDef(Static, Shape{Kind: Mesh, Mesh: id}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	return tw, e
}

// TestSweepInTrianglePlane: a shape swept in a triangle's plane, or
// across it, towards one of its edges or corners hits it there (before:
// a triangle the shape moved parallel to was skipped, so these were
// misses), while a ball rolling along the plane onto the triangle (resting
// on the plane, not in it) still does not hit its edge.
func TestSweepInTrianglePlane(t *testing.T) {
	tw, tri := oneTriangle(t)
	ball := Shape{Kind: Sphere, Radius: 0.5}
	for _, c := range []struct {
		name     string
		sh       Shape
		from     mgl32.Vec3
		delta    mgl32.Vec3
		fraction float32 // -1: no hit
	}{
		// The edge x = 0 (z from 0 to 2), met by the ball's front at x = 0.
		{"ball towards an edge", ball, mgl32.Vec3{-5, 0, 1}, mgl32.Vec3{10, 0, 0}, 4.5 / 10},
		// The corner (2, 0, 0) from beyond it along +x.
		{"ball towards a corner", ball, mgl32.Vec3{7, 0, 0}, mgl32.Vec3{-10, 0, 0}, 4.5 / 10},
		// The hypotenuse x + z = 2, along its normal (1, 0, 1)/√2 from (3, 0, 3).
		{"ball towards the long edge", ball, mgl32.Vec3{3, 0, 3}, mgl32.Vec3{-4, 0, -4}, (4/sqrt2f - 0.5) / (4 * sqrt2f)},
		// A box lying in the plane, half above it and half below.
		{"box towards an edge", Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}}, mgl32.Vec3{-5, 0, 1}, mgl32.Vec3{10, 0, 0}, 4.5 / 10},
		// A capsule standing through the plane.
		{"capsule towards an edge", Shape{Kind: Capsule, Radius: 0.25, HalfHeight: 1}, mgl32.Vec3{-5, 0.3, 1}, mgl32.Vec3{10, 0, 0}, 4.75 / 10},
		// Rising out of the plane while in it: still the edge, where
		// (10f − 5)² + (0.1f − 0.1)² = 0.5².
		{"ball rising through the edge", ball, mgl32.Vec3{-5, -0.1, 1}, mgl32.Vec3{10, 0.1, 0}, 0.450303},
		// Resting on the plane beside the triangle (1 mm in), rolling
		// onto it: no hit, as on a floor of several triangles.
		{"ball rolling onto it", ball, mgl32.Vec3{-5, 0.499, 1}, mgl32.Vec3{10, 0, 0}, -1},
		// Above the plane: nothing to hit.
		{"ball passing over it", ball, mgl32.Vec3{-5, 0.6, 1}, mgl32.Vec3{10, 0, 0}, -1},
	} {
		h, ok, err := tw.s.Sweep(c.sh, c.from, mgl32.QuatIdent(), c.delta, QueryFilter{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.fraction < 0 {
			if ok {
				t.Errorf("%s: hit %+v, want none", c.name, h)
			}
			continue
		}
		// The sweep stops within sweepTarget (1 mm) of the surface.
		if !ok || h.Entity != tri || abs(h.Fraction-c.fraction)*c.delta.Len() > 2*sweepTarget {
			t.Errorf("%s: %+v %v, want the triangle at fraction %v", c.name, h, ok, c.fraction)
		}
	}
}

const sqrt2f = 1.4142135

// TestRayCastAll: every body along the ray, one hit each, nearest first;
// equal distances by slot; no allocation when out has room.
func TestRayCastAll(t *testing.T) {
	q := newQueryScene(t)
	s := q.tw.s
	out := make([]RayHit, 1, 16)
	out[0].Distance = -1 // a hit of the caller's, kept in front
	got, err := s.RayCastAll(mgl32.Vec3{0, 0.5, 0}, mgl32.Vec3{2, 0, 0}, 10, QueryFilter{Sensors: true}, out)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		e engine.Entity
		d float32
	}{{engine.Entity{}, -1}, {q.sensor, 0.8}, {q.box, 1.5}, {q.wall, 2.9}, {q.ball, 3.5}}
	if len(got) != len(want) {
		t.Fatalf("%d hits %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if got[i].Entity != w.e || abs(got[i].Distance-w.d) > 1e-5 {
			t.Errorf("hit %d: %v at %v, want %v at %v", i, got[i].Entity, got[i].Distance, w.e, w.d)
		}
	}
	// RayCast's hit is RayCastAll's first.
	first, ok, _ := s.RayCast(mgl32.Vec3{0, 0.5, 0}, mgl32.Vec3{2, 0, 0}, 10, QueryFilter{Sensors: true})
	if !ok || first != got[1] {
		t.Errorf("RayCast %+v, RayCastAll's first %+v", first, got[1])
	}
	// Too short for any: out comes back as it was.
	if got, err := s.RayCastAll(mgl32.Vec3{0, 0.5, 0}, mgl32.Vec3{1, 0, 0}, 0.5, QueryFilter{}, out[:1]); err != nil || len(got) != 1 {
		t.Errorf("a short ray: %+v %v", got, err)
	}
	if _, err := s.RayCastAll(mgl32.Vec3{}, mgl32.Vec3{}, 1, QueryFilter{}, nil); err == nil || err.Error() != "physics: RayCastAll: the direction must be a nonzero vector, got [0 0 0]" {
		t.Errorf("a zero direction: %v", err)
	}
	if a := testing.AllocsPerRun(20, func() {
		out, _ = s.RayCastAll(mgl32.Vec3{0, 0.5, 0}, mgl32.Vec3{2, 0, 0}, 10, QueryFilter{Sensors: true}, out[:0])
	}); a != 0 {
		t.Errorf("RayCastAll allocates %v times a call", a)
	}

	// Ties: two boxes in one place, hit at the same distance, by slot.
	tw := newTestWorld(t, zeroG())
	bd := NewBodyDef(Static, unitBox)
	e0 := tw.add(bd, mgl32.Vec3{5, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	e1 := tw.add(bd, mgl32.Vec3{5, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	got, _ = tw.s.RayCastAll(mgl32.Vec3{}, mgl32.Vec3{1, 0, 0}, 10, QueryFilter{}, nil)
	if len(got) != 2 || got[0].Entity != e0 || got[1].Entity != e1 || got[0].Distance != got[1].Distance {
		t.Errorf("two boxes in one place: %+v, want %v then %v at 4.5", got, e0, e1)
	}
}

// TestSweepAll: everything a swept ball touches, one hit each, in the
// order it touches them; not the floor it rolls on; no allocation when
// out has room.
func TestSweepAll(t *testing.T) {
	q := newQueryScene(t)
	s := q.tw.s
	ball := Shape{Kind: Sphere, Radius: 0.25}
	from, delta := mgl32.Vec3{-1, 0.25, 0}, mgl32.Vec3{6, 0, 0}
	out := make([]SweepHit, 0, 16)
	got, err := s.SweepAll(ball, from, mgl32.QuatIdent(), delta, QueryFilter{Sensors: true}, out)
	if err != nil {
		t.Fatal(err)
	}
	// Fronts at 0.8 (sensor), 1.5 (box), 2.9 (wall), and the ball (r 0.5
	// at (4, 0.5, 0), 0.25 above the path) met by the centre at
	// 4 − √(0.75² − 0.25²): from x = −1 + 0.25, over 6 m.
	want := []struct {
		e     engine.Entity
		front float32
	}{{q.sensor, 0.8}, {q.box, 1.5}, {q.wall, 2.9}, {q.ball, 4 - 0.70710678 + 0.25}}
	if len(got) != len(want) {
		t.Fatalf("%d hits %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		front := -0.75 + 6*got[i].Fraction
		if got[i].Entity != w.e || abs(front-w.front) > 2*sweepTarget {
			t.Errorf("hit %d: %v with the front at %v, want %v at %v", i, got[i].Entity, front, w.e, w.front)
		}
	}
	first, ok, _ := s.Sweep(ball, from, mgl32.QuatIdent(), delta, QueryFilter{Sensors: true})
	if !ok || first != got[0] {
		t.Errorf("Sweep %+v, SweepAll's first %+v", first, got[0])
	}
	if _, err := s.SweepAll(Shape{Kind: Mesh}, from, mgl32.QuatIdent(), delta, QueryFilter{}, nil); err == nil {
		t.Error("a mesh as the query's shape: no error")
	}
	if a := testing.AllocsPerRun(20, func() {
		out, _ = s.SweepAll(ball, from, mgl32.QuatIdent(), delta, QueryFilter{Sensors: true}, out[:0])
	}); a != 0 {
		t.Errorf("SweepAll allocates %v times a call", a)
	}
	if a := testing.AllocsPerRun(20, func() {
		_, _, _ = s.Sweep(ball, from, mgl32.QuatIdent(), delta, QueryFilter{})
		_, _, _ = s.RayCast(from, delta, 10, QueryFilter{})
	}); a != 0 {
		t.Errorf("Sweep and RayCast allocate %v times a call (each body's shape went to the heap)", a)
	}
	es := make([]engine.Entity, 0, 8)
	if a := testing.AllocsPerRun(20, func() {
		es, _ = s.Overlap(Shape{Kind: Box, HalfExtents: mgl32.Vec3{3, 1, 1}}, mgl32.Vec3{2, 0.5, 0}, mgl32.QuatIdent(), QueryFilter{}, es[:0])
	}); a != 0 || len(es) == 0 {
		t.Errorf("Overlap allocates %v times a call (%d bodies)", a, len(es))
	}
}
