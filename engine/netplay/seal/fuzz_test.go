package seal

import (
	"bytes"
	"testing"
)

// FuzzStreamRead feeds a sealed Conn arbitrary bytes after a valid
// frame: it never panics, returns only what was sealed, and once it
// fails it keeps failing.
func FuzzStreamRead(f *testing.F) {
	ck, sk := testKeys()
	var w bytes.Buffer
	c := NewConn(fakeConn{&w}, 0)
	c.SealWrites(ck.Send)
	c.Write(message(4, "one"))
	first := bytes.Clone(w.Bytes())
	c.Write(message(4, "two"))
	second := w.Bytes()[len(first):]
	f.Add([]byte{}, false)
	f.Add(bytes.Clone(second), false)
	f.Add(message(3, "\x07refused"), true)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, FrameType}, false)
	f.Fuzz(func(t *testing.T, tail []byte, plainFirst bool) {
		stream := append(bytes.Clone(first), tail...)
		r := NewConn(fakeConn{bytes.NewBuffer(stream)}, 0)
		r.SealReads(sk.Recv, plainFirst)
		var got []byte
		buf := make([]byte, 7)
		var err error
		for range 1 << 12 {
			var n int
			n, err = r.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				break
			}
		}
		want := message(4, "one")
		if !bytes.HasPrefix(got, want) {
			t.Fatalf("read %q, want %q first", got, want)
		}
		if rest := got[len(want):]; len(rest) > 0 && !bytes.Equal(rest, message(4, "two")) && !bytes.HasPrefix(message(4, "two"), rest) {
			t.Fatalf("read %q after the first frame: only what was sealed may come out", rest)
		}
		if err != nil {
			if _, again := r.Read(buf); again == nil {
				t.Fatal("a failed stream read again")
			}
		}
	})
}

// FuzzPacketsOpen feeds Packets.Open arbitrary datagrams: nothing but
// what the peer sealed opens, nothing panics, and a packet opens once.
func FuzzPacketsOpen(f *testing.F) {
	ck, sk := testKeys()
	c := NewPackets(ck)
	hdr := []byte{0xB7, 7, 1, 2, 3, 4, 5, 6, 7, 8}
	sealed := c.Seal(bytes.Clone(hdr), []byte("data"))
	f.Add(bytes.Clone(sealed))
	f.Add([]byte{})
	f.Add(sealed[:len(hdr)+8])
	f.Fuzz(func(t *testing.T, b []byte) {
		s := NewPackets(sk)
		body, err := s.Open(nil, b, len(hdr))
		if err != nil {
			return
		}
		if !bytes.Equal(b, sealed) || string(body) != "data" {
			t.Fatalf("opened %x as %q: only the sealed packet opens", b, body)
		}
		if _, err := s.Open(nil, b, len(hdr)); err == nil {
			t.Fatal("a packet opened twice")
		}
	})
}
