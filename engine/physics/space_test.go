package physics

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
)

// testWorld is an engine with a Space on its world.
type testWorld struct {
	t *testing.T
	e *engine.Engine
	w *engine.World
	s *Space
}

func newTestWorld(t testing.TB, cfg Config) *testWorld {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(e.World, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tw := &testWorld{e: e, w: e.World, s: s}
	if tt, ok := t.(*testing.T); ok {
		tw.t = tt
	}
	return tw
}

// add spawns an entity at pos with rotation rot and velocity vel and makes
// it a body of d.
func (tw *testWorld) add(d BodyDef, pos mgl32.Vec3, rot mgl32.Quat, vel, ang mgl32.Vec3) engine.Entity {
	tr := geom.NewTransform(pos)
	tr.Rot = rot
	e := tw.w.Spawn(tr, engine.Interpolate)
	tw.w.SetDrawVelocity(e, vel, ang)
	if err := tw.s.AddBody(e, d); err != nil {
		panic(err)
	}
	return e
}

func (tw *testWorld) sphere(k Kind, r float32, pos, vel mgl32.Vec3) engine.Entity {
	return tw.add(NewBodyDef(k, Shape{Kind: Sphere, Radius: r}), pos, mgl32.QuatIdent(), vel, mgl32.Vec3{})
}

func (tw *testWorld) steps(n int) {
	for range n {
		tw.s.Step()
	}
}

func (tw *testWorld) pos(e engine.Entity) mgl32.Vec3 { return tw.w.Bodies().Pos[e.Index()] }
func (tw *testWorld) vel(e engine.Entity) mgl32.Vec3 { return tw.w.Bodies().Vel[e.Index()] }

// ground returns a static sphere so large that its top, at y = 0, is a
// floor for the tests that need only spheres.
func (tw *testWorld) ground(friction, restitution float32) engine.Entity {
	d := NewBodyDef(Static, Shape{Kind: Sphere, Radius: 1000})
	d.Friction, d.Restitution = friction, restitution
	return tw.add(d, mgl32.Vec3{0, -1000, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
}

func zeroG() Config {
	c := DefaultConfig()
	c.Gravity = mgl32.Vec3{}
	return c
}

// TestFreeFall checks the integrator against its closed form, bit for bit:
// symplectic Euler with substeps h, v += g·h then y += v·h.
func TestFreeFall(t *testing.T) {
	cfg := DefaultConfig()
	tw := newTestWorld(t, cfg)
	e := tw.sphere(Dynamic, 0.5, mgl32.Vec3{0, 100, 0}, mgl32.Vec3{})
	h := 1 / float32(cfg.TickRate) / float32(cfg.Substeps)
	g := cfg.Gravity[1]
	var y, v float32 = 100, 0
	for step := 1; step <= 120; step++ {
		tw.s.Step()
		for range cfg.Substeps {
			v += float32(g * h)
			y += float32(v * h)
		}
		if got := tw.pos(e)[1]; got != y {
			t.Fatalf("step %d: y = %v, want %v", step, got, y)
		}
		if got := tw.vel(e)[1]; got != v {
			t.Fatalf("step %d: vy = %v, want %v", step, got, v)
		}
	}
	// Against the exact closed form of that integrator: after N substeps
	// y = y0 + g h² N(N+1)/2.
	N := float64(120 * cfg.Substeps)
	want := 100 + float64(g)*float64(h)*float64(h)*N*(N+1)/2
	if d := math.Abs(float64(y) - want); d > 1e-3 {
		t.Errorf("y = %v, closed form %v (off by %v)", y, want, d)
	}
}

// TestSpinningKeepsSpeed: without gravity or contacts a spinning box keeps
// its angular velocity exactly.
func TestSpinningKeepsSpeed(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	w0 := mgl32.Vec3{1, 2, 3}
	e := tw.add(NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}}),
		mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, w0)
	tw.steps(600)
	if got := tw.w.Bodies().AngVel[e.Index()]; got != w0 {
		t.Errorf("angular velocity %v, want %v", got, w0)
	}
	q := tw.w.Bodies().Rot[e.Index()]
	if l := q.Len(); math.Abs(float64(l)-1) > 1e-5 {
		t.Errorf("rotation %v has length %v", q, l)
	}
}

// TestSpheresExchangeVelocities: two equal spheres meeting head on with
// restitution 1 swap velocities.
func TestSpheresExchangeVelocities(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	d := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.5})
	d.Restitution = 1
	a := tw.add(d, mgl32.Vec3{-2, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{5, 0, 0}, mgl32.Vec3{})
	b := tw.add(d, mgl32.Vec3{2, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{-5, 0, 0}, mgl32.Vec3{})
	tw.steps(60)
	va, vb := tw.vel(a), tw.vel(b)
	if math.Abs(float64(va[0]+5)) > 0.05 || math.Abs(float64(vb[0]-5)) > 0.05 {
		t.Errorf("after the collision va = %v, vb = %v; want -5 and 5 on x", va, vb)
	}
	// One ball at rest: the other stops.
	tw = newTestWorld(t, zeroG())
	a = tw.add(d, mgl32.Vec3{-2, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{6, 0, 0}, mgl32.Vec3{})
	b = tw.add(d, mgl32.Vec3{0, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(60)
	va, vb = tw.vel(a), tw.vel(b)
	if math.Abs(float64(va[0])) > 0.05 || math.Abs(float64(vb[0]-6)) > 0.05 {
		t.Errorf("after the collision va = %v, vb = %v; want 0 and 6 on x", va, vb)
	}
}

// TestBounceApex: a ball dropped on the floor with restitution e rises to
// about e² of its drop height.
func TestBounceApex(t *testing.T) {
	for _, e := range []float32{0.5, 0.8} {
		tw := newTestWorld(t, DefaultConfig())
		tw.ground(0.5, e)
		d := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.5})
		d.Restitution = e
		ball := tw.add(d, mgl32.Vec3{0, 5.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		bounced, apex := false, float32(0)
		for range 300 {
			tw.s.Step()
			v := tw.vel(ball)[1]
			if v > 0 {
				bounced = true
			}
			if bounced {
				apex = max(apex, tw.pos(ball)[1]-0.5)
				if v < 0 {
					break
				}
			}
		}
		ratio := apex / 5
		if want := e * e; math.Abs(float64(ratio-want)) > 0.05*float64(want)+0.01 {
			t.Errorf("e = %v: apex ratio %v, want about %v", e, ratio, want)
		}
	}
}

// TestRestingSphere: a ball resting on the floor stays put (under 1 mm of
// drift in 10 s) and falls asleep.
func TestRestingSphere(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.ground(0.5, 0)
	ball := tw.sphere(Dynamic, 0.5, mgl32.Vec3{0, 0.5, 0}, mgl32.Vec3{})
	tw.steps(30)
	start := tw.pos(ball)
	tw.steps(600)
	if d := tw.pos(ball).Sub(start).Len(); d > 1e-3 {
		t.Errorf("drifted %v m in 10 s", d)
	}
	if y := tw.pos(ball)[1]; math.Abs(float64(y-0.5)) > 0.01 {
		t.Errorf("rests at y = %v, want 0.5", y)
	}
	if !tw.s.Asleep(ball) {
		t.Errorf("not asleep after 10 s at rest")
	}
	// Something landing on it wakes it.
	top := tw.sphere(Dynamic, 0.5, mgl32.Vec3{0, 3, 0}, mgl32.Vec3{})
	tw.steps(40)
	if tw.s.Asleep(ball) || tw.s.Asleep(top) {
		t.Errorf("asleep after being hit: %v %v", tw.s.Asleep(ball), tw.s.Asleep(top))
	}
	tw.steps(600)
	if !tw.s.Asleep(ball) || !tw.s.Asleep(top) {
		t.Errorf("not asleep again: %v %v", tw.s.Asleep(ball), tw.s.Asleep(top))
	}
}

// TestKinematic: a kinematic body moves with its velocity whatever it hits
// and pushes dynamic bodies.
func TestKinematic(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	k := tw.sphere(Kinematic, 0.5, mgl32.Vec3{-3, 0, 0}, mgl32.Vec3{2, 0, 0})
	ball := tw.sphere(Dynamic, 0.5, mgl32.Vec3{0, 0, 0}, mgl32.Vec3{})
	tw.steps(120)
	if got := tw.vel(k); got != (mgl32.Vec3{2, 0, 0}) {
		t.Errorf("kinematic velocity %v", got)
	}
	if x := tw.pos(k)[0]; math.Abs(float64(x-1)) > 1e-4 {
		t.Errorf("kinematic at x = %v, want 1", x)
	}
	if x := tw.pos(ball)[0]; x < 1.9 {
		t.Errorf("the ball was not pushed: x = %v", x)
	}
}

// TestLocks: a body with its linear Y locked does not fall.
func TestLocks(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	d := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.5})
	d.Locks = LockLinearY | LockAngularX | LockAngularY | LockAngularZ
	e := tw.add(d, mgl32.Vec3{0, 5, 0}, mgl32.QuatIdent(), mgl32.Vec3{1, 3, 0}, mgl32.Vec3{4, 4, 4})
	tw.steps(60)
	if p := tw.pos(e); p[1] != 5 || math.Abs(float64(p[0]-1)) > 1e-4 {
		t.Errorf("position %v, want (1, 5, 0)", p)
	}
	if w := tw.w.Bodies().AngVel[e.Index()]; w != (mgl32.Vec3{}) {
		t.Errorf("angular velocity %v", w)
	}
}

// TestForces: ApplyForce accelerates by F/m for one step; ApplyImpulse
// changes the velocity by J/m at once.
func TestForces(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	e := tw.sphere(Dynamic, 0.5, mgl32.Vec3{}, mgl32.Vec3{})
	b, _ := tw.s.Body(e)
	if err := tw.s.ApplyForce(e, mgl32.Vec3{b.Mass * 60, 0, 0}); err != nil {
		t.Fatal(err)
	}
	tw.s.Step()
	if v := tw.vel(e)[0]; math.Abs(float64(v-1)) > 1e-5 {
		t.Errorf("after a force of 60 m for one step v = %v, want 1", v)
	}
	tw.s.Step()
	if v := tw.vel(e)[0]; math.Abs(float64(v-1)) > 1e-5 {
		t.Errorf("the force was not cleared: v = %v", v)
	}
	if err := tw.s.ApplyImpulse(e, mgl32.Vec3{0, b.Mass, 0}); err != nil {
		t.Fatal(err)
	}
	if v := tw.vel(e)[1]; math.Abs(float64(v-1)) > 1e-6 {
		t.Errorf("after an impulse of m vy = %v, want 1", v)
	}
	if err := tw.s.ApplyForce(e, mgl32.Vec3{float32(math.NaN()), 0, 0}); err == nil {
		t.Errorf("ApplyForce took NaN")
	}
	st := tw.sphere(Static, 0.5, mgl32.Vec3{5, 0, 0}, mgl32.Vec3{})
	if err := tw.s.ApplyImpulse(st, mgl32.Vec3{1, 0, 0}); err == nil {
		t.Errorf("ApplyImpulse took a static body")
	}
}

func TestAddBodyErrors(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	sphere := Shape{Kind: Sphere, Radius: 1}
	cases := []struct {
		name string
		d    BodyDef
		pos  mgl32.Vec3
		rot  mgl32.Quat
		vel  mgl32.Vec3
		want string
	}{
		{"kind", NewBodyDef(0, sphere), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, "unknown body kind"},
		{"shape", NewBodyDef(Dynamic, Shape{}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, "shape"},
		{"radius", NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: -1}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, "radius"},
		{"box", NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{1, 0, 1}}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, "half extents"},
		{"density", BodyDef{Kind: Dynamic, Shape: sphere}, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, "density"},
		{"nan density", BodyDef{Kind: Dynamic, Shape: sphere, Density: nan}, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, "density"},
		{"friction", BodyDef{Kind: Dynamic, Shape: sphere, Density: 1, Friction: -1}, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, "friction"},
		{"position", NewBodyDef(Dynamic, sphere), mgl32.Vec3{nan, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, "position"},
		{"rotation", NewBodyDef(Dynamic, sphere), mgl32.Vec3{}, mgl32.Quat{W: 2}, mgl32.Vec3{}, "unit quaternion"},
		{"velocity", NewBodyDef(Dynamic, sphere), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{0, inf, 0}, "velocity"},
		{"locks", BodyDef{Kind: Dynamic, Shape: sphere, Density: 1, Locks: 1 << 7}, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, "lock"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tw := newTestWorld(t, DefaultConfig())
			tr := geom.NewTransform(c.pos)
			tr.Rot = c.rot
			e := tw.w.Spawn(tr, engine.Interpolate)
			tw.w.SetDrawVelocity(e, c.vel, mgl32.Vec3{})
			err := tw.s.AddBody(e, c.d)
			if err == nil || !strings.HasPrefix(err.Error(), "physics: AddBody(") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("AddBody: %v, want an error about %q", err, c.want)
			}
			if _, ok := tw.s.Body(e); ok {
				t.Errorf("the entity became a body")
			}
		})
	}
	tw := newTestWorld(t, DefaultConfig())
	e := tw.sphere(Dynamic, 1, mgl32.Vec3{}, mgl32.Vec3{})
	if err := tw.s.AddBody(e, NewBodyDef(Dynamic, sphere)); err == nil {
		t.Errorf("AddBody twice")
	}
	tw.w.Despawn(e)
	if err := tw.s.AddBody(e, NewBodyDef(Dynamic, sphere)); err == nil {
		t.Errorf("AddBody of a dead entity")
	}
}

func TestNewErrors(t *testing.T) {
	w := engine.NewWorld(1)
	cfg := DefaultConfig()
	cfg.Substeps = 0
	if _, err := New(w, cfg); err == nil || !strings.Contains(err.Error(), "substeps") {
		t.Errorf("New with 0 substeps: %v", err)
	}
	if _, err := New(w, DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	if _, err := New(w, DefaultConfig()); err == nil {
		t.Errorf("a second Space on one world")
	}
}

// TestEvents: a begin when two balls meet, an end when they part, an end
// when one goes away.
func TestEvents(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	d := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.5})
	d.Restitution = 1
	a := tw.add(d, mgl32.Vec3{-1, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{3, 0, 0}, mgl32.Vec3{})
	b := tw.add(d, mgl32.Vec3{1, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	var got []ContactEvent
	for range 60 {
		tw.s.Step()
		got = append(got, tw.s.Events()...)
	}
	if len(got) != 2 || got[0].Kind != Begin || got[1].Kind != End || got[0].A != a || got[0].B != b {
		t.Fatalf("events %+v, want a begin and an end of (%v, %v)", got, a, b)
	}
	if n := got[0].Normal; math.Abs(float64(n[0]-1)) > 1e-6 {
		t.Errorf("begin normal %v, want +x", n)
	}

	// A sensor reports, and pushes nothing.
	tw = newTestWorld(t, zeroG())
	sd := NewBodyDef(Static, Shape{Kind: Sphere, Radius: 1})
	sd.Sensor = true
	sens := tw.add(sd, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	ball := tw.sphere(Dynamic, 0.25, mgl32.Vec3{-3, 0, 0}, mgl32.Vec3{3, 0, 0})
	got = got[:0]
	for range 120 {
		tw.s.Step()
		got = append(got, tw.s.Events()...)
	}
	if len(got) != 2 || got[0].Kind != Begin || !got[0].Sensor || got[0].A != sens || got[0].B != ball || got[1].Kind != End {
		t.Fatalf("sensor events %+v", got)
	}
	if v := tw.vel(ball); v != (mgl32.Vec3{3, 0, 0}) {
		t.Errorf("the sensor changed the ball's velocity to %v", v)
	}

	// Despawning a body ends its contacts.
	tw = newTestWorld(t, DefaultConfig())
	g := tw.ground(0.5, 0)
	ball = tw.sphere(Dynamic, 0.5, mgl32.Vec3{0, 0.5, 0}, mgl32.Vec3{})
	tw.s.Step()
	if ev := tw.s.Events(); len(ev) != 1 || ev[0].Kind != Begin || ev[0].A != g {
		t.Fatalf("events %+v, want one begin", ev)
	}
	tw.w.Despawn(ball)
	tw.s.Step()
	if ev := tw.s.Events(); len(ev) != 1 || ev[0].Kind != End || ev[0].B != ball {
		t.Fatalf("events %+v, want one end", ev)
	}
	if n := tw.s.Contacts().Ptr().Len(); n != 0 {
		t.Errorf("%d manifolds left", n)
	}
}

// TestNaNGuard: a body whose state the game made NaN is put back, at rest,
// and counted; nothing else is touched.
func TestNaNGuard(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.ground(0.5, 0)
	a := tw.sphere(Dynamic, 0.5, mgl32.Vec3{0, 0.5, 0}, mgl32.Vec3{})
	b := tw.sphere(Dynamic, 0.5, mgl32.Vec3{0, 1.5, 0}, mgl32.Vec3{})
	tw.steps(10)
	tw.w.Bodies().Vel[b.Index()] = mgl32.Vec3{float32(math.NaN()), 0, 0}
	tw.steps(10)
	if got := tw.s.Stats().Resets; got != 1 {
		t.Errorf("Resets = %d, want 1", got)
	}
	for _, e := range []engine.Entity{a, b} {
		p, v := tw.pos(e), tw.vel(e)
		if !finite(p[0]) || !finite(p[1]) || !finite(v[0]) || !finite(v[1]) {
			t.Errorf("%v: position %v velocity %v", e, p, v)
		}
	}
}

// TestEntityBits checks entityBits against the Entity's own methods.
func TestEntityBits(t *testing.T) {
	w := engine.NewWorld(1)
	var es []engine.Entity
	for range 3 {
		es = append(es, w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate))
	}
	w.Despawn(es[1])
	e := w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	i, g := entityBits(e)
	if int(i) != e.Index() || e.String() != "1:3" || g != 3 {
		t.Errorf("entityBits(%v) = %d, %d", e, i, g)
	}
	if entityFrom(i, g) != e {
		t.Errorf("entityFrom(%d, %d) != %v", i, g, e)
	}
}

func geomAt(p mgl32.Vec3) geom.Transform { return geom.NewTransform(p) }

func TestAddBodyErrorPrefix(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	e := tw.w.Spawn(geomAt(mgl32.Vec3{}), engine.Interpolate)
	err := tw.s.AddBody(e, NewBodyDef(Dynamic, Shape{Kind: Box}))
	if err == nil || strings.Count(err.Error(), "physics: ") != 1 {
		t.Errorf("AddBody: %v, want one \"physics: \" prefix", err)
	}
}
