package physics

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// TestRestTime: a calm step adds its length to a body's rest time and
// gives the island that time; a step that is not calm takes twice its
// length off (down to 0) and gives the island 0.
func TestRestTime(t *testing.T) {
	const dt = float32(0.25)
	for _, c := range []struct {
		t            float32
		calm         bool
		rest, island float32
	}{
		{0, true, 0.25, 0.25},
		{1, true, 1.25, 1.25},
		{1, false, 0.5, 0},
		{0.25, false, 0, 0},
		{0, false, 0, 0},
	} {
		if rest, island := restTime(c.t, dt, c.calm); rest != c.rest || island != c.island {
			t.Errorf("restTime(%v, %v, %v) = %v, %v; want %v, %v", c.t, dt, c.calm, rest, island, c.rest, c.island)
		}
	}
}

// TestSlowSlideStaysAwake: a box gliding without friction a little faster
// than steady motion may be and stay calm (2·Config.SleepLinearSpeed,
// since sleepSpeed takes half the rate a body moved) never falls asleep,
// and keeps its speed.
func TestSlowSlideStaysAwake(t *testing.T) {
	cfg := DefaultConfig()
	tw := newTestWorld(t, cfg)
	tw.floor(0, 0)
	d := NewBodyDef(Dynamic, unitBox)
	d.Friction = 0
	v := float32(1.5 * 2 * cfg.SleepLinearSpeed)
	box := tw.add(d, mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{v, 0, 0}, mgl32.Vec3{})
	for i := range 600 {
		tw.s.Step()
		if tw.s.Asleep(box) {
			t.Fatalf("asleep at step %d, moving at %v", i, tw.vel(box))
		}
	}
	if got := tw.vel(box)[0]; got < 0.99*v {
		t.Errorf("slowed to %v m/s from %v", got, v)
	}
}

// TestThrownAfterRestStaysAwake: a box that has rested almost long enough
// to sleep and is then thrown up does not fall asleep in the air: its
// rest time runs down, and its island may not sleep while it moves.
func TestThrownAfterRestStaysAwake(t *testing.T) {
	cfg := DefaultConfig()
	tw := newTestWorld(t, cfg)
	tw.floor(0.5, 0)
	box := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(int(cfg.TimeToSleep*float32(cfg.TickRate)) - 3)
	if tw.s.Asleep(box) {
		t.Fatal("asleep too soon")
	}
	tw.w.SetDrawVelocity(box, mgl32.Vec3{0, 4, 0}, mgl32.Vec3{})
	top := float32(0)
	for i := range 60 {
		tw.s.Step()
		top = max(top, tw.pos(box)[1])
		if tw.s.Asleep(box) && tw.pos(box)[1] > 0.51 {
			t.Fatalf("asleep in the air at step %d, at %v", i, tw.pos(box))
		}
	}
	if top < 1 {
		t.Errorf("the box rose to %v only", top)
	}
}
