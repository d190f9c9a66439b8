package sound

import (
	"bytes"
	"testing"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/sound/mix"
)

// A headless run's mix, rendered by Capture, is the same bytes from run to
// run; and a run whose every frame rolls back and re-runs ticks with the
// same inputs (as a rollback session whose predictions come true)
// renders exactly the mix of a run without rollback: nothing restarted,
// nothing doubled, nothing cut.
func TestCaptureIsSampleExact(t *testing.T) {
	render := func(rollbacks bool) []byte {
		g := newGame(t)
		g.s.sounds[g.bounce-1] = tone("bounce", 440, 0.5)
		g.s.sounds[g.hum-1] = tone("hum", 110, 3)
		if err := g.e.AddSystem(engine.StageScripts, "clatter", func(c *engine.FixedContext) {
			if c.Tick%9 == 0 {
				g.s.Emit(c, Event{Sound: g.bounce, Entity: g.b, Volume: 0.3, Pitch: 1 + float32(c.Tick%5)/10})
			}
		}); err != nil {
			t.Fatal(err)
		}
		m, _ := mix.New(48000)
		g.out.m = m
		capture := NewCapture(m, g.e.TickRate())
		var states [5]engine.State
		for g.e.World.Tick() < 180 {
			tick := g.e.World.Tick()
			g.e.SaveState(&states[tick%5])
			if !g.e.StepTick(engine.TickTime(tick+1, g.e.TickRate())) {
				t.Fatal(g.e.Err())
			}
			if rollbacks && tick >= 4 {
				g.e.LoadState(&states[(tick-3)%5])
				for g.e.World.Tick() < tick+1 {
					if !g.e.StepTick(engine.TickTime(g.e.World.Tick()+1, g.e.TickRate())) {
						t.Fatal(g.e.Err())
					}
				}
			}
			g.s.Reconcile(&engine.FrameContext{World: g.e.World})
			capture.Tick()
		}
		if s := capture.Sound(); s.Frames() != 3*48000 {
			t.Fatalf("%d frames captured over 180 ticks, want %d", s.Frames(), 3*48000)
		}
		return capture.WAV()
	}
	a, b, c := render(false), render(false), render(true)
	if !bytes.Equal(a, b) {
		t.Error("two runs rendered different mixes")
	}
	if !bytes.Equal(a, c) {
		t.Error("the run with rollbacks rendered a different mix from the one without")
	}
	silent := true
	for _, v := range a[44:] {
		if v != 0 {
			silent = false
			break
		}
	}
	if silent {
		t.Error("the mix is silent")
	}
}
