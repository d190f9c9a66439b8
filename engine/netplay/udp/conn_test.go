package udp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay/netsim"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// memLink carries one direction of an in-memory pair of Conns: each
// packet is parsed and handed to the receiving Conn by a goroutine, after
// drop (if set) has had its say. It records the largest packet.
type memLink struct {
	ch      chan []byte
	drop    func(n int, b []byte) bool
	n       atomic.Int64
	largest atomic.Int64
}

func (l *memLink) send(b []byte) {
	n := int(l.n.Add(1))
	if int64(len(b)) > l.largest.Load() {
		l.largest.Store(int64(len(b)))
	}
	if l.drop != nil && l.drop(n, b) {
		return
	}
	select {
	case l.ch <- append([]byte(nil), b...):
	default: // a full socket buffer
	}
}

type udpAddr string

func (a udpAddr) Network() string { return "udp" }
func (a udpAddr) String() string  { return string(a) }

// memPair returns two Conns joined in memory; drops[0] decides the fate of
// a's packets, drops[1] of b's.
func memPair(t *testing.T, dropA, dropB func(n int, b []byte) bool) (a, b *Conn, la, lb *memLink) {
	t.Helper()
	la = &memLink{ch: make(chan []byte, 4096), drop: dropA}
	lb = &memLink{ch: make(chan []byte, 4096), drop: dropB}
	const token = 0x1234
	a = newConn(udpAddr("a:1"), udpAddr("b:1"), token, 4+wire.MaxServerMessage, false, la.send, nil)
	b = newConn(udpAddr("b:1"), udpAddr("a:1"), token, 4+wire.MaxServerMessage, true, lb.send, nil)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	pump := func(l *memLink, to *Conn) {
		defer wg.Done()
		for {
			select {
			case raw := <-l.ch:
				var p packet
				if err := parsePacket(&p, raw); err != nil {
					t.Errorf("a Conn sent a packet that does not parse: %v", err)
					continue
				}
				to.handle(&p, len(raw), time.Now())
			case <-stop:
				return
			}
		}
	}
	wg.Add(2)
	go pump(la, b)
	go pump(lb, a)
	t.Cleanup(func() {
		close(stop)
		wg.Wait()
		a.kill()
		b.kill()
	})
	return a, b, la, lb
}

// event is what the tests write and expect to read: a message type and,
// for a tick, its tick number, or for a Hash its tick.
type event struct {
	typ  wire.Type
	tick uint64
}

func inputMsg(tick uint64, key int) *wire.Input {
	var in input.Queue
	if key >= 0 {
		in.Push(input.Event{Kind: input.KeyDown, Key: input.KeyArrowLeft + input.Key(key%4)})
	}
	return &wire.Input{First: tick, Inputs: []input.Sample{in.Advance(0)}}
}

func confirmed(tick uint64, players int) *wire.Confirmed {
	ct := wire.ConfirmedTick{Early: time.Millisecond}
	for p := range players {
		var in input.Queue
		in.Push(input.Event{Kind: input.KeyDown, Key: input.KeyArrowLeft + input.Key(p%4)})
		ct.Inputs = append(ct.Inputs, wire.PlayerInput{Player: wire.PlayerID(p), Input: in.Advance(0)})
	}
	return &wire.Confirmed{First: tick, Ticks: []wire.ConfirmedTick{ct}}
}

// readEvents reads the preamble and then messages from c until io.EOF,
// and returns them as events (a run of ticks as one event per tick);
// Ping and Pong are left out.
func readEvents(t *testing.T, c net.Conn, timeout time.Duration) ([]event, []*wire.Snapshot) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(timeout))
	r := wire.NewReader(c, wire.MaxServerMessage)
	if _, err := r.ReadClientPreamble(); err != nil {
		t.Fatalf("preamble: %v", err)
	}
	var evs []event
	var snaps []*wire.Snapshot
	for {
		m, err := r.ReadMessage()
		if err == io.EOF {
			return evs, snaps
		}
		if err != nil {
			t.Fatalf("after %d events: %v", len(evs), err)
		}
		switch m := m.(type) {
		case *wire.Input:
			for i := range m.Inputs {
				evs = append(evs, event{wire.TypeInput, m.First + uint64(i)})
			}
		case *wire.Confirmed:
			for i := range m.Ticks {
				evs = append(evs, event{wire.TypeConfirmed, m.First + uint64(i)})
			}
		case *wire.Hash:
			evs = append(evs, event{wire.TypeHash, m.Tick})
		case *wire.Snapshot:
			evs = append(evs, event{wire.TypeSnapshot, m.Tick})
			snaps = append(snaps, &wire.Snapshot{Tick: m.Tick, Data: bytes.Clone(m.Data)})
		case *wire.Ping, *wire.Pong:
		default:
			evs = append(evs, event{m.Type(), 0})
		}
	}
}

// script writes a stream like a client's and a server's mixed: a preamble,
// a Hello, inputs one tick at a time with a Hash every 10 ticks and a
// Ping every 7, confirmed ticks, a large snapshot in the middle, an End,
// then CloseWrite. It returns the events a reader must see.
func script(t *testing.T, c net.Conn, ticks int, every time.Duration, snapshot []byte) []event {
	t.Helper()
	w := wire.NewWriter(c)
	var want []event
	write := func(m wire.Message) {
		if err := w.WriteMessage(m); err != nil {
			t.Fatalf("write %v: %v", m.Type(), err)
		}
	}
	if err := w.WritePreamble(); err != nil {
		t.Fatal(err)
	}
	write(&wire.Hello{Version: wire.Version, Role: wire.RolePlayer, Scene: "s", Name: "n"})
	want = append(want, event{wire.TypeHello, 0})
	for k := 1; k <= ticks; k++ {
		tick := uint64(k)
		if k%2 == 0 {
			write(inputMsg(tick, k))
			want = append(want, event{wire.TypeInput, tick})
		} else {
			write(confirmed(tick, 4))
			want = append(want, event{wire.TypeConfirmed, tick})
		}
		if k%10 == 0 {
			write(&wire.Hash{Tick: tick, Hash: tick * 3})
			want = append(want, event{wire.TypeHash, tick})
		}
		if k%7 == 0 {
			write(&wire.Ping{Time: time.Duration(k)})
		}
		if k == ticks/2 && snapshot != nil {
			write(&wire.Snapshot{Tick: tick, Data: snapshot})
			want = append(want, event{wire.TypeSnapshot, tick})
		}
		time.Sleep(every)
	}
	write(&wire.End{Tick: uint64(ticks), Reason: wire.EndTicks})
	want = append(want, event{wire.TypeEnd, 0})
	if err := c.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	return want
}

func checkEvents(t *testing.T, got, want []event) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("read %d events, wrote %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("event %d: read %v, wrote %v (the events around it: read %v, wrote %v)", i, got[i], want[i],
				got[max(i-3, 0):min(i+3, len(got))], want[max(i-3, 0):min(i+3, len(want))])
		}
	}
}

func bigSnapshot(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

// The stream arrives whole and in order, a snapshot of 200 KB included,
// while a seeded simulator loses 10% of the packets each way, duplicates
// 5% and reorders 5%; and every packet is under 1,200 bytes.
func TestOrderedDeliveryUnderLossDupAndReorder(t *testing.T) {
	ln, err := ListenUDP("127.0.0.1:0", ListenConfig{MaxRecord: 4 + wire.MaxServerMessage})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var largest atomic.Int64
	sim := netsim.Config{Delay: 5 * time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.10, Dup: 0.05, Reorder: 0.05, Seed: 7}
	wrap := func(pc net.PacketConn) net.PacketConn {
		return &sizeTap{PacketConn: netsim.WrapPacketConn(pc, sim), largest: &largest}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client, err := Dial(ctx, ln.Addr().String(), DialConfig{Wrap: wrap})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	sc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	server := sc.(*Conn)
	defer server.Close()
	snap := bigSnapshot(200 << 10)
	var wantUp, wantDown []event
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); wantUp = script(t, client, 300, time.Millisecond, nil) }()
	go func() { defer wg.Done(); wantDown = script(t, server, 300, time.Millisecond, snap) }()
	var gotUp, gotDown []event
	var snaps []*wire.Snapshot
	var rg sync.WaitGroup
	rg.Add(1)
	go func() { defer rg.Done(); gotDown, snaps = readEvents(t, client, 20*time.Second) }()
	gotUp, _ = readEvents(t, server, 20*time.Second)
	rg.Wait()
	wg.Wait()
	checkEvents(t, gotUp, wantUp)
	checkEvents(t, gotDown, wantDown)
	if len(snaps) != 1 || !bytes.Equal(snaps[0].Data, snap) {
		t.Errorf("the snapshot did not arrive whole")
	}
	if l := largest.Load(); l >= 1200 {
		t.Errorf("the largest packet is %d bytes, want under 1,200", l)
	}
	cs, ss := client.Stats(), server.Stats()
	t.Logf("client: %+v", cs)
	t.Logf("server: %+v", ss)
	if cs.Resends == 0 || ss.Resends == 0 || cs.Duplicates == 0 && ss.Duplicates == 0 || cs.PacketsLost == 0 && ss.PacketsLost == 0 {
		t.Errorf("with loss and duplicates, the counters should show resends, duplicates and losses")
	}
}

// sizeTap records the largest packet written through it.
type sizeTap struct {
	net.PacketConn
	largest *atomic.Int64
}

func (s *sizeTap) WriteTo(b []byte, addr net.Addr) (int, error) {
	if int64(len(b)) > s.largest.Load() {
		s.largest.Store(int64(len(b)))
	}
	return s.PacketConn.WriteTo(b, addr)
}

// One lost packet costs one packet interval: the next packet carries the
// lost input again, long before any retransmission timer.
func TestRedundancyRecoversALostInputWithinOnePacket(t *testing.T) {
	lostAt := 0
	var mu sync.Mutex
	drop := func(n int, b []byte) bool {
		mu.Lock()
		defer mu.Unlock()
		var p packet
		parsePacket(&p, b)
		for _, rn := range p.runs {
			for i := range rn.items {
				if rn.tick+uint64(i) == 5 && lostAt == 0 {
					lostAt = n
					return true // the first packet that carries tick 5
				}
			}
		}
		return false
	}
	a, b, _, _ := memPair(t, drop, nil)
	w := wire.NewWriter(a)
	w.WritePreamble()
	r := wire.NewReader(b, 0)
	b.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := r.ReadClientPreamble(); err != nil {
		t.Fatal(err)
	}
	next := uint64(1)
	for tick := uint64(1); tick <= 8; tick++ {
		w.WriteMessage(inputMsg(tick, int(tick)))
		// Every input but the lost one is readable at once; the lost one
		// with the next.
		b.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		for next <= tick && tick != 5 {
			m, err := r.ReadMessage()
			if err != nil {
				t.Fatalf("after writing tick %d, reading tick %d: %v", tick, next, err)
			}
			in := m.(*wire.Input)
			if in.First != next {
				t.Fatalf("read tick %d, want %d", in.First, next)
			}
			next += uint64(len(in.Inputs))
		}
	}
	if lostAt == 0 {
		t.Fatal("no packet was lost")
	}
	if st := a.Stats(); st.Resends == 0 {
		t.Errorf("the sender counted no resends")
	}
}

// A packet with another connection's token, or from another address, is
// dropped and counted; the connection goes on.
func TestSpoofedPacketsAreDropped(t *testing.T) {
	var mu sync.Mutex
	drops := map[string]int{}
	ln, err := ListenUDP("127.0.0.1:0", ListenConfig{Drop: func(kind string, from net.Addr, err error) {
		mu.Lock()
		drops[kind]++
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var sock net.PacketConn
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	client, err := Dial(ctx, ln.Addr().String(), DialConfig{Wrap: func(pc net.PacketConn) net.PacketConn { sock = pc; return pc }})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	sc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	server := sc.(*Conn)
	w := wire.NewWriter(client)
	w.WritePreamble()
	w.WriteMessage(inputMsg(1, 0))

	// An injected input for tick 99: from the client's own address with a
	// wrong token, and from another address with the right one.
	forged := func(token uint64) []byte {
		b := appendDataHeader(nil, token, 1000, 0, 0, 0)
		enc := wire.AppendMessage(nil, inputMsg(2, 1))
		b = appendRunHeader(b, wire.TypeInput, 1, 99, 1, 1)
		return appendItem(b, enc[14:])
	}
	sock.WriteTo(forged(server.token^1), ln.Addr())
	other, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.WriteTo(forged(server.token), ln.Addr())
	other.WriteTo([]byte("garbage"), ln.Addr())
	other.WriteTo(make([]byte, 1500), ln.Addr())
	time.Sleep(50 * time.Millisecond)
	w.WriteMessage(inputMsg(2, 1))
	client.CloseWrite()

	got, _ := readEvents(t, server, 5*time.Second)
	checkEvents(t, got, []event{{wire.TypeInput, 1}, {wire.TypeInput, 2}})
	mu.Lock()
	defer mu.Unlock()
	for _, kind := range []string{"bad token", "unknown source", "malformed packet", "oversized packet"} {
		if drops[kind] == 0 {
			t.Errorf("no drop of kind %q (drops: %v)", kind, drops)
		}
	}
}

// CloseWrite: the peer reads everything written before, then io.EOF;
// and a Conn's Read times out, as a net.Error, when the peer is silent.
func TestCloseWriteAndIdleTimeout(t *testing.T) {
	a, b, _, _ := memPair(t, func(n int, _ []byte) bool { return n%3 == 0 }, nil)
	w := wire.NewWriter(a)
	w.WritePreamble()
	for tick := range uint64(20) {
		w.WriteMessage(&wire.Hash{Tick: tick})
	}
	// A third of the packets are lost: the retransmission timer brings
	// what nothing else resends.
	want := wire.PreambleSize + 20*(5+16)
	b.SetReadDeadline(time.Now().Add(2 * time.Second))
	buf := make([]byte, 64)
	var got []byte
	for len(got) < want {
		n, err := b.Read(buf)
		if err != nil {
			t.Fatalf("after %d of %d bytes: %v", len(got), want, err)
		}
		got = append(got, buf[:n]...)
	}
	if len(got) != want {
		t.Errorf("read %d bytes, want %d", len(got), want)
	}
	b.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	_, err := b.Read(buf)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read of a silent peer: %v, want a timeout", err)
	}
	a.CloseWrite()
	b.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, err := b.Read(buf); err != io.EOF {
		t.Errorf("Read after CloseWrite: %d bytes, %v; want io.EOF", n, err)
	}
	if _, err := a.Write([]byte{1}); err == nil {
		t.Errorf("Write after CloseWrite succeeded")
	}
	// The other way still works.
	wb := wire.NewWriter(b)
	wb.WritePreamble()
	wb.WriteMessage(&wire.End{Tick: 1, Reason: wire.EndTicks})
	b.Close()
	a.SetReadDeadline(time.Now().Add(2 * time.Second))
	r := wire.NewReader(a, 0)
	if _, err := r.ReadServerPreamble(); err != nil {
		t.Fatal(err)
	}
	if m, err := r.ReadMessage(); err != nil || m.Type() != wire.TypeEnd {
		t.Fatalf("read %v, %v; want the End", m, err)
	}
	if _, err := r.ReadMessage(); err != io.EOF {
		t.Errorf("after the peer's Close: %v, want io.EOF", err)
	}
}

// Every packet is under 1,200 bytes, with a 1 MB snapshot and a confirmed
// tick of 256 players (which goes whole, as a reliable message).
func TestPacketsStayUnder1200Bytes(t *testing.T) {
	a, b, la, _ := memPair(t, nil, nil)
	w := wire.NewWriter(a)
	w.WritePreamble()
	snap := bigSnapshot(1 << 20)
	w.WriteMessage(&wire.Snapshot{Tick: 1, Data: snap})
	w.WriteMessage(confirmed(2, 256))
	w.WriteMessage(confirmed(3, 8))
	a.CloseWrite()
	b.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := wire.NewReader(b, wire.MaxServerMessage)
	r.ReadServerPreamble()
	m, err := r.ReadMessage()
	if err != nil || !bytes.Equal(m.(*wire.Snapshot).Data, snap) {
		t.Fatalf("the snapshot: %v", err)
	}
	for _, players := range []int{256, 8} {
		m, err := r.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		if c := m.(*wire.Confirmed); len(c.Ticks[0].Inputs) != players {
			t.Errorf("a confirmed tick of %d players, want %d", len(c.Ticks[0].Inputs), players)
		}
	}
	if l := la.largest.Load(); l >= 1200 || l > MaxPacket {
		t.Errorf("the largest packet is %d bytes", l)
	}
}

func TestPacketCodec(t *testing.T) {
	good := []*packet{
		{kind: kindConnect, version: Version, nonce: 7},
		{kind: kindAccept, nonce: 7, token: 9},
		{kind: kindChallenge, nonce: 7, cookie: cookie{time: 12, mac: [macSize]byte{1, 2, 3}}},
		{kind: kindResponse, version: Version, nonce: 7, cookie: cookie{time: 12, mac: [macSize]byte{1, 2, 3}}},
		{kind: kindClose, token: 9},
		{kind: kindData, token: 9, seq: 1, ackTick: 2, ackRel: 3, relBits: 4},
		{kind: kindData, token: 9, seq: 1, runs: []run{{typ: wire.TypeInput, index: 3, tick: 10, rel: 1, items: [][]byte{{1, 2}, {3}}}},
			segs: []seg{{seq: 4, data: []byte("abc")}}, messages: []message{{rel: 1, data: wire.AppendMessage(nil, &wire.Ping{Time: 5})}}},
	}
	for i, p := range good {
		b := appendPacket(nil, p)
		var q packet
		if err := parsePacket(&q, b); err != nil {
			t.Errorf("packet %d: %v", i, err)
			continue
		}
		if again := appendPacket(nil, &q); !bytes.Equal(again, b) {
			t.Errorf("packet %d: % x parses to what encodes to % x", i, b, again)
		}
	}
	data := appendPacket(nil, good[6])
	bad := map[string][]byte{
		"empty":            nil,
		"magic":            {0, kindClose, 1, 2, 3, 4, 5, 6, 7, 8},
		"kind":             {magic, 9},
		"truncated":        data[:len(data)-1],
		"trailing":         append(bytes.Clone(appendClose(nil, 1)), 0),
		"oversized":        append(appendDataHeader(nil, 1, 0, 0, 0, 0), make([]byte, MaxPacket)...),
		"run type":         appendItem(appendRunHeader(appendDataHeader(nil, 1, 0, 0, 0, 0), wire.TypeHash, 0, 0, 0, 1), []byte{1}),
		"empty run":        appendRunHeader(appendDataHeader(nil, 1, 0, 0, 0, 0), wire.TypeInput, 0, 0, 0, 0),
		"long varint":      append(appendClose(nil, 1)[:2:2], append(make([]byte, 8), 0x80, 0)...),
		"varint over 32":   append(append([]byte{magic, kindData}, make([]byte, 8)...), 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0),
		"message not ping": appendMessageChunk(appendDataHeader(nil, 1, 0, 0, 0, 0), 0, wire.AppendMessage(nil, &wire.Bye{})),
		"chunk order":      appendSeg(appendMessageChunk(appendDataHeader(nil, 1, 0, 0, 0, 0), 0, wire.AppendMessage(nil, &wire.Ping{})), 0, []byte{1}),
		"connect padding":  append(appendConnect(nil, 1)[:connectSize-1], 1),
		"short connect":    appendConnect(nil, 1)[:connectSize-1],
		"short challenge":  appendChallenge(nil, 1, &cookie{})[:challengeSize-1],
		"short response":   appendResponse(nil, Version, 1, &cookie{})[:responseSize-1],
		"long response":    append(appendResponse(nil, Version, 1, &cookie{}), 0),
	}
	for name, b := range bad {
		var p packet
		if err := parsePacket(&p, b); !errors.Is(err, errPacket) {
			t.Errorf("%s: %v, want a malformed packet", name, err)
		}
	}
}

// A peer whose reliable stream breaks the rules (a record larger than
// allowed, items and records that wait for each other) makes Read fail
// with an error saying so, not a panic.
func TestBrokenStreamIsAnError(t *testing.T) {
	for name, pkt := range map[string][]byte{
		"huge record": appendSeg(appendDataHeader(nil, 1, 0, 0, 0, 0), 0, []byte{0, 0, 0, 0, recData, 0xff, 0xff, 0xff, 0x7f}),
		"record kind": appendSeg(appendDataHeader(nil, 1, 0, 0, 0, 0), 0, []byte{0, 0, 0, 0, 7, 0, 0, 0, 0}),
		"deadlock": appendSeg(appendItem(appendRunHeader(appendDataHeader(nil, 1, 0, 0, 0, 0), wire.TypeInput, 0, 1, 1, 1), []byte{0, 0}),
			0, []byte{1, 0, 0, 0, recData, 1, 0, 0, 0, 9}),
	} {
		t.Run(name, func(t *testing.T) {
			c := newConn(udpAddr("a"), udpAddr("b"), 1, 1000, false, func([]byte) {}, nil)
			defer c.kill()
			var p packet
			if err := parsePacket(&p, pkt); err != nil {
				t.Fatal(err)
			}
			c.handle(&p, len(pkt), time.Now())
			c.SetReadDeadline(time.Now().Add(time.Second))
			_, err := c.Read(make([]byte, 10))
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte("udp: ")) {
				t.Errorf("Read: %v, want an error of the stream", err)
			}
		})
	}
}

var _ = fmt.Sprint
