package wire

import (
	"github.com/nebulaengine/nebula/engine/input"
	"math/rand/v2"
	"testing"
)

func TestNonZeroBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 100000 {
		v := rng.Uint64()
		// Clear some bytes, set some to 0x80 or 0x01, the edge cases.
		for j := range 8 {
			switch rng.IntN(4) {
			case 0:
				v &^= 0xff << (8 * j)
			case 1:
				v = v&^(0xff<<(8*j)) | 0x80<<(8*j)
			case 2:
				v = v&^(0xff<<(8*j)) | 0x01<<(8*j)
			}
		}
		if i < 256 {
			v = uint64(i) * 0x0101010101010101
		}
		var want byte
		for j := range 8 {
			if byte(v>>(8*j)) != 0 {
				want |= 1 << j
			}
		}
		if got := nonZeroBytes(v); got != want {
			t.Fatalf("nonZeroBytes(%#016x) = %08b, want %08b", v, got, want)
		}
	}
}

// An input with a gamepad and actions crosses the wire exactly, with the
// mask's extension; an input of keys alone keeps its two-byte mask, the
// form it had in protocol version 1.
func TestGamepadActionInputRoundTrip(t *testing.T) {
	const jump, moveX input.Action = 0, 1
	acts, err := input.NewActions("jump", "move-x")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct {
		a input.Action
		b input.Binding
	}{{jump, input.PadButtonBinding(input.PadA)}, {moveX, input.PadAxisBinding(input.PadLeftX)}} {
		if err := acts.Bind(b.a, b.b); err != nil {
			t.Fatal(err)
		}
	}
	var q input.Queue
	q.SetActions(acts)
	q.Push(input.Event{Kind: input.KeyDown, Key: input.KeyW})
	q.Advance(0)
	keys := q.Advance(0) // W held, not pressed
	q.Push(input.Event{Kind: input.PadConnected, Pad: 2})
	q.Push(input.Event{Kind: input.PadButtonDown, Pad: 2, PadButton: input.PadA})
	q.Push(input.Event{Kind: input.PadAxisMove, Pad: 2, Axis: input.PadLeftX, X: -0.25})
	pad := q.Advance(1)
	if !pad.ActionPressed(jump) || pad.ActionUnits(moveX) != input.QuantizeAxis(-0.25) {
		t.Fatalf("the sample's actions: jump pressed %v, move-x %d", pad.ActionPressed(jump), pad.ActionUnits(moveX))
	}
	if n := len(appendSample(nil, &keys)); n != 2+2 {
		t.Errorf("one key held: %d bytes, want 4 (mask, byte mask, byte)", n)
	}
	m := &Input{First: 7, Inputs: []input.Sample{keys, pad, {}}}
	frame := AppendMessage(nil, m)
	back, ok := readOne(t, frame, MaxClientMessage).(*Input)
	if !ok || len(back.Inputs) != 3 || back.Inputs[0] != keys || back.Inputs[1] != pad || back.Inputs[2] != (input.Sample{}) {
		t.Fatalf("read back %+v", back)
	}
}
