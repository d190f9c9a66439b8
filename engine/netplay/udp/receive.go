package udp

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// receiver is a Conn's reading half: the tick items and segments the
// peer sent, put back in order, the stream delivered to the reader, the
// acknowledgement owed, and the counts of the peer's packet numbers.
// Conn.mu guards it.
type receiver struct {
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
		c.items, c.segs, c.messages = nil, nil, nil
		signal(c.readable)
		signal(c.wake)
		return
	}
	if p.kind != kindData {
		return
	}
	c.countSeq(p.seq)
	c.ack(p, now)
	if len(p.runs)+len(p.segs)+len(p.messages) == 0 {
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
	for _, f := range p.messages {
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
// or Confirmed messages, consecutive ticks merged) and records whose turn
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
// first, as one message of consecutive ticks (up to the message's run
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
