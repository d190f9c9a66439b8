package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/engine"
)

// A game's own parameters go into the header as they are and come back
// from Open byte for byte; none is none.
func TestHeaderParamsRoundTrip(t *testing.T) {
	for _, params := range [][]byte{nil, {0}, []byte(`{"v":1}`), bytes.Repeat([]byte{0xab}, MaxParams)} {
		var buf bytes.Buffer
		h := Header{TickRate: 30, Seed: 9, HashEvery: 10, Scene: "arena", Params: params, JobMode: engine.JobsDeterministic}
		rec, err := NewRecorder(&buf, h)
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Close(0); err != nil {
			t.Fatal(err)
		}
		r, err := Open(buf.Bytes())
		if err != nil {
			t.Fatalf("%d bytes of params: %v", len(params), err)
		}
		got := r.Header
		if !bytes.Equal(got.Params, params) || got.Scene != "arena" || got.TickRate != 30 || got.Seed != 9 || got.HashEvery != 10 || got.JobMode != engine.JobsDeterministic || got.Version != Version {
			t.Errorf("%d bytes of params: header %+v", len(params), got)
		}
	}
	if _, err := NewRecorder(&bytes.Buffer{}, Header{TickRate: 60, HashEvery: 1, Params: make([]byte, MaxParams+1)}); err == nil || !strings.Contains(err.Error(), "game parameters of 4097 bytes, at most 4096") {
		t.Errorf("NewRecorder with too many params: %v", err)
	}
}

// A file of the previous version (3, the demo's entity count and injected
// panic in the header) is refused with a line that says so; a params length
// that passes the header's end is an invalid field, not a panic.
func TestHeaderOldVersionAndBadParams(t *testing.T) {
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, Header{TickRate: 60, HashEvery: 60, Scene: "s", Params: []byte("abc")})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(0); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	old := bytes.Clone(good)
	binary.LittleEndian.PutUint16(old[8:], 3)
	_, err = Open(old)
	const want = "header, byte 8, field version: unsupported format version: version 3, written by an older build of Nebula (before game parameters); this build reads versions 4 to 6"
	if !errors.Is(err, ErrVersion) || err.Error() != want {
		t.Errorf("Open(version 3) = %v\nwant %s", err, want)
	}

	// The params length byte follows the 18 fixed bytes and the scene.
	n := int(binary.LittleEndian.Uint32(good[10:]))
	bad := bytes.Clone(good)
	bad[14+18+1] = 0x7f // 127 bytes of params, in a header with room for fewer
	binary.LittleEndian.PutUint32(bad[14+n:], crc32.ChecksumIEEE(bad[:14+n]))
	_, err = Open(bad)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Field != "params length" || !errors.Is(err, ErrInvalid) {
		t.Errorf("Open(params past the header) = %v, want an invalid params length", err)
	}
}
