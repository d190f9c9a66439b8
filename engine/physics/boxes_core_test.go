package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

var unitBox = Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}}

// floor adds a static box whose top face is at y = 0.
func (tw *testWorld) floor(friction, restitution float32) engine.Entity {
	d := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{20, 0.5, 20}})
	d.Friction, d.Restitution = friction, restitution
	return tw.add(d, mgl32.Vec3{0, -0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
}

// TestRestingBox: a box on the floor drifts less than 1 mm in 10 s and
// falls asleep.
func TestRestingBox(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	box := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	start := tw.pos(box)
	asleepAt := -1
	for i := range 600 {
		tw.s.Step()
		if asleepAt < 0 && tw.s.Asleep(box) {
			asleepAt = i
		}
	}
	if d := tw.pos(box).Sub(start).Len(); d > 1e-3 {
		t.Errorf("drifted %v m in 10 s (at %v)", d, tw.pos(box))
	}
	if asleepAt < 0 {
		t.Errorf("not asleep after 10 s")
	}
	t.Logf("asleep at step %d, sinks %v m", asleepAt, start[1]-tw.pos(box)[1])
}

// TestStack: ten boxes resting on one another stand for 600 steps.
func TestStack(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	var boxes []engine.Entity
	for i := range 10 {
		boxes = append(boxes, tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 0.5 + float32(i), 0},
			mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{}))
	}
	tw.steps(600)
	for i, b := range boxes {
		p := tw.pos(b)
		if dx := math.Hypot(float64(p[0]), float64(p[2])); dx > 0.01 {
			t.Errorf("box %d is %v m off the axis (%v)", i, dx, p)
		}
		if dy := math.Abs(float64(p[1] - (0.5 + float32(i)))); dy > 0.05 {
			t.Errorf("box %d is %v m off its height (%v)", i, dy, p)
		}
	}
	top := tw.pos(boxes[9])
	t.Logf("top at %v, asleep %v", top, tw.s.Asleep(boxes[9]))
}

// TestSlidingBox: a box sliding at v on a floor with friction μ stops
// after v²/(2μg).
func TestSlidingBox(t *testing.T) {
	const v, mu, g = 5, 0.5, 9.81
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(mu, 0)
	d := NewBodyDef(Dynamic, unitBox)
	d.Friction = mu
	box := tw.add(d, mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{v, 0, 0}, mgl32.Vec3{})
	tw.steps(120)
	want := v * v / (2 * mu * g)
	got := float64(tw.pos(box)[0])
	if math.Abs(got-want) > 0.03*want {
		t.Errorf("slid %v m, want %v", got, want)
	}
	if s := tw.vel(box).Len(); s > 1e-3 {
		t.Errorf("still moving at %v m/s", s)
	}
}

// TestSlope: a box on a slope steeper than its friction angle slides down
// it, one on a gentler slope stays.
func TestSlope(t *testing.T) {
	// The slope's rotation about z by θ, with tan θ = 3/4 (sin 0.6, cos
	// 0.8): friction angle of μ = 0.5 is 26.6°, θ is 36.9°.
	// A rotation by θ about z is (0, 0, sin θ/2, cos θ/2); sin θ/2 =
	// sqrt((1-cos θ)/2) = sqrt(0.1), cos θ/2 = sqrt(0.9).
	s2, c2 := float32(math.Sqrt(0.1)), float32(math.Sqrt(0.9))
	rot := mgl32.Quat{W: c2, V: mgl32.Vec3{0, 0, s2}}
	normal := rot.Rotate(mgl32.Vec3{0, 1, 0})
	for _, c := range []struct {
		mu    float32
		slide bool
	}{{0.5, true}, {0.9, false}} {
		tw := newTestWorld(t, DefaultConfig())
		sd := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{20, 0.5, 20}})
		sd.Friction = c.mu
		tw.add(sd, normal.Mul(-0.5), rot, mgl32.Vec3{}, mgl32.Vec3{})
		d := NewBodyDef(Dynamic, unitBox)
		d.Friction = c.mu
		box := tw.add(d, normal.Mul(0.5), rot, mgl32.Vec3{}, mgl32.Vec3{})
		tw.steps(120)
		p := tw.pos(box)
		moved := p.Sub(normal.Mul(0.5)).Len()
		// Sliding: a = g (sin θ - μ cos θ) = 9.81 (0.6 - 0.4) for 2 s: 3.9 m.
		if c.slide {
			want := 0.5 * 9.81 * (0.6 - 0.8*float64(c.mu)) * 4
			if math.Abs(float64(moved)-want) > 0.05*want {
				t.Errorf("μ = %v: slid %v m, want %v", c.mu, moved, want)
			}
		} else if moved > 0.01 {
			t.Errorf("μ = %v: moved %v m, want it to stay", c.mu, moved)
		}
	}
}
