package physics

import (
	"math"
	"testing"
)

func near(a, b vec3, tol float32) bool {
	d := a.sub(b).abs()
	return d.x <= tol && d.y <= tol && d.z <= tol
}

func TestShapeRaycast(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	sphere := &shape{kind: Sphere, radius: 1}
	box := &shape{kind: Box, half: vec3{1, 2, 3}}
	capsule := &shape{kind: Capsule, radius: 0.5, halfHeight: 1}
	at := func(x, y, z float32) pose { return pose{vec3{x, y, z}, identity} }
	s2 := float32(math.Sqrt(0.5))
	turnZ := quat{0, 0, s2, s2} // 90° about z: local x -> world y, local y -> world -x
	for _, tc := range []struct {
		name   string
		s      *shape
		p      pose
		o, d   vec3
		maxT   float32
		ok     bool
		t      float32
		n      vec3
		approx bool // turned shapes: t and n to within 1e-5
	}{
		{"sphere front", sphere, at(0, 0, 0), vec3{-5, 0, 0}, vec3{1, 0, 0}, 10, true, 4, vec3{-1, 0, 0}, false},
		{"sphere long dir", sphere, at(0, 0, 0), vec3{-5, 0, 0}, vec3{2, 0, 0}, 10, true, 2, vec3{-1, 0, 0}, false},
		{"sphere moved", sphere, at(10, 0, 0), vec3{0, 0, 0}, vec3{1, 0, 0}, 10, true, 9, vec3{-1, 0, 0}, false},
		{"sphere turned", sphere, pose{vec3{0, 10, 0}, turnZ}, vec3{0, 0, 0}, vec3{0, 1, 0}, 10, true, 9, vec3{0, -1, 0}, true},
		{"sphere miss", sphere, at(0, 0, 0), vec3{-5, 1.01, 0}, vec3{1, 0, 0}, 10, false, 0, vec3{}, false},
		{"sphere tangent", sphere, at(0, 0, 0), vec3{-5, 1, 0}, vec3{1, 0, 0}, 10, true, 5, vec3{0, 1, 0}, false},
		{"sphere far", sphere, at(0, 0, 0), vec3{-1000, 0.5, 0}, vec3{1, 0, 0}, inf, true, 999.13397, vec3{-0.8660254, 0.5, 0}, true},
		{"sphere far turned", sphere, at(1000, 0, 1000), vec3{0, 0.5, 0}, vec3{1, 0, 1}, inf, true, 1000 - 0.8660254/1.4142135, vec3{-0.6123724, 0.5, -0.6123724}, true},
		{"sphere behind", sphere, at(0, 0, 0), vec3{5, 0, 0}, vec3{1, 0, 0}, 10, false, 0, vec3{}, false},
		{"sphere beyond maxT", sphere, at(0, 0, 0), vec3{-5, 0, 0}, vec3{1, 0, 0}, 3.99, false, 0, vec3{}, false},
		{"sphere at maxT", sphere, at(0, 0, 0), vec3{-5, 0, 0}, vec3{1, 0, 0}, 4, true, 4, vec3{-1, 0, 0}, false},
		{"sphere inside", sphere, at(0, 0, 0), vec3{0.5, 0, 0}, vec3{1, 0, 0}, 10, true, 0, vec3{}, false},
		{"sphere on surface", sphere, at(0, 0, 0), vec3{0, 1, 0}, vec3{0, 1, 0}, 10, true, 0, vec3{}, false},
		{"sphere zero dir", sphere, at(0, 0, 0), vec3{-5, 0, 0}, vec3{}, 10, false, 0, vec3{}, false},
		{"sphere zero dir inside", sphere, at(0, 0, 0), vec3{0, 0, 0}, vec3{}, 10, true, 0, vec3{}, false},
		{"sphere infinite maxT", sphere, at(0, 0, 0), vec3{-5, 0, 0}, vec3{1, 0, 0}, inf, true, 4, vec3{-1, 0, 0}, false},
		{"sphere NaN origin", sphere, at(0, 0, 0), vec3{nan, 0, 0}, vec3{1, 0, 0}, 10, false, 0, vec3{}, false},
		{"sphere NaN maxT", sphere, at(0, 0, 0), vec3{-5, 0, 0}, vec3{1, 0, 0}, nan, false, 0, vec3{}, false},
		{"sphere negative maxT", sphere, at(0, 0, 0), vec3{-5, 0, 0}, vec3{1, 0, 0}, -1, false, 0, vec3{}, false},
		{"sphere infinite dir", sphere, at(0, 0, 0), vec3{-5, 0, 0}, vec3{inf, 0, 0}, 10, false, 0, vec3{}, false},

		{"box -x face", box, at(0, 0, 0), vec3{-5, 0, 0}, vec3{1, 0, 0}, 10, true, 4, vec3{-1, 0, 0}, false},
		{"box +y face", box, at(0, 0, 0), vec3{0, 10, 0}, vec3{0, -1, 0}, 10, true, 8, vec3{0, 1, 0}, false},
		{"box +z face", box, at(0, 0, 0), vec3{0.5, 0.5, 10}, vec3{0, 0, -2}, 10, true, 3.5, vec3{0, 0, 1}, false},
		{"box parallel outside", box, at(0, 0, 0), vec3{-5, 2.5, 0}, vec3{1, 0, 0}, 10, false, 0, vec3{}, false},
		{"box parallel on face", box, at(0, 0, 0), vec3{-5, 2, 0}, vec3{1, 0, 0}, 10, true, 4, vec3{-1, 0, 0}, false},
		{"box edge", box, at(0, 0, 0), vec3{-3, -4, 0}, vec3{1, 1, 0}, 10, true, 2, vec3{-1, 0, 0}, false},
		{"box corner", box, at(0, 0, 0), vec3{-2, -3, -4}, vec3{1, 1, 1}, 10, true, 1, vec3{-1, 0, 0}, false},
		{"box miss diagonal", box, at(0, 0, 0), vec3{-3, 0, 0}, vec3{1, 2, 0}, 10, false, 0, vec3{}, false},
		{"box behind", box, at(0, 0, 0), vec3{5, 0, 0}, vec3{1, 0, 0}, 10, false, 0, vec3{}, false},
		{"box inside", box, at(0, 0, 0), vec3{0.9, -1.9, 2.9}, vec3{1, 0, 0}, 10, true, 0, vec3{}, false},
		{"box moved", box, at(0, 0, -10), vec3{0, 0, 0}, vec3{0, 0, -1}, 10, true, 7, vec3{0, 0, 1}, false},
		{"box turned", box, pose{vec3{}, turnZ}, vec3{-5, 0, 0}, vec3{1, 0, 0}, 10, true, 3, vec3{-1, 0, 0}, true},
		{"box beyond maxT", box, at(0, 0, 0), vec3{-5, 0, 0}, vec3{1, 0, 0}, 3, false, 0, vec3{}, false},

		{"capsule side", capsule, at(0, 0, 0), vec3{-5, 0, 0}, vec3{1, 0, 0}, 10, true, 4.5, vec3{-1, 0, 0}, false},
		{"capsule top", capsule, at(0, 0, 0), vec3{0, 5, 0}, vec3{0, -1, 0}, 10, true, 3.5, vec3{0, 1, 0}, false},
		{"capsule bottom", capsule, at(0, 0, 0), vec3{0, -5, 0}, vec3{0, 1, 0}, 10, true, 3.5, vec3{0, -1, 0}, false},
		{"capsule end ball", capsule, at(0, 0, 0), vec3{-5, 1.3, 0}, vec3{1, 0, 0}, 10, true, 5 - 0.4, vec3{-0.8, 0.6, 0}, true},
		{"capsule along axis outside", capsule, at(0, 0, 0), vec3{0.6, -5, 0}, vec3{0, 1, 0}, 10, false, 0, vec3{}, false},
		{"capsule along axis", capsule, at(0, 0, 0), vec3{0.3, -5, 0}, vec3{0, 1, 0}, 10, true, 3.6, vec3{0.6, -0.8, 0}, true},
		{"capsule inside", capsule, at(0, 0, 0), vec3{0, 1.2, 0.1}, vec3{1, 0, 0}, 10, true, 0, vec3{}, false},
		{"capsule far side", capsule, at(0, 0, 0), vec3{-2000, 0.7, 0.3}, vec3{1, 0, 0}, inf, true, 2000 - 0.4, vec3{-0.8, 0, 0.6}, true},
		{"capsule miss", capsule, at(0, 0, 0), vec3{-5, 1.6, 0}, vec3{1, 0, 0}, 10, false, 0, vec3{}, false},
		{"capsule turned", capsule, pose{vec3{}, turnZ}, vec3{0, 5, 0}, vec3{0, -1, 0}, 10, true, 4.5, vec3{0, 1, 0}, true},
		{"capsule turned end", capsule, pose{vec3{}, turnZ}, vec3{-5, 0, 0}, vec3{1, 0, 0}, 10, true, 3.5, vec3{-1, 0, 0}, true},
		{"capsule beyond maxT", capsule, at(0, 0, 0), vec3{-5, 0, 0}, vec3{1, 0, 0}, 4, false, 0, vec3{}, false},

		{"mesh never", &shape{kind: Mesh}, at(0, 0, 0), vec3{-5, 0, 0}, vec3{1, 0, 0}, 10, false, 0, vec3{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ht, n, ok := tc.s.raycast(tc.p, tc.o, tc.d, tc.maxT)
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v (t %v, n %v)", ok, tc.ok, ht, n)
			}
			if tc.approx {
				if abs(ht-tc.t) > max(1e-5, tc.t*2e-7) || !near(n, tc.n, 1e-4) {
					t.Fatalf("t %v n %v, want %v %v", ht, n, tc.t, tc.n)
				}
				return
			}
			if ht != tc.t || n != tc.n {
				t.Fatalf("t %v n %v, want %v %v", ht, n, tc.t, tc.n)
			}
		})
	}
}

// TestShapeRaycastConsistent checks random rays against the shapes' own
// definition: a hit point lies on the surface, points just before it along
// the ray are outside, and a miss never passes through the inside.
func TestShapeRaycastConsistent(t *testing.T) {
	r := lcg{21}
	shapes := []*shape{
		{kind: Sphere, radius: 0.7},
		{kind: Box, half: vec3{0.5, 1, 1.5}},
		{kind: Capsule, radius: 0.4, halfHeight: 0.8},
	}
	// dist is the signed distance from local point q to the shape's
	// surface (boxes: an upper bound outside, exact inside; good enough
	// for the sign).
	dist := func(s *shape, q vec3) float32 {
		switch s.kind {
		case Sphere:
			return q.length() - s.radius
		case Box:
			d := q.abs().sub(s.half)
			out := d.max(vec3{}).length()
			return out + min(max(d.x, d.y, d.z), 0)
		}
		y := clamp(q.y, -s.halfHeight, s.halfHeight)
		return q.sub(vec3{0, y, 0}).length() - s.radius
	}
	for k := range 3000 {
		s := shapes[k%3]
		p := pose{vec3{r.next() * 2, r.next() * 2, r.next() * 2}, r.rotation()}
		o := vec3{(r.next() - 0.5) * 8, (r.next() - 0.5) * 8, (r.next() - 0.5) * 8}
		target := p.p.add(vec3{(r.next() - 0.5) * 3, (r.next() - 0.5) * 3, (r.next() - 0.5) * 3})
		d := target.sub(o)
		ht, n, ok := s.raycast(p, o, d, 1)
		inside0 := dist(s, p.unapply(o)) <= 0
		if !ok {
			// No point along the ray may be well inside.
			for j := 0; j <= 100; j++ {
				if q := p.unapply(o.addScaled(d, float32(j)/100)); dist(s, q) < -1e-3 {
					t.Fatalf("case %d (%v): missed, but t=%v is inside", k, s.kind, float32(j)/100)
				}
			}
			continue
		}
		if ht == 0 {
			if !inside0 && dist(s, p.unapply(o)) > 1e-4 {
				t.Fatalf("case %d (%v): t 0 from outside", k, s.kind)
			}
			continue
		}
		hit := p.unapply(o.addScaled(d, ht))
		if dd := dist(s, hit); abs(dd) > 1e-4 {
			t.Fatalf("case %d (%v): hit point %v off the surface by %v", k, s.kind, hit, dd)
		}
		if l := n.length(); abs(l-1) > 1e-5 {
			t.Fatalf("case %d: normal length %v", k, l)
		}
		if n.dot(d) > 0 {
			t.Fatalf("case %d (%v): normal %v along the ray %v", k, s.kind, n, d)
		}
		for j := 0; j < 100; j++ {
			if q := p.unapply(o.addScaled(d, ht*float32(j)/100)); dist(s, q) < -1e-3 {
				t.Fatalf("case %d (%v): inside before the hit", k, s.kind)
			}
		}
	}
}

func TestShapeRaycastNoAllocations(t *testing.T) {
	s := &shape{kind: Capsule, radius: 0.5, halfHeight: 1}
	p := pose{vec3{1, 2, 3}, quat{0.1, 0.2, 0.3, 0.9}.normalize()}
	if a := testing.AllocsPerRun(100, func() { s.raycast(p, vec3{-5, 0, 0}, vec3{1, 0.4, 0.6}, 10) }); a != 0 {
		t.Fatalf("%v allocations", a)
	}
}
