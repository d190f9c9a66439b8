package input

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=EventKind -output=eventkind_string.go

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/nebulaengine/nebula/internal/binread"
)

// EventKind says what an Event reports.
type EventKind uint8

// The kinds of input event. The zero EventKind is not a kind: Push rejects
// it, so a forgotten Kind is caught rather than read as a key press.
const (
	// KeyDown: Key went down, or repeats while held (a repeat changes
	// nothing and is not a press).
	KeyDown EventKind = iota + 1
	// KeyUp: Key went up.
	KeyUp
	// ButtonDown: Button went down.
	ButtonDown
	// ButtonUp: Button went up.
	ButtonUp
	// CursorMove: the cursor is now at X, Y, in window pixels from the
	// top-left corner.
	CursorMove
	// Scroll: the wheel or touchpad scrolled by X, Y (horizontal and
	// vertical offsets, as the window system reports them).
	Scroll
	// PadConnected: a gamepad connected as pad number Pad.
	PadConnected
	// PadDisconnected: gamepad Pad disconnected; its held buttons go up
	// and its axes go to 0.
	PadDisconnected
	// PadButtonDown: button PadButton of gamepad Pad went down.
	PadButtonDown
	// PadButtonUp: button PadButton of gamepad Pad went up.
	PadButtonUp
	// PadAxisMove: axis Axis of gamepad Pad is now at X (-1 to 1, 0 to 1
	// for a trigger), after the dead zone; the Queue quantises it
	// (QuantizeAxis).
	PadAxisMove
)

// An Event is one thing a device did, stamped with the clock time it
// happened (the same clock whose readings drive timing.Loop.Tick, so that
// timing.Step.Due and Time are comparable). Only the fields of its Kind
// are read: Key for KeyDown and KeyUp, Button for ButtonDown and ButtonUp,
// X and Y for CursorMove and Scroll, Pad for the gamepad events, with
// PadButton for PadButtonDown and PadButtonUp, Axis and X for PadAxisMove.
type Event struct {
	Time      time.Duration // when it happened, on the loop's clock
	Kind      EventKind     // what happened; says which fields below are read
	Key       Key           // the key of KeyDown and KeyUp
	Button    MouseButton   // the button of ButtonDown and ButtonUp
	Pad       uint8         // the gamepad (0 to MaxGamepads-1) of the Pad events
	PadButton GamepadButton // the button of PadButtonDown and PadButtonUp
	Axis      GamepadAxis   // the axis of PadAxisMove
	X, Y      float64       // the cursor position (CursorMove), offsets (Scroll) or axis value (X of PadAxisMove)
}

// keySet is a set of Keys, one bit each.
type keySet [(KeyCount + 63) / 64]uint64

func (s *keySet) has(k Key) bool { return k < KeyCount && s[k/64]&(1<<(k%64)) != 0 }
func (s *keySet) add(k Key)      { s[k/64] |= 1 << (k % 64) }
func (s *keySet) remove(k Key)   { s[k/64] &^= 1 << (k % 64) }

// buttonSet is a set of MouseButtons, one bit each.
type buttonSet uint8

func (s buttonSet) has(b MouseButton) bool { return b < MouseButtonCount && s&(1<<b) != 0 }

// A Sample is the input one fixed tick sees: which keys and mouse
// buttons are down at the end of the tick, which went down or up during
// it, where the cursor is at the end of the tick and how far the wheel
// scrolled during it; the same of up to MaxGamepads gamepads (which are
// connected, their buttons, their axes as integers, see AxisUnit); and,
// when the Queue that made it has Actions, the state and value of each
// action (Action, ActionValue), resolved from the bindings of the machine
// that made it.
//
// It is a plain value, fixed-size bitsets and numbers with no pointers, so
// it can be copied, recorded and compared with ==. The zero Sample
// has nothing down and the cursor at 0, 0.
//
// Queries with a Key or MouseButton that is out of range report false.
type Sample struct {
	keysDown, keysPressed, keysReleased          keySet
	buttonsDown, buttonsPressed, buttonsReleased buttonSet
	cursorX, cursorY                             float64
	scrollX, scrollY                             float64

	ext [extWords]uint64 // gamepads and actions, as Words writes them
}

// Down reports whether k is down at the end of the tick.
func (s Sample) Down(k Key) bool { return s.keysDown.has(k) }

// JustPressed reports whether k went down during the tick. A key pressed
// and released within one tick is JustPressed and JustReleased, and not
// Down. Key repeat is not a press.
func (s Sample) JustPressed(k Key) bool { return s.keysPressed.has(k) }

// JustReleased reports whether k went up during the tick.
func (s Sample) JustReleased(k Key) bool { return s.keysReleased.has(k) }

// ButtonDown reports whether b is down at the end of the tick.
func (s Sample) ButtonDown(b MouseButton) bool { return s.buttonsDown.has(b) }

// ButtonJustPressed reports whether b went down during the tick.
func (s Sample) ButtonJustPressed(b MouseButton) bool { return s.buttonsPressed.has(b) }

// ButtonJustReleased reports whether b went up during the tick.
func (s Sample) ButtonJustReleased(b MouseButton) bool { return s.buttonsReleased.has(b) }

// Cursor returns the cursor position at the end of the tick, in window
// pixels: the latest CursorMove seen by this tick or an earlier one.
func (s Sample) Cursor() (x, y float64) { return s.cursorX, s.cursorY }

// Scroll returns the scroll offsets of the tick's Scroll events, summed in
// event order.
func (s Sample) Scroll() (dx, dy float64) { return s.scrollX, s.scrollY }

// Queue turns timed device events into one Sample per fixed tick.
// The platform layer (or a headless script) pushes events as they happen;
// each fixed tick calls Advance with its due time (timing.Step.Due) and gets
// the Sample of the events up to then.
//
// Every pushed event is seen by exactly one tick, in the order pushed,
// however many ticks a frame runs: an event waits in the queue while frames
// run no tick or while the ticks of a clamped frame are due before it. A
// tick sees at most one press and one release of each key and button, so
// that no press is lost to the sample's one bit: the second press (or
// release) of the same key or button, and every event after it, waits for
// the next tick. Humans do not tap a key twice in one tick; this matters
// after a stall, when a burst of old events is caught up one tick at a time.
//
// The zero Queue is ready to use: nothing down, the cursor at 0, 0, an
// empty queue. The queue is a slice reused from tick to tick, so once it
// has grown to the largest backlog, Push and Advance do not allocate.
// Events are kept until a tick consumes them; while the loop is paused,
// stop pushing or call Reset on resume.
//
// A Queue is not safe for concurrent use; push and advance from the thread
// that runs the loop.
type Queue struct {
	queue    []Event
	last     time.Duration // the time of the latest pushed event
	havePush bool          // an event was pushed since the zero state
	state    Sample        // Down and cursor after the consumed events

	// Keys and buttons down after every pushed event, consumed or not:
	// what ReleaseAll releases.
	pushedKeys    keySet
	pushedButtons buttonSet

	// actions, when set, are resolved into every Sample; they are local
	// (not part of a saved Queue), like the player's key bindings.
	actions *Actions
}

// SetActions makes the Queue resolve a's bindings into every Sample it
// builds from the next Advance on (see Actions); nil stops it, and the
// Samples' actions are then all up, with value 0. The Queue keeps a, not a
// copy: rebinding a takes effect at the next tick. Reset, CopyFrom and
// ReadState keep the Queue's Actions.
func (in *Queue) SetActions(a *Actions) { in.actions = a }

// Actions returns the Actions SetActions gave, or nil.
func (in *Queue) Actions() *Actions { return in.actions }

// Push queues ev for the tick it falls in. Events must come in time order;
// an event whose Time is earlier than the latest pushed event's is given
// that time instead (clocks and event sources sometimes disagree by a
// little), so the queue stays in order and the event is seen after the
// ones pushed before it. An event whose time is before the due time of a
// tick already run is seen by the next tick. Reset and Engine.Restore
// forget the latest time (a restored engine's clock may start anywhere).
//
// Events for KeyUnknown are dropped: many physical keys share it, so its
// state would mean nothing. Push panics when Kind is not one of the
// EventKinds, or when a key or button event names a Key or MouseButton out
// of range; those are bugs in the caller's translation of device codes.
func (in *Queue) Push(ev Event) {
	switch ev.Kind {
	case KeyDown, KeyUp:
		if ev.Key >= KeyCount {
			panic(fmt.Sprintf("input: Queue.Push: %v event for key %d, out of range [0, %d)", ev.Kind, uint8(ev.Key), uint8(KeyCount)))
		}
		if ev.Key == KeyUnknown {
			return
		}
		if ev.Kind == KeyDown {
			in.pushedKeys.add(ev.Key)
		} else {
			in.pushedKeys.remove(ev.Key)
		}
	case ButtonDown, ButtonUp:
		if ev.Button >= MouseButtonCount {
			panic(fmt.Sprintf("input: Queue.Push: %v event for mouse button %d, out of range [0, %d)", ev.Kind, uint8(ev.Button), uint8(MouseButtonCount)))
		}
		if ev.Kind == ButtonDown {
			in.pushedButtons |= 1 << ev.Button
		} else {
			in.pushedButtons &^= 1 << ev.Button
		}
	case CursorMove, Scroll:
	case PadConnected, PadDisconnected, PadButtonDown, PadButtonUp, PadAxisMove:
		if !validPad(int(ev.Pad)) || ev.PadButton >= GamepadButtonCount || ev.Axis >= GamepadAxisCount {
			panic(fmt.Sprintf("input: Queue.Push: %v event for pad %d, button %d, axis %d, out of range (%d pads, %d buttons, %d axes)",
				ev.Kind, ev.Pad, uint8(ev.PadButton), uint8(ev.Axis), MaxGamepads, uint8(GamepadButtonCount), uint8(GamepadAxisCount)))
		}
	default:
		panic(fmt.Sprintf("input: Queue.Push: event kind %d is not an EventKind", uint8(ev.Kind)))
	}
	if in.havePush {
		ev.Time = max(ev.Time, in.last)
	}
	in.last, in.havePush = ev.Time, true
	in.queue = append(in.queue, ev)
}

// ReleaseAll pushes, at time t, a KeyUp for every key and a ButtonUp for
// every button that is down once the queued events are applied, keys first,
// each in ascending order. Call it when the window loses focus: the window
// system will not report the releases that happen elsewhere, so without it
// held keys would stick; with it, the next tick sees them JustReleased.
// Gamepads are left alone: the platform layer reads them whatever has the
// focus, so their releases are never lost.
func (in *Queue) ReleaseAll(t time.Duration) {
	for k := range KeyCount {
		if in.pushedKeys.has(k) {
			in.Push(Event{Time: t, Kind: KeyUp, Key: k})
		}
	}
	for b := range MouseButtonCount {
		if in.pushedButtons.has(b) {
			in.Push(Event{Time: t, Kind: ButtonUp, Button: b})
		}
	}
}

// Advance runs the input of one fixed tick that is due at time due (pass
// timing.Step.Due). It consumes the queued events with Time <= due in
// order, except that it stops before a second press or a second release of
// the same key or button (see Queue), and returns the tick's sample.
// Later events stay queued for later ticks. Due times should not decrease
// from one call to the next. The engine calls it before every tick; a game
// reads the result as FixedContext.Input.
func (in *Queue) Advance(due time.Duration) Sample {
	s := &in.state
	s.keysPressed = keySet{}
	s.keysReleased = keySet{}
	s.buttonsPressed = 0
	s.buttonsReleased = 0
	s.scrollX, s.scrollY = 0, 0
	for p := range MaxGamepads {
		s.ext[p*PadWords] &^= padMask<<padPressed | padMask<<padReleased
	}

	n := 0
	for ; n < len(in.queue); n++ {
		ev := &in.queue[n]
		if ev.Time > due || !in.apply(ev) {
			break
		}
	}
	in.queue = in.queue[:copy(in.queue, in.queue[n:])]
	if in.actions != nil {
		in.actions.resolve(s)
	} else {
		clear(s.ext[extActions:])
	}
	return *s
}

// apply applies ev to the tick's sample and reports true, or reports
// false and changes nothing when ev is a second press or release in the
// tick.
func (in *Queue) apply(ev *Event) bool {
	s := &in.state
	switch ev.Kind {
	case KeyDown:
		if s.keysDown.has(ev.Key) {
			return true // repeat
		}
		if s.keysPressed.has(ev.Key) {
			return false
		}
		s.keysDown.add(ev.Key)
		s.keysPressed.add(ev.Key)
	case KeyUp:
		if !s.keysDown.has(ev.Key) {
			return true
		}
		if s.keysReleased.has(ev.Key) {
			return false
		}
		s.keysDown.remove(ev.Key)
		s.keysReleased.add(ev.Key)
	case ButtonDown:
		bit := buttonSet(1) << ev.Button
		if s.buttonsDown&bit != 0 {
			return true
		}
		if s.buttonsPressed&bit != 0 {
			return false
		}
		s.buttonsDown |= bit
		s.buttonsPressed |= bit
	case ButtonUp:
		bit := buttonSet(1) << ev.Button
		if s.buttonsDown&bit == 0 {
			return true
		}
		if s.buttonsReleased&bit != 0 {
			return false
		}
		s.buttonsDown &^= bit
		s.buttonsReleased |= bit
	case CursorMove:
		s.cursorX, s.cursorY = ev.X, ev.Y
	case Scroll:
		s.scrollX += ev.X
		s.scrollY += ev.Y
	case PadConnected:
		s.ext[int(ev.Pad)*PadWords] |= padConnected
	case PadDisconnected:
		p := int(ev.Pad)
		down, released := s.padDown(p), s.padReleased(p)
		if down&released != 0 {
			return false // a button released this tick is held again: wait
		}
		s.ext[p*PadWords] = uint64(s.padPressed(p))<<padPressed | uint64(released|down)<<padReleased
		s.ext[p*PadWords+1], s.ext[p*PadWords+2] = 0, 0
	case PadButtonDown:
		p, bit := int(ev.Pad), padButtons(1)<<ev.PadButton
		if s.padDown(p)&bit != 0 {
			return true
		}
		if s.padPressed(p)&bit != 0 {
			return false
		}
		s.ext[p*PadWords] |= uint64(bit) | uint64(bit)<<padPressed
	case PadButtonUp:
		p, bit := int(ev.Pad), padButtons(1)<<ev.PadButton
		if s.padDown(p)&bit == 0 {
			return true
		}
		if s.padReleased(p)&bit != 0 {
			return false
		}
		s.ext[p*PadWords] = s.ext[p*PadWords]&^uint64(bit) | uint64(bit)<<padReleased
	case PadAxisMove:
		s.setPadAxis(int(ev.Pad), ev.Axis, QuantizeAxis(ev.X))
	}
	return true
}

// Pending returns the number of queued events no tick has consumed yet.
func (in *Queue) Pending() int { return len(in.queue) }

// Reset drops the queued events and returns to the zero state: nothing
// down, the cursor at 0, 0, no latest event time. The queue keeps its
// memory. Use it when the input starts over (a new session, a replay seek,
// a restarted clock); when the window merely loses focus, use ReleaseAll,
// so that the ticks see the keys go up.
func (in *Queue) Reset() {
	*in = Queue{queue: in.queue[:0], actions: in.actions}
}

// SampleWords is the number of 64-bit words of a Sample's binary form
// (Words): the KeyMouseWords words of keys, mouse buttons, cursor and
// scroll, then PadWords words per gamepad, then ActionWords words of
// actions.
const SampleWords = KeyMouseWords + MaxGamepads*PadWords + ActionWords

// The parts of a Sample's binary form.
const (
	// KeyMouseWords is the number of words of keys, mouse buttons, cursor
	// and scroll, which come first. It is all a Sample's binary form held
	// before gamepads and actions (replay format 4, snapshot version 5,
	// wire protocol 5 and older): read such a form into the first
	// KeyMouseWords words and leave the rest zero, which is a Sample
	// with no gamepad connected and every action up.
	KeyMouseWords = 3*len(keySet{}) + 5
	// PadWords is the number of words of one gamepad.
	PadWords = 3
	// ActionWords is the number of words of the actions: states, then
	// values.
	ActionWords = 2 + MaxActions/4
)

// Words writes the sample's exact binary form to w. Equal samples have
// equal words, and a part nobody uses (gamepads never connected, no
// Actions) is all zero words. In order:
//
//   - keysDown, keysPressed, keysReleased (each len(keySet) words, bit
//     k%64 of word k/64 is Key k);
//   - one word with buttonsDown, buttonsPressed and buttonsReleased in its
//     low three bytes;
//   - cursor X, cursor Y, scroll X and scroll Y as IEEE-754 bits;
//   - per gamepad, 0 to MaxGamepads-1, PadWords words: buttons down in
//     bits 0-14, pressed in 16-30, released in 32-46 (bit b of each is
//     GamepadButton b), connected in bit 48; then axes 0 to 3 as int16
//     bits, axis i in bits 16i to 16i+15; then axes 4 and 5 likewise in
//     the low 32 bits;
//   - actions down in bits 0-31 and pressed in bits 32-63 (bit a is
//     Action a), then actions released in bits 0-31; then the action
//     values as int16 bits, four a word, action a in word a/4, bits
//     16(a%4) to 16(a%4)+15.
//
// A recording stores these words; Words, SetWords and SampleWords exist
// for package replay, the wire and snapshots; a game does not need them.
func (s *Sample) Words(w *[SampleWords]uint64) {
	n := len(keySet{})
	copy(w[0:n], s.keysDown[:])
	copy(w[n:2*n], s.keysPressed[:])
	copy(w[2*n:3*n], s.keysReleased[:])
	w[3*n] = uint64(s.buttonsDown) | uint64(s.buttonsPressed)<<8 | uint64(s.buttonsReleased)<<16
	w[3*n+1] = math.Float64bits(s.cursorX)
	w[3*n+2] = math.Float64bits(s.cursorY)
	w[3*n+3] = math.Float64bits(s.scrollX)
	w[3*n+4] = math.Float64bits(s.scrollY)
	copy(w[KeyMouseWords:], s.ext[:])
}

// SetWords sets the sample from the binary form Words writes. It returns
// an error naming the first word that holds a key or button beyond the
// known ones, unused bits or an axis or action value of -32768 (and
// changes nothing then).
//
//srccheck:wrapped by the decoders that read the words (engine: snapshot ..., replay: ..., wire: ...), which name the field
func (s *Sample) SetWords(w *[SampleWords]uint64) error {
	n := len(keySet{})
	for i := range 3 * n {
		if w[i]&^keyWordMask(i%n) != 0 {
			return fmt.Errorf("input word %d has bits for keys beyond the last key (%d)", i, KeyCount-1)
		}
	}
	const buttonMask = 1<<MouseButtonCount - 1
	if b := w[3*n]; b&^(buttonMask|buttonMask<<8|buttonMask<<16) != 0 {
		return fmt.Errorf("input word %d (mouse buttons) has bits beyond the last button (%d)", 3*n, MouseButtonCount-1)
	}
	for i := range MaxGamepads {
		o := KeyMouseWords + i*PadWords
		if w[o]&^(padMask|padMask<<padPressed|padMask<<padReleased|padConnected) != 0 {
			return fmt.Errorf("input word %d (gamepad %d buttons) has unused bits set", o, i)
		}
		if w[o+2]>>32 != 0 {
			return fmt.Errorf("input word %d (gamepad %d axes) has unused bits set", o+2, i)
		}
		if err := checkUnits(w[o+1:o+3], o+1); err != nil {
			return fmt.Errorf("gamepad %d axes: %w", i, err)
		}
	}
	o := KeyMouseWords + MaxGamepads*PadWords
	if w[o+1]>>32 != 0 {
		return fmt.Errorf("input word %d (actions released) has unused bits set", o+1)
	}
	if err := checkUnits(w[o+2:o+ActionWords], o+2); err != nil {
		return fmt.Errorf("action values: %w", err)
	}

	copy(s.keysDown[:], w[0:n])
	copy(s.keysPressed[:], w[n:2*n])
	copy(s.keysReleased[:], w[2*n:3*n])
	b := w[3*n]
	s.buttonsDown, s.buttonsPressed, s.buttonsReleased = buttonSet(b), buttonSet(b>>8), buttonSet(b>>16)
	s.cursorX = math.Float64frombits(w[3*n+1])
	s.cursorY = math.Float64frombits(w[3*n+2])
	s.scrollX = math.Float64frombits(w[3*n+3])
	s.scrollY = math.Float64frombits(w[3*n+4])
	copy(s.ext[:], w[KeyMouseWords:])
	return nil
}

// checkUnits reports the first int16 of words (word first+i) that is
// -32768, which no axis or action value is.
//
//srccheck:wrapped by SetWords, which its callers wrap
func checkUnits(words []uint64, first int) error {
	for i, v := range words {
		if v == 0 {
			continue
		}
		for j := range 4 {
			if uint16(v>>(16*j)) == 0x8000 {
				return fmt.Errorf("input word %d: value %d is -32768, outside [-%d, %d]", first+i, j, AxisUnit, AxisUnit)
			}
		}
	}
	return nil
}

// keyWordMask returns the bits of word i of a keySet that stand for keys.
func keyWordMask(i int) uint64 {
	lo, hi := i*64, min(int(KeyCount), i*64+64)
	switch {
	case hi <= lo:
		return 0
	case hi-lo == 64:
		return ^uint64(0)
	}
	return 1<<(hi-lo) - 1
}

// AppendState appends the input's part of a snapshot to b: the sample's
// words, what was pushed, and the queue (see the format in the engine's
// snapshot.go); ReadState with StateCurrent reads it. No clock time is
// written: the times of the queued events, and of the latest event, belong
// to the clock of the run that pushed them. The Queue's Actions are not
// written: they are local.
func (in *Queue) AppendState(b []byte) []byte {
	var words [SampleWords]uint64
	in.state.Words(&words)
	for _, v := range words {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	for _, v := range in.pushedKeys {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	b = append(b, uint8(in.pushedButtons))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(in.queue)))
	for _, ev := range in.queue {
		b = append(b, uint8(ev.Kind), uint8(ev.Key), uint8(ev.Button), ev.Pad, uint8(ev.PadButton), uint8(ev.Axis))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ev.X))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ev.Y))
	}
	return b
}

// StateLayout is a layout of a saved Queue that ReadState reads.
type StateLayout uint8

// The layouts of a saved Queue, oldest first.
const (
	// StateWithTimes is engine snapshot version 4's: KeyMouseWords sample
	// words, and the clock times of the latest event and of each queued
	// event.
	StateWithTimes StateLayout = iota + 1
	// StateKeyMouse is engine snapshot version 5's: KeyMouseWords sample
	// words, no clock times, events of keys and mouse only.
	StateKeyMouse
	// StateCurrent is what AppendState writes: SampleWords sample words,
	// and each queued event with its gamepad fields.
	StateCurrent
)

// ReadState decodes a saved Queue of the given layout into in, checking
// every key, button and event; older layouts read with no gamepad
// connected and every action up. The clock times of StateWithTimes are
// read and dropped. in keeps its Actions.
//
// The restored input is not tied to any clock: the queued events were
// pushed before the snapshot, so they are due at once (the ticks after
// the restore see them first, in order, one press or release of a key per
// tick as always), and the next pushed event keeps its time, whatever the
// clock of the engine restored into.
func (in *Queue) ReadState(r *binread.Reader, layout StateLayout) {
	if layout < StateWithTimes || layout > StateCurrent {
		r.Fail("input", fmt.Errorf("input: ReadState: layout %d is not a StateLayout", layout))
		return
	}
	var words [SampleWords]uint64
	nw := SampleWords
	if layout < StateCurrent {
		nw = KeyMouseWords
	}
	for i := range nw {
		words[i] = r.U64("input sample")
	}
	if r.Err() == nil {
		if err := in.state.SetWords(&words); err != nil {
			r.Fail("input sample", err)
		}
	}
	var pushed [len(keySet{})]uint64
	for i := range pushed {
		pushed[i] = r.U64("keys pushed")
	}
	if r.Err() == nil {
		for i, v := range pushed {
			if v&^keyWordMask(i) != 0 {
				r.Fail("keys pushed", fmt.Errorf("bits for keys beyond the last key"))
			}
		}
	}
	in.pushedKeys = keySet(pushed)
	in.pushedButtons = buttonSet(r.U8("buttons pushed"))
	size := 19 // kind, key, button, x, y
	lastKind := Scroll
	if layout == StateCurrent {
		size += 3 // pad, pad button, axis
		lastKind = PadAxisMove
	}
	if layout == StateWithTimes {
		r.U64("latest event time")
		r.U8("an event pushed")
		size += 8
	}
	nq := r.Count("input queue", MaxQueue, size)
	in.queue = make([]Event, nq)
	for i := range in.queue {
		ev := &in.queue[i]
		if layout == StateWithTimes {
			r.U64("input queue")
		}
		ev.Time = dueAtOnce
		at := r.Offset()
		ev.Kind, ev.Key, ev.Button = EventKind(r.U8("input queue")), Key(r.U8("input queue")), MouseButton(r.U8("input queue"))
		if layout == StateCurrent {
			ev.Pad, ev.PadButton, ev.Axis = r.U8("input queue"), GamepadButton(r.U8("input queue")), GamepadAxis(r.U8("input queue"))
		}
		if r.Err() == nil && (ev.Kind < KeyDown || ev.Kind > lastKind || ev.Key >= KeyCount || ev.Button >= MouseButtonCount ||
			!validPad(int(ev.Pad)) || ev.PadButton >= GamepadButtonCount || ev.Axis >= GamepadAxisCount) {
			r.FailAt(at, "input queue", fmt.Errorf("event %d is not a valid event (kind %d, key %d, button %d, pad %d, pad button %d, axis %d)",
				i, ev.Kind, ev.Key, ev.Button, ev.Pad, ev.PadButton, ev.Axis))
		}
		ev.X = math.Float64frombits(r.U64("input queue"))
		ev.Y = math.Float64frombits(r.U64("input queue"))
	}
}

// dueAtOnce is the time of a restored queued event: before every tick's
// due time, on any clock.
const dueAtOnce = time.Duration(math.MinInt64)

// MaxQueue caps the queued events a saved Queue (AppendState) may hold
// when it is read back (ReadState).
const MaxQueue = 1 << 16

// CopyFrom makes in a copy of src, queued events included, reusing in's
// memory: once its queue has grown to src's, it does not allocate. A
// rollback saves and loads the queue this way many times a second. in
// keeps its own Actions (see SetActions): bindings are not simulation
// state.
func (in *Queue) CopyFrom(src *Queue) {
	q, a := in.queue, in.actions
	*in = *src
	in.queue, in.actions = append(q[:0], src.queue...), a
}
