package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"
	"unicode/utf8"

	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/internal/binread"
)

// An input's compact form: a mask of its non-zero words
// (input.Sample.Words), then for each of them, lowest first, a mask of its
// non-zero bytes and those bytes, lowest first. The mask is two bytes for
// words 0 to 14, bit 15 set when three more bytes follow for words 15 to
// 38; they follow only when one of those words is not zero, so an input
// of keys and mouse alone (its first input.KeyMouseWords words) has the
// form it had before gamepads and actions.
const (
	// maskBytes is the bytes of the first part of the word mask.
	maskBytes = 2
	// maskLow is the number of words the first part marks.
	maskLow = 15
	// maskExtBytes is the bytes of the mask's extension.
	maskExtBytes = 3
	// maskExt is bit 15 of the mask's first part: the extension follows.
	maskExt = 1 << maskLow
	// minSample is the fewest bytes of an input: the zero input.
	minSample = maskBytes
)

// The word mask, and its extension, must hold every word, and an input
// of keys and mouse alone needs no extension.
var (
	_ [maskLow + 8*maskExtBytes - input.SampleWords]struct{}
	_ [maskLow - input.KeyMouseWords]struct{}
)

// appendSample appends the input s in its compact form.
func appendSample(b []byte, s *input.Sample) []byte {
	var w [input.SampleWords]uint64
	s.Words(&w)
	var mask uint64
	for i, v := range w {
		if v != 0 {
			mask |= 1 << i
		}
	}
	low, ext := mask&(maskExt-1), mask>>maskLow
	if ext != 0 {
		low |= maskExt
	}
	b = append(b, byte(low), byte(low>>8))
	if ext != 0 {
		b = append(b, byte(ext), byte(ext>>8), byte(ext>>16))
	}
	for _, v := range w {
		if v == 0 {
			continue
		}
		bm := nonZeroBytes(v)
		var out [9]byte
		out[0] = bm
		k := 1
		for ; bm != 0; bm &= bm - 1 {
			out[k] = byte(v >> (8 * bits.TrailingZeros8(bm)))
			k++
		}
		b = append(b, out[:k]...)
	}
	return b
}

// nonZeroBytes returns a mask with bit j set when byte j of v is not zero.
func nonZeroBytes(v uint64) byte {
	const lo7 = 0x7f7f7f7f7f7f7f7f
	// The top bit of each byte: set when the byte is not zero.
	t := ((v & lo7) + lo7 | v) &^ lo7
	// Gather the eight top bits into the top byte.
	return byte((t >> 7) * 0x0102040810204080 >> 56)
}

// decoder reads an encoded message (the length and type first, so that
// offsets are the message's) and keeps its first fault.
type decoder struct {
	binread.Reader
}

// refuse records err (when not nil) as the fault of field at byte at,
// unless a fault was recorded before.
func (d *decoder) refuse(at int, field string, err error) {
	if err != nil {
		d.FailAt(at, field, err)
	}
}

// count reads a count of width bytes (1 or 2) and returns it, or 0 after a
// fault: a count outside [lo, max], or more entries of at least size
// bytes than the message has left, is a fault at the count, found before
// anything is allocated for it.
func (d *decoder) count(width int, field string, lo, max, size int, unit string) int {
	at := d.Offset()
	var n int
	if width == 1 {
		n = int(d.U8(field))
	} else {
		n = int(d.U16(field))
	}
	if d.Err() != nil {
		return 0
	}
	if err := checkCount(n, lo, max, unit); err != nil {
		d.FailAt(at, field, err)
		return 0
	}
	if n*size > d.Left() {
		d.FailAt(at, field, fmt.Errorf("%d %s of at least %d bytes each, but the message has %d bytes left", n, unit, size, d.Left()))
		return 0
	}
	return n
}

// sample reads an input in its compact form into s. Only the canonical
// form is accepted (every byte marked non-zero is non-zero), so that a
// message that decodes encodes to the same bytes.
func (d *decoder) sample(s *input.Sample) {
	at := d.Offset()
	mb := d.Take("input words", maskBytes)
	if mb == nil {
		return
	}
	mask := uint64(mb[0]) | uint64(mb[1])<<8
	if mask&maskExt != 0 {
		eat := d.Offset()
		eb := d.Take("input words", maskExtBytes)
		if eb == nil {
			return
		}
		ext := uint64(eb[0]) | uint64(eb[1])<<8 | uint64(eb[2])<<16
		if ext == 0 {
			d.FailAt(eat, "input words", fmt.Errorf("the mask's extension is present but zero"))
			return
		}
		mask = mask&^maskExt | ext<<maskLow
	}
	if mask>>input.SampleWords != 0 {
		d.FailAt(at, "input words", fmt.Errorf("mask %#x marks words beyond the %d of an input", mask, input.SampleWords))
		return
	}
	var w [input.SampleWords]uint64
	for ; mask != 0; mask &= mask - 1 {
		i := bits.TrailingZeros64(mask)
		at := d.Offset()
		bm := d.U8("input word")
		c := d.Take("input word", bits.OnesCount8(bm))
		if c == nil {
			return
		}
		if bm == 0 {
			d.FailAt(at, "input word", fmt.Errorf("word %d is marked non-zero but has no bytes", i))
			return
		}
		var v uint64
		for k := 0; bm != 0; bm &= bm - 1 {
			if c[k] == 0 {
				d.FailAt(at+1+k, "input word", fmt.Errorf("byte %d of word %d is marked non-zero but is 0", bits.TrailingZeros8(bm), i))
				return
			}
			v |= uint64(c[k]) << (8 * bits.TrailingZeros8(bm))
			k++
		}
		w[i] = v
	}
	if err := s.SetWords(&w); err != nil {
		d.FailAt(at, "input", err)
	}
}

// ids reads a uint16 count and that many ascending player IDs into old's
// memory.
func (d *decoder) ids(field string, old []PlayerID) []PlayerID {
	n := d.count(2, field, 0, MaxPlayers, 2, "players")
	s := resize(old, n)
	for i := range s {
		at := d.Offset()
		s[i] = PlayerID(d.U16(field))
		if d.Err() != nil {
			return s[:0]
		}
		err := checkPlayerID(s[i])
		if err == nil && i > 0 {
			err = checkAscending(s[i-1], s[i])
		}
		if err != nil {
			d.FailAt(at, field, err)
			return s[:0]
		}
	}
	return s
}

// string8 reads a uint8 length (field lenField, at most max) and that
// much text; old is kept when it is the same text, so a repeated message
// does not allocate.
func (d *decoder) string8(lenField, field string, max int, old string) string {
	at := d.Offset()
	n := int(d.U8(lenField))
	return d.text(at, lenField, field, n, max, old)
}

// string16 is string8 with a uint16 length.
func (d *decoder) string16(lenField, field string, max int, old string) string {
	at := d.Offset()
	n := int(d.U16(lenField))
	return d.text(at, lenField, field, n, max, old)
}

func (d *decoder) text(at int, lenField, field string, n, max int, old string) string {
	if d.Err() == nil && n > max {
		d.FailAt(at, lenField, fmt.Errorf("%d bytes, at most %d", n, max))
		return ""
	}
	at = d.Offset()
	b := d.Take(field, n)
	if b == nil {
		return ""
	}
	s := old
	if string(b) != old {
		s = string(b)
	}
	if err := checkText(s, max); err != nil {
		d.FailAt(at, field, err)
	}
	return s
}

// bytes16 reads a uint16 length (field lenField, at most max) and that
// many bytes, which are not copied.
func (d *decoder) bytes16(lenField, field string, max int) []byte {
	at := d.Offset()
	n := int(d.U16(lenField))
	if d.Err() == nil && n > max {
		d.FailAt(at, lenField, fmt.Errorf("%d bytes, at most %d", n, max))
		return nil
	}
	return d.Take(field, n)
}

// resize returns s with length n, reusing its memory (and the memory of
// the elements it held) when it has room.
func resize[T any](s []T, n int) []T {
	if n <= cap(s) {
		return s[:n]
	}
	s = s[:cap(s)]
	return append(s, make([]T, n-len(s))...)
}

func appendString8(b []byte, s string) []byte {
	s = s[:min(len(s), math.MaxUint8)]
	return append(append(b, byte(len(s))), s...)
}

func appendString16(b []byte, s string) []byte {
	s = s[:min(len(s), math.MaxUint16)]
	b = binary.LittleEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

func appendBytes16(b []byte, s []byte) []byte {
	s = s[:min(len(s), math.MaxUint16)]
	b = binary.LittleEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

func appendIDs(b []byte, ids []PlayerID) []byte {
	ids = ids[:min(len(ids), math.MaxUint16)]
	b = binary.LittleEndian.AppendUint16(b, uint16(len(ids)))
	for _, id := range ids {
		b = binary.LittleEndian.AppendUint16(b, uint16(id))
	}
	return b
}

// The checks below are shared by the decoders and Check, so that what
// Writer sends, Reader accepts. Each returns an error that says what was
// wrong and what is accepted.

//srccheck:wrapped by Check and the Reader, as "wire: ... byte N (<field>): ..."
func checkText(s string, max int) error {
	if len(s) > max {
		return fmt.Errorf("%d bytes, at most %d", len(s), max)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return fmt.Errorf("byte %d is the control character 0x%02x; the text must be one printable line", i, c)
		}
	}
	if !utf8.ValidString(s) {
		return errors.New("not valid UTF-8")
	}
	return nil
}

//srccheck:wrapped by Check and the Reader, as "wire: ... byte N (<field>): ..."
func checkCount(n, lo, max int, unit string) error {
	if n < lo || n > max {
		return fmt.Errorf("%d %s, want %d to %d", n, unit, lo, max)
	}
	return nil
}

// checkLast checks that a run of n ticks from first ends at a tick a
// uint64 holds.
//
//srccheck:wrapped by Check and the Reader, as "wire: ... byte N (<field>): ..."
func checkLast(first uint64, n int) error {
	if n > 0 && first > math.MaxUint64-uint64(n-1) {
		return fmt.Errorf("tick %d and %d more go beyond the last tick (%d)", first, n-1, uint64(math.MaxUint64))
	}
	return nil
}

//srccheck:wrapped by Check and the Reader, as "wire: ... byte N (<field>): ..."
func checkRole(r Role) error {
	if r != RolePlayer && r != RoleSpectator {
		return fmt.Errorf("role %d, want %d (player) or %d (spectator)", uint8(r), RolePlayer, RoleSpectator)
	}
	return nil
}

//srccheck:wrapped by Check and the Reader, as "wire: ... byte N (<field>): ..."
func checkPlayerID(id PlayerID) error {
	if id >= MaxPlayers {
		return fmt.Errorf("player %d, want 0 to %d", id, MaxPlayers-1)
	}
	return nil
}

// checkPlayer checks a Welcome's player: a player ID, or NoPlayer.
//
//srccheck:wrapped by Check and the Reader, as "wire: ... byte N (<field>): ..."
func checkPlayer(id PlayerID) error {
	if id >= MaxPlayers && id != NoPlayer {
		return fmt.Errorf("player %d, want 0 to %d, or %d (a spectator)", id, MaxPlayers-1, NoPlayer)
	}
	return nil
}

//srccheck:wrapped by Check and the Reader, as "wire: ... byte N (<field>): ..."
func checkAscending(prev, id PlayerID) error {
	if id <= prev {
		return fmt.Errorf("player %d after player %d: players are listed once each, in ascending order", id, prev)
	}
	return nil
}

func checkIDs(ids []PlayerID) error {
	if err := checkCount(len(ids), 0, MaxPlayers, "players"); err != nil {
		return err
	}
	for i, id := range ids {
		err := checkPlayerID(id)
		if err == nil && i > 0 {
			err = checkAscending(ids[i-1], id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

//srccheck:wrapped by Check and the Reader, as "wire: ... byte N (<field>): ..."
func checkTickRate(hz uint16) error {
	if hz == 0 {
		return errors.New("0 Hz, want at least 1")
	}
	return nil
}

//srccheck:wrapped by Check and the Reader, as "wire: ... byte N (<field>): ..."
func checkEndReason(r EndReason) error {
	if r != EndTicks && r != EndShutdown && r != EndFailed {
		return fmt.Errorf("reason %d, want %d (last tick), %d (shutdown) or %d (failed)", uint8(r), EndTicks, EndShutdown, EndFailed)
	}
	return nil
}

// durationMax is the largest Early a Confirmed tick carries.
const durationMax = math.MaxInt32 * time.Microsecond
