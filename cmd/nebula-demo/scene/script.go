package scene

import (
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
)

// ScriptPeriod is the length of the headless input script in ticks; it
// repeats.
const ScriptPeriod = 480

// scriptHeld lists which arrow key the script holds over which ticks of
// its period, [from, to).
var scriptHeld = [...]struct {
	key      input.Key
	from, to uint64
}{
	{input.KeyArrowRight, 0, 90},
	{input.KeyArrowUp, 60, 200},
	{input.KeyArrowLeft, 240, 330},
	{input.KeyArrowDown, 300, 420},
}

// Script is the headless demo's player: a deterministic input script keyed
// by tick, so a headless run is a pure function of its flags. It holds the
// arrow keys over fixed spans of a 480-tick period, taps Space every 150
// ticks (down on one tick, up on the next) and, every 700 ticks, presses and
// releases Space within a single tick. Events are stamped with the tick's
// due time, so exactly that tick sees them.
func Script(tick uint64, due time.Duration, in *input.Queue) {
	k := tick % ScriptPeriod
	for _, h := range scriptHeld {
		switch k {
		case h.from:
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: h.key})
		case h.to:
			in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: h.key})
		}
	}
	switch {
	case tick%700 == 0:
		in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeySpace})
		in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeySpace})
	case tick%150 == 0:
		in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeySpace})
	case tick%150 == 1:
		in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeySpace})
	}
}

// PlayerScriptShift is how many ticks each player's script runs ahead of
// the previous player's, so that the players of a headless match press
// different keys at the same tick. It is prime to ScriptPeriod, 700 and
// 150, so no two of the first MaxPlayers players share a script.
const PlayerScriptShift = 97

// PlayerScript returns the input script of player p in a headless
// multiplayer run: Script shifted by p*PlayerScriptShift ticks. Player 0's
// is Script itself. Like Script it is a pure function of the tick, so a
// match between headless clients is a pure function of their flags.
func PlayerScript(p engine.PlayerID) func(tick uint64, due time.Duration, in *input.Queue) {
	shift := uint64(p) * PlayerScriptShift
	return func(tick uint64, due time.Duration, in *input.Queue) { Script(tick+shift, due, in) }
}

// FireEvery is how often the physics mode's headless script fires, in
// ticks.
const FireEvery = 45

// PhysicsPlayerScript is PlayerScript for the physics mode
// (SetupPhysics): the same keys, and KeyFire tapped every FireEvery ticks
// (down on one tick, up on the next), so a headless match shoots.
func PhysicsPlayerScript(p engine.PlayerID) func(tick uint64, due time.Duration, in *input.Queue) {
	shift := uint64(p) * PlayerScriptShift
	return func(tick uint64, due time.Duration, in *input.Queue) {
		Script(tick+shift, due, in)
		switch (tick + shift) % FireEvery {
		case 0:
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: KeyFire})
		case 1:
			in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: KeyFire})
		}
	}
}
