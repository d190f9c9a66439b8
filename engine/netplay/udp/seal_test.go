package udp

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay/seal"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// tapPackets records the kinds of the packets a socket sends, and alters
// one sealed packet in flight when told.
type tapPackets struct {
	net.PacketConn
	mu    sync.Mutex
	kinds []byte
	alter bool
}

func (c *tapPackets) WriteTo(b []byte, to net.Addr) (int, error) {
	c.mu.Lock()
	if len(b) > 1 {
		c.kinds = append(c.kinds, b[1])
	}
	if c.alter && len(b) > 30 && b[1] == kindSealed {
		c.alter = false
		b = append([]byte(nil), b...)
		b[len(b)-1] ^= 1
	}
	c.mu.Unlock()
	return c.PacketConn.WriteTo(b, to)
}

// TestSealedConn: the client's end sends in clear until the server's
// sealed packet comes, then only sealed packets; the stream arrives
// whole both ways; an altered packet is dropped, counted, and its
// contents come again.
func TestSealedConn(t *testing.T) {
	ln := listenLoopback(t, ListenConfig{})
	defer ln.Close()
	var c2s, s2c [seal.KeySize]byte
	c2s[0], s2c[0] = 1, 2
	salt := [seal.SaltSize]byte{3}
	tap := &tapPackets{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client, err := Dial(ctx, ln.Addr().String(), DialConfig{Wrap: func(pc net.PacketConn) net.PacketConn { tap.PacketConn = pc; return tap }})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	client.Seal(seal.NewPackets(seal.ClientKeys(c2s, s2c, salt)))
	sc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	server := sc.(*Conn)
	defer server.Close()

	cw, sw := wire.NewWriter(client), wire.NewWriter(server)
	cr, sr := wire.NewReader(client, wire.MaxServerMessage), wire.NewReader(server, wire.MaxClientMessage)
	cw.WritePreamble()
	cw.WriteMessage(&wire.Hello{Version: wire.Version, Role: wire.RolePlayer, Scene: "s"})
	if _, err := sr.ReadClientPreamble(); err != nil {
		t.Fatal(err)
	}
	if m, err := sr.ReadMessage(); err != nil || m.Type() != wire.TypeHello {
		t.Fatalf("the Hello: %v, %v", m, err)
	}
	server.Seal(seal.NewPackets(seal.ServerKeys(c2s, s2c, salt)))
	sw.WritePreamble()
	sw.WriteMessage(&wire.Hash{Tick: 1, Hash: 11})
	if _, err := cr.ReadServerPreamble(); err != nil {
		t.Fatal(err)
	}
	if m, err := cr.ReadMessage(); err != nil || m.(*wire.Hash).Hash != 11 {
		t.Fatalf("the server's first sealed message: %v, %v", m, err)
	}
	if !client.Sealed() {
		t.Fatal("the client's end is not sealed after the server's sealed packet")
	}
	// Packets reach the listener in the order the client sent them
	// (loopback, one socket): once a sealed packet's input is read, the
	// packets the client sent in clear before its switch are counted.
	var base uint64
	for tick := uint64(1); tick <= 40; tick++ {
		if err := cw.WriteMessage(&wire.Input{First: tick, Inputs: []input.Sample{{}}}); err != nil {
			t.Fatal(err)
		}
		m, err := sr.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		in := m.(*wire.Input)
		last := in.First + uint64(len(in.Inputs)) - 1
		if last < tick {
			t.Fatalf("tick %d: read inputs up to %d", tick, last)
		}
		tick = last
		if tick == 1 {
			base = server.Stats().Unauthentic
			tap.mu.Lock()
			tap.kinds, tap.alter = nil, true
			tap.mu.Unlock()
		}
	}
	tap.mu.Lock()
	for i, k := range tap.kinds {
		if k == kindData {
			t.Errorf("packet %d after the switch went in clear", i)
		}
	}
	tap.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for server.Stats().Unauthentic == base && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := server.Stats().Unauthentic - base; n != 1 {
		t.Errorf("the server counted %d unauthentic packets, want the one altered", n)
	}
}
