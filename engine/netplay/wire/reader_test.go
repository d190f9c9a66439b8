package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
)

// encoded returns an encoded message of type t with body.
func encoded(t Type, body ...byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(1+len(body)))
	return append(append(b, byte(t)), body...)
}

func TestReadErrors(t *testing.T) {
	hello := AppendMessage(nil, &Hello{Version: Version, Role: RolePlayer, Scene: "s", Name: "n"})
	input := func(first uint64, count byte, rest ...byte) []byte {
		b := binary.LittleEndian.AppendUint64(nil, first)
		return encoded(TypeInput, append(append(b, count), rest...)...)
	}
	confirmed := func(count uint16, tick ...byte) []byte {
		b := binary.LittleEndian.AppendUint64(nil, 1)
		b = binary.LittleEndian.AppendUint16(b, count)
		b = append(b, tick...)
		return encoded(TypeConfirmed, append(b, make([]byte, minTick)...)...) // room for the tick's fields

	}
	for _, tc := range []struct {
		name string
		in   []byte
		kind error
		want string // the error's text
	}{
		{"over the cap", []byte{0x01, 0x00, 0x01, 0x00, byte(TypeSnapshot)}, ErrTooLarge,
			"wire: message too large: Snapshot message, byte 0 (length): 65537 bytes, this connection accepts at most 65536"},
		{"4 GiB", []byte{0xff, 0xff, 0xff, 0xff}, ErrTooLarge,
			"wire: message too large: byte 0 (length): 4294967295 bytes, this connection accepts at most 65536"},
		{"zero length", []byte{0, 0, 0, 0}, ErrMalformed,
			"wire: malformed message: byte 0 (length): 0 bytes; a message has at least its type byte"},
		{"type 0", encoded(0), ErrUnknownType, "wire: unknown message type: byte 4 (type): type 0, want 1 to 12"},
		{"type 200", encoded(200, 1, 2), ErrUnknownType, "wire: unknown message type: byte 4 (type): type 200, want 1 to 12"},
		{"cut in the length", []byte{9, 0}, ErrTruncated,
			"wire: connection ended inside a message: byte 2 (length): the connection ended after 2 of the message's 4 bytes"},
		{"cut in the body", hello[:len(hello)-2], ErrTruncated,
			"wire: connection ended inside a message: Hello message, byte 35 (body): the connection ended after 35 of the message's 37 bytes"},
		{"body short of a field", encoded(TypeHash, 1, 2, 3, 4, 5, 6, 7, 8, 9), ErrMalformed,
			"wire: malformed message: Hash message, byte 13 (hash): the message ends inside the field: it needs 8 bytes, the message's length leaves 1"},
		{"trailing bytes", encoded(TypeBye, 0), ErrMalformed,
			"wire: malformed message: Bye message, byte 5 (end): 1 bytes after the last field"},
		{"no inputs", input(1, 0), ErrMalformed,
			"wire: malformed message: Input message, byte 13 (input count): 0 ticks, want 1 to 64"},
		{"65 inputs", input(1, 65), ErrMalformed,
			"wire: malformed message: Input message, byte 13 (input count): 65 ticks, want 1 to 64"},
		{"more inputs than bytes", input(1, 3, 0, 0, 0, 0), ErrMalformed,
			"wire: malformed message: Input message, byte 13 (input count): 3 ticks of at least 2 bytes each, but the message has 4 bytes left"},
		{"run past the last tick", input(1<<64-1, 2, 0, 0, 0, 0), ErrMalformed,
			"wire: malformed message: Input message, byte 5 (first tick): tick 18446744073709551615 and 1 more go beyond the last tick (18446744073709551615)"},
		{"a word beyond the input's", input(1, 1, 0, 0x80, 0, 0, 0x80), ErrMalformed,
			"wire: malformed message: Input message, byte 14 (input words): mask 0x4000000000 marks words beyond the 33 of an input"},
		{"a zero mask extension", input(1, 1, 0, 0x80, 0, 0, 0), ErrMalformed,
			"wire: malformed message: Input message, byte 16 (input words): the mask's extension is present but zero"},
		{"a word marked with no bytes", input(1, 1, 1, 0, 0), ErrMalformed,
			"wire: malformed message: Input message, byte 16 (input word): word 0 is marked non-zero but has no bytes"},
		{"a zero byte marked non-zero", input(1, 1, 1, 0, 3, 7, 0), ErrMalformed,
			"wire: malformed message: Input message, byte 18 (input word): byte 1 of word 0 is marked non-zero but is 0"},
		{"a key beyond the last", input(1, 1, 2, 0, 1, 0x10), ErrMalformed,
			"wire: malformed message: Input message, byte 14 (input): input word 1 has bits for keys beyond the last key (67)"},
		{"1025 ticks", confirmed(1025), ErrMalformed,
			"wire: malformed message: Confirmed message, byte 13 (tick count): 1025 ticks, want 1 to 1024"},
		{"players out of order", confirmed(1, 2, 0, 5, 0, 4, 0), ErrMalformed,
			"wire: malformed message: Confirmed message, byte 19 (joins): player 4 after player 5: players are listed once each, in ascending order"},
		{"player 256", confirmed(1, 0, 0, 1, 0, 0, 1), ErrMalformed,
			"wire: malformed message: Confirmed message, byte 19 (leaves): player 256, want 0 to 255"},
		{"input of player 256", confirmed(1, 0, 0, 0, 0, 1, 0, 0, 1), ErrMalformed,
			"wire: malformed message: Confirmed message, byte 21 (input player): player 256, want 0 to 255"},
		{"257 inputs", confirmed(1, 0, 0, 0, 0, 1, 1), ErrMalformed,
			"wire: malformed message: Confirmed message, byte 19 (input count): 257 players, want 0 to 256"},
		{"unknown flags", confirmed(1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0), ErrMalformed,
			"wire: malformed message: Confirmed message, byte 21 (flags): flags 0x02, only 0x01 (substituted) is defined"},
		{"role 0", encoded(TypeHello, 1, 0, 0, 0), ErrMalformed,
			"wire: malformed message: Hello message, byte 7 (role): role 0, want 1 (player) or 2 (spectator)"},
		{"scene too long", encoded(TypeHello, 1, 0, 1, 65), ErrMalformed,
			"wire: malformed message: Hello message, byte 8 (scene length): 65 bytes, at most 64"},
		{"two lines", encoded(TypeRefuse, 0, 3, 0, 'a', '\n', 'b'), ErrMalformed,
			"wire: malformed message: Refuse message, byte 8 (text): byte 1 is the control character 0x0a; the text must be one printable line"},
		{"not UTF-8", encoded(TypeRefuse, 0, 1, 0, 0xff), ErrMalformed,
			"wire: malformed message: Refuse message, byte 8 (text): not valid UTF-8"},
		{"spectator 300", encoded(TypeWelcome, 0x2c, 1), ErrMalformed,
			"wire: malformed message: Welcome message, byte 5 (player): player 300, want 0 to 255, or 65535 (a spectator)"},
		{"snapshot too large", encoded(TypeSnapshot, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 4), ErrMalformed,
			"wire: malformed message: Snapshot message, byte 13 (data length): 67108865 bytes, at most 67108864"},
		{"end reason", encoded(TypeEnd, 0, 0, 0, 0, 0, 0, 0, 0, 4), ErrMalformed,
			"wire: malformed message: End message, byte 13 (reason): reason 4, want 1 (last tick), 2 (shutdown) or 3 (failed)"},
	} {
		r := NewReader(bytes.NewReader(tc.in), MaxClientMessage)
		m, err := r.ReadMessage()
		var e *Error
		if m != nil || !errors.As(err, &e) || !errors.Is(err, tc.kind) || err.Error() != tc.want {
			t.Errorf("%s: ReadMessage = %v, %v\nwant the %v error %s", tc.name, m, err, tc.kind, tc.want)
			continue
		}
		if _, again := r.ReadMessage(); again != err {
			t.Errorf("%s: the next ReadMessage returned %v, want the same error", tc.name, again)
		}
	}
}

// A length over the cap is refused before anything is read or allocated
// for the body, whatever the cap.
func TestLengthCheckedBeforeAllocating(t *testing.T) {
	for _, max := range []int{MaxClientMessage, MaxServerMessage} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 10 {
			r := NewReader(strings.NewReader("\xff\xff\xff\xff\x08"), max)
			if _, err := r.ReadMessage(); !errors.Is(err, ErrTooLarge) {
				t.Fatalf("cap %d: %v, want ErrTooLarge", max, err)
			}
		}
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("cap %d: refusing a 4 GiB length 10 times allocated %d bytes", max, got)
		}
	}
}

// blockingReader returns its bytes, then blocks until the test ends.
type blockingReader struct {
	b    []byte
	done chan struct{}
}

func (r *blockingReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		<-r.done
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// Whatever is not Nebula is refused from its first bytes, without waiting
// for more.
func TestPreambleRefusedAtOnce(t *testing.T) {
	for _, tc := range []struct {
		in     string
		server bool // read as a server reads a client
		kind   error
		want   string
	}{
		{"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", true, ErrNotClient,
			`wire: not a Nebula client: byte 0 (magic): the connection starts with "GET / HTTP/1.1\r\n" (an HTTP request); a Nebula client starts with "NEBULAnp"`},
		{"\x16\x03\x01\x02\x00\x01", true, ErrNotClient,
			`wire: not a Nebula client: byte 0 (magic): the connection starts with "\x16\x03\x01\x02\x00\x01" (a TLS handshake); a Nebula client starts with "NEBULAnp"`},
		{"NEBULA", true, nil, ""}, // a good start: waits for more
		{"NEBULAx", true, ErrNotClient,
			`wire: not a Nebula client: byte 6 (magic): the connection starts with "NEBULAx"; a Nebula client starts with "NEBULAnp"`},
		{"HTTP/1.1 400 Bad Request\r\n", false, ErrNotServer,
			`wire: not a Nebula server: byte 0 (magic): the connection starts with "HTTP/1.1 400 Bad" (an HTTP response); a Nebula server starts with "NEBULAnp"`},
		{"SSH-2.0-OpenSSH_9.6\r\n", false, ErrNotServer,
			`wire: not a Nebula server: byte 0 (magic): the connection starts with "SSH-2.0-OpenSSH_" (SSH); a Nebula server starts with "NEBULAnp"`},
	} {
		done := make(chan struct{})
		r := NewReader(&blockingReader{b: []byte(tc.in), done: done}, MaxClientMessage)
		errc := make(chan error, 1)
		go func() {
			var err error
			if tc.server {
				_, err = r.ReadClientPreamble()
			} else {
				_, err = r.ReadServerPreamble()
			}
			errc <- err
		}()
		select {
		case err := <-errc:
			if tc.kind == nil || !errors.Is(err, tc.kind) || err.Error() != tc.want {
				t.Errorf("%q: %v\nwant %s", tc.in, err, tc.want)
			}
			close(done)
		case <-time.After(200 * time.Millisecond):
			if tc.kind != nil {
				t.Errorf("%q: still reading after 200 ms, want %v at once", tc.in, tc.kind)
			}
			close(done)
			<-errc
		}
	}
}

// A peer of another version is read up to its Refuse.
func TestVersionMismatch(t *testing.T) {
	var b []byte
	b = append(b, Magic...)
	b = binary.LittleEndian.AppendUint16(b, Version+1)
	b = AppendMessage(b, RefuseVersion(Version)) // as that server would word it
	b = AppendMessage(b, &Bye{})
	r := NewReader(bytes.NewReader(b), MaxServerMessage)
	v, err := r.ReadServerPreamble()
	if v != Version+1 || !errors.Is(err, ErrVersion) || err.Error() != "wire: protocol version mismatch: byte 8 (version): the server speaks protocol version 4, this side speaks 3" {
		t.Fatalf("ReadServerPreamble = %d, %v", v, err)
	}
	m, err := r.ReadMessage()
	if ref, ok := m.(*Refuse); !ok || ref.Reason != ReasonVersion {
		t.Fatalf("ReadMessage = %v, %v; want the Refuse", m, err)
	}
	if _, err := r.ReadMessage(); !errors.Is(err, ErrVersion) {
		t.Fatalf("a Bye from a peer of another version: %v, want ErrVersion", err)
	}

	r = NewReader(bytes.NewReader(append(AppendPreamble(nil), 'x')), MaxClientMessage)
	if v, err := r.ReadClientPreamble(); v != Version || err != nil {
		t.Fatalf("ReadClientPreamble = %d, %v; want %d, nil", v, err, Version)
	}
	r = NewReader(strings.NewReader("NEBUL"), MaxClientMessage)
	if _, err := r.ReadClientPreamble(); !errors.Is(err, ErrTruncated) {
		t.Fatalf("a preamble cut short: %v, want ErrTruncated", err)
	}
}

func TestRefuseHelpers(t *testing.T) {
	for _, tc := range []struct {
		r    *Refuse
		want string
	}{
		{RefuseVersion(2), "version mismatch: protocol version 2, this server speaks 3"},
		{RefuseToken("token: expired"), "token refused: token: expired"},
		{RefuseScene("lobby", "arena"), `scene mismatch: scene "lobby", this server runs "arena"`},
		{RefuseSchema(1, 0xabc), "schema mismatch: schema fingerprint 0000000000000001, this server's is 0000000000000abc (the programs register different components or resources)"},
		{RefuseFull(8), "match full: the match is full (8 players)"},
		{RefuseShutdown(), "shutting down: the server is shutting down"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
		if err := Check(tc.r); err != nil {
			t.Error(err)
		}
	}
	long := RefuseScene(strings.Repeat("é", 200), "arena")
	if err := Check(long); err != nil || len(long.Text) > MaxRefuseText {
		t.Errorf("a refusal of a long scene: %d bytes, %v", len(long.Text), err)
	}
	if got := refuse(ReasonOther, strings.Repeat("é", 200)).Text; len(got) != MaxRefuseText {
		t.Errorf("cut to %d bytes, want %d (a whole character)", len(got), MaxRefuseText)
	}
}

// Writer refuses what a Reader would, naming the field, and writes
// nothing then.
func TestWriterChecks(t *testing.T) {
	for _, tc := range []struct {
		m    Message
		want string
	}{
		{&Hello{Role: RolePlayer, Name: strings.Repeat("x", 33)}, "wire: invalid Hello message, name: 33 bytes, at most 32"},
		{&Hello{Role: 3}, "wire: invalid Hello message, role: role 3, want 1 (player) or 2 (spectator)"},
		{&Welcome{Player: 1}, "wire: invalid Welcome message, tick rate: 0 Hz, want at least 1"},
		{&Welcome{Player: 1, TickRate: 60, Params: make([]byte, MaxParams+1)}, "wire: invalid Welcome message, params: 4097 bytes, want 0 to 4096"},
		{&Input{First: 1}, "wire: invalid Input message, inputs: 0 ticks, want 1 to 64"},
		{&Input{First: 1, Inputs: make([]input.Sample, 65)}, "wire: invalid Input message, inputs: 65 ticks, want 1 to 64"},
		{&Confirmed{First: 1, Ticks: make([]ConfirmedTick, 1025)}, "wire: invalid Confirmed message, ticks: 1025 ticks, want 1 to 1024"},
		{&Confirmed{First: 1, Ticks: []ConfirmedTick{{Joins: []PlayerID{3, 3}}}}, "wire: invalid Confirmed message, tick 1 joins: player 3 after player 3: players are listed once each, in ascending order"},
		{&Confirmed{First: 1, Ticks: []ConfirmedTick{{}, {Inputs: []PlayerInput{{Player: 256}}}}}, "wire: invalid Confirmed message, tick 2 inputs: player 256, want 0 to 255"},
		{&Confirmed{First: 1, Ticks: []ConfirmedTick{{Early: time.Hour}}}, "wire: invalid Confirmed message, tick 1 early: 1h0m0s, beyond ±35m47.483647s"},
		{&End{Tick: 1}, "wire: invalid End message, reason: reason 0, want 1 (last tick), 2 (shutdown) or 3 (failed)"},
		{&Refuse{Text: "a\tb"}, "wire: invalid Refuse message, text: byte 1 is the control character 0x09; the text must be one printable line"},
		{nil, "wire: Check: a nil Message"},
	} {
		var out bytes.Buffer
		err := NewWriter(&out).WriteMessage(tc.m)
		if err == nil || err.Error() != tc.want || out.Len() != 0 {
			t.Errorf("WriteMessage: %v (%d bytes written)\nwant %s", err, out.Len(), tc.want)
		}
	}
}

// Messages arrive whole however the stream is cut, and a Reader goes on
// after an error of the connection that is not the end (a deadline).
func TestReadAcrossPartialReads(t *testing.T) {
	var stream []byte
	for _, m := range samples() {
		stream = AppendMessage(stream, m)
	}
	for _, src := range []io.Reader{
		iotest.OneByteReader(bytes.NewReader(stream)),
		iotest.HalfReader(bytes.NewReader(stream)),
		iotest.TimeoutReader(iotest.OneByteReader(bytes.NewReader(stream))), // times out on its second read
	} {
		r := NewReader(src, MaxServerMessage)
		timeouts := 0
		for i, want := range samples() {
			m, err := r.ReadMessage()
			for errors.Is(err, iotest.ErrTimeout) && timeouts < 1 {
				timeouts++
				m, err = r.ReadMessage()
			}
			if err != nil || !equal(m, want) {
				t.Fatalf("message %d: %+v, %v; want %+v", i, m, err, want)
			}
		}
		if _, err := r.ReadMessage(); err != io.EOF {
			t.Fatalf("at the end: %v, want io.EOF", err)
		}
	}
}

// A large message gets a buffer of its own, which the Reader lets go of
// afterwards: the message stays valid, the Reader small.
func TestLargeMessageBuffer(t *testing.T) {
	data := bytes.Repeat([]byte{7}, 3<<20)
	var stream []byte
	stream = AppendMessage(stream, &Snapshot{Tick: 9, Data: data})
	stream = AppendMessage(stream, &Hash{Tick: 10, Hash: 11})
	r := NewReader(bytes.NewReader(stream), MaxServerMessage)
	m, err := r.ReadMessage()
	if err != nil || !bytes.Equal(m.(*Snapshot).Data, data) {
		t.Fatalf("snapshot: %v", err)
	}
	held := m.(*Snapshot).Data
	if m, err := r.ReadMessage(); err != nil || *m.(*Hash) != (Hash{10, 11}) {
		t.Fatalf("hash: %v, %v", m, err)
	}
	if !bytes.Equal(held, data) || len(r.buf) > keepBuffer {
		t.Fatalf("after the next message the snapshot's data changed or the buffer kept %d bytes", len(r.buf))
	}
}

// Encoding into a buffer with room, and decoding a message like the last
// one, do not allocate.
func TestNoAllocations(t *testing.T) {
	for _, m := range samples() {
		buf := AppendMessage(nil, m)
		encodedBytes := append([]byte(nil), buf...)
		if n := testing.AllocsPerRun(100, func() { buf = AppendMessage(buf[:0], m) }); n != 0 {
			t.Errorf("AppendMessage(%v): %v allocations", m.Type(), n)
		}
		src := bytes.NewReader(encodedBytes)
		r := NewReader(src, MaxServerMessage)
		r.ReadMessage()
		n := testing.AllocsPerRun(100, func() {
			src.Reset(encodedBytes)
			r.err = nil
			if _, err := r.ReadMessage(); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("ReadMessage(%v): %v allocations", m.Type(), n)
		}
		w := NewWriter(io.Discard)
		w.WriteMessage(m)
		if n := testing.AllocsPerRun(100, func() { w.WriteMessage(m) }); n != 0 {
			t.Errorf("WriteMessage(%v): %v allocations", m.Type(), n)
		}
	}
}
