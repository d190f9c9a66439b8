package platform

import (
	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/nebulaengine/nebula/engine/input"
)

// keyPairs lists every GLFW key the engine knows, once: the tables that
// translate in both directions are built from it. GLFW's key codes name
// physical keys after the US layout; keys missing here reach nobody.
var keyPairs = [...]struct {
	glfw   glfw.Key
	engine input.Key
}{
	{glfw.KeyA, input.KeyA}, {glfw.KeyB, input.KeyB}, {glfw.KeyC, input.KeyC},
	{glfw.KeyD, input.KeyD}, {glfw.KeyE, input.KeyE}, {glfw.KeyF, input.KeyF},
	{glfw.KeyG, input.KeyG}, {glfw.KeyH, input.KeyH}, {glfw.KeyI, input.KeyI},
	{glfw.KeyJ, input.KeyJ}, {glfw.KeyK, input.KeyK}, {glfw.KeyL, input.KeyL},
	{glfw.KeyM, input.KeyM}, {glfw.KeyN, input.KeyN}, {glfw.KeyO, input.KeyO},
	{glfw.KeyP, input.KeyP}, {glfw.KeyQ, input.KeyQ}, {glfw.KeyR, input.KeyR},
	{glfw.KeyS, input.KeyS}, {glfw.KeyT, input.KeyT}, {glfw.KeyU, input.KeyU},
	{glfw.KeyV, input.KeyV}, {glfw.KeyW, input.KeyW}, {glfw.KeyX, input.KeyX},
	{glfw.KeyY, input.KeyY}, {glfw.KeyZ, input.KeyZ},

	{glfw.Key0, input.Key0}, {glfw.Key1, input.Key1}, {glfw.Key2, input.Key2},
	{glfw.Key3, input.Key3}, {glfw.Key4, input.Key4}, {glfw.Key5, input.Key5},
	{glfw.Key6, input.Key6}, {glfw.Key7, input.Key7}, {glfw.Key8, input.Key8},
	{glfw.Key9, input.Key9},

	{glfw.KeySpace, input.KeySpace},
	{glfw.KeyEnter, input.KeyEnter},
	{glfw.KeyEscape, input.KeyEscape},
	{glfw.KeyTab, input.KeyTab},
	{glfw.KeyBackspace, input.KeyBackspace},

	{glfw.KeyLeft, input.KeyArrowLeft},
	{glfw.KeyRight, input.KeyArrowRight},
	{glfw.KeyUp, input.KeyArrowUp},
	{glfw.KeyDown, input.KeyArrowDown},

	{glfw.KeyLeftShift, input.KeyLeftShift},
	{glfw.KeyRightShift, input.KeyRightShift},
	{glfw.KeyLeftControl, input.KeyLeftCtrl},
	{glfw.KeyRightControl, input.KeyRightCtrl},
	{glfw.KeyLeftAlt, input.KeyLeftAlt},
	{glfw.KeyRightAlt, input.KeyRightAlt},

	{glfw.KeyF1, input.KeyF1}, {glfw.KeyF2, input.KeyF2}, {glfw.KeyF3, input.KeyF3},
	{glfw.KeyF4, input.KeyF4}, {glfw.KeyF5, input.KeyF5}, {glfw.KeyF6, input.KeyF6},
	{glfw.KeyF7, input.KeyF7}, {glfw.KeyF8, input.KeyF8}, {glfw.KeyF9, input.KeyF9},
	{glfw.KeyF10, input.KeyF10}, {glfw.KeyF11, input.KeyF11}, {glfw.KeyF12, input.KeyF12},

	{glfw.KeyLeftBracket, input.KeyLeftBracket},
	{glfw.KeyRightBracket, input.KeyRightBracket},
	{glfw.KeyMinus, input.KeyMinus},
	{glfw.KeyEqual, input.KeyEqual},
}

var (
	// fromGLFW translates GLFW key codes (0 to glfw.KeyLast) to Keys;
	// unlisted codes stay KeyUnknown.
	fromGLFW [glfw.KeyLast + 1]input.Key
	// toGLFW translates Keys back, for Window.KeyHeld; KeyUnknown maps to
	// glfw.KeyUnknown.
	toGLFW [input.KeyCount]glfw.Key
)

func init() {
	for i := range toGLFW {
		toGLFW[i] = glfw.KeyUnknown
	}
	for _, p := range keyPairs {
		fromGLFW[p.glfw] = p.engine
		toGLFW[p.engine] = p.glfw
	}
}

// engineKey returns the engine's name for a GLFW key code, or
// input.KeyUnknown for a key the engine does not know (glfw.KeyUnknown, the
// keypad, media keys, out-of-range codes).
func engineKey(k glfw.Key) input.Key {
	if k < 0 || k > glfw.KeyLast {
		return input.KeyUnknown
	}
	return fromGLFW[k]
}

// glfwKey returns the GLFW key code of an engine key, or glfw.KeyUnknown for
// input.KeyUnknown and values out of range.
func glfwKey(k input.Key) glfw.Key {
	if k >= input.KeyCount {
		return glfw.KeyUnknown
	}
	return toGLFW[k]
}

// engineButton returns the engine's name for a GLFW mouse button. The
// numbers are the same (see input.MouseButton); ok is false for a button
// out of the engine's range.
func engineButton(b glfw.MouseButton) (input.MouseButton, bool) {
	if b < 0 || int(b) >= int(input.MouseButtonCount) {
		return 0, false
	}
	return input.MouseButton(b), true
}
