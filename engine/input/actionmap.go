package input

import (
	"fmt"
	"math"
	"strings"
)

// An ActionMap is a game's declaration of its actions, made once in its
// game definition: the actions' names in order (Names[i] is Action(i)),
// the pairs of them that are two-axis actions (Vectors), and the default
// bindings (Bindings, in the bindings file's format). Every program of
// the game makes its Actions from it (New): the window, the headless
// runner and its sync test, a networked client, a dedicated server's
// bots. An ActionMap is plain data, so one value serves them all.
type ActionMap struct {
	// Names are the actions' names, in order: Names[i] is Action(i). See
	// NewActions for what a name may hold.
	Names []string
	// Vectors are the two-axis actions: each makes two of the actions one
	// vector (see Vector).
	Vectors []Vector
	// Bindings are the default bindings, in the bindings file's format
	// (see the package doc), applied by New. A player's own bindings file
	// (Actions.LoadBindings) then replaces those of the actions it names.
	Bindings string
}

// A Vector declares two actions as one two-axis action, such as a move
// stick or WASD: X and Y name the actions holding its components, and
// each is bound like any action (four keys with scales -1 and 1, a stick's
// two axes). Each tick the pair (x, y) of their values is then made one
// vector, as Godot's Input.get_vector does: a length up to Deadzone reads
// as (0, 0), a longer one is rescaled so that the length runs from 0 at
// the dead zone to 1, and a length above 1 (two keys held, a diagonal) is
// cut to 1, the direction kept. The computation is in integers, on the
// values as the Sample holds them (units of 1/AxisUnit), so it gives the
// same bits on every machine; the component actions' values
// (Sample.ActionValue, Sample.ActionVector) are the vector's.
type Vector struct {
	// X and Y name the actions holding the vector's components.
	X, Y string
	// Deadzone is the radial dead zone, in [0, 1): 0 for none.
	Deadzone float32
}

// MaxVectors is the number of Vectors one Actions may have: each takes two
// of its MaxActions actions.
const MaxVectors = MaxActions / 2

// New returns a new Actions with m's actions, its vectors and its default
// bindings, or an error naming what is wrong with m.
func (m ActionMap) New() (*Actions, error) {
	a, err := NewActions(m.Names...)
	if err != nil {
		return nil, err
	}
	for i, v := range m.Vectors {
		x, okx := a.Lookup(v.X)
		y, oky := a.Lookup(v.Y)
		switch {
		case !okx:
			return nil, fmt.Errorf("input: vector %d: no action is named %q", i, v.X)
		case !oky:
			return nil, fmt.Errorf("input: vector %d: no action is named %q", i, v.Y)
		}
		if err := a.SetVector(x, y, v.Deadzone); err != nil {
			return nil, fmt.Errorf("input: vector %d: %w", i, err)
		}
	}
	if m.Bindings != "" {
		if err := a.LoadBindings(strings.NewReader(m.Bindings)); err != nil {
			return nil, fmt.Errorf("input: the default bindings: %w", err)
		}
	}
	return a, nil
}

// Len returns the number of actions m declares.
func (m ActionMap) Len() int { return len(m.Names) }

// vector is a Vector of an Actions: its actions and its dead zone in
// units of 1/AxisUnit.
type vector struct {
	x, y     Action
	deadzone int32
}

// SetVector makes x and y one two-axis action (see Vector) with the given
// radial dead zone, in [0, 1); or, when they are one already, sets its
// dead zone (a local setting, like a binding). It returns an error, and
// changes nothing, when x or y is not one of a's actions, they are the
// same action, either is in another vector, or the dead zone is out of
// range.
func (a *Actions) SetVector(x, y Action, deadzone float32) error {
	switch {
	case int(x) >= len(a.names) || int(y) >= len(a.names):
		return fmt.Errorf("input: SetVector: action %d or %d does not exist (there are %d)", x, y, len(a.names))
	case x == y:
		return fmt.Errorf("input: SetVector: %s is both components of the vector", a.names[x])
	case !(deadzone >= 0 && deadzone < 1):
		return fmt.Errorf("input: SetVector %s, %s: dead zone %v is not within [0, 1)", a.names[x], a.names[y], deadzone)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	dz := units(float64(deadzone))
	for i, v := range a.vectors {
		if v.x == x && v.y == y {
			a.vectors[i].deadzone = dz
			return nil
		}
		if v.x == x || v.y == x || v.x == y || v.y == y {
			return fmt.Errorf("input: SetVector %s, %s: the vector %s, %s has one of them already", a.names[x], a.names[y], a.names[v.x], a.names[v.y])
		}
	}
	a.vectors = append(a.vectors, vector{x: x, y: y, deadzone: dz})
	return nil
}

// normalize returns the vector (x, y), in units of 1/AxisUnit, made one
// vector with the radial dead zone dz (units too): (0, 0) up to dz, a
// length rescaled from dz..AxisUnit to 0..AxisUnit, cut to AxisUnit, the
// direction kept. Integers only: the same result on every machine.
func normalize(x, y, dz int32) (int32, int32) {
	// The length in 1/256 units, so that the rescaling is finer than a
	// unit: at most sqrt(2)*AxisUnit*256 < 2^24.
	l := int64(isqrt(uint64(int64(x)*int64(x)+int64(y)*int64(y)) << 16))
	d := int64(dz) << 8
	full := int64(AxisUnit) << 8
	switch {
	case l <= d:
		return 0, 0
	case l >= full:
		// x/length*AxisUnit: x*256*AxisUnit < 2^39.
		return roundDiv(int64(x)<<8*AxisUnit, l), roundDiv(int64(y)<<8*AxisUnit, l)
	}
	// x/length * (length-dz)/(1-dz) * AxisUnit: |x*256| < 2^23 and
	// (l-d)*AxisUnit < 2^39, so the numerator is below 2^62.
	num, den := (l-d)*AxisUnit, l*(full-d)
	return roundDiv(int64(x)<<8*num, den), roundDiv(int64(y)<<8*num, den)
}

// roundDiv returns n/d rounded to the nearest integer, halves away from
// zero, clamped to [-AxisUnit, AxisUnit]; d > 0.
func roundDiv(n, d int64) int32 {
	var q int64
	if n >= 0 {
		q = (n + d/2) / d
	} else {
		q = -((-n + d/2) / d)
	}
	return int32(max(min(q, AxisUnit), -AxisUnit))
}

// isqrt returns the floor of the square root of n.
func isqrt(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	r := uint64(math.Sqrt(float64(n))) // close; corrected below, exactly
	for r*r > n {
		r--
	}
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}
