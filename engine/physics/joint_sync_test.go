package physics_test

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/rollback"
)

// TestJointsAndCharacterSyncTest: a game with a hanging chain, a hinged
// door, a slider driven by a motor, a rope, a spring, a ragdoll-like body
// of capsules on limited joints and a character walking, jumping and
// pushing (its vertical speed a component of the world) passes the sync
// test at depth 8: every tick simulated again from 8 ticks back, with the
// same inputs, gives the same state hash, as a rollback client needs.
func TestJointsAndCharacterSyncTest(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s, err := physics.Attach(e, physics.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	w := e.World
	vy := engine.NewComponent[float32](w, "test.vy")
	add := func(k physics.Kind, sh physics.Shape, pos mgl32.Vec3) engine.Entity {
		b := w.Spawn(geom.NewTransform(pos), engine.Interpolate)
		if err := s.AddBody(b, physics.NewBodyDef(k, sh)); err != nil {
			t.Fatal(err)
		}
		return b
	}
	joint := func(d physics.JointDef) {
		if err := s.AddJoint(w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate), d); err != nil {
			t.Fatal(err)
		}
	}
	box := func(x, y, z float32) physics.Shape {
		return physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{x, y, z}}
	}
	add(physics.Static, box(20, 0.5, 20), mgl32.Vec3{0, -0.5, 0})
	// A chain of 8 capsules from a static anchor, released sideways.
	prev := add(physics.Static, box(0.1, 0.1, 0.1), mgl32.Vec3{-5, 6, 0})
	for i := range 8 {
		link := add(physics.Dynamic, physics.Shape{Kind: physics.Capsule, Radius: 0.05, HalfHeight: 0.15},
			mgl32.Vec3{-5 + 0.2 + float32(0.4*float32(i)), 6, 0})
		if err := s.Teleport(link, mgl32.Vec3{-5 + 0.2 + float32(0.4*float32(i)), 6, 0}, mgl32.Quat{W: 0.70710677, V: mgl32.Vec3{0, 0, -0.70710677}}); err != nil {
			t.Fatal(err)
		}
		d := physics.NewJointDef(physics.JointSpherical, prev, link)
		if i > 0 {
			d.AnchorA = mgl32.Vec3{0, 0.2, 0}
		}
		d.AnchorB = mgl32.Vec3{0, -0.2, 0}
		joint(d)
		prev = link
	}
	// A door on a hinge with limits, and a slider driven into its limit.
	post := add(physics.Static, box(0.05, 1, 0.05), mgl32.Vec3{3, 1, 3})
	door := add(physics.Dynamic, box(0.5, 0.9, 0.05), mgl32.Vec3{3.55, 1, 3})
	d := physics.NewJointDef(physics.JointRevolute, post, door)
	d.AxisA, d.NormalA = mgl32.Vec3{0, 1, 0}, mgl32.Vec3{1, 0, 0}
	d.AxisB, d.NormalB = d.AxisA, d.NormalA
	d.AnchorA, d.AnchorB = mgl32.Vec3{0.05, 0, 0}, mgl32.Vec3{-0.5, 0, 0}
	d.Limits, d.Lower, d.Upper = true, -1, 1
	d.Motor, d.MotorSpeed, d.MaxMotorForce = true, 1, 20
	joint(d)
	rail := add(physics.Static, box(1.5, 0.05, 0.05), mgl32.Vec3{0, 2, -3})
	cart := add(physics.Dynamic, box(0.2, 0.2, 0.2), mgl32.Vec3{0, 2, -3})
	d = physics.NewJointDef(physics.JointPrismatic, rail, cart)
	d.Limits, d.Lower, d.Upper = true, -1, 1
	d.Motor, d.MotorSpeed, d.MaxMotorForce = true, 1, 200
	joint(d)
	// A ball on a rope and one on a spring.
	for i, spring := range []bool{false, true} {
		pivot := add(physics.Static, box(0.05, 0.05, 0.05), mgl32.Vec3{6 + float32(i), 4, 0})
		ball := add(physics.Dynamic, physics.Shape{Kind: physics.Sphere, Radius: 0.2}, mgl32.Vec3{6.5 + float32(i), 3, 0})
		d = physics.NewJointDef(physics.JointDistance, pivot, ball)
		d.MaxLength, d.Spring, d.Stiffness, d.Damping = 1.5, spring, 500, 5
		joint(d)
	}
	// A small ragdoll: a torso, a head on a cone, two legs on knees.
	torso := add(physics.Dynamic, box(0.2, 0.3, 0.1), mgl32.Vec3{0, 3, 3})
	head := add(physics.Dynamic, physics.Shape{Kind: physics.Sphere, Radius: 0.12}, mgl32.Vec3{0, 3.45, 3})
	d = physics.NewJointDef(physics.JointSpherical, torso, head)
	d.AnchorA, d.AnchorB = mgl32.Vec3{0, 0.32, 0}, mgl32.Vec3{0, -0.13, 0}
	d.AxisA, d.NormalA, d.AxisB, d.NormalB = mgl32.Vec3{0, 1, 0}, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 1, 0}, mgl32.Vec3{1, 0, 0}
	d.SwingLimit, d.Limits, d.Lower, d.Upper = 0.6, true, -0.5, 0.5
	joint(d)
	for _, x := range []float32{-0.1, 0.1} {
		thigh := add(physics.Dynamic, physics.Shape{Kind: physics.Capsule, Radius: 0.07, HalfHeight: 0.15}, mgl32.Vec3{x, 2.47, 3})
		shin := add(physics.Dynamic, physics.Shape{Kind: physics.Capsule, Radius: 0.06, HalfHeight: 0.15}, mgl32.Vec3{x, 2.03, 3})
		d = physics.NewJointDef(physics.JointSpherical, torso, thigh)
		d.AnchorA, d.AnchorB = mgl32.Vec3{x, -0.31, 0}, mgl32.Vec3{0, 0.22, 0}
		joint(d)
		d = physics.NewJointDef(physics.JointRevolute, thigh, shin)
		d.AxisA, d.NormalA, d.AxisB, d.NormalB = mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, -1, 0}, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, -1, 0}
		d.AnchorA, d.AnchorB = mgl32.Vec3{0, -0.22, 0}, mgl32.Vec3{0, 0.22, 0}
		d.Limits, d.Lower, d.Upper = true, 0, 2.5
		joint(d)
	}
	// The character, walking towards a crate and the ragdoll's landing,
	// jumping every 90 ticks.
	add(physics.Dynamic, box(0.3, 0.3, 0.3), mgl32.Vec3{-2, 0.3, 3})
	ch := w.Spawn(geom.NewTransform(mgl32.Vec3{-4, 0.91, 3}), engine.Interpolate)
	if err := s.AddCharacter(ch, physics.NewCharacterDef(0.3, 0.6)); err != nil {
		t.Fatal(err)
	}
	vy.Set(ch, 0)
	if err := e.AddSystem(engine.StageScripts, "walk", func(c *engine.FixedContext) {
		v := vy.Ptr(ch)
		if st, _ := s.Character(ch); st.Grounded && *v < 0 {
			*v = 0
			if c.Tick%90 == 0 {
				*v = 4
			}
		}
		*v -= float32(9.81 * c.DT)
		if _, err := s.MoveCharacter(ch, mgl32.Vec3{float32(1.5 * c.DT), float32(*v * c.DT), 0}); err != nil {
			t.Error(err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := rollback.SyncTest(e, rollback.SyncTestConfig{Ticks: 240, Depth: 8}); err != nil {
		t.Fatal(err)
	}
	if p := w.Bodies().Pos[ch.Index()]; p[0] < -2.9 {
		t.Errorf("the character is at %v: it did not walk", p)
	}
}
