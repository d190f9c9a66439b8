package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/internal/app"
)

// The match benchmarks run many headless clients of the demo scene in
// this one process, over real loopback TCP sockets, against a server in
// this process or the demo's own (nebula-demo -serve): 64 client processes
// would spend a 2-core machine on 64 Go runtimes. Each client simulates
// every tick, as a player's machine does. They report what the match
// report says and what only a process holding every client can time on
// one clock.
//
//	go test -run '^$' -bench 'BenchmarkMatch|BenchmarkLateJoin' -benchtime 1x ./cmd/nebula-demo/

// benchSize returns full, the size a benchmark's figure is measured at,
// or short under -short: `make test` runs every benchmark once with
// -short, so that each one's code and its own checks run (a hash that
// differs, a match that does not end) in seconds rather than minutes. The
// figures of a -short run mean nothing.
func benchSize[T any](full, short T) T {
	if testing.Short() {
		return short
	}
	return full
}

// benchMatch is a server of the demo scene and its players, in process.
type benchMatch struct {
	srv  *netplay.Server
	e    *engine.Engine
	addr string
	done chan error
	tap  *tap
}

type benchClient struct {
	c *netplay.Client
	e *engine.Engine
}

// quietLogger logs warnings and worse to the benchmark's output only.
func quietLogger(b *testing.B) logrus.FieldLogger {
	l := logrus.New()
	l.SetOutput(benchLogWriter{b})
	l.SetLevel(logrus.WarnLevel)
	return l
}

type benchLogWriter struct{ b *testing.B }

func (w benchLogWriter) Write(p []byte) (int, error) { w.b.Logf("%s", p); return len(p), nil }

// startBenchServer starts a server of the demo scene at entities cubes,
// on TCP or, with overUDP, on UDP.
func startBenchServer(b *testing.B, cfg netplay.ServerConfig, entities int, overUDP bool) *benchMatch {
	b.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	scene.Setup(e, entities)
	params, err := app.Params{"seed": fmt.Sprint(engine.DefaultConfig().Seed), "entities": fmt.Sprint(entities), "panic-at-tick": "0"}.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	cfg.Scene, cfg.Params = scene.ID, params
	cfg.Log = quietLogger(b)
	srv, err := netplay.NewServer(e, cfg)
	if err != nil {
		b.Fatal(err)
	}
	m := &benchMatch{srv: srv, e: e, done: make(chan error, 1)}
	if overUDP {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		m.addr = pc.LocalAddr().String()
		go func() { m.done <- srv.ServeUDP(pc) }()
	} else {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		m.addr = ln.Addr().String()
		go func() { m.done <- srv.Serve(ln) }()
	}
	b.Cleanup(srv.Close)
	return m
}

// dialBench connects client index of the demo scene at entities cubes to
// the server at addr; dial, if not nil, changes its configuration (a tap
// timing its connection, a simulated network, a transport).
func dialBench(b *testing.B, ctx context.Context, addr string, entities, index int, dial func(index int, cfg *netplay.ClientConfig)) (*benchClient, error) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		return nil, err
	}
	scene.Setup(e, entities)
	cfg := netplay.DefaultClientConfig()
	cfg.Role, cfg.Scene, cfg.Fingerprint = wire.RolePlayer, scene.ID, e.World.Schema().Fingerprint()
	cfg.Name = fmt.Sprintf("bench-%d", index)
	cfg.Log = quietLogger(b)
	if dial != nil {
		dial(index, &cfg)
	}
	c, err := netplay.Dial(ctx, addr, cfg)
	if err != nil {
		return nil, err
	}
	if err := c.Attach(e, scene.PlayerScript(engine.PlayerID(c.Welcome().Player))); err != nil {
		c.Close()
		return nil, err
	}
	b.Cleanup(func() { c.Close() })
	return &benchClient{c: c, e: e}, nil
}

// play runs players clients (runClients) against the in-process server,
// checks every client ends with the server's hash, and returns the
// server's report.
func (m *benchMatch) play(b *testing.B, players, entities int) netplay.Report {
	b.Helper()
	var dial func(int, *netplay.ClientConfig)
	if m.tap != nil {
		dial = func(i int, cfg *netplay.ClientConfig) { cfg.Dial = m.tap.dialer(i) }
	}
	clients := runClients(b, m.addr, players, entities, dial)
	if err := <-m.done; err != nil {
		b.Fatalf("server: %v", err)
	}
	want := m.e.World.Hash()
	for i, bc := range clients {
		if got := bc.e.World.Hash(); got != want || bc.e.World.Tick() != m.e.World.Tick() {
			b.Fatalf("client %d ended at tick %d with hash %016x; the server at tick %d with %016x",
				i, bc.e.World.Tick(), got, m.e.World.Tick(), want)
		}
	}
	return m.srv.Report()
}

// runClients dials players clients of the demo scene at addr at once
// (dial, if not nil, changes each one's configuration: see dialBench) and
// runs them headless to the end of the match; it fails b unless every one
// ends well.
func runClients(b *testing.B, addr string, players, entities int, dial func(index int, cfg *netplay.ClientConfig)) []*benchClient {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	clients := make([]*benchClient, players)
	errs := make([]error, players)
	var wg sync.WaitGroup
	for i := range players {
		// Players come a few milliseconds apart, not all in the same
		// one: the server lets at most MaxPending connections be in
		// their handshake at once.
		time.Sleep(5 * time.Millisecond)
		wg.Go(func() {
			bc, err := dialBench(b, ctx, addr, entities, i, dial)
			if err != nil {
				errs[i] = err
				return
			}
			clients[i] = bc
			errs[i] = bc.c.RunHeadless(ctx)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			b.Errorf("client %d: %v", i, err)
		}
	}
	if b.Failed() {
		b.FailNow()
	}
	var worst netplay.ClientReport
	for _, bc := range clients {
		r := bc.c.Report()
		worst.Substituted = max(worst.Substituted, r.Substituted)
		worst.Adjustments = max(worst.Adjustments, r.Adjustments)
		worst.RTT = max(worst.RTT, r.RTT)
	}
	b.Logf("clients, worst of each: substituted %d, clock adjustments %d, best round trip %v", worst.Substituted, worst.Adjustments, worst.RTT)
	return clients
}

// reportMatch reports the server's figures as benchmark metrics.
func reportMatch(b *testing.B, rep netplay.Report) {
	var subst, inputs uint64
	var latency netplay.Percentiles
	for _, p := range rep.Players {
		subst += p.Substituted
		inputs += p.Inputs + p.Substituted
		latency.P95 = max(latency.P95, p.Latency.P95)
		latency.P99 = max(latency.P99, p.Latency.P99)
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(rep.TickTime.P50), "tick-p50-ms")
	b.ReportMetric(ms(rep.TickTime.P99), "tick-p99-ms")
	b.ReportMetric(ms(rep.TickTime.Max), "tick-max-ms")
	b.ReportMetric(float64(subst), "substituted")
	b.ReportMetric(ms(latency.P99), "arrival-to-fanout-p99-ms")
	b.Logf("server: %d ticks, %d players, tick time %v, %d of %d inputs substituted, worst player's arrival-to-fan-out p95 %v p99 %v",
		rep.Ticks, len(rep.Players), rep.TickTime, subst, inputs, latency.P95, latency.P99)
	for _, p := range rep.Players {
		if p.Desyncs > 0 {
			b.Errorf("player %d: %d desyncs", p.Player, p.Desyncs)
		}
	}
}

// BenchmarkMatch64Players is the capacity figure: 64 players of the demo
// scene (1,000 cubes) in one 60 Hz match for 1,200 ticks, at 0 latency.
// The server is the demo's (nebula-demo -serve, its own process, as a
// dedicated server is); the 64 clients share this process. Target: the
// server's tick time p99 <= 4 ms and no input substituted.
func BenchmarkMatch64Players(b *testing.B) {
	players, ticks := benchSize(64, 8), benchSize(1200, 120)
	for range b.N {
		srv, addr := startServer(b, "-players", strconv.Itoa(players), "-max-players", strconv.Itoa(players), "-ticks", strconv.Itoa(ticks), "-print-hash", "-log-level", "warn")
		clients := runClients(b, addr, players, 1000, nil)
		out := srv.wait(b, time.Minute)
		want := stateHash(b, "the server", out)
		for i, bc := range clients {
			if got := fmt.Sprintf("state-hash %d %016x", bc.e.World.Tick(), bc.e.World.Hash()); got != want {
				b.Fatalf("client %d ended with %q, the server with %q", i, got, want)
			}
		}
		reportServer(b, out)
	}
}

// reportServer reports the demo server's match report (its stdout) as
// benchmark metrics.
func reportServer(b *testing.B, out string) {
	tick := regexp.MustCompile(`server tick time: p50 (\S+) p95 (\S+) p99 (\S+) \(max (\S+)\)`).FindStringSubmatch(out)
	subst := regexp.MustCompile(`(\d+) of (\d+) inputs substituted`).FindStringSubmatch(out)
	if tick == nil || subst == nil {
		b.Fatalf("the server's report lacks its tick time or substitutions:\n%s", out)
	}
	for i, unit := range []string{"tick-p50-ms", "tick-p95-ms", "tick-p99-ms", "tick-max-ms"} {
		d, err := time.ParseDuration(tick[i+1])
		if err != nil {
			b.Fatalf("tick time %q: %v", tick[i+1], err)
		}
		b.ReportMetric(float64(d)/float64(time.Millisecond), unit)
	}
	n, _ := strconv.Atoi(subst[1])
	b.ReportMetric(float64(n), "substituted")
	b.Logf("server: %s; %s", tick[0], subst[0])
}

// BenchmarkMatchIntentToFanOut is the latency figure: 8 players of the
// demo scene in one 60 Hz match for 1,800 ticks, each input timed from the
// moment its client wrote it to its socket to the moment the confirmed
// tick holding it had reached every client's socket reader (so the
// server's fan-out to all 8 and loopback delivery are in it). Target: p95
// <= 11 ms.
func BenchmarkMatchIntentToFanOut(b *testing.B) {
	for range b.N {
		cfg := netplay.DefaultServerConfig()
		cfg.Players, cfg.MaxPlayers, cfg.Ticks = 8, 8, benchSize[uint64](1800, 120)
		m := startBenchServer(b, cfg, 1000, false)
		m.tap = newTap(8, cfg.Ticks)
		reportMatch(b, m.play(b, 8, 1000))
		l := m.tap.intentToFanOut()
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		b.ReportMetric(ms(l.Percentile(0.50)), "intent-p50-ms")
		b.ReportMetric(ms(l.Percentile(0.95)), "intent-p95-ms")
		b.ReportMetric(ms(l.Percentile(0.99)), "intent-p99-ms")
		b.Logf("intent to fan-out: %d inputs, p50 %v p95 %v p99 %v max %v", l.Count(),
			l.Percentile(0.50), l.Percentile(0.95), l.Percentile(0.99), l.Max())
	}
}

// tap times, on one clock, when each client wrote its input for a tick
// and when each client's reader received the tick's confirmation, by
// reading the messages (wire's layout: a uint32 length, a type byte, then
// for Input and Confirmed the first tick as a uint64 and the tick count)
// as they cross the clients' connections.
type tap struct {
	epoch time.Time
	mu    sync.Mutex
	wrote [][]time.Duration // [client][tick]: when its input for the tick was written
	read  [][]time.Duration // [client][tick]: when its confirmation was read
}

func newTap(clients int, ticks uint64) *tap {
	t := &tap{epoch: time.Now(), wrote: make([][]time.Duration, clients), read: make([][]time.Duration, clients)}
	for i := range clients {
		t.wrote[i] = make([]time.Duration, ticks+1)
		t.read[i] = make([]time.Duration, ticks+1)
	}
	return t
}

func (t *tap) dialer(client int) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &tapConn{Conn: conn, t: t, client: client}, nil
	}
}

// mark stores at for the ticks [first, first+n) of one client's row.
func (t *tap) mark(row []time.Duration, first uint64, n int, at time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := first; k < first+uint64(n) && k < uint64(len(row)); k++ {
		if row[k] == 0 {
			row[k] = at
		}
	}
}

// intentToFanOut returns, for every input written before its tick reached
// every client, the time from the write to the last client's read.
func (t *tap) intentToFanOut() *netplay.Latencies {
	t.mu.Lock()
	defer t.mu.Unlock()
	var l netplay.Latencies
	for k := 1; k < len(t.read[0]); k++ {
		var all time.Duration
		for c := range t.read {
			if t.read[c][k] == 0 {
				all = -1
				break
			}
			all = max(all, t.read[c][k])
		}
		if all < 0 {
			continue
		}
		for c := range t.wrote {
			if w := t.wrote[c][k]; w != 0 && w < all {
				l.Add(all - w)
			}
		}
	}
	return &l
}

// tapConn is a client's connection whose messages are timed. The client
// writes one whole message per Write (after the preamble); what it reads
// arrives in any pieces, so read messages are reassembled.
type tapConn struct {
	net.Conn
	t        *tap
	client   int
	wrotePre bool
	in       []byte
	readPre  bool
}

func (c *tapConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	at := time.Since(c.t.epoch)
	switch {
	case !c.wrotePre:
		c.wrotePre = true
	case n == len(p) && len(p) >= 14 && wire.Type(p[4]) == wire.TypeInput:
		c.t.mark(c.t.wrote[c.client], binary.LittleEndian.Uint64(p[5:]), int(p[13]), at)
	}
	return n, err
}

func (c *tapConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n == 0 {
		return n, err
	}
	at := time.Since(c.t.epoch)
	c.in = append(c.in, p[:n]...)
	if !c.readPre {
		if len(c.in) < wire.PreambleSize {
			return n, err
		}
		c.in, c.readPre = c.in[wire.PreambleSize:], true
	}
	for len(c.in) >= 4 {
		size := 4 + int(binary.LittleEndian.Uint32(c.in))
		if len(c.in) < size {
			break
		}
		if f := c.in[:size]; size >= 15 && wire.Type(f[4]) == wire.TypeConfirmed {
			c.t.mark(c.t.read[c.client], binary.LittleEndian.Uint64(f[5:]), int(binary.LittleEndian.Uint16(f[13:])), at)
		}
		c.in = c.in[size:]
	}
	if len(c.in) == 0 {
		c.in = nil // let a large message's memory go
	}
	return n, err
}

// BenchmarkLateJoinAfterAMinute is the late-join figure: a player joins a
// 60 Hz match of the demo scene (1,000 cubes) that has run for a minute,
// and is timed from the moment it dials to the moment it has simulated
// the tick the match is at (caught up, playing live). Two servers run it,
// started 3 s apart: one sends a joiner a snapshot of the tick it joins
// at (the demo's server), one keeps only the snapshot of tick 0 and sends
// the whole minute of confirmed ticks (SnapshotEvery beyond the match:
// the worst backlog a joiner can get). Target: live within 1 s. Each
// match goes on for 10 s after the join, and the joiner must end with
// the server's hash.
func BenchmarkLateJoinAfterAMinute(b *testing.B) {
	const entities = 1000
	joinAt := benchSize[uint64](3600, 120)
	ticks := joinAt + benchSize[uint64](600, 120)
	modes := []struct {
		name  string
		every uint64
	}{
		{"snapshot-of-the-join-tick", 0},
		{"the-whole-minute-of-ticks", 1 << 40},
	}
	for range b.N {
		joins := make([]time.Duration, len(modes))
		var wg sync.WaitGroup
		for i, mode := range modes {
			time.Sleep(time.Duration(i) * benchSize(3*time.Second, time.Second/2))
			wg.Go(func() {
				joins[i] = lateJoin(b, mode.every, entities, joinAt, ticks)
			})
		}
		wg.Wait()
		for i, mode := range modes {
			b.ReportMetric(float64(joins[i])/float64(time.Millisecond), "join-ms/"+mode.name)
			b.Logf("%s: live %v after dialling", mode.name, joins[i].Round(time.Millisecond))
		}
	}
}

// lateJoin runs one match of lateJoin's benchmark and returns the time
// from the joiner's dial to its catching up.
func lateJoin(b *testing.B, snapshotEvery uint64, entities int, joinAt, ticks uint64) time.Duration {
	cfg := netplay.DefaultServerConfig()
	cfg.Players, cfg.MaxPlayers, cfg.Ticks, cfg.SnapshotEvery = 1, 2, ticks, snapshotEvery
	m := startBenchServer(b, cfg, entities, false)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	first, err := dialBench(b, ctx, m.addr, entities, 0, nil)
	if err != nil {
		b.Error(err)
		return 0
	}
	firstDone := make(chan error, 1)
	go func() { firstDone <- first.c.RunHeadless(ctx) }()
	for first.c.Tick() < joinAt {
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	joiner, err := dialBench(b, ctx, m.addr, entities, 1, nil)
	if err != nil {
		b.Error(err)
		return 0
	}
	joinerDone := make(chan error, 1)
	go func() { joinerDone <- joiner.c.RunHeadless(ctx) }()
	for joiner.c.Tick() < first.c.Tick() {
		time.Sleep(time.Millisecond)
	}
	live := time.Since(start)
	for _, ch := range []chan error{firstDone, joinerDone} {
		if err := <-ch; err != nil {
			b.Error(err)
		}
	}
	if err := <-m.done; err != nil {
		b.Error(err)
	}
	if got, want := joiner.e.World.Hash(), m.e.World.Hash(); got != want {
		b.Errorf("the joiner ended with hash %016x, the server with %016x", got, want)
	}
	return live
}
