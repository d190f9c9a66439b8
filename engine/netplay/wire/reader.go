package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/nebulaengine/nebula/internal/binread"
)

// The kinds of Error, one sentinel each, for errors.Is: a server counts
// the faults of its connections by kind.
var (
	// ErrTooLarge: a message's length is over the Reader's cap.
	//
	//srccheck:wrapped by Error, as "wire: <kind>: ..."
	ErrTooLarge = errors.New("message too large")
	// ErrUnknownType: a message's type byte is not a Type.
	//
	//srccheck:wrapped by Error, as "wire: <kind>: ..."
	ErrUnknownType = errors.New("unknown message type")
	// ErrMalformed: a message's body is not what its type says: it ends
	// before its last field, has bytes after it, or a field is beyond its
	// limit or invalid. A zero length is malformed too.
	//
	//srccheck:wrapped by Error, as "wire: <kind>: ..."
	ErrMalformed = errors.New("malformed message")
	// ErrTruncated: the connection ended inside a message or the preamble.
	//
	//srccheck:wrapped by Error, as "wire: <kind>: ..."
	ErrTruncated = errors.New("connection ended inside a message")
	// ErrVersion: the peer's preamble has another protocol version.
	//
	//srccheck:wrapped by Error, as "wire: <kind>: ..."
	ErrVersion = errors.New("protocol version mismatch")
	// ErrNotClient: what a server read first is not a Nebula client's
	// preamble (an HTTP request, a port scan).
	ErrNotClient = errors.New("not a Nebula client")
	// ErrNotServer: what a client read first is not a Nebula server's
	// preamble.
	ErrNotServer = errors.New("not a Nebula server")
)

// Error is a fault in what a Reader read: its kind, the message's type,
// the byte offset and the field where it is, and what was wrong.
type Error struct {
	Kind error // ErrTooLarge, ErrUnknownType, ErrMalformed, ErrTruncated, ErrVersion, ErrNotClient or ErrNotServer
	Type Type  // the message's type; 0 for the preamble or before the type byte
	// Offset is the byte offset of the fault in the encoded message
	// (byte 0 is the first of its length, 4 its type byte), or in the
	// preamble.
	Offset int
	Field  string // the field at the fault ("length", "input count")
	Err    error  // what was wrong, and what is accepted
}

// Error returns the kind, the type, the offset and field, and what was
// wrong: "wire: malformed message: Confirmed message, byte 22 (input
// count): 300 players, want 0 to 256".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("wire: ")
	b.WriteString(e.Kind.Error())
	b.WriteString(": ")
	if e.Type != 0 {
		b.WriteString(e.Type.String())
		b.WriteString(" message, ")
	}
	fmt.Fprintf(&b, "byte %d (%s): %v", e.Offset, e.Field, e.Err)
	return b.String()
}

// Unwrap returns Kind and Err.
func (e *Error) Unwrap() []error { return []error{e.Kind, e.Err} }

// Buffer sizes: a Reader's buffer starts at minBuffer bytes, grows once
// for a message that does not fit, and is dropped after a message of more
// than keepBuffer bytes.
const (
	minBuffer  = 4 << 10
	keepBuffer = 1 << 20
)

// Reader reads messages from a connection. It checks each message's
// length against its cap before it reads or allocates anything for it, so
// a peer can make it allocate at most the cap; a message that fits the
// buffer (initially 4 KiB) costs no allocation once the Reader has read
// one like it.
//
// ReadMessage returns a message the Reader owns: one value per type,
// decoded into again by the next ReadMessage of that type, with its
// byte slices (Welcome.Params, Snapshot.Data) pointing into the Reader's
// buffer. It is valid until the next call; copy what you keep.
//
// Protocol faults (an *Error) and io.EOF are final: every later call
// returns the same error, and the connection should be closed. Any other
// error of the underlying reader (a deadline) is returned as it is, and a
// later call goes on where the failed one stopped.
//
// A Reader reads ahead into its buffer; once a connection has one, read
// everything through it. It is not safe for concurrent use.
type Reader struct {
	r          io.Reader
	max        int
	buf        []byte
	start, end int    // the unread bytes are buf[start:end]
	preamble   bool   // a preamble was read
	peer       uint16 // its version
	err        error  // the final error, once there is one
	d          decoder

	hello     Hello
	welcome   Welcome
	refuse    Refuse
	input     Input
	confirmed Confirmed
	hash      Hash
	desync    Desync
	snapshot  Snapshot
	ping      Ping
	pong      Pong
	endMsg    End
	bye       Bye
}

// NewReader returns a Reader of r that accepts messages of up to
// maxMessage bytes (their length field: type and body). A server reads
// its clients with MaxClientMessage, a client its server with
// MaxServerMessage; a maxMessage below 1 means MaxClientMessage.
func NewReader(r io.Reader, maxMessage int) *Reader {
	if maxMessage < 1 {
		maxMessage = MaxClientMessage
	}
	return &Reader{r: r, max: maxMessage}
}

// ReadClientPreamble reads a client's preamble, as a server does first,
// and returns the client's protocol version. Bytes that are not the start
// of Magic are refused as soon as they arrive, without waiting for the
// rest, as an *Error of kind ErrNotClient that names what they look like
// (an HTTP request, a TLS handshake).
//
// A preamble of another version returns that version and an *Error of
// kind ErrVersion; the server then sends its own preamble and
// RefuseVersion, and closes the connection.
func (r *Reader) ReadClientPreamble() (version uint16, err error) {
	return r.readPreamble(ErrNotClient, "client")
}

// ReadServerPreamble reads a server's preamble, as a client does after
// sending its own and its Hello, and returns the server's protocol
// version. Bytes that are not the start of Magic are refused as soon as
// they arrive, as an *Error of kind ErrNotServer.
//
// A preamble of another version returns that version and an *Error of
// kind ErrVersion; the Reader then reads only a Refuse (whose layout
// every version shares), which says what the server speaks.
func (r *Reader) ReadServerPreamble() (version uint16, err error) {
	return r.readPreamble(ErrNotServer, "server")
}

//srccheck:wrapped by Error, as "wire: <kind>: byte N (<field>): ..."
func (r *Reader) readPreamble(kind error, peer string) (uint16, error) {
	if r.err != nil {
		return 0, r.err
	}
	for {
		got := r.buf[r.start:r.end]
		k := min(len(got), len(Magic))
		for i := range k {
			if got[i] != Magic[i] {
				shown := got[:min(len(got), 16)]
				r.err = &Error{Kind: kind, Offset: i, Field: "magic",
					Err: fmt.Errorf("the connection starts with %q%s; a Nebula %s starts with %q", shown, describe(got), peer, Magic)}
				return 0, r.err
			}
		}
		if len(got) >= PreambleSize {
			break
		}
		if err := r.fill(len(got) + 1); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				r.err = &Error{Kind: ErrTruncated, Offset: len(got), Field: "preamble",
					Err: fmt.Errorf("the connection ended after %d of the preamble's %d bytes", len(got), PreambleSize)}
				return 0, r.err
			}
			return 0, err
		}
	}
	v := binary.LittleEndian.Uint16(r.buf[r.start+len(Magic):])
	r.start += PreambleSize
	r.preamble, r.peer = true, v
	if v != Version {
		return v, &Error{Kind: ErrVersion, Offset: len(Magic), Field: "version",
			Err: fmt.Errorf("the %s speaks protocol version %d, this side speaks %d", peer, v, Version)}
	}
	return v, nil
}

// describe says what the first bytes of a connection that is not Nebula
// look like, or returns "".
func describe(b []byte) string {
	s := string(b)
	for _, m := range [...]string{"GET ", "POST ", "HEAD ", "PUT ", "DELETE ", "OPTIONS ", "PATCH ", "CONNECT ", "TRACE ", "PRI * HTTP/2"} {
		if strings.HasPrefix(s, m) {
			return " (an HTTP request)"
		}
	}
	switch {
	case strings.HasPrefix(s, "HTTP/"):
		return " (an HTTP response)"
	case strings.HasPrefix(s, "SSH-"):
		return " (SSH)"
	case len(b) >= 2 && b[0] == 0x16 && b[1] == 0x03:
		return " (a TLS handshake)"
	}
	return ""
}

// ReadMessage reads one message. At the end of the connection between
// two messages it returns io.EOF; every fault in the bytes is an *Error.
// The message is valid until the next call (see Reader).
func (r *Reader) ReadMessage() (Message, error) {
	if r.err != nil {
		return nil, r.err
	}
	m, err := r.readMessage()
	if err != nil {
		var e *Error
		if err == io.EOF || errors.As(err, &e) {
			r.err = err
		}
	}
	return m, err
}

//srccheck:wrapped by Error, as "wire: <kind>: byte N (<field>): ..."
func (r *Reader) readMessage() (Message, error) {
	if len(r.buf) > keepBuffer {
		// The last message was large: let it keep the memory and start
		// again with a small buffer.
		rest := r.buf[r.start:r.end]
		r.buf = make([]byte, max(minBuffer, len(rest)))
		r.start, r.end = 0, copy(r.buf, rest)
	}
	if err := r.fill(4); err != nil {
		return nil, r.cut(err, 0, 4)
	}
	n := uint64(binary.LittleEndian.Uint32(r.buf[r.start:]))
	var t Type
	if r.end-r.start > 4 {
		t = Type(r.buf[r.start+4])
	}
	switch {
	case n == 0:
		return nil, &Error{Kind: ErrMalformed, Offset: 0, Field: "length",
			Err: errors.New("0 bytes; a message has at least its type byte")}
	case n > uint64(r.max):
		if !t.known() {
			t = 0
		}
		return nil, &Error{Kind: ErrTooLarge, Type: t, Offset: 0, Field: "length",
			Err: fmt.Errorf("%d bytes, this connection accepts at most %d", n, r.max)}
	}
	if err := r.fill(headerSize); err != nil {
		return nil, r.cut(err, 0, 4+int(n))
	}
	t = Type(r.buf[r.start+4])
	switch {
	case !t.known():
		return nil, &Error{Kind: ErrUnknownType, Offset: 4, Field: "type",
			Err: fmt.Errorf("type %d, want %d to %d", uint8(t), TypeHello, typeCount-1)}
	case r.preamble && r.peer != Version && t != TypeRefuse:
		return nil, &Error{Kind: ErrVersion, Type: t, Offset: 4, Field: "type",
			Err: fmt.Errorf("the peer speaks protocol version %d, this side %d: only a Refuse can be read from it", r.peer, Version)}
	}
	size := 4 + int(n)
	if err := r.fill(size); err != nil {
		return nil, r.cut(err, t, size)
	}
	m := r.message(t)
	r.d.Reader = binread.New(r.buf[r.start : r.start+size : r.start+size])
	r.d.Take("type", headerSize)
	m.decode(&r.d)
	if r.d.Err() == nil && r.d.Left() > 0 {
		r.d.Fail("end", fmt.Errorf("%d bytes after the last field", r.d.Left()))
	}
	if e := r.d.Err(); e != nil {
		return nil, malformed(t, e)
	}
	r.start += size
	return m, nil
}

// message returns the Reader's message of type t.
func (r *Reader) message(t Type) Message {
	switch t {
	case TypeHello:
		return &r.hello
	case TypeWelcome:
		return &r.welcome
	case TypeRefuse:
		return &r.refuse
	case TypeInput:
		return &r.input
	case TypeConfirmed:
		return &r.confirmed
	case TypeHash:
		return &r.hash
	case TypeDesync:
		return &r.desync
	case TypeSnapshot:
		return &r.snapshot
	case TypePing:
		return &r.ping
	case TypePong:
		return &r.pong
	case TypeEnd:
		return &r.endMsg
	}
	return &r.bye
}

// malformed turns the decoder's fault into an *Error of kind
// ErrMalformed.
//
//srccheck:wrapped by Error, as "wire: <kind>: byte N (<field>): ..."
func malformed(t Type, e *binread.Error) *Error {
	err := e.Err
	var short *binread.ShortError
	if errors.As(err, &short) {
		err = fmt.Errorf("the message ends inside the field: it needs %d bytes, the message's length leaves %d", short.Need, short.Left)
	}
	return &Error{Kind: ErrMalformed, Type: t, Offset: e.Offset, Field: e.Field, Err: err}
}

// cut turns an end of the connection inside a message of size bytes into
// an *Error of kind ErrTruncated; io.EOF before its first byte and other
// errors are returned as they are.
//
//srccheck:wrapped by Error, as "wire: <kind>: byte N (<field>): ..."
func (r *Reader) cut(err error, t Type, size int) error {
	if err != io.ErrUnexpectedEOF {
		return err
	}
	got := r.end - r.start
	field := "body"
	switch {
	case got < 4:
		field, size = "length", 4
	case got < headerSize:
		field = "type"
	}
	return &Error{Kind: ErrTruncated, Type: t, Offset: got, Field: field,
		Err: fmt.Errorf("the connection ended after %d of the message's %d bytes", got, size)}
}

// fill reads until the buffer holds n unread bytes, growing it (once)
// when they do not fit. It returns io.EOF when the connection ends before
// any unread byte, io.ErrUnexpectedEOF when it ends after some, and other
// errors of the underlying reader as they are.
func (r *Reader) fill(n int) error {
	if r.end-r.start >= n {
		return nil
	}
	if len(r.buf)-r.start < n {
		if len(r.buf) >= n {
			r.end = copy(r.buf, r.buf[r.start:r.end])
		} else {
			buf := make([]byte, max(n, minBuffer))
			r.end = copy(buf, r.buf[r.start:r.end])
			r.buf = buf
		}
		r.start = 0
	}
	for empty := 0; ; {
		k, err := r.r.Read(r.buf[r.end:])
		r.end += k
		switch {
		case r.end-r.start >= n:
			return nil
		case err == io.EOF && r.end == r.start:
			return io.EOF
		case err == io.EOF:
			return io.ErrUnexpectedEOF
		case err != nil:
			return err
		case k == 0:
			if empty++; empty == 100 {
				return io.ErrNoProgress
			}
		}
	}
}

// Writer writes messages to a connection, each with one Write call. It
// encodes into a buffer it reuses, so once the buffer has grown to a
// message's size, sending one like it does not allocate. It is not safe
// for concurrent use.
type Writer struct {
	w   io.Writer
	buf []byte
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WritePreamble writes the preamble: Magic and Version. Each side writes
// it first.
func (w *Writer) WritePreamble() error {
	w.buf = AppendPreamble(w.buf[:0])
	_, err := w.w.Write(w.buf)
	return err
}

// WriteMessage checks m (Check) and writes it. A message that fails the
// check is not written; the error names the field.
func (w *Writer) WriteMessage(m Message) error {
	if err := Check(m); err != nil {
		return err
	}
	w.buf = AppendMessage(w.buf[:0], m)
	_, err := w.w.Write(w.buf)
	if cap(w.buf) > keepBuffer {
		w.buf = nil
	}
	return err
}
