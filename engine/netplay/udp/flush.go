package udp

import "time"

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
	if len(c.messages) > 0 {
		return now
	}
	return next
}

func (c *Conn) backoff(sends int) time.Duration {
	return min(c.rto<<min(sends-1, 5), maxRTO)
}

// flush sends a packet with the acknowledgements and every tick item
// not acknowledged (oldest first, as many as fit), then the reliable
// segments due and the unreliable messages, and more packets while items
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
		b = c.packMessages(b)
		if !first && len(b) == n0 {
			break
		}
		c.pbuf = b
		out := c.sealPacket(b)
		c.send(out)
		c.pktSeq++
		c.stats.PacketsSent++
		c.stats.BytesSent += int64(len(out))
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

// packMessages appends the unreliable messages that fit; each goes once.
func (c *Conn) packMessages(b []byte) []byte {
	kept := c.messages[:0]
	for _, f := range c.messages {
		if len(b)+segLen(f.rel, len(f.data)) > MaxPacket {
			kept = append(kept, f)
			continue
		}
		b = appendMessageChunk(b, f.rel, f.data)
	}
	clear(c.messages[len(kept):])
	c.messages = kept
	return b
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
