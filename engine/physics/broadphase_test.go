package physics

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// lcg is generate.py's 32-bit generator (Numerical Recipes).
type lcg struct{ state uint32 }

func (r *lcg) next() float32 {
	r.state = 1664525*r.state + 1013904223
	return float32(float64(r.state) / (1 << 32))
}

// rotation draws a uniformly distributed rotation as generate.py does.
func (r *lcg) rotation() quat {
	for {
		c := [4]float64{}
		for k := range c {
			c[k] = 2*float64(r.next()) - 1
		}
		n2 := c[0]*c[0] + c[1]*c[1] + c[2]*c[2] + c[3]*c[3]
		if n2 > 1e-4 && n2 <= 1 {
			n := math.Sqrt(n2)
			q := quat{float32(c[0] / n), float32(c[1] / n), float32(c[2] / n), float32(c[3] / n)}
			if q.w < 0 {
				q = quat{-q.x, -q.y, -q.z, -q.w}
			}
			return q
		}
	}
}

// boxAABB is the box of a cuboid of half extents h at p turned by q.
func boxAABB(p vec3, q quat, h vec3) aabb {
	m := q.rotation()
	e := vec3{m.r0.abs().dot(h), m.r1.abs().dot(h), m.r2.abs().dot(h)}
	return aabb{p.sub(e), p.add(e)}
}

// pileWalls is generate.py's open box with inner half width w: floor, then
// four walls, all static.
func pileWalls(w float32) []aabb {
	o := w + 1
	return []aabb{
		{vec3{-o, -1, -o}, vec3{o, 0, o}},
		{vec3{-o, 0, -o}, vec3{-w, 10, o}},
		{vec3{w, 0, -o}, vec3{o, 10, o}},
		{vec3{-w, 0, -w - 1}, vec3{w, 10, -w}},
		{vec3{-w, 0, w}, vec3{w, 10, w + 1}},
	}
}

// pileLattice is the pile scene at its start: nx×ny×nz unit cubes spaced
// 1.5 m from y = 2, randomly turned, in the open box; the cubes are active.
func pileLattice(nx, ny, nz int, w float32) ([]aabb, []bool) {
	boxes := pileWalls(w)
	r := lcg{1}
	h := vec3{0.5, 0.5, 0.5}
	for iy := range ny {
		for iz := range nz {
			for ix := range nx {
				p := vec3{float32(ix-(nx-1)/2) * 1.5, 2 + float32(iy)*1.5, float32(iz-(nz-1)/2) * 1.5}
				p.x -= float32((nx-1)%2) * 0.75
				p.z -= float32((nz-1)%2) * 0.75
				boxes = append(boxes, boxAABB(p, r.rotation(), h))
			}
		}
	}
	active := make([]bool, len(boxes))
	for i := 5; i < len(active); i++ {
		active[i] = true
	}
	return boxes, active
}

// pileSettled is a pile after landing: n unit cubes in loose layers on the
// floor of the open box with inner half width w, each slightly tilted and
// pushed off its place so that neighbours touch; the cubes are active.
func pileSettled(n int, w float32) ([]aabb, []bool) {
	boxes := pileWalls(w)
	r := lcg{7}
	side := int(2 * w / 1.1) // cubes per row
	for i := range n {
		layer := i / (side * side)
		k := i % (side * side)
		p := vec3{
			-w + 0.55 + float32(k%side)*1.1 + (r.next()-0.5)*0.2,
			0.5 + float32(layer)*1.0 + r.next()*0.05,
			-w + 0.55 + float32(k/side)*1.1 + (r.next()-0.5)*0.2,
		}
		t := quat{(r.next() - 0.5) * 0.2, (r.next() - 0.5) * 0.6, (r.next() - 0.5) * 0.2, 1}.normalize()
		boxes = append(boxes, boxAABB(p, t, vec3{0.5, 0.5, 0.5}))
	}
	active := make([]bool, len(boxes))
	for i := 5; i < len(active); i++ {
		active[i] = true
	}
	return boxes, active
}

// levelLayout is level geometry: 2,000 static 10 m boxes (a coarser
// level), 4,000 active cubes among them, and 500 active 2 cm specks (a
// finer level).
func levelLayout() ([]aabb, []bool) {
	r := lcg{3}
	var boxes []aabb
	for range 2000 {
		c := vec3{r.next() * 300, r.next() * 5, r.next() * 300}
		boxes = append(boxes, aabb{c, c.add(vec3{10, 3, 10})})
	}
	for range 4000 {
		c := vec3{r.next() * 300, 3 + r.next()*5, r.next() * 300}
		boxes = append(boxes, aabb{c, c.add(vec3{1, 1, 1})})
	}
	for range 500 {
		c := vec3{r.next() * 300, 3 + r.next()*5, r.next() * 300}
		boxes = append(boxes, aabb{c, c.add(vec3{0.02, 0.02, 0.02})})
	}
	active := make([]bool, len(boxes))
	for i := 2000; i < len(active); i++ {
		active[i] = true
	}
	return boxes, active
}

// bruteForce is the definition of pairs.
func bruteForce(boxes []aabb, active []bool) []pair {
	var out []pair
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			if (active[i] || active[j]) && boxes[i].overlaps(boxes[j]) {
				out = append(out, pair{int32(i), int32(j)})
			}
		}
	}
	return out
}

// randomBoxes makes n boxes of mixed sizes (mostly small, some large, a
// few degenerate) in a region of the given half width, with random active
// flags (a random share of them active).
func randomBoxes(r *lcg, n int, half float32) ([]aabb, []bool) {
	boxes := make([]aabb, n)
	active := make([]bool, n)
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	awake := r.next() // the share of active boxes
	for i := range boxes {
		c := vec3{(r.next()*2 - 1) * half, (r.next()*2 - 1) * half, (r.next()*2 - 1) * half}
		s := r.next()
		var e vec3
		switch {
		case s < 0.02:
			e = vec3{r.next() * half, r.next() * half * 0.1, r.next() * half} // large
		case s < 0.04:
			e = vec3{} // a point
		case s < 0.05:
			e = vec3{r.next() * 3, r.next() * 3, r.next() * 3}
		default:
			e = vec3{0.2 + r.next()*0.8, 0.2 + r.next()*0.8, 0.2 + r.next()*0.8}
		}
		boxes[i] = aabb{c.sub(e), c.add(e)}
		switch {
		case s > 0.995:
			boxes[i].min.y = nan
		case s > 0.99:
			boxes[i].max.x = inf
		case s > 0.985:
			boxes[i].min, boxes[i].max = boxes[i].max, boxes[i].min // inverted
		case s > 0.98:
			boxes[i].min.z = -inf
		}
		active[i] = r.next() < awake
	}
	return boxes, active
}

func TestPairsMatchBruteForce(t *testing.T) {
	r := lcg{3}
	var bp broadphase
	var out []pair
	for trial := range 200 {
		n := 1 + int(r.next()*300)
		half := 1 + r.next()*20
		boxes, active := randomBoxes(&r, n, half)
		want := bruteForce(boxes, active)
		out = bp.pairs(boxes, active, out)
		if !slices.Equal(out, want) {
			t.Fatalf("trial %d (%d boxes): %d pairs, want %d\ngot  %v\nwant %v", trial, n, len(out), len(want), out, want)
		}
		if bp.dropped != 0 {
			t.Fatalf("trial %d: dropped %d", trial, bp.dropped)
		}
	}
}

// TestPairsMixedSizes has sizes spread over four orders of magnitude, so
// that many boxes are large and the cell is far from most sizes.
func TestPairsMixedSizes(t *testing.T) {
	r := lcg{9}
	var bp broadphase
	var out []pair
	for trial := range 50 {
		n := 1 + int(r.next()*400)
		boxes := make([]aabb, n)
		active := make([]bool, n)
		awake := r.next()
		for i := range boxes {
			c := vec3{(r.next() - 0.5) * 100, (r.next() - 0.5) * 100, (r.next() - 0.5) * 100}
			e := vec3{
				float32(math.Pow(10, float64(r.next()*4-2))),
				float32(math.Pow(10, float64(r.next()*4-2))),
				float32(math.Pow(10, float64(r.next()*4-2))),
			}
			boxes[i] = aabb{c.sub(e), c.add(e)}
			active[i] = r.next() < awake
		}
		want := bruteForce(boxes, active)
		out = bp.pairs(boxes, active, out)
		if !slices.Equal(out, want) {
			t.Fatalf("trial %d: %d pairs, want %d", trial, len(out), len(want))
		}
	}
}

// TestPairsFinerLevels: boxes far smaller than most go to finer levels (a
// child broad phase, and its child), crowded where they would otherwise
// share one cell by the thousand.
func TestPairsFinerLevels(t *testing.T) {
	r := lcg{23}
	var bp broadphase
	var out []pair
	for trial := range 20 {
		var boxes []aabb
		add := func(n int, size, spread, x float32) {
			for range n {
				c := vec3{x + r.next()*spread, r.next() * spread, r.next() * spread}
				boxes = append(boxes, aabb{c, c.add(vec3{size, size * (0.5 + r.next()), size})})
			}
		}
		add(1500, 1, 30, 0)         // most: unit boxes
		add(800, 0.04, 1.5, 10)     // a crowd of 4 cm boxes
		add(300, 0.001, 0.05, 10.5) // and of 1 mm ones among them
		add(3, 20, 1, -5)           // and some large ones
		active := make([]bool, len(boxes))
		awake := r.next()
		for i := range active {
			active[i] = r.next() < awake
		}
		want := bruteForce(boxes, active)
		out = bp.pairs(boxes, active, out)
		if !slices.Equal(out, want) {
			t.Fatalf("trial %d: %d pairs, want %d", trial, len(out), len(want))
		}
		if len(bp.tinyList) != 1100 || bp.child == nil || len(bp.child.tinyList) != 300 {
			t.Fatalf("trial %d: levels of %d and %d tiny boxes, want 1100 and 300", trial, len(bp.tinyList), len(bp.child.tinyList))
		}
		// The queries see every level.
		for _, q := range boxes[1500:1510] {
			q = q.grow(0.01)
			var wantQ []int32
			for i := range boxes {
				if q.overlaps(boxes[i]) {
					wantQ = append(wantQ, int32(i))
				}
			}
			if got := bp.overlapping(q, nil); !slices.Equal(got, wantQ) {
				t.Fatalf("trial %d: overlapping %v, want %v", trial, got, wantQ)
			}
		}
	}
	// The cap holds across levels.
	boxes := make([]aabb, 0, 3000)
	for range 1000 {
		boxes = append(boxes, aabb{vec3{0, 0, 0}, vec3{1, 1, 1}})
	}
	for range 2000 {
		boxes = append(boxes, aabb{vec3{0.5, 0.5, 0.5}, vec3{0.5001, 0.5001, 0.5001}})
	}
	boxes = append(boxes[:1000], boxes[1000:1600]...) // 1,000 unit boxes, 600 specks: specks are the minority
	active := make([]bool, len(boxes))
	for i := range active {
		active[i] = true
	}
	capped := broadphase{maxPairs: 5000}
	out = capped.pairs(boxes, active, out)
	all := bruteForce(boxes, active)
	if len(capped.tinyList) == 0 || !slices.Equal(out, all[:5000]) || capped.dropped < 1 {
		t.Fatalf("capped: %d pairs (tiny %d, dropped %d), want the first 5000 of %d", len(out), len(capped.tinyList), capped.dropped, len(all))
	}
}

// TestPairsCoarserLevels: many boxes far larger than most (level geometry)
// go to a coarser level of their own (which may split again), rather than
// the large list; small boxes query it.
func TestPairsCoarserLevels(t *testing.T) {
	r := lcg{29}
	var bp broadphase
	var out []pair
	for trial := range 20 {
		var boxes []aabb
		add := func(n int, size, spread float32) {
			for range n {
				c := vec3{r.next() * spread, r.next() * spread * 0.2, r.next() * spread}
				boxes = append(boxes, aabb{c, c.add(vec3{size * (0.5 + r.next()), size, size * (0.5 + r.next())})})
			}
		}
		add(1000, 1, 100)  // most: unit boxes
		add(300, 10, 100)  // level geometry: 10 m boxes
		add(60, 100, 100)  // and 100 m ones
		add(200, 0.01, 30) // and 1 cm specks
		active := make([]bool, len(boxes))
		awake := r.next()
		for i := range active {
			active[i] = r.next() < awake
		}
		if trial%3 == 0 { // the level geometry static, as usual
			for i := 1000; i < 1360; i++ {
				active[i] = false
			}
		}
		want := bruteForce(boxes, active)
		out = bp.pairs(boxes, active, out)
		if !slices.Equal(out, want) {
			t.Fatalf("trial %d: %d pairs, want %d", trial, len(out), len(want))
		}
		if len(bp.coarseList) != 360 || len(bp.tinyList) != 200 {
			t.Fatalf("trial %d: %d coarse and %d tiny boxes, want 360 and 200", trial, len(bp.coarseList), len(bp.tinyList))
		}
		for _, q := range boxes[990:1010] {
			var wantQ []int32
			for i := range boxes {
				if q.overlaps(boxes[i]) {
					wantQ = append(wantQ, int32(i))
				}
			}
			if got := bp.overlapping(q, nil); !slices.Equal(got, wantQ) {
				t.Fatalf("trial %d: overlapping %v, want %v", trial, got, wantQ)
			}
		}
		// Capped: the first pairs in (a, b) order across the levels.
		capped := broadphase{maxPairs: len(want) / 2}
		if got := capped.pairs(boxes, active, nil); len(want) > 1 && (!slices.Equal(got, want[:len(want)/2]) || capped.dropped < 1) {
			t.Fatalf("trial %d: capped at %d: %d pairs, dropped %d", trial, len(want)/2, len(got), capped.dropped)
		}
	}
}

func TestPairsPiles(t *testing.T) {
	for _, tc := range []struct {
		name   string
		layout func() ([]aabb, []bool)
	}{
		{"lattice-1000", func() ([]aabb, []bool) { return pileLattice(10, 10, 10, 8) }},
		{"settled-1000", func() ([]aabb, []bool) { return pileSettled(1000, 8) }},
		{"lattice-4000", func() ([]aabb, []bool) { return pileLattice(20, 10, 20, 16) }},
		{"settled-4000", func() ([]aabb, []bool) { return pileSettled(4000, 16) }},
		{"level", levelLayout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			boxes, active := tc.layout()
			var bp broadphase
			want := bruteForce(boxes, active)
			got := bp.pairs(boxes, active, nil)
			if !slices.Equal(got, want) {
				t.Fatalf("%d pairs, want %d", len(got), len(want))
			}
			// A few asleep: only pairs with an awake box.
			for i := range active {
				active[i] = i >= 5 && i%7 == 0
			}
			want = bruteForce(boxes, active)
			got = bp.pairs(boxes, active, got)
			if !slices.Equal(got, want) {
				t.Fatalf("mostly asleep: %d pairs, want %d", len(got), len(want))
			}
			t.Logf("%d boxes, %d rows of %g m, %d large", len(boxes), len(bp.rows), 1/bp.inv, len(bp.large))
		})
	}
}

// TestPairsColdWarm checks that the result does not depend on what the
// broad phase saw before: a fresh one and one with a shuffled history give
// the same pairs, and the same slice contents whatever out held.
func TestPairsColdWarm(t *testing.T) {
	r := lcg{11}
	var warm broadphase
	junk := make([]pair, 0, 5000)
	for k := range 50 {
		n := 1 + int(r.next()*500)
		boxes, active := randomBoxes(&r, n, 1+r.next()*30)
		// History: a few unrelated calls on the warm one.
		for range int(r.next() * 3) {
			b2, a2 := randomBoxes(&r, int(r.next()*400), 10)
			junk = warm.pairs(b2, a2, junk)
		}
		var cold broadphase
		c := cold.pairs(boxes, active, nil)
		w := warm.pairs(boxes, active, junk)
		if !slices.Equal(c, w) {
			t.Fatalf("case %d: cold %d pairs, warm %d", k, len(c), len(w))
		}
		junk = w
	}
	// The same with a pile whose boxes move a little between calls, in
	// both orders.
	boxes, active := pileLattice(10, 10, 10, 8)
	moved := slices.Clone(boxes)
	for i := 5; i < len(moved); i++ {
		d := vec3{0, -0.3 * float32(i%5), 0.1}
		moved[i] = aabb{moved[i].min.add(d), moved[i].max.add(d)}
	}
	var a, b broadphase
	a.pairs(moved, active, nil)
	x := a.pairs(boxes, active, nil)
	y := b.pairs(boxes, active, nil)
	if !slices.Equal(x, y) {
		t.Fatal("warm after a moved pile differs from cold")
	}
	// A pile jiggled by more and more from call to call: last call's order
	// is nearly right (the insertion sort finishes), then far off (the
	// radix sort takes over); boxes appear, vanish and turn NaN.
	r2 := lcg{17}
	cur := slices.Clone(boxes)
	for step := range 60 {
		jig := float32(math.Pow(10, float64(step%6)-4))
		for i := 5; i < len(cur); i++ {
			d := vec3{(r2.next() - 0.5) * jig, (r2.next() - 0.5) * jig, (r2.next() - 0.5) * jig}
			cur[i] = aabb{cur[i].min.add(d), cur[i].max.add(d)}
		}
		n := len(cur) - int(r2.next()*20)
		if step%7 == 3 {
			cur[100].min.x = float32(math.NaN())
		}
		var cold broadphase
		w := a.pairs(cur[:n], active[:n], x)
		c := cold.pairs(cur[:n], active[:n], nil)
		if !slices.Equal(w, c) {
			t.Fatalf("step %d (jiggle %g): warm %d pairs, cold %d", step, jig, len(w), len(c))
		}
		if step%7 == 3 {
			cur[100] = boxes[100]
		}
		x = w
	}
}

func TestPairsCap(t *testing.T) {
	// 3,000 boxes in one spot: 4,498,500 pairs; keep 10,000.
	const n = 3000
	boxes := make([]aabb, n)
	active := make([]bool, n)
	for i := range boxes {
		boxes[i] = aabb{vec3{0, 0, 0}, vec3{1, 1, 1}}
		active[i] = true
	}
	bp := broadphase{maxPairs: 10000}
	out := bp.pairs(boxes, active, nil)
	if len(out) != 10000 {
		t.Fatalf("%d pairs, want the cap 10000", len(out))
	}
	// The first 10,000 in (a, b) order: a = 0 has 2,999, a = 1 2,998, ...
	k := 0
	for a := int32(0); k < len(out); a++ {
		for b := a + 1; b < n && k < len(out); b++ {
			if out[k] != (pair{a, b}) {
				t.Fatalf("pair %d is %v, want %v", k, out[k], pair{a, b})
			}
			k++
		}
	}
	if bp.dropped < 1 {
		t.Fatalf("dropped %d, want at least 1", bp.dropped)
	}
	// Exactly at the cap: nothing dropped.
	boxes, active = boxes[:100], active[:100]
	bp.maxPairs = 100 * 99 / 2
	out = bp.pairs(boxes, active, out)
	if len(out) != 4950 || bp.dropped != 0 {
		t.Fatalf("at the cap: %d pairs, %d dropped", len(out), bp.dropped)
	}
	// Inactive ones are not counted against the cap.
	for i := 2; i < 100; i++ {
		active[i] = false
	}
	bp.maxPairs = 197
	out = bp.pairs(boxes, active, out)
	if !slices.Equal(out, bruteForce(boxes, active)) || bp.dropped != 0 {
		t.Fatalf("two active: %d pairs, %d dropped", len(out), bp.dropped)
	}
}

func TestPairsCapManyBoxes(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 boxes")
	}
	// 100,000 boxes in one spot with the default cap, all or some of them
	// active: a bounded answer, the first pairs in (a, b) order. (Each takes
	// a fraction of a second; without care, the sparse ones took seconds.)
	const n = 100000
	boxes := make([]aabb, n)
	active := make([]bool, n)
	for i := range boxes {
		boxes[i] = aabb{vec3{5, 5, 5}, vec3{6, 6, 6}}
	}
	var bp broadphase
	var out []pair
	for _, every := range []int{1, 7, 1000} {
		for i := range active {
			active[i] = i%every == 0
		}
		out = bp.pairs(boxes, active, out)
		if len(out) != DefaultMaxPairs || bp.dropped < 1 {
			t.Fatalf("1/%d active: %d pairs, %d dropped", every, len(out), bp.dropped)
		}
		k := 0
		for a := int32(0); k < len(out); a++ {
			b, step := a+1, int32(1)
			if !active[a] { // only the active partners: the multiples of every
				b, step = (a/int32(every)+1)*int32(every), int32(every)
			}
			for ; b < n && k < len(out); b += step {
				if out[k] != (pair{a, b}) {
					t.Fatalf("1/%d active: pair %d is %v, want %v", every, k, out[k], pair{a, b})
				}
				k++
			}
		}
	}
}

func TestPairsDegenerate(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	unit := aabb{vec3{0, 0, 0}, vec3{1, 1, 1}}
	for _, tc := range []struct {
		name  string
		boxes []aabb
		want  []pair
	}{
		{"empty", nil, nil},
		{"one", []aabb{unit}, nil},
		{"touching faces", []aabb{unit, {vec3{1, 0, 0}, vec3{2, 1, 1}}}, []pair{{0, 1}}},
		{"apart", []aabb{unit, {vec3{1.0001, 0, 0}, vec3{2, 1, 1}}}, nil},
		{"nan", []aabb{unit, {vec3{0, nan, 0}, vec3{1, 1, 1}}, unit}, []pair{{0, 2}}},
		{"all nan", []aabb{{vec3{nan, nan, nan}, vec3{nan, nan, nan}}, {vec3{nan, nan, nan}, vec3{nan, nan, nan}}}, nil},
		{"infinite", []aabb{{vec3{-inf, -inf, -inf}, vec3{inf, inf, inf}}, unit, {vec3{1e30, 1e30, 1e30}, vec3{3e38, 3e38, 3e38}}}, []pair{{0, 1}, {0, 2}}},
		{"far apart", []aabb{unit, {vec3{1e30, 0, 0}, vec3{1e30, 1, 1}}, {vec3{-3e38, 0, 0}, vec3{-3e38, 1, 1}}}, nil},
		{"huge coordinates", []aabb{{vec3{1e30, 0, 0}, vec3{1e30, 1, 1}}, {vec3{1e30, 0.5, 0}, vec3{1e30, 1.5, 1}}}, []pair{{0, 1}}},
		{"points", []aabb{{vec3{1, 1, 1}, vec3{1, 1, 1}}, {vec3{1, 1, 1}, vec3{1, 1, 1}}, {vec3{1, 1, 2}, vec3{1, 1, 2}}}, []pair{{0, 1}}},
		{"tiny", []aabb{{vec3{0, 0, 0}, vec3{1e-30, 1e-30, 1e-30}}, {vec3{1e-30, 0, 0}, vec3{2e-30, 1e-30, 1e-30}}, {vec3{3e-30, 0, 0}, vec3{4e-30, 1e-30, 1e-30}}}, []pair{{0, 1}}},
		{"inverted", []aabb{{vec3{2, 0, 0}, vec3{1, 1, 1}}, {vec3{0, 0, 0}, vec3{3, 1, 1}}, unit}, []pair{{0, 1}, {1, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			active := make([]bool, len(tc.boxes))
			for i := range active {
				active[i] = true
			}
			var bp broadphase
			got := bp.pairs(tc.boxes, active, nil)
			if !slices.Equal(got, tc.want) || !slices.Equal(got, bruteForce(tc.boxes, active)) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPairsInverted: a box with min > max on some axis is a caller's bug,
// but pairs still agrees with aabb.overlaps about it, whichever axis it is
// inverted on, and whatever the sweep axis.
func TestPairsInverted(t *testing.T) {
	r := lcg{19}
	for trial := range 300 {
		n := 2 + int(r.next()*40)
		boxes := make([]aabb, n)
		active := make([]bool, n)
		spread := vec3{1 + r.next()*10, 1 + r.next()*10, 1 + r.next()*10}
		for i := range boxes {
			c := vec3{r.next() * spread.x, r.next() * spread.y, r.next() * spread.z}
			e := vec3{r.next() * 2, r.next() * 2, r.next() * 2}
			boxes[i] = aabb{c.sub(e), c.add(e)}
			if r.next() < 0.2 {
				switch int(r.next() * 3) {
				case 0:
					boxes[i].min.x, boxes[i].max.x = boxes[i].max.x, boxes[i].min.x
				case 1:
					boxes[i].min.y, boxes[i].max.y = boxes[i].max.y, boxes[i].min.y
				default:
					boxes[i].min.z, boxes[i].max.z = boxes[i].max.z, boxes[i].min.z
				}
			}
			active[i] = r.next() < 0.5
		}
		var bp broadphase
		if got, want := bp.pairs(boxes, active, nil), bruteForce(boxes, active); !slices.Equal(got, want) {
			t.Fatalf("trial %d: got %v, want %v", trial, got, want)
		}
		for _, q := range boxes {
			var want []int32
			for i := range boxes {
				if q.overlaps(boxes[i]) {
					want = append(want, int32(i))
				}
			}
			if got := bp.overlapping(q, nil); !slices.Equal(got, want) {
				t.Fatalf("trial %d: overlapping %v: %v, want %v", trial, q, got, want)
			}
		}
	}
}

func TestPairsNoAllocations(t *testing.T) {
	boxes, active := pileSettled(1000, 8)
	var bp broadphase
	out := bp.pairs(boxes, active, nil)
	out = bp.pairs(boxes, active, out) // the second call sorts from the first's order
	allocs := testing.AllocsPerRun(10, func() { out = bp.pairs(boxes, active, out) })
	if allocs != 0 {
		t.Fatalf("%v allocations per call, want 0", allocs)
	}
	// Levels: a coarser and a finer one.
	lb, la := levelLayout()
	var lbp broadphase
	var lout []pair
	for range 3 {
		lout = lbp.pairs(lb, la, lout)
	}
	if len(lbp.coarseList) == 0 || len(lbp.tinyList) == 0 {
		t.Fatalf("level layout: %d coarse, %d tiny boxes", len(lbp.coarseList), len(lbp.tinyList))
	}
	if allocs := testing.AllocsPerRun(10, func() { lout = lbp.pairs(lb, la, lout) }); allocs != 0 {
		t.Fatalf("levels: %v allocations per call, want 0", allocs)
	}
	// Mostly asleep: the active boxes search.
	for i := range active {
		active[i] = i%20 == 0
	}
	out = bp.pairs(boxes, active, out)
	if allocs := testing.AllocsPerRun(10, func() { out = bp.pairs(boxes, active, out) }); allocs != 0 {
		t.Fatalf("mostly asleep: %v allocations per call, want 0", allocs)
	}
}

func TestPairsPanicsOnMismatchedFlags(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || fmt.Sprint(r)[:9] != "physics: " {
			t.Fatalf("recovered %v, want a physics: panic", r)
		}
	}()
	var bp broadphase
	bp.pairs(make([]aabb, 3), make([]bool, 2), nil)
}

func TestOverlapping(t *testing.T) {
	r := lcg{5}
	var bp broadphase
	var out []int32
	for trial := range 100 {
		boxes, active := randomBoxes(&r, 1+int(r.next()*300), 1+r.next()*20)
		bp.pairs(boxes, active, nil)
		for range 20 {
			c := vec3{(r.next()*2 - 1) * 20, (r.next()*2 - 1) * 20, (r.next()*2 - 1) * 20}
			e := vec3{r.next() * 5, r.next() * 5, r.next() * 5}
			q := aabb{c.sub(e), c.add(e)}
			if r.next() < 0.05 {
				q.max.x = float32(math.Inf(1))
			}
			var want []int32
			for i := range boxes {
				if q.overlaps(boxes[i]) {
					want = append(want, int32(i))
				}
			}
			out = bp.overlapping(q, out)
			if !slices.Equal(out, want) {
				t.Fatalf("trial %d: got %v, want %v", trial, out, want)
			}
		}
	}
	boxes, active := pileSettled(1000, 8)
	bp.pairs(boxes, active, nil)
	q := aabb{vec3{-1, 0, -1}, vec3{1, 3, 1}}
	out = bp.overlapping(q, out)
	if allocs := testing.AllocsPerRun(10, func() { out = bp.overlapping(q, out) }); allocs != 0 {
		t.Fatalf("%v allocations per query", allocs)
	}
}

func benchmarkPairs(b *testing.B, boxes []aabb, active []bool) {
	var bp broadphase
	out := bp.pairs(boxes, active, nil)
	out = bp.pairs(boxes, active, out) // the second call sorts from the first's order
	out = bp.pairs(boxes, active, out) // and grows what that needs
	b.ReportAllocs()
	cpu := startThreadCPU()
	for b.Loop() {
		out = bp.pairs(boxes, active, out)
	}
	cpu.report(b)
	b.ReportMetric(float64(len(out)), "pairs")
}

func BenchmarkPairs(b *testing.B) {
	for _, tc := range []struct {
		name   string
		layout func() ([]aabb, []bool)
	}{
		{"lattice-1000", func() ([]aabb, []bool) { return pileLattice(10, 10, 10, 8) }},
		{"settled-1000", func() ([]aabb, []bool) { return pileSettled(1000, 8) }},
		{"lattice-4000", func() ([]aabb, []bool) { return pileLattice(20, 10, 20, 16) }},
		{"settled-4000", func() ([]aabb, []bool) { return pileSettled(4000, 16) }},
		{"level-2000-static-4000-cubes-500-specks", levelLayout},
		{"settled-4000-asleep", func() ([]aabb, []bool) {
			boxes, active := pileSettled(4000, 16)
			for i := range active {
				active[i] = i >= 5 && i%50 == 0
			}
			return boxes, active
		}},
	} {
		boxes, active := tc.layout()
		b.Run(tc.name, func(b *testing.B) { benchmarkPairs(b, boxes, active) })
	}
	// The stand-in it replaces, every pair tested, for scale in the same
	// run (the machines are shared and noisy).
	b.Run("all-pairs-settled-1000", func(b *testing.B) {
		boxes, active := pileSettled(1000, 8)
		cpu := startThreadCPU()
		n := 0
		for b.Loop() {
			n = len(bruteForce(boxes, active))
		}
		cpu.report(b)
		b.ReportMetric(float64(n), "pairs")
	})
}

// FuzzPairs checks pairs and overlapping against their definitions on
// boxes made of arbitrary numbers.
func FuzzPairs(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25})
	f.Add([]byte("\x00\x00\xc0\x7f\x00\x00\x80\x7f\x00\x00\x80\xff\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		boxes, active := fuzzBoxes(data)
		var bp broadphase
		got := bp.pairs(boxes, active, nil)
		if want := bruteForce(boxes, active); !slices.Equal(got, want) {
			t.Fatalf("pairs %v, want %v", got, want)
		}
		// Twice more, the second time with the last box moved by its
		// own size over 16: the pair cache builds, then updates (when
		// there are enough boxes), and the queries below answer about
		// the last call's boxes.
		for call := range 2 {
			if call == 1 && len(boxes) > 0 {
				b := &boxes[len(boxes)-1]
				d := boxSize(b) / 16
				b.min.x, b.max.x = b.min.x+d, b.max.x+d
			}
			got = bp.pairs(boxes, active, got)
			if want := bruteForce(boxes, active); !slices.Equal(got, want) {
				t.Fatalf("call %d: pairs %v, want %v", call+2, got, want)
			}
		}
		for _, q := range boxes {
			var want []int32
			for i := range boxes {
				if q.overlaps(boxes[i]) {
					want = append(want, int32(i))
				}
			}
			if got := bp.overlapping(q, nil); !slices.Equal(got, want) {
				t.Fatalf("overlapping %v: %v, want %v", q, got, want)
			}
		}
	})
}

// fuzzBoxes makes boxes from fuzz data: seven bytes a box, small
// coordinates, or 25 with raw float32 bits when the first byte's top bit
// is set (its low bit: active).
func fuzzBoxes(data []byte) ([]aabb, []bool) {
	var boxes []aabb
	var active []bool
	for len(data) >= 7 && len(boxes) < 200 {
		var c [6]float32
		if data[0]&0x80 != 0 && len(data) >= 25 {
			for k := range c {
				c[k] = fuzzFloat(data[1+4*k:])
			}
			active = append(active, data[0]&1 != 0)
			data = data[25:]
		} else {
			for k := range c {
				c[k] = float32(int8(data[1+k])) / 8
			}
			active = append(active, data[0]&1 != 0)
			data = data[7:]
		}
		lo := vec3{c[0], c[1], c[2]}
		boxes = append(boxes, aabb{lo, lo.add(vec3{abs(c[3]), abs(c[4]), abs(c[5])})})
	}
	return boxes, active
}

// fuzzFloat reads a little-endian float32 from the first four bytes of b.
func fuzzFloat(b []byte) float32 {
	return math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
}

func BenchmarkOverlapping(b *testing.B) {
	boxes, active := pileSettled(4000, 16)
	var bp broadphase
	bp.pairs(boxes, active, nil)
	q := aabb{vec3{-1, 0, -1}, vec3{2, 3, 2}} // a 3 m box in the pile
	out := bp.overlapping(q, nil)
	b.ReportAllocs()
	cpu := startThreadCPU()
	for b.Loop() {
		out = bp.overlapping(q, out)
	}
	cpu.report(b)
	b.ReportMetric(float64(len(out)), "boxes")
}

// TestBuildForQueries: build alone (no active flags) readies the queries.
func TestBuildForQueries(t *testing.T) {
	boxes, _ := pileSettled(1000, 8)
	var bp broadphase
	bp.build(boxes, nil)
	q := aabb{vec3{-1, 0, -1}, vec3{1, 3, 1}}
	var want []int32
	for i := range boxes {
		if q.overlaps(boxes[i]) {
			want = append(want, int32(i))
		}
	}
	if got := bp.overlapping(q, nil); !slices.Equal(got, want) {
		t.Fatalf("overlapping: %v, want %v", got, want)
	}
}
