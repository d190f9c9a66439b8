package seal

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// PacketOverhead is the bytes sealing adds to a datagram: its counter
// and its tag.
const PacketOverhead = 8 + Overhead

// ReplayWindow is how many packets a receiver remembers: a packet whose
// counter is that far or farther behind the highest it opened is
// refused as too old, and one it opened already as a replay.
const ReplayWindow = 256

// ErrReplay is the error of a packet whose counter was seen, or is too
// old to tell (ReplayWindow).
var ErrReplay = errors.New("seal: a replayed or too old packet")

// Packets seals and opens one end's datagrams (UDP): each sealed packet
// is its header in clear, the sender's packet counter (uint64,
// little-endian: the nonce), then the body encrypted and its tag, the
// header and the counter being the additional data. Open refuses a
// packet that does not open (ErrAuth) and one whose counter it has seen
// or that is ReplayWindow or more behind the highest (ErrReplay). The
// caller serialises the calls of each direction.
type Packets struct {
	send, recv cipher.AEAD
	sendN      uint64
	top        uint64 // the highest counter opened, plus 1 (0: none)
	seen       [ReplayWindow]uint64
	snonce     [chacha20poly1305.NonceSize]byte
	rnonce     [chacha20poly1305.NonceSize]byte
}

// NewPackets returns the sealing of an end whose keys are k.
func NewPackets(k Keys) *Packets {
	return &Packets{send: newAEAD(k.Send), recv: newAEAD(k.Recv)}
}

// Seal appends to pkt, which holds the packet's header, the next counter
// and body sealed, and returns the packet.
func (p *Packets) Seal(pkt, body []byte) []byte {
	n := p.sendN
	p.sendN++
	pkt = binary.LittleEndian.AppendUint64(pkt, n)
	return p.send.Seal(pkt, nonce(&p.snonce, n), body, pkt)
}

// Open opens pkt, whose first header bytes are its header in clear, and
// appends its body to dst.
func (p *Packets) Open(dst, pkt []byte, header int) ([]byte, error) {
	if len(pkt) < header+PacketOverhead {
		return dst, fmt.Errorf("%w: %d bytes, less than a header and the sealing", ErrAuth, len(pkt))
	}
	n := binary.LittleEndian.Uint64(pkt[header:])
	if p.top > 0 && (n+ReplayWindow < p.top || p.seen[n%ReplayWindow] == n+1) {
		return dst, fmt.Errorf("%w: packet %d, the highest opened is %d", ErrReplay, n, p.top-1)
	}
	out, err := p.recv.Open(dst, nonce(&p.rnonce, n), pkt[header+8:], pkt[:header+8])
	if err != nil {
		return dst, fmt.Errorf("%w: packet %d", ErrAuth, n)
	}
	p.seen[n%ReplayWindow] = n + 1
	p.top = max(p.top, n+1)
	return out, nil
}
