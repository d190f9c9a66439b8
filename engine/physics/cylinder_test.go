package physics

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

var cylShape = Shape{Kind: Cylinder, Radius: 0.5, HalfHeight: 0.5}

// TestCylinderMassProperties checks the closed form: m = ρπr²·2h,
// I_y = mr²/2, I_x = I_z = m(3r² + 4h²)/12.
func TestCylinderMassProperties(t *testing.T) {
	s := shapeOf(Shape{Kind: Cylinder, Radius: 0.5, HalfHeight: 1})
	m, in := s.massProperties(2)
	wantM := 2 * math.Pi * 0.25 * 2
	if !nearF(float64(m), wantM, 1e-5) {
		t.Errorf("mass %v, want %v", m, wantM)
	}
	ix := wantM * (3*0.25 + 4) / 12
	iy := wantM * 0.25 / 2
	if !nearF(float64(in.x), ix, 1e-5) || !nearF(float64(in.y), iy, 1e-5) || in.z != in.x {
		t.Errorf("moments %v, want (%v, %v, %v)", in, ix, iy, ix)
	}
	for _, bad := range []Shape{{Kind: Cylinder, Radius: 0.5}, {Kind: Cylinder, HalfHeight: 1}, {Kind: Cylinder, Radius: float32(math.NaN()), HalfHeight: 1}} {
		if err := bad.validate(); err == nil || !strings.Contains(err.Error(), "cylinder") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// TestCylinderStandsOnItsEnd: a cylinder dropped upright on the floor
// rests on its flat end, upright, and falls asleep.
func TestCylinderStandsOnItsEnd(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	e := tw.add(NewBodyDef(Dynamic, cylShape), mgl32.Vec3{0, 1, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(60)
	p0 := tw.pos(e)
	tw.steps(120)
	p := tw.pos(e)
	up := tw.w.Bodies().Rot[e.Index()].Rotate(mgl32.Vec3{0, 1, 0})
	// (The landing moves it by a millimetre or two sideways, as it does
	// a box: the solver's order; after that it stays put.)
	if !nearF(float64(p[1]), 0.5, 0.01) || (mgl32.Vec3{p[0], 0, p[2]}).Len() > 5e-3 || p.Sub(p0).Len() > 1e-4 || up[1] < 0.9999 {
		t.Errorf("at %v (%v after 1 s), axis %v; want upright at y = 0.5, still", p, p0, up)
	}
	if !tw.s.Asleep(e) {
		t.Errorf("not asleep after 3 s")
	}
	if m := tw.s.Contacts().Ptr().m; len(m) != 1 || m[0].n != 4 {
		t.Errorf("%d manifolds; want one of 4 points", len(m))
	}
}

// TestCylinderRolls: a cylinder lying on its side, pushed along the
// floor, rolls: its centre stays at its radius, and its spin comes to
// match its speed (v = ωr) under friction.
func TestCylinderRolls(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NoSleep = true
	tw := newTestWorld(t, cfg)
	tw.floor(0.8, 0)
	// The axis along Z: turned 90° about X.
	rot := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{1, 0, 0})
	e := tw.add(NewBodyDef(Dynamic, cylShape), mgl32.Vec3{0, 0.5, 0}, rot, mgl32.Vec3{2, 0, 0}, mgl32.Vec3{})
	tw.steps(60)
	p, v := tw.pos(e), tw.vel(e)
	w := tw.w.Bodies().AngVel[e.Index()]
	if !nearF(float64(p[1]), 0.5, 0.01) {
		t.Errorf("centre at height %v, want 0.5", p[1])
	}
	if v[0] < 1 || !nearF(float64(w[2]), float64(-v[0]/0.5), 0.05*float64(v[0]/0.5)) {
		t.Errorf("velocity %v, spin %v: want rolling, ω_z = -v_x/r", v, w)
	}
	if p[0] < 1 || math.Abs(float64(p[2])) > 0.01 {
		t.Errorf("at %v, want rolled along +X", p)
	}
}

// TestCylinderAgainstEveryShape drops an upright cylinder on each kind of
// shape and checks it comes to rest on top.
func TestCylinderAgainstEveryShape(t *testing.T) {
	for _, c := range shapeFloors {
		t.Run(c.name, func(t *testing.T) {
			tw := newTestWorld(t, DefaultConfig())
			top := c.add(t, tw)
			sh := Shape{Kind: Cylinder, Radius: 0.3, HalfHeight: 0.3}
			e := tw.add(NewBodyDef(Dynamic, sh), mgl32.Vec3{0, top + 1, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
			tw.steps(240)
			p := tw.pos(e)
			if p[1] < top+c.minRest(0.3) || p[1] > top+0.31 || !(mgl32.Vec3{p[0], 0, p[2]}).ApproxEqualThreshold(mgl32.Vec3{}, 0.5) {
				t.Errorf("at %v, want resting on the top at %v", p, top)
			}
		})
	}
}

// TestShapesOnCylinderAndHull drops each dynamic shape on a wide static
// cylinder's flat top and on a static hull's.
func TestShapesOnCylinderAndHull(t *testing.T) {
	shapes := []struct {
		name string
		sh   Shape
		half float32
	}{
		{"sphere", Shape{Kind: Sphere, Radius: 0.3}, 0.3},
		{"capsule", Shape{Kind: Capsule, Radius: 0.3, HalfHeight: 0.2}, 0.5},
		{"box", Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.3, 0.3, 0.3}}, 0.3},
		{"cylinder", Shape{Kind: Cylinder, Radius: 0.3, HalfHeight: 0.3}, 0.3},
		{"hull", Shape{Kind: ConvexHull, Hull: 1}, 0.3},
	}
	for _, support := range []string{"cylinder", "hull"} {
		for _, c := range shapes {
			t.Run(support+"/"+c.name, func(t *testing.T) {
				tw := newTestWorld(t, DefaultConfig())
				tw.boxHull(t, mgl32.Vec3{0.3, 0.3, 0.3}) // HullID 1
				under := Shape{Kind: Cylinder, Radius: 5, HalfHeight: 0.5}
				if support == "hull" {
					under = HullShape(tw.boxHull(t, mgl32.Vec3{5, 0.5, 5}))
				}
				tw.add(NewBodyDef(Static, under), mgl32.Vec3{0, -0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
				e := tw.add(NewBodyDef(Dynamic, c.sh), mgl32.Vec3{0, 1.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
				tw.steps(240)
				if p := tw.pos(e); !nearF(float64(p[1]), float64(c.half), 0.012) {
					t.Errorf("at %v, want resting at y = %v", p, c.half)
				}
			})
		}
	}
}

// TestCylinderRayCast: rays meet the side, the ends and miss beside it.
func TestCylinderRayCast(t *testing.T) {
	s := shapeOf(Shape{Kind: Cylinder, Radius: 1, HalfHeight: 2})
	p := pose{vec3{1, 0, 0}, identity}
	cases := []struct {
		o, d  vec3
		t     float32
		n     vec3
		ok    bool
		label string
	}{
		{vec3{-5, 0.5, 0}, vec3{1, 0, 0}, 5, vec3{-1, 0, 0}, true, "side"},
		{vec3{1.5, 10, 0.2}, vec3{0, -1, 0}, 8, vec3{0, 1, 0}, true, "top"},
		{vec3{1, -10, 0}, vec3{0, 1, 0}, 8, vec3{0, -1, 0}, true, "bottom"},
		{vec3{-5, 2.5, 0}, vec3{1, 0, 0}, 0, vec3{}, false, "over the top"},
		{vec3{2.1, 10, 0}, vec3{0, -1, 0}, 0, vec3{}, false, "beside"},
		{vec3{1, 0, 0}, vec3{0, 1, 0}, 0, vec3{}, true, "inside"},
	}
	for _, c := range cases {
		tt, n, ok := s.raycast(p, c.o, c.d, 100)
		if ok != c.ok || ok && (!approx(tt, c.t, 1e-5) || !approxV(n, c.n, 1e-5)) {
			t.Errorf("%s: %v %v %v, want %v %v %v", c.label, tt, n, ok, c.t, c.n, c.ok)
		}
	}
	// A tilted cylinder through the Space's RayCast.
	tw := newTestWorld(t, zeroG())
	rot := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1}) // axis along -X
	e := tw.add(NewBodyDef(Static, Shape{Kind: Cylinder, Radius: 1, HalfHeight: 2}), mgl32.Vec3{}, rot, mgl32.Vec3{}, mgl32.Vec3{})
	hit, ok, err := tw.s.RayCast(mgl32.Vec3{10, 0, 0}, mgl32.Vec3{-1, 0, 0}, 20, QueryFilter{})
	if err != nil || !ok || hit.Entity != e || !nearF(float64(hit.Distance), 8, 1e-5) || !nearVec(hit.Normal, mgl32.Vec3{1, 0, 0}, 1e-5) {
		t.Errorf("ray on the tilted cylinder's end: %+v %v %v", hit, ok, err)
	}
}

// TestCylinderSweepOverlap: a ball swept at a cylinder stops on its side;
// an overlap finds it.
func TestCylinderSweepOverlap(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	e := tw.add(NewBodyDef(Static, Shape{Kind: Cylinder, Radius: 1, HalfHeight: 2}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	ball := Shape{Kind: Sphere, Radius: 0.5}
	sw, ok, err := tw.s.Sweep(ball, mgl32.Vec3{-5, 1, 0}, mgl32.QuatIdent(), mgl32.Vec3{10, 0, 0}, QueryFilter{})
	if err != nil || !ok || sw.Entity != e || !nearF(float64(sw.Fraction), 0.35, 2e-3) || !nearVec(sw.Normal, mgl32.Vec3{1, 0, 0}, 1e-3) {
		t.Errorf("sweep: %+v %v %v, want fraction 0.35 normal +X", sw, ok, err)
	}
	if got, _ := tw.s.Overlap(ball, mgl32.Vec3{0, 2.4, 0}, mgl32.QuatIdent(), QueryFilter{}, nil); len(got) != 1 {
		t.Errorf("overlap over the top: %v", got)
	}
	if got, _ := tw.s.Overlap(ball, mgl32.Vec3{1.4, 2.4, 0}, mgl32.QuatIdent(), QueryFilter{}, nil); len(got) != 0 {
		t.Errorf("overlap off the rim: %v", got)
	}
	// A cylinder as the query's shape.
	if got, _ := tw.s.Overlap(Shape{Kind: Cylinder, Radius: 0.5, HalfHeight: 0.5}, mgl32.Vec3{1.4, 0, 0}, mgl32.QuatIdent(), QueryFilter{}, nil); len(got) != 1 {
		t.Errorf("cylinder overlap: %v", got)
	}
}
