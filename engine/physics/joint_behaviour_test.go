package physics

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// TestJointMotorSpinsUp: the free paddle of the shared scene hinge-motor
// (a 3 × 0.4 × 0.1 m box of density 1000 on a vertical revolute joint to
// a static hub, motor target π rad/s, at most 300 N·m) spins up at
// τ/I = 3.32963 rad/s² and reaches π rad/s at step 57 (analytic 0.9435 s
// = 56.6 steps; Rapier 0.21 and Jolt 1.1: 3.3297 rad/s², step 57), then
// stays there.
func TestJointMotorSpinsUp(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	hd := NewBodyDef(Static, Shape{Kind: Sphere, Radius: 0.05})
	hub := tw.add(hd, mgl32.Vec3{-7, 0.35, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	pd := NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{1.5, 0.2, 0.05}})
	pd.Density = 1000
	paddle := tw.add(pd, mgl32.Vec3{-7, 0.35, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	d := NewJointDef(JointRevolute, hub, paddle)
	d.AxisA, d.NormalA = mgl32.Vec3{0, 1, 0}, mgl32.Vec3{1, 0, 0}
	d.AxisB, d.NormalB = d.AxisA, d.NormalA
	d.Motor, d.MotorSpeed, d.MaxMotorForce = true, math.Pi, 300
	tw.joint(d)
	reached := -1
	var w30 float32
	for i := 1; i <= 120; i++ {
		tw.s.Step()
		w := tw.w.Bodies().AngVel[paddle.Index()][1]
		if i == 30 {
			w30 = w
		}
		if reached < 0 && w >= math.Pi*(1-1e-5) {
			reached = i
		}
	}
	acc := w30 / 0.5
	t.Logf("angular acceleration %.5f rad/s², π rad/s at step %d, at step 120 %.6f rad/s", acc, reached, tw.w.Bodies().AngVel[paddle.Index()][1])
	if abs(acc-3.32963) > 3.32963e-4 {
		t.Errorf("angular acceleration %.5f rad/s², want 3.32963 within 0.01 %%", acc)
	}
	if reached != 57 {
		t.Errorf("π rad/s reached at step %d, want 57", reached)
	}
	if w := tw.w.Bodies().AngVel[paddle.Index()][1]; abs(w-math.Pi) > 1e-4 {
		t.Errorf("at step 120 %.6f rad/s, want π", w)
	}
	// SetJointMotor: a new target is held, a motor turned off lets the
	// paddle coast, and a bad force is refused.
	j := tw.s.Joints().Indices()[0]
	je, _ := tw.w.EntityAt(int(j))
	if err := tw.s.SetJointMotor(je, true, -1, 300); err != nil {
		t.Fatal(err)
	}
	tw.steps(120)
	if w := tw.w.Bodies().AngVel[paddle.Index()][1]; abs(w+1) > 1e-4 {
		t.Errorf("after SetJointMotor(−1 rad/s): %.6f rad/s", w)
	}
	if err := tw.s.SetJointMotor(je, false, 0, 0); err != nil {
		t.Fatal(err)
	}
	tw.steps(60)
	if w := tw.w.Bodies().AngVel[paddle.Index()][1]; abs(w+1) > 1e-3 {
		t.Errorf("motor off: %.6f rad/s, want the paddle coasting at −1", w)
	}
	if err := tw.s.SetJointMotor(je, true, 1, -5); err == nil {
		t.Errorf("SetJointMotor with a negative force: no error")
	}
}

// TestJointBreaks: a 10 kg ball hanging on a spherical joint that breaks
// above 200 N holds (98.1 N), and falls the step its load passes 200 N
// (a downward push of 150 N added), with the joint in BrokenJoints that
// step only, Broken set, and holding nothing after.
func TestJointBreaks(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	bd := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.2})
	bd.Mass = 10
	ball := tw.add(bd, mgl32.Vec3{0, 5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	d := NewJointDef(JointSpherical, engine.Entity{}, ball)
	d.AnchorA, d.AnchorB = mgl32.Vec3{0, 6, 0}, mgl32.Vec3{0, 1, 0}
	d.BreakForce = 200
	j := tw.joint(d)
	tw.steps(60)
	jc, _ := tw.s.Joint(j)
	if jc.Broken || len(tw.s.BrokenJoints()) != 0 || abs(jc.Force-98.1) > 0.5 {
		t.Fatalf("holding: broken %v (events %v), force %.2f N; want whole, 98.1 N", jc.Broken, tw.s.BrokenJoints(), jc.Force)
	}
	if p := tw.pos(ball); p.Sub(mgl32.Vec3{0, 5, 0}).Len() > 1e-4 {
		t.Fatalf("holding: the ball is at %v, want (0, 5, 0)", p)
	}
	if err := tw.s.ApplyForce(ball, mgl32.Vec3{0, -150, 0}); err != nil {
		t.Fatal(err)
	}
	tw.s.Step()
	if b := tw.s.BrokenJoints(); len(b) != 1 || b[0] != j {
		t.Fatalf("the step of the push: broken joints %v, want [%v]", b, j)
	}
	tw.s.Step()
	jc, _ = tw.s.Joint(j)
	if !jc.Broken || len(tw.s.BrokenJoints()) != 0 {
		t.Errorf("after: Broken %v, events %v; want true and none", jc.Broken, tw.s.BrokenJoints())
	}
	tw.steps(30)
	if y := tw.pos(ball)[1]; y > 4 {
		t.Errorf("the ball is at y = %.3f after breaking loose, want falling below 4", y)
	}
}

// TestJointedBodiesDoNotCollide: two boxes overlapping where a spherical
// joint holds them (a knee) do not push each other apart; with
// CollideConnected they do.
func TestJointedBodiesDoNotCollide(t *testing.T) {
	for _, collide := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Gravity = mgl32.Vec3{}
		tw := newTestWorld(t, cfg)
		bd := NewBodyDef(Dynamic, unitBox)
		a := tw.add(bd, mgl32.Vec3{0, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		b := tw.add(bd, mgl32.Vec3{0.8, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		d := NewJointDef(JointSpherical, a, b)
		d.AnchorA, d.AnchorB = mgl32.Vec3{0.4, 0, 0}, mgl32.Vec3{-0.4, 0, 0}
		d.CollideConnected = collide
		tw.joint(d)
		tw.steps(30)
		turned := tw.w.Bodies().AngVel[b.Index()].Len() + tw.w.Bodies().AngVel[a.Index()].Len()
		moved := tw.vel(a).Len() + tw.vel(b).Len() + turned
		if !collide && (moved > 1e-4 || tw.s.Contacts().Ptr().Len() != 0) {
			t.Errorf("CollideConnected off: the boxes move at %.3g, %d manifolds; want at rest, none", moved, tw.s.Contacts().Ptr().Len())
		}
		if collide && moved < 0.01 {
			t.Errorf("CollideConnected on: the overlapping boxes move at %.3g; want pushed apart", moved)
		}
	}
}

// TestJointedIslandsSleepAndWake: a pendulum at rest falls asleep with its
// bob; a body jointed to a sleeping one wakes it when it moves, and a
// joint keeps the two in one island (they sleep at the same step).
func TestJointedIslandsSleepAndWake(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	bd := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.1})
	bd.Density = 1000
	a := tw.add(bd, mgl32.Vec3{0, 2, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	b := tw.add(bd, mgl32.Vec3{0, 1, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	d := NewJointDef(JointSpherical, engine.Entity{}, a)
	d.AnchorA, d.AnchorB = mgl32.Vec3{0, 3, 0}, mgl32.Vec3{0, 1, 0}
	tw.joint(d)
	d = NewJointDef(JointDistance, a, b)
	d.MaxLength = 1
	tw.joint(d)
	asleepA, asleepB := -1, -1
	for i := range 300 {
		tw.s.Step()
		if asleepA < 0 && tw.s.Asleep(a) {
			asleepA = i
		}
		if asleepB < 0 && tw.s.Asleep(b) {
			asleepB = i
		}
	}
	if asleepA < 0 || asleepA != asleepB {
		t.Fatalf("the hanging pair fell asleep at steps %d and %d, want the same step", asleepA, asleepB)
	}
	if err := tw.s.SetVelocity(b, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{}); err != nil {
		t.Fatal(err)
	}
	tw.s.Step()
	if tw.s.Asleep(a) || tw.s.Asleep(b) {
		t.Fatalf("after pushing the lower bob: asleep %v and %v, want both awake", tw.s.Asleep(a), tw.s.Asleep(b))
	}
	if v := tw.vel(a).Len(); v == 0 {
		t.Errorf("the upper bob did not move with the lower one")
	}
}

// TestJointStateRollsBack: a world with every kind of joint, saved and
// loaded mid-motion (LoadState) and restored into a new Space, steps to
// the bits it stepped to the first time: the joints' warm start is in the
// world.
func TestJointStateRollsBack(t *testing.T) {
	build := func(tw *testWorld) {
		jointTypesScene(tw)
		chainScene(tw, 10, 0)
	}
	tw := newTestWorld(t, DefaultConfig())
	build(tw)
	tw.steps(40)
	var st engine.State
	tw.e.SaveState(&st)
	snap := tw.e.Snapshot()
	tw.steps(60)
	h1 := tw.w.Hash()
	tw.e.LoadState(&st)
	tw.steps(60)
	if h2 := tw.w.Hash(); h2 != h1 {
		t.Errorf("after LoadState: hash %x, want %x", h2, h1)
	}
	fresh := newTestWorld(t, DefaultConfig())
	if err := fresh.e.Restore(snap); err != nil {
		t.Fatal(err)
	}
	fresh.steps(60)
	if h3 := fresh.w.Hash(); h3 != h1 {
		t.Errorf("a new Space on a restored world: hash %x, want %x", h3, h1)
	}
}

// TestJointStepNoAllocs: a step of a world with joints of every kind
// allocates nothing.
func TestJointStepNoAllocs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NoSleep = true
	tw := newTestWorld(t, cfg)
	jointTypesScene(tw)
	chainScene(tw, 20, 0)
	tw.steps(200)
	if a := testing.AllocsPerRun(20, tw.s.Step); a != 0 {
		t.Errorf("%v allocations per step", a)
	}
}

// TestAddJointRefuses: AddJoint refuses what is out of range, saying what
// was wrong, and adds nothing.
func TestAddJointRefuses(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	dyn := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	st := tw.add(NewBodyDef(Static, unitBox), mgl32.Vec3{3, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	st2 := tw.add(NewBodyDef(Static, unitBox), mgl32.Vec3{6, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	nan := float32(math.NaN())
	cases := []struct {
		name string
		d    func() JointDef
		want string
	}{
		{"unknown kind", func() JointDef { return NewJointDef(0, st, dyn) }, "kind"},
		{"B not a body", func() JointDef { return NewJointDef(JointSpherical, st, engine.Entity{}) }, "B"},
		{"same body", func() JointDef { return NewJointDef(JointSpherical, dyn, dyn) }, "same body"},
		{"no dynamic body", func() JointDef { return NewJointDef(JointSpherical, st, st2) }, "dynamic"},
		{"NaN anchor", func() JointDef {
			d := NewJointDef(JointSpherical, st, dyn)
			d.AnchorB[1] = nan
			return d
		}, "AnchorB"},
		{"axis not unit", func() JointDef {
			d := NewJointDef(JointRevolute, st, dyn)
			d.AxisA = mgl32.Vec3{2, 0, 0}
			return d
		}, "AxisA"},
		{"normal not perpendicular", func() JointDef {
			d := NewJointDef(JointRevolute, st, dyn)
			d.NormalB = mgl32.Vec3{1, 0, 0}
			return d
		}, "perpendicular"},
		{"limits the wrong way", func() JointDef {
			d := NewJointDef(JointRevolute, st, dyn)
			d.Limits, d.Lower, d.Upper = true, 0.5, 1
			return d
		}, "limits"},
		{"limits on a fixed joint", func() JointDef {
			d := NewJointDef(JointFixed, st, dyn)
			d.Limits, d.Lower, d.Upper = true, -1, 1
			return d
		}, "no limits"},
		{"motor without force", func() JointDef {
			d := NewJointDef(JointRevolute, st, dyn)
			d.Motor = true
			return d
		}, "MaxMotorForce"},
		{"rope of no length", func() JointDef { return NewJointDef(JointDistance, st, dyn) }, "lengths"},
		{"spring of no stiffness", func() JointDef {
			d := NewJointDef(JointDistance, st, dyn)
			d.MaxLength, d.Spring = 1, true
			return d
		}, "stiffness"},
		{"lengths on a hinge", func() JointDef {
			d := NewJointDef(JointRevolute, st, dyn)
			d.MaxLength = 1
			return d
		}, "no lengths"},
		{"negative break force", func() JointDef {
			d := NewJointDef(JointSpherical, st, dyn)
			d.BreakForce = -1
			return d
		}, "BreakForce"},
		{"a cone on a hinge", func() JointDef {
			d := NewJointDef(JointRevolute, st, dyn)
			d.SwingLimit = 1
			return d
		}, "SwingLimit"},
	}
	for _, c := range cases {
		e := tw.w.Spawn(tw.w.Transform(dyn), engine.Interpolate)
		err := tw.s.AddJoint(e, c.d())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
		if tw.s.Joints().Len() != 0 {
			t.Fatalf("%s: a joint was added", c.name)
		}
	}
	if err := tw.s.AddJoint(dyn, NewJointDef(JointSpherical, st, dyn)); err == nil || !strings.Contains(err.Error(), "is a body") {
		t.Errorf("a body as the joint's entity: %v", err)
	}
}

// TestSphericalLimits: a rod on a spherical joint with a 0.5 rad swing
// cone about the horizontal axis it starts along falls until it leans 0.5
// rad from that axis, no further (it hangs on the cone); a rod hanging on
// one
// with twist limits of ±0.2 rad, spun about its own axis at 2 rad/s,
// turns at most 0.2 rad.
func TestSphericalLimits(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	bd := NewBodyDef(Dynamic, Shape{Kind: Capsule, Radius: 0.05, HalfHeight: 0.4})
	bd.Density = 1000
	// The capsule's axis (local Y) along +X: horizontal.
	rot := mgl32.Quat{W: 0.70710677, V: mgl32.Vec3{0, 0, -0.70710677}}
	rod := tw.add(bd, mgl32.Vec3{0.45, 5, 0}, rot, mgl32.Vec3{}, mgl32.Vec3{})
	d := NewJointDef(JointSpherical, engine.Entity{}, rod)
	d.AnchorA, d.AnchorB = mgl32.Vec3{0, 5, 0}, mgl32.Vec3{0, -0.45, 0}
	// The cone's axis along +X in the world, the rod's axis from the
	// joint to its far end (its local +Y): they coincide at the start.
	out := mgl32.Vec3{1, 0, 0}
	d.AxisA, d.NormalA = out, mgl32.Vec3{0, 0, 1}
	d.AxisB, d.NormalB = mgl32.Vec3{0, 1, 0}, mgl32.Vec3{0, 0, 1}
	d.SwingLimit = 0.5
	tw.joint(d)
	var worst float32
	for range 240 {
		tw.s.Step()
		axis := tw.w.Bodies().Rot[rod.Index()].Rotate(mgl32.Vec3{0, 1, 0})
		worst = max(worst, atan2(axis.Cross(out).Len(), axis.Dot(out)))
	}
	t.Logf("largest swing %.4f rad", worst)
	if worst > 0.5+0.01 || worst < 0.45 {
		t.Errorf("the rod leaned at most %.4f rad from the cone's axis, want 0.5 (within 0.01; at least 0.45: it swings onto the cone)", worst)
	}

	tw = newTestWorld(t, DefaultConfig())
	hang := mgl32.Quat{W: 0, V: mgl32.Vec3{1, 0, 0}} // local +Y pointing down
	rod = tw.add(bd, mgl32.Vec3{0, 4.55, 0}, hang, mgl32.Vec3{}, mgl32.Vec3{0, -2, 0})
	d = NewJointDef(JointSpherical, engine.Entity{}, rod)
	d.AnchorA, d.AnchorB = mgl32.Vec3{0, 5, 0}, mgl32.Vec3{0, -0.45, 0}
	d.AxisA, d.NormalA = mgl32.Vec3{0, -1, 0}, mgl32.Vec3{0, 0, 1}
	d.AxisB, d.NormalB = mgl32.Vec3{0, 1, 0}, mgl32.Vec3{0, 0, -1}
	d.Limits, d.Lower, d.Upper = true, -0.2, 0.2
	tw.joint(d)
	var twist float32
	for range 120 {
		tw.s.Step()
		q := tw.w.Bodies().Rot[rod.Index()]
		twist = max(twist, abs(2*atan2(q.Mul(hang.Conjugate()).V[1], q.Mul(hang.Conjugate()).W)))
	}
	t.Logf("largest twist %.4f rad", twist)
	if twist > 0.2+0.01 || twist < 0.15 {
		t.Errorf("the rod turned at most %.4f rad about its axis, want 0.2 (within 0.01)", twist)
	}
}

// TestJointAddAndRemoveWake: a lamp asleep on a rope falls when the rope
// is removed; a box asleep on the floor rises when a spring to a point
// above it is added (Box2D wakes a joint's bodies on both).
func TestJointAddAndRemoveWake(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	lamp := tw.add(NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.2}), mgl32.Vec3{0, 3, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	d := NewJointDef(JointDistance, engine.Entity{}, lamp)
	d.AnchorA, d.MaxLength = mgl32.Vec3{0, 4, 0}, 1
	rope := tw.joint(d)
	tw.steps(120)
	if !tw.s.Asleep(lamp) {
		t.Fatalf("the lamp did not fall asleep on its rope")
	}
	tw.s.RemoveJoint(rope)
	tw.steps(60)
	if y := tw.pos(lamp)[1]; y > 2 {
		t.Errorf("rope removed: the lamp is at y = %.3f a second later, want fallen (below 2)", y)
	}

	tw = newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	box := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(120)
	if !tw.s.Asleep(box) {
		t.Fatalf("the box did not fall asleep on the floor")
	}
	d = NewJointDef(JointDistance, engine.Entity{}, box)
	d.AnchorA, d.MaxLength, d.Spring, d.Stiffness = mgl32.Vec3{0, 5, 0}, 0.5, true, 500
	tw.joint(d)
	tw.steps(60)
	if y := tw.pos(box)[1]; y < 1 {
		t.Errorf("spring added: the box is at y = %.3f a second later, want lifted", y)
	}
}

// TestJointedSlotReused: a body despawned while jointed leaves its slot to
// the next entity spawned; that one is not kept from colliding with the
// joint's other body.
func TestJointedSlotReused(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Gravity = mgl32.Vec3{}
	tw := newTestWorld(t, cfg)
	a := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{-3, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	b := tw.add(NewBodyDef(Static, unitBox), mgl32.Vec3{0, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	d := NewJointDef(JointDistance, a, b)
	d.MaxLength = 5
	tw.joint(d)
	tw.steps(2)
	tw.w.Despawn(a)
	c := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{-3, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{5, 0, 0}, mgl32.Vec3{})
	if c.Index() != a.Index() {
		t.Fatalf("the new body took slot %d, not the despawned one's %d: nothing to test", c.Index(), a.Index())
	}
	tw.steps(60)
	if x := tw.pos(c)[0]; x > -0.9 {
		t.Errorf("the new body is at x = %.3f, through the static box (its face at -0.5)", x)
	}
}
