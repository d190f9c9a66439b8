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
