package physics

// Peers' sleep and wake tests, ported: each names its source (repository,
// file, test) and keeps its scene, expected values and tolerances unless
// its comment says otherwise.

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// rowOfCubes adds n unit cubes resting on the floor at x = x0, x0+dx, ...
// (Rapier's sleep tests' rows and stacks), each made by def.
func (tw *testWorld) rowOfCubes(n int, x0, dx, y0, dy float32, def func(i int) BodyDef) []engine.Entity {
	es := make([]engine.Entity, n)
	for i := range es {
		d := NewBodyDef(Dynamic, unitBox)
		if def != nil {
			d = def(i)
		}
		es[i] = tw.add(d, mgl32.Vec3{x0 + float32(i)*dx, y0 + float32(i)*dy, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	}
	return es
}

func (tw *testWorld) numAsleep(es []engine.Entity) int {
	n := 0
	for _, e := range es {
		if tw.s.Asleep(e) {
			n++
		}
	}
	return n
}

// TestRapierWokenBodyIsSupportedByRecycledContacts ports
// dimforge/rapier crates/rapier3d/tests/sleep_wake.rs,
// woken_body_is_supported_by_recycled_contacts: a cube settles and sleeps
// within 400 steps; woken by an impulse of 0.5 N·s along x, it stays on
// the ground (y > 0.4) for 120 steps.
func TestRapierWokenBodyIsSupportedByRecycledContacts(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	cube := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 0.6, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	slept := false
	for range 400 {
		tw.s.Step()
		if tw.s.Asleep(cube) {
			slept = true
			break
		}
	}
	if !slept {
		t.Fatal("the cube never fell asleep")
	}
	if err := tw.s.ApplyImpulse(cube, mgl32.Vec3{0.5, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if tw.s.Asleep(cube) {
		t.Fatal("asleep after the impulse")
	}
	for i := range 120 {
		tw.s.Step()
		if y := tw.pos(cube)[1]; y <= 0.4 {
			t.Fatalf("step %d: the woken cube sank into the ground (y = %v)", i, y)
		}
	}
}

// TestRapierNonSleepingNeighborKeepsTouchingRowAwake ports
// dimforge/rapier crates/rapier3d/tests/sleep_wake.rs,
// non_sleeping_neighbor_keeps_touching_row_awake: a row of 8 touching
// cubes whose first may not sleep stays awake for 400 steps, resting in
// place (within 0.1 m); a cube far away sleeps.
func TestRapierNonSleepingNeighborKeepsTouchingRowAwake(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0) // the floor is 40 m wide: the lone cube stands at x = 15, not Rapier's 30
	row := tw.rowOfCubes(8, 0, 1, 0.5, 0, func(i int) BodyDef {
		d := NewBodyDef(Dynamic, unitBox)
		d.NoSleep = i == 0
		return d
	})
	lone := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{15, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(400)
	for i, e := range row {
		if tw.s.Asleep(e) {
			t.Errorf("row cube %d sleeps: its island has a body that may not", i)
		}
		if p := tw.pos(e); abs(p[1]-0.5) >= 0.1 || abs(p[0]-float32(i)) >= 0.1 {
			t.Errorf("row cube %d drifted to %v", i, p)
		}
	}
	if !tw.s.Asleep(lone) {
		t.Error("the lone cube does not sleep")
	}
}

// TestRapierImpactWakesSleepingRegion ports dimforge/rapier
// crates/rapier3d/tests/sleep_wake.rs, impact_wakes_sleeping_region: a
// row of 6 touching cubes sleeps after 400 steps; a cube thrown at 20 m/s
// from x = -3 at its end wakes the first cube (checked after 30 steps)
// and moves it (speed or displacement over 0.05).
func TestRapierImpactWakesSleepingRegion(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	row := tw.rowOfCubes(6, 0, 1, 0.5, 0, nil)
	tw.steps(400)
	for i, e := range row {
		if !tw.s.Asleep(e) {
			t.Fatalf("row cube %d is awake before the impact", i)
		}
	}
	tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{-3, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{20, 0, 0}, mgl32.Vec3{})
	tw.steps(30)
	if tw.s.Asleep(row[0]) {
		t.Error("the cube hit is asleep")
	}
	if tw.vel(row[0]).Len() <= 0.05 && tw.pos(row[0])[0] <= 0.05 {
		t.Errorf("the cube hit did not respond: at %v, velocity %v", tw.pos(row[0]), tw.vel(row[0]))
	}
}

// TestRapierCornerVelocitySleepMetric ports dimforge/rapier
// crates/rapier3d/tests/sleep_wake.rs, corner_velocity_sleep_metric:
// without gravity, a 20 m beam turning at 0.3 rad/s (tips at 3 m/s) does
// not sleep in 200 steps; a 0.1 m cube turning at 0.55 rad/s (corners at
// 0.048 m/s, under 0.05) does.
func TestRapierCornerVelocitySleepMetric(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	beamDef := NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{10, 0.1, 0.1}})
	beamDef.GravityScale = 0
	beam := tw.add(beamDef, mgl32.Vec3{0, 30, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{0, 0, 0.3})
	pebbleDef := NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.05, 0.05, 0.05}})
	pebbleDef.GravityScale = 0
	pebble := tw.add(pebbleDef, mgl32.Vec3{0, 30, 20}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{0, 0, 0.55})
	tw.steps(200)
	if tw.s.Asleep(beam) {
		t.Error("a slowly turning long beam (tips at 3 m/s) fell asleep mid-motion")
	}
	if !tw.s.Asleep(pebble) {
		t.Error("a small spinner whose surface moves at 0.048 m/s did not sleep")
	}
}

// uShape is the U-shaped compound of dimforge/rapier
// crates/rapier3d/tests/sleep_wide_bodies.rs (as in its
// stress_tests/compound3): a 4 m bar and two 4 m uprights, r = 0.2.
func uShape(t *testing.T, tw *testWorld) CompoundID {
	const r = 0.2
	id, err := tw.s.AddCompound([]Part{
		{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{r * 10, r, r}}, Rot: mgl32.QuatIdent()},
		{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{r, r * 10, r}}, Pos: mgl32.Vec3{r * 10, r * 10, 0}, Rot: mgl32.QuatIdent()},
		{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{r, r * 10, r}}, Pos: mgl32.Vec3{-r * 10, r * 10, 0}, Rot: mgl32.QuatIdent()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestRapierWideBodiesAtRestFallAsleep ports dimforge/rapier
// crates/rapier3d/tests/sleep_wide_bodies.rs,
// wide_bodies_at_rest_fall_asleep: 64 U-shaped compounds (extent about 4
// m) set on the ground at varied yaws all sleep within 300 steps.
func TestRapierWideBodiesAtRestFallAsleep(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	d := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{50, 0.1, 50}})
	tw.add(d, mgl32.Vec3{0, -0.1, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	u := uShape(t, tw)
	var us []engine.Entity
	for i := range 8 {
		for k := range 8 {
			yaw := float32(i)*0.11 + float32(k)*0.037
			us = append(us, tw.add(NewBodyDef(Dynamic, CompoundShape(u)),
				mgl32.Vec3{float32(i) * 6, 0.2 + 0.01, float32(k) * 6},
				mgl32.QuatRotate(yaw, mgl32.Vec3{0, 1, 0}), mgl32.Vec3{}, mgl32.Vec3{}))
		}
	}
	tw.steps(300)
	if n := tw.numAsleep(us); n != len(us) {
		t.Errorf("%d of %d wide bodies stayed awake at rest", len(us)-n, len(us))
	}
}

// TestRapierStillWideBodyReportsNoDrift ports dimforge/rapier
// crates/rapier3d/tests/sleep_wide_bodies.rs,
// still_wide_body_reports_no_drift: without gravity, a body with a far
// reaching shape (a 16 m rod), turned, does not move at all in 200 steps
// and falls asleep.
func TestRapierStillWideBodyReportsNoDrift(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	// Rapier's rotation vector (0.3, -0.7, 0.15) as a quaternion.
	axis := mgl32.Vec3{0.3, -0.7, 0.15}
	rot := mgl32.QuatRotate(axis.Len(), axis.Normalize())
	e := tw.add(NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.2, 8, 0.2}}), mgl32.Vec3{}, rot, mgl32.Vec3{}, mgl32.Vec3{})
	p0, q0 := tw.pos(e), tw.w.Bodies().Rot[e.Index()]
	tw.steps(200)
	if p, q := tw.pos(e), tw.w.Bodies().Rot[e.Index()]; p != p0 || q != q0 {
		t.Errorf("a force-free body moved from %v %v to %v %v", p0, q0, p, q)
	}
	if !tw.s.Asleep(e) {
		t.Error("a motionless body with a far-reaching shape never slept")
	}
}

// wholeIslandSettle is SETTLE_STEPS of dimforge/rapier
// crates/rapier3d/tests/whole_island_sleep.rs.
const wholeIslandSettle = 240

// TestRapierWholeIslandBlocksPartialSleep ports dimforge/rapier
// crates/rapier3d/tests/whole_island_sleep.rs,
// whole_island_blocks_partial_sleep: a stack of 6 cubes with a cube on
// top that may not sleep: nothing sleeps in 240 steps; once that cube is
// removed the whole stack sleeps in 240 more; waking one cube wakes the
// island as a unit. (Rapier wakes the island in wake_up itself; Nebula's
// islands are found in Step, so WakeUp wakes the cube and the next Step
// its island: checked after that step.)
func TestRapierWholeIslandBlocksPartialSleep(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	stack := tw.rowOfCubes(6, 0, 0, 0.5, 1, nil)
	d := NewBodyDef(Dynamic, unitBox)
	d.NoSleep = true
	restless := tw.add(d, mgl32.Vec3{0, 6.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(wholeIslandSettle)
	if n := tw.numAsleep(append(stack, restless)); n != 0 {
		t.Fatalf("%d bodies of an island with a non-sleeping body sleep", n)
	}
	tw.s.RemoveBody(restless)
	tw.steps(wholeIslandSettle)
	if n := tw.numAsleep(stack); n != len(stack) {
		t.Fatalf("%d of %d of the stack sleep; want the whole stack", n, len(stack))
	}
	tw.s.WakeUp(stack[0])
	tw.steps(1)
	if n := tw.numAsleep(stack); n != 0 {
		t.Errorf("%d still asleep: the island must wake as a unit", n)
	}
}

// TestRapierDefaultNeverSleepsPartialIslands ports dimforge/rapier
// crates/rapier3d/tests/whole_island_sleep.rs,
// default_never_sleeps_partial_islands: the same stack under the default
// configuration: nothing sleeps while the cube that may not touches it.
func TestRapierDefaultNeverSleepsPartialIslands(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	stack := tw.rowOfCubes(6, 0, 0, 0.5, 1, nil)
	d := NewBodyDef(Dynamic, unitBox)
	d.NoSleep = true
	restless := tw.add(d, mgl32.Vec3{0, 6.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(wholeIslandSettle)
	if n := tw.numAsleep(append(stack, restless)); n != 0 {
		t.Errorf("%d bodies of an island with a non-sleeping body sleep", n)
	}
}

// TestRapierWholeIslandSleepsAfterMoverDeparts ports dimforge/rapier
// crates/rapier3d/tests/whole_island_sleep.rs,
// whole_island_sleeps_after_mover_departs: a kinematic cube grazing the
// bottom cube of a stack of 4 (1 mm overlap), sliding along its face at
// 0.8 m/s, keeps the stack awake (90 steps); once it has slid past, the
// stack sleeps (240 more) while the mover keeps moving.
func TestRapierWholeIslandSleepsAfterMoverDeparts(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	stack := tw.rowOfCubes(4, 0, 0, 0.5, 1, nil)
	mover := tw.add(NewBodyDef(Kinematic, unitBox), mgl32.Vec3{0.999, 0.5, -0.9}, mgl32.QuatIdent(), mgl32.Vec3{0, 0, 0.8}, mgl32.Vec3{})
	tw.steps(90)
	if n := tw.numAsleep(stack); n != 0 {
		t.Fatalf("%d cubes sleep while the kinematic body slides along the stack", n)
	}
	tw.steps(wholeIslandSettle)
	if n := tw.numAsleep(stack); n != len(stack) {
		t.Errorf("%d of %d sleep once the mover slid out of contact", n, len(stack))
	}
	if tw.vel(mover)[2] != 0.8 {
		t.Errorf("the mover's velocity is %v", tw.vel(mover))
	}
}

// TestRapierWholeIslandComponentsAreIndependent ports dimforge/rapier
// crates/rapier3d/tests/whole_island_sleep.rs,
// whole_island_components_are_independent: two stacks of 4, 20 m apart,
// both sleep in 240 steps; waking one wakes its island and leaves the
// other asleep (after the next Step, as in
// TestRapierWholeIslandBlocksPartialSleep).
func TestRapierWholeIslandComponentsAreIndependent(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	a := tw.rowOfCubes(4, 0, 0, 0.5, 1, nil)
	b := tw.rowOfCubes(4, 15, 0, 0.5, 1, nil) // the floor is 40 m wide: 15 m apart, not 20
	tw.steps(wholeIslandSettle)
	if n := tw.numAsleep(a) + tw.numAsleep(b); n != 8 {
		t.Fatalf("%d of 8 sleep; want both stacks", n)
	}
	tw.s.WakeUp(a[0])
	tw.steps(1)
	if n := tw.numAsleep(a); n != 0 {
		t.Errorf("%d of the woken island still sleep", n)
	}
	if n := tw.numAsleep(b); n != 4 {
		t.Errorf("%d of the other island sleep; want 4", n)
	}
}

// TestRapierSleepGatesPositionCorrections ports dimforge/rapier
// src/dynamics/rigid_body_components.rs, test_sleep_gates_position_corrections,
// on sleepSpeed: a body that only moves (zero velocity: the motion stands
// for the contacts' position corrections) by 1.5 times the per-step
// budget 2·threshold·dt is not calm; by half of it, or not at all, it is.
func TestRapierSleepGatesPositionCorrections(t *testing.T) {
	const dt = float32(1.0 / 60)
	cfg := DefaultConfig()
	budget := float32(2 * cfg.SleepLinearSpeed * dt)
	for _, c := range []struct {
		shift float32
		calm  bool
	}{{budget * 1.5, false}, {budget * 0.5, true}, {0, true}} {
		got := sleepSpeed(vec3{c.shift, 0, 0}, vec3{}, 1, dt) <= cfg.SleepLinearSpeed
		if got != c.calm {
			t.Errorf("creeping %v m a step: calm %v, want %v", c.shift, got, c.calm)
		}
	}
}

// TestRapierSleepAllowsPinnedBodyWithResidualVelocity ports
// dimforge/rapier src/dynamics/rigid_body_components.rs,
// test_sleep_allows_pinned_body_with_residual_velocity, on sleepSpeed and
// restTime: a body pinned to one pose while its velocity reads 5 times the
// threshold (a body in a loaded stack whose contacts cancel its velocity
// every step) becomes eligible for sleep within 10 times the time to
// sleep. Nebula's sleepSpeed does not take the velocity, only the motion,
// so the residual velocity has no argument to pass.
func TestRapierSleepAllowsPinnedBodyWithResidualVelocity(t *testing.T) {
	const dt = float32(1.0 / 60)
	cfg := DefaultConfig()
	steps := int(10 * cfg.TimeToSleep / dt)
	var rest float32
	for range steps {
		calm := sleepSpeed(vec3{}, vec3{}, 1, dt) <= cfg.SleepLinearSpeed
		rest, _ = restTime(rest, dt, calm)
	}
	if rest < cfg.TimeToSleep {
		t.Errorf("rest time %v after %d still steps; want at least %v", rest, steps, cfg.TimeToSleep)
	}
}

// TestRapierManualSleepAfterRepositionIsHonored ports dimforge/rapier
// crates/rapier2d/tests/issue_448_manual_sleep_honored.rs,
// manual_sleep_after_reposition_is_honored, in 3D: a ball falling for 10
// steps, moved back up to y = 20 and put to sleep, stays asleep and does
// not move (within 1e-6) for 10 steps.
func TestRapierManualSleepAfterRepositionIsHonored(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	ball := tw.sphere(Dynamic, 0.5, mgl32.Vec3{0, 10, 0}, mgl32.Vec3{})
	tw.steps(10)
	if tw.s.Asleep(ball) || tw.vel(ball).Len() <= 0.1 {
		t.Fatalf("asleep %v, velocity %v after 10 steps of falling", tw.s.Asleep(ball), tw.vel(ball))
	}
	if err := tw.s.Teleport(ball, mgl32.Vec3{0, 20, 0}, mgl32.QuatIdent()); err != nil {
		t.Fatal(err)
	}
	if err := tw.s.Sleep(ball); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		tw.s.Step()
		if !tw.s.Asleep(ball) {
			t.Fatalf("step %d: the ball put to sleep woke up", i)
		}
		if d := tw.pos(ball).Sub(mgl32.Vec3{0, 20, 0}).Len(); d >= 1e-6 {
			t.Fatalf("step %d: the sleeping ball moved to %v", i, tw.pos(ball))
		}
	}
}

// trimeshGround adds the flat two-triangle ground of dimforge/rapier
// crates/rapier3d/tests/issue_372_trimesh_sleep.rs (40 × 40 m, its
// diagonal along x = z).
func (tw *testWorld) trimeshGround(t *testing.T) {
	m, err := NewTriangleMesh([]mgl32.Vec3{{-20, 0, -20}, {20, 0, -20}, {20, 0, 20}, {-20, 0, 20}}, []uint32{0, 2, 1, 0, 3, 2})
	if err != nil {
		t.Fatal(err)
	}
	id, err := tw.s.AddMesh(m)
	if err != nil {
		t.Fatal(err)
	}
	tw.add(NewBodyDef(Static, Shape{Kind: Mesh, Mesh: id}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
}

// sleepsWithin steps until e sleeps and reports whether it did within n
// steps.
func (tw *testWorld) sleepsWithin(e engine.Entity, n int) bool {
	for range n {
		tw.s.Step()
		if tw.s.Asleep(e) {
			return true
		}
	}
	return false
}

// TestRapierBallOnTrimeshFallsAsleep ports dimforge/rapier
// crates/rapier3d/tests/issue_372_trimesh_sleep.rs,
// ball_on_trimesh_falls_asleep: a ball (r 0.5) dropped from y = 1 onto a
// flat triangle mesh with a push of 0.03 m/s sleeps within 2,000 steps.
func TestRapierBallOnTrimeshFallsAsleep(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.trimeshGround(t)
	ball := tw.sphere(Dynamic, 0.5, mgl32.Vec3{-5, 1, 5}, mgl32.Vec3{0.03, 0, 0})
	if !tw.sleepsWithin(ball, 2000) {
		t.Errorf("the ball never fell asleep (velocity %v)", tw.vel(ball))
	}
}

// TestRapierCapsuleOnTrimeshFallsAsleep ports dimforge/rapier
// crates/rapier3d/tests/issue_372_trimesh_sleep.rs,
// capsule_on_trimesh_falls_asleep: a capsule (r 0.3, half height 0.4)
// lying on its side, dropped from y = 1 with a push of 0.012 m/s, sleeps
// within 2,000 steps.
func TestRapierCapsuleOnTrimeshFallsAsleep(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.trimeshGround(t)
	lying := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{1, 0, 0})
	pill := tw.add(NewBodyDef(Dynamic, Shape{Kind: Capsule, Radius: 0.3, HalfHeight: 0.4}), mgl32.Vec3{-5, 1, 5}, lying, mgl32.Vec3{0.012, 0, 0}, mgl32.Vec3{})
	if !tw.sleepsWithin(pill, 2000) {
		t.Errorf("the capsule never fell asleep (velocity %v)", tw.vel(pill))
	}
}

// TestJoltPhysicsActivationDeactivation ports jrouwe/JoltPhysics
// UnitTests/Physics/PhysicsTests.cpp, TestPhysicsActivationDeactivation,
// in its three contexts (1/60 s, 2/60 s and 4/60 s steps: Nebula's tick
// rates 60, 30 and 15): a box added asleep at y = 5 above a floor stays
// exactly there for 1 s with no event; woken, it gains velocity in one
// step; after 5 s it rests at (0, 0.5, 0) within 1.1 times Jolt's
// penetration slop, at rest, asleep, with exactly one sleep event. (Jolt's
// listener also reports the activation by ActivateBody; a wake by the
// game's own call has no event in Nebula, so the test checks the state.)
func TestJoltPhysicsActivationDeactivation(t *testing.T) {
	for _, rate := range []int{60, 30, 15} {
		cfg := DefaultConfig()
		cfg.TickRate = rate
		tw := newTestWorld(t, cfg)
		floor := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{100, 1, 100}})
		tw.add(floor, mgl32.Vec3{0, -1, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		d := NewBodyDef(Dynamic, unitBox)
		d.StartAsleep = true
		box := tw.add(d, mgl32.Vec3{0, 5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		events := 0
		run := func(steps int) {
			for range steps {
				tw.s.Step()
				events += len(tw.s.SleepEvents())
			}
		}
		run(rate)
		if tw.pos(box) != (mgl32.Vec3{0, 5, 0}) || !tw.s.Asleep(box) || events != 0 {
			t.Fatalf("%d Hz: at %v, asleep %v, %d events after 1 s; want at 0 5 0, asleep, none", rate, tw.pos(box), tw.s.Asleep(box), events)
		}
		tw.s.WakeUp(box)
		if tw.s.Asleep(box) || tw.vel(box).Len() > 1e-6 {
			t.Fatalf("%d Hz: woken: asleep %v, velocity %v", rate, tw.s.Asleep(box), tw.vel(box))
		}
		run(1)
		if tw.s.Asleep(box) || events != 0 || tw.vel(box).Len() < 1e-6 {
			t.Fatalf("%d Hz: a step after waking: asleep %v, %d events, velocity %v", rate, tw.s.Asleep(box), events, tw.vel(box))
		}
		run(5 * rate)
		if d := tw.pos(box).Sub(mgl32.Vec3{0, 0.5, 0}).Len(); d > 1.1*joltPenetrationSlop {
			t.Errorf("%d Hz: rests at %v, %v m from 0 0.5 0", rate, tw.pos(box), d)
		}
		if tw.vel(box).Len() > 1e-6 || tw.w.Bodies().AngVel[box.Index()].Len() > 1e-6 {
			t.Errorf("%d Hz: velocities %v %v at rest", rate, tw.vel(box), tw.w.Bodies().AngVel[box.Index()])
		}
		if !tw.s.Asleep(box) || events != 1 {
			t.Errorf("%d Hz: asleep %v with %d events after 5 s; want asleep with 1", rate, tw.s.Asleep(box), events)
		}
	}
}

// TestJoltPhysicsActivateDuringStep ports jrouwe/JoltPhysics
// UnitTests/Physics/PhysicsTests.cpp, TestPhysicsActivateDuringStep, for
// both creation orders: ten asleep boxes in a row, each overlapping the
// next by Jolt's penetration slop; the first is given 500 m/s along x. In
// one step the nine others wake (nine wake events), each pair of
// neighbours begins a contact (nine Begin events), every box moves right,
// and none passes through its neighbour.
func TestJoltPhysicsActivateDuringStep(t *testing.T) {
	const n, ext = 10, float32(0.5)
	for _, reverse := range []bool{false, true} {
		tw := newTestWorld(t, DefaultConfig())
		d := NewBodyDef(Dynamic, unitBox)
		d.StartAsleep = true
		ids := make([]engine.Entity, n)
		x0 := func(i int) float32 { return float32(i) * (2*ext - joltPenetrationSlop) }
		for j := range n {
			i := j
			if reverse {
				i = n - 1 - j
			}
			ids[i] = tw.add(d, mgl32.Vec3{x0(i), 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		}
		if err := tw.s.SetVelocity(ids[0], mgl32.Vec3{500, 0, 0}, mgl32.Vec3{}); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < n; i++ {
			if !tw.s.Asleep(ids[i]) {
				t.Fatalf("reverse %v: box %d awake before the step", reverse, i)
			}
		}
		tw.s.Step()
		woken := map[engine.Entity]bool{}
		for _, ev := range tw.s.SleepEvents() {
			if !ev.Asleep {
				woken[ev.Entity] = true
			}
		}
		if len(tw.s.SleepEvents()) != n-1 {
			t.Errorf("reverse %v: %d sleep events; want %d", reverse, len(tw.s.SleepEvents()), n-1)
		}
		begins := map[[2]engine.Entity]bool{}
		for _, ev := range tw.s.Events() {
			if ev.Kind == Begin {
				begins[[2]engine.Entity{ev.A, ev.B}] = true
				begins[[2]engine.Entity{ev.B, ev.A}] = true
			}
		}
		if len(tw.s.Events()) != n-1 {
			t.Errorf("reverse %v: %d contact events; want %d", reverse, len(tw.s.Events()), n-1)
		}
		for i := range n {
			if tw.s.Asleep(ids[i]) {
				t.Errorf("reverse %v: box %d asleep", reverse, i)
			}
			if x := tw.pos(ids[i])[0]; x <= x0(i) {
				t.Errorf("reverse %v: box %d at x = %v, not right of %v", reverse, i, x, x0(i))
			}
		}
		for i := 1; i < n; i++ {
			if !woken[ids[i]] {
				t.Errorf("reverse %v: no wake event for box %d", reverse, i)
			}
			if !begins[[2]engine.Entity{ids[i-1], ids[i]}] {
				t.Errorf("reverse %v: no Begin event for boxes %d and %d", reverse, i-1, i)
			}
			if a, b := tw.pos(ids[i-1])[0], tw.pos(ids[i])[0]; a >= b {
				t.Errorf("reverse %v: box %d (x = %v) passed box %d (x = %v)", reverse, i-1, a, i, b)
			}
		}
	}
}

// TestBox2DEnableSleepFlagSyncTest ports erincatto/box2d
// test/test_world.c, EnableSleepFlagSyncTest: a dynamic body made with
// sleep disabled reports it; enabled again, it reports that; the world
// steps.
func TestBox2DEnableSleepFlagSyncTest(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	d := NewBodyDef(Dynamic, unitBox)
	d.NoSleep = true
	e := tw.add(d, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	if b, _ := tw.s.Body(e); !b.NoSleep {
		t.Error("sleep is enabled on a body made with NoSleep")
	}
	if err := tw.s.SetNoSleep(e, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := tw.s.Body(e); b.NoSleep {
		t.Error("sleep is still disabled after SetNoSleep(false)")
	}
	tw.s.Step()
}
