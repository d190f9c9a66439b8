package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// Ports of jrouwe/JoltPhysics UnitTests/Physics/ContactListenerTests.cpp.
// Jolt's listener gets Add, Persist and Remove callbacks; Nebula has Begin
// and End events (Space.Events) and the current contacts
// (Space.ContactsOf), so a Persist is a step without events in which
// ContactsOf still lists the pair. Jolt's ids order the pair (lowest
// first); Nebula's slots do the same, so the floor, made first, is A.

// joltPenetrationSlop is Jolt's PhysicsSettings::mPenetrationSlop.
const joltPenetrationSlop = 0.02

// joltDef is a body as Jolt's PhysicsTestContext::CreateBody makes it:
// Jolt's default density (1000), friction (0.2) and restitution (0), no
// damping, and Jolt's default restitution combine, the greater of the
// two (Jolt's friction combine, the geometric mean, equals the average
// when the two frictions are equal; tests that mix frictions set it with
// the contact hook).
func joltDef(k Kind, s Shape) BodyDef {
	d := NewBodyDef(k, s)
	d.Density, d.Friction, d.RestitutionCombine = 1000, 0.2, CombineMax
	return d
}

// joltFloor is PhysicsTestContext::CreateFloor: a static box 200 × 2 ×
// 200 m whose top is at y = 0.
func (tw *testWorld) joltFloor() engine.Entity {
	return tw.add(joltDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{100, 1, 100}}),
		mgl32.Vec3{0, -1, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
}

// joltSphere is PhysicsTestContext::CreateSphere for a dynamic sphere.
func (tw *testWorld) joltSphere(pos mgl32.Vec3, r float32) engine.Entity {
	return tw.add(joltDef(Dynamic, Shape{Kind: Sphere, Radius: r}), pos, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
}

// stepEvents steps n times and returns every event of those steps.
func (tw *testWorld) stepEvents(n int) []ContactEvent {
	var evs []ContactEvent
	for range n {
		tw.s.Step()
		evs = append(evs, tw.s.Events()...)
	}
	return evs
}

// checkFloorContact checks that the floor's contacts are one with body,
// its normal +Y (Jolt's "normal should move body 2 out of collision") and
// its point within the penetration slop of the origin, as the tests
// check their manifolds.
func checkFloorContact(t *testing.T, tw *testWorld, floor, body engine.Entity, what string) {
	t.Helper()
	cs := tw.s.ContactsOf(floor, nil)
	if len(cs) != 1 || cs[0].Other != body {
		t.Fatalf("%s: floor contacts %+v, want one with the body", what, cs)
	}
	c := cs[0]
	if !near3(c.Normal, mgl32.Vec3{0, 1, 0}, 1e-12) {
		t.Errorf("%s: normal %v, want (0, 1, 0)", what, c.Normal)
	}
	if c.Point.LenSqr() > joltPenetrationSlop*joltPenetrationSlop {
		t.Errorf("%s: contact point %v farther than the slop from the origin", what, c.Point)
	}
}

// joltDropStart returns where a unit sphere must start to be at Jolt's
// cFloorHitPos, 1e-4 into the floor, after 1 s of free fall.
func joltDropStart() (start, hit mgl32.Vec3) {
	hit = mgl32.Vec3{0, 1 - 1e-4, 0}
	fall := predictPosition(mgl32.Vec3{}, mgl32.Vec3{}, mgl32.Vec3{0, -9.81, 0}, 1)
	return hit.Sub(fall), hit
}

// TestJoltContactListenerElastic ports TestContactListenerElastic: a
// sphere with restitution 1 falls 1 s onto the floor without an event;
// the next step adds the contact (floor first, normal +Y, at the origin);
// in the second after it only the contact's removal is reported.
func TestJoltContactListenerElastic(t *testing.T) {
	tw := newTestWorld(t, joltConfig(1))
	start, _ := joltDropStart()
	floor := tw.joltFloor()
	d := joltDef(Dynamic, Shape{Kind: Sphere, Radius: 1})
	d.Restitution = 1
	body := tw.add(d, start, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	if evs := tw.stepEvents(60); len(evs) != 0 {
		t.Fatalf("events before the floor: %+v", evs)
	}
	evs := tw.stepEvents(1)
	if len(evs) != 1 || evs[0].Kind != Begin || evs[0].A != floor || evs[0].B != body {
		t.Fatalf("the hit's events %+v, want one Begin (floor, sphere)", evs)
	}
	if ev := evs[0]; !near3(ev.Normal, mgl32.Vec3{0, 1, 0}, 1e-12) || ev.Point.LenSqr() > joltPenetrationSlop*joltPenetrationSlop {
		t.Errorf("Begin at %v normal %v, want the origin (within the slop) and (0, 1, 0)", ev.Point, ev.Normal)
	}
	evs = tw.stepEvents(60)
	if len(evs) != 1 || evs[0].Kind != End || evs[0].A != floor || evs[0].B != body {
		t.Errorf("events of the bounce %+v, want one End (floor, sphere)", evs)
	}
}

// TestJoltContactListenerInelastic ports TestContactListenerInelastic: a
// sphere with restitution 0 lands (one Add), rests 10 steps (10
// Persists: ContactsOf lists the floor, no event), rolls 10 steps along X
// at 1 m/s (10 Persists) and, moved away from the floor, has its contact
// removed (one Remove). Sleeping is off throughout: Jolt's middle part,
// which lets the sphere sleep and expects the contact to be removed while
// it sleeps and added again when woken, is a Jolt design (Nebula keeps a
// sleeping body's contacts, as Box2D and Rapier do) and is not ported.
func TestJoltContactListenerInelastic(t *testing.T) {
	tw := newTestWorld(t, joltConfig(1))
	start, hit := joltDropStart()
	floor := tw.joltFloor()
	body := tw.joltSphere(start, 1)
	if evs := tw.stepEvents(60); len(evs) != 0 {
		t.Fatalf("events before the floor: %+v", evs)
	}
	evs := tw.stepEvents(1)
	if !near3(tw.pos(body), hit, joltPenetrationSlop*joltPenetrationSlop) {
		t.Errorf("after the hit at %v, want %v", tw.pos(body), hit)
	}
	if len(evs) != 1 || evs[0].Kind != Begin || evs[0].A != floor || evs[0].B != body {
		t.Fatalf("the hit's events %+v, want one Begin (floor, sphere)", evs)
	}
	checkFloorContact(t, tw, floor, body, "the hit")
	for i := range 10 {
		if evs := tw.stepEvents(1); len(evs) != 0 {
			t.Fatalf("resting step %d: events %+v, want none", i, evs)
		}
		checkFloorContact(t, tw, floor, body, "resting")
		if !near3(tw.pos(body), hit, joltPenetrationSlop*joltPenetrationSlop) {
			t.Errorf("resting step %d at %v, want %v", i, tw.pos(body), hit)
		}
	}
	if err := tw.s.SetVelocity(body, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{}); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if evs := tw.stepEvents(1); len(evs) != 0 {
			t.Fatalf("rolling step %d: events %+v, want none", i, evs)
		}
		cs := tw.s.ContactsOf(floor, nil)
		if len(cs) != 1 || cs[0].Other != body || !near3(cs[0].Normal, mgl32.Vec3{0, 1, 0}, 1e-12) || abs(cs[0].Point[1]) >= joltPenetrationSlop {
			t.Fatalf("rolling step %d: floor contacts %+v, want one with the sphere at y = 0", i, cs)
		}
	}
	if err := tw.s.Teleport(body, start, mgl32.QuatIdent()); err != nil {
		t.Fatal(err)
	}
	evs = tw.stepEvents(10)
	if len(evs) != 1 || evs[0].Kind != End || evs[0].A != floor || evs[0].B != body {
		t.Errorf("after moving it away: events %+v, want one End (floor, sphere)", evs)
	}
}

// TestJoltWereBodiesInContact ports TestWereBodiesInContact: a compound
// of two unit spheres 4 m apart rests on the floor; an upward impulse at
// one sphere lifts it off while the other still touches (the bodies stay
// in contact), one at the other lifts it all off (they no longer are).
// Jolt's WereBodiesInContact is ContactsOf here.
func TestJoltWereBodiesInContact(t *testing.T) {
	for _, sign := range []float32{-1, 1} {
		tw := newTestWorld(t, joltConfig(1))
		floor := tw.joltFloor()
		id := tw.compound(t, []Part{
			{Shape: Shape{Kind: Sphere, Radius: 1}, Pos: mgl32.Vec3{-2, 0, 0}},
			{Shape: Shape{Kind: Sphere, Radius: 1}, Pos: mgl32.Vec3{2, 0, 0}},
		})
		body := tw.add(joltDef(Dynamic, CompoundShape(id)), mgl32.Vec3{0, 0.999, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		inContact := func() bool {
			a, b := tw.s.ContactsOf(floor, nil), tw.s.ContactsOf(body, nil)
			return len(a) > 0 && len(b) > 0
		}
		if inContact() {
			t.Fatalf("sign %v: in contact before the first step", sign)
		}
		evs := tw.stepEvents(1)
		if !inContact() || len(evs) != 1 || evs[0].Kind != Begin {
			t.Fatalf("sign %v: after a step in contact %v, events %+v; want true and one Begin", sign, inContact(), evs)
		}
		lift := func(x float32) []ContactEvent {
			if err := tw.s.ApplyImpulseAt(body, mgl32.Vec3{0, 10000, 0}, mgl32.Vec3{x, 0, 0}); err != nil {
				t.Fatal(err)
			}
			return tw.stepEvents(2)
		}
		if evs := lift(-sign * 2); !inContact() || len(evs) != 0 {
			t.Errorf("sign %v: one side lifted: in contact %v, events %+v; want true and none", sign, inContact(), evs)
		}
		if evs := lift(sign * 2); inContact() || len(evs) != 1 || evs[0].Kind != End {
			t.Errorf("sign %v: both sides lifted: in contact %v, events %+v; want false and one End", sign, inContact(), evs)
		}
	}
}

// TestJoltSurfaceVelocity ports TestSurfaceVelocity's first iteration (a
// linear surface velocity; Nebula's hook has no angular one): a box (30°
// about Y) on a floor turned 10° about Y, both friction 1, with a hook
// that gives the floor's surface the velocity (0, 0, -2) in the floor's
// frame, moves with that velocity after 5 s, within 0.005, and does not
// turn (2e-4). Jolt's mRelativeLinearSurfaceVelocity is B's surface
// minus A's, so Jolt's listener sets minus the floor's; Nebula's
// SurfaceVelocity is the velocity friction gives B relative to A, the
// floor's own.
func TestJoltSurfaceVelocity(t *testing.T) {
	tw := newTestWorld(t, joltConfig(1))
	turnY := func(deg float64) mgl32.Quat {
		h := deg * math.Pi / 360
		return mgl32.Quat{W: float32(math.Cos(h)), V: mgl32.Vec3{0, float32(math.Sin(h)), 0}}
	}
	fd := joltDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{100, 1, 100}})
	fd.Friction = 1
	floorRot := turnY(10)
	floor := tw.add(fd, mgl32.Vec3{0, -1, 0}, floorRot, mgl32.Vec3{}, mgl32.Vec3{})
	bd := joltDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{1, 1, 1}})
	bd.Friction = 1
	box := tw.add(bd, mgl32.Vec3{0, 0.999, 0}, turnY(30), mgl32.Vec3{}, mgl32.Vec3{})
	belt := floorRot.Rotate(mgl32.Vec3{0, 0, -2})
	tw.s.SetContactHook(func(c *ContactSettings) {
		switch floor {
		case c.A:
			c.SurfaceVelocity = belt
		case c.B:
			c.SurfaceVelocity = belt.Mul(-1)
		}
	})
	tw.steps(5 * 60)
	if v := tw.vel(box); !near3(v, belt, 0.005*0.005) {
		t.Errorf("velocity %v, want %v", v, belt)
	}
	if w := tw.w.Bodies().AngVel[box.Index()]; w.LenSqr() > 2e-4*2e-4 {
		t.Errorf("angular velocity %v, want 0", w)
	}
}

// TestJoltCollideKinematicVsNonDynamic ports
// TestCollideKinematicVsNonDynamic for Jolt's default
// (mCollideKinematicVsNonDynamic false, Nebula's only behaviour), both
// bodies active: two overlapping unit spheres, 1 m apart, moving towards
// each other at 1 m/s (a static one still). A pair with a dynamic body
// reports the contact and its dynamic bodies change velocity; a pair
// without one reports nothing and keeps its velocities.
func TestJoltCollideKinematicVsNonDynamic(t *testing.T) {
	for _, m1 := range []Kind{Static, Kinematic, Dynamic} {
		for _, m2 := range []Kind{Static, Kinematic, Dynamic} {
			if m1 == Static && m2 == Static {
				continue
			}
			tw := newTestWorld(t, zeroG())
			var v1, v2 mgl32.Vec3
			if m1 != Static {
				v1 = mgl32.Vec3{1, 0, 0}
			}
			if m2 != Static {
				v2 = mgl32.Vec3{-1, 0, 0}
			}
			b1 := tw.add(joltDef(m1, Shape{Kind: Sphere, Radius: 1}), mgl32.Vec3{-0.5, 0, 0}, mgl32.QuatIdent(), v1, mgl32.Vec3{})
			b2 := tw.add(joltDef(m2, Shape{Kind: Sphere, Radius: 1}), mgl32.Vec3{0.5, 0, 0}, mgl32.QuatIdent(), v2, mgl32.Vec3{})
			evs := tw.stepEvents(1)
			if m1 == Dynamic || m2 == Dynamic {
				if len(evs) != 1 || evs[0].Kind != Begin || evs[0].A != b1 || evs[0].B != b2 {
					t.Errorf("%v vs %v: events %+v, want one Begin", m1, m2, evs)
				}
			} else if len(evs) != 0 {
				t.Errorf("%v vs %v: events %+v, want none", m1, m2, evs)
			}
			for _, c := range []struct {
				e engine.Entity
				k Kind
				v mgl32.Vec3
			}{{b1, m1, v1}, {b2, m2, v2}} {
				if moved := tw.vel(c.e) != c.v; moved != (c.k == Dynamic) {
					t.Errorf("%v vs %v: the %v body's velocity %v (was %v)", m1, m2, c.k, tw.vel(c.e), c.v)
				}
				if c.k == Dynamic && tw.s.Asleep(c.e) {
					t.Errorf("%v vs %v: the dynamic body sleeps", m1, m2)
				}
			}
		}
	}
}
