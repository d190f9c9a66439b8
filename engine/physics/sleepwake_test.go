package physics

import (
	"math"
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

// fallenDominoes sets up ten dominoes (0.1 × 1 × 0.5 m, 0.6 m apart) on
// the floor, tips the first at 0.4 rad/s (just enough to take it over its
// edge) and returns how many are tilted by more than 20° after 10 s.
func fallenDominoes(t *testing.T, cfg Config) int {
	tw := newTestWorld(t, cfg)
	tw.floor(0.5, 0)
	var ds [10]engine.Entity
	d := NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.05, 0.5, 0.25}})
	for i := range ds {
		ds[i] = tw.add(d, mgl32.Vec3{float32(i) * 0.6, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	}
	tw.steps(1)
	if err := tw.s.SetVelocity(ds[0], mgl32.Vec3{0.2, 0, 0}, mgl32.Vec3{0, 0, -0.4}); err != nil {
		t.Fatal(err)
	}
	tw.steps(600)
	fallen := 0
	for _, e := range ds {
		up := tw.w.Bodies().Rot[e.Index()].Rotate(mgl32.Vec3{0, 1, 0})
		if up[1] < float32(math.Cos(20*math.Pi/180)) {
			fallen++
		}
	}
	return fallen
}

// TestDominoesFallAsleepOrNot: ten dominoes pushed slowly all fall, with
// sleeping on as with it off. The first domino passes over its edge at
// under 0.1 rad/s; measured by speed and turn rate alone (0.2 m/s, 0.3
// rad/s) it was calm for 0.5 s and froze mid-fall, and none fell.
func TestDominoesFallAsleepOrNot(t *testing.T) {
	off := DefaultConfig()
	off.NoSleep = true
	for _, c := range []struct {
		name string
		cfg  Config
	}{{"sleeping on", DefaultConfig()}, {"sleeping off", off}} {
		if n := fallenDominoes(t, c.cfg); n != 10 {
			t.Errorf("%s: %d of 10 dominoes fell", c.name, n)
		}
	}
}

// TestBounceOffSleepingBall: a ball at 1.1 m/s (above
// Config.RestitutionThreshold, below the speed that crosses the
// speculative distance in one step) hits a ball of equal mass that rests
// asleep on the floor, everything frictionless with restitution 1: the
// sleeper wakes and leaves at 1.1 m/s, the other stops, as Rapier 0.21
// and Jolt 1.1 give on the same scene (1.1 and 0 in both). Before the
// sleeper woke on the speculative contact, the ball bounced back off it.
func TestBounceOffSleepingBall(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0, 1)
	d := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.5})
	d.Friction, d.Restitution = 0, 1
	b := tw.add(d, mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(60)
	if !tw.s.Asleep(b) {
		t.Fatal("the resting ball is not asleep after 1 s")
	}
	a := tw.add(d, mgl32.Vec3{-2, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{1.1, 0, 0}, mgl32.Vec3{})
	tw.steps(90)
	va, vb := tw.vel(a)[0], tw.vel(b)[0]
	if abs(va) > 0.03 || abs(vb-1.1) > 0.03 {
		t.Errorf("velocities after the hit: %v and %v m/s; want 0 and 1.1", va, vb)
	}
}
