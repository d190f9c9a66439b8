package rollback_test

import (
	"fmt"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/rollback"
)

// delayedSource confirms each tick two ticks late (a network would), with
// player 1 holding the right arrow from tick 10 on, which the predictions
// learn two ticks late.
type delayedSource struct{ now uint64 }

func (s *delayedSource) Sync() bool { return false }

func (s *delayedSource) Confirmed(tick uint64, p *engine.Players) bool {
	if tick+2 > s.now {
		return false
	}
	if tick == 1 {
		p.Join(0)
		p.Join(1)
	}
	if tick >= 10 {
		p.SetInput(1, keys(true))
	}
	return true
}

func (s *delayedSource) Local(uint64) (engine.PlayerID, input.Sample, bool) {
	return 0, input.Sample{}, true
}

// A rollback session runs ahead of the confirmed ticks and corrects
// itself when they differ from its predictions. Here a driver steps it by
// hand; in a window, the engine's frames do.
func ExampleNew() {
	e, _ := engine.New(engine.DefaultConfig())
	src := &delayedSource{}
	cfg := rollback.DefaultConfig()
	confirmed := 0
	cfg.Confirmed = func(tick, hash uint64, st *engine.State) { confirmed++ }
	r, err := rollback.New(e, src, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	for e.World.Tick() < 20 {
		src.now++
		r.StartFrame() // takes the confirmed ticks, rolls back if needed
		e.StepTick(engine.TickTime(e.World.Tick()+1, 60))
	}
	st := r.Stats()
	fmt.Println("at tick", e.World.Tick(), "confirmed up to", r.Confirmed(), "reported", confirmed)
	fmt.Println("rollbacks", st.Rollbacks, "ticks simulated again", st.Resimulated)
	// Two corrections: the players joining at tick 1, and player 1's key
	// at tick 10, each learnt two ticks late.

	// Output:
	// at tick 20 confirmed up to 18 reported 18
	// rollbacks 2 ticks simulated again 4
}
