package engine

import (
	"github.com/nebulaengine/nebula/engine/input"

	"bufio"
	"bytes"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// DumpVersion is the version of the text format WriteDump writes, named on
// the dump's first line.
const DumpVersion = 1

// dumpHeader is the first line of a dump, without its version.
const dumpHeader = "nebula state dump "

// WriteDump writes the world's whole simulated state to out as text, one
// value per line, in a fixed order, so that the dumps two machines write
// of the same tick can be compared with diff (or DiffDumps) when their
// state hashes differ: every line that differs names the value that
// differs.
//
// Each line is a key, " = " and a value. The key says what the value is
// (a field, an entity as index:generation, a component's or resource's
// name, quoted as in Go), so a line means something without the lines
// around it. A float32 is written in decimal (shortest form) and then its
// exact bits in hex, in brackets, which tell -0, subnormals and NaNs
// apart. ExampleWorld_WriteDump shows a whole dump. The lines are, in
// order:
//
//	nebula state dump 1
//	tick = 1
//	hash = 08f0e43b98664239                  (World.Hash)
//	rng state = 725ae23ed14fec5f
//	rng inc = 14057b7ef767814f
//	slots = 2                                (entity slots, live or dead)
//	live = 1
//	free list length = 1
//	free 0 = 1                               (a line per entry, in order)
//	schema fingerprint = 9d95ad76d361740a
//	players = 1                              (the players in the match)
//	player 0 = in match                      (two lines per player)
//	player 0 input (not hashed) = <input.SampleWords words, 16 hex digits each>
//
// then every slot's lines, in slot order: whether its entity is alive,
// then its current position, rotation (W X Y Z), scale, velocity, angular
// velocity, draw mode, colour (RGBA), mesh and teleport mark, then its previous
// position, rotation, scale and velocity, which the hash leaves out:
//
//	entity 0:1 = alive
//	entity 0:1 pos = 1.5 -2 0.25 [3fc00000 c0000000 3e800000]
//	entity 0:1 rot = 1 0 0 0 [3f800000 00000000 00000000 00000000]
//	entity 0:1 scale = 1 1 1 [3f800000 3f800000 3f800000]
//	entity 0:1 vel = 3 0 0 [40400000 00000000 00000000]
//	entity 0:1 angvel = 0 0 0 [00000000 00000000 00000000]
//	entity 0:1 mode = hermite
//	entity 0:1 colour = 255 128 0 255
//	entity 0:1 mesh = 0
//	entity 0:1 teleport = false
//	entity 0:1 prev pos (not hashed) = 1.5 -2 0.25 [3fc00000 c0000000 3e800000]
//	entity 0:1 prev rot (not hashed) = 1 0 0 0 [3f800000 00000000 00000000 00000000]
//	entity 0:1 prev scale (not hashed) = 1 1 1 [3f800000 3f800000 3f800000]
//	entity 0:1 prev vel (not hashed) = 0 0 0 [00000000 00000000 00000000]
//
// A dead slot ("entity 1:2 = dead") has the same lines as a live one: the
// values a despawned entity left in its slot are part of the state hash.
//
// When some entity's draw attributes are not the defaults (a mesh scale
// other than one, an emissive colour other than black, hidden:
// World.SetMeshScale, SetEmissive, SetVisible), every slot has three more
// lines after its mesh:
//
//	entity 0:1 mesh scale = 2 1 1 [40000000 3f800000 3f800000]
//	entity 0:1 emissive = 0 0 0
//	entity 0:1 hidden = false
//
// When some entity has a parent (World.SetParent), the header has a line
// "entities with a parent = 2" before the players, and every slot has
// four more lines after its teleport mark, its parent ("none" or the
// parent as index:generation) and its world transform as the last
// PropagateTransforms computed it, and three after its previous velocity,
// its world transform at the start of the tick:
//
//	entity 1:1 parent = 0:1
//	entity 1:1 world pos = 2.5 -2 0.25 [40200000 c0000000 3e800000]
//	entity 1:1 world rot = 1 0 0 0 [3f800000 00000000 00000000 00000000]
//	entity 1:1 world scale = 1 1 1 [3f800000 3f800000 3f800000]
//	entity 1:1 prev world pos (not hashed) = ...
//	entity 1:1 prev world rot (not hashed) = ...
//	entity 1:1 prev world scale (not hashed) = ...
//
// A world without parents has none of these lines.
//
// Then each component and resource, in registration order: its type,
// then for a component the number of entities that have it and a line
// per entity that has it, in slot order, and for a resource its value. A
// fixed-size value is written as fmt's %+v (strconv's for plain numbers)
// and then its exact bytes in hex, in brackets: the bytes the state hash
// covers, little-endian and without padding. A variable-size value is
// written as the length and the hex of its AppendBinary bytes. A
// fixed-size component's value in a slot without the component should be
// zero (see Component.Slices); the hash covers it, so one that is not is
// written too, with "absent" after the entity.
//
//	component "bounces" type = int32, 4 bytes, shape a0b95f284c252e17
//	component "bounces" count = 1
//	component "bounces" 0:1 = 2 [02000000]
//	component "route" 0:1 = 24 bytes [0000803f00000040...]
//	resource "score" type = int64, 8 bytes, shape d21baa4b62e6a533
//	resource "score" = 40 [2800000000000000]
//
// The last line is "end", so that a dump cut short shows as one.
//
// WriteDump writes everything it can. It returns the first error of out,
// or else the first of a variable-size value's AppendBinary, whose line
// then holds the error in place of the value (and the hash line too, as
// Hash cannot be computed). It is meant for the rare tick whose hashes
// differ, not for every tick: for 1,000 entities with two components it
// writes about 800 KB in about 1.5 ms, allocating a 64 KiB buffer and
// what fmt allocates for the readable form of values of the game's own
// types (BenchmarkWriteDump).
func (w *World) WriteDump(out io.Writer) error {
	if out == nil {
		return errors.New("engine: WriteDump: the writer is nil")
	}
	d := &dumper{bw: bufio.NewWriterSize(out, 64<<10), gen: w.gen, drawAttrs: w.drawAttrs()}
	w.dumpHeader(d)
	for i := range w.gen {
		w.dumpSlot(d, i)
	}
	for _, c := range w.cols {
		c.dump(d)
	}
	d.emit(append(d.line[:0], "end"...))
	if err := d.bw.Flush(); err != nil {
		return fmt.Errorf("engine: WriteDump: writing the dump: %w", err)
	}
	if d.err == nil {
		return d.hashErr // the values' errors say which entity's value failed
	}
	return d.err
}

// dumper writes a dump's lines (see WriteDump).
type dumper struct {
	bw      *bufio.Writer
	gen     []uint32 // the world's generations, for entity IDs
	line    []byte   // the line being built, reused
	scratch []byte   // a value's bytes, reused
	err     error    // the first value that could not be encoded
	hashErr error    // why the hash could not be computed
	// drawAttrs: some draw attribute is not the default, so every
	// entity's are written (otherwise none are, as in dumps from before
	// draw attributes).
	drawAttrs bool
}

// emit writes the line b and a newline, keeping b's memory for the next
// line. A write error stays in the bufio.Writer, which Flush returns.
func (d *dumper) emit(b []byte) {
	b = append(b, '\n')
	d.bw.Write(b)
	d.line = b[:0]
}

// fail records err, unless an earlier error is recorded.
func (d *dumper) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// dumpHeader writes the lines before the entities.
func (w *World) dumpHeader(d *dumper) {
	b := strconv.AppendInt(append(d.line[:0], dumpHeader...), DumpVersion, 10)
	d.emit(b)
	d.emit(strconv.AppendUint(append(d.line[:0], "tick = "...), w.tick, 10))
	b = append(d.line[:0], "hash = "...)
	if h, err := w.safeHash(); err != nil {
		d.hashErr = fmt.Errorf("engine: WriteDump: the state hash: %w", err)
		b = append(b, "unavailable: "...)
		b = appendOneLine(b, err.Error())
	} else {
		b = appendHex64(b, h)
	}
	d.emit(b)
	st, inc := w.rng.State()
	d.emit(appendHex64(append(d.line[:0], "rng state = "...), st))
	d.emit(appendHex64(append(d.line[:0], "rng inc = "...), inc))
	d.emit(strconv.AppendInt(append(d.line[:0], "slots = "...), int64(len(w.gen)), 10))
	d.emit(strconv.AppendInt(append(d.line[:0], "live = "...), int64(w.count), 10))
	d.emit(strconv.AppendInt(append(d.line[:0], "free list length = "...), int64(len(w.free)), 10))
	for i, f := range w.free {
		b = strconv.AppendInt(append(d.line[:0], "free "...), int64(i), 10)
		d.emit(strconv.AppendUint(append(b, " = "...), uint64(f), 10))
	}
	d.emit(appendHex64(append(d.line[:0], "schema fingerprint = "...), w.fingerprint))
	if w.hier.linked > 0 {
		d.emit(strconv.AppendInt(append(d.line[:0], "entities with a parent = "...), int64(w.hier.linked), 10))
	}
	d.emit(strconv.AppendInt(append(d.line[:0], "players = "...), int64(len(w.players.ids)), 10))
	var words [input.SampleWords]uint64
	for i, id := range w.players.ids {
		b = strconv.AppendUint(append(d.line[:0], "player "...), uint64(id), 10)
		d.emit(append(b, " = in match"...))
		b = strconv.AppendUint(append(d.line[:0], "player "...), uint64(id), 10)
		b = append(b, " input (not hashed) ="...)
		w.players.inputs[i].Words(&words)
		for _, v := range words {
			b = appendHex64(append(b, ' '), v)
		}
		d.emit(b)
	}
}

// safeHash returns w.Hash(), or the error of a variable-size value's
// AppendBinary, for which Hash panics.
func (w *World) safeHash() (h uint64, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errors.New(strings.TrimPrefix(fmt.Sprint(v), "engine: "))
		}
	}()
	return w.Hash(), nil
}

// dumpSlot writes the lines of slot i.
func (w *World) dumpSlot(d *dumper, i int) {
	e := Entity{index: uint32(i), gen: w.gen[i]}
	b := appendEntityKey(d.line[:0], "entity ", e)
	if w.SlotAlive(i) {
		d.emit(append(b, " = alive"...))
	} else {
		d.emit(append(b, " = dead"...))
	}
	vec := func(field string, v [3]float32) {
		b := appendEntityKey(d.line[:0], "entity ", e)
		b = append(append(append(b, ' '), field...), " ="...)
		d.emit(appendFloats(b, v[0], v[1], v[2]))
	}
	rot := func(field string, q [4]float32) {
		b := appendEntityKey(d.line[:0], "entity ", e)
		b = append(append(append(b, ' '), field...), " ="...)
		d.emit(appendFloats(b, q[0], q[1], q[2], q[3]))
	}
	text := func(field, v string) {
		b := appendEntityKey(d.line[:0], "entity ", e)
		d.emit(append(append(append(append(b, ' '), field...), " = "...), v...))
	}
	c := &w.cur
	vec("pos", c.Pos[i])
	rot("rot", [4]float32{c.Rot[i].W, c.Rot[i].V[0], c.Rot[i].V[1], c.Rot[i].V[2]})
	vec("scale", c.Scale[i])
	vec("vel", c.Vel[i])
	vec("angvel", c.AngVel[i])
	text("mode", c.Mode[i].String())
	b = appendEntityKey(d.line[:0], "entity ", e)
	b = append(b, " colour ="...)
	for _, v := range c.Color[i] {
		b = strconv.AppendUint(append(b, ' '), uint64(v), 10)
	}
	d.emit(b)
	text("mesh", strconv.FormatUint(uint64(c.Mesh[i]), 10))
	if d.drawAttrs {
		vec("mesh scale", c.MeshScale[i])
		em := c.Emissive[i]
		text("emissive", fmt.Sprintf("%d %d %d", em[0], em[1], em[2]))
		text("hidden", strconv.FormatBool(c.Hidden[i]))
	}
	text("teleport", strconv.FormatBool(w.snap[i]))
	if h := &w.hier; h.linked > 0 {
		b = appendEntityKey(d.line[:0], "entity ", e)
		b = append(b, " parent = "...)
		if p := h.parent[i]; p == 0 {
			b = append(b, "none"...)
		} else {
			b = appendEntityKey(b, "", Entity{index: p - 1, gen: w.gen[p-1]})
		}
		d.emit(b)
		vec("world pos", h.cur.Pos[i])
		rot("world rot", [4]float32{h.cur.Rot[i].W, h.cur.Rot[i].V[0], h.cur.Rot[i].V[1], h.cur.Rot[i].V[2]})
		vec("world scale", h.cur.Scale[i])
	}
	p := &w.prev
	vec("prev pos (not hashed)", p.Pos[i])
	rot("prev rot (not hashed)", [4]float32{p.Rot[i].W, p.Rot[i].V[0], p.Rot[i].V[1], p.Rot[i].V[2]})
	vec("prev scale (not hashed)", p.Scale[i])
	vec("prev vel (not hashed)", p.Vel[i])
	if h := &w.hier; h.linked > 0 {
		vec("prev world pos (not hashed)", h.prv.Pos[i])
		rot("prev world rot (not hashed)", [4]float32{h.prv.Rot[i].W, h.prv.Rot[i].V[0], h.prv.Rot[i].V[1], h.prv.Rot[i].V[2]})
		vec("prev world scale (not hashed)", h.prv.Scale[i])
	}
}

// appendEntityKey appends prefix and e as index:generation.
func appendEntityKey(b []byte, prefix string, e Entity) []byte {
	b = strconv.AppendUint(append(b, prefix...), uint64(e.index), 10)
	return strconv.AppendUint(append(b, ':'), uint64(e.gen), 10)
}

// appendFloats appends " " and each of fs in decimal, then their bits in
// hex in brackets: " 1.5 -2 [3fc00000 c0000000]".
func appendFloats(b []byte, fs ...float32) []byte {
	for _, f := range fs {
		b = strconv.AppendFloat(append(b, ' '), float64(f), 'g', -1, 32)
	}
	b = append(b, " ["...)
	for i, f := range fs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendHex32(b, math.Float32bits(f))
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// appendHex32 appends v as 8 hex digits.
func appendHex32(b []byte, v uint32) []byte {
	for s := 28; s >= 0; s -= 4 {
		b = append(b, hexDigits[v>>s&0xf])
	}
	return b
}

// appendHex64 appends v as 16 hex digits.
func appendHex64(b []byte, v uint64) []byte {
	for s := 60; s >= 0; s -= 4 {
		b = append(b, hexDigits[v>>s&0xf])
	}
	return b
}

// appendColumnKey appends a component's or resource's key: its kind and
// its name, quoted.
func appendColumnKey(b []byte, e SchemaEntry) []byte {
	return strconv.AppendQuote(append(append(b, e.Kind...), ' '), e.Name)
}

// dumpType writes the type line of a component or resource.
func (d *dumper) dumpType(e SchemaEntry) {
	b := append(appendColumnKey(d.line[:0], e), " type = "...)
	b = append(b, e.Type...)
	if e.Size < 0 {
		b = append(b, ", variable size"...)
	} else {
		b = strconv.AppendInt(append(b, ", "...), int64(e.Size), 10)
		b = append(b, " bytes"...)
	}
	d.emit(appendHex64(append(b, ", shape "...), e.Shape))
}

// appendValue appends the dump of value v, of layout l: its readable form
// and its exact bytes in hex, or for a variable-size value its length and
// its AppendBinary bytes in hex.
//
//srccheck:wrapped by WriteDump, as "engine: WriteDump: component <name> of entity i:g: ..."
func appendValue[T any](d *dumper, b []byte, l *layout, v *T) ([]byte, error) {
	if l.kind == marshalled {
		enc, err := any(*v).(encoding.BinaryAppender).AppendBinary(d.scratch[:0])
		if err != nil {
			return appendOneLine(append(b, "error: "...), err.Error()), fmt.Errorf("%T.AppendBinary: %w", *v, err)
		}
		d.scratch = enc
		b = strconv.AppendInt(b, int64(len(enc)), 10)
		b = append(b, " bytes ["...)
		return append(hex.AppendEncode(b, enc), ']'), nil
	}
	d.scratch = appendCanonical(d.scratch[:0], l, unsafe.Slice(v, 1))
	b = appendReadable(b, v)
	b = append(b, " ["...)
	return append(hex.AppendEncode(b, d.scratch), ']'), nil
}

// appendReadable appends v's readable form: fmt's %+v, or strconv's for
// the common number types, on one line.
func appendReadable[T any](b []byte, v *T) []byte {
	switch p := any(v).(type) {
	case *bool:
		return strconv.AppendBool(b, *p)
	case *int8:
		return strconv.AppendInt(b, int64(*p), 10)
	case *int16:
		return strconv.AppendInt(b, int64(*p), 10)
	case *int32:
		return strconv.AppendInt(b, int64(*p), 10)
	case *int64:
		return strconv.AppendInt(b, *p, 10)
	case *uint8:
		return strconv.AppendUint(b, uint64(*p), 10)
	case *uint16:
		return strconv.AppendUint(b, uint64(*p), 10)
	case *uint32:
		return strconv.AppendUint(b, uint64(*p), 10)
	case *uint64:
		return strconv.AppendUint(b, *p, 10)
	case *float32:
		return strconv.AppendFloat(b, float64(*p), 'g', -1, 32)
	case *float64:
		return strconv.AppendFloat(b, *p, 'g', -1, 64)
	}
	n := len(b)
	b = fmt.Appendf(b, "%+v", *v)
	if bytes.ContainsAny(b[n:], "\n\r") { // a String method's newlines would break the line
		b = strconv.AppendQuote(b[:n], string(b[n:]))
	}
	return b
}

// appendOneLine appends s, quoted if it holds a line break.
func appendOneLine(b []byte, s string) []byte {
	if strings.ContainsAny(s, "\n\r") {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

func (c *Component[T]) dump(d *dumper) {
	e := c.schemaEntry()
	d.dumpType(e)
	b := append(appendColumnKey(d.line[:0], e), " count = "...)
	d.emit(strconv.AppendInt(b, int64(c.n), 10))
	for i, ok := range c.has {
		if !ok && (c.l.kind == marshalled || !nonZero(&c.l, &c.vals[i], d)) {
			continue // the hash covers neither a variable-size value nor a zero one here
		}
		ent := Entity{index: uint32(i), gen: d.gen[i]}
		b := appendEntityKey(append(appendColumnKey(d.line[:0], e), ' '), "", ent)
		if !ok {
			b = append(b, " absent"...)
		}
		b, err := appendValue(d, append(b, " = "...), &c.l, &c.vals[i])
		if err != nil {
			d.fail(fmt.Errorf("engine: WriteDump: component %q of entity %v: %w", c.name, ent, err))
		}
		d.emit(b)
	}
}

// nonZero reports whether the exact bytes of the fixed-size value *v are
// not all zero.
func nonZero[T any](l *layout, v *T, d *dumper) bool {
	d.scratch = appendCanonical(d.scratch[:0], l, unsafe.Slice(v, 1))
	for _, c := range d.scratch {
		if c != 0 {
			return true
		}
	}
	return false
}

func (r *Resource[T]) dump(d *dumper) {
	e := r.schemaEntry()
	d.dumpType(e)
	b, err := appendValue(d, append(appendColumnKey(d.line[:0], e), " = "...), &r.l, &r.v)
	if err != nil {
		d.fail(fmt.Errorf("engine: WriteDump: resource %q: %w", r.name, err))
	}
	d.emit(b)
}

// DiffDumps compares two dumps WriteDump wrote, line by line, and returns
// up to max lines describing where they differ, in order: "- " and a line
// of a that b does not have, "+ " and a line of b that a does not have. A
// value that differs gives the two lines, a's first. It returns nil when
// the dumps are the same, and every difference when max <= 0. It is meant
// for a log message; diff does better with two files.
//
// Lines are aligned by their key, the text before the first " = " outside
// a quoted name (the whole line when there is none): a line whose key the
// other dump has at the same place in the order is a changed value; one
// whose key the other dump lacks from there on was added or removed.
// That is all the alignment there is, so DiffDumps relies on what
// WriteDump guarantees: every key appears once, in the same order in every
// dump. Lines that two dumps hold in different orders show as changed
// pairs rather than moves, and an entity whose generation differs has
// other keys, so all of its lines show, removed then added.
func DiffDumps(a, b []byte, max int) []string {
	la, lb := dumpLines(a), dumpLines(b)
	lastA, lastB := lastKeys(la), lastKeys(lb)
	var out []string
	add := func(sign string, line []byte) bool {
		out = append(out, sign+string(line))
		return max <= 0 || len(out) < max
	}
	i, j := 0, 0
	for i < len(la) || j < len(lb) {
		more := true
		switch {
		case i == len(la):
			more = add("+ ", lb[j])
			j++
		case j == len(lb):
			more = add("- ", la[i])
			i++
		case bytes.Equal(la[i], lb[j]):
			i++
			j++
		default:
			ka, kb := dumpKey(la[i]), dumpKey(lb[j])
			switch {
			case ka == kb:
				more = add("- ", la[i]) && add("+ ", lb[j])
				i++
				j++
			case !keyFrom(lastB, ka, j): // b has no line of this key from here on
				more = add("- ", la[i])
				i++
			case !keyFrom(lastA, kb, i):
				more = add("+ ", lb[j])
				j++
			default: // both keys come later in the other: out of order
				more = add("- ", la[i]) && add("+ ", lb[j])
				i++
				j++
			}
		}
		if !more {
			break
		}
	}
	return out
}

// dumpLines splits a dump into lines, without the newlines.
func dumpLines(d []byte) [][]byte {
	d = bytes.TrimSuffix(d, []byte("\n"))
	if len(d) == 0 {
		return nil
	}
	return bytes.Split(d, []byte("\n"))
}

// lastKeys maps each key of lines to the index of its last line.
func lastKeys(lines [][]byte) map[string]int {
	m := make(map[string]int, len(lines))
	for i, l := range lines {
		m[dumpKey(l)] = i
	}
	return m
}

// keyFrom reports whether last, a lastKeys map, has a line of key at or
// after line i.
func keyFrom(last map[string]int, key string, i int) bool {
	k, ok := last[key]
	return ok && k >= i
}

// dumpKey returns the key of a dump line: the text before the first " = "
// outside a quoted string, or the whole line.
func dumpKey(line []byte) string {
	s := string(line)
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			if q, err := strconv.QuotedPrefix(s[i:]); err == nil {
				i += len(q) - 1
				continue
			}
		}
		if strings.HasPrefix(s[i:], " = ") {
			return s[:i]
		}
	}
	return s
}
