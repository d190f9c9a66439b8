package udp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// packetSeeds returns packets of every kind, and damaged copies: cut
// short, a byte flipped.
func packetSeeds() [][]byte {
	ping := wire.AppendMessage(nil, &wire.Ping{Time: 5})
	enc := wire.AppendMessage(nil, input(3, 1))
	data := appendDataHeader(nil, 1, 0, 0, 0, 0)
	data = appendRunHeader(data, wire.TypeInput, 0, 3, 1, 2)
	data = appendItem(appendItem(data, enc[14:]), enc[14:])
	data = appendSeg(data, 0, []byte{0, 0, 0, 0, recData, 10, 0, 0, 0, 'N', 'E', 'B', 'U', 'L', 'A', 'n', 'p', 1, 0})
	data = appendFrame(data, 1, ping)
	seeds := [][]byte{
		appendConnect(nil, 7), appendAccept(nil, 7, 1), appendClose(nil, 1), data,
		appendChallenge(nil, 7, &cookie{time: 3, mac: [macSize]byte{9, 8, 7}}),
		appendResponse(nil, Version, 7, &cookie{time: 3, mac: [macSize]byte{9, 8, 7}}),
		appendDataHeader(nil, 1, 5, 1, 1, 3),
	}
	for _, s := range seeds[:len(seeds):len(seeds)] {
		flipped := bytes.Clone(s)
		flipped[len(flipped)/2] ^= 0x41
		seeds = append(seeds, s[:len(s)-1], flipped)
	}
	return seeds
}

// FuzzParsePacket parses arbitrary bytes as a packet: it must not panic,
// every error must be a malformed packet, and a packet that parses must
// encode to exactly the bytes it was parsed from.
func FuzzParsePacket(f *testing.F) {
	for _, s := range packetSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p packet
		if err := parsePacket(&p, b); err != nil {
			if !errors.Is(err, errPacket) {
				t.Fatalf("parsePacket: %T %v, want a malformed packet", err, err)
			}
			return
		}
		if again := appendPacket(nil, &p); !bytes.Equal(again, b) {
			t.Fatalf("% x parses to what encodes to % x", b, again)
		}
	})
}

// FuzzConnReceive hands a Conn the packets of arbitrary bytes (each a
// uint16 length and that many bytes) as its peer's, the token set right,
// and reads what it delivers: it must not panic, Read must end with
// an error of the stream, a timeout or nothing, and the memory it keeps
// must stay within a small multiple of the input.
func FuzzConnReceive(f *testing.F) {
	for _, s := range packetSeeds() {
		f.Add(binary.LittleEndian.AppendUint16(nil, uint16(len(s))), s)
	}
	f.Fuzz(func(t *testing.T, lengths, stream []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		size := len(lengths) + len(stream)
		c := newConn(udpAddr("a"), udpAddr("b"), 1, 4+wire.MaxClientMessage, func([]byte) {}, nil)
		defer c.kill()
		var p packet
		for len(lengths) >= 2 && len(stream) > 0 {
			n := min(int(binary.LittleEndian.Uint16(lengths)), len(stream))
			lengths = lengths[2:]
			b := stream[:n]
			stream = stream[n:]
			if len(b) >= 10 && b[0] == magic && (b[1] == kindData || b[1] == kindClose) {
				binary.LittleEndian.PutUint64(b[2:], 1) // the right token
			}
			if parsePacket(&p, b) == nil {
				c.handle(&p, len(b), time.Now())
			}
		}
		c.SetReadDeadline(time.Now())
		buf := make([]byte, 4096)
		for {
			_, err := c.Read(buf)
			if err != nil {
				break
			}
		}
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > uint64(1<<20+64*size) {
			t.Fatalf("handling the packets allocated %d bytes", got)
		}
	})
}
