package scene

import (
	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/input"
)

// The demo's actions, in the order NewActions declares them. A player cube
// moves with the arrow keys and Space recolours it (in the physics mode,
// Space jumps), as always; the actions add WASD and a gamepad (or whatever
// the player binds them to): MoveX and MoveZ move the cube across and
// along the floor, Recolour recolours it, and Jump makes the physics
// mode's player character jump.
const (
	ActionMoveX input.Action = iota
	ActionMoveZ
	ActionRecolour
	ActionJump
)

// ActionNames are the demo's action names, as a bindings file spells them.
var ActionNames = []string{"move-x", "move-z", "recolour", "jump"}

// DefaultBindings are the demo's bindings, in the bindings file's format:
// WASD, a gamepad's left stick and its d-pad move the cube, X recolours
// it, Space and A jump (in the physics mode). The arrow keys are not
// bound: the cube reads them, and Space, itself, so that a run without
// WASD or a gamepad is the run it always was.
const DefaultBindings = `move-x   key    A         scale=-1
move-x   key    D
move-x   axis   LeftX
move-x   button DPadLeft  scale=-1
move-x   button DPadRight
move-z   key    W         scale=-1
move-z   key    S
move-z   axis   LeftY
move-z   button DPadUp    scale=-1
move-z   button DPadDown
recolour button X
jump     key    Space
jump     button A
`

// Actions is the demo's declaration of its actions, made once: its
// programs (nebula-demo's app.Game, nebula-server's gameserver.Game) take
// it, and each of their runs resolves it into every tick's input: the
// window, the headless script, a match's clients and the server's bots.
// MoveX and MoveZ are one two-axis action (input.Vector): a stick held
// diagonally, or two d-pad buttons, move the cube at PlayerSpeed, not
// faster.
var Actions = input.ActionMap{
	Names:    ActionNames,
	Vectors:  []input.Vector{{X: "move-x", Y: "move-z"}},
	Bindings: DefaultBindings,
}

// NewActions returns the demo's actions (Actions) with the
// DefaultBindings; a bindings file (Actions.LoadBindings) changes them.
// The demo's programs need not call it: they declare Actions.
func NewActions() *input.Actions {
	a, err := Actions.New()
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
