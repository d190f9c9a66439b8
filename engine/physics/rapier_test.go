package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// Ports of dimforge/rapier's tests (crates/rapier3d/tests and
// crates/rapier2d/tests, the 2-D ones set in the XY plane). Rapier steps
// at 60 Hz with gravity (0, -9.81, 0), as DefaultConfig does.

// rapierRebound is the scene of Rapier's issue_974_restitution.rs and
// issue_919_prediction_distance_restitution.rs: a ball (radius 0.2) with
// restitution e dropped from 2.3 m onto a 60 × 0.2 × 60 m ground of the
// same restitution (combined by the average) for 400 steps. It returns
// the fraction of the 2 m drop recovered at the first apex after the
// impact.
func rapierRebound(t *testing.T, e float32, cfg Config) float32 {
	tw := newTestWorld(t, cfg)
	gd := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{30, 0.1, 30}})
	gd.Restitution = e
	tw.add(gd, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	bd := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.2})
	bd.Restitution = e
	ball := tw.add(bd, mgl32.Vec3{0, 2.3, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	touched, apex := false, float32(0)
	for range 400 {
		tw.steps(1)
		y := tw.pos(ball)[1]
		if !touched && y < 0.35 {
			touched = true
		}
		if touched && y > apex {
			apex = y
		}
	}
	return (apex - 0.3) / 2
}

// TestRapierRestitutionReboundMatchesESquared ports
// restitution_rebound_matches_e_squared and
// zero_restitution_does_not_bounce (crates/rapier3d/tests/
// issue_974_restitution.rs): the ball recovers e² of its drop height,
// within 0.05, and nearly nothing (under 0.02) with restitution 0.
func TestRapierRestitutionReboundMatchesESquared(t *testing.T) {
	for _, e := range []float32{0.3, 0.5, 0.8, 0.95} {
		if got := rapierRebound(t, e, DefaultConfig()); abs(got-e*e) >= 0.05 {
			t.Errorf("restitution %v: rebound fraction %.3f, want ~%.3f", e, got, e*e)
		}
	}
	if got := rapierRebound(t, 0, DefaultConfig()); got >= 0.02 {
		t.Errorf("restitution 0: rebound fraction %.3f, want ~0", got)
	}
}

// TestRapierLargePredictionDistancePreservesRestitution ports
// large_prediction_distance_preserves_restitution
// (crates/rapier2d/tests/issue_919_prediction_distance_restitution.rs):
// a speculative distance of 0.1 m (Rapier's prediction distance) does
// not change the rebound (within 0.05), which stays e² (0.05).
func TestRapierLargePredictionDistancePreservesRestitution(t *testing.T) {
	for _, e := range []float32{0.5, 0.8} {
		base := rapierRebound(t, e, DefaultConfig())
		cfg := DefaultConfig()
		cfg.SpeculativeDistance = 0.1
		large := rapierRebound(t, e, cfg)
		if abs(base-e*e) >= 0.05 {
			t.Errorf("restitution %v: rebound %.3f, want ~%.3f", e, base, e*e)
		}
		if abs(large-base) >= 0.05 {
			t.Errorf("restitution %v: rebound %.3f with a speculative distance of 0.1 m, %.3f with the default", e, large, base)
		}
	}
}

// TestRapierRestingImpulseMatchesGravity ports
// resting_impulse_matches_gravity_for_any_warmstart_coefficient
// (crates/rapier3d/tests/total_contact_impulse.rs) for its rigid-body
// cases (Nebula has no multibodies and always warm starts): a 1 kg ball
// or cube resting on the ground, never sleeping, reports after 300 steps
// the impulse m·g·dt, within 1 %.
func TestRapierRestingImpulseMatchesGravity(t *testing.T) {
	want := float32(1 * 9.81 / 60)
	for _, sh := range []Shape{{Kind: Sphere, Radius: 0.5}, {Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}}} {
		cfg := DefaultConfig()
		cfg.NoSleep = true
		tw := newTestWorld(t, cfg)
		tw.add(NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{10, 0.5, 10}}), mgl32.Vec3{0, -0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		d := NewBodyDef(Dynamic, sh)
		d.Mass = 1
		body := tw.add(d, mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		tw.steps(300)
		var got float32
		for _, c := range tw.s.ContactsOf(body, nil) {
			got += c.Impulse
		}
		if abs(got-want) > want*1e-2 {
			t.Errorf("%v: impulse %v, want %v", sh.Kind, got, want)
		}
	}
}

// rapierSpin returns the speed and angular speed of a ball (radius 0.2)
// after one step without gravity, started at v and w (speed_cap.rs's
// scene).
func rapierSpin(t *testing.T, cfg Config, v, w mgl32.Vec3) (float32, float32) {
	cfg.Gravity = mgl32.Vec3{}
	tw := newTestWorld(t, cfg)
	e := tw.add(NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.2}), mgl32.Vec3{}, mgl32.QuatIdent(), v, w)
	tw.steps(1)
	return tw.vel(e).Len(), tw.w.Bodies().AngVel[e.Index()].Len()
}

// TestRapierSpeedCaps ports linear_speed_cap, linear_cap_disabled and
// angular_speed_cap (crates/rapier3d/tests/speed_cap.rs) with Nebula's
// caps (Config.MaxLinearSpeed, 1000 m/s, and MaxAngularSpeed, 200 rad/s,
// where Rapier's are its own): a ball thrown at 10 km/s moves at the cap
// after a step (within 1 m/s), and faster than 9 km/s with the cap
// raised; one spun at 500 rad/s turns at the cap (within 2 rad/s), and
// faster than 400 with it raised (Rapier's allow_fast_rotation).
func TestRapierSpeedCaps(t *testing.T) {
	cfg := DefaultConfig()
	if v, _ := rapierSpin(t, cfg, mgl32.Vec3{10000, 0, 0}, mgl32.Vec3{}); abs(v-cfg.MaxLinearSpeed) >= 1 {
		t.Errorf("speed %v, want the cap %v", v, cfg.MaxLinearSpeed)
	}
	if _, w := rapierSpin(t, cfg, mgl32.Vec3{}, mgl32.Vec3{0, 500, 0}); abs(w-cfg.MaxAngularSpeed) >= 2 {
		t.Errorf("angular speed %v, want the cap %v", w, cfg.MaxAngularSpeed)
	}
	raised := cfg
	raised.MaxLinearSpeed, raised.MaxAngularSpeed = 1e6, 1e6
	if v, _ := rapierSpin(t, raised, mgl32.Vec3{10000, 0, 0}, mgl32.Vec3{}); v <= 9000 {
		t.Errorf("speed %v with the cap raised, want > 9000", v)
	}
	if _, w := rapierSpin(t, raised, mgl32.Vec3{}, mgl32.Vec3{0, 500, 0}); w <= 400 {
		t.Errorf("angular speed %v with the cap raised, want > 400", w)
	}
}

// TestRapierCCDSkipsInContactPair ports ccd_skips_in_contact_pair
// (crates/rapier3d/tests/speed_cap.rs): a CCD ball (radius 0.2) resting
// 1 cm into a frictionless floor and sliding along it at 50 m/s is not
// held back by its continuous collision with the floor it already
// touches: after 30 steps it has slid past x = 10 (from -5).
func TestRapierCCDSkipsInContactPair(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	fd := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{50, 0.05, 50}})
	fd.Friction = 0
	tw.add(fd, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	bd := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.2})
	bd.Friction, bd.CCD = 0, true
	ball := tw.add(bd, mgl32.Vec3{-5, 0.24, 0}, mgl32.QuatIdent(), mgl32.Vec3{50, 0, 0}, mgl32.Vec3{})
	tw.steps(30)
	if x := tw.pos(ball)[0]; x <= 10 {
		t.Errorf("x = %v after 30 steps, want > 10", x)
	}
}

// TestRapierGyroscopicPrecession ports
// angular_velocity_precesses_with_gyroscopic (crates/rapier3d/tests/
// gyroscopic.rs): a torque-free box of half extents 1 × 2 × 3 spun at
// (6, 6, 0) rad/s, about no principal axis, has its angular velocity
// swung more than 26° (cos < 0.9) from where it started within 300
// steps. (Rapier's angular_velocity_fixed_without_gyroscopic needs a
// switch for the term that Nebula does not have.)
func TestRapierGyroscopicPrecession(t *testing.T) {
	cfg := zeroG()
	cfg.NoSleep = true
	tw := newTestWorld(t, cfg)
	w0 := mgl32.Vec3{6, 6, 0}
	e := tw.add(NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{1, 2, 3}}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, w0)
	minCos := float32(1)
	for range 300 {
		tw.steps(1)
		w := tw.w.Bodies().AngVel[e.Index()]
		minCos = min(minCos, w.Dot(w0)/(w.Len()*w0.Len()))
	}
	if minCos >= 0.9 {
		t.Errorf("the angular velocity stayed within acos(%v) of its start, want cos < 0.9", minCos)
	}
}

// TestRapierAngularMomentumTiltedPrincipalFrame ports
// angular_momentum_conserved_with_tilted_principal_frame
// (crates/rapier3d/tests/gyroscopic.rs): a torque-free body whose one
// part, a box of half extents 1 × 2 × 3, is turned 0.7 rad about
// (1, 1, 1) in the body's frame (so its principal axes are not the
// body's), spun at (3, 7, 2) rad/s, keeps its angular momentum in the
// world for 600 steps: its length within 2 %, its direction within
// acos 0.999.
func TestRapierAngularMomentumTiltedPrincipalFrame(t *testing.T) {
	cfg := zeroG()
	cfg.NoSleep = true
	tw := newTestWorld(t, cfg)
	axis := mgl32.Vec3{1, 1, 1}.Normalize()
	s, c := math.Sincos(0.35)
	tilt := mgl32.Quat{W: float32(c), V: axis.Mul(float32(s))}
	half := mgl32.Vec3{1, 2, 3}
	id := tw.compound(t, []Part{{Shape: Shape{Kind: Box, HalfExtents: half}, Rot: tilt}})
	e := tw.add(NewBodyDef(Dynamic, CompoundShape(id)), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{3, 7, 2})
	// The box's inertia in its own frame, density 1: m/3·(b² + c²) for
	// half extents a, b, c, and so on.
	m := 8 * half[0] * half[1] * half[2]
	in := mgl32.Vec3{half[1]*half[1] + half[2]*half[2], half[0]*half[0] + half[2]*half[2], half[0]*half[0] + half[1]*half[1]}.Mul(m / 3)
	momentum := func() mgl32.Vec3 {
		q := tw.w.Bodies().Rot[e.Index()].Mul(tilt)
		l := q.Inverse().Rotate(tw.w.Bodies().AngVel[e.Index()])
		return q.Rotate(mgl32.Vec3{l[0] * in[0], l[1] * in[1], l[2] * in[2]})
	}
	l0 := momentum()
	n0 := l0.Len()
	var maxErr float32
	minCos := float32(1)
	for range 600 {
		tw.steps(1)
		l := momentum()
		maxErr = max(maxErr, abs(l.Len()-n0)/n0)
		minCos = min(minCos, l.Dot(l0)/(l.Len()*n0))
	}
	if maxErr >= 0.02 || minCos <= 0.999 {
		t.Errorf("angular momentum: length off by up to %v (want < 0.02), direction cos down to %v (want > 0.999)", maxErr, minCos)
	}
}
