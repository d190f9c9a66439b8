package scene

import (
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
)

// The player cube moves with a gamepad's left stick and d-pad through the
// demo's actions, and X recolours it; the keys still work beside them,
// and the speed stays within PlayerSpeed.
func TestGamepadSteersThePlayer(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	sc := Setup(e, 0)
	e.Input.SetActions(NewActions())
	at := map[uint64]func(due time.Duration, in *input.Queue){
		2: func(due time.Duration, in *input.Queue) {
			in.Push(input.Event{Time: due, Kind: input.PadConnected, Pad: 0})
			in.Push(input.Event{Time: due, Kind: input.PadAxisMove, Pad: 0, Axis: input.PadLeftX, X: 0.5})
		},
		3: func(due time.Duration, in *input.Queue) {
			in.Push(input.Event{Time: due, Kind: input.PadAxisMove, Pad: 0, Axis: input.PadLeftX, X: 0})
			in.Push(input.Event{Time: due, Kind: input.PadButtonDown, Pad: 0, PadButton: input.PadDPadUp})
			in.Push(input.Event{Time: due, Kind: input.PadButtonDown, Pad: 0, PadButton: input.PadX})
		},
		4: func(due time.Duration, in *input.Queue) {
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeyArrowUp})
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeyArrowRight})
		},
	}
	e.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		if f := at[tick]; f != nil {
			f(due, in)
		}
	})
	var vel [5][3]float32
	var colour [5][4]uint8
	e.AddSystem(engine.StageScripts, "look", func(c *engine.FixedContext) {
		v, _ := c.World.DrawVelocity(sc.Player)
		vel[c.Tick] = [3]float32(v)
		colour[c.Tick] = c.World.Bodies().Color[sc.Player.Index()]
	})
	if _, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 60, Ticks: 4}); err != nil {
		t.Fatal(err)
	}
	half := float32(input.QuantizeAxis(0.5)) / input.AxisUnit * PlayerSpeed
	want := [5][3]float32{2: {half, 0, 0}, 3: {0, 0, -PlayerSpeed}, 4: {PlayerSpeed, 0, -PlayerSpeed}}
	if vel != want {
		t.Errorf("velocities at ticks 1 to 4: %v, want %v", vel[1:], want[1:])
	}
	if colour[3] == colour[2] || colour[4] != colour[3] {
		t.Errorf("colours %v: want X to recolour at tick 3 only", colour[1:])
	}
}
