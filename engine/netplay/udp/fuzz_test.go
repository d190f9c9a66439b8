package udp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// packetSeeds returns packets of every kind, and damaged copies: cut
// short, a byte flipped.
func packetSeeds() [][]byte {
	ping := wire.AppendMessage(nil, &wire.Ping{Time: 5})
	enc := wire.AppendMessage(nil, inputMsg(3, 1))
	data := appendDataHeader(nil, 1, 0, 0, 0, 0)
	data = appendRunHeader(data, wire.TypeInput, 0, 3, 1, 2)
	data = appendItem(appendItem(data, enc[14:]), enc[14:])
	data = appendSeg(data, 0, []byte{0, 0, 0, 0, recData, 10, 0, 0, 0, 'N', 'E', 'B', 'U', 'L', 'A', 'n', 'p', 1, 0})
	data = appendMessageChunk(data, 1, ping)
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
// must stay within a small multiple of the input. A Listener gets the
// same packets, from two addresses in turn (a response's nonce and
// cookie set to the last challenge's to its address, a packet's token to
// its address's connection's): before an address has a connection, no
// answer to it is larger than the packet, and only a response that echoes
// a challenge's cookie makes one.
func FuzzConnReceive(f *testing.F) {
	for _, s := range packetSeeds() {
		f.Add(binary.LittleEndian.AppendUint16(nil, uint16(len(s))), s)
	}
	// A handshake and data from one address: connect, response, data.
	var lengths, stream []byte
	for _, b := range [][]byte{appendConnect(nil, 5), appendConnect(nil, 6), appendResponse(nil, Version, 0, &cookie{}),
		appendResponse(nil, Version, 0, &cookie{}), packetSeeds()[3], appendClose(nil, 0)} {
		lengths = binary.LittleEndian.AppendUint16(lengths, uint16(len(b)))
		stream = append(stream, b...)
	}
	f.Add(lengths, stream)
	f.Fuzz(func(t *testing.T, lengths, stream []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		size := len(lengths) + len(stream)
		c := newConn(udpAddr("a"), udpAddr("b"), 1, 4+wire.MaxClientMessage, true, func([]byte) {}, nil)
		defer c.kill()
		h := newListenerHarness(t)
		defer h.close()
		var p packet
		for i := 0; len(lengths) >= 2 && len(stream) > 0; i++ {
			n := min(int(binary.LittleEndian.Uint16(lengths)), len(stream))
			lengths = lengths[2:]
			b := stream[:n]
			stream = stream[n:]
			h.receive(t, bytes.Clone(b), i%2)
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

// recordingConn is a PacketConn that records what is written to it and
// reads nothing until it is closed.
type recordingConn struct {
	mu     sync.Mutex
	sent   map[string][][]byte
	closed chan struct{}
	once   sync.Once
}

func (r *recordingConn) ReadFrom([]byte) (int, net.Addr, error) {
	<-r.closed
	return 0, nil, net.ErrClosed
}

func (r *recordingConn) WriteTo(b []byte, to net.Addr) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent[to.String()] = append(r.sent[to.String()], bytes.Clone(b))
	return len(b), nil
}

// take returns and forgets what was written to addr.
func (r *recordingConn) take(addr string) [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sent[addr]
	delete(r.sent, addr)
	return s
}

func (r *recordingConn) Close() error {
	r.once.Do(func() { close(r.closed) })
	return nil
}

func (r *recordingConn) LocalAddr() net.Addr              { return udpAddr("127.0.0.1:7000") }
func (r *recordingConn) SetDeadline(time.Time) error      { return nil }
func (r *recordingConn) SetReadDeadline(time.Time) error  { return nil }
func (r *recordingConn) SetWriteDeadline(time.Time) error { return nil }

// listenerHarness hands packets to a Listener as if from two clients and
// checks its answers.
type listenerHarness struct {
	pc    *recordingConn
	l     *Listener
	from  [2]udpAddr
	chal  [2]*packet // the last challenge to each address
	valid [2]bool    // a response with a challenge's cookie came from it
}

func newListenerHarness(t *testing.T) *listenerHarness {
	pc := &recordingConn{sent: map[string][][]byte{}, closed: make(chan struct{})}
	h := &listenerHarness{pc: pc, l: newListener(pc, ListenConfig{}), from: [2]udpAddr{"127.0.0.1:5000", "[::1]:5001"}}
	go h.l.read()
	return h
}

func (h *listenerHarness) close() { h.l.Close() }

// receive hands b to the listener from address i.
func (h *listenerHarness) receive(t *testing.T, b []byte, i int) {
	from := h.from[i]
	key := addrKey(from)
	h.l.mu.Lock()
	e := h.l.conns[key]
	h.l.mu.Unlock()
	proven := e != nil
	if len(b) >= 2 && b[0] == magic {
		switch {
		case b[1] == kindResponse && len(b) >= responseSize && h.chal[i] != nil:
			copy(b[3:], appendResponse(nil, Version, h.chal[i].nonce, &h.chal[i].cookie)[3:])
			h.valid[i] = h.valid[i] || len(b) == responseSize && b[2] == Version
		case (b[1] == kindData || b[1] == kindClose) && len(b) >= 10 && e != nil:
			binary.LittleEndian.PutUint64(b[2:], e.c.token)
		}
	}
	h.l.receive(b, from, time.Now())
	replies := h.pc.take(from.String())
	if proven {
		return
	}
	total := 0
	for _, r := range replies {
		total += len(r)
		var p packet
		if parsePacket(&p, r) == nil && p.kind == kindChallenge {
			h.chal[i] = &p
		}
	}
	if total > len(b) {
		t.Fatalf("a packet of %d bytes (% x) from an address without a connection was answered with %d", len(b), b, total)
	}
	h.l.mu.Lock()
	e = h.l.conns[key]
	h.l.mu.Unlock()
	if e != nil && !h.valid[i] {
		t.Fatalf("a connection for %v without a response that echoes a cookie", from)
	}
}
