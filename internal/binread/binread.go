// Package binread reads little-endian binary data the way Nebula's
// snapshots and replay files are decoded: a Reader walks a []byte, and the
// first fault (the input ends early, a length is over its limit, a value
// the caller refuses) is kept with the byte offset and the field where it
// happened. After a fault every read returns zero, so a decoder reads a
// whole structure and checks Err once, instead of after every field.
//
// Lengths are checked against their limit and against the bytes left
// before anything is allocated for them (Count, Take), so a hostile
// length cannot make a decoder allocate more than the input's size.
//
// The packages that use it keep their own public error types
// (engine.SnapshotError, replay.FormatError) and make them from Error at
// their boundary.
package binread

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrTruncated is wrapped by the Err of an Error for input that ends
// before a read (a *ShortError, or Count's error).
//
//srccheck:wrapped by the packages that decode with a Reader, in their own errors (engine: snapshot: ..., replay: ...)
var ErrTruncated = errors.New("truncated")

// ErrOverflow is the Err of an Error for a varint of more than 64 bits.
var ErrOverflow = errors.New("varint overflows 64 bits")

// Error is a fault in the input: the byte offset and the field where
// decoding stopped, and why.
type Error struct {
	Offset int    // byte offset in the input where decoding stopped
	Field  string // the field being decoded
	Err    error  // why, such as a *ShortError
}

// Error says where decoding stopped and why.
func (e *Error) Error() string {
	return fmt.Sprintf("byte %d, field %s: %v", e.Offset, e.Field, e.Err)
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// ShortError is the Err of an Error for a read past the end of the input
// (or of the limit set by Limit). It wraps ErrTruncated.
type ShortError struct {
	Need    int  // bytes the read needed (0 for a varint)
	Left    int  // bytes that were left
	Limited bool // the end was a Limit, not the input's end
	Varint  bool // the read was a varint (Uvarint)
}

// Error says how short the input is.
func (e *ShortError) Error() string {
	if e.Varint {
		return "truncated: the input ends inside a varint"
	}
	return fmt.Sprintf("truncated: needs %d bytes, %d left", e.Need, e.Left)
}

// Unwrap returns ErrTruncated.
func (e *ShortError) Unwrap() error { return ErrTruncated }

// Reader reads b from its start. The zero Reader reads nothing; make one
// with New.
type Reader struct {
	b   []byte
	off int
	end int // reads stop here: len(b), or the limit
	err *Error
}

// New returns a Reader over b.
func New(b []byte) Reader { return Reader{b: b, end: len(b)} }

// Offset returns the offset of the next byte to read.
func (r *Reader) Offset() int { return r.off }

// Left returns the bytes left before the end (or the limit).
func (r *Reader) Left() int { return r.end - r.off }

// Limit makes reads stop at byte end of the input (a chunk's end) instead
// of at the input's end, until Unlimit.
func (r *Reader) Limit(end int) { r.end = min(max(end, r.off), len(r.b)) }

// Unlimit lets reads go on to the input's end.
func (r *Reader) Unlimit() { r.end = len(r.b) }

// Err returns the first fault, or nil (a nil *Error: compare it with nil
// before returning it as an error).
func (r *Reader) Err() *Error { return r.err }

// Fail records err as the fault of field at the current offset, unless a
// fault was recorded before.
func (r *Reader) Fail(field string, err error) { r.FailAt(r.off, field, err) }

// FailAt records err as the fault of field at byte off (where the field
// starts, for a value read and then refused), unless a fault was recorded
// before.
func (r *Reader) FailAt(off int, field string, err error) {
	if r.err == nil {
		r.err = &Error{Offset: off, Field: field, Err: err}
	}
}

// Take returns the next n bytes of the input (not a copy), or nil after a
// fault or when fewer than n are left, which is a fault.
func (r *Reader) Take(field string, n int) []byte {
	off := r.off
	if r.err != nil || uint(n) > uint(r.end-off) { // n < 0 too
		return r.short(field, n)
	}
	r.off = off + n
	return r.b[off:r.off:r.off]
}

// Peek returns the next n bytes of the input without reading them, or nil
// after a fault or when fewer than n are left, which is a fault: a check
// that a run of values is whole before reading them one by one.
func (r *Reader) Peek(field string, n int) []byte {
	s := r.Take(field, n)
	r.off -= len(s)
	return s
}

// short records a read of n bytes past the end, unless a fault was
// recorded before, and returns nil.
func (r *Reader) short(field string, n int) []byte {
	if r.err == nil {
		r.Fail(field, &ShortError{Need: n, Left: r.end - r.off, Limited: r.end < len(r.b)})
	}
	return nil
}

// U8 reads a byte.
func (r *Reader) U8(field string) uint8 {
	if s := r.Take(field, 1); s != nil {
		return s[0]
	}
	return 0
}

// U16 reads a little-endian uint16.
func (r *Reader) U16(field string) uint16 {
	if s := r.Take(field, 2); s != nil {
		return binary.LittleEndian.Uint16(s)
	}
	return 0
}

// U32 reads a little-endian uint32.
func (r *Reader) U32(field string) uint32 {
	if s := r.Take(field, 4); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

// U64 reads a little-endian uint64.
func (r *Reader) U64(field string) uint64 {
	if s := r.Take(field, 8); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

// Uvarint reads an unsigned varint (encoding/binary's).
func (r *Reader) Uvarint(field string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:r.end])
	switch {
	case n == 0:
		r.Fail(field, &ShortError{Left: r.end - r.off, Limited: r.end < len(r.b), Varint: true})
	case n < 0:
		r.Fail(field, ErrOverflow)
	default:
		r.off += n
	}
	return v
}

// Count reads a uint32 length of items of size bytes each and returns it,
// checked against max and against the bytes left before the caller
// allocates for it; a length over either is a fault at the length, and
// Count returns 0.
func (r *Reader) Count(field string, max, size int) int {
	at := r.off
	n := uint64(r.U32(field)) // uint64: no overflow where int has 32 bits
	switch {
	case r.err != nil:
		return 0
	case n > uint64(max):
		r.FailAt(at, field, fmt.Errorf("%d entries, at most %d allowed", n, max))
		return 0
	case n*uint64(size) > uint64(r.end-r.off):
		r.FailAt(at, field, fmt.Errorf("%w: %d entries of %d bytes, %d bytes left", ErrTruncated, n, size, r.end-r.off))
		return 0
	}
	return int(n)
}
