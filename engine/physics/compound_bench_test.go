package physics

import (
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
)

// compoundPile adds an open box (a floor and four walls) of inner half
// width inner and an nx×ny×nz lattice of randomly turned compounds above
// it, 3.5 m apart from y = 2 up: dumbbells, Ls and stools in turn.
func compoundPile(t testing.TB, tw *testWorld, nx, ny, nz int, inner float32) {
	compoundScene(t, tw, true) // the compounds: 1 dumbbell, 2 L, 3 stool
	static := func(half, pos mgl32.Vec3) {
		tw.add(NewBodyDef(Static, Shape{Kind: Box, HalfExtents: half}), pos, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	}
	outer := inner + 1
	static(mgl32.Vec3{outer, 0.5, outer}, mgl32.Vec3{0, -0.5, 0})
	// Walls 40 m high: the lattice starts up to 33.5 m up, and a stool
	// tumbling from there can bounce over a lower wall.
	static(mgl32.Vec3{0.5, 20, outer}, mgl32.Vec3{-(inner + 0.5), 20, 0})
	static(mgl32.Vec3{0.5, 20, outer}, mgl32.Vec3{inner + 0.5, 20, 0})
	static(mgl32.Vec3{inner, 20, 0.5}, mgl32.Vec3{0, 20, -(inner + 0.5)})
	static(mgl32.Vec3{inner, 20, 0.5}, mgl32.Vec3{0, 20, inner + 0.5})
	g := sceneLCG{1}
	i := 0
	for iy := range ny {
		for iz := range nz {
			for ix := range nx {
				x := (float64(ix) - float64(nx-1)/2) * 3
				y := 2 + float64(iy)*3.5
				z := (float64(iz) - float64(nz-1)/2) * 3
				tw.add(NewBodyDef(Dynamic, CompoundShape(CompoundID(1+i%3))), mgl32.Vec3{float32(x), float32(y), float32(z)}, g.rotation(), mgl32.Vec3{}, mgl32.Vec3{})
				i++
			}
		}
	}
}

// BenchmarkStepCompounds250 measures the mean step of 250 compounds
// (about 750 parts) falling into a box and piling up, over runs of 600
// steps.
func BenchmarkStepCompounds250(b *testing.B) {
	b.ReportAllocs()
	var tw *testWorld
	n := 0
	var cpu time.Duration
	b.StopTimer()
	for range b.N {
		if n%600 == 0 {
			if tw != nil {
				b.StopTimer()
				cpu += cpuTime()
			}
			tw = newTestWorld(b, DefaultConfig())
			compoundPile(b, tw, 5, 10, 5, 8)
			cpu -= cpuTime()
			b.StartTimer()
		}
		tw.s.Step()
		n++
	}
	b.StopTimer()
	cpu += cpuTime()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/step")
	st := tw.s.Stats()
	b.ReportMetric(float64(st.Awake), "awake")
	b.ReportMetric(float64(st.Constraints), "constraints")
}

// TestCompoundStepNoAllocs: once its buffers have grown, a step of a pile
// of compounds allocates nothing.
func TestCompoundStepNoAllocs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NoSleep = true
	tw := newTestWorld(t, cfg)
	compoundPile(t, tw, 3, 3, 3, 4)
	tw.steps(200)
	if a := testing.AllocsPerRun(20, tw.s.Step); a != 0 {
		t.Errorf("%v allocations per step", a)
	}
}
