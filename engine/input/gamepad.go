package input

import (
	"math"
)

// MaxGamepads is the number of gamepads a Sample holds, pads 0 to
// MaxGamepads-1. The platform layer gives each gamepad that connects the
// lowest free pad number and frees it when the gamepad disconnects; a
// fifth gamepad connected at once is ignored until a pad is free.
const MaxGamepads = 4

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=GamepadButton,GamepadAxis -trimprefix=Pad -output=gamepad_string.go

// GamepadButton names a button of a gamepad in the standard layout (an
// Xbox-like pad: GLFW's gamepad API and the SDL mapping database map
// every known controller to it). The values match GLFW's gamepad button
// numbers.
type GamepadButton uint8

// The gamepad buttons; String returns a button's constant's name without
// "Pad" ("A", "LeftBumper", "DPadLeft"). On a PlayStation pad, A is Cross, B Circle, X Square
// and Y Triangle.
const (
	PadA GamepadButton = iota
	PadB
	PadX
	PadY
	PadLeftBumper
	PadRightBumper
	PadBack
	PadStart
	PadGuide
	PadLeftThumb
	PadRightThumb
	PadDPadUp
	PadDPadRight
	PadDPadDown
	PadDPadLeft
)

// GamepadButtonCount is the number of GamepadButtons, PadA to PadDPadLeft.
const GamepadButtonCount = 15

var _ = [1]struct{}{}[GamepadButtonCount-1-PadDPadLeft] // PadDPadLeft is the last

// GamepadAxis names an axis of a gamepad in the standard layout. The
// values match GLFW's gamepad axis numbers.
//
// A stick axis goes from -1 to 1: X from left to right, Y from up to down
// (GLFW's convention: pushing a stick up gives a negative Y). A trigger
// axis goes from 0 (released) to 1 (fully pressed); the platform layer
// maps GLFW's -1..1 trigger range onto it.
type GamepadAxis uint8

// The gamepad axes; String returns an axis's constant's name without
// "Pad" ("LeftX", "RightTrigger").
const (
	PadLeftX GamepadAxis = iota
	PadLeftY
	PadRightX
	PadRightY
	PadLeftTrigger
	PadRightTrigger
)

// GamepadAxisCount is the number of GamepadAxes, PadLeftX to
// PadRightTrigger.
const GamepadAxisCount = 6

var _ = [1]struct{}{}[GamepadAxisCount-1-PadRightTrigger] // PadRightTrigger is the last

// AxisUnit is the integer an axis value of 1 is held as. A Sample holds
// every axis, and every action value, as an integer from -AxisUnit to
// AxisUnit (an int16; -32768 is never used), so that it is exact in
// recordings and on the wire: QuantizeAxis turns a value into it, and
// Sample.PadAxis returns float32(q)/AxisUnit.
const AxisUnit = 32767

// QuantizeAxis returns v, clamped to [-1, 1], in units of 1/AxisUnit,
// rounded to the nearest (halves away from zero). NaN gives 0.
func QuantizeAxis(v float64) int16 {
	switch {
	case v != v: // NaN
		return 0
	case v >= 1:
		return AxisUnit
	case v <= -1:
		return -AxisUnit
	}
	return int16(math.Round(v * AxisUnit))
}

// padButtons is a set of GamepadButtons, one bit each.
type padButtons uint16

func (s padButtons) has(b GamepadButton) bool { return b < GamepadButtonCount && s&(1<<b) != 0 }

// A Sample keeps its gamepads and actions in their binary form (see
// Words), ext: PadWords words per pad, then ActionWords words of actions,
// so that Words and SetWords copy them. The layout of a pad's words:
const (
	padMask      = 1<<GamepadButtonCount - 1
	padPressed   = 16 // shift of the pressed buttons in the pad's first word
	padReleased  = 32 // shift of the released buttons
	padConnected = 1 << 48
	extWords     = MaxGamepads*PadWords + ActionWords
	extActions   = MaxGamepads * PadWords // index in ext of the actions' first word
)

func (s *Sample) padDown(p int) padButtons { return padButtons(s.ext[p*PadWords] & padMask) }
func (s *Sample) padPressed(p int) padButtons {
	return padButtons(s.ext[p*PadWords] >> padPressed & padMask)
}
func (s *Sample) padReleased(p int) padButtons {
	return padButtons(s.ext[p*PadWords] >> padReleased & padMask)
}

// padAxis returns axis a of pad p.
func (s *Sample) padAxis(p int, a GamepadAxis) int16 {
	return int16(s.ext[p*PadWords+1+int(a)/4] >> (16 * (a % 4)))
}

// setPadAxis sets axis a of pad p to v.
func (s *Sample) setPadAxis(p int, a GamepadAxis, v int16) {
	w, sh := &s.ext[p*PadWords+1+int(a)/4], 16*(a%4)
	*w = *w&^(0xffff<<sh) | uint64(uint16(v))<<sh
}

// validPad reports whether pad is a pad number of a Sample.
func validPad(pad int) bool { return pad >= 0 && pad < MaxGamepads }

// PadConnected reports whether a gamepad is connected as pad number pad
// (0 to MaxGamepads-1) at the end of the tick.
func (s Sample) PadConnected(pad int) bool {
	return validPad(pad) && s.ext[pad*PadWords]&padConnected != 0
}

// PadDown reports whether button b of gamepad pad is down at the end of
// the tick.
func (s Sample) PadDown(pad int, b GamepadButton) bool {
	return validPad(pad) && s.padDown(pad).has(b)
}

// PadJustPressed reports whether button b of gamepad pad went down during
// the tick. As with keys, a press and release within one tick is
// PadJustPressed and PadJustReleased, and not PadDown.
func (s Sample) PadJustPressed(pad int, b GamepadButton) bool {
	return validPad(pad) && s.padPressed(pad).has(b)
}

// PadJustReleased reports whether button b of gamepad pad went up during
// the tick (a disconnected gamepad's held buttons go up).
func (s Sample) PadJustReleased(pad int, b GamepadButton) bool {
	return validPad(pad) && s.padReleased(pad).has(b)
}

// PadAxis returns axis a of gamepad pad at the end of the tick, from -1 to
// 1 (0 to 1 for a trigger), after the platform layer's dead zone: exactly
// PadAxisUnits(pad, a) / AxisUnit. It is 0 for a gamepad not connected.
func (s Sample) PadAxis(pad int, a GamepadAxis) float32 {
	return float32(s.PadAxisUnits(pad, a)) / AxisUnit
}

// PadAxisUnits returns axis a of gamepad pad as the Sample holds it: an
// integer from -AxisUnit to AxisUnit.
func (s Sample) PadAxisUnits(pad int, a GamepadAxis) int16 {
	if !validPad(pad) || a >= GamepadAxisCount {
		return 0
	}
	return s.padAxis(pad, a)
}
