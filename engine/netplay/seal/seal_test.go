package seal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

func testKeys() (client, server Keys) {
	var c2s, s2c [KeySize]byte
	for i := range c2s {
		c2s[i], s2c[i] = byte(i), byte(100+i)
	}
	salt := [SaltSize]byte{1, 2, 3}
	return ClientKeys(c2s, s2c, salt), ServerKeys(c2s, s2c, salt)
}

func TestDerive(t *testing.T) {
	c, s := testKeys()
	if c.Send != s.Recv || c.Recv != s.Send || c.Send == c.Recv {
		t.Fatal("the two ends' keys do not pair up")
	}
	var c2s, s2c [KeySize]byte
	other := ClientKeys(c2s, s2c, [SaltSize]byte{9})
	if other == ClientKeys(c2s, s2c, [SaltSize]byte{8}) {
		t.Fatal("two salts give the same keys")
	}
}

// tcpPair returns the two ends of a TCP connection on loopback.
func tcpPair(t testing.TB) (a, b net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		done <- c
	}()
	a, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b = <-done
	if b == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// message is a protocol message in clear: a length and its bytes.
func message(typ byte, body string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(1+len(body)))
	b = append(b, typ)
	return append(b, body...)
}

// TestStream plays a handshake in clear, then sealed messages both ways,
// including one longer than a frame.
func TestStream(t *testing.T) {
	a, b := tcpPair(t)
	ck, sk := testKeys()
	client, server := NewConn(a, 10), NewConn(b, 10)
	client.SealReads(ck.Recv, true)
	hello := message(1, "hello")
	big := bytes.Repeat([]byte("snapshot"), 3*MaxFrame/8+5)

	go func() {
		client.Write([]byte("NEBULAnp\x03\x00"))
		client.Write(append(hello, message(9, "ping-sealed")...)[:len(hello)])
		client.SealWrites(ck.Send)
		client.Write(message(9, "ping-sealed"))
	}()
	// The server reads ahead as far as it likes: it gets no byte past
	// the Hello before it is keyed.
	buf := make([]byte, 4096)
	got := readN(t, server, buf, 10+len(hello))
	if string(got[10:]) != string(hello) {
		t.Fatalf("read %q", got)
	}
	server.SealReads(sk.Recv, false)
	server.Write([]byte("NEBULAnp\x03\x00"))
	server.SealWrites(sk.Send)
	if got := readN(t, server, buf, len(message(9, "ping-sealed"))); string(got) != string(message(9, "ping-sealed")) {
		t.Fatalf("sealed read %q", got)
	}
	go server.Write(big)
	if got := readN(t, client, make([]byte, len(big)+10), 10+len(big)); !bytes.Equal(got[10:], big) {
		t.Fatal("the large write came back different")
	}
}

// readN reads exactly n bytes from r with reads of at most len(buf).
func readN(t testing.TB, r io.Reader, buf []byte, n int) []byte {
	t.Helper()
	var out []byte
	for len(out) < n {
		k, err := r.Read(buf[:min(len(buf), n-len(out))])
		out = append(out, buf[:k]...)
		if err != nil {
			t.Fatalf("after %d bytes: %v", len(out), err)
		}
	}
	return out
}

// TestStreamTampered flips a bit of a sealed frame, replays one and
// drops one: each ends the stream with ErrAuth.
func TestStreamTampered(t *testing.T) {
	ck, sk := testKeys()
	frames := func() [][]byte {
		var w bytes.Buffer
		c := NewConn(fakeConn{&w}, 0)
		c.SealWrites(ck.Send)
		var out [][]byte
		for _, s := range []string{"one", "two", "three"} {
			c.Write(message(4, s))
			out = append(out, bytes.Clone(w.Bytes()))
			w.Reset()
		}
		return out
	}
	f := frames()
	flipped := bytes.Clone(f[1])
	flipped[len(flipped)-3] ^= 1
	length := bytes.Clone(f[1])
	length[3] ^= 0x10 // the frame's length, outside the seal
	for name, stream := range map[string][]byte{
		"flipped":  append(bytes.Clone(f[0]), flipped...),
		"length":   append(bytes.Clone(f[0]), length...),
		"replayed": append(bytes.Clone(f[0]), f[0]...),
		"dropped":  append(bytes.Clone(f[0]), f[2]...),
		"in clear": append(bytes.Clone(f[0]), message(4, "forged")...),
	} {
		c := NewConn(fakeConn{bytes.NewBuffer(stream)}, 0)
		c.SealReads(sk.Recv, false)
		buf := make([]byte, 100)
		n, err := c.Read(buf)
		if err != nil || string(buf[:n]) != string(message(4, "one")) {
			t.Fatalf("%s: the first frame: %q, %v", name, buf[:n], err)
		}
		_, err = c.Read(buf)
		if !errors.Is(err, ErrAuth) {
			t.Errorf("%s: %v, want ErrAuth", name, err)
		}
		if _, again := c.Read(buf); again != err {
			t.Errorf("%s: the error did not stay: %v", name, again)
		}
	}
}

// TestStreamRefuseInClear: a client reads a Refuse in clear first, and
// nothing after it.
func TestStreamRefuseInClear(t *testing.T) {
	ck, _ := testKeys()
	refuse := message(3, "\x07token expired")
	c := NewConn(fakeConn{bytes.NewBuffer(append(append([]byte("NEBULAnp\x03\x00"), refuse...), refuse...))}, 10)
	c.SealReads(ck.Recv, true)
	got := readN(t, c, make([]byte, 3), 10+len(refuse))
	if string(got[10:]) != string(refuse) {
		t.Fatalf("read %q", got)
	}
	if _, err := c.Read(make([]byte, 10)); !errors.Is(err, io.EOF) {
		t.Fatalf("after the refusal: %v, want the end", err)
	}
	c = NewConn(fakeConn{bytes.NewBuffer(append([]byte("NEBULAnp\x03\x00"), message(2, "welcome")...))}, 10)
	c.SealReads(ck.Recv, true)
	readN(t, c, make([]byte, 10), 10)
	if _, err := c.Read(make([]byte, 10)); err == nil {
		t.Fatal("a Welcome in clear was read")
	}
}

type fakeConn struct{ rw io.ReadWriter }

func (f fakeConn) Read(p []byte) (int, error)     { return f.rw.Read(p) }
func (f fakeConn) Write(p []byte) (int, error)    { return f.rw.Write(p) }
func (fakeConn) Close() error                     { return nil }
func (fakeConn) LocalAddr() net.Addr              { return nil }
func (fakeConn) RemoteAddr() net.Addr             { return nil }
func (fakeConn) SetDeadline(time.Time) error      { return nil }
func (fakeConn) SetReadDeadline(time.Time) error  { return nil }
func (fakeConn) SetWriteDeadline(time.Time) error { return nil }

func TestPackets(t *testing.T) {
	ck, sk := testKeys()
	c, s := NewPackets(ck), NewPackets(sk)
	hdr := []byte{0xB7, 7, 1, 2, 3, 4, 5, 6, 7, 8}
	var pkts [][]byte
	for i := range 300 {
		pkts = append(pkts, c.Seal(bytes.Clone(hdr), []byte{byte(i), 'x'}))
	}
	open := func(i int) error {
		body, err := s.Open(nil, pkts[i], len(hdr))
		if err == nil && (body[0] != byte(i) || body[1] != 'x') {
			t.Fatalf("packet %d opened as %q", i, body)
		}
		return err
	}
	for _, i := range []int{5, 3, 4, 0, 299} {
		if err := open(i); err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
	}
	if err := open(5); !errors.Is(err, ErrReplay) {
		t.Fatalf("replayed: %v", err)
	}
	if err := open(6); !errors.Is(err, ErrReplay) { // 299-6 >= 256... 299+1-256 = 44 > 6
		t.Fatalf("too old: %v", err)
	}
	if err := open(100); err != nil {
		t.Fatalf("within the window: %v", err)
	}
	bad := bytes.Clone(pkts[200])
	bad[1] ^= 1 // the header is authenticated too
	if _, err := s.Open(nil, bad, len(hdr)); !errors.Is(err, ErrAuth) {
		t.Fatalf("altered header: %v", err)
	}
	if err := open(200); err != nil {
		t.Fatalf("a forgery of a packet counts it as seen: %v", err)
	}
}
