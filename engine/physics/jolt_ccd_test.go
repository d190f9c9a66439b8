package physics

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// Ports of Jolt's continuous collision tests: jrouwe/JoltPhysics,
// UnitTests/Physics/MotionQualityLinearCastTests.cpp (test suite
// "MotionQualityLinearCastTests"). Jolt's EMotionQuality::LinearCast is
// BodyDef.CCD, EMotionQuality::Discrete a body without it (Nebula's
// automatic CCD is against static bodies only, and these bodies are all
// dynamic); Jolt's inactive body is one put to sleep first. Jolt's contact
// listener's Add and Remove are Nebula's Begin and End events (Nebula has
// no Validate or Persist event: a contact that goes on reports nothing).
//
// Tolerances: Jolt's CHECK_APPROX_EQUAL is 1e-6 by default, met by its
// float32 arithmetic because its linear cast computes the time of impact
// exactly for these axis-aligned boxes; Nebula's soft, substepped solver
// (4 substeps, velocity iterations with speculative contacts) lands the
// same velocities within a few ulps of 120 m/s, so those are checked to
// 1e-4 m/s (float32: one ulp of 120 is 7.6e-6), positions with Jolt's own
// penetration slop (0.02 m) where Jolt uses it.

const (
	joltBoxExtent = 0.5
	joltFrequency = 60
	joltSlop      = 0.02 // Jolt's PhysicsSettings::mPenetrationSlop
)

var (
	joltVelocity = mgl32.Vec3{2 * joltFrequency, 0, 0} // 2 m in one step
	joltPos1     = mgl32.Vec3{-1, 0, 0}
	joltPos2     = mgl32.Vec3{1, 0, 0}
)

// castBox adds a unit cube at pos with velocity vel.
func (tw *testWorld) castBox(pos, vel mgl32.Vec3, ccd bool, restitution float32) engine.Entity {
	d := NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{joltBoxExtent, joltBoxExtent, joltBoxExtent}})
	d.CCD, d.Restitution = ccd, restitution
	return tw.add(d, pos, mgl32.QuatIdent(), vel, mgl32.Vec3{})
}

// events counts the step's Begin and End events.
func (tw *testWorld) events() (begins, ends int) {
	for _, ev := range tw.s.Events() {
		if ev.Kind == Begin {
			begins++
		} else {
			ends++
		}
	}
	return begins, ends
}

// check reports where e is not at pos (within posTol) moving at vel
// (within velTol) without turning (within velTol).
func (tw *testWorld) check(t *testing.T, what string, e engine.Entity, pos mgl32.Vec3, posTol float32, vel mgl32.Vec3, velTol float32) {
	t.Helper()
	if p := tw.pos(e); p.Sub(pos).Len() > posTol {
		t.Errorf("%s: position %v, want %v within %v", what, p, pos, posTol)
	}
	if v := tw.vel(e); v.Sub(vel).Len() > velTol {
		t.Errorf("%s: velocity %v, want %v within %v", what, v, vel, velTol)
	}
	if w := tw.w.Bodies().AngVel[e.Index()]; w.Len() > velTol {
		t.Errorf("%s: angular velocity %v, want 0 within %v", what, w, velTol)
	}
}

// Jolt: TestDiscreteBoxVsDiscreteBox. Two boxes without CCD, each fast
// enough to pass the other in one step: they tunnel, no contact.
func TestJoltDiscreteBoxVsDiscreteBox(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	box1 := tw.castBox(joltPos1, joltVelocity, false, 0)
	box2 := tw.castBox(joltPos2, joltVelocity.Mul(-1), false, 0)
	tw.steps(1)
	if b, e := tw.events(); b+e != 0 {
		t.Errorf("%d begin and %d end events, want none", b, e)
	}
	tw.check(t, "box1", box1, joltPos1.Add(joltVelocity.Mul(1.0/joltFrequency)), 1e-6, joltVelocity, 1e-6)
	tw.check(t, "box2", box2, joltPos2.Sub(joltVelocity.Mul(1.0/joltFrequency)), 1e-6, joltVelocity.Mul(-1), 1e-6)
}

// Jolt: TestLinearCastBoxVsLinearCastBoxElastic. Two CCD boxes meet in
// the middle with restitution 1: they stop touching there with their
// velocities reversed, move apart in the next step (the contact goes on:
// no event) and the one after (it ends).
func TestJoltLinearCastBoxVsLinearCastBoxElastic(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	box1 := tw.castBox(joltPos1, joltVelocity, true, 1)
	box2 := tw.castBox(joltPos2, joltVelocity.Mul(-1), true, 1)
	at := func(step int) (p1, p2 mgl32.Vec3) {
		d := joltVelocity.Mul(float32(step) / joltFrequency)
		return mgl32.Vec3{-joltBoxExtent, 0, 0}.Sub(d), mgl32.Vec3{joltBoxExtent, 0, 0}.Add(d)
	}
	for step, want := range [][2]int{{1, 0}, {0, 0}, {0, 1}} {
		tw.steps(1)
		if b, e := tw.events(); b != want[0] || e != want[1] {
			t.Errorf("step %d: %d begin and %d end events, want %d and %d", step+1, b, e, want[0], want[1])
		}
		p1, p2 := at(step)
		tw.check(t, "box1", box1, p1, joltSlop, joltVelocity.Mul(-1), 1e-4)
		tw.check(t, "box2", box2, p2, joltSlop, joltVelocity, 1e-4)
	}
}

// Jolt: TestLinearCastBoxVsLinearCastBoxInelastic. The same with
// restitution 0: they stop in the middle and stay there, touching, for
// ten more steps.
func TestJoltLinearCastBoxVsLinearCastBoxInelastic(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	box1 := tw.castBox(joltPos1, joltVelocity, true, 0)
	box2 := tw.castBox(joltPos2, joltVelocity.Mul(-1), true, 0)
	for step := range 11 {
		tw.steps(1)
		want := 0
		if step == 0 {
			want = 1
		}
		if b, e := tw.events(); b != want || e != 0 {
			t.Errorf("step %d: %d begin and %d end events, want %d and 0", step+1, b, e, want)
		}
		tw.check(t, "box1", box1, mgl32.Vec3{-joltBoxExtent, 0, 0}, joltSlop, mgl32.Vec3{}, 1e-4)
		tw.check(t, "box2", box2, mgl32.Vec3{joltBoxExtent, 0, 0}, joltSlop, mgl32.Vec3{}, 1e-4)
	}
}

// sleepingBox adds a box at pos and steps until it sleeps.
func (tw *testWorld) sleepingBox(t *testing.T, pos mgl32.Vec3, ccd bool) engine.Entity {
	t.Helper()
	e := tw.castBox(pos, mgl32.Vec3{}, ccd, 0)
	for range 120 {
		tw.steps(1)
		if tw.s.Asleep(e) {
			return e
		}
	}
	t.Fatal("the box at rest does not fall asleep")
	return e
}

// joltInactive is Jolt's TestLinearCastBoxVsInactiveLinearCastBox
// (ccd2) and TestLinearCastBoxVsInactiveDiscreteBox (!ccd2): a CCD box
// hits a sleeping one, which wakes; momentum is shared, both go on at
// half the speed, touching. Jolt leaves the sleeper where it was in that
// step (its linear cast ends the step at the time of impact); Nebula's
// substeps move both on together after the impact within the step, so
// the pair's position is checked as Jolt's plus at most what they travel
// together in the rest of the step.
func joltInactive(t *testing.T, ccd2 bool) {
	tw := newTestWorld(t, zeroG())
	box2 := tw.sleepingBox(t, joltPos2, ccd2)
	box1 := tw.castBox(joltPos1, joltVelocity, true, 0)
	tw.steps(1)
	if b, e := tw.events(); b != 1 || e != 0 {
		t.Errorf("%d begin and %d end events, want 1 and 0", b, e)
	}
	if tw.s.Asleep(box2) {
		t.Fatal("the box hit does not wake")
	}
	half := joltVelocity.Mul(0.5)
	x2 := tw.pos(box2).X()
	if x2 < joltPos2.X()-1e-6 || x2 > joltPos2.X()+half.X()/joltFrequency {
		t.Errorf("box2 at x = %v, want from %v (Jolt) to %v", x2, joltPos2.X(), joltPos2.X()+half.X()/joltFrequency)
	}
	p2 := tw.pos(box2)
	tw.check(t, "box1", box1, p2.Sub(mgl32.Vec3{2 * joltBoxExtent, 0, 0}), joltSlop, half, 1e-4)
	tw.check(t, "box2", box2, p2, 0, half, 1e-4)
	tw.steps(1)
	if b, e := tw.events(); b+e != 0 {
		t.Errorf("step 2: %d begin and %d end events, want none (the contact goes on)", b, e)
	}
	p2 = p2.Add(half.Mul(1.0 / joltFrequency))
	tw.check(t, "box1", box1, p2.Sub(mgl32.Vec3{2 * joltBoxExtent, 0, 0}), joltSlop, half, 1e-4)
	tw.check(t, "box2", box2, p2, 1e-4, half, 1e-4)
}

// Jolt: TestLinearCastBoxVsInactiveLinearCastBox.
func TestJoltLinearCastBoxVsInactiveLinearCastBox(t *testing.T) { joltInactive(t, true) }

// Jolt: TestLinearCastBoxVsInactiveDiscreteBox.
func TestJoltLinearCastBoxVsInactiveDiscreteBox(t *testing.T) { joltInactive(t, false) }

// Jolt: TestLinearCastBoxVsInactiveDiscreteBoxAngled. A CCD box moving
// at 60·2·(−1, 0, 2) m/s hits the centre of the face of a sleeping box,
// both with restitution 1 and friction 0: the sleeper takes the whole x
// velocity, the CCD box keeps its z velocity. Positions as in
// joltInactive: Nebula moves both on after the impact within the step.
func TestJoltLinearCastBoxVsInactiveDiscreteBoxAngled(t *testing.T) {
	offset := mgl32.Vec3{1, 0, -2}
	vel := offset.Mul(-2 * joltFrequency)
	tw := newTestWorld(t, zeroG())
	d := NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{joltBoxExtent, joltBoxExtent, joltBoxExtent}})
	d.Restitution, d.Friction = 1, 0
	box2 := tw.add(d, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	for range 120 {
		if tw.s.Asleep(box2) {
			break
		}
		tw.steps(1)
	}
	if !tw.s.Asleep(box2) {
		t.Fatal("the box at rest does not fall asleep")
	}
	d.CCD = true
	box1 := tw.add(d, mgl32.Vec3{2 * joltBoxExtent, 0, 0}.Add(offset), mgl32.QuatIdent(), vel, mgl32.Vec3{})
	tw.steps(1)
	if b, e := tw.events(); b != 1 || e != 0 {
		t.Errorf("%d begin and %d end events, want 1 and 0", b, e)
	}
	if tw.s.Asleep(box2) {
		t.Fatal("the box hit does not wake")
	}
	v1, v2 := mgl32.Vec3{0, 0, vel.Z()}, mgl32.Vec3{vel.X(), 0, 0}
	if v := tw.vel(box1); v.Sub(v1).Len() > 1e-4 {
		t.Errorf("box1: velocity %v, want %v", v, v1)
	}
	if v := tw.vel(box2); v.Sub(v2).Len() > 1e-4 {
		t.Errorf("box2: velocity %v, want %v", v, v2)
	}
	for _, e := range []engine.Entity{box1, box2} {
		if w := tw.w.Bodies().AngVel[e.Index()]; w.Len() > 2e-4 {
			t.Errorf("%v: angular velocity %v, want 0 within 2e-4", e, w)
		}
	}
	// Jolt: box1 at (1, 0, 0) within 2.3 slop, box2 at 0.
	if p := tw.pos(box1); abs(p.X()-tw.pos(box2).X()-2*joltBoxExtent) > 2.3*joltSlop {
		t.Errorf("box1 at %v, box2 at %v: not face to face", p, tw.pos(box2))
	}
}

// Jolt: TestLinearCastBoxVsFastDiscreteBox. A CCD box and a box without
// CCD, each fast enough to pass the other in a step. Jolt lets them
// tunnel (its comment: "all discrete bodies are moved before linear cast
// bodies are tested") and says so as its expected result; Nebula's CCD
// body collides with everything on its path, dynamic bodies included, so
// here they meet as the two CCD boxes of the inelastic test do. The
// expected values are therefore that test's, not this one's.
func TestJoltLinearCastBoxVsFastDiscreteBox(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	box1 := tw.castBox(joltPos1, joltVelocity, true, 0)
	box2 := tw.castBox(joltPos2, joltVelocity.Mul(-1), false, 0)
	tw.steps(1)
	if b, e := tw.events(); b != 1 || e != 0 {
		t.Errorf("%d begin and %d end events, want 1 and 0", b, e)
	}
	tw.check(t, "box1", box1, mgl32.Vec3{-joltBoxExtent, 0, 0}, joltSlop, mgl32.Vec3{}, 1e-4)
	tw.check(t, "box2", box2, mgl32.Vec3{joltBoxExtent, 0, 0}, joltSlop, mgl32.Vec3{}, 1e-4)
}

// Jolt: TestLinearCastBoxVsSlowDiscreteBox. A CCD box at 120 m/s hits a
// box without CCD moving at −6 m/s: they go on together at the mean
// velocity, 57 m/s, touching. Jolt moves the slow box its whole discrete
// step first (to x = 0.9) and stops the fast one against it; Nebula moves
// both on together after the impact within the step, so box2's position
// is checked as Jolt's plus at most that.
func TestJoltLinearCastBoxVsSlowDiscreteBox(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	v2 := mgl32.Vec3{-0.1 * joltFrequency, 0, 0}
	box1 := tw.castBox(joltPos1, joltVelocity, true, 0)
	box2 := tw.castBox(joltPos2, v2, false, 0)
	tw.steps(1)
	if b, e := tw.events(); b != 1 || e != 0 {
		t.Errorf("%d begin and %d end events, want 1 and 0", b, e)
	}
	newPos2 := joltPos2.Add(v2.Mul(1.0 / joltFrequency))
	mean := joltVelocity.Add(v2).Mul(0.5)
	x2 := tw.pos(box2).X()
	if x2 < newPos2.X()-1e-6 || x2 > newPos2.X()+mean.X()/joltFrequency {
		t.Errorf("box2 at x = %v, want from %v (Jolt) to %v", x2, newPos2.X(), newPos2.X()+mean.X()/joltFrequency)
	}
	p2 := tw.pos(box2)
	tw.check(t, "box1", box1, p2.Sub(mgl32.Vec3{2 * joltBoxExtent, 0, 0}), joltSlop, mean, 1e-4)
	tw.check(t, "box2", box2, p2, 0, mean, 1e-4)
}
