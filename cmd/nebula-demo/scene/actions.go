package scene

import (
	"strings"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/input"
)

// The demo's actions, in the order NewActions declares them. A player cube
// moves with the arrow keys and Space recolours it, as always; the actions
// add a gamepad (or whatever the player binds them to): MoveX and MoveZ
// move the cube across and along the floor, Recolour recolours it.
const (
	ActionMoveX input.Action = iota
	ActionMoveZ
	ActionRecolour
)

// ActionNames are the demo's action names, as a bindings file spells them.
var ActionNames = []string{"move-x", "move-z", "recolour"}

// DefaultBindings are the demo's bindings, in the bindings file's format:
// a gamepad's left stick and d-pad move the cube, A recolours it. The keys
// are not bound: the cube reads the arrow keys and Space itself, so that
// a run without a gamepad is the run it always was.
const DefaultBindings = `move-x   axis   LeftX
move-x   button DPadLeft  scale=-1
move-x   button DPadRight
move-z   axis   LeftY
move-z   button DPadUp    scale=-1
move-z   button DPadDown
recolour button A
`

// NewActions returns the demo's actions with the DefaultBindings. Give
// them to the Queue of the local player's input (input.Queue.SetActions);
// a bindings file (Actions.LoadBindings) changes them.
func NewActions() *input.Actions {
	a, err := input.NewActions(ActionNames...)
	if err == nil {
		err = a.LoadBindings(strings.NewReader(DefaultBindings))
	}
	if err != nil {
		panic("scene: the demo's own actions: " + err.Error()) // a bug in this file
	}
	return a
}

// padSteer adds the MoveX and MoveZ actions to a player cube's velocity v
// from the keys, each axis clamped to PlayerSpeed. An action at 0 changes
// nothing, so a run without a gamepad moves exactly as before.
func padSteer(in *input.Sample, v *mgl32.Vec3) {
	for _, m := range [...]struct {
		act  input.Action
		axis int
	}{{ActionMoveX, 0}, {ActionMoveZ, 2}} {
		if x := in.ActionValue(m.act); x != 0 {
			v[m.axis] = max(min(float32(PlayerSpeed*x)+v[m.axis], PlayerSpeed), -PlayerSpeed)
		}
	}
}
