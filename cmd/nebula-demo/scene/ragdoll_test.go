package scene

import (
	"testing"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/ragdoll"
)

// The physics mode's figure: the script's shots hit it as it walks past
// the middle; it falls as a ragdoll (its bodies dynamic, its spine soon
// lying low), lies for FallFor, stands up over StandFor where it fell and
// walks on at FigureSpeed.
func TestShotKnocksTheFigureDown(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s, err := SetupPhysics(e, 200)
	if err != nil {
		t.Fatal(err)
	}
	e.SetInputScript(PhysicsPlayerScript(0))
	dt := float32(e.Loop.DT())
	fall, stand := int(ticksOf(FallFor, dt)), int(ticksOf(StandFor, dt))
	w := e.World
	step := func() {
		if !e.StepTick(0) {
			t.Fatal(e.Err())
		}
	}
	phase := func() ragdoll.Phase {
		ph, ok := s.Ragdolls.Phase(s.Figure)
		if !ok {
			t.Fatal("the figure has no ragdoll")
		}
		return ph
	}
	// Walking until a shot hits it (the script fires every FireEvery
	// ticks towards the middle of the arena, where the figure passes).
	hit := 0
	for tick := 1; tick <= 600 && hit == 0; tick++ {
		step()
		if phase() == ragdoll.Falling {
			hit = tick
		}
	}
	if hit == 0 {
		t.Fatal("no shot hit the figure in 10 s")
	}
	rd, _ := s.Ragdolls.Component().Get(s.Figure)
	standing := w.Transform(rd.Bodies[0]).Pos[1]
	for i := range rd.Count {
		if b, ok := s.Space.Body(rd.Bodies[i]); !ok || b.Kind != physics.Dynamic {
			t.Fatalf("body %d of the fallen figure is not dynamic", i)
		}
	}
	for range fall {
		if ph := phase(); ph != ragdoll.Falling {
			t.Fatalf("%d ticks after the hit the figure is %v, want falling for %d", w.Tick()-uint64(hit), ph, fall)
		}
		step()
	}
	if lying := w.Transform(rd.Bodies[0]).Pos[1]; lying > standing-FigureScale/4 {
		t.Errorf("after %v down the spine is at height %v, standing it was at %v", FallFor, lying, standing)
	}
	for range stand + 1 {
		if ph := phase(); ph != ragdoll.Blending {
			t.Fatalf("%d ticks after the hit the figure is %v, want standing up (blending)", w.Tick()-uint64(hit), ph)
		}
		step()
	}
	if ph := phase(); ph != ragdoll.Animated {
		t.Fatalf("after standing up the figure is %v, want animated", ph)
	}
	x := w.Transform(s.Figure).Pos[0]
	step()
	if dx := w.Transform(s.Figure).Pos[0] - x; dx < FigureSpeed*dt*0.99 || dx > FigureSpeed*dt*1.01 {
		t.Errorf("after standing up the figure moves %v a tick, want %v (walking)", dx, FigureSpeed*dt)
	}
}
