package physics

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

func TestShapeValidate(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	tests := []struct {
		s    Shape
		want string // "" when valid, else a part of the message
	}{
		{Shape{Kind: Sphere, Radius: 0.5}, ""},
		{Shape{Kind: Sphere, Radius: 0}, "physics: sphere radius must be positive and finite, got 0"},
		{Shape{Kind: Sphere, Radius: -1}, "positive and finite, got -1"},
		{Shape{Kind: Sphere, Radius: nan}, "positive and finite, got NaN"},
		{Shape{Kind: Sphere, Radius: inf}, "positive and finite, got +Inf"},
		{Shape{Kind: Sphere, Radius: 1e-5}, "physics: sphere radius must be between 0.0001 and 10000 m, got 1e-05"},
		{Shape{Kind: Sphere, Radius: 2e4}, "between 0.0001 and 10000 m"},
		{Shape{Kind: Capsule, Radius: 0.25, HalfHeight: 0.5}, ""},
		{Shape{Kind: Capsule, Radius: 0.25, HalfHeight: 0}, ""},
		{Shape{Kind: Capsule, Radius: 0, HalfHeight: 0.5}, "capsule radius must be positive"},
		{Shape{Kind: Capsule, Radius: 0.25, HalfHeight: -0.5}, "physics: capsule half height must be zero or positive and finite, got -0.5"},
		{Shape{Kind: Capsule, Radius: 0.25, HalfHeight: nan}, "capsule half height must be zero or positive and finite, got NaN"},
		{Shape{Kind: Box, HalfExtents: mgl32.Vec3{1, 2, 3}}, ""},
		{Shape{Kind: Box, HalfExtents: mgl32.Vec3{1, 0, 3}}, "physics: box half extents must be positive and finite, got [1 0 3]"},
		{Shape{Kind: Box, HalfExtents: mgl32.Vec3{1, inf, 3}}, "positive and finite, got [1 +Inf 3]"},
		{Shape{Kind: Box, HalfExtents: mgl32.Vec3{1, 1, 1e5}}, "box half extents must be between 0.0001 and 10000 m, got [1 1 100000]"},
		{Shape{}, "physics: unknown shape kind 0"},
		{Shape{Kind: 9}, "physics: unknown shape kind 9"},
	}
	for _, tt := range tests {
		err := tt.s.validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v: %v", tt.s, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v: %v, want %q", tt.s, err, tt.want)
		}
	}
}

func TestMassProperties(t *testing.T) {
	rel := func(got, want float64) bool { return math.Abs(got-want) <= 1e-6*math.Abs(want) }
	check := func(name string, s *shape, density float32, mass float64, inertia [3]float64) {
		t.Helper()
		m, i := s.massProperties(density)
		if !rel(float64(m), mass) || !rel(float64(i.x), inertia[0]) || !rel(float64(i.y), inertia[1]) || !rel(float64(i.z), inertia[2]) {
			t.Errorf("%s: mass %v inertia %v, want %v %v", name, m, i, mass, inertia)
		}
	}
	// Box: m = 8 hx hy hz ρ, I = m/3 (hy² + hz², ...).
	{
		hx, hy, hz, rho := 0.5, 1.0, 1.5, 2.0
		m := 8 * hx * hy * hz * rho
		check("box", boxS(0.5, 1, 1.5), 2, m, [3]float64{m / 3 * (hy*hy + hz*hz), m / 3 * (hx*hx + hz*hz), m / 3 * (hx*hx + hy*hy)})
		check("unit cube", boxS(0.5, 0.5, 0.5), 1, 1, [3]float64{1.0 / 6, 1.0 / 6, 1.0 / 6})
	}
	// Sphere: m = 4/3 π r³ ρ, I = 2/5 m r².
	{
		r, rho := 0.5, 3.0
		m := 4.0 / 3 * math.Pi * r * r * r * rho
		i := 0.4 * m * r * r
		check("sphere", sphereS(0.5), 3, m, [3]float64{i, i, i})
	}
	// Capsule: a cylinder (height H = 2h) and two hemispheres, each moved
	// by the parallel-axis theorem from its centre of mass (3r/8 from its
	// flat face, h + 3r/8 from the centre).
	{
		r, h, rho := 0.3, 0.7, 1.5
		mc := math.Pi * r * r * 2 * h * rho
		mh := 2.0 / 3 * math.Pi * r * r * r * rho // one hemisphere
		iy := mc*r*r/2 + 2*(0.4*mh*r*r)
		// A hemisphere about a transverse axis through its centre of mass:
		// 2/5 m r² − m (3r/8)²; then moved to the capsule's centre.
		ihc := 0.4*mh*r*r - mh*(3*r/8)*(3*r/8)
		ix := mc*(3*r*r+4*h*h)/12 + 2*(ihc+mh*(h+3*r/8)*(h+3*r/8))
		check("capsule", capsuleS(0.3, 0.7), 1.5, mc+2*mh, [3]float64{ix, iy, ix})
		// Half height zero: a ball.
		ms, is := sphereS(0.3).massProperties(1.5)
		mz, iz := capsuleS(0.3, 0).massProperties(1.5)
		if ms != mz || !rel(float64(iz.x), float64(is.x)) || !rel(float64(iz.y), float64(is.y)) {
			t.Errorf("capsule of half height 0: %v %v, sphere %v %v", mz, iz, ms, is)
		}
	}
	if m, i := (&shape{kind: Mesh}).massProperties(1); m != 0 || i != (vec3{}) {
		t.Errorf("mesh: %v %v", m, i)
	}
}

func TestShapeAABB(t *testing.T) {
	eq := func(a, b aabb) bool { return approxV(a.min, b.min, 1e-6) && approxV(a.max, b.max, 1e-6) }
	// Sphere: its centre ± r whatever the rotation.
	if got := sphereS(0.5).aabb(pose{vec3{1, 2, 3}, axisAngle(vec3{1, 2, 3}, 40)}); !eq(got, aabb{vec3{0.5, 1.5, 2.5}, vec3{1.5, 2.5, 3.5}}) {
		t.Errorf("sphere %v", got)
	}
	// Box turned 45° about Y: X and Z extents (hx + hz)/√2.
	e := float32((0.5 + 1.5) / math.Sqrt2)
	if got := boxS(0.5, 1, 1.5).aabb(turned(at(0, 1, 0), axisAngle(vec3{0, 1, 0}, 45))); !eq(got, aabb{vec3{-e, 0, -e}, vec3{e, 2, e}}) {
		t.Errorf("box %v, want ±%v", got, e)
	}
	// Capsule lying along X: x ± (h + r), y and z ± r.
	if got := capsuleS(0.25, 1).aabb(turned(at(0, 0, 0), axisAngle(vec3{0, 0, 1}, 90))); !eq(got, aabb{vec3{-1.25, -0.25, -0.25}, vec3{1.25, 0.25, 0.25}}) {
		t.Errorf("capsule %v", got)
	}
	// Tight and containing: every corner of a turned box inside, some
	// corner on each face of the AABB.
	rng := rand.New(rand.NewPCG(9, 10))
	b := boxS(0.3, 0.7, 1.1)
	for range 200 {
		p := pose{vec3{rng.Float32()*10 - 5, rng.Float32()*10 - 5, rng.Float32()*10 - 5}, randQuat(rng)}
		box := b.aabb(p)
		lo, hi := vec3{1e9, 1e9, 1e9}, vec3{-1e9, -1e9, -1e9}
		for k := range 8 {
			c := vec3{sgn(k&1 == 0) * 0.3, sgn(k&2 == 0) * 0.7, sgn(k&4 == 0) * 1.1}
			w := p.apply(c)
			lo, hi = lo.min(w), hi.max(w)
		}
		if !eq(box, aabb{lo, hi}) && !(approxV(box.min, lo, 1e-5) && approxV(box.max, hi, 1e-5)) {
			t.Fatalf("%+v: %v, corners span %v %v", p, box, lo, hi)
		}
	}
}
