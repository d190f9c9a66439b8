package physics

import (
	"math"
	"slices"
	"testing"
)

// TestPairCacheCreep: a settled pile whose boxes creep from call to call,
// a few of them at a time out of their fat boxes and some far, with boxes
// appearing, vanishing, taking another's index, turning NaN and falling
// asleep; the pairs of each call are those of the definition and those of
// a broad phase that has seen nothing before, and the cache serves most
// calls, in each of its ways (a build, an update with stale boxes, nothing
// moved).
func TestPairCacheCreep(t *testing.T) {
	base, baseActive := pileSettled(1000, 8)
	cur := slices.Clone(base)
	active := slices.Clone(baseActive)
	r := lcg{23}
	var bp broadphase
	var out []pair
	served, updates := 0, 0
	const calls = 400
	for step := range calls {
		// Every box creeps by up to 0.5 mm; a few jump by up to 10 cm.
		for i := 5; i < len(cur); i++ {
			const c = 0.0005
			d := vec3{(r.next() - 0.5) * c, (r.next() - 0.5) * c, (r.next() - 0.5) * c}
			cur[i] = aabb{cur[i].min.add(d), cur[i].max.add(d)}
		}
		for range int(r.next() * 8) {
			i := 5 + int(r.next()*float32(len(cur)-5))
			d := vec3{(r.next() - 0.5) * 0.2, (r.next() - 0.5) * 0.2, (r.next() - 0.5) * 0.2}
			cur[i] = aabb{cur[i].min.add(d), cur[i].max.add(d)}
		}
		n := len(cur)
		switch step % 50 {
		case 10: // the last boxes vanish for a while
			n -= 7
		case 20: // one takes another's index
			cur[300] = cur[700]
		case 30: // a NaN, and a box wider than everything
			cur[400].max.y = float32(math.NaN())
			cur[401] = aabb{vec3{-100, -100, -100}, vec3{100, 100, 100}}
		case 31:
			cur[400], cur[401] = base[400], base[401]
		case 40: // some fall asleep, and wake
			for i := 5; i < 200; i++ {
				active[i] = !active[i]
			}
		}
		got := bp.pairs(cur[:n], active[:n], out)
		if bp.unbuilt != nil {
			served++
			if len(bp.cache.stale) > 0 {
				updates++
			}
		}
		var cold broadphase
		want := cold.exactPairs(cur[:n], active[:n], DefaultMaxPairs, nil)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: %d pairs, want %d", step, len(got), len(want))
		}
		if step%40 == 0 {
			if bf := bruteForce(cur[:n], active[:n]); !slices.Equal(got, bf) {
				t.Fatalf("step %d: %d pairs, brute force %d", step, len(got), len(bf))
			}
		}
		out = got
	}
	if served < calls*3/4 || updates < calls/4 {
		t.Errorf("the cache served %d of %d calls, %d with stale boxes", served, calls, updates)
	}
}

// TestPairCacheMovingPairs: boxes that leave their fat boxes together find
// each other (both moved), and find the boxes that moved before (stale) and
// those that have not (the rows).
func TestPairCacheMovingPairs(t *testing.T) {
	// A row of 200 unit boxes 1.5 m apart, all active: no pairs.
	var boxes []aabb
	for i := range 200 {
		x := float32(i) * 1.5
		boxes = append(boxes, aabb{vec3{x, 0, 0}, vec3{x + 1, 1, 1}})
	}
	active := make([]bool, len(boxes))
	for i := range active {
		active[i] = true
	}
	var bp broadphase
	var out []pair
	check := func(what string, want []pair) {
		t.Helper()
		out = bp.pairs(boxes, active, out)
		if !slices.Equal(out, want) {
			t.Fatalf("%s: %v, want %v", what, out, want)
		}
		if bf := bruteForce(boxes, active); !slices.Equal(out, bf) {
			t.Fatalf("%s: %v, brute force %v", what, out, bf)
		}
	}
	check("apart", nil)
	check("still", nil)
	check("still again", nil) // the second quiet call: the cache builds
	move := func(i int, dx float32) {
		boxes[i].min.x += dx
		boxes[i].max.x += dx
	}
	// 50 moves 0.6 m right (out of its fat box) and meets 51.
	move(50, 0.6)
	check("50 moved", []pair{{50, 51}})
	if bp.unbuilt == nil || len(bp.cache.stale) != 1 {
		t.Fatalf("not an update: served %v, %d stale", bp.unbuilt != nil, len(bp.cache.stale))
	}
	// 51 moves left into 50 (both stale now), and 120 and 121 move into
	// each other in the same call.
	move(51, -0.5)
	move(120, 0.6)
	move(121, -0.6)
	check("both moved", []pair{{50, 51}, {120, 121}})
	// 50 moves back; 51 still meets it.
	move(50, -0.6)
	check("back", []pair{{50, 51}, {120, 121}})
	// 51 goes on to 49 (not stale: from the rows).
	move(51, -1.6)
	check("to 49", []pair{{49, 51}, {50, 51}, {120, 121}})
	// 199 leaves, then comes back, far away.
	boxes = boxes[:199]
	active = active[:199]
	check("199 gone", []pair{{49, 51}, {50, 51}, {120, 121}})
	boxes = append(boxes, aabb{vec3{1000, 0, 0}, vec3{1001, 1, 1}})
	active = append(active, true)
	check("199 back", []pair{{49, 51}, {50, 51}, {120, 121}})
	boxes[199] = aabb{vec3{75, 0, 0}, vec3{76, 1, 1}} // on 50's place
	check("199 on 50's place", []pair{{49, 51}, {50, 51}, {50, 199}, {51, 199}, {120, 121}})
	// All but 199 fall asleep (the cache stands aside: the rows' search
	// of the active boxes is cheaper), 120 moves onto 10 meanwhile, and
	// all wake.
	for i := range active {
		active[i] = i == 199
	}
	check("asleep", []pair{{50, 199}, {51, 199}})
	move(120, -165)
	check("asleep, moved", []pair{{50, 199}, {51, 199}})
	for i := range active {
		active[i] = true
	}
	check("awake", []pair{{10, 120}, {11, 120}, {49, 51}, {50, 51}, {50, 199}, {51, 199}})
}

// TestPairCacheCap: where the fat boxes have more pairs than the cap, or
// the candidates grow past it, the cache stands aside and the cap holds as
// without it.
func TestPairCacheCap(t *testing.T) {
	// 100 unit boxes, each overlapping its neighbours by a hair: 99 pairs;
	// their fat boxes overlap the next 3 on each side.
	var boxes []aabb
	for i := range 100 {
		x := float32(i) * 0.99
		boxes = append(boxes, aabb{vec3{x, 0, 0}, vec3{x + 1, 1, 1}})
	}
	active := make([]bool, len(boxes))
	for i := range active {
		active[i] = true
	}
	for _, limit := range []int{50, 99, 100, 150} {
		bp := broadphase{maxPairs: limit}
		var out []pair
		for call := range 5 {
			out = bp.pairs(boxes, active, out)
			cold := broadphase{maxPairs: limit}
			want := cold.pairs(boxes, active, nil)
			if !slices.Equal(out, want) || bp.dropped != cold.dropped {
				t.Fatalf("limit %d, call %d: %d pairs (%d dropped), want %d (%d)", limit, call, len(out), bp.dropped, len(want), cold.dropped)
			}
		}
	}
	// 1,000 boxes apart gather in one spot two at a time, the cache
	// updating, until the candidates pass the cap; then the cap comes down.
	boxes = boxes[:0]
	for i := range 1000 {
		x := float32(i) * 1.5
		boxes = append(boxes, aabb{vec3{x, 0, 0}, vec3{x + 1, 1, 1}})
	}
	active = make([]bool, len(boxes))
	for i := range active {
		active[i] = true
	}
	bp := broadphase{maxPairs: 100}
	var out []pair
	updated := false
	for i := range 30 {
		for _, k := range []int{2 * i, 2*i + 1} {
			boxes[k] = aabb{vec3{-5, 0, 0}, vec3{-4, 1, 1}}
		}
		if i == 25 {
			bp.maxPairs = 20
		}
		out = bp.pairs(boxes, active, out)
		cold := broadphase{maxPairs: bp.maxPairs}
		want := cold.pairs(boxes, active, nil)
		if !slices.Equal(out, want) || bp.dropped != cold.dropped {
			t.Fatalf("gathered %d: %d pairs (%d dropped), want %d (%d)", 2*i+2, len(out), bp.dropped, len(want), cold.dropped)
		}
		if bp.cache.ok && len(bp.cache.cand) > bp.maxPairs {
			t.Fatalf("gathered %d: %d candidates kept", 2*i+2, len(bp.cache.cand))
		}
		updated = updated || len(bp.cache.stale) > 0
	}
	if !updated {
		t.Error("the cache never updated")
	}
}

// TestPairCacheNoAllocations: the cache's update allocates nothing once its
// slices have grown.
func TestPairCacheNoAllocations(t *testing.T) {
	boxes, active := pileSettled(1000, 8)
	moved := slices.Clone(boxes)
	for i := 100; i < 110; i++ {
		moved[i] = aabb{moved[i].min.add(vec3{0.3, 0, 0}), moved[i].max.add(vec3{0.3, 0, 0})}
	}
	var bp broadphase
	var out []pair
	for range 4 {
		out = bp.pairs(boxes, active, out)
		out = bp.pairs(moved, active, out)
	}
	allocs := testing.AllocsPerRun(10, func() {
		out = bp.pairs(boxes, active, out)
		out = bp.pairs(moved, active, out)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per two calls, want 0", allocs)
	}
	if bp.unbuilt == nil || len(bp.cache.stale) != 10 {
		t.Fatalf("not the cache's update: served %v, %d stale", bp.unbuilt != nil, len(bp.cache.stale))
	}
}
