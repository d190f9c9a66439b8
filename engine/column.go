package engine

import (
	"encoding"
	"fmt"
	"slices"
	"unsafe"

	"github.com/zeebo/xxh3"

	"github.com/nebulaengine/nebula/internal/binread"
)

// A column is a game's registered state in a World: a component (a value
// per entity) or a resource (one value). The World keeps them in
// registration order and has each hash, snapshot, save and load itself.
type column interface {
	schemaEntry() SchemaEntry
	// grow adds a slot at the end (components only).
	grow()
	// clearSlot removes slot i's value (despawn; components only).
	clearSlot(i int)
	// hash writes the column's canonical bytes to h; scratch is a buffer
	// to reuse.
	hash(h *xxh3.Hasher, scratch []byte) []byte
	// dump writes the column's lines of a state dump (see WriteDump).
	dump(d *dumper)
	// appendSnapshot appends the column's portable bytes to b.
	appendSnapshot(b []byte) []byte
	// decodeSnapshot decodes the column from r for a world of the given
	// slots (and their generations), keeping the result aside until
	// commit.
	decodeSnapshot(r *binread.Reader, gen []uint32)
	// commit makes the decoded column current.
	commit()
	// save copies the column into *dst (made on first use) for LoadState.
	save(dst *any)
	// canLoad reports whether src was saved from a column of this type.
	canLoad(src any) bool
	// load copies a saved column back.
	load(src any)
}

func (c *Component[T]) schemaEntry() SchemaEntry {
	return SchemaEntry{Kind: "component", Name: c.name, Type: c.l.typ, Size: c.l.size, Shape: c.l.shape}
}

func (c *Component[T]) grow() {
	var zero T
	c.vals = append(c.vals, zero)
	c.has = append(c.has, false)
}

func (c *Component[T]) clearSlot(i int) {
	if c.has[i] {
		c.has[i] = false
		c.n--
		c.stale = true
	}
	var zero T
	c.vals[i] = zero
}

func (c *Component[T]) hash(h *xxh3.Hasher, scratch []byte) []byte {
	h.Write(bytesOf(c.has))
	switch c.l.kind {
	case packed:
		h.Write(bytesOf(c.vals))
	case padded:
		scratch = appendCanonical(scratch[:0], &c.l, c.vals)
		h.Write(scratch)
	case marshalled:
		scratch = scratch[:0]
		for i, ok := range c.has {
			if ok {
				scratch = appendMarshalled(scratch, c.vals[i])
			}
		}
		h.Write(scratch)
	}
	return scratch
}

// appendMarshalled appends v's AppendBinary bytes with a uint32 length
// before them.
func appendMarshalled[T any](b []byte, v T) []byte {
	at := len(b)
	b = append(b, 0, 0, 0, 0)
	b, err := any(v).(encoding.BinaryAppender).AppendBinary(b)
	if err != nil {
		panic(fmt.Sprintf("engine: %T.AppendBinary: %v", v, err))
	}
	n := len(b) - at - 4
	b[at], b[at+1], b[at+2], b[at+3] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
	return b
}

func (c *Component[T]) appendSnapshot(b []byte) []byte {
	for _, ok := range c.has {
		b = append(b, boolByte(ok))
	}
	if c.l.kind != marshalled {
		return appendCanonical(b, &c.l, c.vals)
	}
	for i, ok := range c.has {
		if ok {
			b = appendMarshalled(b, c.vals[i])
		}
	}
	return b
}

func (c *Component[T]) decodeSnapshot(r *binread.Reader, gen []uint32) {
	field := fmt.Sprintf("component %q", c.name)
	n := len(gen)
	c.stHas = make([]bool, n)
	c.stVals = make([]T, n)
	c.stN = 0
	for i, b := range r.Take(field, n) {
		if b > 1 || b == 1 && gen[i]&1 == 0 {
			r.Fail(field, fmt.Errorf("slot %d has presence byte %d (0, or 1 for a live slot)", i, b))
			return
		}
		c.stHas[i] = b == 1
		c.stN += int(b)
	}
	if c.l.kind != marshalled {
		at := r.Offset()
		if src := r.Take(field, n*c.l.size); src != nil {
			if err := readCanonical(c.stVals, &c.l, src); err != nil {
				r.FailAt(at, field, err)
			}
		}
		return
	}
	for i, ok := range c.stHas {
		if ok {
			readMarshalled(r, field, i, &c.stVals[i])
		}
	}
}

// readMarshalled decodes one length-prefixed value into v.
//
//srccheck:wrapped by Restore, as "engine: snapshot: byte N, <field>: ..."
func readMarshalled[T any](r *binread.Reader, field string, slot int, v *T) {
	at := r.Offset()
	b := r.Take(field, r.Count(field, MaxValueBytes, 1))
	if r.Err() != nil {
		return
	}
	if err := any(v).(encoding.BinaryUnmarshaler).UnmarshalBinary(b); err != nil {
		if slot >= 0 {
			err = fmt.Errorf("slot %d: %T.UnmarshalBinary: %w", slot, *v, err)
		} else {
			err = fmt.Errorf("%T.UnmarshalBinary: %w", *v, err)
		}
		r.FailAt(at, field, err)
	}
}

// MaxValueBytes caps the encoding of one variable-size value in a
// snapshot.
const MaxValueBytes = 1 << 24

func (c *Component[T]) commit() {
	c.vals, c.has, c.n = c.stVals, c.stHas, c.stN
	c.stale = true
	c.stVals, c.stHas = nil, nil
}

// componentState is a component saved by SaveState: a copy of its values
// (or of their encodings, for a marshalled type) and of its presence.
type componentState[T any] struct {
	vals []T
	has  []bool
	n    int
	enc  []byte
}

func (c *Component[T]) save(dst *any) {
	s, _ := (*dst).(*componentState[T])
	if s == nil {
		s = new(componentState[T])
		*dst = s
	}
	s.has = append(s.has[:0], c.has...)
	s.n = c.n
	if c.l.kind != marshalled {
		s.vals = append(s.vals[:0], c.vals...)
		return
	}
	s.enc = s.enc[:0]
	for i, ok := range c.has {
		if ok {
			s.enc = appendMarshalled(s.enc, c.vals[i])
		}
	}
}

// copyTo makes *dst (made on first use) a copy of s, for State.CopyFrom.
func (s *componentState[T]) copyTo(dst *any) {
	d, _ := (*dst).(*componentState[T])
	if d == nil {
		d = new(componentState[T])
		*dst = d
	}
	d.vals = append(d.vals[:0], s.vals...)
	d.has = append(d.has[:0], s.has...)
	d.n = s.n
	d.enc = append(d.enc[:0], s.enc...)
}

func (c *Component[T]) canLoad(src any) bool {
	_, ok := src.(*componentState[T])
	return ok
}

func (c *Component[T]) load(src any) {
	s := src.(*componentState[T]) // checked by canLoad
	c.has = append(c.has[:0], s.has...)
	c.n = s.n
	c.stale = true
	if c.l.kind != marshalled {
		c.vals = append(c.vals[:0], s.vals...)
		return
	}
	// A slot that holds a value now and at the save is decoded into the
	// value already there, so that a value reuses its memory (slices) from
	// one load to the next: UnmarshalBinary replaces the whole value.
	var zero T
	had := len(c.vals)
	c.vals = slices.Grow(c.vals[:0], len(s.has))[:len(s.has)]
	enc := s.enc
	for i, ok := range c.has {
		if !ok || i >= had {
			c.vals[i] = zero
		}
		if !ok {
			continue
		}
		n := int(enc[0]) | int(enc[1])<<8 | int(enc[2])<<16 | int(enc[3])<<24
		if err := any(&c.vals[i]).(encoding.BinaryUnmarshaler).UnmarshalBinary(enc[4 : 4+n]); err != nil {
			panic(fmt.Sprintf("engine: LoadState: %T.UnmarshalBinary of what its AppendBinary wrote: %v", zero, err))
		}
		enc = enc[4+n:]
	}
}

func (r *Resource[T]) schemaEntry() SchemaEntry {
	return SchemaEntry{Kind: "resource", Name: r.name, Type: r.l.typ, Size: r.l.size, Shape: r.l.shape}
}

func (r *Resource[T]) grow()         {}
func (r *Resource[T]) clearSlot(int) {}

func (r *Resource[T]) one() []T { return unsafe.Slice(&r.v, 1) }

func (r *Resource[T]) hash(h *xxh3.Hasher, scratch []byte) []byte {
	switch r.l.kind {
	case packed:
		h.Write(bytesOf(r.one()))
		return scratch
	case padded:
		scratch = appendCanonical(scratch[:0], &r.l, r.one())
	case marshalled:
		scratch = appendMarshalled(scratch[:0], r.v)
	}
	h.Write(scratch)
	return scratch
}

func (r *Resource[T]) appendSnapshot(b []byte) []byte {
	if r.l.kind == marshalled {
		return appendMarshalled(b, r.v)
	}
	return appendCanonical(b, &r.l, r.one())
}

func (r *Resource[T]) decodeSnapshot(sr *binread.Reader, _ []uint32) {
	field := fmt.Sprintf("resource %q", r.name)
	var zero T
	r.st = zero
	if r.l.kind == marshalled {
		readMarshalled(sr, field, -1, &r.st)
		return
	}
	at := sr.Offset()
	if src := sr.Take(field, r.l.size); src != nil {
		if err := readCanonical(unsafe.Slice(&r.st, 1), &r.l, src); err != nil {
			sr.FailAt(at, field, err)
		}
	}
}

func (r *Resource[T]) commit() {
	var zero T
	r.v, r.st = r.st, zero
}

// resourceState is a resource saved by SaveState.
type resourceState[T any] struct {
	v   T
	enc []byte
}

func (r *Resource[T]) save(dst *any) {
	s, _ := (*dst).(*resourceState[T])
	if s == nil {
		s = new(resourceState[T])
		*dst = s
	}
	if r.l.kind == marshalled {
		s.enc = appendMarshalled(s.enc[:0], r.v)
		return
	}
	s.v = r.v
}

// copyTo makes *dst (made on first use) a copy of s, for State.CopyFrom.
func (s *resourceState[T]) copyTo(dst *any) {
	d, _ := (*dst).(*resourceState[T])
	if d == nil {
		d = new(resourceState[T])
		*dst = d
	}
	d.v = s.v
	d.enc = append(d.enc[:0], s.enc...)
}

func (r *Resource[T]) canLoad(src any) bool {
	_, ok := src.(*resourceState[T])
	return ok
}

func (r *Resource[T]) load(src any) {
	s := src.(*resourceState[T]) // checked by canLoad
	if r.l.kind != marshalled {
		r.v = s.v
		return
	}
	// Decoded into the value already there, so that it reuses its memory
	// (slices) from one load to the next: UnmarshalBinary replaces the
	// whole value.
	var zero T
	if err := any(&r.v).(encoding.BinaryUnmarshaler).UnmarshalBinary(s.enc[4:]); err != nil {
		panic(fmt.Sprintf("engine: LoadState: %T.UnmarshalBinary of what its AppendBinary wrote: %v", zero, err))
	}
}
