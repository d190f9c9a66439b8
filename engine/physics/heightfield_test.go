package physics

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
)

// TestHeightFieldErrors: bad sizes and heights get a clear error, and a
// height field is for static bodies only.
func TestHeightFieldErrors(t *testing.T) {
	nan := float32(math.NaN())
	four := []float32{0, 0, 0, 0}
	cases := []struct {
		name       string
		cols, rows int
		h          []float32
		cx, cz     float32
		want       string
	}{
		{"one column", 1, 4, four, 1, 1, "at least 2 columns"},
		{"negative", -2, 2, four, 1, 1, "at least 2 columns"},
		{"too many", 1 << 12, 1 << 11, nil, 1, 1, "at most"},
		{"short", 2, 3, four, 1, 1, "need 6 heights, got 4"},
		{"NaN height", 2, 2, []float32{0, nan, 0, 0}, 1, 1, "height 1 (column 1, row 0)"},
		{"far height", 2, 2, []float32{0, 0, 2e4, 0}, 1, 1, "height 2"},
		{"zero cell", 2, 2, four, 0, 1, "cell size"},
		{"NaN cell", 2, 2, four, 1, nan, "cell size"},
	}
	for _, c := range cases {
		h, err := NewHeightField(c.cols, c.rows, c.h, c.cx, c.cz)
		if err == nil || h != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v %v, want an error with %q", c.name, h, err, c.want)
		}
	}
	tw := newTestWorld(t, DefaultConfig())
	hf, err := NewHeightField(2, 2, four, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tw.s.AddHeightField(hf); err != nil {
		t.Fatal(err)
	}
	e := tw.w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	if err := tw.s.AddBody(e, NewBodyDef(Dynamic, HeightFieldShape(1))); err == nil || !strings.Contains(err.Error(), "height fields are static") {
		t.Errorf("a dynamic height field body: %v", err)
	}
	if err := tw.s.AddBody(e, NewBodyDef(Static, HeightFieldShape(2))); err == nil || !strings.Contains(err.Error(), "height field 2 was not added") {
		t.Errorf("an unknown height field: %v", err)
	}
}

// hills is a height field's height at sample (c, r): a smooth bump.
func hills(c, r int) float32 {
	x, z := float64(c-8)/4, float64(r-8)/4
	return float32(math.Exp(-(x*x + z*z)))
}

// TestHeightFieldRay: a ray straight down meets the terrain at the height
// of the triangle under it, with its normal.
func TestHeightFieldRay(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	e := tw.heightField(t, 4, 3, func(c, r int) float32 { return float32(c) }, 2, mgl32.Vec3{10, -1, 0})
	// Heights rise 1 per 2 m along x: at local x = 3 the height is 1.5.
	hit, ok, err := tw.s.RayCast(mgl32.Vec3{13, 10, 1.5}, mgl32.Vec3{0, -1, 0}, 20, QueryFilter{})
	if err != nil || !ok || hit.Entity != e || !nearF(float64(hit.Distance), 9.5, 1e-4) {
		t.Fatalf("%+v %v %v, want a hit 9.5 m down", hit, ok, err)
	}
	n := mgl32.Vec3{-1, 2, 0}.Normalize()
	if !nearVec(hit.Normal, n, 1e-5) {
		t.Errorf("normal %v, want %v", hit.Normal, n)
	}
	if _, ok, _ := tw.s.RayCast(mgl32.Vec3{9, 10, 1}, mgl32.Vec3{0, -1, 0}, 20, QueryFilter{}); ok {
		t.Error("a ray beside the grid hit")
	}
}

// TestHeightFieldEveryShape drops each dynamic shape on flat terrain and
// on a slope's foot and checks it rests at its height, and that a ball
// rolls down the hills.
func TestHeightFieldEveryShape(t *testing.T) {
	hid := func(tw *testWorld) HullID { return tw.boxHull(t, mgl32.Vec3{0.3, 0.3, 0.3}) }
	shapes := []struct {
		name string
		sh   func(tw *testWorld) Shape
		half float32
	}{
		{"sphere", func(*testWorld) Shape { return Shape{Kind: Sphere, Radius: 0.3} }, 0.3},
		{"capsule", func(*testWorld) Shape { return Shape{Kind: Capsule, Radius: 0.3, HalfHeight: 0.2} }, 0.5},
		{"box", func(*testWorld) Shape { return Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.3, 0.3, 0.3}} }, 0.3},
		{"cylinder", func(*testWorld) Shape { return Shape{Kind: Cylinder, Radius: 0.3, HalfHeight: 0.3} }, 0.3},
		{"hull", func(tw *testWorld) Shape { return HullShape(hid(tw)) }, 0.3},
		{"compound", func(tw *testWorld) Shape {
			id, err := tw.s.AddCompound([]Part{
				{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.3, 0.3, 0.3}}, Pos: mgl32.Vec3{-0.3, 0, 0}},
				{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.3, 0.3, 0.3}}, Pos: mgl32.Vec3{0.3, 0, 0}},
			})
			if err != nil {
				t.Fatal(err)
			}
			return CompoundShape(id)
		}, 0.3},
	}
	for _, c := range shapes {
		t.Run(c.name, func(t *testing.T) {
			tw := newTestWorld(t, DefaultConfig())
			tw.heightField(t, 17, 17, func(c, r int) float32 { return 0.5 }, 0.5, mgl32.Vec3{-4, 0, -4})
			e := tw.add(NewBodyDef(Dynamic, c.sh(tw)), mgl32.Vec3{0.1, 2, 0.2}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
			tw.steps(240)
			if p := tw.pos(e); !nearF(float64(p[1]), float64(0.5+c.half), 0.012) || !nearF(float64(p[0]), 0.1, 0.05) {
				t.Errorf("at %v, want resting at y = %v", p, 0.5+c.half)
			}
		})
	}
	t.Run("hills", func(t *testing.T) {
		tw := newTestWorld(t, DefaultConfig())
		tw.heightField(t, 17, 17, hills, 1, mgl32.Vec3{-8, 0, -8})
		// On the bump's flank: it rolls away from the top.
		e := tw.add(NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.25}), mgl32.Vec3{1.5, 1.2, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		tw.steps(120)
		p := tw.pos(e)
		if p[0] < 2.5 || p[1] < 0.2 || p[1] > 1 {
			t.Errorf("at %v, want rolled down the +X flank, on the surface", p)
		}
	})
}

// TestHeightFieldSweep: a box swept down stops on the terrain; one swept
// along it, just above, does not (the seams inside the flat grid do not
// catch it).
func TestHeightFieldSweep(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	tw.heightField(t, 9, 9, func(c, r int) float32 { return 1 }, 1, mgl32.Vec3{-4, 0, -4})
	box := Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}}
	sw, ok, err := tw.s.Sweep(box, mgl32.Vec3{0.3, 5, 0.2}, mgl32.QuatIdent(), mgl32.Vec3{0, -10, 0}, QueryFilter{})
	if err != nil || !ok || !nearF(float64(sw.Fraction), 0.35, 2e-3) || !nearVec(sw.Normal, mgl32.Vec3{0, -1, 0}, 1e-3) {
		t.Errorf("down: %+v %v %v, want fraction 0.35, normal down", sw, ok, err)
	}
	if sw, ok, _ := tw.s.Sweep(box, mgl32.Vec3{-3, 1.51, 0.2}, mgl32.QuatIdent(), mgl32.Vec3{6, 0, 0}, QueryFilter{}); ok {
		t.Errorf("along: %+v", sw)
	}
}

// TestHullSlidesOverSeams: a hull box sliding over flat terrain keeps the
// face's normal at the seams and keeps its height (no bump).
func TestHullSlidesOverSeams(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NoSleep = true
	tw := newTestWorld(t, cfg)
	g := tw.heightField(t, 21, 5, func(c, r int) float32 { return 0 }, 0.5, mgl32.Vec3{-5, 0, -1})
	tw.s.bodies.Ptr(g).Friction = 0
	id := tw.boxHull(t, mgl32.Vec3{0.2, 0.2, 0.2})
	d := NewBodyDef(Dynamic, HullShape(id))
	d.Friction = 0
	e := tw.add(d, mgl32.Vec3{-4, 0.2, 0}, mgl32.QuatIdent(), mgl32.Vec3{4, 0, 0}, mgl32.Vec3{})
	lo, hi := float32(1), float32(-1)
	for range 90 {
		tw.s.Step()
		y := tw.pos(e)[1]
		lo, hi = min(lo, y), max(hi, y)
	}
	if p, v := tw.pos(e), tw.vel(e); p[0] < 1.5 || !nearF(float64(v[0]), 4, 0.05) || lo < 0.19 || hi > 0.205 {
		t.Errorf("at %v, velocity %v, height in [%v, %v]: want sliding at 4 m/s at 0.2", p, v, lo, hi)
	}
}

func FuzzHeightField(f *testing.F) {
	f.Add(uint8(3), uint8(3), []byte{0, 1, 2, 3, 4, 5, 6, 7, 8}, float32(1), float32(1))
	f.Add(uint8(1), uint8(9), []byte{0}, float32(0), float32(-1))
	f.Fuzz(func(t *testing.T, cols, rows uint8, data []byte, cx, cz float32) {
		h := make([]float32, len(data))
		for i, b := range data {
			h[i] = float32(int8(b)) / 4
		}
		hf, err := NewHeightField(int(cols), int(rows), h, cx, cz)
		if err != nil {
			if hf != nil {
				t.Fatal("a height field with an error")
			}
			return
		}
		c, r := hf.Size()
		if c != int(cols) || r != int(rows) || hf.mesh.Triangles() != 2*(c-1)*(r-1) {
			t.Fatalf("%d × %d, %d triangles", c, r, hf.mesh.Triangles())
		}
		// A ray down the middle of the first cell meets it.
		s := shape{kind: Mesh, mesh: hf.mesh}
		var stack []uint32
		o := vec3{float32(cx * 0.5), 100, float32(cz * 0.5)}
		if _, _, ok := s.mesh.raycast(pose{q: identity}, o, vec3{0, -1, 0}, 1000, &stack); !ok {
			t.Fatalf("a ray down the first cell missed")
		}
	})
}
