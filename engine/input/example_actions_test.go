package input_test

import (
	"fmt"
	"strings"

	"github.com/nebulaengine/nebula/engine/input"
)

// A game declares its actions in order and binds them; the Queue that
// makes the local player's Samples resolves them, and the game's fixed
// systems ask the Sample about actions, not keys or buttons.
func ExampleActions() {
	const (
		Jump input.Action = iota
		MoveX
	)
	actions, err := input.NewActions("jump", "move-x")
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = actions.Bind(Jump, input.KeyBinding(input.KeySpace))
	_ = actions.Bind(Jump, input.PadButtonBinding(input.PadA))
	_ = actions.Bind(MoveX, input.KeyBinding(input.KeyArrowLeft).WithScale(-1))
	_ = actions.Bind(MoveX, input.KeyBinding(input.KeyArrowRight))
	_ = actions.Bind(MoveX, input.PadAxisBinding(input.PadLeftX))

	var q input.Queue
	q.SetActions(actions)

	// Tick 1: the player presses A on a gamepad and pushes the stick
	// half right. Tick 2: the stick is back and Left arrow is held.
	q.Push(input.Event{Kind: input.PadConnected, Pad: 0})
	q.Push(input.Event{Kind: input.PadButtonDown, Pad: 0, PadButton: input.PadA})
	q.Push(input.Event{Kind: input.PadAxisMove, Pad: 0, Axis: input.PadLeftX, X: 0.5})
	s := q.Advance(0)
	fmt.Printf("tick 1: jump pressed %v, move-x %.3f\n", s.ActionPressed(Jump), s.ActionValue(MoveX))

	q.Push(input.Event{Kind: input.PadAxisMove, Pad: 0, Axis: input.PadLeftX, X: 0})
	q.Push(input.Event{Kind: input.KeyDown, Key: input.KeyArrowLeft})
	s = q.Advance(0)
	fmt.Printf("tick 2: jump held %v, pressed %v, move-x %.3f\n", s.Action(Jump), s.ActionPressed(Jump), s.ActionValue(MoveX))
	// Output:
	// tick 1: jump pressed true, move-x 0.500
	// tick 2: jump held true, pressed false, move-x -1.000
}

// Bindings load from a small text file, one binding a line; a fault is
// refused with its line number.
func ExampleActions_LoadBindings() {
	actions, _ := input.NewActions("jump", "fire", "move-x")
	err := actions.LoadBindings(strings.NewReader(`
# ACTION SOURCE NAME [scale=S] [threshold=T] [pad=P]
jump    key     Space
jump    button  A
fire    axis    RightTrigger threshold=0.3
move-x  key     ArrowLeft    scale=-1
move-x  axis    LeftX
`))
	fmt.Println(err)
	jump, _ := actions.Lookup("jump")
	fmt.Println(actions.Bindings(jump))

	err = actions.LoadBindings(strings.NewReader("jump key Space\nfire key Spcae\n"))
	fmt.Println(err)
	// Output:
	// <nil>
	// [key Space button A]
	// input: bindings line 2: fire: key "Spcae": no such key
}
