package udp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay/seal"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// The transport's timing and window limits, in one place.
const (
	// ackDelay is how long a side that received data waits for a packet
	// of its own to carry the acknowledgement before it sends one alone:
	// longer than a 60 Hz tick, so that a player's input packets carry it.
	ackDelay = 20 * time.Millisecond
	// minRTO and maxRTO bound the retransmission timeout; initialRTO is
	// the timeout before any round trip was measured.
	minRTO     = 30 * time.Millisecond
	maxRTO     = time.Second
	initialRTO = 200 * time.Millisecond
	// linger is how long Close keeps resending what the peer has not
	// acknowledged before it gives up.
	linger = 2 * time.Second
	// maxBurst is the most packets one flush sends; more wait a
	// millisecond.
	maxBurst = 16
	// tickWindow is the most tick items in flight beyond the oldest
	// unacknowledged one, and what a receiver holds beyond the next it
	// delivers.
	tickWindow = 8192
	// maxTickItems is the most unacknowledged tick items a sender keeps:
	// more means the peer acknowledges nothing, and Write fails.
	maxTickItems = 1 << 16
	// segWindow is the most reliable segments in flight beyond the oldest
	// unacknowledged one, and what a receiver holds out of order.
	segWindow = 64
	// smallSeg: a reliable segment this small is resent in every packet
	// until acknowledged, like a tick item (a Hash, an End, a Bye).
	smallSeg = 128
	// maxUnacked is the most reliable bytes a sender keeps unacknowledged
	// (a snapshot of wire.MaxSnapshot and more): more and Write fails.
	maxUnacked = wire.MaxServerMessage + 16<<20
	// recordHeader is the bytes before a reliable record's data: the
	// sender's tick position, the kind and the length.
	recordHeader = 4 + 1 + 4
	recData      = 0 // a record of data: a preamble or a wire message
	recFin       = 1 // the end of the sender's stream (CloseWrite)
)

// ErrPeerClosed is what Write returns once the peer has closed the
// connection (it wraps syscall.ECONNRESET, as a reset TCP connection's
// error does).
var ErrPeerClosed = fmt.Errorf("udp: the peer closed the connection: %w", syscall.ECONNRESET)

// errWriteClosed is what Write returns after CloseWrite.
var errWriteClosed = errors.New("udp: write after CloseWrite")

// Stats are a connection's counters. Bytes are UDP payloads.
type Stats struct {
	PacketsSent     uint64 // packets sent, acknowledgements alone included
	PacketsReceived uint64 // packets received from the peer, duplicates included
	// PacketsLost estimates the peer's packets that never arrived (or
	// arrived more than 64 packets late): the packet numbers missing
	// below the highest received.
	PacketsLost uint64
	Duplicates  uint64 // packets received more than once
	// Resends counts tick items and reliable segments sent again
	// (redundancy and retransmission).
	Resends       uint64
	BytesSent     int64 // UDP payload bytes sent
	BytesReceived int64 // UDP payload bytes received
	// Unauthentic counts the packets dropped on a sealed connection
	// (Conn.Seal): sealed ones that did not open (altered, forged) or
	// came again (replayed), and data packets in clear.
	Unauthentic uint64
}

// Conn is one end of a connection over UDP: a net.Conn that carries the
// stream of wire messages written to it (a preamble first) to the
// peer's Conn, which reads the same messages back. See the package doc.
type Conn struct {
	send     func([]byte) // sends one packet to the peer
	onDead   func()       // called once, when the connection is over
	local    net.Addr
	remote   net.Addr
	token    uint64
	maxRec   int // the largest record accepted from the peer
	wake     chan struct{}
	readable chan struct{}
	deadCh   chan struct{}

	mu sync.Mutex

	sender   // the writing half (send.go)
	receiver // the reading half (receive.go)

	// The sealing (Conn.Seal): whether this end is the server's, and
	// whether its sending and receiving sides are sealed yet; the
	// buffers it seals and opens packets in.
	server          bool
	sealing         *seal.Packets
	sealOut, sealIn bool
	sbuf, obuf      []byte

	closed bool
	until  time.Time // the end of the linger
	dead   bool
	rdl    time.Time
	wdl    time.Time
	stats  Stats
}

func newConn(local, remote net.Addr, token uint64, maxRecord int, server bool, send func([]byte), onDead func()) *Conn {
	c := &Conn{
		send: send, onDead: onDead, local: local, remote: remote, token: token, maxRec: maxRecord, server: server,
		wake: make(chan struct{}, 1), readable: make(chan struct{}, 1), deadCh: make(chan struct{}),
	}
	c.in, c.segIn, c.rto = map[uint32]inItem{}, map[uint32][]byte{}, initialRTO
	c.split = wire.NewReader(&c.feed, wire.MaxServerMessage)
	c.one.Inputs = make([]input.Sample, 1)
	c.oneC.Ticks = make([]wire.ConfirmedTick, 1)
	go c.service()
	return c
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// LocalAddr returns the local address.
func (c *Conn) LocalAddr() net.Addr { return c.local }

// RemoteAddr returns the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// Stats returns the connection's counters.
func (c *Conn) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	if c.rxAny && uint64(c.rxHigh)+1 > c.rxUnique {
		s.PacketsLost = uint64(c.rxHigh) + 1 - c.rxUnique
	}
	return s
}

// SetDeadline sets the read and write deadlines.
func (c *Conn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

// SetReadDeadline sets the time after which Read fails with an error
// whose Timeout() is true; the zero time means none.
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.rdl = t
	c.mu.Unlock()
	signal(c.readable)
	return nil
}

// SetWriteDeadline sets the time after which Write fails with a timeout.
// Write never waits (it queues), so only a deadline already past matters.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.wdl = t
	c.mu.Unlock()
	return nil
}

// Read reads the peer's stream: its messages in the order it wrote
// them (its Ping and Pong messages as they arrive, or not at all). It returns
// io.EOF after the last byte written before the peer's CloseWrite or
// Close.
func (c *Conn) Read(p []byte) (int, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		c.mu.Lock()
		switch {
		case c.closed:
			c.mu.Unlock()
			return 0, net.ErrClosed
		case len(c.out) > 0:
			n := copy(p, c.out)
			c.out = c.out[n:]
			if len(c.out) == 0 {
				c.out = nil
			}
			c.mu.Unlock()
			return n, nil
		case c.err != nil:
			err := c.err
			c.mu.Unlock()
			return 0, err
		case c.eof || c.peerClosed:
			c.mu.Unlock()
			return 0, io.EOF
		case c.dead:
			c.mu.Unlock()
			return 0, net.ErrClosed
		case !c.rdl.IsZero() && !time.Now().Before(c.rdl):
			c.mu.Unlock()
			return 0, os.ErrDeadlineExceeded
		}
		dl := c.rdl
		c.mu.Unlock()
		var expire <-chan time.Time
		if !dl.IsZero() {
			if timer == nil {
				timer = time.NewTimer(time.Until(dl))
			} else {
				timer.Reset(time.Until(dl))
			}
			expire = timer.C
		}
		select {
		case <-c.readable:
		case <-expire:
		case <-c.deadCh:
		}
	}
}

// CloseWrite ends the stream this side writes: the peer's Read returns
// io.EOF after everything written before. Reading goes on.
func (c *Conn) CloseWrite() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed || c.dead:
		return net.ErrClosed
	case c.wclosed || c.peerClosed:
		return nil
	}
	c.wclosed = true
	c.writeRecord(recFin, nil)
	c.flush(time.Now())
	return nil
}

// Close closes the connection: Read and Write fail with net.ErrClosed at
// once. What the peer has not acknowledged is resent for up to 2 s in
// the background (as a TCP socket's kernel does), then the peer is told
// the connection is closed.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.in, c.segIn, c.out, c.recs, c.rbuf = nil, nil, nil, nil, nil
	c.until = time.Now().Add(linger)
	c.mu.Unlock()
	signal(c.wake)
	signal(c.readable)
	return nil
}

// Done returns a channel closed when the connection is over: after
// Close, once the peer has acknowledged everything (or the linger ran out)
// and was told; or when the socket closed.
func (c *Conn) Done() <-chan struct{} { return c.deadCh }

// kill ends the connection at once, without a word to the peer (its
// socket closed).
func (c *Conn) kill() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.die()
}

// sayClose tells the peer, once, that the connection is closed, unless it
// said so first.
func (c *Conn) sayClose() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.peerClosed && !c.dead {
		c.send(appendClose(nil, c.token))
	}
}

// die marks the connection over. c.mu is held.
func (c *Conn) die() {
	if c.dead {
		return
	}
	c.dead = true
	close(c.deadCh)
	signal(c.readable)
	if c.onDead != nil {
		go c.onDead()
	}
}

// settled reports whether the peer has acknowledged everything. c.mu is
// held.
func (c *Conn) settled() bool {
	return len(c.items) == 0 && len(c.segs) == 0
}
