package physics

import (
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// TestCCD: a small ball at 300 m/s stops at a 0.2 m wall when it has CCD,
// and passes through it without.
func TestCCD(t *testing.T) {
	for _, ccd := range []bool{true, false} {
		tw := newTestWorld(t, zeroG())
		wall := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.1, 5, 5}})
		tw.add(wall, mgl32.Vec3{10, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		d := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.1})
		d.CCD = ccd
		ball := tw.add(d, mgl32.Vec3{0, 0, 0}, mgl32.QuatIdent(), mgl32.Vec3{300, 0, 0}, mgl32.Vec3{})
		tw.steps(10)
		x := tw.pos(ball)[0]
		if ccd && x > 9.9+1e-3 {
			t.Errorf("with CCD the ball is at x = %v, beyond the wall's face at 9.9", x)
		}
		if !ccd && x < 10.1 {
			t.Errorf("without CCD the ball is at x = %v; expected it to tunnel (if it no longer does, make this test say so)", x)
		}
	}
}

// TestKinematicWakes: a moving kinematic body that reaches a sleeping
// body wakes it and pushes it.
func TestKinematicWakes(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	box := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(60)
	if !tw.s.Asleep(box) {
		t.Fatal("the box does not sleep")
	}
	k := tw.add(NewBodyDef(Kinematic, unitBox), mgl32.Vec3{-3, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{2, 0, 0}, mgl32.Vec3{})
	tw.steps(120)
	if x := tw.pos(box)[0]; x < 0.9 {
		t.Errorf("the box was not pushed: x = %v (kinematic at %v)", x, tw.pos(k))
	}
}

// TestAttach: the Space steps in the engine's Physics stage, and the
// Collision stage sees the step's events.
func TestAttach(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.TickRate = 0
	s, err := Attach(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Config().TickRate; got != e.TickRate() {
		t.Errorf("tick rate %d, want the engine's %d", got, e.TickRate())
	}
	ground := e.World.Spawn(geomAt(mgl32.Vec3{0, -0.5, 0}), engine.Interpolate)
	if err := s.AddBody(ground, NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{5, 0.5, 5}})); err != nil {
		t.Fatal(err)
	}
	ball := e.World.Spawn(geomAt(mgl32.Vec3{0, 1, 0}), engine.Interpolate)
	if err := s.AddBody(ball, NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.5})); err != nil {
		t.Fatal(err)
	}
	begins := 0
	if err := e.AddSystem(engine.StageCollision, "count", func(*engine.FixedContext) {
		for _, ev := range s.Events() {
			if ev.Kind == Begin && ev.A == ground && ev.B == ball {
				begins++
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		if !e.StepTick(time.Duration(i) * time.Second / 60) {
			t.Fatal(e.Err())
		}
	}
	if begins != 1 {
		t.Errorf("%d begin events, want 1", begins)
	}
	if y := e.World.Bodies().Pos[ball.Index()][1]; y > 0.51 || y < 0.49 {
		t.Errorf("ball at y = %v, want 0.5", y)
	}
	cfg.TickRate = 30
	e2, _ := engine.New(engine.DefaultConfig())
	if _, err := Attach(e2, cfg); err == nil {
		t.Errorf("Attach with another tick rate than the engine's")
	}
}

// TestRemovedSupportWakes: when the body under a sleeping body goes away,
// the sleeper wakes and falls.
func TestRemovedSupportWakes(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	low := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	top := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0, 1.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(90)
	if !tw.s.Asleep(low) || !tw.s.Asleep(top) {
		t.Fatal("the stack does not sleep")
	}
	tw.s.RemoveBody(low)
	tw.w.Despawn(low)
	tw.steps(60)
	if y := tw.pos(top)[1]; y > 0.51 {
		t.Errorf("the top box stays up at y = %v", y)
	}
}
