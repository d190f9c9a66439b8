package netplay_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/udp"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// joinTimed dials the server at addr as role over transport and returns
// the client, joined (its Welcome arrived), and the time it took.
func joinTimed(t *testing.T, addr string, role wire.Role, transport netplay.Transport) (*netplay.Client, time.Duration) {
	t.Helper()
	e, _ := newTestEngine(t)
	cfg := netplay.DefaultClientConfig()
	cfg.Role, cfg.Scene, cfg.Fingerprint = role, testScene, e.World.Schema().Fingerprint()
	cfg.Transport = transport
	cfg.Log, _ = quietLog()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	c, err := netplay.Dial(ctx, addr, cfg)
	if err != nil {
		t.Fatalf("an honest %v client: %v", role, err)
	}
	d := time.Since(start)
	t.Cleanup(func() { c.Close() })
	return c, d
}

// One host cannot take every handshake slot over TCP: of 40 silent
// connections from 127.0.0.2, the server keeps half of its 32 slots, 16,
// in their handshake (a host with a quarter of them gets no more once half
// are taken) and closes the other 24 at once, and a client from 127.0.0.1
// joins.
func TestOneHostCannotTakeEveryHandshakeSlot(t *testing.T) {
	cfg := matchConfig(1, 0)
	cfg.HandshakeTimeout = time.Minute // the silent ones stay in their handshake
	ts := startServer(t, cfg)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
	const silent, kept = 40, 16
	conns := make([]net.Conn, 0, silent)
	for range silent {
		c, err := d.Dial("tcp", ts.addr)
		if err != nil {
			if len(conns) == 0 {
				t.Skipf("cannot connect from 127.0.0.2: %v", err)
			}
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// Each silent connection's reader says whether the server closed it.
	closedByServer := make(chan bool, silent)
	for _, c := range conns {
		go func() {
			c.SetReadDeadline(time.Now().Add(time.Minute))
			_, err := c.Read(make([]byte, 1))
			closedByServer <- errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
		}()
	}
	for range silent - kept {
		select {
		case byServer := <-closedByServer:
			if !byServer {
				t.Fatal("a silent connection's read failed, not closed by the server")
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the server did not close the silent connections beyond %d within 10 s", kept)
		}
	}
	_, took := joinTimed(t, ts.addr, wire.RolePlayer, netplay.TCP)
	t.Logf("an honest client joined in %v beside %d silent connections of another host", took, kept)
	for _, c := range conns {
		c.Close()
	}
	for range kept {
		if <-closedByServer {
			t.Errorf("the server closed more than %d silent connections of one host, want %d kept", silent-kept, kept)
		}
	}
}

// An honest client joins a match over UDP within a second while 10,000
// forged connects a second (one in four a response with a made-up
// cookie) arrive from 64 other ports of 127.0.0.1 that never answer: a
// player, then four spectators, 100 ms apart. Every join must succeed,
// and the median one within a second: on a machine too busy to read
// 10,000 packets a second (the race detector, every core taken) a join
// waits behind the queued flood, and the median keeps the test from
// judging the machine; unloaded, each takes a few milliseconds.
func TestHonestClientJoinsUnderUDPConnectFlood(t *testing.T) {
	ts := startServerOn(t, matchConfig(1, 0), true)
	to, err := net.ResolveUDPAddr("udp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	const rate = 10_000
	var sent atomic.Int64
	stop, done := make(chan struct{}), make(chan struct{})
	socks := make([]net.PacketConn, 64)
	for i := range socks {
		if socks[i], err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		defer socks[i].Close()
	}
	go func() {
		defer close(done)
		start := time.Now()
		var n int64
		for time.Since(start) < time.Minute { // bounded, whatever the test does
			select {
			case <-stop:
				return
			default:
			}
			due := int64(time.Since(start).Seconds() * rate)
			n = max(n, due-rate/10)
			for ; n < due; n++ {
				// A connect: magic, kind 1, version, nonce, 24 zero
				// bytes; a response: kind 6 and a cookie (the layout in
				// package udp's doc).
				b := binary.LittleEndian.AppendUint64([]byte{0xB7, 1, udp.Version}, uint64(n))
				b = append(b, make([]byte, 24)...)
				if n%4 == 3 {
					b[1] = 6
					binary.LittleEndian.PutUint64(b[len(b)-8:], uint64(n))
				}
				socks[n%int64(len(socks))].WriteTo(b, to)
				sent.Add(1)
			}
			time.Sleep(time.Millisecond)
		}
	}()
	defer func() { close(stop); <-done }()
	for sent.Load() < rate/10 {
		time.Sleep(time.Millisecond) // the flood is on
	}
	from, sent0 := time.Now(), sent.Load()
	var times []time.Duration
	for i := range 5 {
		role := wire.RoleSpectator
		if i == 0 {
			role = wire.RolePlayer
		}
		_, d := joinTimed(t, ts.addr, role, netplay.UDP)
		times = append(times, d)
		time.Sleep(100 * time.Millisecond) // the joins spread over the flood
	}
	got := float64(sent.Load()-sent0) / time.Since(from).Seconds()
	if got < rate/4 {
		t.Errorf("the flood sent %.0f packets a second, want about %d: the test tested little", got, rate)
	}
	slices.Sort(times)
	t.Logf("joins under a flood of %.0f forged packets a second: %v (median %v)", got, times, times[len(times)/2])
	if med := times[len(times)/2]; med > time.Second {
		t.Errorf("the median honest client took %v to join, want at most 1 s", med)
	}
}

// A UDP server sends a source that never proves its address no more bytes
// than it sent, however long it waits: one connect, a connect cut short,
// a response with a made-up cookie, each from its own port, and
// nothing more for five of the server's handshake timeouts (a connect used
// to make a connection whose handshake timed out, and its closing went
// after the accept: 38 bytes for 27).
func TestUDPServerDoesNotAmplifyBeforeProof(t *testing.T) {
	cfg := matchConfig(1, 0)
	cfg.HandshakeTimeout = 200 * time.Millisecond
	ts := startServerOn(t, cfg, true)
	to, err := net.ResolveUDPAddr("udp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	connect := binary.LittleEndian.AppendUint64([]byte{0xB7, 1, udp.Version}, 77)
	connect = append(connect, make([]byte, 24)...)
	response := slices.Clone(connect)
	response[1] = 6
	response[len(response)-1] = 1
	probes := map[string][]byte{"connect": connect, "cut connect": connect[:20], "forged response": response}
	socks := map[string]net.PacketConn{}
	for name, b := range probes {
		s, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		socks[name] = s
		if _, err := s.WriteTo(b, to); err != nil {
			t.Fatal(err)
		}
	}
	end := time.Now().Add(5 * cfg.HandshakeTimeout)
	var wg sync.WaitGroup
	for name, s := range socks {
		wg.Go(func() {
			s.SetReadDeadline(end)
			total := 0
			buf := make([]byte, 2048)
			for {
				n, _, err := s.ReadFrom(buf)
				if err != nil {
					break
				}
				total += n
			}
			if total > len(probes[name]) {
				t.Errorf("%s: %d bytes answered with %d", name, len(probes[name]), total)
			}
			if name == "connect" && total == 0 {
				t.Errorf("a connect got no challenge")
			}
		})
	}
	wg.Wait()
}
