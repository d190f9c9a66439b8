package input

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxBindingsFile is the largest bindings file LoadBindings reads, in
// bytes.
const MaxBindingsFile = 1 << 20

// BindingsError is a fault in a bindings file: the line (from 1) and what
// is wrong with it.
type BindingsError struct {
	Line int   // the line, from 1
	Err  error // what is wrong with it
}

// Error returns "input: bindings line N: why".
func (e *BindingsError) Error() string {
	return fmt.Sprintf("input: bindings line %d: %v", e.Line, e.Err)
}

// Unwrap returns Err.
func (e *BindingsError) Unwrap() error { return e.Err }

// LoadBindings reads bindings in the text format above from r and, when
// the whole text is valid, applies them; otherwise it returns the first
// fault, a *BindingsError naming its line, and changes nothing.
func (a *Actions) LoadBindings(r io.Reader) error {
	data, err := io.ReadAll(io.LimitReader(r, MaxBindingsFile+1))
	if err != nil {
		return fmt.Errorf("input: reading bindings: %w", err)
	}
	if len(data) > MaxBindingsFile {
		return fmt.Errorf("input: bindings: more than %d bytes", MaxBindingsFile)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	next := make([][]Binding, len(a.bindings))
	for i, bs := range a.bindings {
		next[i] = append([]Binding(nil), bs...)
	}
	named := make([]bool, len(a.names))
	for n, line := range bytes.Split(data, []byte("\n")) {
		if err := a.parseLine(string(line), next, named); err != nil {
			return &BindingsError{Line: n + 1, Err: err}
		}
	}
	a.bindings = next
	return nil
}

// parseLine applies one line of a bindings file to next.
//
//srccheck:wrapped by LoadBindings, as "input: bindings line N: ..." (BindingsError)
func (a *Actions) parseLine(line string, next [][]Binding, named []bool) error {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil
	}
	act := a.index(f[0])
	if act < 0 {
		return fmt.Errorf("no action is named %q (the actions: %s)", f[0], strings.Join(a.names, ", "))
	}
	if !named[act] {
		named[act], next[act] = true, next[act][:0]
	}
	if len(f) < 2 {
		return fmt.Errorf("%s: a source (key, mouse, button, axis or none) is missing", f[0])
	}
	if strings.EqualFold(f[1], "none") {
		if len(f) > 2 {
			return fmt.Errorf("%s none: %q after none", f[0], f[2])
		}
		next[act] = next[act][:0]
		return nil
	}
	b, err := parseBinding(f[1:])
	if err != nil {
		return fmt.Errorf("%s: %w", f[0], err)
	}
	for _, old := range next[act] {
		if old == b {
			return nil
		}
	}
	if len(next[act]) >= MaxBindings {
		return fmt.Errorf("%s: more than %d bindings", f[0], MaxBindings)
	}
	next[act] = append(next[act], b)
	return nil
}

// parseBinding parses "SOURCE NAME [options]".
//
//srccheck:wrapped by parseLine, as "input: bindings line N: ACTION: ..."
func parseBinding(f []string) (Binding, error) {
	if len(f) < 2 {
		return Binding{}, fmt.Errorf("%s: the name of the key, button or axis is missing", f[0])
	}
	var b Binding
	src, name := strings.ToLower(f[0]), f[1]
	var ok bool
	switch src {
	case "key":
		var k Key
		k, ok = lookupName[Key](keyNames[1:], name)
		b = KeyBinding(k + 1)
	case "mouse":
		var m MouseButton
		m, ok = lookupName[MouseButton](buttonNames[:], name)
		b = MouseBinding(m)
	case "button":
		var pb GamepadButton
		pb, ok = lookupName[GamepadButton](names[GamepadButton](GamepadButtonCount), name)
		b = PadButtonBinding(pb)
	case "axis":
		var ax GamepadAxis
		ax, ok = lookupName[GamepadAxis](names[GamepadAxis](GamepadAxisCount), name)
		b = PadAxisBinding(ax)
	default:
		return Binding{}, fmt.Errorf("source %q is not key, mouse, button, axis or none", f[0])
	}
	if !ok {
		return Binding{}, fmt.Errorf("%s %q: no such %s", src, name, map[string]string{"key": "key", "mouse": "mouse button", "button": "gamepad button", "axis": "gamepad axis"}[src])
	}
	seen := map[string]bool{}
	for _, opt := range f[2:] {
		k, v, found := strings.Cut(opt, "=")
		k = strings.ToLower(k)
		if !found || v == "" {
			return Binding{}, fmt.Errorf("option %q is not scale=S, threshold=T or pad=P", opt)
		}
		if seen[k] {
			return Binding{}, fmt.Errorf("option %s is given twice", k)
		}
		seen[k] = true
		switch k {
		case "scale", "threshold":
			x, err := strconv.ParseFloat(v, 32)
			if err != nil {
				return Binding{}, fmt.Errorf("%s=%s: not a number", k, v)
			}
			if k == "scale" {
				b.scale = float32(x)
			} else {
				b.threshold = float32(x)
				if b.kind != bindPadAxis {
					return Binding{}, fmt.Errorf("threshold=%s: a threshold applies to an axis only", v)
				}
			}
		case "pad":
			p, err := strconv.Atoi(v)
			if err != nil || p < 0 || p >= MaxGamepads {
				return Binding{}, fmt.Errorf("pad=%s: not a gamepad number from 0 to %d", v, MaxGamepads-1)
			}
			if b.kind != bindPadButton && b.kind != bindPadAxis {
				return Binding{}, fmt.Errorf("pad=%s: a pad applies to a gamepad button or axis only", v)
			}
			b.pad = int8(p)
		default:
			return Binding{}, fmt.Errorf("option %q is not scale, threshold or pad", k)
		}
	}
	if err := b.check(); err != nil {
		return Binding{}, err
	}
	return b, nil
}

// names returns the String of the first n values of T.
func names[T interface {
	~uint8
	String() string
}](n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = T(i).String()
	}
	return s
}

// lookupName returns the index of name in names, ignoring case.
func lookupName[T ~uint8](names []string, name string) (T, bool) {
	for i, n := range names {
		if strings.EqualFold(n, name) {
			return T(i), true
		}
	}
	return 0, false
}

// String returns the binding in the bindings file's form, without the
// action: "key Space", "axis LeftX scale=-1 threshold=0.25 pad=1" (options
// only where they are not the default).
func (b Binding) String() string {
	var s string
	switch b.kind {
	case bindKey:
		s = "key " + Key(b.code).String()
	case bindMouse:
		s = "mouse " + MouseButton(b.code).String()
	case bindPadButton:
		s = "button " + GamepadButton(b.code).String()
	case bindPadAxis:
		s = "axis " + GamepadAxis(b.code).String()
	default:
		return "none"
	}
	if b.scale != 1 {
		s += " scale=" + strconv.FormatFloat(float64(b.scale), 'g', -1, 32)
	}
	if b.kind == bindPadAxis && b.threshold != DefaultThreshold {
		s += " threshold=" + strconv.FormatFloat(float64(b.threshold), 'g', -1, 32)
	}
	if b.pad != AnyPad {
		s += " pad=" + strconv.Itoa(int(b.pad))
	}
	return s
}

// WriteBindings writes every action's bindings to w in the bindings
// file's form, actions in order, "ACTION none" for an action without
// bindings, so that LoadBindings of the text restores them all.
func (a *Actions) WriteBindings(w io.Writer) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# Nebula input bindings: ACTION SOURCE NAME [scale=S] [threshold=T] [pad=P]")
	for i, n := range a.names {
		if len(a.bindings[i]) == 0 {
			fmt.Fprintf(bw, "%s none\n", n)
		}
		for _, b := range a.bindings[i] {
			fmt.Fprintf(bw, "%s %s\n", n, b)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("input: writing bindings: %w", err)
	}
	return nil
}
