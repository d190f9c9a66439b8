//go:build peerpending

package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// Ports of jrouwe/JoltPhysics UnitTests/Physics/PhysicsTests.cpp that
// Nebula fails today (issue 34): kept out of the suite, with the peer's
// values and tolerances unchanged, until the behaviour is fixed. Run them
// with
//
//	go test -tags peerpending -run TestJolt ./engine/physics/
//
// Each says what Nebula gives and why in its comment.

// TestJoltPhysicsInsideSpeculativeContactDistanceNoRestitution ports
// TestPhysicsInsideSpeculativeContactDistanceNoRestitution: 0.9
// speculative distances above the floor and moving 1 m a step down, a
// box and a sphere get their contacts in the first step and end it on
// the floor, moving at the speed that just closed the gap (the box
// within 1e-3 and 0.05, the sphere 1e-6 and 1e-4); in the next the
// contacts persist and both rest.
//
// Nebula today: the box and the sphere land at y = 0.9999998 but end the
// step at rest (want -1.08 m/s, the speed that closed the gap): the relax
// pass after the move solves the now touching contact to no approach;
// and no Begin in the first step for the box (Nebula reports contacts
// within Config.TouchDistance, 5 mm, or that took an impulse; Jolt
// reports speculative ones).
func TestJoltPhysicsInsideSpeculativeContactDistanceNoRestitution(t *testing.T) {
	above := float32(0.9 * joltSpeculativeDistance)
	tw, floor, box, sphere := joltSpeculativeScene(t, above, -60, 0)
	evs := tw.stepEvents(1)
	if len(evs) != 2 || !hasEvent(evs, Begin, box, floor) || !hasEvent(evs, Begin, sphere, floor) {
		t.Errorf("first step: events %+v, want a Begin for each", evs)
	}
	closing := mgl32.Vec3{0, -above * 60, 0}
	ab, as := tw.w.Bodies().AngVel[box.Index()], tw.w.Bodies().AngVel[sphere.Index()]
	if !near3(tw.pos(box), mgl32.Vec3{0, 1, 0}, 1e-6) || !near3(tw.vel(box), closing, 0.05*0.05) || ab.LenSqr() > 1e-4 {
		t.Errorf("first step: box at %v moving %v turning %v, want (0, 1, 0) and %v", tw.pos(box), tw.vel(box), ab, closing)
	}
	if !near3(tw.pos(sphere), mgl32.Vec3{5, 1, 0}, 1e-12) || !near3(tw.vel(sphere), closing, 1e-8) || as.LenSqr() > 1e-8 {
		t.Errorf("first step: sphere at %v moving %v turning %v, want (5, 1, 0) and %v", tw.pos(sphere), tw.vel(sphere), as, closing)
	}
	if evs := tw.stepEvents(1); len(evs) != 0 || len(tw.s.ContactsOf(floor, nil)) != 2 {
		t.Errorf("second step: events %+v, floor contacts %d; want none and 2", evs, len(tw.s.ContactsOf(floor, nil)))
	}
	ab, as = tw.w.Bodies().AngVel[box.Index()], tw.w.Bodies().AngVel[sphere.Index()]
	if !near3(tw.pos(box), mgl32.Vec3{0, 1, 0}, 1e-6) || !near3(tw.vel(box), mgl32.Vec3{}, 0.05*0.05) || ab.LenSqr() > 1e-4 {
		t.Errorf("second step: box at %v moving %v turning %v, want (0, 1, 0) at rest", tw.pos(box), tw.vel(box), ab)
	}
	if !near3(tw.pos(sphere), mgl32.Vec3{5, 1, 0}, 1e-8) || !near3(tw.vel(sphere), mgl32.Vec3{}, 1e-8) || as.LenSqr() > 1e-8 {
		t.Errorf("second step: sphere at %v moving %v turning %v, want (5, 1, 0) at rest", tw.pos(sphere), tw.vel(sphere), as)
	}
}

// TestJoltPhysicsInsideSpeculativeContactDistanceNoHit ports
// TestPhysicsInsideSpeculativeContactDistanceNoHit: a sphere 0.9
// speculative distances above a floor (restitution 1, no restitution
// threshold) moving too slowly to reach it in a step keeps its velocity
// exactly in that step (the speculative contact does nothing) and bounces
// back with it reversed in the next.
//
// Nebula today: restitution no longer fires (issue 34: a contact whose
// gap the step's motion does not close does not bounce), but the first
// step ends at -0.108 m/s (want -0.972 unchanged): with one substep the
// relax pass after the move solves the contact at the 1.8 mm gap left,
// to close it in one substep; skipping separated points in the relax
// pass fixes it but breaks Nebula's face-on hits (TestFaceOnHitShares,
// TestSlideIntoSleeper) and TestSlopeFrictionPeers. No Begin in the first
// step (TouchDistance).
func TestJoltPhysicsInsideSpeculativeContactDistanceNoHit(t *testing.T) {
	cfg := joltConfig(1)
	cfg.Gravity, cfg.RestitutionThreshold = mgl32.Vec3{}, 0
	tw := newTestWorld(t, cfg)
	fd := joltDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{100, 1, 100}})
	fd.Restitution = 1
	floor := tw.add(fd, mgl32.Vec3{0, -1, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	above := float32(0.9 * joltSpeculativeDistance)
	v := mgl32.Vec3{0, -0.9 * above * 60, 0}
	sd := joltDef(Dynamic, Shape{Kind: Sphere, Radius: 1})
	sd.Restitution = 1
	sphere := tw.add(sd, mgl32.Vec3{0, 1 + above, 0}, mgl32.QuatIdent(), v, mgl32.Vec3{})
	evs := tw.stepEvents(1)
	if len(evs) != 1 || !hasEvent(evs, Begin, sphere, floor) {
		t.Errorf("first step: events %+v, want a Begin", evs)
	}
	if tw.vel(sphere) != v {
		t.Errorf("first step: moving %v, want exactly %v", tw.vel(sphere), v)
	}
	evs = tw.stepEvents(1)
	if len(evs) != 0 || len(tw.s.ContactsOf(sphere, nil)) != 1 {
		t.Errorf("second step: events %+v, want none (the contact persists)", evs)
	}
	if !near3(tw.vel(sphere).Mul(-1), v, 1e-12) {
		t.Errorf("second step: moving %v, want %v", tw.vel(sphere), v.Mul(-1))
	}
}

// TestJoltFriction ports TestFriction: a unit box sliding at 20 m/s in
// twelve directions over a floor (frictions 0.8 and 0.9, combined by
// their geometric mean) slows at μg, as a simple simulation says, for
// 1 s: position within 0.01, rotation 0.01, velocity 0.02, angular
// velocity 0.01.
//
// Nebula today (Config.PenetrationSlop 0.02, so the 1 mm overlap is no
// longer pushed out): slides 0.024 m/s too fast over 1 s (11.6995 m/s at
// 0°, want 11.6759 within 0.02; 15.7917 m, want 15.7686 within 0.01), and
// the box sinks to y = 0.99776 tilted 1e-3 rad: friction at the patch's
// centre turns it forward in each substep, its front edge sinks before
// the relax pass stops it, and inside the slop nothing lifts it back.
// Solving friction before the normal (as Jolt does) makes it worse here
// (11.8147 m/s) and breaks TestSlopeFrictionPeers. Before issue 34:
// 11.619 m/s (pushing the overlap out added friction).
func TestJoltFriction(t *testing.T) {
	const fFloor, fBox = 0.9, 0.8
	mu := float32(math.Sqrt(fFloor * fBox))
	for deg := 0; deg < 360; deg += 30 {
		tw := newTestWorld(t, joltConfig(1))
		fd := joltDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{100, 1, 100}})
		fd.Friction = fFloor
		tw.add(fd, mgl32.Vec3{0, -1, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		joltFrictionHook(tw)
		s, c := math.Sincos(float64(deg) * math.Pi / 180)
		v := mgl32.Vec3{float32(s), 0, float32(c)}.Mul(20)
		p := mgl32.Vec3{0, 0.999, 0}
		bd := joltDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{1, 1, 1}})
		bd.Friction = fBox
		box := tw.add(bd, p, mgl32.QuatIdent(), v, mgl32.Vec3{})
		for range 60 {
			tw.steps(1)
			v = v.Sub(v.Normalize().Mul(mu * 9.81 / 60))
			p = p.Add(v.Mul(1.0 / 60))
		}
		w := tw.w.Bodies().AngVel[box.Index()]
		if !near3(tw.pos(box), p, 1e-4) || !quatNear(tw.w.Bodies().Rot[box.Index()], mgl32.QuatIdent(), 0.01) ||
			!near3(tw.vel(box), v, 4e-4) || w.LenSqr() > 1e-4 {
			t.Errorf("%d°: at %v moving %v turning %v (rotation %v), want %v and %v", deg, tw.pos(box), tw.vel(box), w, tw.w.Bodies().Rot[box.Index()], p, v)
		}
	}
}
