package platform

import (
	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/nebulaengine/nebula/engine"
)

// keyPairs lists every GLFW key the engine knows, once: the tables that
// translate in both directions are built from it. GLFW's key codes name
// physical keys after the US layout; keys missing here reach nobody.
var keyPairs = [...]struct {
	glfw   glfw.Key
	engine engine.Key
}{
	{glfw.KeyA, engine.KeyA}, {glfw.KeyB, engine.KeyB}, {glfw.KeyC, engine.KeyC},
	{glfw.KeyD, engine.KeyD}, {glfw.KeyE, engine.KeyE}, {glfw.KeyF, engine.KeyF},
	{glfw.KeyG, engine.KeyG}, {glfw.KeyH, engine.KeyH}, {glfw.KeyI, engine.KeyI},
	{glfw.KeyJ, engine.KeyJ}, {glfw.KeyK, engine.KeyK}, {glfw.KeyL, engine.KeyL},
	{glfw.KeyM, engine.KeyM}, {glfw.KeyN, engine.KeyN}, {glfw.KeyO, engine.KeyO},
	{glfw.KeyP, engine.KeyP}, {glfw.KeyQ, engine.KeyQ}, {glfw.KeyR, engine.KeyR},
	{glfw.KeyS, engine.KeyS}, {glfw.KeyT, engine.KeyT}, {glfw.KeyU, engine.KeyU},
	{glfw.KeyV, engine.KeyV}, {glfw.KeyW, engine.KeyW}, {glfw.KeyX, engine.KeyX},
	{glfw.KeyY, engine.KeyY}, {glfw.KeyZ, engine.KeyZ},

	{glfw.Key0, engine.Key0}, {glfw.Key1, engine.Key1}, {glfw.Key2, engine.Key2},
	{glfw.Key3, engine.Key3}, {glfw.Key4, engine.Key4}, {glfw.Key5, engine.Key5},
	{glfw.Key6, engine.Key6}, {glfw.Key7, engine.Key7}, {glfw.Key8, engine.Key8},
	{glfw.Key9, engine.Key9},

	{glfw.KeySpace, engine.KeySpace},
	{glfw.KeyEnter, engine.KeyEnter},
	{glfw.KeyEscape, engine.KeyEscape},
	{glfw.KeyTab, engine.KeyTab},
	{glfw.KeyBackspace, engine.KeyBackspace},

	{glfw.KeyLeft, engine.KeyArrowLeft},
	{glfw.KeyRight, engine.KeyArrowRight},
	{glfw.KeyUp, engine.KeyArrowUp},
	{glfw.KeyDown, engine.KeyArrowDown},

	{glfw.KeyLeftShift, engine.KeyLeftShift},
	{glfw.KeyRightShift, engine.KeyRightShift},
	{glfw.KeyLeftControl, engine.KeyLeftCtrl},
	{glfw.KeyRightControl, engine.KeyRightCtrl},
	{glfw.KeyLeftAlt, engine.KeyLeftAlt},
	{glfw.KeyRightAlt, engine.KeyRightAlt},

	{glfw.KeyF1, engine.KeyF1}, {glfw.KeyF2, engine.KeyF2}, {glfw.KeyF3, engine.KeyF3},
	{glfw.KeyF4, engine.KeyF4}, {glfw.KeyF5, engine.KeyF5}, {glfw.KeyF6, engine.KeyF6},
	{glfw.KeyF7, engine.KeyF7}, {glfw.KeyF8, engine.KeyF8}, {glfw.KeyF9, engine.KeyF9},
	{glfw.KeyF10, engine.KeyF10}, {glfw.KeyF11, engine.KeyF11}, {glfw.KeyF12, engine.KeyF12},

	{glfw.KeyLeftBracket, engine.KeyLeftBracket},
	{glfw.KeyRightBracket, engine.KeyRightBracket},
	{glfw.KeyMinus, engine.KeyMinus},
	{glfw.KeyEqual, engine.KeyEqual},
}

var (
	// fromGLFW translates GLFW key codes (0 to glfw.KeyLast) to Keys;
	// unlisted codes stay KeyUnknown.
	fromGLFW [glfw.KeyLast + 1]engine.Key
	// toGLFW translates Keys back, for Window.KeyHeld; KeyUnknown maps to
	// glfw.KeyUnknown.
	toGLFW [engine.KeyCount]glfw.Key
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
// engine.KeyUnknown for a key the engine does not know (glfw.KeyUnknown, the
// keypad, media keys, out-of-range codes).
func engineKey(k glfw.Key) engine.Key {
	if k < 0 || k > glfw.KeyLast {
		return engine.KeyUnknown
	}
	return fromGLFW[k]
}

// glfwKey returns the GLFW key code of an engine key, or glfw.KeyUnknown for
// engine.KeyUnknown and values out of range.
func glfwKey(k engine.Key) glfw.Key {
	if k >= engine.KeyCount {
		return glfw.KeyUnknown
	}
	return toGLFW[k]
}

// engineButton returns the engine's name for a GLFW mouse button. The
// numbers are the same (see engine.MouseButton); ok is false for a button
// out of the engine's range.
func engineButton(b glfw.MouseButton) (engine.MouseButton, bool) {
	if b < 0 || int(b) >= int(engine.MouseButtonCount) {
		return 0, false
	}
	return engine.MouseButton(b), true
}
