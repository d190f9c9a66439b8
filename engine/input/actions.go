package input

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// MaxActions is the number of actions one Actions may name.
const MaxActions = 32

// MaxBindings is the number of Bindings one action may have.
const MaxBindings = 16

// maxActionName is the longest action name, in bytes.
const maxActionName = 32

// An Action is a game's name for something a player does ("jump", "fire",
// "move-x"), as an index into the Actions that declared it: the i-th name
// given to NewActions is Action(i). A game declares its actions once, in
// the same order everywhere, and asks a Sample about them (Sample.Action,
// Sample.ActionValue) instead of keys and buttons; the player binds them
// to keys, mouse buttons and gamepad buttons and axes.
type Action uint8

// Actions is a game's list of actions and the current bindings of each:
// which keys, mouse buttons, gamepad buttons and gamepad axes drive it. A
// Queue given an Actions (Queue.SetActions) resolves the bindings when it
// builds each tick's Sample, so the Sample carries the actions' states
// and values: recordings and the network carry what the player did, and
// replay it exactly whatever the bindings of the machine that replays.
// Rebinding is therefore a local change, outside the simulation: it takes
// effect from the next tick, and is not part of a snapshot or a state.
//
// An Actions is safe for concurrent use: a networked client resolves its
// player's actions on its own goroutine while the game rebinds them.
type Actions struct {
	names []string // fixed by NewActions

	mu       sync.Mutex
	bindings [][]Binding // bindings[a] are the bindings of Action(a)
	vectors  []vector    // the two-axis actions (SetVector)
}

// NewActions declares the actions named names, Action(0) to
// Action(len(names)-1) in that order, with no bindings. A name is 1 to 32
// bytes of ASCII letters, digits, '-', '_' and '.', and names are
// distinct; there are at most MaxActions of them.
func NewActions(names ...string) (*Actions, error) {
	if len(names) > MaxActions {
		return nil, fmt.Errorf("input: %d actions, at most %d", len(names), MaxActions)
	}
	a := &Actions{names: make([]string, len(names)), bindings: make([][]Binding, len(names))}
	for i, n := range names {
		if err := checkActionName(n); err != nil {
			return nil, fmt.Errorf("input: action %d: %w", i, err)
		}
		if j := a.index(n); j >= 0 {
			return nil, fmt.Errorf("input: action %q is declared twice (actions %d and %d)", n, j, i)
		}
		a.names[i] = n
	}
	return a, nil
}

//srccheck:wrapped by NewActions, as "input: action N: ..."
func checkActionName(n string) error {
	if n == "" || len(n) > maxActionName {
		return fmt.Errorf("name %q is not 1 to %d bytes long", n, maxActionName)
	}
	for i := range len(n) {
		c := n[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("name %q has %q: use letters, digits, '-', '_' and '.'", n, c)
		}
	}
	return nil
}

func (a *Actions) index(name string) int {
	for i, n := range a.names {
		if n == name {
			return i
		}
	}
	return -1
}

// Len returns the number of actions.
func (a *Actions) Len() int { return len(a.names) }

// Lookup returns the action named name, and false when there is none.
func (a *Actions) Lookup(name string) (Action, bool) {
	i := a.index(name)
	return Action(max(i, 0)), i >= 0
}

// Name returns the name of act, or "" when act is not one of a's actions.
func (a *Actions) Name(act Action) string {
	if int(act) >= len(a.names) {
		return ""
	}
	return a.names[act]
}

// Bindings returns a copy of the bindings of act, in the order they were
// bound (nil when act is not one of a's actions).
func (a *Actions) Bindings(act Action) []Binding {
	if int(act) >= len(a.names) {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Binding(nil), a.bindings[act]...)
}

// Bind adds b to the bindings of act, unless act has it already. It
// returns an error, and changes nothing, when act is not one of a's
// actions, b is not valid (see Binding) or act has MaxBindings bindings.
func (a *Actions) Bind(act Action, b Binding) error {
	if int(act) >= len(a.names) {
		return fmt.Errorf("input: Bind: action %d does not exist (there are %d)", act, len(a.names))
	}
	if err := b.check(); err != nil {
		return fmt.Errorf("input: Bind %s: %w", a.names[act], err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, old := range a.bindings[act] {
		if old == b {
			return nil
		}
	}
	if len(a.bindings[act]) >= MaxBindings {
		return fmt.Errorf("input: Bind %s: it has %d bindings already, the most an action may have", a.names[act], MaxBindings)
	}
	a.bindings[act] = append(a.bindings[act], b)
	return nil
}

// Unbind removes b from the bindings of act and reports whether it was
// there.
func (a *Actions) Unbind(act Action, b Binding) bool {
	if int(act) >= len(a.names) {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, old := range a.bindings[act] {
		if old == b {
			a.bindings[act] = append(a.bindings[act][:i], a.bindings[act][i+1:]...)
			return true
		}
	}
	return false
}

// Clear removes every binding of act.
func (a *Actions) Clear(act Action) {
	if int(act) < len(a.names) {
		a.mu.Lock()
		a.bindings[act] = a.bindings[act][:0]
		a.mu.Unlock()
	}
}

// bindingKind says what drives a Binding.
type bindingKind uint8

const (
	bindKey bindingKind = iota + 1
	bindMouse
	bindPadButton
	bindPadAxis
)

// AnyPad, as a Binding's pad (Binding.OnPad), makes a gamepad binding
// read every connected gamepad: a button is down when it is down on any
// of them, an axis is the one farthest from 0.
const AnyPad = -1

// DefaultThreshold is the value past which an axis binding counts as
// down, unless it says otherwise (Binding.WithThreshold).
const DefaultThreshold = 0.5

// A Binding is one way to drive an action: a key, a mouse button, a
// gamepad button or a gamepad axis. Make one with KeyBinding,
// MouseBinding, PadButtonBinding or PadAxisBinding and adjust it with
// WithScale, WithThreshold and OnPad; Bindings are values, compared with
// ==.
//
// Each tick an action is down when any of its bindings is down, and its
// value (Sample.ActionValue) is the sum of its bindings' values, clamped
// to [-1, 1]:
//   - a key, mouse button or gamepad button is down when it is, and its
//     value is then its scale (1 unless WithScale says otherwise), else 0;
//   - a gamepad axis's value is the axis times its scale, and it is down
//     when that value is at least its threshold (DefaultThreshold unless
//     WithThreshold says otherwise): an axis past a threshold as a
//     button.
//
// So "move-x" bound to ArrowLeft with scale -1, ArrowRight, and the left
// stick's X axis is -1, 0 or 1 from the keys and anything between from
// the stick.
type Binding struct {
	kind      bindingKind
	code      uint8   // the Key, MouseButton, GamepadButton or GamepadAxis
	pad       int8    // the gamepad, or AnyPad
	scale     float32 // the value when down, or the axis's factor
	threshold float32 // an axis binding is down at or past it
}

// KeyBinding returns a binding of key k.
func KeyBinding(k Key) Binding { return Binding{kind: bindKey, code: uint8(k), pad: AnyPad, scale: 1} }

// MouseBinding returns a binding of mouse button b.
func MouseBinding(b MouseButton) Binding {
	return Binding{kind: bindMouse, code: uint8(b), pad: AnyPad, scale: 1}
}

// PadButtonBinding returns a binding of gamepad button b, on any gamepad.
func PadButtonBinding(b GamepadButton) Binding {
	return Binding{kind: bindPadButton, code: uint8(b), pad: AnyPad, scale: 1}
}

// PadAxisBinding returns a binding of gamepad axis ax, on any gamepad,
// with scale 1 and the DefaultThreshold.
func PadAxisBinding(ax GamepadAxis) Binding {
	return Binding{kind: bindPadAxis, code: uint8(ax), pad: AnyPad, scale: 1, threshold: DefaultThreshold}
}

// WithScale returns b with scale s: the value of a key or button binding
// when down, the factor of an axis binding (-1 turns an axis round). It
// must be finite and within [-MaxScale, MaxScale].
func (b Binding) WithScale(s float32) Binding { b.scale = s; return b }

// MaxScale is the largest scale a Binding may have.
const MaxScale = 16

// WithThreshold returns b with threshold t, which must be in (0, 1]: the
// scaled axis value at which an axis binding is down. Only axis bindings
// have a threshold.
func (b Binding) WithThreshold(t float32) Binding { b.threshold = t; return b }

// OnPad returns gamepad binding b reading only gamepad pad (0 to
// MaxGamepads-1), or every gamepad with AnyPad.
func (b Binding) OnPad(pad int) Binding { b.pad = int8(max(min(pad, 127), -128)); return b }

// Scale returns b's scale.
func (b Binding) Scale() float32 { return b.scale }

// Threshold returns an axis binding's threshold, 0 for another binding.
func (b Binding) Threshold() float32 { return b.threshold }

// Pad returns a gamepad binding's gamepad, or AnyPad.
func (b Binding) Pad() int { return int(b.pad) }

// check reports what is wrong with b.
//
//srccheck:wrapped by Bind and parseBinding, as "input: Bind ACTION: ..." and "input: bindings line N: ..."
func (b Binding) check() error {
	switch b.kind {
	case bindKey:
		if Key(b.code) == KeyUnknown || Key(b.code) >= KeyCount {
			return fmt.Errorf("key %d is not a key", b.code)
		}
	case bindMouse:
		if MouseButton(b.code) >= MouseButtonCount {
			return fmt.Errorf("mouse button %d is not a button", b.code)
		}
	case bindPadButton:
		if GamepadButton(b.code) >= GamepadButtonCount {
			return fmt.Errorf("gamepad button %d is not a button", b.code)
		}
	case bindPadAxis:
		if GamepadAxis(b.code) >= GamepadAxisCount {
			return fmt.Errorf("gamepad axis %d is not an axis", b.code)
		}
	default:
		return errors.New("the zero Binding binds nothing: make one with KeyBinding, MouseBinding, PadButtonBinding or PadAxisBinding")
	}
	s := float64(b.scale)
	if math.IsNaN(s) || math.Abs(s) > MaxScale {
		return fmt.Errorf("scale %v is not within [-%d, %d]", b.scale, MaxScale, MaxScale)
	}
	if b.kind == bindPadAxis {
		if !(b.threshold > 0 && b.threshold <= 1) {
			return fmt.Errorf("threshold %v is not within (0, 1]", b.threshold)
		}
	} else if b.threshold != 0 {
		return fmt.Errorf("a threshold (%v) applies to an axis only", b.threshold)
	}
	if b.kind == bindPadButton || b.kind == bindPadAxis {
		if b.pad != AnyPad && !validPad(int(b.pad)) {
			return fmt.Errorf("pad %d is not AnyPad or 0 to %d", b.pad, MaxGamepads-1)
		}
	} else if b.pad != AnyPad {
		return fmt.Errorf("a pad (%d) applies to a gamepad binding only", b.pad)
	}
	return nil
}

// units returns v*AxisUnit as an integer, rounded, clamped to int32's
// comfortable range.
func units(v float64) int32 {
	return int32(math.Round(max(min(v, 1<<20), -1<<20) * AxisUnit))
}

// read returns whether b is down at the end of the tick s describes,
// whether it went down during it, and its value in units of 1/AxisUnit.
func (b *Binding) read(s *Sample) (down, pressed bool, value int32) {
	switch b.kind {
	case bindKey:
		k := Key(b.code)
		down, pressed = s.keysDown.has(k), s.keysPressed.has(k)
	case bindMouse:
		m := MouseButton(b.code)
		down, pressed = s.buttonsDown.has(m), s.buttonsPressed.has(m)
	case bindPadButton:
		btn := GamepadButton(b.code)
		for p := range MaxGamepads {
			if b.pad == AnyPad || int(b.pad) == p {
				down = down || s.padDown(p).has(btn)
				pressed = pressed || s.padPressed(p).has(btn)
			}
		}
	case bindPadAxis:
		var q int16
		for p := range MaxGamepads {
			if b.pad == AnyPad || int(b.pad) == p {
				if v := s.padAxis(p, GamepadAxis(b.code)); abs16(v) > abs16(q) {
					q = v
				}
			}
		}
		value = units(float64(q) / AxisUnit * float64(b.scale))
		return value >= units(float64(b.threshold)), false, value
	}
	if down {
		value = units(float64(b.scale))
	}
	return down, pressed, value
}

func abs16(v int16) int32 { return max(int32(v), -int32(v)) }

// resolve sets the actions' part of s from the keys, buttons and axes in
// s, and the actions' states at the end of the previous tick (also in s).
func (a *Actions) resolve(s *Sample) {
	a.mu.Lock()
	defer a.mu.Unlock()
	prev := uint32(s.ext[extActions])
	var down, tapped uint32
	var sums [MaxActions]int32
	for i, bs := range a.bindings {
		var sum int32
		for j := range bs {
			d, p, v := bs[j].read(s)
			if d {
				down |= 1 << i
			}
			if p {
				tapped |= 1 << i
			}
			sum += v
		}
		sums[i] = max(min(sum, AxisUnit), -AxisUnit)
	}
	for _, v := range a.vectors {
		sums[v.x], sums[v.y] = normalize(sums[v.x], sums[v.y], v.deadzone)
	}
	values := s.ext[extActions+2:]
	clear(values)
	for i := range a.bindings {
		values[i/4] |= uint64(uint16(int16(sums[i]))) << (16 * (i % 4))
	}
	pressed := ^prev & (down | tapped)
	s.ext[extActions] = uint64(down) | uint64(pressed)<<32
	s.ext[extActions+1] = uint64((prev | pressed) &^ down)
}

// Action reports whether act is down at the end of the tick: whether any
// of its bindings is (see Binding).
func (s Sample) Action(act Action) bool { return act < MaxActions && s.ext[extActions]&(1<<act) != 0 }

// ActionPressed reports whether act went down during the tick: it was not
// down at the end of the previous tick, and one of its bindings went down.
// As with keys, an action pressed and released within one tick is
// ActionPressed and ActionReleased, and not Action.
func (s Sample) ActionPressed(act Action) bool {
	return act < MaxActions && s.ext[extActions]&(1<<(32+act)) != 0
}

// ActionReleased reports whether act went up during the tick.
func (s Sample) ActionReleased(act Action) bool {
	return act < MaxActions && s.ext[extActions+1]&(1<<act) != 0
}

// ActionValue returns the value of act at the end of the tick, from -1 to
// 1: the sum of its bindings' values (see Binding), exactly
// ActionUnits(act) / AxisUnit.
func (s Sample) ActionValue(act Action) float32 { return float32(s.ActionUnits(act)) / AxisUnit }

// ActionUnits returns the value of act as the Sample holds it: an integer
// from -AxisUnit to AxisUnit.
func (s Sample) ActionUnits(act Action) int16 {
	if act >= MaxActions {
		return 0
	}
	return int16(s.ext[extActions+2+int(act)/4] >> (16 * (act % 4)))
}

// ActionVector returns the two-axis action whose components are the
// actions x and y (Vector, Actions.SetVector) at the end of the tick: its
// length is from 0 to 1, its dead zone applied. It is exactly
// (ActionValue(x), ActionValue(y)); for two actions that are not a
// vector, it is their values as they are.
func (s Sample) ActionVector(x, y Action) (float32, float32) {
	return s.ActionValue(x), s.ActionValue(y)
}

// ActionVectorUnits returns ActionVector as the Sample holds it: integers
// from -AxisUnit to AxisUnit, for fixed-point game code.
func (s Sample) ActionVectorUnits(x, y Action) (int16, int16) {
	return s.ActionUnits(x), s.ActionUnits(y)
}
