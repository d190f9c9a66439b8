package engine

import (
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
)

// BenchmarkPropagate measures PropagateTransforms over 100,000 entities:
// in trees of 100 entities up to 10 levels deep (1,000 roots), and beside
// it a flat world of 100,000 roots, without any parent (propagation has
// nothing to do) and with one parent (every root's world transform is
// copied). ns/entity is the time per tick divided by the entities;
// cpu-ns/entity the process's CPU time per tick divided by the entities,
// which other processes on a shared machine do not inflate (it may count a
// little of the runtime's background work).
//
//	GOMAXPROCS=1 go test -run x -bench Propagat -benchmem -count 5 ./engine
//
// On one core of a shared 2.45 GHz AMD EPYC (medians of 4, the quietest
// runs): trees 10.4 cpu-ns/entity, chains 10.0, flat 0 (3 ns a call),
// flat with one link 2.0 (the copy of the roots); 0 allocations. A
// composition is 67 scalar float32 operations (its products rounded one by
// one, so never fused), about 130 instructions with the loads, the stores
// and the register copies that two-operand SSE needs; at four or five a
// cycle that is 10 to 13 ns at this clock, near the floor for scalar code
// (going below would take SIMD, which Go reaches only in assembly).
func BenchmarkPropagate(b *testing.B) {
	const n = 100_000
	for _, bc := range []struct {
		name string
		w    func() *World
	}{
		{"trees=1000x100/depth=10", func() *World { return buildForest(n, 10, 100) }},
		{"chains=10000x10", func() *World { return buildChains(n, 10) }},
		{"flat", func() *World { return buildForest(n, 1, 1) }},
		{"flat+1link", func() *World {
			w := buildForest(n, 1, 1)
			a, _ := w.EntityAt(0)
			c, _ := w.EntityAt(1)
			if err := w.SetParent(c, a, KeepLocal); err != nil {
				b.Fatal(err)
			}
			return w
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w := bc.w()
			w.PropagateTransforms() // lays out the order
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				w.PropagateTransforms()
			}
			cpu = cpuTime() - cpu
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/entity")
			if cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/n, "cpu-ns/entity")
			}
		})
	}
}

// buildChains spawns n entities in chains of length entities, each the
// child of the one before.
func buildChains(n, length int) *World {
	w := NewWorld(1)
	r := NewRNG(7)
	var prev Entity
	for i := range n {
		q := mgl32.QuatRotate(r.Range(-1, 1), mgl32.Vec3{0, 0, 1})
		e := w.Spawn(geom.Transform{Pos: mgl32.Vec3{r.Range(-1, 1), 1, 0}, Rot: q, Scale: mgl32.Vec3{1, 1, 1}}, Interpolate)
		if i%length != 0 {
			if err := w.SetParent(e, prev, KeepLocal); err != nil {
				panic(err)
			}
		}
		prev = e
	}
	return w
}

// BenchmarkPropagateLayouts measures PropagateTransforms over 100,000
// entities of every shape (flat roots with one link, chains of 10 and of
// 1,000, wide trees of 1,000, random trees of 100 up to 10 deep) in every
// slot layout (in the order made, reversed, scrambled, after slot reuse;
// see buildLayout). Each iteration propagates the layout's world and then
// the same shape in the order made, timed apart, so that a busy machine
// slows both: ns/entity is the layout's, in-order-ns/entity the in-order
// world's, and x-in-order their ratio.
//
//	GOMAXPROCS=1 go test -run x -bench PropagateLayouts -benchmem -count 5 ./engine
func BenchmarkPropagateLayouts(b *testing.B) {
	const n = 100_000
	for _, shape := range layoutShapes {
		var inOrder *World
		for _, slots := range layoutSlots {
			b.Run(shape+"/"+slots, func(b *testing.B) {
				if inOrder == nil {
					inOrder = buildLayout(n, shape, "in-order")
					if shape == "flat" {
						link(b, inOrder)
					}
				}
				w := buildLayout(n, shape, slots)
				if shape == "flat" {
					link(b, w)
				}
				w.PropagateTransforms()
				inOrder.PropagateTransforms()
				b.ReportAllocs()
				var mine, theirs time.Duration
				for b.Loop() {
					t0 := time.Now()
					w.PropagateTransforms()
					t1 := time.Now()
					inOrder.PropagateTransforms()
					mine, theirs = mine+t1.Sub(t0), theirs+time.Since(t1)
				}
				b.ReportMetric(float64(mine.Nanoseconds())/float64(b.N)/n, "ns/entity")
				b.ReportMetric(float64(theirs.Nanoseconds())/float64(b.N)/n, "in-order-ns/entity")
				b.ReportMetric(float64(mine)/float64(theirs), "x-in-order")
			})
		}
	}
}

// link gives a flat world one link, between its first two slots, so that
// propagation has every root to copy.
func link(b *testing.B, w *World) {
	a, _ := w.EntityAt(0)
	c, _ := w.EntityAt(1)
	if _, ok := w.Parent(c); ok {
		return
	}
	if err := w.SetParent(c, a, KeepLocal); err != nil {
		b.Fatal(err)
	}
	w.PropagateTransforms()
}

// BenchmarkPropagateWhileRelinking measures a tick's propagation over
// 100,000 entities in trees (trees=100/depth=10, in the order made) when
// the tick also changes the hierarchy: a leaf despawned, a new entity
// spawned into its slot and attached under the parent of a random entity
// (often in a higher slot), as a game's slot reuse does. The order is
// kept as the links change, never searched for again (0 allocations once
// warm). After the 200,000 relinks that warm it the parents lie about as
// far from their children as in scrambled slots, and ns/entity is near
// BenchmarkPropagateLayouts' scrambled figures: on one core of a shared
// Xeon 20 ns, where a depth-first search after every change took 88.
//
//	GOMAXPROCS=1 go test -run x -bench PropagateWhileRelinking -benchmem -count 5 ./engine
func BenchmarkPropagateWhileRelinking(b *testing.B) {
	const n = 100_000
	w := buildLayout(n, "trees=100/depth=10", "in-order")
	r := NewRNG(8)
	relink := func() {
		for {
			x, ok := w.EntityAt(r.Intn(n))
			p, ok2 := w.Parent(x)
			if !ok || !ok2 || w.hier.first[x.index] != 0 {
				continue // a leaf with a parent
			}
			q, ok := w.EntityAt(r.Intn(n))
			if qp, ok2 := w.Parent(q); ok && ok2 && qp != x {
				p = qp
			}
			w.Despawn(x)
			y := w.Spawn(geom.NewTransform(mgl32.Vec3{1, 0, 0}), Interpolate)
			if err := w.SetParent(y, p, KeepLocal); err != nil {
				b.Fatal(err)
			}
			return
		}
	}
	for range 2 * n { // warm: the order has reached its size
		relink()
	}
	w.PropagateTransforms()
	b.ReportAllocs()
	for b.Loop() {
		relink()
		w.PropagateTransforms()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/entity")
}
