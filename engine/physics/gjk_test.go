package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

func TestDistance(t *testing.T) {
	sphere := shape{kind: Sphere, radius: 0.5}
	box := shape{kind: Box, half: vec3{1, 1, 1}}
	capsule := shape{kind: Capsule, radius: 0.25, halfHeight: 1}
	turned := toQuat(mgl32.QuatRotate(math.Pi/4, mgl32.Vec3{0, 0, 1}))
	for _, c := range []struct {
		name   string
		a      *shape
		pa     pose
		b      *shape
		pb     pose
		want   float32
		normal vec3
	}{
		{"spheres", &sphere, pose{vec3{0, 0, 0}, identity}, &sphere, pose{vec3{3, 0, 0}, identity}, 2, vec3{1, 0, 0}},
		{"sphere box face", &sphere, pose{vec3{0, 3, 0}, identity}, &box, pose{vec3{0, 0, 0}, identity}, 1.5, vec3{0, -1, 0}},
		{"sphere box corner", &sphere, pose{vec3{3, 3, 3}, identity}, &box, pose{vec3{0, 0, 0}, identity}, float32(2*math.Sqrt(3)) - 0.5, vec3{-0.57735026, -0.57735026, -0.57735026}},
		{"boxes", &box, pose{vec3{0, 0, 0}, identity}, &box, pose{vec3{0, 2.5, 0}, identity}, 0.5, vec3{0, 1, 0}},
		{"box on edge", &box, pose{vec3{0, 0, 0}, turned}, &box, pose{vec3{0, 4, 0}, identity}, float32(3 - math.Sqrt2), vec3{0, 1, 0}},
		{"capsule side", &capsule, pose{vec3{0, 0, 0}, identity}, &box, pose{vec3{2, 0.5, 0}, identity}, 0.75, vec3{1, 0, 0}},
		{"overlap", &box, pose{vec3{0, 0, 0}, identity}, &box, pose{vec3{0, 1.5, 0}, identity}, 0, vec3{}},
	} {
		a, b := convexOf(c.a, c.pa), convexOf(c.b, c.pb)
		d, n := distance(&a, &b)
		if abs(d-c.want) > 1e-5 || n.sub(c.normal).length() > 1e-5 {
			t.Errorf("%s: distance %v along %v, want %v along %v", c.name, d, n, c.want, c.normal)
		}
	}
}

// TestCast: a ball shot at a thin wall stops at the wall's face, however
// fast; one moving away or along it never hits.
func TestCast(t *testing.T) {
	ball := shape{kind: Sphere, radius: 0.05}
	wall := shape{kind: Box, half: vec3{0.1, 5, 5}}
	a, b := convexOf(&ball, pose{vec3{-3, 0, 0}, identity}), convexOf(&wall, pose{vec3{0, 0, 0}, identity})
	tt, n, hit := cast(&a, &b, vec3{5, 0, 0}, 0.005) // 300 m/s at 60 Hz
	if !hit || n.sub(vec3{1, 0, 0}).length() > 1e-5 {
		t.Fatalf("hit %v at %v, normal %v; want a hit along +x", hit, tt, n)
	}
	// At t, the ball's surface is within the target of the wall's face at x = -0.1.
	if x := -3 + float32(5*tt) + 0.05; x > -0.1-0.0025+1e-4 || x < -0.1-0.005-1e-4 {
		t.Errorf("the ball's front at %v, want within 5 mm before the face at -0.1", x)
	}
	if a.p.p != (vec3{-3, 0, 0}) {
		t.Errorf("cast moved the shape: %v", a.p.p)
	}
	if _, _, hit := cast(&a, &b, vec3{-5, 0, 0}, 0.005); hit {
		t.Error("moving away: a hit")
	}
	if _, _, hit := cast(&a, &b, vec3{0, 5, 0}, 0.005); hit {
		t.Error("moving along the wall: a hit")
	}
	touching := convexOf(&ball, pose{vec3{-0.151, 0, 0}, identity})
	if _, _, hit := cast(&touching, &b, vec3{1, 0, 0}, 0.005); hit {
		t.Error("starting in contact: a hit (a resting contact is the solver's)")
	}
	// A box cast onto a triangle.
	tri := convex{tri: [3]vec3{{-5, 0, -5}, {5, 0, -5}, {0, 0, 5}}}
	cube := shape{kind: Box, half: vec3{0.5, 0.5, 0.5}}
	c := convexOf(&cube, pose{vec3{0, 10, 0}, identity})
	tt, n, hit = cast(&c, &tri, vec3{0, -20, 0}, 0.005)
	if !hit || abs(10-float32(20*tt)-0.5) > 0.006 || n.sub(vec3{0, -1, 0}).length() > 1e-4 {
		t.Errorf("a box dropped on a triangle: hit %v at %v (bottom at %v), normal %v", hit, tt, 10-20*tt-0.5, n)
	}
}
