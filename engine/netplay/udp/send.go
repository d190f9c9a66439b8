package udp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// sender is a Conn's writing half: the stream written, cut into tick
// items and reliable records (in segments), what the peer has not
// acknowledged yet, and the round-trip estimate that times the resends.
// Conn.mu guards it.
type sender struct {
	wbuf     []byte // written bytes not yet a whole message
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
	messages []outMessage
	pktSeq   uint32
	wclosed  bool
	pbuf     []byte

	srtt, rttvar, rto time.Duration
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

type outMessage struct {
	rel  uint32
	data []byte
}

// feeder hands the message being split to the splitting wire.Reader.
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

// Write queues b, a part of the stream of wire messages (the first
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
		c.writeMessage(rest[:n])
		rest = rest[n:]
	}
	c.wbuf = append(c.wbuf[:0], rest...)
	if len(c.items) > maxTickItems || c.unacked > maxUnacked {
		return 0, fmt.Errorf("udp: the peer at %v acknowledges too little: %d tick items and %d bytes wait", c.remote, len(c.items), c.unacked)
	}
	c.flush(time.Now())
	return len(b), nil
}

// writeMessage queues one whole wire message by its kind.
func (c *Conn) writeMessage(f []byte) {
	if len(f) < 5 {
		c.writeRecord(recData, f)
		return
	}
	switch t := wire.Type(f[4]); t {
	case wire.TypePing, wire.TypePong:
		c.messages = append(c.messages, outMessage{rel: c.records, data: append([]byte(nil), f...)})
	case wire.TypeInput, wire.TypeConfirmed:
		c.feed.b = f
		m, err := c.split.ReadMessage()
		c.feed.b = nil
		if err != nil {
			// Not a message the peer accepts: send it as it is, and let
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

// writeItem queues the tick item of c.enc, a message of one tick whose
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
