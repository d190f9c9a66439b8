package physics

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
)

// sceneLCG is the 32-bit generator of the benchmark scenes' generate.py.
type sceneLCG struct{ state uint32 }

func (g *sceneLCG) next() float64 {
	g.state = 1664525*g.state + 1013904223
	return float64(g.state) / (1 << 32)
}

// rotation draws a uniform random rotation as generate.py does.
func (g *sceneLCG) rotation() mgl32.Quat {
	for {
		var c [4]float64
		for i := range c {
			c[i] = 2*g.next() - 1
		}
		n2 := c[0]*c[0] + c[1]*c[1] + c[2]*c[2] + c[3]*c[3]
		if 1e-4 < n2 && n2 <= 1 {
			n := math.Sqrt(n2)
			for i := range c {
				c[i] /= n
			}
			if c[3] < 0 {
				for i := range c {
					c[i] = -c[i]
				}
			}
			return mgl32.Quat{W: float32(c[3]), V: mgl32.Vec3{float32(c[0]), float32(c[1]), float32(c[2])}}
		}
	}
}

// pile builds the layout of the benchmark scenes pile-1000 and pile-4000
// (generate.py): an open box of inner half width inner (floor and four
// walls) and an nx×ny×nz lattice of randomly turned unit cubes above it,
// or of spheres of radius 0.5 with x/z jitter when spheres.
func pile(tw *testWorld, nx, ny, nz int, inner float32, spheres bool) {
	const fr, re = 0.5, 0.1
	static := func(half, pos mgl32.Vec3) {
		d := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: half})
		d.Friction, d.Restitution = fr, re
		tw.add(d, pos, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	}
	outer := inner + 1
	static(mgl32.Vec3{outer, 0.5, outer}, mgl32.Vec3{0, -0.5, 0})
	static(mgl32.Vec3{0.5, 5, outer}, mgl32.Vec3{-(inner + 0.5), 5, 0})
	static(mgl32.Vec3{0.5, 5, outer}, mgl32.Vec3{inner + 0.5, 5, 0})
	static(mgl32.Vec3{inner, 5, 0.5}, mgl32.Vec3{0, 5, -(inner + 0.5)})
	static(mgl32.Vec3{inner, 5, 0.5}, mgl32.Vec3{0, 5, inner + 0.5})
	g := sceneLCG{1}
	for iy := range ny {
		for iz := range nz {
			for ix := range nx {
				x := (float64(ix) - float64(nx-1)/2) * 1.5
				y := 2 + float64(iy)*1.5
				z := (float64(iz) - float64(nz-1)/2) * 1.5
				var d BodyDef
				rot := mgl32.QuatIdent()
				if spheres {
					x += (math.Floor(33*g.next()) - 16) / 64
					z += (math.Floor(33*g.next()) - 16) / 64
					d = NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.5})
				} else {
					rot = g.rotation()
					d = NewBodyDef(Dynamic, unitBox)
				}
				d.Friction, d.Restitution = fr, re
				tw.add(d, mgl32.Vec3{float32(x), float32(y), float32(z)}, rot, mgl32.Vec3{}, mgl32.Vec3{})
			}
		}
	}
}

// benchPile measures the mean step over runs of the scenes' 600 steps.
func benchPile(b *testing.B, nx, ny, nz int, inner float32, spheres bool) {
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
			pile(tw, nx, ny, nz, inner, spheres)
			cpu -= cpuTime()
			b.StartTimer()
		}
		tw.s.Step()
		n++
	}
	b.StopTimer()
	cpu += cpuTime()
	// The process's CPU time per step: on a shared machine other
	// processes inflate ns/op, not this.
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/step")
	st := tw.s.Stats()
	b.ReportMetric(float64(st.Awake), "awake")
	b.ReportMetric(float64(st.Constraints), "constraints")
}

func BenchmarkStepPile1000(b *testing.B)    { benchPile(b, 10, 10, 10, 8, false) }
func BenchmarkStepPile4000(b *testing.B)    { benchPile(b, 20, 10, 20, 16, false) }
func BenchmarkStepSpheres1000(b *testing.B) { benchPile(b, 10, 10, 10, 8, true) }

// TestStepNoAllocs: once its buffers have grown, a step allocates nothing.
func TestStepNoAllocs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NoSleep = true
	tw := newTestWorld(t, cfg)
	pile(tw, 4, 3, 4, 4, false)
	tw.steps(200)
	if a := testing.AllocsPerRun(20, tw.s.Step); a != 0 {
		t.Errorf("%v allocations per step", a)
	}
}

// TestPileSleeps: 96 randomly turned cubes dropped into a 6×6 m box pile
// up, stay in the box and all fall asleep within 10 s.
func TestPileSleeps(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	pile(tw, 4, 6, 4, 3, false)
	asleepAt := -1
	for i := range 600 {
		tw.s.Step()
		if tw.s.Stats().Awake == 0 {
			asleepAt = i
			break
		}
	}
	for e, b := range tw.s.Bodies().All() {
		if b.Kind != Dynamic {
			continue
		}
		if p := tw.pos(e); p[1] < 0 || abs(p[0]) > 3 || abs(p[2]) > 3 {
			t.Errorf("%v left the box: %v", e, p)
		}
	}
	if asleepAt < 0 {
		t.Errorf("%d bodies awake after 10 s", tw.s.Stats().Awake)
	}
	if r := tw.s.Stats().Resets; r != 0 {
		t.Errorf("%d resets", r)
	}
	t.Logf("all asleep at step %d", asleepAt)
}

// BenchmarkStepAsleep: a step of a pile of 96 cubes that all sleep.
func BenchmarkStepAsleep(b *testing.B) {
	b.ReportAllocs()
	tw := newTestWorld(b, DefaultConfig())
	pile(tw, 4, 6, 4, 3, false)
	tw.steps(600)
	if n := tw.s.Stats().Awake; n != 0 {
		b.Fatalf("%d bodies awake", n)
	}
	b.ResetTimer()
	for range b.N {
		tw.s.Step()
	}
}

// BenchmarkStepAwake96: the same pile at the same point, kept awake.
func BenchmarkStepAwake96(b *testing.B) {
	b.ReportAllocs()
	cfg := DefaultConfig()
	cfg.NoSleep = true
	tw := newTestWorld(b, cfg)
	pile(tw, 4, 6, 4, 3, false)
	tw.steps(600)
	b.ResetTimer()
	for range b.N {
		tw.s.Step()
	}
}
