package netplay_test

import (
	"context"
	"encoding/binary"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/token"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// runAll runs clients headless until the match ends; wait returns their
// errors.
func runAll(clients ...*testClient) (wait func() []error) {
	var wg sync.WaitGroup
	errs := make([]error, len(clients))
	for i, tc := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			errs[i] = tc.c.RunHeadless(ctx)
		}()
	}
	return func() []error { wg.Wait(); return errs }
}

// socketOf records a client's socket, TCP or UDP, so that a test can
// close it under the client: a connection that ends without a goodbye.
func socketOf(closeIt *func(), overUDP bool) func(*netplay.ClientConfig) {
	return func(c *netplay.ClientConfig) {
		if overUDP {
			c.Transport = netplay.UDP
			c.WrapPacketConn = func(pc net.PacketConn) net.PacketConn {
				*closeIt = func() { pc.Close() }
				return pc
			}
			return
		}
		c.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err == nil {
				*closeIt = func() { conn.Close() }
			}
			return conn, err
		}
	}
}

// TestRejoinKeepsTheSeat: a player whose connection drops reconnects
// with its token within the grace and takes its own seat back, with a
// snapshot; no leave or join happens in the simulation, and every peer
// ends with the server's hash. The test logs the rejoin time: from the
// socket's close to the first tick the player simulates again.
func TestRejoinKeepsTheSeat(t *testing.T) {
	for _, overUDP := range []bool{false, true} {
		name := "tcp"
		if overUDP {
			name = "udp"
		}
		t.Run(name, func(t *testing.T) {
			key := testTokenKey(t, 1)
			cfg := tokenConfig(2, 0, key)
			cfg.RejoinGrace = 20 * time.Second
			if overUDP {
				// Over UDP nothing tells the server a socket closed: its
				// idle timeout does.
				cfg.IdleTimeout = 2 * time.Second
			}
			ts := startServerWith(t, testEngine(t), cfg, overUDP)
			now := time.Now()
			creds := []*token.Credentials{mintFor(t, key, testMatch, 0, now), mintFor(t, key, testMatch, 1, now)}
			var closeB func()
			var a, b *testClient
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				var err error
				if a, err = dialClient(t, ts.addr, wire.RolePlayer, withToken(creds[0], transport(overUDP))); err != nil {
					t.Error(err)
				}
			}()
			go func() {
				defer wg.Done()
				var err error
				if b, err = dialClient(t, ts.addr, wire.RolePlayer, withToken(creds[1], socketOf(&closeB, overUDP))); err != nil {
					t.Error(err)
				}
			}()
			wg.Wait()
			if t.Failed() {
				return
			}
			waitA := runAll(a)
			waitB := runAll(b)
			waitFor(t, "60 ticks", func() bool { return a.c.Tick() >= 60 && b.c.Tick() >= 60 })

			dropped := time.Now()
			closeB()
			waitB()
			waitFor(t, "the server to see the player go", func() bool { return hasLog(ts, "client left") })
			noticed := time.Since(dropped)

			dialed := time.Now()
			b2, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(creds[1], transport(overUDP)))
			if err != nil {
				t.Fatalf("rejoin: %v", err)
			}
			w := b2.c.Welcome()
			if w.Player != 1 || w.JoinTick != 1 || w.SnapshotTick == 0 {
				t.Fatalf("the rejoin's Welcome: player %d, join tick %d, snapshot tick %d; want 1, 1, a snapshot", w.Player, w.JoinTick, w.SnapshotTick)
			}
			waitB2 := runAll(b2)
			waitFor(t, "the rejoined player to play", func() bool { return b2.c.Tick() > w.SnapshotTick })
			playing := time.Since(dialed)
			t.Logf("rejoin over %s: the server noticed the drop in %v; redial to playing again (welcome, snapshot, first tick) %v; drop to playing %v",
				name, noticed.Round(time.Millisecond), playing.Round(time.Millisecond), time.Since(dropped).Round(time.Millisecond))

			waitFor(t, "120 ticks more", func() bool { return b2.c.Tick() >= w.FirstTick+120 && a.c.Tick() >= w.FirstTick+120 })
			ts.srv.Close()
			for i, err := range append(waitA(), waitB2()...) {
				if err != nil {
					t.Errorf("client %d: %v", i, err)
				}
			}
			rep := ts.wait(t)
			want := ts.e.World.Hash()
			for i, tc := range []*testClient{a, b2} {
				if tc.e.World.Tick() != ts.e.World.Tick() || tc.e.World.Hash() != want {
					t.Errorf("client %d: tick %d hash %016x; server tick %d hash %016x", i, tc.e.World.Tick(), tc.e.World.Hash(), ts.e.World.Tick(), want)
				}
			}
			rows := 0
			for _, p := range rep.Players {
				if p.Player != 1 {
					continue
				}
				rows++
				if p.LeftTick != 0 || p.JoinTick != 1 {
					t.Errorf("a row of player 1: joined at %d, left at %d; want 1 and never", p.JoinTick, p.LeftTick)
				}
			}
			if rows != 2 {
				t.Errorf("player 1 has %d rows in the report, want 2 (its two connections)", rows)
			}
			// Two players, however many connections they took.
			var text strings.Builder
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if first, _, _ := strings.Cut(text.String(), "\n"); rep.PlayerCount() != 2 || !strings.Contains(first, ", 2 players, ") {
				t.Errorf("PlayerCount %d; report's first line %q; want 2 players", rep.PlayerCount(), first)
			}
		})
	}
}

func transport(overUDP bool) func(*netplay.ClientConfig) {
	return func(c *netplay.ClientConfig) {
		if overUDP {
			c.Transport = netplay.UDP
		}
	}
}

// TestRejoinAfterTheGrace: once the grace is over the seat is freed (the
// player leaves); its old token is refused as used, and a new token for
// the seat joins as a new player.
func TestRejoinAfterTheGrace(t *testing.T) {
	key := testTokenKey(t, 1)
	var ref refusals
	cfg := tokenConfig(2, 0, key)
	cfg.RejoinGrace = 200 * time.Millisecond
	cfg.Trace = ref.trace()
	ts := startServer(t, cfg)
	now := time.Now()
	credB := mintFor(t, key, testMatch, 1, now)
	var closeB func()
	var a, b *testClient
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		var err error
		if a, err = dialClient(t, ts.addr, wire.RolePlayer, withToken(mintFor(t, key, testMatch, 0, now))); err != nil {
			t.Error(err)
		}
	}()
	go func() {
		defer wg.Done()
		var err error
		if b, err = dialClient(t, ts.addr, wire.RolePlayer, withToken(credB, socketOf(&closeB, false))); err != nil {
			t.Error(err)
		}
	}()
	wg.Wait()
	if t.Failed() {
		return
	}
	waitA, waitB := runAll(a), runAll(b)
	waitFor(t, "30 ticks", func() bool { return b.c.Tick() >= 30 })
	closeB()
	waitB()
	waitFor(t, "the grace to end", func() bool { return hasLog(ts, "the rejoin grace is over: the player leaves") })
	if _, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(credB)); err == nil || !strings.Contains(err.Error(), "the token was used already") || !ref.has("token-used") {
		t.Errorf("the old token after the grace: %v", err)
	}
	// The player leaves at the tick after the grace's end: until that
	// tick is confirmed its seat is taken.
	var b2 *testClient
	waitFor(t, "the seat to be free", func() bool {
		var err error
		b2, err = dialClient(t, ts.addr, wire.RolePlayer, withToken(mintFor(t, key, testMatch, 1, time.Now())))
		if err != nil && !strings.Contains(err.Error(), "seat 1 is taken") {
			t.Fatalf("a new token for the freed seat: %v", err)
		}
		return err == nil
	})
	if w := b2.c.Welcome(); w.Player != 1 || w.JoinTick != 0 {
		t.Errorf("the new player: player %d, join tick %d; want 1, a new join", w.Player, w.JoinTick)
	}
	waitB2 := runAll(b2)
	waitFor(t, "the new player to play", func() bool { return b2.c.Tick() > b2.c.Welcome().FirstTick+60 })
	ts.srv.Close()
	for i, err := range append(waitA(), waitB2()...) {
		if err != nil {
			t.Errorf("client %d: %v", i, err)
		}
	}
	rep := ts.wait(t)
	for i, tc := range []*testClient{a, b2} {
		if tc.e.World.Hash() != ts.e.World.Hash() {
			t.Errorf("client %d: hash differs from the server's", i)
		}
	}
	left := false
	for _, p := range rep.Players {
		if p.Player == 1 && p.LeftTick != 0 {
			left = true
		}
	}
	if !left {
		t.Error("the player whose grace ended did not leave")
	}
	// Player 0, the player who left and the new one in its seat.
	if n := rep.PlayerCount(); n != 3 {
		t.Errorf("PlayerCount %d, want 3", n)
	}
}

// TestRecordedHandshakeIsRefused: within the rejoin grace, the bytes of
// a player's handshake played again by someone who recorded them (the
// same token and salt) are refused; the player itself, with a new salt,
// takes its seat back.
func TestRecordedHandshakeIsRefused(t *testing.T) {
	key := testTokenKey(t, 1)
	var ref refusals
	cfg := tokenConfig(1, 0, key)
	cfg.RejoinGrace = 20 * time.Second
	cfg.Trace = ref.trace()
	ts := startServer(t, cfg)
	cr := mintFor(t, key, testMatch, 0, time.Now())
	var tap *tapConn
	a, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(cr, tapDial(&tap, 0)))
	if err != nil {
		t.Fatal(err)
	}
	waitA := runAll(a)
	waitFor(t, "30 ticks", func() bool { return a.c.Tick() >= 30 })
	tap.mu.Lock()
	b := tap.written
	handshake := slices.Clone(b[:wire.PreambleSize+4+int(binary.LittleEndian.Uint32(b[wire.PreambleSize:]))])
	tap.mu.Unlock()
	tap.Conn.Close()
	waitA()
	waitFor(t, "the server to see the player go", func() bool { return hasLog(ts, "client left") })

	conn, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write(handshake); err != nil {
		t.Fatal(err)
	}
	r := wire.NewReader(conn, wire.MaxServerMessage)
	if _, err := r.ReadServerPreamble(); err != nil {
		t.Fatal(err)
	}
	m, err := r.ReadMessage()
	if ref2, ok := m.(*wire.Refuse); !ok || ref2.Reason != wire.ReasonToken || !strings.Contains(ref2.Text, "salt") || !ref.has("token-replayed") {
		t.Fatalf("the recorded handshake played again: %v, %v; trace %v", m, err, ref.all())
	}

	a2, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(cr))
	if err != nil {
		t.Fatalf("the player itself: %v", err)
	}
	if w := a2.c.Welcome(); w.JoinTick != 1 {
		t.Errorf("the player came back with join tick %d, want 1 (its seat)", w.JoinTick)
	}
}
