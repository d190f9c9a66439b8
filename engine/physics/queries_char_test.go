package physics

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// TestCapsuleNearWallDistance: a capsule standing 7.5 mm from a box wall,
// its segment parallel to the wall's face, is 7.5 mm from it at every
// height (GJK once took a flat tetrahedron of that case for one holding
// the origin, so the capsule read as touching and a sweep into the wall
// passed through it).
func TestCapsuleNearWallDistance(t *testing.T) {
	capS := shape{kind: Capsule, radius: 0.3, halfHeight: 0.6}
	wall := shape{kind: Box, half: vec3{0.05, 2, 5}}
	b := convexOf(&wall, pose{vec3{3, 2, 0}, identity})
	for y := float32(0.9); y < 0.92; y += 0.00025 {
		a := convexOf(&capS, pose{vec3{2.6425, y, 0}, identity})
		if d, _ := distance(&a, &b); abs(d-0.0075) > 1e-5 {
			t.Fatalf("capsule at y = %v: distance %v, want 0.0075", y, d)
		}
	}
	tw := newTestWorld(t, DefaultConfig())
	tw.add(NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.05, 2, 5}}), mgl32.Vec3{3, 2, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	h, ok, err := tw.s.Sweep(Shape{Kind: Capsule, Radius: 0.3, HalfHeight: 0.6}, mgl32.Vec3{2.6425, 0.9075, 0}, mgl32.QuatIdent(), mgl32.Vec3{0.5, 0, 0}, QueryFilter{})
	if err != nil || !ok || h.Fraction > 0.02 {
		t.Errorf("sweep into the wall: hit %v at %v (%v), want a hit within the first 2 %%", ok, h.Fraction, err)
	}
}
