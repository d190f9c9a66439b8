package physics

import (
	"math"
	"slices"
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

// boxVisit is a visit function whose bodies are their boxes, except those
// in solidless, which the ray passes through.
func boxVisit(boxes []aabb, o, d vec3, maxT float32, solidless map[int32]bool, seen *[]int32) func(int32) (float32, bool) {
	return func(i int32) (float32, bool) {
		*seen = append(*seen, i)
		if solidless[i] {
			return 0, false
		}
		return rayBoxEntry(&boxes[i], o, d, maxT)
	}
}

func TestBroadphaseRaycast(t *testing.T) {
	nan := float32(math.NaN())
	unitAt := func(x, y, z float32) aabb {
		return aabb{vec3{x - 0.5, y - 0.5, z - 0.5}, vec3{x + 0.5, y + 0.5, z + 0.5}}
	}
	boxes := []aabb{
		unitAt(6, 0, 0),                        // 0
		unitAt(2, 0, 0),                        // 1
		unitAt(4, 0, 0),                        // 2
		unitAt(2, 0, 0),                        // 3: the same place as 1
		{vec3{-50, -2, -50}, vec3{50, -1, 50}}, // 4: a floor, large
		unitAt(4, 5, 0),                        // 5: off the ray
		{vec3{nan, 0, 0}, vec3{1, 1, 1}},       // 6: never
	}
	var bp broadphase
	bp.pairs(boxes, make([]bool, len(boxes)), nil)
	for _, tc := range []struct {
		name      string
		o, d      vec3
		maxT      float32
		solidless map[int32]bool
		index     int32
		t         float32
		ok        bool
		visits    []int32
	}{
		{"nearest, tie to the lower index", vec3{0, 0, 0}, vec3{1, 0, 0}, 100, nil, 1, 1.5, true, []int32{1}},
		{"pass through the first", vec3{0, 0, 0}, vec3{1, 0, 0}, 100, map[int32]bool{1: true, 3: true}, 2, 3.5, true, []int32{1, 3, 2}},
		{"all along the ray", vec3{0, 0, 0}, vec3{1, 0, 0}, 100, map[int32]bool{0: true, 1: true, 2: true, 3: true}, -1, 0, false, []int32{1, 3, 2, 0}},
		{"maxT", vec3{0, 0, 0}, vec3{1, 0, 0}, 1.4, nil, -1, 0, false, nil},
		{"backwards", vec3{0, 0, 0}, vec3{-1, 0, 0}, 100, nil, -1, 0, false, nil},
		{"down to the floor", vec3{4, 5, 0}, vec3{0, -1, 0}, 100, nil, 5, 0, true, []int32{5}},
		{"down through", vec3{4, 5, 0}, vec3{0, -1, 0}, 100, map[int32]bool{5: true}, 2, 4.5, true, []int32{5, 2}},
		{"parallel on faces", vec3{0, 0.5, 0.5}, vec3{1, 0, 0}, 100, nil, 1, 1.5, true, []int32{1}},
		{"inside", vec3{4, 0, 0}, vec3{1, 0, 0}, 100, nil, 2, 0, true, []int32{2}},
		{"NaN origin", vec3{nan, 0, 0}, vec3{1, 0, 0}, 100, nil, -1, 0, false, nil},
		{"negative maxT", vec3{0, 0, 0}, vec3{1, 0, 0}, -1, nil, -1, 0, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen []int32
			i, ht, ok := bp.raycast(tc.o, tc.d, tc.maxT, boxVisit(boxes, tc.o, tc.d, tc.maxT, tc.solidless, &seen))
			if i != tc.index || ht != tc.t || ok != tc.ok || !slices.Equal(seen, tc.visits) {
				t.Fatalf("got %d %v %v visits %v, want %d %v %v %v", i, ht, ok, seen, tc.index, tc.t, tc.ok, tc.visits)
			}
		})
	}
}

// raycastBrute is the definition of broadphase.raycast: every box the ray
// enters, by (t, index), until the nearest hit.
func raycastBrute(boxes []aabb, origin, dir vec3, maxT float32, visit func(i int32) (float32, bool)) (index int32, t float32, ok bool) {
	index = -1
	if !origin.finite() || !dir.finite() || !(maxT >= 0) {
		return index, 0, false
	}
	var cands []rayCandidate
	for i := range boxes {
		if boxHasNaN(&boxes[i]) {
			continue
		}
		if et, in := rayBoxEntry(&boxes[i], origin, dir, maxT); in {
			cands = append(cands, rayCandidate{et, int32(i)})
		}
	}
	slices.SortFunc(cands, compareRays)
	for _, c := range cands {
		if ok && (c.t > t || (c.t == t && c.i > index)) {
			break
		}
		ht, hit := visit(c.i)
		if !hit || !(ht >= 0) || ht > maxT {
			continue
		}
		if !ok || ht < t || (ht == t && c.i < index) {
			index, t, ok = c.i, ht, true
		}
	}
	return index, t, ok
}

// TestBroadphaseRaycastMatchesBrute compares whole visit sequences with
// the definition, on piles and random worlds, for rays of every kind.
func TestBroadphaseRaycastMatchesBrute(t *testing.T) {
	r := lcg{44}
	inf := float32(math.Inf(1))
	var bp broadphase
	worlds := [][]aabb{}
	for _, f := range []func() ([]aabb, []bool){
		func() ([]aabb, []bool) { return pileLattice(10, 10, 10, 8) },
		func() ([]aabb, []bool) { return pileSettled(1000, 8) },
	} {
		b, _ := f()
		worlds = append(worlds, b)
	}
	for range 20 {
		b, _ := randomBoxes(&r, 1+int(r.next()*300), 1+r.next()*20)
		worlds = append(worlds, b)
	}
	for wi, boxes := range worlds {
		bp.pairs(boxes, make([]bool, len(boxes)), nil)
		for k := range 200 {
			o := vec3{(r.next() - 0.5) * 40, (r.next() - 0.5) * 30, (r.next() - 0.5) * 40}
			d := vec3{r.next() - 0.5, r.next() - 0.5, r.next() - 0.5}
			maxT := r.next() * 200
			switch k % 8 {
			case 0:
				d = vec3{0, 0, 0.5 + r.next()} // along an axis
			case 1:
				d = vec3{-1, 0, 0}
			case 2:
				d = vec3{0, -3, 0}
			case 3:
				maxT = inf
			case 4:
				d = vec3{} // not moving
			case 5:
				d = d.scale(1e-3) // slow: many pieces
			case 6:
				d = d.scale(1e4)
			}
			solidless := map[int32]bool{}
			for i := range boxes {
				if r.next() < 0.7 {
					solidless[int32(i)] = true
				}
			}
			var seen, wantSeen []int32
			i, ht, ok := bp.raycast(o, d, maxT, boxVisit(boxes, o, d, maxT, solidless, &seen))
			wi2, wt, wok := raycastBrute(boxes, o, d, maxT, boxVisit(boxes, o, d, maxT, solidless, &wantSeen))
			if i != wi2 || ht != wt || ok != wok || !slices.Equal(seen, wantSeen) {
				t.Fatalf("world %d ray %d (o %v d %v maxT %v): got %d %v %v visits %v\nwant %d %v %v visits %v",
					wi, k, o, d, maxT, i, ht, ok, seen, wi2, wt, wok, wantSeen)
			}
		}
	}
}

func TestBroadphaseRaycastRandom(t *testing.T) {
	r := lcg{33}
	var bp broadphase
	for trial := range 300 {
		boxes, active := randomBoxes(&r, 1+int(r.next()*200), 10)
		bp.pairs(boxes, active, nil)
		o := vec3{(r.next() - 0.5) * 30, (r.next() - 0.5) * 30, (r.next() - 0.5) * 30}
		d := vec3{r.next() - 0.5, r.next() - 0.5, r.next() - 0.5}
		if r.next() < 0.2 {
			d = vec3{0, 0, 1} // along an axis
		}
		maxT := 10 + r.next()*100
		solidless := map[int32]bool{}
		for i := range boxes {
			if r.next() < 0.5 {
				solidless[int32(i)] = true
			}
		}
		want, wantT, wantOK := int32(-1), float32(0), false
		for i := range boxes {
			if boxHasNaN(&boxes[i]) || solidless[int32(i)] {
				continue
			}
			if ht, hit := rayBoxEntry(&boxes[i], o, d, maxT); hit && (!wantOK || ht < wantT) {
				want, wantT, wantOK = int32(i), ht, true
			}
		}
		var seen []int32
		i, ht, ok := bp.raycast(o, d, maxT, boxVisit(boxes, o, d, maxT, solidless, &seen))
		if i != want || ht != wantT || ok != wantOK {
			t.Fatalf("trial %d: got %d %v %v, want %d %v %v", trial, i, ht, ok, want, wantT, wantOK)
		}
	}
}

func TestBroadphaseRaycastNoAllocations(t *testing.T) {
	boxes, active := pileSettled(1000, 8)
	var bp broadphase
	bp.pairs(boxes, active, nil)
	visit := func(i int32) (float32, bool) { return rayBoxEntry(&boxes[i], vec3{-20, 1, 0.3}, vec3{1, 0, 0}, 100) }
	bp.raycast(vec3{-20, 1, 0.3}, vec3{1, 0, 0}, 100, visit)
	if a := testing.AllocsPerRun(100, func() { bp.raycast(vec3{-20, 1, 0.3}, vec3{1, 0, 0}, 100, visit) }); a != 0 {
		t.Fatalf("%v allocations", a)
	}
}

func BenchmarkRaycast(b *testing.B) {
	boxes, active := pileSettled(4000, 16)
	var bp broadphase
	bp.pairs(boxes, active, nil)
	s := &shape{kind: Box, half: vec3{0.5, 0.5, 0.5}}
	o, d := vec3{-20, 3.3, 0.3}, vec3{1, -0.1, 0.05}
	visit := func(i int32) (float32, bool) {
		c := boxes[i].min.add(boxes[i].max).scale(0.5)
		t, _, ok := s.raycast(pose{c, identity}, o, d, 100)
		return t, ok
	}
	b.ReportAllocs()
	cpu := startThreadCPU()
	for b.Loop() {
		bp.raycast(o, d, 100, visit)
	}
	cpu.report(b)
}

// FuzzRaycast compares broadphase.raycast with its definition: the first 28
// bytes are the ray (origin, dir, maxT as float32), the rest the boxes.
func FuzzRaycast(f *testing.F) {
	f.Add(make([]byte, 28), []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Fuzz(func(t *testing.T, ray, world []byte) {
		if len(ray) < 28 {
			return
		}
		var c [7]float32
		for k := range c {
			c[k] = fuzzFloat(ray[4*k:])
		}
		o, d, maxT := vec3{c[0], c[1], c[2]}, vec3{c[3], c[4], c[5]}, c[6]
		boxes, active := fuzzBoxes(world)
		var bp broadphase
		bp.pairs(boxes, active, nil)
		solidless := map[int32]bool{}
		for i := range boxes {
			solidless[int32(i)] = active[i]
		}
		var seen, wantSeen []int32
		i, ht, ok := bp.raycast(o, d, maxT, boxVisit(boxes, o, d, maxT, solidless, &seen))
		wi, wt, wok := raycastBrute(boxes, o, d, maxT, boxVisit(boxes, o, d, maxT, solidless, &wantSeen))
		if i != wi || ht != wt || ok != wok || !slices.Equal(seen, wantSeen) {
			t.Fatalf("got %d %v %v visits %v, want %d %v %v visits %v", i, ht, ok, seen, wi, wt, wok, wantSeen)
		}
	})
}
