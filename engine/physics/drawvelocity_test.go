package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// TestDrawVelocityMovesBodies: a body's velocity is the world's (Vel and
// AngVel), so World.SetDrawVelocity on a kinematic body sets the velocity
// the step moves it at, exactly as Space.SetVelocity does (as
// engine.World.SetDrawVelocity's doc says, and the demo's physics mode
// steers its kinematic cubes so).
func TestDrawVelocityMovesBodies(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	a := tw.sphere(Kinematic, 0.5, mgl32.Vec3{-3, 0, -10}, mgl32.Vec3{})
	b := tw.sphere(Kinematic, 0.5, mgl32.Vec3{-3, 0, 10}, mgl32.Vec3{})
	lin, ang := mgl32.Vec3{2, 0, 0}, mgl32.Vec3{0, 1, 0}
	tw.w.SetDrawVelocity(a, lin, ang)
	if err := tw.s.SetVelocity(b, lin, ang); err != nil {
		t.Fatal(err)
	}
	tw.steps(120)
	if x := tw.pos(a)[0]; math.Abs(float64(x-1)) > 1e-4 {
		t.Errorf("moved by SetDrawVelocity: x = %v after 2 s at 2 m/s from -3, want 1", x)
	}
	bodies := tw.w.Bodies()
	pa, pb := tw.pos(a), tw.pos(b)
	if pa[0] != pb[0] || pa[1] != pb[1] || bodies.Rot[a.Index()] != bodies.Rot[b.Index()] {
		t.Errorf("SetDrawVelocity moved the body to %v %v, Space.SetVelocity to %v %v",
			pa, bodies.Rot[a.Index()], pb, bodies.Rot[b.Index()])
	}
}
