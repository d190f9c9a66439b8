package udp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/seal"
)

// kindSealed is a data packet sealed with the connection's session keys
// (Conn.Seal): magic, kind, token in clear, then the packet counter and
// the data packet's bytes after its token, encrypted, and the tag.
const kindSealed = 7

// sealedHeader is the bytes of a sealed packet before its counter: the
// same as a data packet's before its numbers.
const sealedHeader = 2 + 8

// MaxSealedPacket is the most bytes of a sealed packet: a data packet of
// MaxPacket and the sealing, under the 1,232 bytes of UDP payload that
// IPv6's minimum MTU (1,280) carries whole.
const MaxSealedPacket = MaxPacket + seal.PacketOverhead

// errUnsealed is why a data packet in clear is dropped once the
// connection is sealed.
var errUnsealed = errors.New("udp: a data packet in clear on a sealed connection")

// Seal seals the connection from now on with sealing (one Packets per
// connection): every data packet it sends, and every data packet it
// accepts, is sealed. The server's end seals at once, as soon as the
// handshake gave it the keys; the client's end, which has its keys from
// the start, sends in clear (its Hello, which carries the token, must be
// read before the server has the keys) until the first sealed packet of
// the server opens, and accepts packets in clear until then. A server's
// sealed end that gets a data packet in clear drops it and answers with
// an acknowledgement, sealed, which tells the client to switch.
func (c *Conn) Seal(sealing *seal.Packets) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sealing = sealing
	if c.server {
		c.sealOut, c.sealIn = true, true
		// Say so at once: the client switches on the first sealed packet.
		c.ackPending, c.ackAt = true, time.Now()
		signal(c.wake)
	}
}

// sealPacket seals the data packet b for sending, when the connection's
// sending side is sealed. c.mu is held.
func (c *Conn) sealPacket(b []byte) []byte {
	if !c.sealOut || len(b) < sealedHeader || b[1] != kindData {
		return b
	}
	c.sbuf = append(c.sbuf[:0], magic, kindSealed)
	c.sbuf = append(c.sbuf, b[2:sealedHeader]...)
	c.sbuf = c.sealing.Seal(c.sbuf, b[sealedHeader:])
	return c.sbuf
}

// open opens a sealed packet b into a data packet in clear (in a buffer
// of c's, valid until the next open), or says why it does not open.
// Only the goroutine that reads the connection's packets calls it.
func (c *Conn) open(b []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sealing == nil {
		c.stats.Unauthentic++
		return nil, errors.New("udp: a sealed packet on a connection in clear")
	}
	c.obuf = append(c.obuf[:0], magic, kindData)
	c.obuf = append(c.obuf, b[2:sealedHeader]...)
	out, err := c.sealing.Open(c.obuf, b, sealedHeader)
	if err != nil {
		c.stats.Unauthentic++
		return nil, fmt.Errorf("udp: %w", err)
	}
	c.obuf = out
	if !c.sealIn {
		// The client's end: the server has its keys.
		c.sealIn, c.sealOut = true, true
	}
	return out, nil
}

// refuseClear reports whether a packet in clear of kind must be dropped
// (and counts it): a data packet once the connection's receiving side is
// sealed. A server's end then acknowledges, sealed, so that a client
// still in clear learns the server has its keys.
func (c *Conn) refuseClear(kind byte) bool {
	if kind != kindData {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sealIn {
		return false
	}
	c.stats.Unauthentic++
	if c.server && !c.ackPending {
		c.ackPending, c.ackAt = true, time.Now()
		signal(c.wake)
	}
	return true
}

// awaitsSeal reports whether the connection has its keys and waits for
// its peer's first sealed packet (a client's end).
func (c *Conn) awaitsSeal() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sealing != nil && !c.sealIn
}

// Sealed reports whether what the connection receives is sealed: from
// the peer's first sealed packet on, on a client's end. A client that
// has its keys checks, once it has read the server's Welcome, that it
// came sealed.
func (c *Conn) Sealed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sealIn
}

// sealedToken returns the token of a sealed packet b, false when b is no
// sealed packet.
func sealedToken(b []byte) (uint64, bool) {
	if len(b) < sealedHeader+seal.PacketOverhead || len(b) > MaxSealedPacket || b[0] != magic || b[1] != kindSealed {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b[2:]), true
}

// receiveSealed opens a sealed packet b from an address with a
// connection, once it is counted against the connection's rate (before
// the cost of opening it).
func (l *Listener) receiveSealed(b []byte, from net.Addr, now time.Time) (*Conn, []byte, bool) {
	tok, ok := sealedToken(b)
	if !ok {
		l.drop("malformed packet", from, fmt.Errorf("%w: a sealed packet of %d bytes", errPacket, len(b)))
		return nil, nil, false
	}
	l.mu.Lock()
	e := l.conns[addrKey(from)]
	l.mu.Unlock()
	switch {
	case e == nil:
		l.drop("unknown source", from, errors.New("a packet from an address without a connection"))
		return nil, nil, false
	case tok != e.c.token:
		l.drop("bad token", from, errors.New("a packet whose token is not its connection's"))
		return nil, nil, false
	}
	if !l.count(e.c, from, now) {
		return nil, nil, false
	}
	plain, err := e.c.open(b)
	if err != nil {
		l.drop("unauthentic packet", from, err)
		return nil, nil, false
	}
	return e.c, plain, true
}
