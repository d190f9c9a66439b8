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

// TestJoltPhysicsPenetrationSlop2 ports TestPhysicsPenetrationSlop2: a
// box twice as deep is pushed out to the slop.
//
// Nebula today (Config.PenetrationSlop 0.02): the box rests at y =
// 0.97975, 0.25 mm below the slop (want 0.98 within 1e-5), still moving
// at 1.3e-4 m/s (want 1e-6): beyond the slop the soft contact's spring
// pushes out, and under gravity a spring rests g/ω² (ω = 2π·60 Hz)
// deeper than its target; Jolt's Baumgarte position pass has no sag.
func TestJoltPhysicsPenetrationSlop2(t *testing.T) {
	joltSlopCase(t, 2*joltPenetrationSlop, joltPenetrationSlop)
}

// TestJoltPhysicsInsideSpeculativeContactDistanceNoRestitution ports
// TestPhysicsInsideSpeculativeContactDistanceNoRestitution: 0.9
// speculative distances above the floor and moving 1 m a step down, a
// box and a sphere get their contacts in the first step and end it on
// the floor, moving at the speed that just closed the gap (the box
// within 1e-3 and 0.05, the sphere 1e-6 and 1e-4); in the next the
// contacts persist and both rest.
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
