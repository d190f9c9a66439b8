package scene

import (
	"fmt"
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/detmath"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/ragdoll"
)

// The figure's ragdoll in the physics mode, in one place.
const (
	// FallFor is how long the figure lies as a ragdoll after a shot
	// knocks it down, before it stands up.
	FallFor = 3 * time.Second
	// StandFor is how long it takes to stand up: the blend from the
	// ragdoll's pose back to walking.
	StandFor = 500 * time.Millisecond
	// KnockSpeed is the speed, m/s, a shot gives the body part it hits,
	// away from the shot.
	KnockSpeed = 8
	// figureDensity is the density of the figure's bodies, kg/m³: a 7 m
	// figure of about 1.3 t.
	figureDensity = 100
)

// setupRagdoll gives the figure its ragdoll (package ragdoll, from its
// model's skin by the default mapping, with hitboxes that follow its walk
// so that shots hit it) and adds the systems that move the hitboxes
// (before the physics step) and knock the figure down when a shot hits it
// and stand it up FallFor later (after the step, from its contact events).
func (s *Scene) setupRagdoll(e *engine.Engine) error {
	m, err := FigureModel()
	if err != nil {
		return err
	}
	d, err := ragdoll.Build(m, ragdoll.DefaultMapping(m))
	if err != nil {
		return fmt.Errorf("scene: %w", err)
	}
	s.Ragdolls = ragdoll.New(s.Space, s.Anim)
	o := ragdoll.DefaultOptions()
	o.Density, o.Friction, o.Hitboxes = figureDensity, BodyFriction, true
	if err := s.Ragdolls.SetDef(MeshFigure, d, o); err != nil {
		return fmt.Errorf("scene: %w", err)
	}
	if err := s.Ragdolls.Add(s.Figure); err != nil {
		return fmt.Errorf("scene: %w", err)
	}
	for _, err := range []error{
		e.AddSystem(stageKinematic, "ragdoll", s.Ragdolls.Update),
		e.AddSystem(engine.StageCollision, "knock down", s.knockDown),
	} {
		if err != nil {
			return fmt.Errorf("scene: %w", err)
		}
	}
	return nil
}

// figureDown reports whether the figure is down or standing up (its
// ragdoll Falling or Blending): it does not walk then.
func (s *Scene) figureDown() bool {
	if s.Ragdolls == nil {
		return false
	}
	ph, ok := s.Ragdolls.Phase(s.Figure)
	return ok && ph != ragdoll.Animated
}

// knockDown makes the figure fall as a ragdoll when a shot begins to
// touch one of its hitboxes, the part hit knocked away from the shot at
// KnockSpeed, and stands it up FallFor later where it lies (along its
// walk), walking on.
func (s *Scene) knockDown(c *engine.FixedContext) {
	w := c.World
	rd, ok := s.Ragdolls.Component().Get(s.Figure)
	if !ok {
		return
	}
	if rd.Phase == ragdoll.Falling {
		if rd.Ticks >= ticksOf(FallFor, c.DT) {
			s.standUp(w, rd, c.DT)
		}
		return
	}
	for _, ev := range s.Space.Events() {
		shot, part := ev.A, ev.B
		if !s.Shots.Has(shot) {
			shot, part = part, shot
		}
		if ev.Kind != physics.Begin || !s.Shots.Has(shot) {
			continue
		}
		if owner, i, ok := s.Ragdolls.Owner(part); !ok || owner != s.Figure || i >= ragdoll.MaxParts {
			continue
		}
		if err := s.Ragdolls.Start(s.Figure); err != nil {
			panic(fmt.Sprintf("scene: the figure's ragdoll: %v", err)) // a bug: the ragdoll is fixed
		}
		away := w.Transform(part).Pos.Sub(w.Transform(shot).Pos)
		away[1] = 0
		if l := detmath.Dot(away, away); l > 1e-6 {
			away = away.Mul(1 / detmath.Sqrt(l))
		}
		if b, ok := s.Space.Body(part); ok {
			_ = s.Space.ApplyImpulse(part, away.Mul(float32(KnockSpeed*b.Mass))) // a dynamic body now: no error
		}
		return
	}
}

// standUp stands the figure up where its ragdoll lies: the figure moves
// to the ragdoll's root body along its walk (x, within the walk's range),
// faces the way it walks, and blends from the ragdoll's pose back to its
// walk over StandFor.
func (s *Scene) standUp(w *engine.World, rd ragdoll.Ragdoll, dt float32) {
	st := s.Walk.Ptr(s.Figure)
	t := w.Transform(s.Figure)
	t.Pos[0] = min(max(w.Transform(rd.Bodies[0]).Pos[0], -FigureRange), FigureRange)
	t.Rot = detmath.AxisAngle(mgl32.Vec3{0, 1, 0}, float64(st.Dir)*math.Pi/2)
	w.Teleport(s.Figure, t)
	st.Phase, st.Left = figureWalk, 0
	s.Anim.Play(s.Figure, ClipWalk, true)
	if err := s.Ragdolls.StandUp(s.Figure, ticksOf(StandFor, dt)); err != nil {
		panic(fmt.Sprintf("scene: the figure's ragdoll: %v", err)) // a bug: it is falling
	}
}
