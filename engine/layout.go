package engine

import (
	"encoding"
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// A game's components and resources are stored, hashed and snapshotted by
// the exact bits of their values. A value's canonical bytes are what
// encoding/binary.Write would write for it in little-endian order: every
// field in declaration order, no padding. Nebula runs on little-endian
// machines only (see endian.go), so those bytes are the value's bytes in
// memory, less the padding the compiler put between fields. A layout
// lists the memory spans that hold them.

// valueKind says how the values of a component or resource are encoded.
type valueKind uint8

const (
	// packed: fixed-size plain data whose memory is exactly its canonical
	// bytes (no padding), so a column is hashed and copied as one block.
	packed valueKind = iota
	// padded: fixed-size plain data with padding between or after its
	// fields; the canonical bytes are gathered span by span.
	padded
	// marshalled: a type with its own AppendBinary and UnmarshalBinary,
	// for variable-size data.
	marshalled
)

// span is a run of canonical bytes in a value's memory.
type span struct{ off, n uintptr }

// layout is how the values of one type are encoded.
type layout struct {
	kind  valueKind
	typ   string    // the Go type, for the schema and messages
	size  int       // canonical bytes of one value; -1 when marshalled
	mem   uintptr   // unsafe.Sizeof of one value
	shape uint64    // hash of the encoding's description (see describe)
	spans []span    // canonical bytes in memory order (padded)
	bools []uintptr // offsets of bool fields, which must read 0 or 1
}

// Accepted describes what a component or resource may hold, for the
// messages of refused registrations.
const accepted = "fixed-size plain data (bools, sized integers, floats, complex numbers, and arrays and structs of them: whatever encoding/binary.Size accepts) or a type implementing encoding.BinaryAppender with a pointer implementing encoding.BinaryUnmarshaler"

// layoutOf returns the layout of T, or an error naming the type and saying
// why it cannot be stored.
//
//srccheck:wrapped by mustLayout, whose panic starts "engine: NewComponent(<name>): "
func layoutOf[T any]() (layout, error) {
	var zero T
	t := reflect.TypeFor[T]()
	_, appends := any(zero).(encoding.BinaryAppender)
	_, unmarshals := any(&zero).(encoding.BinaryUnmarshaler)
	if appends && unmarshals {
		return layout{kind: marshalled, typ: t.String(), size: -1, mem: t.Size(), shape: xxh3.HashString("marshalled")}, nil
	}
	if k := t.Kind(); !plainKind(k) && k != reflect.Struct && k != reflect.Array {
		if appends || unmarshals {
			return layout{}, fmt.Errorf("type %s implements only one of encoding.BinaryAppender and encoding.BinaryUnmarshaler (on its pointer); a component or resource holds %s", t, accepted)
		}
		return layout{}, fmt.Errorf("type %s is a %s; a component or resource holds %s", t, k, accepted)
	}
	if binary.Size(zero) < 0 {
		return layout{}, fmt.Errorf("type %s holds %s, which has no fixed size; a component or resource holds %s", t, unfixed(t), accepted)
	}
	l := layout{typ: t.String(), size: binary.Size(zero), mem: t.Size(), shape: xxh3.HashString(describe(t))}
	l.walk(t, 0)
	if len(l.spans) == 0 || len(l.spans) == 1 && l.spans[0].off == 0 && l.spans[0].n == l.mem {
		l.kind = packed
		l.spans = nil
	} else {
		l.kind = padded
	}
	if l.kind == packed && l.mem != uintptr(l.size) {
		// Cannot happen: one span covering the value is its canonical bytes.
		panic(fmt.Sprintf("engine: layout of %s: %d bytes in memory, %d canonical", t, l.mem, l.size))
	}
	return l, nil
}

// describe spells out what the canonical bytes of a plain type are, field
// by field ("struct{uint16;[3]float32}"), without names: two types with the
// same description encode the same values the same way.
func describe(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), describe(t.Elem()))
	case reflect.Struct:
		b := []byte("struct{")
		for i := range t.NumField() {
			if i > 0 {
				b = append(b, ';')
			}
			b = append(b, describe(t.Field(i).Type)...)
		}
		return string(append(b, '}'))
	}
	return t.Kind().String()
}

func plainKind(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	}
	return false
}

// unfixed names the first part of t without a fixed size, for messages.
func unfixed(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Array:
		return unfixed(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if k := f.Type.Kind(); !plainKind(k) && k != reflect.Struct && k != reflect.Array {
				return fmt.Sprintf("field %s of type %s", f.Name, f.Type)
			}
			if binary.Size(reflect.Zero(f.Type).Interface()) < 0 {
				return fmt.Sprintf("field %s (%s)", f.Name, unfixed(f.Type))
			}
		}
	}
	return fmt.Sprintf("a %s (%s)", t.Kind(), t)
}

// walk appends the spans of a value of type t at offset off, merging
// neighbours.
func (l *layout) walk(t reflect.Type, off uintptr) {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			l.walk(f.Type, off+f.Offset)
		}
	case reflect.Array:
		if t.Len() == 0 {
			return
		}
		e := t.Elem()
		if plainKind(e.Kind()) && e.Kind() != reflect.Bool {
			l.add(off, uintptr(t.Len())*e.Size()) // one run: no padding between numbers
			return
		}
		for i := range t.Len() {
			l.walk(e, off+uintptr(i)*e.Size())
		}
	default:
		if t.Kind() == reflect.Bool {
			l.bools = append(l.bools, off)
		}
		l.add(off, t.Size())
	}
}

func (l *layout) add(off, n uintptr) {
	if k := len(l.spans); k > 0 && l.spans[k-1].off+l.spans[k-1].n == off {
		l.spans[k-1].n += n
		return
	}
	l.spans = append(l.spans, span{off, n})
}

// bytesOf returns the memory of s as bytes.
func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(s[0]))
}

// appendCanonical appends the canonical bytes of vs (a packed or padded
// layout) to b.
func appendCanonical[T any](b []byte, l *layout, vs []T) []byte {
	if l.kind == packed {
		return append(b, bytesOf(vs)...)
	}
	n := len(b)
	b = slices.Grow(b, len(vs)*l.size)[:n+len(vs)*l.size]
	out := b[n:]
	mem := bytesOf(vs)
	for i := range vs {
		v := mem[uintptr(i)*l.mem:]
		for _, s := range l.spans {
			copySpan(out, v[s.off:], s.n)
			out = out[s.n:]
		}
	}
	return b
}

// copySpan copies the first n bytes of src to dst, with one load and one
// store for the common field sizes (copy calls memmove, which costs more
// than the move for a few bytes).
func copySpan(dst, src []byte, n uintptr) {
	le := binary.LittleEndian
	switch n {
	case 1:
		dst[0] = src[0]
	case 2:
		le.PutUint16(dst, le.Uint16(src))
	case 4:
		le.PutUint32(dst, le.Uint32(src))
	case 8:
		le.PutUint64(dst, le.Uint64(src))
	default:
		copy(dst[:n], src[:n])
	}
}

// readCanonical fills vs from the canonical bytes in src (len(vs)*size
// bytes), or says which value holds a bool that is neither 0 nor 1.
//
//srccheck:wrapped by Restore, as "engine: snapshot: byte N, <field>: ..."
func readCanonical[T any](vs []T, l *layout, src []byte) error {
	mem := bytesOf(vs)
	if l.kind == packed {
		copy(mem, src)
	} else {
		for i := range vs {
			v := mem[uintptr(i)*l.mem:]
			for _, s := range l.spans {
				copySpan(v[s.off:], src, s.n)
				src = src[s.n:]
			}
		}
	}
	if len(l.bools) > 0 {
		for i := range vs {
			v := mem[uintptr(i)*l.mem:]
			for _, off := range l.bools {
				if v[off] > 1 {
					defer clear(mem) // no invalid bool survives an error (after the message reads it)
					return fmt.Errorf("value %d has a bool field of byte %d (0 or 1 allowed)", i, v[off])
				}
			}
		}
	}
	return nil
}
