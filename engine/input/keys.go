package input

import "strconv"

// Key names a keyboard key, independent of the window system: the platform
// layer translates its key codes into Keys, and everything unmapped into
// KeyUnknown. The values are dense, from KeyUnknown (0) to KeyCount-1, so a
// set of keys is a small fixed-size bitset.
//
// The arrow keys are KeyArrowLeft, KeyArrowRight, KeyArrowUp and
// KeyArrowDown; the names KeyDown and KeyUp are the event kinds.
type Key uint8

// The keys. Their numeric values are not GLFW's (or anyone's) key codes
// and may change when keys are added; record Keys by value only together
// with the engine version that wrote them.
const (
	KeyUnknown Key = iota

	KeyA
	KeyB
	KeyC
	KeyD
	KeyE
	KeyF
	KeyG
	KeyH
	KeyI
	KeyJ
	KeyK
	KeyL
	KeyM
	KeyN
	KeyO
	KeyP
	KeyQ
	KeyR
	KeyS
	KeyT
	KeyU
	KeyV
	KeyW
	KeyX
	KeyY
	KeyZ

	Key0
	Key1
	Key2
	Key3
	Key4
	Key5
	Key6
	Key7
	Key8
	Key9

	KeySpace
	KeyEnter
	KeyEscape
	KeyTab
	KeyBackspace

	KeyArrowLeft
	KeyArrowRight
	KeyArrowUp
	KeyArrowDown

	KeyLeftShift
	KeyRightShift
	KeyLeftCtrl
	KeyRightCtrl
	KeyLeftAlt
	KeyRightAlt

	KeyF1
	KeyF2
	KeyF3
	KeyF4
	KeyF5
	KeyF6
	KeyF7
	KeyF8
	KeyF9
	KeyF10
	KeyF11
	KeyF12

	KeyLeftBracket
	KeyRightBracket
	KeyMinus
	KeyEqual

	// KeyCount is the number of Keys, KeyUnknown included; it is not a
	// key itself. Range over it to visit every key:
	//
	//	for k := range input.KeyCount { ... }
	KeyCount
)

// keyNames holds each key's name: its constant's name without "Key".
var keyNames = [KeyCount]string{
	KeyUnknown: "Unknown",

	KeyA: "A", KeyB: "B", KeyC: "C", KeyD: "D", KeyE: "E", KeyF: "F", KeyG: "G",
	KeyH: "H", KeyI: "I", KeyJ: "J", KeyK: "K", KeyL: "L", KeyM: "M", KeyN: "N",
	KeyO: "O", KeyP: "P", KeyQ: "Q", KeyR: "R", KeyS: "S", KeyT: "T", KeyU: "U",
	KeyV: "V", KeyW: "W", KeyX: "X", KeyY: "Y", KeyZ: "Z",
	Key0: "0", Key1: "1", Key2: "2", Key3: "3", Key4: "4",
	Key5: "5", Key6: "6", Key7: "7", Key8: "8", Key9: "9",
	KeyF1: "F1", KeyF2: "F2", KeyF3: "F3", KeyF4: "F4", KeyF5: "F5", KeyF6: "F6",
	KeyF7: "F7", KeyF8: "F8", KeyF9: "F9", KeyF10: "F10", KeyF11: "F11", KeyF12: "F12",

	KeySpace:        "Space",
	KeyEnter:        "Enter",
	KeyEscape:       "Escape",
	KeyTab:          "Tab",
	KeyBackspace:    "Backspace",
	KeyArrowLeft:    "ArrowLeft",
	KeyArrowRight:   "ArrowRight",
	KeyArrowUp:      "ArrowUp",
	KeyArrowDown:    "ArrowDown",
	KeyLeftShift:    "LeftShift",
	KeyRightShift:   "RightShift",
	KeyLeftCtrl:     "LeftCtrl",
	KeyRightCtrl:    "RightCtrl",
	KeyLeftAlt:      "LeftAlt",
	KeyRightAlt:     "RightAlt",
	KeyLeftBracket:  "LeftBracket",
	KeyRightBracket: "RightBracket",
	KeyMinus:        "Minus",
	KeyEqual:        "Equal",
}

// String returns the key's name, its constant's name without the "Key"
// prefix ("A", "0", "Space", "ArrowUp", "F1"), or "Key(n)" for a value that
// is not a key.
func (k Key) String() string {
	if k < KeyCount {
		return keyNames[k]
	}
	return "Key(" + strconv.Itoa(int(k)) + ")"
}

// MouseButton names a mouse button. The values match GLFW's button numbers:
// left, right and middle, then the extra buttons 4 to 8.
type MouseButton uint8

// The mouse buttons.
const (
	MouseButtonLeft MouseButton = iota
	MouseButtonRight
	MouseButtonMiddle
	MouseButton4
	MouseButton5
	MouseButton6
	MouseButton7
	MouseButton8

	// MouseButtonCount is the number of MouseButtons; it is not a button
	// itself.
	MouseButtonCount
)

var buttonNames = [MouseButtonCount]string{
	MouseButtonLeft:   "Left",
	MouseButtonRight:  "Right",
	MouseButtonMiddle: "Middle",
	MouseButton4:      "Button4",
	MouseButton5:      "Button5",
	MouseButton6:      "Button6",
	MouseButton7:      "Button7",
	MouseButton8:      "Button8",
}

// String returns the button's name ("Left", "Right", "Middle", "Button4"
// to "Button8"), or "MouseButton(n)" for a value that is not a button.
func (b MouseButton) String() string {
	if b < MouseButtonCount {
		return buttonNames[b]
	}
	return "MouseButton(" + strconv.Itoa(int(b)) + ")"
}
