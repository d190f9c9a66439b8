package engine

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"

	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// benchEntities is the scene size the interpolation is budgeted for: 100,000
// entities in 1 ms on one core.
const benchEntities = 100_000

// benchScene returns n bodies' previous and current transforms and colours:
// each moved a little and turned by its own small angle about its own axis
// during the last tick (under 3 degrees: the nlerp path), except one in
// twenty, which turned by 20 to 80 degrees (the full slerp path, still under
// the snap angle). Half the current rotations are stored negated (the same
// rotation on the other side of the quaternion sphere), as independently
// computed quaternions often are.
func benchScene(n int) (prev, cur []geom.Transform, colors [][4]uint8) {
	rng := NewRNG(42)
	randAxis := func() mgl32.Vec3 { // z in [1, 3]: never the zero vector
		return mgl32.Vec3{rng.Range(-1, 1), rng.Range(-1, 1), rng.Range(-1, 1) + 2}.Normalize()
	}
	for k := range n {
		p := geom.Transform{
			Pos:   mgl32.Vec3{rng.Range(-100, 100), rng.Range(-100, 100), rng.Range(-100, 100)},
			Rot:   mgl32.QuatRotate(rng.Range(0, 2*math.Pi), randAxis()),
			Scale: mgl32.Vec3{1, 1, 1},
		}
		turn := rng.Range(0, 3) * math.Pi / 180
		if k%20 == 0 {
			turn = rng.Range(20, 80) * math.Pi / 180
		}
		c := geom.Transform{
			Pos:   p.Pos.Add(mgl32.Vec3{rng.Range(-0.2, 0.2), rng.Range(-0.2, 0.2), rng.Range(-0.2, 0.2)}),
			Rot:   mgl32.QuatRotate(turn, randAxis()).Mul(p.Rot),
			Scale: mgl32.Vec3{1, 1, 1}.Mul(rng.Range(0.9, 1.1)),
		}
		if rng.Intn(2) == 0 {
			c.Rot = c.Rot.Scale(-1)
		}
		prev, cur = append(prev, p), append(cur, c)
		colors = append(colors, [4]uint8{uint8(k), uint8(k >> 8), uint8(k >> 16), 255})
	}
	return prev, cur, colors
}

// aosBody is the straightforward layout the World's struct-of-arrays is
// measured against.
type aosBody struct {
	prev, cur geom.Transform
	color     [4]uint8
}

// interpolateAoS is the straightforward interpolation: per entity, Vec3
// lerps and mgl32.QuatSlerp.
func interpolateAoS(bodies []aosBody, alpha float32, dst []render.Instance) {
	for i := range bodies {
		b := &bodies[i]
		dst[i] = render.Instance{
			Pos:   b.prev.Pos.Add(b.cur.Pos.Sub(b.prev.Pos).Mul(alpha)),
			Rot:   mgl32.QuatSlerp(b.prev.Rot, b.cur.Rot, alpha),
			Scale: b.prev.Scale.Add(b.cur.Scale.Sub(b.prev.Scale).Mul(alpha)),
			Color: b.color,
		}
	}
}

func BenchmarkInterpolate(b *testing.B) {
	prev, cur, colors := benchScene(benchEntities)
	const alpha = 0.37

	w := NewWorld(1)
	for i := range prev {
		e := w.Spawn(prev[i], Interpolate)
		w.SetColor(e, colors[i])
	}
	w.BeginTick(1)
	for i := range cur {
		e, _ := w.EntityAt(i)
		w.SetTransform(e, cur[i])
	}
	bodies := make([]aosBody, len(prev))
	for i := range bodies {
		bodies[i] = aosBody{prev: prev[i], cur: cur[i], color: colors[i]}
	}
	cfg := DefaultInterpolationConfig()

	// Both ways draw the same scene.
	var buf RenderBuffer
	w.Interpolate(alpha, 1.0/60, cfg, &buf)
	aos := make([]render.Instance, len(bodies))
	interpolateAoS(bodies, alpha, aos)
	if buf.Snaps != 0 || len(buf.Instances) != len(aos) {
		b.Fatalf("the scene snaps %d entities and draws %d, want 0 and %d", buf.Snaps, len(buf.Instances), len(aos))
	}
	for i, in := range buf.Instances {
		a := aos[i]
		if !vecNear(in.Pos, a.Pos, 1e-4) || !vecNear(in.Scale, a.Scale, 1e-5) ||
			quatAngle(in.Rot, a.Rot) > 1e-3 || in.Color != a.Color {
			b.Fatalf("entity %d: World.Interpolate draws %v, the AoS version %v", i, in, a)
		}
	}

	perEntity := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchEntities, "ns/entity")
	}
	b.Run("soa-100k", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w.Interpolate(alpha, 1.0/60, cfg, &buf)
		}
		perEntity(b)
	})
	b.Run("aos-mathgl-100k", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			interpolateAoS(bodies, alpha, aos)
		}
		perEntity(b)
	})
}
