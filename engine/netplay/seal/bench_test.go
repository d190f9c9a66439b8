package seal

import (
	"bytes"
	"io"
	"testing"
)

// loopConn is a connection whose writes are read back: what one end
// seals, the other opens.
type loopConn struct{ bytes.Buffer }

func (c *loopConn) Read(p []byte) (int, error) {
	if c.Len() == 0 {
		return 0, io.EOF
	}
	return c.Buffer.Read(p)
}

// BenchmarkStream measures a message's seal and open over a stream (a
// frame each): a typical Input message (one tick's input, 20 bytes) and
// a 64 KiB snapshot. ns/op is the seal and the open together; bytes/msg
// the framing and tag added.
func BenchmarkStream(b *testing.B) {
	ck, sk := testKeys()
	for _, bc := range []struct {
		name string
		size int
	}{{"input-20B", 20}, {"confirmed-60B", 60}, {"snapshot-64KiB", 64 << 10}} {
		b.Run(bc.name, func(b *testing.B) {
			msg := bytes.Repeat([]byte{0x5a}, bc.size)
			var lc loopConn
			w, r := NewConn(fakeConn{&lc}, 0), NewConn(fakeConn{&lc}, 0)
			w.SealWrites(ck.Send)
			r.SealReads(sk.Recv, false)
			buf := make([]byte, bc.size)
			b.SetBytes(int64(bc.size))
			b.ReportAllocs()
			for b.Loop() {
				w.Write(msg)
				lc.Grow(0)
				for n := 0; n < bc.size; {
					k, err := r.Read(buf[n:])
					if err != nil {
						b.Fatal(err)
					}
					n += k
				}
			}
			frames := (bc.size + MaxFrame - 1) / MaxFrame
			b.ReportMetric(float64(frames*(frameHeader+Overhead)), "bytes/msg")
		})
	}
}

// BenchmarkPackets measures a UDP packet's seal and open: a player's
// typical packet (60 bytes) and a full one (1,180).
func BenchmarkPackets(b *testing.B) {
	ck, sk := testKeys()
	for _, size := range []int{60, 1180} {
		b.Run(map[int]string{60: "60B", 1180: "1180B"}[size], func(b *testing.B) {
			c, s := NewPackets(ck), NewPackets(sk)
			hdr := make([]byte, 10)
			body := bytes.Repeat([]byte{0x5a}, size-10)
			pkt := make([]byte, 0, size+PacketOverhead)
			out := make([]byte, 0, size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				pkt = c.Seal(append(pkt[:0], hdr...), body)
				if _, err := s.Open(out[:0], pkt, len(hdr)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(PacketOverhead, "bytes/msg")
		})
	}
}
