// Package input turns what a player's devices did into what one fixed tick
// sees, exactly, so that replays, rollback and the network carry input as
// plain values.
//
// The platform layer (internal/platform, for a window) translates device
// codes into Events (Key, MouseButton, cursor and wheel, and gamepads:
// connection, GamepadButton and GamepadAxis) stamped with the loop's clock
// and pushes them into a Queue; each fixed tick takes one Sample from the
// Queue with Advance, holding what was down at the end of the tick and
// what went down or up during it. A Sample is a fixed-size value with no
// pointers: it is copied, compared with ==, and written as SampleWords
// 64-bit words (Sample.Words) by recordings and the wire.
//
// A game reads Samples in its fixed systems (engine.FixedContext.Input,
// engine.Players.Input) and never the devices themselves: that is what
// makes a run a pure function of its inputs.
//
// # Gamepads
//
// A Sample holds up to MaxGamepads (4) gamepads in the standard layout
// (GamepadButton, GamepadAxis): which are connected, their buttons down,
// pressed and released, and their axes as integers from -AxisUnit to
// AxisUnit (Sample.PadAxis returns them as float32 from -1 to 1), so that
// an axis is as exact in a recording as a key. The platform layer applies
// the sticks' dead zone before the axes reach the Queue.
//
// # Actions
//
// A game asks for "jump", not Space or button A. It declares its actions
// once, in order (the i-th name is Action(i)), and the Queue that makes
// the local player's Samples resolves their bindings into every Sample
// (Queue.SetActions):
//
//	const (
//		Jump input.Action = iota
//		MoveX
//	)
//	actions, err := input.NewActions("jump", "move-x")
//	...
//	actions.Bind(Jump, input.KeyBinding(input.KeySpace))
//	actions.Bind(Jump, input.PadButtonBinding(input.PadA))
//	actions.Bind(MoveX, input.PadAxisBinding(input.PadLeftX))
//	queue.SetActions(actions)
//
//	// in a fixed system:
//	if c.Input.ActionPressed(Jump) { ... }
//	x := c.Input.ActionValue(MoveX)
//
// The actions' states and values are part of the Sample, so a recording
// or a remote peer has them exactly as the player's machine resolved them;
// rebinding (Actions.Bind, Actions.LoadBindings) is a local change, not
// simulation state, and takes effect at the next tick.
//
// A game declares its actions once, as an ActionMap in its game
// definition (app.Game.Actions, gameserver.Game.Actions): names, two-axis
// actions and default bindings, from which each of its programs makes its
// Actions (ActionMap.New):
//
//	var Actions = input.ActionMap{
//		Names:    []string{"jump", "move-x", "move-y"},
//		Vectors:  []input.Vector{{X: "move-x", Y: "move-y", Deadzone: 0.2}},
//		Bindings: "jump key Space\nmove-x key D\nmove-x key A scale=-1\nmove-y key W\nmove-y key S scale=-1\n",
//	}
//
// # Two-axis actions
//
// A Vector makes two actions one vector, a move stick or four keys (Godot's
// Input.get_vector): each tick their values are made one vector with a
// radial dead zone and a length of at most 1, in integers, so the result
// is the same bits on every machine; Sample.ActionVector reads it.
//
// # The bindings file
//
// Actions.LoadBindings reads, and Actions.WriteBindings writes, bindings as UTF-8 text,
// one binding a line:
//
//	# comment: from '#' to the end of the line
//	ACTION SOURCE NAME [scale=S] [threshold=T] [pad=P]
//	ACTION none
//
// Fields are separated by spaces or tabs. ACTION is an action's name as
// declared (case matters). SOURCE is key, mouse, button (a gamepad button)
// or axis (a gamepad axis), and NAME the key's, button's or axis's name as
// its String method spells it (Space, ArrowLeft, F1; Left, Button4; A,
// LeftBumper, DPadLeft; LeftX, RightTrigger), in any case. The options
// are those of Binding: scale (a number within [-MaxScale, MaxScale],
// default 1), threshold (axis only, in (0, 1], default 0.5) and pad (button
// and axis only, 0 to MaxGamepads-1, default any gamepad). "ACTION none"
// binds the action to nothing.
//
// The file replaces the bindings of the actions it names, and only
// theirs: an action's first line drops the bindings it had, and every
// line adds one; actions the file does not name keep their bindings.
package input
