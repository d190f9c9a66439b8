//go:build peerpending

package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// Ports of jrouwe/JoltPhysics UnitTests/Physics/PhysicsTests.cpp that
// Nebula fails today (issue 34): kept out of the suite, with the peer's
// values and tolerances unchanged, until the behaviour is fixed. Run them
// with
//
//	go test -tags peerpending -run TestJolt ./engine/physics/
//
// Each says what Nebula gives and why in its comment.

// joltBox makes a box as PhysicsTestContext::CreateBox does.
func (tw *testWorld) joltBox(k Kind, pos mgl32.Vec3, rot mgl32.Quat, half mgl32.Vec3) engine.Entity {
	return tw.add(joltDef(k, Shape{Kind: Box, HalfExtents: half}), pos, rot, mgl32.Vec3{}, mgl32.Vec3{})
}

// joltRotation returns the rotation by angle radians about the unit axis,
// in float64 (Jolt's Quat::sRotation).
func joltRotation(axis mgl32.Vec3, angle float64) mgl32.Quat {
	s, c := math.Sincos(angle / 2)
	return mgl32.Quat{W: float32(c), V: axis.Mul(float32(s))}
}

// quatNear is Jolt's CHECK_APPROX_EQUAL for quaternions: q or -q within
// tol (the length of the difference).
func quatNear(a, b mgl32.Quat, tol float32) bool {
	d := func(b mgl32.Quat) float32 {
		x := a.V.Sub(b.V)
		w := a.W - b.W
		return x.LenSqr() + w*w
	}
	return d(b) <= tol*tol || d(b.Scale(-1)) <= tol*tol
}

// TestJoltPhysicsCollisionElastic ports TestPhysicsCollisionElastic: a
// unit sphere with restitution 1 falls 1 s to 1e-4 into the floor, then
// in one step bounces with its velocity reversed after the first
// substep, and 1 s later is back where it started; gravity by Config and
// (Jolt's GravityThroughAddForce) by ApplyForce.
//
// Nebula today: the bounce lags a step (n=1: 0.9977 m after it, want
// 1.1634; 1 s later 5.8209, want the start 5.9867): restitution acts in
// the relax pass, after the step's move, not before it as Jolt's; for n
// > 1 the velocity after the step is 9.81, want 9.81 - (n-1)·g/60.
func TestJoltPhysicsCollisionElastic(t *testing.T) {
	g := mgl32.Vec3{0, -9.81, 0}
	for _, byForce := range []bool{false, true} {
		for _, n := range joltContexts {
			cfg := joltConfig(n)
			if byForce {
				cfg.Gravity = mgl32.Vec3{}
			}
			tw := newTestWorld(t, cfg)
			start, hit := joltDropStart()
			tw.joltFloor()
			d := joltDef(Dynamic, Shape{Kind: Sphere, Radius: 1})
			d.Restitution = 1
			body := tw.add(d, start, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
			b, _ := tw.s.Body(body)
			step := func(k int) {
				for range k {
					if byForce {
						if err := tw.s.ApplyForce(body, g.Mul(b.Mass)); err != nil {
							t.Fatal(err)
						}
					}
					tw.steps(1)
				}
			}
			step(60 / n)
			if !near3(tw.pos(body), hit, 1e-12) || !near3(tw.vel(body), g, 1e-8) {
				t.Errorf("force %v n=%d: at the floor at %v moving %v, want %v and %v", byForce, n, tw.pos(body), tw.vel(body), hit, g)
				continue
			}
			step(1)
			h, rest := float32(1.0/60), float32(n-1)/60
			upSub := g.Mul(-1)
			upFull := upSub.Add(g.Mul(rest))
			if !near3(tw.vel(body), upFull, 1e-8) {
				t.Errorf("force %v n=%d: after the bounce moving %v, want %v", byForce, n, tw.vel(body), upFull)
			}
			afterSub := hit.Add(upSub.Mul(h))
			afterFull := predictPosition(afterSub, upSub, g, rest)
			if !near3(tw.pos(body), afterFull, 1e-12) {
				t.Errorf("force %v n=%d: after the bounce at %v, want %v", byForce, n, tw.pos(body), afterFull)
			}
			want := predictPosition(afterFull, upFull, g, 1-float32(n)/60)
			step(60/n - 1)
			if !near3(tw.pos(body), want, 1e-10) || !near3(want, start, 1e-10) {
				t.Errorf("force %v n=%d: 1 s later at %v, want %v (the start, %v)", byForce, n, tw.pos(body), want, start)
			}
			pre := tw.pos(body)
			if tw.vel(body)[1] <= 0 {
				t.Errorf("force %v n=%d: not rising at the top: %v", byForce, n, tw.vel(body))
			}
			step(1)
			if tw.vel(body)[1] >= 1e-6 || tw.pos(body)[1] >= pre[1]+1e-6 {
				t.Errorf("force %v n=%d: not falling again: at %v moving %v", byForce, n, tw.pos(body), tw.vel(body))
			}
		}
	}
}

// TestJoltPhysicsCollisionPartiallyElastic ports
// TestPhysicsCollisionPartiallyElastic: a sphere of radius 2 with
// restitution 0.9 dropped from 10 m follows, for 1000 steps, a simple
// simulation that reverses and scales its velocity when it reaches the
// floor (within the penetration slop), within 1e-5.
//
// Nebula today: diverges at the first bounce, step 78 (y 1.8385, want
// 2.0057), for the reason TestJoltPhysicsCollisionElastic gives.
func TestJoltPhysicsCollisionPartiallyElastic(t *testing.T) {
	tw := newTestWorld(t, joltConfig(1))
	tw.joltFloor()
	const e, r = 0.9, 2
	d := joltDef(Dynamic, Shape{Kind: Sphere, Radius: r})
	d.Restitution = e
	p := mgl32.Vec3{0, 10, 0}
	body := tw.add(d, p, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	var v mgl32.Vec3
	g, dt := mgl32.Vec3{0, -9.81, 0}, float32(1.0/60)
	for i := range 1000 {
		if r-p[1] > -joltPenetrationSlop && v[1] < 0 {
			v = v.Mul(-e)
		} else {
			v = v.Add(g.Mul(dt))
		}
		p = p.Add(v.Mul(dt))
		tw.steps(1)
		if !near3(tw.pos(body), p, 1e-10) || !near3(tw.vel(body), v, 1e-10) {
			t.Fatalf("step %d: at %v moving %v, want %v and %v", i+1, tw.pos(body), tw.vel(body), p, v)
		}
	}
}

// TestJoltPhysicsCollisionInelastic ports TestPhysicsCollisionInelastic:
// a unit sphere with restitution 0 that reaches the floor (1e-4 into it)
// after 1 s of free fall stops there in one step and stays, within 1e-4.
//
// Nebula today: the hit sinks the sphere to 0.99766 (want 0.9999 within
// 1e-4) and it rests at 0.99972 (the soft contact's depth under gravity,
// g/(2π·30 Hz)² = 0.28 mm; Jolt leaves the 0.1 mm overlap alone, under
// its slop).
func TestJoltPhysicsCollisionInelastic(t *testing.T) {
	for _, n := range joltContexts {
		tw := newTestWorld(t, joltConfig(n))
		start, hit := joltDropStart()
		tw.joltFloor()
		body := tw.joltSphere(start, 1)
		tw.steps(60 / n)
		if !near3(tw.pos(body), hit, 1e-12) || !near3(tw.vel(body), mgl32.Vec3{0, -9.81, 0}, 1e-8) {
			t.Errorf("n=%d: at the floor at %v moving %v", n, tw.pos(body), tw.vel(body))
		}
		tw.steps(1)
		if !near3(tw.vel(body), mgl32.Vec3{}, 1e-8) || !near3(tw.pos(body), hit, 1e-8) {
			t.Errorf("n=%d: after the hit at %v moving %v, want %v and 0", n, tw.pos(body), tw.vel(body), hit)
		}
		tw.steps(60 / n)
		if !near3(tw.vel(body), mgl32.Vec3{}, 1e-8) || !near3(tw.pos(body), hit, 1e-8) {
			t.Errorf("n=%d: 1 s later at %v moving %v, want %v and 0", n, tw.pos(body), tw.vel(body), hit)
		}
	}
}

// joltSlopCase is TestPhysicsPenetrationSlop1, 2 and 3: a unit
// box placed depth into the floor rests at want after 1 s (1e-5), still.
//
// Nebula today: no penetration slop: each box ends at the soft contact's
// resting depth, y = 0.99972 (want 0.98, 0.98 and 0.998), still moving
// at up to 6e-5 m/s (want 1e-6).
func joltSlopCase(t *testing.T, depth, want float32) {
	for _, n := range joltContexts {
		tw := newTestWorld(t, joltConfig(n))
		tw.joltFloor()
		body := tw.joltBox(Dynamic, mgl32.Vec3{0, 1 - depth, 0}, mgl32.QuatIdent(), mgl32.Vec3{1, 1, 1})
		tw.steps(60 / n)
		w := tw.w.Bodies().AngVel[body.Index()]
		if !near3(tw.pos(body), mgl32.Vec3{0, 1 - want, 0}, 1e-10) || !near3(tw.vel(body), mgl32.Vec3{}, 1e-12) || w.LenSqr() > 1e-12 {
			t.Errorf("n=%d: placed %v deep: at %v moving %v turning %v, want y = %v at rest", n, depth, tw.pos(body), tw.vel(body), w, 1-want)
		}
	}
}

// TestJoltPhysicsPenetrationSlop1 ports TestPhysicsPenetrationSlop1: a
// box as deep as the slop stays there.
func TestJoltPhysicsPenetrationSlop1(t *testing.T) {
	joltSlopCase(t, joltPenetrationSlop, joltPenetrationSlop)
}

// TestJoltPhysicsPenetrationSlop2 ports TestPhysicsPenetrationSlop2: a
// box twice as deep is pushed out to the slop.
func TestJoltPhysicsPenetrationSlop2(t *testing.T) {
	joltSlopCase(t, 2*joltPenetrationSlop, joltPenetrationSlop)
}

// TestJoltPhysicsPenetrationSlop3 ports TestPhysicsPenetrationSlop3: a
// box a tenth of the slop deep does not move.
func TestJoltPhysicsPenetrationSlop3(t *testing.T) {
	joltSlopCase(t, 0.1*joltPenetrationSlop, 0.1*joltPenetrationSlop)
}

// TestJoltPhysicsInsideSpeculativeContactDistanceNoRestitution ports
// TestPhysicsInsideSpeculativeContactDistanceNoRestitution: 0.9
// speculative distances above the floor and moving 1 m a step down, a
// box and a sphere get their contacts in the first step and end it on
// the floor, moving at the speed that just closed the gap (the box
// within 1e-3 and 0.05, the sphere 1e-6 and 1e-4); in the next the
// contacts persist and both rest.
//
// Nebula today: no Begin in the first step (Nebula reports contacts
// within Config.TouchDistance, 5 mm; Jolt reports speculative ones); the
// box lands tilted, at (0.053, 0.965, 0.039) moving (3.17, -0.62, 2.34)
// and turning 1.7 rad/s (a speculative box-box contact gets an edge
// point instead of a face: issue 34's box-contacts item); the sphere
// ends the step still (want -1.08 m/s, the speed that closes the gap).
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

// TestJoltPhysicsInsideSpeculativeContactDistanceWithRestitution ports
// TestPhysicsInsideSpeculativeContactDistanceWithRestitution: as above
// with restitution 1, both bounce in the first step, ending where a
// bounce off the floor puts them (the box within 0.01 and 0.1, the
// sphere 1e-5 and 2e-4) with the velocity reversed; the next step ends
// both contacts.
//
// Nebula today: no Begin in the first step (TouchDistance); the sphere
// bounces at the floor, y = 1.0 (want 2.018: Jolt's bounce takes the
// step's travel), the box as in NoRestitution; the next step begins the
// contacts instead of ending them.
func TestJoltPhysicsInsideSpeculativeContactDistanceWithRestitution(t *testing.T) {
	above := float32(0.9 * joltSpeculativeDistance)
	tw, floor, box, sphere := joltSpeculativeScene(t, above, -60, 1)
	p0, p1 := tw.pos(box), tw.pos(sphere)
	evs := tw.stepEvents(1)
	if len(evs) != 2 || !hasEvent(evs, Begin, box, floor) || !hasEvent(evs, Begin, sphere, floor) {
		t.Errorf("first step: events %+v, want a Begin for each", evs)
	}
	up := mgl32.Vec3{0, 1, 0}
	ab, as := tw.w.Bodies().AngVel[box.Index()], tw.w.Bodies().AngVel[sphere.Index()]
	if !near3(tw.pos(box), p0.Add(up), 1e-4) || !near3(tw.vel(box), up.Mul(60), 0.01) || ab.LenSqr() > 4e-4 {
		t.Errorf("first step: box at %v moving %v turning %v, want %v and %v", tw.pos(box), tw.vel(box), ab, p0.Add(up), up.Mul(60))
	}
	if !near3(tw.pos(sphere), p1.Add(up), 1e-10) || !near3(tw.vel(sphere), up.Mul(60), 4e-8) || as.LenSqr() > 4e-8 {
		t.Errorf("first step: sphere at %v moving %v turning %v, want %v and %v", tw.pos(sphere), tw.vel(sphere), as, p1.Add(up), up.Mul(60))
	}
	evs = tw.stepEvents(1)
	if len(evs) != 2 || !hasEvent(evs, End, box, floor) || !hasEvent(evs, End, sphere, floor) {
		t.Errorf("second step: events %+v, want an End for each", evs)
	}
}

// TestJoltPhysicsInsideSpeculativeContactDistanceNoHit ports
// TestPhysicsInsideSpeculativeContactDistanceNoHit: a sphere 0.9
// speculative distances above a floor (restitution 1, no restitution
// threshold) moving too slowly to reach it in a step keeps its velocity
// exactly in that step (the speculative contact does nothing) and bounces
// back with it reversed in the next.
//
// Nebula today: the sphere bounces in the first step (+0.972 m/s, want
// -0.972 unchanged): with one substep the relax pass solves the contact
// at the separation left after the move (1.8 mm), which takes an
// impulse, so restitution fires on a contact that the step's motion
// never closed; no Begin in the first step (TouchDistance).
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

// joltFrictionHook sets the friction of every contact to Jolt's default
// combination of the bodies' frictions, the geometric mean.
func joltFrictionHook(tw *testWorld) {
	tw.s.SetContactHook(func(c *ContactSettings) {
		a, _ := tw.s.Body(c.A)
		b, _ := tw.s.Body(c.B)
		c.Friction = float32(math.Sqrt(float64(a.Friction) * float64(b.Friction)))
	})
}

// TestJoltFriction ports TestFriction: a unit box sliding at 20 m/s in
// twelve directions over a floor (frictions 0.8 and 0.9, combined by
// their geometric mean) slows at μg, as a simple simulation says, for
// 1 s: position within 0.01, rotation 0.01, velocity 0.02, angular
// velocity 0.01.
//
// Nebula today: slows by 0.057 m/s more than μg·t over 1 s (11.619 m/s,
// want 11.676 within 0.02; 15.723 m, want 15.769 within 0.01): pushing
// the 1 mm overlap out through the velocity adds friction (0.029 without
// the overlap at one substep, 0.001 at four).
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

// TestJoltAngularFriction ports TestAngularFriction: a unit box spinning
// at 10 rad/s about Y on a floor (frictions 0.2 and 0.3, their geometric
// mean) slows as friction at its four corners, √2 m from its centre,
// says, for 1 s: rotation within 2e-3, angular velocity 5e-3, and it
// stays in place (1e-4, 4e-4 m/s).
//
// Nebula today: 4.8807 rad/s after 1 s (want 4.9026 within 5e-3) and the
// rotation 0.015 off (2e-3): the same extra friction as
// TestJoltFriction.
func TestJoltAngularFriction(t *testing.T) {
	const fFloor, fBox = 0.2, 0.3
	mu := float32(math.Sqrt(fFloor * fBox))
	tw := newTestWorld(t, joltConfig(1))
	fd := joltDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{100, 1, 100}})
	fd.Friction = fFloor
	tw.add(fd, mgl32.Vec3{0, -1, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	joltFrictionHook(tw)
	p0 := mgl32.Vec3{10, 0.999, 10}
	bd := joltDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{1, 1, 1}})
	bd.Friction = fBox
	box := tw.add(bd, p0, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{0, 10, 0})
	b, _ := tw.s.Body(box)
	torque := mu * float32(math.Sqrt2) * 9.81 * b.Mass
	alpha := b.InvInertia[1] * torque
	w, q := float32(10), mgl32.QuatIdent()
	for range 60 {
		tw.steps(1)
		w -= alpha / 60
		q = joltRotation(mgl32.Vec3{0, 1, 0}, float64(w)/60).Mul(q).Normalize()
	}
	if w < 0 || w >= 5 {
		t.Fatalf("the expected angular velocity %v is not in [0, 5)", w)
	}
	got := tw.w.Bodies().AngVel[box.Index()]
	if !near3(tw.pos(box), p0, 1e-8) || !quatNear(tw.w.Bodies().Rot[box.Index()], q, 2e-3) ||
		!near3(tw.vel(box), mgl32.Vec3{}, 16e-8) || !near3(got, mgl32.Vec3{0, w, 0}, 25e-6) {
		t.Errorf("at %v moving %v turning %v (rotation %v), want %v, 0, (0, %v, 0) and %v", tw.pos(box), tw.vel(box), got, tw.w.Bodies().Rot[box.Index()], p0, w, q)
	}
}

// TestJoltAllowedDOFs ports TestAllowedDOFs: for each of the 63 sets of
// allowed degrees of freedom (Nebula's Locks are the others), a box
// pushed by a force and a torque for one step moves and turns only along
// and about the allowed world axes, as the inverse inertia with the
// locked rows and columns cleared says (within 1e-6).
//
// Nebula today: velocities and positions match to 1e-6, but the rotation
// is up to 3e-6 off the exact axis-angle step Jolt takes (want 1e-6):
// Nebula's quat.integrate is first order (q + ½ωq·h, normalised).
func TestJoltAllowedDOFs(t *testing.T) {
	rot := joltRotation(mgl32.Vec3{1, 1, 1}.Normalize(), 20*math.Pi/180)
	half := mgl32.Vec3{0.3, 0.5, 0.7}
	force, torque := mgl32.Vec3{100000, 110000, 120000}, mgl32.Vec3{13000, 14000, 15000}
	for allowed := Locks(1); allowed <= allLocks; allowed++ {
		cfg := joltConfig(1)
		cfg.Gravity = mgl32.Vec3{}
		tw := newTestWorld(t, cfg)
		d := joltDef(Dynamic, Shape{Kind: Box, HalfExtents: half})
		d.Locks = allLocks &^ allowed
		p0 := mgl32.Vec3{1, 2, 3}
		box := tw.add(d, p0, rot, mgl32.Vec3{}, mgl32.Vec3{})
		if err := tw.s.ApplyForce(box, force); err != nil {
			t.Fatal(err)
		}
		if err := tw.s.ApplyTorque(box, torque); err != nil {
			t.Fatal(err)
		}
		tw.steps(1)
		var lin, ang mgl32.Vec3
		for k := range 3 {
			if allowed&(LockLinearX<<k) != 0 {
				lin[k] = 1
			}
			if allowed&(LockAngularX<<k) != 0 {
				ang[k] = 1
			}
		}
		b, _ := tw.s.Body(box)
		wantV := mgl32.Vec3{lin[0] * force[0], lin[1] * force[1], lin[2] * force[2]}.Mul(b.InvMass / 60)
		// The world inverse inertia R I⁻¹ Rᵀ, its locked rows and columns
		// cleared, in float64.
		r := rot.Mat4()
		var inv [3][3]float64
		for i := range 3 {
			for j := range 3 {
				for k := range 3 {
					inv[i][j] += float64(r.At(i, k)) * float64(b.InvInertia[k]) * float64(r.At(j, k))
				}
				inv[i][j] *= float64(ang[i] * ang[j])
			}
		}
		var wantW mgl32.Vec3
		for i := range 3 {
			var s float64
			for j := range 3 {
				s += inv[i][j] * float64(torque[j])
			}
			wantW[i] = float32(s / 60)
		}
		wantQ := rot
		if l := wantW.Len(); l > 0 {
			wantQ = joltRotation(wantW.Mul(1/l), float64(l)/60).Mul(rot)
		}
		if !near3(tw.vel(box), wantV, 1e-12) || !near3(tw.pos(box), p0.Add(wantV.Mul(1.0/60)), 1e-12) {
			t.Errorf("allowed %06b: at %v moving %v, want %v and %v", allowed, tw.pos(box), tw.vel(box), p0.Add(wantV.Mul(1.0/60)), wantV)
		}
		got := tw.w.Bodies().AngVel[box.Index()]
		if !near3(got, wantW, 1e-12) || !quatNear(tw.w.Bodies().Rot[box.Index()], wantQ, 1e-6) {
			t.Errorf("allowed %06b: turning %v (rotation %v), want %v and %v", allowed, got, tw.w.Bodies().Rot[box.Index()], wantW, wantQ)
		}
	}
}
