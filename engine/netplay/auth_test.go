package netplay_test

import (
	"context"
	"encoding/binary"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/seal"
	"github.com/nebulaengine/nebula/engine/netplay/token"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

const testMatch = "m-test"

func testTokenKey(t testing.TB, b byte) *token.Key {
	t.Helper()
	var k token.Key
	for i := range k {
		k[i] = b ^ byte(7*i)
	}
	return &k
}

// mintFor mints a token of testMatch for seat under key, valid for a
// minute from at.
func mintFor(t testing.TB, key *token.Key, match string, seat token.Seat, at time.Time) *token.Credentials {
	t.Helper()
	c, err := token.Mint(*key, token.Request{MatchID: match, Seat: seat, TTL: time.Minute}, at)
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

// refusals records the labels ServerTrace.HandshakeRefused is called
// with.
type refusals struct {
	mu     sync.Mutex
	labels []string
}

func (r *refusals) trace() *netplay.ServerTrace {
	return &netplay.ServerTrace{HandshakeRefused: func(reason string) {
		r.mu.Lock()
		r.labels = append(r.labels, reason)
		r.mu.Unlock()
	}}
}

func (r *refusals) has(label string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.labels, label)
}

func (r *refusals) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.labels)
}

func tokenConfig(players int, ticks uint64, key *token.Key) netplay.ServerConfig {
	cfg := matchConfig(players, ticks)
	cfg.TokenKey, cfg.MatchID = key, testMatch
	return cfg
}

// withToken sets a client's credentials (and its role from their seat).
func withToken(cr *token.Credentials, more ...func(*netplay.ClientConfig)) func(*netplay.ClientConfig) {
	return func(c *netplay.ClientConfig) {
		c.Credentials = cr
		if cr.Seat == token.Spectator {
			c.Role = wire.RoleSpectator
		}
		for _, f := range more {
			f(c)
		}
	}
}

// waitFor waits until cond holds (it is an event that comes: the test
// fails after 30 s).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// tapConn records what a client writes to its TCP connection.
type tapConn struct {
	net.Conn
	mu      sync.Mutex
	written []byte
	// flipAt, when above 0, flips a bit of the byte at that offset of the
	// stream written.
	flipAt int
}

func (c *tapConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	start := len(c.written)
	c.written = append(c.written, b...)
	if c.flipAt > 0 && start <= c.flipAt && c.flipAt < start+len(b) {
		b = slices.Clone(b)
		b[c.flipAt-start] ^= 0x10
	}
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func tapDial(tap **tapConn, flipAt int) func(*netplay.ClientConfig) {
	return func(c *netplay.ClientConfig) {
		c.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			*tap = &tapConn{Conn: conn, flipAt: flipAt}
			return *tap, nil
		}
	}
}

// TestTokenPlayersPlaySealed: players with tokens take their tokens'
// seats and play to the server's hash, over TCP and UDP; over TCP every
// byte a client writes after its Hello is in sealed frames.
func TestTokenPlayersPlaySealed(t *testing.T) {
	for _, overUDP := range []bool{false, true} {
		name := "tcp"
		if overUDP {
			name = "udp"
		}
		t.Run(name, func(t *testing.T) {
			key := testTokenKey(t, 1)
			ts := startServerWith(t, testEngine(t), tokenConfig(2, 120, key), overUDP)
			now := time.Now()
			seats := []token.Seat{5, 2}
			clients := make([]*testClient, 2)
			taps := make([]*tapConn, 2)
			var wg sync.WaitGroup
			for i, seat := range seats {
				wg.Add(1)
				go func() {
					defer wg.Done()
					mods := []func(*netplay.ClientConfig){}
					if overUDP {
						mods = append(mods, func(c *netplay.ClientConfig) { c.Transport = netplay.UDP })
					} else {
						mods = append(mods, tapDial(&taps[i], 0))
					}
					var err error
					clients[i], err = dialClient(t, ts.addr, wire.RolePlayer, withToken(mintFor(t, key, testMatch, seat, now), mods...))
					if err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			for i, tc := range clients {
				if got := tc.c.Welcome().Player; got != wire.PlayerID(seats[i]) {
					t.Errorf("the token of seat %d was welcomed as player %d", seats[i], got)
				}
			}
			for i, err := range play(clients...) {
				if err != nil {
					t.Errorf("client %d: %v", i, err)
				}
			}
			ts.wait(t)
			for i, tc := range clients {
				if tc.e.World.Tick() != 120 || tc.e.World.Hash() != ts.e.World.Hash() {
					t.Errorf("client %d: tick %d hash %016x; server tick %d hash %016x", i, tc.e.World.Tick(), tc.e.World.Hash(), ts.e.World.Tick(), ts.e.World.Hash())
				}
			}
			if overUDP {
				return
			}
			for i, tap := range taps {
				tap.mu.Lock()
				checkSealedStream(t, i, tap.written)
				tap.mu.Unlock()
			}
		})
	}
}

// checkSealedStream checks that b, a client's stream, is its preamble,
// its Hello in clear, then only sealed frames.
func checkSealedStream(t *testing.T, i int, b []byte) {
	t.Helper()
	b = b[wire.PreambleSize:]
	n := binary.LittleEndian.Uint32(b)
	if wire.Type(b[4]) != wire.TypeHello {
		t.Fatalf("client %d: the first message is type %d", i, b[4])
	}
	b = b[4+n:]
	frames := 0
	for len(b) > 0 {
		n := binary.LittleEndian.Uint32(b)
		if b[4] != seal.FrameType {
			t.Fatalf("client %d: after %d sealed frames, a message in clear of type %d", i, frames, b[4])
		}
		b = b[4+n:]
		frames++
	}
	if frames < 100 {
		t.Errorf("client %d: %d sealed frames, want one an input at least", i, frames)
	}
}

// TestTokenRefusals: forged, expired, other-match, wrong-key, missing,
// wrong-role and in-use tokens are each refused with their reason, the
// trace is told, and the match goes on with its players alone.
func TestTokenRefusals(t *testing.T) {
	key := testTokenKey(t, 1)
	var ref refusals
	cfg := tokenConfig(2, 60, key)
	cfg.Trace = ref.trace()
	ts := startServer(t, cfg)
	now := time.Now()
	good0, good1 := mintFor(t, key, testMatch, 0, now), mintFor(t, key, testMatch, 1, now)

	// Player 0 waits for the match: its token is in use.
	first := make(chan *testClient, 1)
	go func() {
		tc, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(good0))
		if err != nil {
			t.Error(err)
		}
		first <- tc
	}()
	waitFor(t, "player 0 in", func() bool { return hasLog(ts, "client in; waiting for players") })

	forged := *good1
	forged.Token = slices.Clone(good1.Token)
	forged.Token[len(forged.Token)-20] ^= 1
	expired := mintFor(t, key, testMatch, 1, now.Add(-2*time.Minute))
	for _, tc := range []struct {
		name  string
		cr    *token.Credentials
		role  wire.Role
		label string
		text  string
	}{
		{"forged", &forged, wire.RolePlayer, "token-forged", "token: forged or sealed under another key"},
		{"expired", expired, wire.RolePlayer, "token-expired", "token: expired"},
		{"other match", mintFor(t, key, "m-other", 1, now), wire.RolePlayer, "token-match", "token: for another match"},
		{"wrong key", mintFor(t, testTokenKey(t, 2), testMatch, 1, now), wire.RolePlayer, "token-forged", "token: forged or sealed under another key"},
		{"in use", good0, wire.RolePlayer, "token-in-use", "the token is in use by another connection"},
		{"seat beyond the match", mintFor(t, key, testMatch, 9, now), wire.RolePlayer, "token-seat", "the token's seat 9 is beyond this match's 8 players"},
		{"none", nil, wire.RolePlayer, "token-missing", "this server requires a connect token"},
		{"spectator without token", nil, wire.RoleSpectator, "token-missing", "this server requires a connect token"},
	} {
		_, err := dialClient(t, ts.addr, tc.role, func(c *netplay.ClientConfig) { c.Credentials = tc.cr })
		if err == nil || !strings.Contains(err.Error(), "token refused: "+tc.text) {
			t.Errorf("%s: %v, want a refusal of the token: %s", tc.name, err, tc.text)
		}
		if !ref.has(tc.label) {
			t.Errorf("%s: the trace was not told %q (it has %v)", tc.name, tc.label, ref.all())
		}
	}
	// The refusals touched nothing: the match starts with its two players.
	second, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(good1))
	if err != nil {
		t.Fatal(err)
	}
	a := <-first
	if a == nil {
		return
	}
	for i, err := range play(a, second) {
		if err != nil {
			t.Errorf("client %d: %v", i, err)
		}
	}
	rep := ts.wait(t)
	if len(rep.Players) != 2 || a.e.World.Hash() != ts.e.World.Hash() || second.e.World.Hash() != ts.e.World.Hash() {
		t.Errorf("the match had %d clients; hashes %016x %016x, server %016x", len(rep.Players), a.e.World.Hash(), second.e.World.Hash(), ts.e.World.Hash())
	}
	for _, p := range rep.Players {
		if p.JoinTick != 1 {
			t.Errorf("player %d joined at tick %d, want 1", p.Player, p.JoinTick)
		}
	}
	// The match over: refused as "shutdown"... and the full match refuses
	// a third player: see TestSpectatorsWithoutTokenAndFull.
}

// TestSpectatorsWithoutTokenAndFull: a spectator without a token is let
// in only with the flag, in clear; a token for a taken seat and a full
// match are refusals the trace is told. Both matches are endless (the
// server goes on without a client's input, so a match of a few ticks
// could end before a slow machine dials the next client): the first ends
// once every client has played 90 ticks, the second with the test.
func TestSpectatorsWithoutTokenAndFull(t *testing.T) {
	key := testTokenKey(t, 1)
	var ref refusals
	cfg := tokenConfig(1, 0, key)
	cfg.MaxPlayers = 1
	cfg.SpectatorsWithoutToken = true
	cfg.Trace = ref.trace()
	ts := startServer(t, cfg)
	now := time.Now()
	p, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(mintFor(t, key, testMatch, 0, now)))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := dialClient(t, ts.addr, wire.RoleSpectator, nil)
	if err != nil {
		t.Fatalf("a spectator without a token, with the flag: %v", err)
	}
	specTok, err := dialClient(t, ts.addr, wire.RoleSpectator, withToken(mintFor(t, key, testMatch, token.Spectator, now)))
	if err != nil {
		t.Fatalf("a spectator with a token: %v", err)
	}
	if _, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(mintFor(t, key, testMatch, 0, now))); err == nil || !strings.Contains(err.Error(), "seat 0 is taken") || !ref.has("seat-taken") {
		t.Errorf("a second token of a taken seat: %v", err)
	}
	cfg2 := matchConfig(1, 0)
	cfg2.MaxPlayers = 1
	var ref2 refusals
	cfg2.Trace = ref2.trace()
	ts2 := startServer(t, cfg2)
	first, err := dialClient(t, ts2.addr, wire.RolePlayer, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dialClient(t, ts2.addr, wire.RolePlayer, nil); err == nil || !strings.Contains(err.Error(), "match full") || !ref2.has("full") {
		t.Errorf("a player beyond the max: %v, trace %v", err, ref2.all())
	}
	if _, err := dialClient(t, ts2.addr, wire.RolePlayer, withToken(mintFor(t, key, testMatch, 0, now))); err == nil || !ref2.has("token-unexpected") {
		t.Errorf("a token to a server without a key: %v", err)
	}
	first.c.Close()
	clients := []*testClient{p, spec, specTok}
	go func() {
		defer ts.srv.Close() // ends the match: every client gets to its end
		for _, tc := range clients {
			for tc.c.Tick() < 90 && tc.c.Err() == nil {
				time.Sleep(5 * time.Millisecond)
			}
		}
	}()
	for i, err := range play(clients...) {
		if err != nil {
			t.Errorf("client %d: %v", i, err)
		}
	}
	ts.wait(t)
	for i, tc := range clients {
		if tc.e.World.Hash() != ts.e.World.Hash() || tc.e.World.Tick() != ts.e.World.Tick() {
			t.Errorf("client %d: tick %d hash %016x, server tick %d hash %016x", i, tc.e.World.Tick(), tc.e.World.Hash(), ts.e.World.Tick(), ts.e.World.Hash())
		}
	}

	cfg3 := tokenConfig(1, 10, key)
	ts3 := startServer(t, cfg3)
	if _, err := dialClient(t, ts3.addr, wire.RoleSpectator, nil); err == nil || !strings.Contains(err.Error(), "requires a connect token") {
		t.Errorf("a spectator without a token, without the flag: %v", err)
	}
}

// TestMatchRefusalIsDoneBeforeItIsSent: a client the match refuses (its
// seat taken, the match full) has its refusal only once the server is done
// with it: the trace has been told, and its token is free, so that the
// same token dialled again at once is refused for the seat again, not as
// a token in use. (The trace and the token table were once updated after
// the refusal was queued: a client could read its refusal first, which a
// loaded machine showed.)
func TestMatchRefusalIsDoneBeforeItIsSent(t *testing.T) {
	key := testTokenKey(t, 1)
	cfg := tokenConfig(1, 0, key)
	cfg.MaxPlayers = 1
	// The trace, when told of the refusal, waits a while for the client
	// to have read it: a server that sent the refusal first is caught
	// whenever the client reads within the wait (it always does on an idle
	// machine); a server that tells the trace first is never blamed,
	// however slow the machine.
	answered := make(chan struct{})
	var early atomic.Bool
	var ref refusals
	cfg.Trace = &netplay.ServerTrace{HandshakeRefused: func(reason string) {
		if reason == "seat-taken" && !ref.has(reason) {
			select {
			case <-answered:
				early.Store(true)
			case <-time.After(300 * time.Millisecond):
			}
		}
		ref.trace().HandshakeRefused(reason)
	}}
	ts := startServer(t, cfg)
	now := time.Now()
	if _, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(mintFor(t, key, testMatch, 0, now))); err != nil {
		t.Fatal(err)
	}
	second := mintFor(t, key, testMatch, 0, now)
	_, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(second))
	close(answered)
	if err == nil || !strings.Contains(err.Error(), "seat 0 is taken") {
		t.Fatalf("a second token of a taken seat: %v", err)
	}
	if !ref.has("seat-taken") || early.Load() {
		t.Errorf("the client had its refusal before the trace was told (trace %v)", ref.all())
	}
	if !hasLog(ts, "refused a client") {
		t.Error("the client had its refusal before the server logged it")
	}
	for i := range 3 {
		if _, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(second)); err == nil || !strings.Contains(err.Error(), "seat 0 is taken") {
			t.Errorf("the refused token dialled again (%d): %v, want the seat's refusal again", i+1, err)
		}
	}
}

// TestTamperedTrafficIsRejected: over TCP, a client whose sealed stream
// is altered on its way is closed, with the server's log saying why.
func TestTamperedTCPTrafficIsRejected(t *testing.T) {
	key := testTokenKey(t, 1)
	ts := startServer(t, tokenConfig(1, 0, key))
	var tap *tapConn
	cr := mintFor(t, key, testMatch, 0, time.Now())
	// Flip a byte well after the handshake: in the sealed frames of the
	// inputs.
	tc, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(cr, tapDial(&tap, 4000)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = tc.c.RunHeadless(ctx)
	if err == nil || !strings.Contains(err.Error(), "failed authentication") {
		t.Errorf("the client of a tampered stream: %v, want the server's refusal", err)
	}
	waitFor(t, "the server's log line", func() bool {
		return hasLog(ts, "closed a connection whose traffic failed authentication: altered, forged or replayed on its way")
	})
}

// flipPacketConn alters every 7th sealed packet it sends or receives.
type flipPacketConn struct {
	net.PacketConn
	sent, got atomic.Int64
	// clearAfter counts the data packets sent in clear after the first
	// sealed one.
	clearAfter atomic.Int64
}

func (c *flipPacketConn) WriteTo(b []byte, to net.Addr) (int, error) {
	if len(b) > 2 && b[1] == 3 && c.sent.Load() > 0 {
		c.clearAfter.Add(1)
	}
	if len(b) > 40 && b[1] == 7 && c.sent.Add(1)%7 == 0 {
		b = slices.Clone(b)
		b[len(b)-20] ^= 1
	}
	return c.PacketConn.WriteTo(b, to)
}

func (c *flipPacketConn) ReadFrom(b []byte) (int, net.Addr, error) {
	n, from, err := c.PacketConn.ReadFrom(b)
	if n > 40 && b[1] == 7 && c.got.Add(1)%7 == 0 {
		b[n-20] ^= 1
	}
	return n, from, err
}

// TestTamperedUDPTrafficIsDropped: over UDP, altered sealed packets are
// dropped and counted, both ways, and the match plays on to the server's
// hash (the transport sends their contents again).
func TestTamperedUDPTrafficIsDropped(t *testing.T) {
	key := testTokenKey(t, 1)
	ts := startServerWith(t, testEngine(t), tokenConfig(1, 180, key), true)
	var flip *flipPacketConn
	tc, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(mintFor(t, key, testMatch, 0, time.Now()), func(c *netplay.ClientConfig) {
		c.Transport = netplay.UDP
		c.WrapPacketConn = func(pc net.PacketConn) net.PacketConn {
			flip = &flipPacketConn{PacketConn: pc}
			return flip
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := play(tc)[0]; err != nil {
		t.Fatal(err)
	}
	ts.wait(t)
	if tc.e.World.Hash() != ts.e.World.Hash() {
		t.Error("the client's hash differs from the server's")
	}
	rep := tc.c.Report()
	if rep.UDP == nil || rep.UDP.Unauthentic == 0 {
		t.Errorf("the client counted no unauthentic packet: %+v", rep.UDP)
	}
	if !hasLog(ts, "dropped a UDP packet") {
		t.Error("the server logged no dropped packet")
	}
	if n := flip.clearAfter.Load(); n > 0 {
		t.Errorf("the client sent %d data packets in clear after its first sealed one", n)
	}
	if flip.sent.Load() < 30 {
		// 3 s of a match: about 180 packets, fewer on a busy machine,
		// where a packet carries several ticks' inputs.
		t.Errorf("the client sent %d sealed packets in 3 s of a match", flip.sent.Load())
	}
	t.Logf("client: %d altered packets dropped and counted; %d sent altered", rep.UDP.Unauthentic, flip.sent.Load()/7)
}

// TestTokenRefusedOverUDP: over UDP too, a bad token is refused in clear
// with its reason, and a good one plays sealed.
func TestTokenRefusedOverUDP(t *testing.T) {
	key := testTokenKey(t, 1)
	var ref refusals
	cfg := tokenConfig(1, 30, key)
	cfg.Trace = ref.trace()
	ts := startServerWith(t, testEngine(t), cfg, true)
	udpClient := func(c *netplay.ClientConfig) { c.Transport = netplay.UDP }
	_, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(mintFor(t, key, testMatch, 0, time.Now().Add(-time.Hour)), udpClient))
	if err == nil || !strings.Contains(err.Error(), "token refused: token: expired") || !ref.has("token-expired") {
		t.Fatalf("an expired token over UDP: %v", err)
	}
	tc, err := dialClient(t, ts.addr, wire.RolePlayer, withToken(mintFor(t, key, testMatch, 0, time.Now()), udpClient))
	if err != nil {
		t.Fatal(err)
	}
	if err := play(tc)[0]; err != nil {
		t.Fatal(err)
	}
	ts.wait(t)
	if tc.e.World.Hash() != ts.e.World.Hash() {
		t.Error("the client's hash differs from the server's")
	}
}

// TestTokenConfigValidate: a token key needs a match id; a rejoin grace
// needs a token key.
func TestTokenConfigValidate(t *testing.T) {
	key := testTokenKey(t, 1)
	for _, tc := range []struct {
		mod  func(*netplay.ServerConfig)
		want string
	}{
		{func(c *netplay.ServerConfig) { c.TokenKey = key }, `netplay: server: match id "": must be 1 to 64 bytes with a token key`},
		{func(c *netplay.ServerConfig) { c.RejoinGrace = time.Second }, "netplay: server: rejoin grace 1s: needs a token key (tokens tell a player's return from a newcomer)"},
		{func(c *netplay.ServerConfig) { c.TokenKey, c.MatchID, c.RejoinGrace = key, "m", -1 }, "netplay: server: rejoin grace -1ns: must be 0 or more"},
	} {
		cfg := matchConfig(1, 10)
		cfg.Scene = testScene
		tc.mod(&cfg)
		if err := cfg.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}
