package udp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
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
	recData      = 0 // a record of data: a preamble or a wire frame
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
}

// outItem is a tick item the peer has not acknowledged.
type outItem struct {
	typ   wire.Type
	tick  uint64
	rel   uint32 // records written before it
	body  []byte
	sends int
	last  time.Time
}

// outSeg is a reliable segment the peer has not acknowledged.
type outSeg struct {
	data  []byte
	sends int
	last  time.Time
	acked bool // selectively acknowledged
}

type outFrame struct {
	rel  uint32
	data []byte
}

type inItem struct {
	typ  wire.Type
	tick uint64
	rel  uint32
	body []byte
}

type record struct {
	pos  uint32 // the tick items delivered before it
	kind byte
	data []byte
}

// Conn is one end of a connection over UDP: a net.Conn that carries the
// stream of wire frames written to it (a preamble first) to the peer's
// Conn, which reads the same frames back. See the package doc.
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

	// Writing.
	wbuf     []byte // written bytes not yet a whole frame
	wpre     bool   // the preamble went
	feed     feeder
	split    *wire.Reader
	one      wire.Input
	oneC     wire.Confirmed
	enc      []byte
	items    []outItem // unacknowledged, items[0] of index itemBase
	itemBase uint32
	records  uint32 // records written
	segs     []outSeg
	segBase  uint32
	unacked  int // bytes in segs
	frames   []outFrame
	pktSeq   uint32
	wclosed  bool
	pbuf     []byte

	// Reading.
	in         map[uint32]inItem
	inRecv     uint32 // the first index not received
	inNext     uint32 // the first index not delivered
	segIn      map[uint32][]byte
	segRecv    uint32
	rbuf       []byte
	recs       []record
	delivered  uint32 // records delivered
	out        []byte
	eof        bool
	peerClosed bool
	err        error
	ackPending bool
	ackAt      time.Time
	rxAny      bool
	rxHigh     uint32
	rxBits     uint64
	rxUnique   uint64

	srtt, rttvar, rto time.Duration

	closed bool
	until  time.Time // the end of the linger
	dead   bool
	rdl    time.Time
	wdl    time.Time
	stats  Stats
}

// feeder hands the frame being split to the splitting wire.Reader.
type feeder struct{ b []byte }

var errNeedMore = errors.New("udp: need more")

func (f *feeder) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, errNeedMore
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}

func newConn(local, remote net.Addr, token uint64, maxRecord int, send func([]byte), onDead func()) *Conn {
	c := &Conn{
		send: send, onDead: onDead, local: local, remote: remote, token: token, maxRec: maxRecord,
		wake: make(chan struct{}, 1), readable: make(chan struct{}, 1), deadCh: make(chan struct{}),
		in: map[uint32]inItem{}, segIn: map[uint32][]byte{}, rto: initialRTO,
	}
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

// Read reads the peer's stream: its frames in the order it wrote them
// (its Ping and Pong frames as they arrive, or not at all). It returns
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

// Write queues b, a part of the stream of wire frames (the first
// wire.PreambleSize bytes are the preamble), and sends what it completes
// at once. It never waits for the peer.
func (c *Conn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed || c.dead:
		return 0, net.ErrClosed
	case c.peerClosed:
		return 0, ErrPeerClosed
	case c.wclosed:
		return 0, errWriteClosed
	case !c.wdl.IsZero() && !time.Now().Before(c.wdl):
		return 0, os.ErrDeadlineExceeded
	}
	c.wbuf = append(c.wbuf, b...)
	rest := c.wbuf
	for {
		if !c.wpre {
			if len(rest) < wire.PreambleSize {
				break
			}
			c.writeRecord(recData, rest[:wire.PreambleSize])
			rest, c.wpre = rest[wire.PreambleSize:], true
			continue
		}
		if len(rest) < 4 {
			break
		}
		n := 4 + uint64(binary.LittleEndian.Uint32(rest))
		if uint64(len(rest)) < n {
			break
		}
		c.writeFrame(rest[:n])
		rest = rest[n:]
	}
	c.wbuf = append(c.wbuf[:0], rest...)
	if len(c.items) > maxTickItems || c.unacked > maxUnacked {
		return 0, fmt.Errorf("udp: the peer at %v acknowledges too little: %d tick items and %d bytes wait", c.remote, len(c.items), c.unacked)
	}
	c.flush(time.Now())
	return len(b), nil
}

// writeFrame queues one whole wire frame by its kind.
func (c *Conn) writeFrame(f []byte) {
	if len(f) < 5 {
		c.writeRecord(recData, f)
		return
	}
	switch t := wire.Type(f[4]); t {
	case wire.TypePing, wire.TypePong:
		c.frames = append(c.frames, outFrame{rel: c.records, data: append([]byte(nil), f...)})
	case wire.TypeInput, wire.TypeConfirmed:
		c.feed.b = f
		m, err := c.split.ReadMessage()
		c.feed.b = nil
		if err != nil {
			// Not a frame the peer accepts: send it as it is, and let
			// the peer's reader say what is wrong with it.
			c.split = wire.NewReader(&c.feed, wire.MaxServerMessage)
			c.writeRecord(recData, f)
			return
		}
		switch m := m.(type) {
		case *wire.Input:
			for i := range m.Inputs {
				c.one.First, c.one.Inputs[0] = m.First+uint64(i), m.Inputs[i]
				c.enc = wire.AppendMessage(c.enc[:0], &c.one)
				c.writeItem(t, c.one.First, 14)
			}
		case *wire.Confirmed:
			for i := range m.Ticks {
				c.oneC.First, c.oneC.Ticks[0] = m.First+uint64(i), m.Ticks[i]
				c.enc = wire.AppendMessage(c.enc[:0], &c.oneC)
				c.writeItem(t, c.oneC.First, 15)
			}
		}
	default:
		c.writeRecord(recData, f)
	}
}

// writeItem queues the tick item of c.enc, a frame of one tick whose
// body starts after header bytes; a tick too large for a packet goes as
// a reliable record instead.
func (c *Conn) writeItem(t wire.Type, tick uint64, header int) {
	body := c.enc[header:]
	if len(body) > maxItem || len(body) == 0 {
		c.writeRecord(recData, c.enc)
		return
	}
	c.items = append(c.items, outItem{typ: t, tick: tick, rel: c.records, body: append([]byte(nil), body...)})
}

// writeRecord appends a record to the reliable stream.
func (c *Conn) writeRecord(kind byte, data []byte) {
	var h [recordHeader]byte
	binary.LittleEndian.PutUint32(h[0:], c.itemBase+uint32(len(c.items)))
	h[4] = kind
	binary.LittleEndian.PutUint32(h[5:], uint32(len(data)))
	c.appendReliable(h[:])
	c.appendReliable(data)
	c.records++
}

func (c *Conn) appendReliable(b []byte) {
	c.unacked += len(b)
	for len(b) > 0 {
		if n := len(c.segs); n > 0 && c.segs[n-1].sends == 0 && len(c.segs[n-1].data) < maxSeg {
			s := &c.segs[n-1]
			k := min(maxSeg-len(s.data), len(b))
			s.data = append(s.data, b[:k]...)
			b = b[k:]
			continue
		}
		c.segs = append(c.segs, outSeg{data: make([]byte, 0, min(len(b), maxSeg))})
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

// service sends what timers make due: acknowledgements, resends, the
// rest of a burst, the end of a linger.
func (c *Conn) service() {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		c.mu.Lock()
		if c.dead {
			c.mu.Unlock()
			return
		}
		now := time.Now()
		if c.closed && (c.settled() || c.peerClosed || !now.Before(c.until)) {
			if !c.peerClosed {
				b := appendClose(nil, c.token)
				c.send(b)
				c.send(b)
			}
			c.die()
			c.mu.Unlock()
			return
		}
		next := c.due(now)
		if !next.After(now) {
			c.flush(now)
			next = c.due(now)
			if !next.After(now) {
				next = now.Add(time.Millisecond)
			}
		}
		c.mu.Unlock()
		timer.Reset(time.Until(next))
		select {
		case <-timer.C:
		case <-c.wake:
		case <-c.deadCh:
			return
		}
	}
}

// due returns when something must be sent next. c.mu is held.
func (c *Conn) due(now time.Time) time.Time {
	next := now.Add(time.Hour)
	if c.closed {
		next = c.until
	}
	if c.peerClosed {
		return next
	}
	if c.ackPending && c.ackAt.Before(next) {
		next = c.ackAt
	}
	for i := range min(len(c.items), tickWindow) {
		it := &c.items[i]
		if it.sends == 0 {
			return now
		}
		if i == 0 {
			if t := it.last.Add(c.backoff(it.sends)); t.Before(next) {
				next = t
			}
		}
	}
	for i := range min(len(c.segs), segWindow) {
		s := &c.segs[i]
		if s.acked {
			continue
		}
		if s.sends == 0 {
			return now
		}
		if t := s.last.Add(c.backoff(s.sends)); t.Before(next) {
			next = t
		}
	}
	if len(c.frames) > 0 {
		return now
	}
	return next
}

func (c *Conn) backoff(sends int) time.Duration {
	return min(c.rto<<min(sends-1, 5), maxRTO)
}

// flush sends a packet with the acknowledgements and every tick item
// not acknowledged (oldest first, as many as fit), then the reliable
// segments due and the unreliable frames, and more packets while items
// never sent or segments due remain, up to maxBurst. c.mu is held.
func (c *Conn) flush(now time.Time) {
	if c.peerClosed || c.dead {
		return
	}
	for k := range maxBurst {
		first := k == 0
		b := appendDataHeader(c.pbuf[:0], c.token, c.pktSeq, c.inRecv, c.segRecv, c.relBits())
		n0 := len(b)
		if first {
			b = c.packTicks(b, now, true)
			b = c.packSegs(b, now, true)
		} else {
			b = c.packSegs(b, now, false)
			b = c.packTicks(b, now, false)
		}
		b = c.packFrames(b)
		if !first && len(b) == n0 {
			break
		}
		c.pbuf = b
		c.send(b)
		c.pktSeq++
		c.stats.PacketsSent++
		c.stats.BytesSent += int64(len(b))
		c.ackPending = false
		if c.due(now).After(now) {
			break
		}
	}
}

// relBits returns the selective acknowledgement of the 32 segments after
// segRecv. c.mu is held.
func (c *Conn) relBits() uint32 {
	var bits uint32
	if len(c.segIn) == 0 {
		return 0
	}
	for i := range uint32(32) {
		if _, ok := c.segIn[c.segRecv+1+i]; ok {
			bits |= 1 << i
		}
	}
	return bits
}

// packTicks appends tick items to b: all (oldest first) or only those
// never sent. c.mu is held.
func (c *Conn) packTicks(b []byte, now time.Time, all bool) []byte {
	countAt, count := -1, 0
	var prev *outItem
	for i := range min(len(c.items), tickWindow) {
		it := &c.items[i]
		if !all && it.sends > 0 {
			continue
		}
		cont := countAt >= 0 && count < maxRunItems && i > 0 && prev == &c.items[i-1] &&
			it.typ == prev.typ && it.tick == prev.tick+1 && it.rel == prev.rel
		index := c.itemBase + uint32(i)
		need := uvarintLen(uint64(len(it.body))) + len(it.body)
		if !cont {
			need += runHeaderLen(index, it.tick, it.rel)
		}
		if len(b)+need > MaxPacket {
			if all {
				break
			}
			continue
		}
		if !cont {
			if countAt >= 0 {
				b[countAt] = byte(count)
			}
			b = appendRunHeader(b, it.typ, index, it.tick, it.rel, 0)
			countAt, count = len(b)-1, 0
		}
		b = appendItem(b, it.body)
		count++
		if it.sends++; it.sends > 1 {
			c.stats.Resends++
		}
		it.last = now
		prev = it
	}
	if countAt >= 0 {
		b[countAt] = byte(count)
	}
	return b
}

// packSegs appends the reliable segments that are due (never sent, or
// past their timeout) and, in the first packet, the small ones not
// acknowledged. c.mu is held.
func (c *Conn) packSegs(b []byte, now time.Time, first bool) []byte {
	for i := range min(len(c.segs), segWindow) {
		s := &c.segs[i]
		if s.acked {
			continue
		}
		due := s.sends == 0 || !now.Before(s.last.Add(c.backoff(s.sends))) || first && len(s.data) <= smallSeg
		if !due || len(b)+segLen(c.segBase+uint32(i), len(s.data)) > MaxPacket {
			continue
		}
		b = appendSeg(b, c.segBase+uint32(i), s.data)
		if s.sends++; s.sends > 1 {
			c.stats.Resends++
		}
		s.last = now
	}
	return b
}

// packFrames appends the unreliable frames that fit; each goes once.
func (c *Conn) packFrames(b []byte) []byte {
	kept := c.frames[:0]
	for _, f := range c.frames {
		if len(b)+segLen(f.rel, len(f.data)) > MaxPacket {
			kept = append(kept, f)
			continue
		}
		b = appendFrame(b, f.rel, f.data)
	}
	clear(c.frames[len(kept):])
	c.frames = kept
	return b
}

// handle acts on a packet from the peer, its token already checked.
func (c *Conn) handle(p *packet, size int, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return
	}
	c.stats.PacketsReceived++
	c.stats.BytesReceived += int64(size)
	if p.kind == kindClose {
		c.peerClosed = true
		c.items, c.segs, c.frames = nil, nil, nil
		signal(c.readable)
		signal(c.wake)
		return
	}
	if p.kind != kindData {
		return
	}
	c.countSeq(p.seq)
	c.ack(p, now)
	if len(p.runs)+len(p.segs)+len(p.frames) == 0 {
		return
	}
	if len(c.out) > maxBuffered(c.maxRec) {
		return // the reader is far behind: the peer will send it again
	}
	if !c.ackPending {
		c.ackPending, c.ackAt = true, now.Add(ackDelay)
		signal(c.wake)
	}
	if c.closed || c.eof || c.err != nil {
		return
	}
	for _, rn := range p.runs {
		for i, body := range rn.items {
			j := rn.index + uint32(i)
			if j-c.inNext >= tickWindow || j < c.inRecv {
				continue
			}
			if _, ok := c.in[j]; !ok {
				c.in[j] = inItem{typ: rn.typ, tick: rn.tick + uint64(i), rel: rn.rel, body: append([]byte(nil), body...)}
			}
		}
	}
	for {
		if _, ok := c.in[c.inRecv]; !ok {
			break
		}
		c.inRecv++
	}
	for _, s := range p.segs {
		if s.seq-c.segRecv >= segWindow {
			continue
		}
		if _, ok := c.segIn[s.seq]; !ok {
			c.segIn[s.seq] = append([]byte(nil), s.data...)
		}
	}
	for {
		d, ok := c.segIn[c.segRecv]
		if !ok {
			break
		}
		delete(c.segIn, c.segRecv)
		c.segRecv++
		c.rbuf = append(c.rbuf, d...)
	}
	c.parseRecords()
	c.deliver()
	for _, f := range p.frames {
		if f.rel <= c.delivered && c.err == nil && !c.eof {
			c.out = append(c.out, f.data...)
		}
	}
	if len(c.out) > 0 || c.eof || c.err != nil {
		signal(c.readable)
	}
}

// maxBuffered is the most delivered bytes a Conn holds for its reader
// before it ignores the peer's data.
func maxBuffered(maxRecord int) int { return 4<<20 + maxRecord }

// countSeq counts a packet number: duplicates, and the unique ones for
// the loss estimate. c.mu is held.
func (c *Conn) countSeq(seq uint32) {
	switch {
	case !c.rxAny:
		c.rxAny, c.rxHigh, c.rxBits = true, seq, 1
	case seq > c.rxHigh:
		if d := seq - c.rxHigh; d >= 64 {
			c.rxBits = 1
		} else {
			c.rxBits = c.rxBits<<d | 1
		}
		c.rxHigh = seq
	default:
		d := c.rxHigh - seq
		if d >= 64 || c.rxBits&(1<<d) != 0 {
			c.stats.Duplicates++
			return
		}
		c.rxBits |= 1 << d
	}
	c.rxUnique++
}

// ack drops what the peer acknowledges and samples the round trip. c.mu
// is held.
func (c *Conn) ack(p *packet, now time.Time) {
	acked := false
	if n := p.ackTick - c.itemBase; n > 0 && n <= uint32(len(c.items)) {
		acked = true
		for i := range n {
			if it := &c.items[i]; it.sends == 1 {
				c.sample(now.Sub(it.last))
			}
		}
		clear(c.items[:n])
		c.items = c.items[n:]
		if len(c.items) == 0 {
			c.items = nil
		}
		c.itemBase = p.ackTick
	}
	if n := p.ackRel - c.segBase; n > 0 && n <= uint32(len(c.segs)) {
		acked = true
		for i := range n {
			s := &c.segs[i]
			if s.sends == 1 && !s.acked {
				c.sample(now.Sub(s.last))
			}
			c.unacked -= len(s.data)
		}
		clear(c.segs[:n])
		c.segs = c.segs[n:]
		if len(c.segs) == 0 {
			c.segs = nil
		}
		c.segBase = p.ackRel
	}
	if p.ackRel == c.segBase {
		for i := range uint32(32) {
			if p.relBits&(1<<i) != 0 && int(i)+1 < len(c.segs) {
				c.segs[i+1].acked = true
			}
		}
	}
	if acked || c.closed && c.settled() {
		signal(c.wake) // the window moved: what waited for it can go
	}
}

// sample updates the round-trip estimate and the timeout (RFC 6298).
func (c *Conn) sample(rtt time.Duration) {
	if c.srtt == 0 {
		c.srtt, c.rttvar = rtt, rtt/2
	} else {
		d := c.srtt - rtt
		if d < 0 {
			d = -d
		}
		c.rttvar = (3*c.rttvar + d) / 4
		c.srtt = (7*c.srtt + rtt) / 8
	}
	c.rto = min(max(c.srtt+4*c.rttvar, minRTO), maxRTO)
}

// parseRecords moves the whole records of the reliable stream to recs.
// c.mu is held.
func (c *Conn) parseRecords() {
	off := 0
	for len(c.rbuf)-off >= recordHeader {
		h := c.rbuf[off:]
		pos, kind, n := binary.LittleEndian.Uint32(h), h[4], uint64(binary.LittleEndian.Uint32(h[5:]))
		switch {
		case kind > recFin || kind == recFin && n != 0:
			c.fail(fmt.Errorf("udp: a record of kind %d and %d bytes in the reliable stream", kind, n))
			return
		case n > uint64(c.maxRec):
			c.fail(fmt.Errorf("udp: a record of %d bytes in the reliable stream, at most %d", n, c.maxRec))
			return
		}
		if uint64(len(c.rbuf)-off) < recordHeader+n {
			break
		}
		c.recs = append(c.recs, record{pos: pos, kind: kind, data: append([]byte(nil), h[recordHeader:recordHeader+n]...)})
		off += recordHeader + int(n)
	}
	if off > 0 {
		c.rbuf = append(c.rbuf[:0], c.rbuf[off:]...)
	}
}

// fail records a fault of the peer's stream: Read returns it. c.mu is
// held.
func (c *Conn) fail(err error) {
	if c.err == nil {
		c.err = err
	}
	c.in, c.segIn, c.recs, c.rbuf = nil, nil, nil, nil
	signal(c.readable)
}

// deliver moves to out, in the sender's order, the tick items (as Input
// or Confirmed frames, consecutive ticks merged) and records whose turn
// has come. c.mu is held.
func (c *Conn) deliver() {
	for c.err == nil && !c.eof {
		if it, ok := c.in[c.inNext]; ok {
			if it.rel < c.delivered {
				c.fail(fmt.Errorf("udp: tick item %d follows %d records, but %d were delivered before it", c.inNext, it.rel, c.delivered))
				return
			}
			if it.rel == c.delivered {
				c.deliverTicks(it.typ, it.tick)
				continue
			}
		}
		if len(c.recs) > 0 {
			r := c.recs[0]
			if r.pos < c.inNext {
				c.fail(fmt.Errorf("udp: record %d follows %d tick items, but %d were delivered before it", c.delivered, r.pos, c.inNext))
				return
			}
			if r.pos == c.inNext {
				if r.kind == recFin {
					c.eof = true
				} else {
					c.out = append(c.out, r.data...)
				}
				c.recs[0] = record{}
				c.recs = c.recs[1:]
				c.delivered++
				continue
			}
			if it, ok := c.in[c.inNext]; ok && it.rel > c.delivered {
				c.fail(fmt.Errorf("udp: tick item %d and record %d each wait for the other", c.inNext, c.delivered))
			}
		}
		return
	}
}

// deliverTicks appends the tick items from inNext, of type t from tick
// first, as one frame of consecutive ticks (up to the message's run
// limit). c.mu is held.
func (c *Conn) deliverTicks(t wire.Type, first uint64) {
	maxRun, header := wire.MaxInputRun, 14
	if t == wire.TypeConfirmed {
		maxRun, header = wire.MaxConfirmedRun, 15
	}
	start := len(c.out)
	c.out = append(c.out, make([]byte, header)...)
	n := 0
	for n < maxRun {
		it, ok := c.in[c.inNext]
		if !ok || it.rel != c.delivered || it.typ != t || it.tick != first+uint64(n) {
			break
		}
		c.out = append(c.out, it.body...)
		delete(c.in, c.inNext)
		c.inNext++
		n++
	}
	h := c.out[start:]
	binary.LittleEndian.PutUint32(h, uint32(len(c.out)-start-4))
	h[4] = byte(t)
	binary.LittleEndian.PutUint64(h[5:], first)
	if t == wire.TypeConfirmed {
		binary.LittleEndian.PutUint16(h[13:], uint16(n))
	} else {
		h[13] = byte(n)
	}
}
