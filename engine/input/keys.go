package input

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Key -trimprefix=Key -output=key_string.go
//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=MouseButton -trimprefix=MouseButton -linecomment -output=mousebutton_string.go

// Key names a keyboard key, independent of the window system: the platform
// layer translates its key codes into Keys, and everything unmapped into
// KeyUnknown. The values are dense, from KeyUnknown (0) to KeyCount-1, so a
// set of keys is a small fixed-size bitset.
//
// The arrow keys are KeyArrowLeft, KeyArrowRight, KeyArrowUp and
// KeyArrowDown; the names KeyDown and KeyUp are the event kinds. A Key's
// String is its constant's name without "Key" ("A", "0", "Space",
// "ArrowUp"), or "Key(n)" for a value that is no constant.
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

// MouseButton names a mouse button. The values match GLFW's button numbers:
// left, right and middle, then the extra buttons 4 to 8. Its String is
// "Left", "Right", "Middle", "Button4" to "Button8", or "MouseButton(n)"
// for a value that is no constant.
type MouseButton uint8

// The mouse buttons.
const (
	MouseButtonLeft MouseButton = iota
	MouseButtonRight
	MouseButtonMiddle
	MouseButton4 // Button4
	MouseButton5 // Button5
	MouseButton6 // Button6
	MouseButton7 // Button7
	MouseButton8 // Button8

	// MouseButtonCount is the number of MouseButtons; it is not a button
	// itself.
	MouseButtonCount
)
