package platform

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/nebulaengine/nebula/engine/input"
)

// glfwJoysticks is the JoystickSource of a window: GLFW's joystick and
// gamepad API. GLFW has one joystick callback for the process; it is
// installed when GLFW is initialised and hands each change to every open
// window's source (joystickSinks), on the main thread.
type glfwJoysticks struct {
	changes []JoystickChange
}

// maxJoystickChanges caps the changes a source keeps between polls; a
// window that does not poll (no Callbacks.Input) drops the oldest.
const maxJoystickChanges = 64

// joystickSinks are the open windows' sources. Like openWindows it is only
// touched on the main thread.
var joystickSinks []*glfwJoysticks

func newGLFWJoysticks() *glfwJoysticks {
	j := &glfwJoysticks{}
	joystickSinks = append(joystickSinks, j)
	return j
}

func (j *glfwJoysticks) close() {
	joystickSinks = slices.DeleteFunc(joystickSinks, func(s *glfwJoysticks) bool { return s == j })
}

// onJoystick is GLFW's joystick callback.
func onJoystick(joy glfw.Joystick, event glfw.PeripheralEvent) {
	c := JoystickChange{ID: int(joy), Connected: event == glfw.Connected}
	for _, j := range joystickSinks {
		if len(j.changes) >= maxJoystickChanges {
			j.changes = append(j.changes[:0], j.changes[1:]...)
		}
		j.changes = append(j.changes, c)
	}
}

func (j *glfwJoysticks) Gamepads(dst []int) []int {
	for id := glfw.Joystick1; id <= glfw.JoystickLast; id++ {
		if id.IsGamepad() {
			dst = append(dst, int(id))
		}
	}
	return dst
}

func (j *glfwJoysticks) Changes(dst []JoystickChange) []JoystickChange {
	dst = append(dst, j.changes...)
	j.changes = j.changes[:0]
	return dst
}

func (j *glfwJoysticks) IsGamepad(id int) bool {
	return id >= int(glfw.Joystick1) && id <= int(glfw.JoystickLast) && glfw.Joystick(id).IsGamepad()
}

func (j *glfwJoysticks) Read(id int, r *GamepadReading) bool {
	if id < int(glfw.Joystick1) || id > int(glfw.JoystickLast) {
		return false
	}
	st := glfw.Joystick(id).GetGamepadState() // nil when not connected or not a gamepad
	if st == nil {
		return false
	}
	for b := range input.GamepadButtonCount {
		r.Buttons[b] = st.Buttons[b] == glfw.Press
	}
	for a := range input.GamepadAxisCount {
		r.Axes[a] = st.Axes[a]
	}
	return true
}

// The standard layout's buttons and axes are GLFW's, in GLFW's order.
var (
	_ [int(glfw.ButtonLast) + 1 - int(input.GamepadButtonCount)]struct{}
	_ [int(input.GamepadButtonCount) - int(glfw.ButtonLast) - 1]struct{}
	_ [int(glfw.AxisLast) + 1 - int(input.GamepadAxisCount)]struct{}
	_ [int(input.GamepadAxisCount) - int(glfw.AxisLast) - 1]struct{}
	_ [int(glfw.ButtonDpadLeft) - int(input.PadDPadLeft)]struct{}
	_ [int(input.PadDPadLeft) - int(glfw.ButtonDpadLeft)]struct{}
	_ [int(glfw.AxisRightTrigger) - int(input.PadRightTrigger)]struct{}
	_ [int(input.PadRightTrigger) - int(glfw.AxisRightTrigger)]struct{}
)

// UpdateGamepadMappings adds mappings, text in the SDL_GameControllerDB
// format (one controller a line: a 32-digit hex GUID, a name, then
// element:binding pairs, separated by commas; '#' starts a comment line),
// to GLFW's gamepad mapping database, for every window; a mapping for a
// controller already known replaces it. A pad already in use reads through
// its new mapping from the next poll, and a joystick connected before that
// had no mapping becomes one of this window's pads at its next poll. The text is checked first
// (GLFW itself skips a bad line without a word): a line that is not a
// mapping is an error naming it, and nothing is added.
func (w *Window) UpdateGamepadMappings(mappings string) error {
	w.live()
	if err := updateMappings(mappings); err != nil {
		return err
	}
	w.pads.Rescan()
	return nil
}

// maxMappingLine is the longest mapping line GLFW reads; it skips longer
// ones.
const maxMappingLine = 1023

func updateMappings(mappings string) error {
	if err := checkMappings(mappings); err != nil {
		return err
	}
	var ok bool
	if err := catch(func() error { ok = glfw.UpdateGamepadMappings(mappings); return nil }); err != nil {
		return fmt.Errorf("platform: gamepad mappings: %w", err)
	}
	if !ok {
		return errors.New("platform: gamepad mappings: GLFW is not initialised")
	}
	return nil
}

// checkMappings reports the first line of mappings that is not an SDL
// mapping, a comment or blank.
func checkMappings(mappings string) error {
	for n, line := range strings.Split(mappings, "\n") {
		line = strings.TrimRight(line, "\r")
		if t := strings.TrimSpace(line); t == "" || t[0] == '#' {
			continue
		}
		if err := checkMapping(line); err != nil {
			return fmt.Errorf("platform: gamepad mappings line %d: %w", n+1, err)
		}
	}
	return nil
}

//srccheck:wrapped by checkMappings, as "platform: gamepad mappings line N: ..."
func checkMapping(line string) error {
	if len(line) > maxMappingLine {
		return fmt.Errorf("%d bytes, GLFW reads lines of at most %d", len(line), maxMappingLine)
	}
	f := strings.Split(line, ",")
	if len(f[0]) != 32 || strings.Trim(f[0], "0123456789abcdefABCDEF") != "" {
		return fmt.Errorf("%q is not a 32-digit hex GUID (a mapping is GUID,name,element:binding,...)", f[0])
	}
	if len(f) < 3 || f[1] == "" {
		return errors.New("a mapping is GUID,name,element:binding,...: the name or the bindings are missing")
	}
	for _, e := range f[2:] {
		if e == "" {
			continue
		}
		if k, v, ok := strings.Cut(e, ":"); !ok || k == "" || v == "" {
			return fmt.Errorf("%q is not element:binding", e)
		}
	}
	return nil
}
