package netplay_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/netsim"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

const testScene = "netplay-test"

// testGame is a tiny deterministic game: a resource that folds in every
// player's input, every join and leave and a draw of the RNG each tick,
// so that any difference in what a peer simulated changes the hash.
type testGame struct {
	sum *engine.Resource[uint64]
	// perturbAt, when not 0, changes the sum at that tick: a desync.
	perturbAt uint64
}

func newTestEngine(t testing.TB) (*engine.Engine, *testGame) {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	g := &testGame{sum: engine.NewResource(e.World, "sum", uint64(0))}
	e.AddSystem(engine.StageScripts, "fold", func(c *engine.FixedContext) {
		s := g.sum.Ptr()
		for _, id := range c.Players.Joined() {
			*s = *s*31 + 1000 + uint64(id)
		}
		for _, id := range c.Players.Left() {
			*s = *s*31 + 2000 + uint64(id)
		}
		for i := range c.Players.Len() {
			id, in := c.Players.At(i)
			var w [input.SampleWords]uint64
			in.Words(&w)
			for _, v := range w {
				*s = *s*1099511628211 + v + uint64(id)
			}
		}
		*s += uint64(c.World.RNG().Uint32())
		if g.perturbAt != 0 && c.Tick == g.perturbAt {
			*s ^= 1
		}
	})
	return e, g
}

// script is player id's input: keys held over spans that differ per player.
func script(id wire.PlayerID) func(tick uint64, due time.Duration, in *input.Queue) {
	return func(tick uint64, due time.Duration, in *input.Queue) {
		k := (tick + 7*uint64(id)) % 40
		key := input.KeyArrowLeft + input.Key(id%4)
		switch k {
		case 0:
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: key})
		case 20:
			in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: key})
		}
	}
}

func quietLog() (logrus.FieldLogger, *test.Hook) {
	l, h := test.NewNullLogger()
	l.SetLevel(logrus.DebugLevel)
	return l, h
}

type testServer struct {
	srv  *netplay.Server
	e    *engine.Engine
	addr string
	done chan error
	hook *test.Hook
}

func startServer(t *testing.T, cfg netplay.ServerConfig) *testServer {
	t.Helper()
	return startServerOn(t, cfg, false)
}

// startServerOn starts a server of the test game on TCP or, with overUDP,
// on UDP (Server.ServeUDP).
func startServerOn(t *testing.T, cfg netplay.ServerConfig, overUDP bool) *testServer {
	t.Helper()
	e, _ := newTestEngine(t)
	return startServerWith(t, e, cfg, overUDP)
}

// startServerWith starts a server on e, a test game's engine, like
// startServerOn.
func startServerWith(t testing.TB, e *engine.Engine, cfg netplay.ServerConfig, overUDP bool) *testServer {
	t.Helper()
	cfg.Scene = testScene
	log, hook := quietLog()
	if cfg.Log == nil {
		cfg.Log = log
	}
	srv, err := netplay.NewServer(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{srv: srv, e: e, done: make(chan error, 1), hook: hook}
	if overUDP {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ts.addr = pc.LocalAddr().String()
		go func() { ts.done <- srv.ServeUDP(pc) }()
	} else {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ts.addr = ln.Addr().String()
		go func() { ts.done <- srv.Serve(ln) }()
	}
	t.Cleanup(func() {
		srv.Close()
		select {
		case <-ts.done:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop within 10 s of Close")
		}
	})
	return ts
}

// wait waits for the server's match to end and returns its report.
func (ts *testServer) wait(t *testing.T) netplay.Report {
	t.Helper()
	select {
	case err := <-ts.done:
		ts.done <- err
		if err != nil {
			t.Fatalf("server: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the match did not end within 60 s")
	}
	return ts.srv.Report()
}

type testClient struct {
	c *netplay.Client
	e *engine.Engine
	g *testGame
}

func dialClient(t *testing.T, addr string, role wire.Role, mod func(*netplay.ClientConfig)) (*testClient, error) {
	t.Helper()
	e, g := newTestEngine(t)
	cfg := netplay.DefaultClientConfig()
	cfg.Role, cfg.Scene, cfg.Fingerprint = role, testScene, e.World.Schema().Fingerprint()
	cfg.Log, _ = quietLog()
	if mod != nil {
		mod(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := netplay.Dial(ctx, addr, cfg)
	if err != nil {
		return nil, err
	}
	var s func(uint64, time.Duration, *input.Queue)
	if role == wire.RolePlayer {
		s = script(c.Welcome().Player)
	}
	if err := c.Attach(e, s); err != nil {
		c.Close()
		return nil, err
	}
	t.Cleanup(func() { c.Close() })
	return &testClient{c: c, e: e, g: g}, nil
}

// dialPlayers dials n players at once (a match waits for all of them
// before it welcomes any).
func dialPlayers(t *testing.T, addr string, n int, mod func(*netplay.ClientConfig)) []*testClient {
	t.Helper()
	clients := make([]*testClient, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			clients[i], errs[i] = dialClient(t, addr, wire.RolePlayer, mod)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// In player order.
	for i := range clients {
		for j := i + 1; j < len(clients); j++ {
			if clients[j].c.Welcome().Player < clients[i].c.Welcome().Player {
				clients[i], clients[j] = clients[j], clients[i]
			}
		}
	}
	return clients
}

// play runs clients headless, each in its own goroutine, and returns
// their errors.
func play(clients ...*testClient) []error {
	errs := make([]error, len(clients))
	var wg sync.WaitGroup
	for i, tc := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			errs[i] = tc.c.RunHeadless(ctx)
		}()
	}
	wg.Wait()
	return errs
}

// logUint returns the field of the server's last log line (at any level,
// but for a summary of lines held back) with message msg, or 0.
func logUint(ts *testServer, msg, field string) uint64 {
	var v uint64
	for _, e := range ts.hook.AllEntries() {
		if summary, _ := e.Data["summary"].(bool); e.Message == msg && !summary {
			if n, ok := e.Data[field].(uint64); ok {
				v = n
			}
		}
	}
	return v
}

func matchConfig(players int, ticks uint64) netplay.ServerConfig {
	cfg := netplay.DefaultServerConfig()
	cfg.Players, cfg.Ticks = players, ticks
	cfg.StartDelay = 100 * time.Millisecond
	return cfg
}

func TestMatchEveryPeerEndsWithTheServersHash(t *testing.T) {
	ts := startServer(t, matchConfig(3, 180))
	var clients []*testClient
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			role := wire.RolePlayer
			if i == 3 {
				role = wire.RoleSpectator
			}
			tc, err := dialClient(t, ts.addr, role, nil)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			clients = append(clients, tc)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for i, err := range play(clients...) {
		if err != nil {
			t.Errorf("client %d: %v", i, err)
		}
	}
	rep := ts.wait(t)
	want := ts.e.World.Hash()
	if ts.e.World.Tick() != 180 {
		t.Errorf("server ended at tick %d, want 180", ts.e.World.Tick())
	}
	for i, tc := range clients {
		if got := tc.e.World.Tick(); got != 180 {
			t.Errorf("client %d ended at tick %d, want 180", i, got)
		}
		if got := tc.e.World.Hash(); got != want {
			t.Errorf("client %d hash %016x, server %016x", i, got, want)
		}
	}
	if rep.Ticks != 180 || rep.Spectators != 1 || len(rep.Players) != 4 || rep.Desyncs != 0 {
		t.Errorf("report: %d ticks, %d spectators, %d clients, %d desyncs; want 180, 1, 4, 0", rep.Ticks, rep.Spectators, len(rep.Players), rep.Desyncs)
	}
	var b strings.Builder
	rep.WriteText(&b)
	t.Logf("\n%s", b.String())
	for _, p := range rep.Players {
		if !p.Spectator && (p.Inputs+p.Substituted != 180 || p.JoinTick != 1 || p.Hashes != 3) {
			t.Errorf("player %d: %d inputs + %d substituted, joined at %d, %d hashes; want 180 ticks, 1, 3", p.Player, p.Inputs, p.Substituted, p.JoinTick, p.Hashes)
		}
	}
}

// A player leaves at about tick 100 and another joins at about tick 150,
// taking the free ID; the match ends once the joiner has played a
// second. What the test asserts holds however the machine schedules it
// (a stall of seconds makes the server confirm the overdue ticks at
// once): the leave comes after the last tick the leaver simulated, the
// join after the tick the other player had reached when the joiner
// dialled, both before the match's end, and every peer ends with the
// server's hash.
func TestLateJoinerAndLeaverKeepTheMatchInSync(t *testing.T) {
	for _, every := range []uint64{0, 100} {
		t.Run(map[uint64]string{0: "snapshot", 100: "kept snapshot"}[every], func(t *testing.T) {
			cfg := matchConfig(2, 0)
			cfg.SnapshotEvery = every
			ts := startServer(t, cfg)
			ab := dialPlayers(t, ts.addr, 2, nil)
			a, b := ab[0], ab[1]
			var wg sync.WaitGroup
			var errA, errLate error
			var late *testClient
			var bLast, aAtDial uint64
			wg.Add(2)
			go func() { defer wg.Done(); errA = play(a)[0] }()
			go func() {
				defer wg.Done()
				defer ts.srv.Close() // ends the match, however the joiner fared
				// b leaves at about tick 100 (its connection is cut).
				ctx, cancel := context.WithCancel(context.Background())
				go func() {
					for b.c.Tick() < 100 {
						time.Sleep(5 * time.Millisecond)
					}
					cancel()
				}()
				b.c.RunHeadless(ctx)
				b.c.Close()
				bLast = b.c.Tick()
				// A third player joins at about tick 150, once b's leave
				// is confirmed (its ID is free from then on).
				var leaveTick uint64
				waitFor(t, "the server to see b go", func() bool {
					leaveTick = logUint(ts, "client left", "leave_tick")
					return leaveTick != 0
				})
				for a.c.Tick() < max(150, leaveTick) && a.c.Err() == nil {
					time.Sleep(5 * time.Millisecond)
				}
				aAtDial = a.c.Tick()
				late, errLate = dialClient(t, ts.addr, wire.RolePlayer, nil)
				if errLate != nil {
					return
				}
				// The match ends once the joiner has played a second
				// from its join.
				go func() {
					defer ts.srv.Close()
					var join uint64
					waitFor(t, "the server to let the joiner in", func() bool {
						join = logUint(ts, "client joined the running match", "join_tick")
						return join != 0
					})
					for late.c.Tick() < join+60 && late.c.Err() == nil {
						time.Sleep(5 * time.Millisecond)
					}
				}()
				errLate = play(late)[0]
			}()
			wg.Wait()
			if errA != nil || errLate != nil {
				t.Fatalf("client errors: %v, %v", errA, errLate)
			}
			rep := ts.wait(t)
			want, end := ts.e.World.Hash(), ts.e.World.Tick()
			for name, tc := range map[string]*testClient{"a": a, "late": late} {
				if got := tc.e.World.Hash(); got != want || tc.e.World.Tick() != end {
					t.Errorf("client %s: tick %d hash %016x, server tick %d hash %016x", name, tc.e.World.Tick(), got, end, want)
				}
			}
			if len(rep.Players) != 3 {
				t.Fatalf("report has %d clients, want 3", len(rep.Players))
			}
			if p := rep.Players[1]; p.LeftTick <= bLast || p.LeftTick > end {
				t.Errorf("the leaver left at tick %d, want after its last tick, %d, and by the end, %d", p.LeftTick, bLast, end)
			}
			if p := rep.Players[2]; p.JoinTick <= aAtDial || p.JoinTick > end || p.Player != 1 {
				t.Errorf("the late joiner joined at tick %d as player %d, want after tick %d (when it dialled), by the end (%d), as player 1 (the leaver's ID is free again)", p.JoinTick, p.Player, aAtDial, end)
			}
		})
	}
}

func TestDesyncIsDetectedDumpedAndResynchronised(t *testing.T) {
	dir := t.TempDir()
	cfg := matchConfig(2, 240)
	cfg.DumpDir = dir
	ts := startServer(t, cfg)
	ab := dialPlayers(t, ts.addr, 2, func(c *netplay.ClientConfig) { c.DumpDir = dir })
	a, b := ab[0], ab[1]
	b.g.perturbAt = 70
	for i, err := range play(a, b) {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	rep := ts.wait(t)
	want := ts.e.World.Hash()
	for i, tc := range []*testClient{a, b} {
		if got := tc.e.World.Hash(); got != want {
			t.Errorf("client %d hash %016x, server %016x", i, got, want)
		}
	}
	if rep.Desyncs != 1 {
		t.Errorf("report: %d desyncs, want 1", rep.Desyncs)
	}
	if r := b.c.Report(); r.Desyncs != 1 || r.Resyncs != 1 {
		t.Errorf("client b: %d desyncs, %d resyncs; want 1 and 1", r.Desyncs, r.Resyncs)
	}
	who := "player" + string(rune('0'+b.c.Welcome().Player))
	server, err1 := os.ReadFile(filepath.Join(dir, "desync-120-server.dump"))
	client, err2 := os.ReadFile(filepath.Join(dir, "desync-120-"+who+".dump"))
	if err1 != nil || err2 != nil {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("dumps: %v, %v (the directory holds %v)", err1, err2, entries)
	}
	diff := engine.DiffDumps(server, client, 10)
	if len(diff) == 0 || !strings.Contains(strings.Join(diff, "\n"), `"sum"`) {
		t.Errorf("the dumps should differ in the resource \"sum\"; the diff:\n%s", strings.Join(diff, "\n"))
	}
}

func TestClientRefusesWhatIsNotANebulaServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				conn.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
				bufio.NewReader(conn).ReadString('\n')
			}()
		}
	}()
	start := time.Now()
	_, err = dialClient(t, ln.Addr().String(), wire.RolePlayer, nil)
	if err == nil || !strings.Contains(err.Error(), "not a Nebula server") {
		t.Errorf("Dial: %v, want an error saying it is not a Nebula server", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Dial took %v to give up, want under 3 s", d)
	}
}

func TestClientNoticesTheServerGoingAway(t *testing.T) {
	ts := startServer(t, matchConfig(1, 0))
	a, err := dialClient(t, ts.addr, wire.RolePlayer, nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for a.c.Tick() < 30 {
			time.Sleep(5 * time.Millisecond)
		}
		ts.srv.Close()
	}()
	start := time.Now()
	err = play(a)[0]
	if err != nil {
		t.Errorf("a server that shuts down ends the match: RunHeadless returned %v, want nil", err)
	}
	if last, ended := a.c.End(); !ended || a.e.World.Tick() != last {
		t.Errorf("client at tick %d, end %d (%v)", a.e.World.Tick(), last, ended)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// A client still behind when the server, its match over, closes the
// connection (a loaded machine, or a window that was minimised: a window
// does not catch up the time away) has every confirmed tick, since they
// come before the End: it simulates them alone and ends with the server's
// hash, not with "server went away".
func TestClientBehindAtTheEndFinishesAlone(t *testing.T) {
	ts := startServer(t, matchConfig(1, 60))
	a, err := dialClient(t, ts.addr, wire.RolePlayer, nil)
	if err != nil {
		t.Fatal(err)
	}
	// a simulates nothing while the server plays the match, waits in
	// vain for a's last hash and closes the connection.
	ts.wait(t)
	// a sends input on its clock all along: its next write meets the
	// closed connection.
	select {
	case <-a.c.Failed():
	case <-time.After(500 * time.Millisecond):
	}
	if err := play(a)[0]; err != nil {
		t.Fatalf("a client behind at the end: RunHeadless returned %v, want nil", err)
	}
	if got, want := a.e.World.Tick(), ts.e.World.Tick(); got != want || want != 60 {
		t.Errorf("client at tick %d, server %d, want 60", got, want)
	}
	if got, want := a.e.World.Hash(), ts.e.World.Hash(); got != want {
		t.Errorf("client hash %016x, server %016x", got, want)
	}
}

// A server whose process dies sends no End: the client must say so.
func TestClientNoticesAVanishedServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e, _ := newTestEngine(t)
	cfg := matchConfig(1, 0)
	cfg.Scene = testScene
	cfg.Log, _ = quietLog()
	srv, err := netplay.NewServer(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// A proxy in front of the server that cuts the connection at once.
	proxy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	var cut sync.Once
	cutNow := make(chan struct{})
	go func() {
		conn, err := proxy.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			conn.Close()
			return
		}
		go func() { <-cutNow; conn.Close(); up.Close() }()
		go copyConn(up, conn)
		copyConn(conn, up)
	}()
	go srv.Serve(ln)
	defer srv.Close()
	a, err := dialClient(t, proxy.Addr().String(), wire.RolePlayer, nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for a.c.Tick() < 30 {
			time.Sleep(5 * time.Millisecond)
		}
		cut.Do(func() { close(cutNow) })
	}()
	start := time.Now()
	err = play(a)[0]
	if err == nil || !strings.Contains(err.Error(), "went away") {
		t.Errorf("RunHeadless: %v, want an error saying the server went away", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to notice", d)
	}
}

func copyConn(dst, src net.Conn) {
	buf := make([]byte, 4096)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			dst.Close()
			return
		}
	}
}

var _ = errors.New

// Two predicting players, one behind 40 ms of simulated latency each way,
// and a lockstep one: everyone ends on the server's hash, the predicting
// players rolled back (each player's key changes reach the others late),
// and the lockstep player never predicted.
func TestPredictingClientsRollBackToTheServersHash(t *testing.T) {
	ts := startServer(t, matchConfig(3, 240))
	slow := func(cfg *netplay.ClientConfig) {
		cfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return netsim.Wrap(conn, netsim.Config{Delay: 40 * time.Millisecond, Seed: 1}), nil
		}
	}
	var (
		clients = make([]*testClient, 3)
		errs    = make([]error, 3)
		wg      sync.WaitGroup
	)
	for i, mod := range []func(*netplay.ClientConfig){
		nil,
		slow,
		func(cfg *netplay.ClientConfig) { cfg.Predict = 0 },
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			clients[i], errs[i] = dialClient(t, ts.addr, wire.RolePlayer, mod)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, err := range play(clients...) {
		if err != nil {
			t.Errorf("client %d: %v", i, err)
		}
	}
	rep := ts.wait(t)
	if rep.Desyncs != 0 {
		t.Errorf("%d desyncs", rep.Desyncs)
	}
	want := ts.e.World.Hash()
	for i, tc := range clients {
		r := tc.c.Report()
		rb := r.Rollback
		t.Logf("client %d (predict %d): %d rollbacks, %d ticks re-simulated (max %d), %d predicted, depth mean %.2f max %d, %d stalls",
			i, r.Predict, rb.Rollbacks, rb.Resimulated, rb.MaxResimulated, rb.Predicted, rb.DepthMean, rb.DepthMax, rb.Stalls)
		if got := tc.e.World.Hash(); got != want || tc.e.World.Tick() != 240 {
			t.Errorf("client %d: tick %d hash %016x, server tick 240 hash %016x", i, tc.e.World.Tick(), got, want)
		}
		if rb.Confirmed != 240 {
			t.Errorf("client %d: confirmed up to tick %d, want 240", i, rb.Confirmed)
		}
		switch {
		case i < 2 && (rb.Rollbacks == 0 || rb.Predicted == 0):
			t.Errorf("client %d predicts but never rolled back (%d) or predicted (%d)", i, rb.Rollbacks, rb.Predicted)
		case i == 2 && (rb.Rollbacks != 0 || rb.Predicted != 0):
			t.Errorf("the lockstep client rolled back %d times, predicted %d ticks", rb.Rollbacks, rb.Predicted)
		}
	}
	if d := clients[1].c.Report().Rollback.DepthMax; d < 4 {
		t.Errorf("the slow client was at most %d ticks ahead of its confirmed ticks; 80 ms of round trip is about 5", d)
	}
}
