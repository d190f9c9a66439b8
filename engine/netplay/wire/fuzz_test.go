package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"testing"
)

// fuzzSeeds returns every sample message, alone and in one stream, and
// damaged versions of each: cut short, a byte flipped, a length of 4 GiB
// and of 0, an unknown type.
func fuzzSeeds() [][]byte {
	var seeds [][]byte
	var stream []byte
	for _, m := range samples() {
		b := AppendMessage(nil, m)
		stream = append(stream, b...)
		flipped := append([]byte(nil), b...)
		flipped[len(flipped)/2+2] ^= 0x41
		seeds = append(seeds, b, b[:len(b)-1], flipped)
	}
	seeds = append(seeds, stream,
		append(AppendPreamble(nil), stream...),
		[]byte{0xff, 0xff, 0xff, 0xff, byte(TypeSnapshot)},
		[]byte{0, 0, 0, 0},
		encoded(99, 1, 2, 3),
		[]byte("GET / HTTP/1.1\r\n\r\n"))
	return seeds
}

// FuzzReadMessage reads arbitrary bytes as a server reads a client: it
// must not panic; every error must be io.EOF or an *Error; the memory it
// allocates must stay within the cap and a small multiple of the input,
// whatever the lengths claim; and every message it reads must pass Check
// and encode to exactly the bytes it was read from.
func FuzzReadMessage(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)

		r := NewReader(bytes.NewReader(data), MaxClientMessage)
		off := 0
		if _, err := r.ReadClientPreamble(); err == nil || errors.Is(err, ErrVersion) {
			off = PreambleSize
		} else {
			r = NewReader(bytes.NewReader(data), MaxClientMessage)
		}
		for {
			m, err := r.ReadMessage()
			if err != nil {
				var e *Error
				if err != io.EOF && !errors.As(err, &e) {
					t.Fatalf("ReadMessage returned %T %v, want io.EOF or an *Error", err, err)
				}
				break
			}
			n := 4 + int(binary.LittleEndian.Uint32(data[off:]))
			if got := AppendMessage(nil, m); !bytes.Equal(got, data[off:off+n]) {
				t.Fatalf("%v read from\n% x\nencodes to\n% x", m.Type(), data[off:off+n], got)
			}
			if err := Check(m); err != nil {
				t.Fatalf("%v read, but Check refuses it: %v", m.Type(), err)
			}
			off += n
		}

		runtime.ReadMemStats(&after)
		// The buffer (at most the cap), the messages' slices (each at
		// most a few times the bytes that describe them), and the
		// encodings above.
		limit := uint64(MaxClientMessage + 64*len(data) + 1<<20)
		if got := after.TotalAlloc - before.TotalAlloc; got > limit {
			t.Fatalf("reading %d bytes allocated %d bytes, more than %d", len(data), got, limit)
		}
	})
}
