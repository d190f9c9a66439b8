package physics

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// TestSlideIntoSleeper: a box sliding without friction at 0.6 m/s into a
// resting box of equal mass that has fallen asleep shares its momentum:
// both end at 0.3 m/s, as Rapier 0.21 (0.297 and 0.303) and Jolt 1.1
// (0.3 and 0.3) give on the same scene through /work's reference runners.
// The sleeper must wake when the contact that will be solved against it
// appears (speculative, before the boxes touch), not be solved against as
// if it were fixed.
func TestSlideIntoSleeper(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0, 0)
	d := NewBodyDef(Dynamic, unitBox)
	d.Friction = 0
	b := tw.add(d, mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(60)
	if !tw.s.Asleep(b) {
		t.Fatal("the resting box is not asleep after 1 s")
	}
	a := tw.add(d, mgl32.Vec3{-1.5, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{0.6, 0, 0}, mgl32.Vec3{})
	tw.steps(240)
	va, vb := tw.vel(a)[0], tw.vel(b)[0]
	if abs(va-0.3) > 0.01 || abs(vb-0.3) > 0.01 {
		t.Errorf("velocities after the hit: %v and %v m/s; want 0.3 and 0.3", va, vb)
	}
	if pa, pb := tw.pos(a)[0], tw.pos(b)[0]; pb-pa < 0.99 {
		t.Errorf("the boxes overlap: at x = %v and %v", pa, pb)
	}
}

// TestBallIntoSleepingPile: a ball rolling at 1 m/s into a pile of three boxes that
// sleeps does not stop dead: it wakes the pile and pushes the box it hits
// (before the fix, the ball stopped at the first box, which stayed asleep).
func TestBallIntoSleepingPile(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	var pile [3]engine.Entity
	for i := range pile {
		pile[i] = tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 0.5 + float32(i), 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	}
	tw.steps(120)
	for i, e := range pile {
		if !tw.s.Asleep(e) {
			t.Fatalf("box %d is not asleep after 2 s", i)
		}
	}
	bd := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.25})
	bd.Density = 200 // 13 kg: enough to push the 3 kg pile along the floor
	ball := tw.add(bd, mgl32.Vec3{-1.5, 0.25, 0}, mgl32.QuatIdent(), mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 0, -4})
	tw.steps(120)
	bx := tw.pos(pile[0])[0]
	if bx < 0.05 {
		t.Errorf("the box hit moved to x = %v only", bx)
	}
	if x := tw.pos(ball)[0]; x+0.25 > bx-0.5+0.01 {
		t.Errorf("the ball (at x = %v) is inside the box (at x = %v)", x, bx)
	}
}
