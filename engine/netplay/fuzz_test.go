package netplay_test

import (
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// fuzzWatcher is a player that keeps its connection to the fuzzed server:
// it reads everything, and its pings tell whether the server still serves.
type fuzzWatcher struct {
	rc       *rawClient
	pongs    chan int64
	lastTick atomic.Int64 // when the latest Confirmed arrived (UnixNano)
}

func startFuzzWatcher(tb testing.TB, addr string, fp uint64) *fuzzWatcher {
	rc, err := joinRaw(addr, wire.RolePlayer, fp)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { rc.conn.Close() })
	w := &fuzzWatcher{rc: rc, pongs: make(chan int64, 16)}
	w.lastTick.Store(time.Now().UnixNano())
	go func() {
		for {
			rc.conn.SetReadDeadline(time.Now().Add(time.Minute))
			m, err := rc.r.ReadMessage()
			if err != nil {
				return
			}
			switch m := m.(type) {
			case *wire.Confirmed:
				w.lastTick.Store(time.Now().UnixNano())
			case *wire.Pong:
				select {
				case w.pongs <- int64(m.Echo):
				default:
				}
			}
		}
	}()
	return w
}

// check fails tb unless the server answers a ping within 10 s and its
// ticks came within the last 5 s.
func (w *fuzzWatcher) check(tb testing.TB, n int64) {
	if err := w.rc.send(&wire.Ping{Time: time.Duration(n)}); err != nil {
		tb.Fatalf("the server closed the watcher's connection: %v", err)
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case echo := <-w.pongs:
			if echo != n {
				continue // an earlier check's
			}
			if since := time.Since(time.Unix(0, w.lastTick.Load())); since > 5*time.Second {
				tb.Fatalf("the server's last tick came %v ago", since)
			}
			return
		case <-timeout:
			tb.Fatal("the server did not answer the watcher's ping within 10 s")
		}
	}
}

// FuzzClientMessages sends a live server what a client may send, any
// bytes at all, on a connection of its own: after a valid handshake as a
// player or a spectator (mode bit 0), or in its place (bit 1). The server
// must go on serving another client: its ticks keep coming, its pings are
// answered, and the fuzzed connection never brings it down.
func FuzzClientMessages(f *testing.F) {
	msgs := func(ms ...wire.Message) []byte {
		var b []byte
		for _, m := range ms {
			b = wire.AppendMessage(b, m)
		}
		return b
	}
	var in input.Sample
	for _, seed := range []struct {
		mode byte
		data []byte
	}{
		{0, msgs(&wire.Input{First: 5, Inputs: []input.Sample{in, in}}, &wire.Ping{Time: 1}, &wire.Bye{})},
		{0, msgs(&wire.Hash{Tick: netplay.HashEvery, Hash: 0xbad}, &wire.Hash{Tick: netplay.HashEvery, Hash: 0xbad})},
		{0, msgs(&wire.Input{First: 1 << 40, Inputs: []input.Sample{in}})},
		{1, msgs(&wire.Input{First: 1, Inputs: []input.Sample{in}})}, // a spectator's input
		{0, msgs(&wire.Hello{Version: wire.Version, Role: wire.RolePlayer, Scene: testScene})},
		{0, msgs(&wire.Welcome{TickRate: 60}, &wire.End{Tick: 1, Reason: wire.EndTicks})},
		{0, msgs(&wire.Refuse{Reason: wire.ReasonOther, Text: "no"})},
		{0, []byte{0xff, 0xff, 0xff, 0xff, byte(wire.TypeInput)}},   // a length past the cap
		{0, []byte{9, 0, 0, 0, byte(wire.TypePing), 1, 2}},          // cut short
		{2, []byte("GET / HTTP/1.1\r\nHost: nebula\r\n\r\n")},       // not a client
		{2, append(wire.AppendPreamble(nil), msgs(&wire.Bye{})...)}, // no Hello
	} {
		f.Add(seed.mode, seed.data)
	}

	cfg := matchConfig(1, 0)
	cfg.MaxPlayers, cfg.MaxSpectators = wire.MaxPlayers, 64
	cfg.DumpDir = f.TempDir()
	// Inputs with no valid handshake keep their connection in its
	// handshake until the timeout, and every connection comes from one
	// host: with the default MaxPending (32) the server soon drops new
	// connections as busy (a host may hold a quarter of them once half are
	// taken), and the next iteration's valid handshake is reset. The busy
	// rules have tests of their own; here they must not turn the fuzzer's
	// own pace into a failure, whatever the machine's speed.
	cfg.HandshakeTimeout = 500 * time.Millisecond
	cfg.MaxPending = 1 << 14
	ts := startServerWith(f, testEngine(f), cfg, false)
	fp := fingerprint(f, testEngine)
	w := startFuzzWatcher(f, ts.addr, fp)
	var checks atomic.Int64

	f.Fuzz(func(t *testing.T, mode byte, data []byte) {
		conn, err := net.DialTimeout("tcp", ts.addr, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		if mode&2 == 0 {
			rc := &rawClient{conn: conn, r: wire.NewReader(conn, wire.MaxServerMessage), w: wire.NewWriter(conn)}
			role := wire.RolePlayer
			if mode&1 != 0 {
				role = wire.RoleSpectator
			}
			if err := rc.hello(role, fp); err != nil {
				t.Fatalf("handshake: %v", err)
			}
		}
		conn.Write(data) // the server may close it halfway: that is its right
		conn.Close()
		w.check(t, checks.Add(1))
	})
}
