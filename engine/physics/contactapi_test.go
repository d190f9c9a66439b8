package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// TestCombineRules follows Rapier's CoefficientCombineRule
// (dimforge/rapier src/dynamics/coefficient_combine_rule.rs, combine):
// the greater rule of the two wins; average, min, multiply, max.
func TestCombineRules(t *testing.T) {
	cases := []struct {
		a, b   float32
		ra, rb CombineRule
		want   float32
	}{
		{0.2, 0.6, CombineAverage, CombineAverage, 0.4},
		{0.2, 0.6, CombineMin, CombineAverage, 0.2},
		{0.2, 0.6, CombineAverage, CombineMultiply, 0.12},
		{0.2, 0.6, CombineMax, CombineMin, 0.6},
		{0.2, 0.6, CombineMultiply, CombineMax, 0.6},
	}
	for _, c := range cases {
		if got, rev := combine(c.a, c.b, c.ra, c.rb), combine(c.b, c.a, c.rb, c.ra); abs(got-c.want) > 1e-7 || got != rev {
			t.Errorf("combine(%v, %v, %v, %v) = %v (swapped %v), want %v", c.a, c.b, c.ra, c.rb, got, rev, c.want)
		}
	}
	// In a scene: a ball with restitution 1 and rule Min on a floor of 0
	// does not bounce; with rule Max it does.
	for _, rule := range []CombineRule{CombineMin, CombineMax} {
		tw := newTestWorld(t, DefaultConfig())
		tw.ground(0.5, 0)
		d := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.5})
		d.Restitution, d.RestitutionCombine = 1, rule
		e := tw.add(d, mgl32.Vec3{0, 3, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		top := float32(0)
		for i := range 120 {
			tw.steps(1)
			if i > 50 {
				top = max(top, tw.pos(e)[1])
			}
		}
		if bounced := top > 1.5; bounced != (rule == CombineMax) {
			t.Errorf("rule %v: highest point after the bounce %v", rule, top)
		}
	}
	d := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 1})
	d.FrictionCombine = 7
	tw := newTestWorld(t, DefaultConfig())
	e := tw.w.Spawn(tw.w.Transform(engine.Entity{}), engine.Interpolate)
	if err := tw.s.AddBody(e, d); err == nil {
		t.Errorf("an unknown combine rule was accepted")
	}
}

// TestMassOverride: Mass scales the shape's inertia (Jolt's
// EOverrideMassProperties::CalculateInertia), Inertia replaces it, and
// SetMassProperties does the same later.
func TestMassOverride(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	d := NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}})
	d.Mass = 10 // the density's mass is 1
	e := tw.add(d, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	b, _ := tw.s.Body(e)
	if b.Mass != 10 || abs(b.InvInertia[0]-0.6) > 1e-6 { // I = m/6 for a unit cube
		t.Errorf("mass %v, inverse inertia %v; want 10 and 0.6", b.Mass, b.InvInertia)
	}
	d.Mass, d.Inertia = 0, mgl32.Vec3{1, 2, 4}
	e2 := tw.add(d, mgl32.Vec3{5, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	if b, _ := tw.s.Body(e2); b.Mass != 1 || b.InvInertia != (mgl32.Vec3{1, 0.5, 0.25}) {
		t.Errorf("mass %v, inverse inertia %v; want 1 and (1, 0.5, 0.25)", b.Mass, b.InvInertia)
	}
	if err := tw.s.SetMassProperties(e, 20, mgl32.Vec3{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := tw.s.Body(e); b.Mass != 20 || abs(b.InvInertia[0]-0.3) > 1e-6 {
		t.Errorf("after SetMassProperties: mass %v, inverse inertia %v; want 20 and 0.3", b.Mass, b.InvInertia)
	}
	// An impulse of 20 N·s moves it at 1 m/s.
	if err := tw.s.ApplyImpulse(e, mgl32.Vec3{20, 0, 0}); err != nil || tw.vel(e)[0] != 1 {
		t.Errorf("impulse: %v, velocity %v", err, tw.vel(e))
	}
	for _, bad := range []BodyDef{{Mass: -1}, {Inertia: mgl32.Vec3{1, 0, 1}}} {
		dd := d
		dd.Mass, dd.Inertia = bad.Mass, bad.Inertia
		f := tw.w.Spawn(tw.w.Transform(engine.Entity{}), engine.Interpolate)
		if err := tw.s.AddBody(f, dd); err == nil {
			t.Errorf("mass %v inertia %v accepted", bad.Mass, bad.Inertia)
		}
	}
	if err := tw.s.SetMassProperties(e, 0, mgl32.Vec3{}); err == nil {
		t.Errorf("SetMassProperties with mass 0 accepted")
	}
}

// TestGravityScale: zero floats, negative falls upwards, exactly as
// g·scale (symplectic Euler per substep).
func TestGravityScale(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	var es []engine.Entity
	for i, s := range []float32{0, -1, 2} {
		d := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.5})
		d.GravityScale = s
		es = append(es, tw.add(d, mgl32.Vec3{float32(3 * i), 10, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{}))
	}
	tw.steps(60)
	for i, want := range []float32{0, 9.81, -19.62} {
		if v := tw.vel(es[i])[1]; abs(v-want) > 1e-3 {
			t.Errorf("scale %d: velocity %v after 1 s, want %v", i, v, want)
		}
	}
	if y := tw.pos(es[0])[1]; y != 10 {
		t.Errorf("scale 0: the body moved to y = %v", y)
	}
}

// TestContactImpulse: a resting box's contact carries its weight: the
// step's impulse is m·g·dt, in ContactsOf and in the Begin event of its
// landing (which is larger: it stops the fall).
func TestContactImpulse(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	floor := tw.floor(0.5, 0)
	d := NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}})
	d.Density = 8
	box := tw.add(d, mgl32.Vec3{0, 0.6, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	var landing float32
	for range 120 {
		tw.steps(1)
		for _, ev := range tw.s.Events() {
			if ev.Kind == Begin {
				landing = ev.Impulse
			}
		}
	}
	weight := float32(8 * 9.81 / 60)
	if landing < weight {
		t.Errorf("landing impulse %v, want more than the weight's %v", landing, weight)
	}
	cs := tw.s.ContactsOf(box, nil)
	if len(cs) != 1 || cs[0].Other != floor {
		t.Fatalf("contacts %+v, want one with the floor", cs)
	}
	if c := cs[0]; abs(c.Impulse-weight) > 0.01*weight || c.Normal[1] > -0.99 {
		t.Errorf("contact %+v: want impulse %v and a normal pointing down, to the floor", c, weight)
	}
	if fs := tw.s.ContactsOf(floor, cs[:0]); len(fs) != 1 || fs[0].Other != box || fs[0].Normal[1] < 0.99 {
		t.Errorf("the floor's contacts %+v", fs)
	}
	if n := testing.AllocsPerRun(10, func() { cs = tw.s.ContactsOf(box, cs[:0]) }); n != 0 {
		t.Errorf("ContactsOf allocates %v times", n)
	}
}

// TestContactHookConveyorAndOneWay: a hook that gives the floor a surface
// velocity carries a box along at that speed (a conveyor belt); one that
// disables the contacts of a platform with a body below it lets the body
// rise through (a one-way platform), and the hook sees only contacts the
// solver would solve.
func TestContactHookConveyorAndOneWay(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	floor := tw.floor(1, 0)
	box := tw.add(NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}}), mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.s.SetContactHook(func(c *ContactSettings) {
		if c.A == floor { // B (the box) is carried at +2 m/s relative to A
			c.SurfaceVelocity = mgl32.Vec3{2, 0, 0}
		} else if c.B == floor {
			c.SurfaceVelocity = mgl32.Vec3{-2, 0, 0}
		}
	})
	tw.steps(60)
	if v := tw.vel(box); abs(v[0]-2) > 0.02 {
		t.Errorf("on the belt the box moves at %v, want 2 m/s along X", v)
	}

	tw = newTestWorld(t, zeroG())
	pd := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{2, 0.1, 2}})
	platform := tw.add(pd, mgl32.Vec3{0, 1, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	ball := tw.sphere(Dynamic, 0.3, mgl32.Vec3{0, 0, 0}, mgl32.Vec3{0, 3, 0})
	calls := 0
	tw.s.SetContactHook(func(c *ContactSettings) {
		calls++
		n := c.Normal // from A to B
		if c.B == platform {
			n = n.Mul(-1)
		}
		if (c.A == platform || c.B == platform) && n[1] < 0 { // the other body is below
			c.Disabled = true
		}
	})
	begins := 0
	for range 60 {
		tw.steps(1)
		for _, ev := range tw.s.Events() {
			if ev.Kind == Begin {
				begins++
			}
		}
	}
	if y := tw.pos(ball)[1]; y < 2.5 {
		t.Errorf("the ball stopped at y = %v under the one-way platform, want it through (y > 2.5)", y)
	}
	if calls == 0 || begins != 1 {
		t.Errorf("hook called %d times, %d begin events; want some and 1", calls, begins)
	}
	if n := testing.AllocsPerRun(5, func() { tw.s.Step() }); n != 0 {
		t.Errorf("a step with a hook allocates %v times", n)
	}
}

// TestMoveKinematic: the body is at the pose at the end of the next step
// (exactly), moving with the velocity that took it there, and it pushes
// a dynamic body in its way.
func TestMoveKinematic(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	k := tw.add(NewBodyDef(Kinematic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	ball := tw.sphere(Dynamic, 0.5, mgl32.Vec3{1.01, 0, 0}, mgl32.Vec3{})
	rot := mgl32.QuatRotate(0.3, mgl32.Vec3{0, 1, 0})
	if err := tw.s.MoveKinematic(k, mgl32.Vec3{0.1, 0, 0}, rot); err != nil {
		t.Fatal(err)
	}
	if w := tw.w.Bodies().AngVel[k.Index()]; abs(w[1]-18) > 1e-4 {
		t.Errorf("angular velocity %v, want 0.3 rad in 1/60 s: 18 rad/s about Y", w)
	}
	tw.steps(1)
	if p, q := tw.pos(k), tw.w.Bodies().Rot[k.Index()]; p != (mgl32.Vec3{0.1, 0, 0}) || q != rot {
		t.Errorf("pose %v %v, want (0.1, 0, 0) %v", p, q, rot)
	}
	if v := tw.vel(k); abs(v[0]-6) > 1e-4 {
		t.Errorf("velocity %v, want 6 m/s along X", v)
	}
	if v := tw.vel(ball); v[0] < 1 {
		t.Errorf("the ball moves at %v, want pushed along X", v)
	}
	if err := tw.s.MoveKinematic(ball, mgl32.Vec3{}, mgl32.QuatIdent()); err == nil {
		t.Errorf("MoveKinematic of a dynamic body accepted")
	}
	for _, a := range []float32{0, 1e-3, 0.5, 1.2, 1.5707, 3.1} {
		if got := 2 * halfAngle(float32(math.Sin(float64(a)/2)), float32(math.Cos(float64(a)/2))); abs(got-a) > 2e-6 {
			t.Errorf("halfAngle for %v: %v", a, got)
		}
	}
}
