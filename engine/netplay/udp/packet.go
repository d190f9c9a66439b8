package udp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/internal/binread"
)

// The packet layout's constants.
const (
	// MaxPacket is the most bytes of a packet (a UDP payload): under the
	// 1,200 bytes that cross any IPv4 or IPv6 path without fragmentation.
	MaxPacket = 1180

	// Version is the transport's version, in a connect and a response
	// packet. Version 2 added the challenge and the response: a server
	// keeps no state for a client before it has proven its address.
	Version = 2

	magic = 0xB7 // byte 0 of every packet

	kindConnect   = 1 // client to server: version, nonce, zeros
	kindAccept    = 2 // server to client: nonce, token
	kindData      = 3 // either way: token, numbers, acknowledgements, chunks
	kindClose     = 4 // either way: token
	kindChallenge = 5 // server to client: nonce, cookie
	kindResponse  = 6 // client to server: version, nonce, the challenge's cookie

	chunkTicks   = 1 // a run of tick items
	chunkSeg     = 2 // a segment of the reliable stream
	chunkMessage = 3 // an unreliable message (Ping, Pong)

	// A cookie is the server's time (in milliseconds since its listener
	// started) and a MAC of it, the client's address and its nonce.
	macSize    = 16
	cookieSize = 8 + macSize
	// connectPad is the zero bytes that make a connect as large as the
	// response (and larger than its answer, the challenge).
	connectPad    = cookieSize
	connectSize   = 2 + 1 + 8 + connectPad
	challengeSize = 2 + 8 + cookieSize
	responseSize  = 2 + 1 + 8 + cookieSize
	acceptSize    = 2 + 8 + 8
	closeSize     = 2 + 8
	// The most bytes of each header: its numbers are varints (a uint32
	// in at most 5 bytes, a uint64 in 10, a length in 2).
	dataHeader    = 2 + 8 + 5 + 5 + 5 + 5
	runHeader     = 1 + 1 + 5 + 10 + 5 + 1 // chunk, type, index, tick, rel, count
	itemHeader    = 2                      // an item's length
	segHeader     = 1 + 5 + 2              // chunk, seq, length
	messageHeader = 1 + 5 + 2              // chunk, rel, length
	maxRunItems   = 255
	// maxItem is the most bytes of one tick item: one that is larger goes
	// in the reliable stream instead.
	maxItem = MaxPacket - dataHeader - runHeader - itemHeader
	// maxSeg is the most bytes of a reliable segment.
	maxSeg = MaxPacket - dataHeader - segHeader
)

// errPacket is the kind of every fault parsePacket finds.
var errPacket = errors.New("udp: malformed packet")

// packet is a decoded packet. Its byte slices point into the bytes it was
// parsed from.
type packet struct {
	kind    byte
	version byte   // connect, response
	nonce   uint64 // connect, challenge, response, accept
	token   uint64 // accept, data, close
	cookie  cookie // challenge, response
	// data
	seq      uint32 // the packet's number
	ackTick  uint32 // every tick item below this index was received
	ackRel   uint32 // every reliable segment below this seq was received
	relBits  uint32 // bit i: segment ackRel+1+i was received
	runs     []run
	segs     []seg
	messages []message
}

// cookie is what a challenge gives a client and its response echoes:
// the server's time when it made it, and a MAC of that time, the
// client's address and nonce under the server's secret.
type cookie struct {
	time uint64 // milliseconds since the listener started
	mac  [macSize]byte
}

// run is consecutive tick items: item i is for tick tick+i and has
// stream index index+i.
type run struct {
	typ   wire.Type // wire.TypeInput or wire.TypeConfirmed
	index uint32
	tick  uint64
	rel   uint32 // reliable records the sender wrote before these items
	items [][]byte
}

// seg is a segment of the reliable stream.
type seg struct {
	seq  uint32
	data []byte
}

// message is an unreliable wire message (a Ping or a Pong).
type message struct {
	rel  uint32 // reliable records the sender wrote before it
	data []byte
}

// reset empties p for reuse.
func (p *packet) reset() {
	*p = packet{runs: p.runs[:0], segs: p.segs[:0], messages: p.messages[:0]}
}

// parsePacket decodes b into p (reset first). Every fault is an error
// wrapping errPacket that names the byte and the field; nothing panics.
// A packet that parses encodes to exactly b.
func parsePacket(p *packet, b []byte) error {
	p.reset()
	if len(b) > MaxPacket {
		return fmt.Errorf("%w: %d bytes, at most %d", errPacket, len(b), MaxPacket)
	}
	r := binread.New(b)
	if m := r.U8("magic"); r.Err() == nil && m != magic {
		return fmt.Errorf("%w: byte 0 is 0x%02x, not 0x%02x", errPacket, m, magic)
	}
	p.kind = r.U8("kind")
	switch p.kind {
	case kindConnect:
		p.version = r.U8("version")
		p.nonce = r.U64("nonce")
		for _, z := range r.Take("padding", connectPad) {
			if z != 0 {
				r.Fail("padding", errors.New("not zero"))
				break
			}
		}
	case kindChallenge:
		p.nonce = r.U64("nonce")
		parseCookie(&p.cookie, &r)
	case kindResponse:
		p.version = r.U8("version")
		p.nonce = r.U64("nonce")
		parseCookie(&p.cookie, &r)
	case kindAccept:
		p.nonce = r.U64("nonce")
		p.token = r.U64("token")
	case kindClose:
		p.token = r.U64("token")
	case kindData:
		p.token = r.U64("token")
		p.seq = u32(&r, "seq")
		p.ackTick = u32(&r, "tick ack")
		p.ackRel = u32(&r, "reliable ack")
		p.relBits = u32(&r, "reliable ack bits")
		// Chunks come in the order of their kinds: runs, segments,
		// messages.
		last := byte(0)
		for r.Err() == nil && r.Left() > 0 {
			if c := r.Peek("chunk", 1); c != nil && c[0] < last {
				r.Fail("chunk", fmt.Errorf("a chunk of kind %d after one of kind %d", c[0], last))
				break
			} else if c != nil {
				last = c[0]
			}
			parseChunk(p, &r)
		}
	default:
		if r.Err() == nil {
			r.FailAt(1, "kind", fmt.Errorf("%d, want %d to %d", p.kind, kindConnect, kindResponse))
		}
	}
	if r.Err() == nil && r.Left() > 0 {
		r.Fail("end", fmt.Errorf("%d bytes after the last field", r.Left()))
	}
	if e := r.Err(); e != nil {
		return fmt.Errorf("%w: %v", errPacket, e)
	}
	return nil
}

func parseCookie(c *cookie, r *binread.Reader) {
	c.time = r.U64("cookie time")
	copy(c.mac[:], r.Take("cookie MAC", macSize))
}

func parseChunk(p *packet, r *binread.Reader) {
	at := r.Offset()
	switch c := r.U8("chunk"); c {
	case chunkTicks:
		var rn run
		tat := r.Offset()
		rn.typ = wire.Type(r.U8("run type"))
		if r.Err() == nil && rn.typ != wire.TypeInput && rn.typ != wire.TypeConfirmed {
			r.FailAt(tat, "run type", fmt.Errorf("%v, want Input or Confirmed", rn.typ))
		}
		rn.index = u32(r, "run index")
		rn.tick = uvarint(r, "run tick")
		rn.rel = u32(r, "run rel")
		cat := r.Offset()
		n := int(r.U8("run count"))
		if r.Err() == nil && n == 0 {
			r.FailAt(cat, "run count", errors.New("0 items"))
		}
		if r.Err() == nil && (rn.tick+uint64(n) < rn.tick || uint64(rn.index)+uint64(n) > 1<<32) {
			r.FailAt(cat, "run count", errors.New("the run overflows its index or tick"))
		}
		for range n {
			lat := r.Offset()
			k := int(min(uvarint(r, "item length"), MaxPacket+1))
			if r.Err() == nil && (k == 0 || k > maxItem) {
				r.FailAt(lat, "item length", fmt.Errorf("%d bytes, want 1 to %d", k, maxItem))
			}
			item := r.Take("item", k)
			if r.Err() != nil {
				return
			}
			rn.items = append(rn.items, item)
		}
		if r.Err() == nil {
			p.runs = append(p.runs, rn)
		}
	case chunkSeg:
		var s seg
		s.seq = u32(r, "segment seq")
		lat := r.Offset()
		k := int(min(uvarint(r, "segment length"), MaxPacket+1))
		if r.Err() == nil && (k == 0 || k > maxSeg) {
			r.FailAt(lat, "segment length", fmt.Errorf("%d bytes, want 1 to %d", k, maxSeg))
		}
		s.data = r.Take("segment", k)
		if r.Err() == nil {
			p.segs = append(p.segs, s)
		}
	case chunkMessage:
		var f message
		f.rel = u32(r, "message rel")
		lat := r.Offset()
		k := int(min(uvarint(r, "message length"), MaxPacket+1))
		f.data = r.Take("message", k)
		if r.Err() == nil {
			if err := checkUnreliable(f.data); err != nil {
				r.FailAt(lat, "message", err)
				return
			}
			p.messages = append(p.messages, f)
		}
	default:
		if r.Err() == nil {
			r.FailAt(at, "chunk", fmt.Errorf("%d, want %d to %d", c, chunkTicks, chunkMessage))
		}
	}
}

// uvarint reads a varint in its shortest form (so that a packet that
// parses encodes to the same bytes).
func uvarint(r *binread.Reader, field string) uint64 {
	at := r.Offset()
	v := r.Uvarint(field)
	if r.Err() == nil && r.Offset()-at != uvarintLen(v) {
		r.FailAt(at, field, errors.New("a varint not in its shortest form"))
	}
	return v
}

// u32 reads a varint of at most 32 bits.
func u32(r *binread.Reader, field string) uint32 {
	at := r.Offset()
	v := uvarint(r, field)
	if r.Err() == nil && v > math.MaxUint32 {
		r.FailAt(at, field, fmt.Errorf("%d, more than 32 bits", v))
	}
	return uint32(v)
}

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// checkUnreliable checks that b is one whole wire message, a Ping or a Pong:
// what an unreliable chunk may carry.
//
//srccheck:wrapped by parsePacket, as "udp: malformed packet: byte N (message): ..."
func checkUnreliable(b []byte) error {
	if len(b) < 5 {
		return fmt.Errorf("%d bytes, less than a message's header", len(b))
	}
	if n := binary.LittleEndian.Uint32(b); uint64(n) != uint64(len(b)-4) {
		return fmt.Errorf("a message of length %d in %d bytes", n, len(b)-4)
	}
	if t := wire.Type(b[4]); t != wire.TypePing && t != wire.TypePong {
		return fmt.Errorf("a %v message, only Ping and Pong are sent unreliably", t)
	}
	return nil
}

// appendConnect appends a connect packet.
func appendConnect(b []byte, nonce uint64) []byte {
	b = append(b, magic, kindConnect, Version)
	b = binary.LittleEndian.AppendUint64(b, nonce)
	return append(b, make([]byte, connectPad)...)
}

// appendChallenge appends a challenge packet.
func appendChallenge(b []byte, nonce uint64, c *cookie) []byte {
	b = append(b, magic, kindChallenge)
	b = binary.LittleEndian.AppendUint64(b, nonce)
	return appendCookie(b, c)
}

// appendResponse appends a response packet of transport version v.
func appendResponse(b []byte, v byte, nonce uint64, c *cookie) []byte {
	b = append(b, magic, kindResponse, v)
	b = binary.LittleEndian.AppendUint64(b, nonce)
	return appendCookie(b, c)
}

func appendCookie(b []byte, c *cookie) []byte {
	b = binary.LittleEndian.AppendUint64(b, c.time)
	return append(b, c.mac[:]...)
}

// appendAccept appends an accept packet.
func appendAccept(b []byte, nonce, token uint64) []byte {
	b = append(b, magic, kindAccept)
	b = binary.LittleEndian.AppendUint64(b, nonce)
	return binary.LittleEndian.AppendUint64(b, token)
}

// appendClose appends a close packet.
func appendClose(b []byte, token uint64) []byte {
	b = append(b, magic, kindClose)
	return binary.LittleEndian.AppendUint64(b, token)
}

// appendDataHeader appends a data packet's header; chunks follow.
func appendDataHeader(b []byte, token uint64, seq, ackTick, ackRel, relBits uint32) []byte {
	b = append(b, magic, kindData)
	b = binary.LittleEndian.AppendUint64(b, token)
	b = binary.AppendUvarint(b, uint64(seq))
	b = binary.AppendUvarint(b, uint64(ackTick))
	b = binary.AppendUvarint(b, uint64(ackRel))
	return binary.AppendUvarint(b, uint64(relBits))
}

// appendRunHeader appends a run's header; its count items follow, each
// appended with appendItem.
func appendRunHeader(b []byte, typ wire.Type, index uint32, tick uint64, rel uint32, count int) []byte {
	b = append(b, chunkTicks, byte(typ))
	b = binary.AppendUvarint(b, uint64(index))
	b = binary.AppendUvarint(b, tick)
	b = binary.AppendUvarint(b, uint64(rel))
	return append(b, byte(count))
}

// runHeaderLen is the bytes of a run's header.
func runHeaderLen(index uint32, tick uint64, rel uint32) int {
	return 3 + uvarintLen(uint64(index)) + uvarintLen(tick) + uvarintLen(uint64(rel))
}

func appendItem(b, item []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(item)))
	return append(b, item...)
}

func appendSeg(b []byte, seq uint32, data []byte) []byte {
	b = append(b, chunkSeg)
	b = binary.AppendUvarint(b, uint64(seq))
	b = binary.AppendUvarint(b, uint64(len(data)))
	return append(b, data...)
}

// segLen is the bytes of a segment chunk.
func segLen(seq uint32, n int) int {
	return 1 + uvarintLen(uint64(seq)) + uvarintLen(uint64(n)) + n
}

func appendMessageChunk(b []byte, rel uint32, data []byte) []byte {
	b = append(b, chunkMessage)
	b = binary.AppendUvarint(b, uint64(rel))
	b = binary.AppendUvarint(b, uint64(len(data)))
	return append(b, data...)
}

// appendPacket encodes p: the inverse of parsePacket, for tests.
func appendPacket(b []byte, p *packet) []byte {
	switch p.kind {
	case kindConnect:
		b = append(b, magic, kindConnect, p.version)
		b = binary.LittleEndian.AppendUint64(b, p.nonce)
		return append(b, make([]byte, connectPad)...)
	case kindChallenge:
		return appendChallenge(b, p.nonce, &p.cookie)
	case kindResponse:
		return appendResponse(b, p.version, p.nonce, &p.cookie)
	case kindAccept:
		return appendAccept(b, p.nonce, p.token)
	case kindClose:
		return appendClose(b, p.token)
	}
	b = appendDataHeader(b, p.token, p.seq, p.ackTick, p.ackRel, p.relBits)
	for _, rn := range p.runs {
		b = appendRunHeader(b, rn.typ, rn.index, rn.tick, rn.rel, len(rn.items))
		for _, it := range rn.items {
			b = appendItem(b, it)
		}
	}
	for _, s := range p.segs {
		b = appendSeg(b, s.seq, s.data)
	}
	for _, f := range p.messages {
		b = appendMessageChunk(b, f.rel, f.data)
	}
	return b
}
