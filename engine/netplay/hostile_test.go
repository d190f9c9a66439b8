package netplay_test

// Hostile clients: hand-written clients that speak the protocol with
// package wire alone and do what netplay.Client never does (flood wrong
// hashes, never read, keep a refused connection, churn), and the client's
// side of a server that drops it or dies. Loopback only; every wait is
// bounded.

import (
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// rawClient is a hand-written client: the protocol's messages, none of
// netplay.Client's manners.
type rawClient struct {
	conn net.Conn
	r    *wire.Reader
	wmu  sync.Mutex
	w    *wire.Writer
}

func dialRaw(addr string) (*rawClient, error) {
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &rawClient{conn: conn, r: wire.NewReader(conn, wire.MaxServerMessage), w: wire.NewWriter(conn)}, nil
}

// joinRaw dials addr, says hello as role for the schema fp and reads the
// Welcome: a raw client in the match. On failure the connection is closed.
func joinRaw(addr string, role wire.Role, fp uint64) (*rawClient, error) {
	rc, err := dialRaw(addr)
	if err != nil {
		return nil, err
	}
	if err := rc.hello(role, fp); err != nil {
		rc.conn.Close()
		return nil, err
	}
	if _, err := rc.welcome(); err != nil {
		rc.conn.Close()
		return nil, err
	}
	return rc, nil
}

// hello sends the preamble and a Hello of role for the schema fp, and
// reads the server's preamble.
func (rc *rawClient) hello(role wire.Role, fp uint64) error {
	rc.conn.SetDeadline(time.Now().Add(10 * time.Second))
	defer rc.conn.SetDeadline(time.Time{})
	if err := rc.w.WritePreamble(); err != nil {
		return err
	}
	if err := rc.send(&wire.Hello{Version: wire.Version, Role: role, Scene: testScene, Fingerprint: fp, Name: "raw"}); err != nil {
		return err
	}
	_, err := rc.r.ReadServerPreamble()
	return err
}

// send writes m; safe from several goroutines.
func (rc *rawClient) send(m wire.Message) error {
	rc.wmu.Lock()
	defer rc.wmu.Unlock()
	rc.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return rc.w.WriteMessage(m)
}

// next reads the next message, waiting at most 10 s.
func (rc *rawClient) next() (wire.Message, error) {
	rc.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	return rc.r.ReadMessage()
}

// welcome reads the server's answer to the Hello: its Welcome (and, for a
// late join, the Snapshot), or its Refuse as an error.
func (rc *rawClient) welcome() (*wire.Welcome, error) {
	m, err := rc.next()
	for err == nil {
		switch m := m.(type) {
		case *wire.Welcome:
			w := *m
			if w.SnapshotTick > 0 {
				if _, err := rc.next(); err != nil {
					return nil, err
				}
			}
			return &w, nil
		case *wire.Refuse:
			return nil, errors.New(m.String())
		}
		m, err = rc.next()
	}
	return nil, err
}

// fingerprint is the schema fingerprint of the engines newEngine makes.
func fingerprint(t testing.TB, newEngine func(testing.TB) *engine.Engine) uint64 {
	return newEngine(t).World.Schema().Fingerprint()
}

func testEngine(t testing.TB) *engine.Engine { e, _ := newTestEngine(t); return e }

// ballastEngine is the test game with 176 KiB more state, so that its
// snapshot is about the demo's at 1,000 cubes (179 KB).
func ballastEngine(t testing.TB) *engine.Engine {
	e, _ := newTestEngine(t)
	engine.NewResource(e.World, "ballast", [176 << 10]byte{1: 1})
	return e
}

// bigBallastEngine is the test game with 8 MiB more state: its snapshot
// is more than loopback's kernel buffers hold.
func bigBallastEngine(t testing.TB) *engine.Engine {
	e, _ := newTestEngine(t)
	engine.NewResource(e.World, "ballast", [8 << 20]byte{1: 1})
	return e
}

// floodTime is how long TestWrongHashFloodIsBounded floods: longer gives
// the steady figure of bytes out per wrong hash (-args -flood 30s).
var floodTime = flag.Duration("flood", 4*time.Second, "how long TestWrongHashFloodIsBounded sends wrong hashes")

// A flood of wrong hashes, 1,500 a second, costs the server at most one
// snapshot per ResyncEvery, MaxDumps dumps and a log line a second: not a
// 179 KB snapshot, a 1 MB dump and an ERROR line each.
func TestWrongHashFloodIsBounded(t *testing.T) {
	dir := t.TempDir()
	cfg := matchConfig(1, 0)
	cfg.DumpDir, cfg.MaxDumps = dir, 2
	ts := startServerWith(t, ballastEngine(t), cfg, false)
	rc, err := joinRaw(ts.addr, wire.RolePlayer, fingerprint(t, ballastEngine))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.conn.Close()

	// The attacker reads everything: bytes by message type.
	var (
		confirmed atomic.Uint64
		mu        sync.Mutex
		bytes     = map[wire.Type]int{}
		count     = map[wire.Type]int{}
	)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		var buf []byte
		for {
			rc.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			m, err := rc.r.ReadMessage()
			if err != nil {
				return
			}
			buf = wire.AppendMessage(buf[:0], m)
			mu.Lock()
			bytes[m.Type()] += len(buf)
			count[m.Type()]++
			mu.Unlock()
			if c, ok := m.(*wire.Confirmed); ok {
				confirmed.Store(c.First + uint64(len(c.Ticks)) - 1)
			}
		}
	}()
	total := func() (n int) {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bytes {
			n += b
		}
		return n
	}
	deadline := time.Now().Add(30 * time.Second)
	for confirmed.Load() < netplay.HashEvery && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if confirmed.Load() < netplay.HashEvery {
		t.Fatalf("the server confirmed %d ticks in 30 s", confirmed.Load())
	}

	// 1,500 wrong hashes a second for 4 s (as many as the machine
	// manages), each for the latest hashed tick the attacker has seen
	// confirmed.
	const rate = 1500
	flood := *floodTime
	logsBefore := len(ts.hook.AllEntries())
	before, sent := total(), 0
	start := time.Now()
	var batch []byte
	for time.Since(start) < flood {
		tick := confirmed.Load() / netplay.HashEvery * netplay.HashEvery
		batch = batch[:0]
		for n := int(time.Since(start).Seconds()*rate) - sent; n > 0 && len(batch) < 64*21; n-- {
			batch = wire.AppendMessage(batch, &wire.Hash{Tick: tick, Hash: 0xbad})
		}
		rc.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := rc.conn.Write(batch); err != nil {
			t.Fatalf("the server dropped the attacker: %v", err)
		}
		sent += len(batch) / 21
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	// Wait for what the server sent in answer: at least one resync (a
	// Desync and its snapshot) whose snapshot has arrived whole (a loaded
	// machine may take a while to simulate and send it).
	answered := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return count[wire.TypeSnapshot] >= 1 && count[wire.TypeSnapshot] == count[wire.TypeDesync]
	}
	for wait := time.Now().Add(30 * time.Second); !answered() && time.Now().Before(wait); {
		time.Sleep(10 * time.Millisecond)
	}
	out := total() - before
	mu.Lock()
	snaps, desyncs, resyncBytes := count[wire.TypeSnapshot], count[wire.TypeDesync], bytes[wire.TypeSnapshot]+bytes[wire.TypeDesync]
	mu.Unlock()
	perHash := float64(out) / float64(sent)
	t.Logf("%d wrong hashes in %v (%.0f a second): the server sent %d bytes (%.1f per wrong hash; %d bytes of %d snapshots and %d desyncs, the rest the match's ticks)",
		sent, elapsed.Round(time.Millisecond), float64(sent)/elapsed.Seconds(), out, perHash, resyncBytes, snaps, desyncs)

	allowed := 1 + int(elapsed/netplay.DefaultResyncEvery)
	if snaps < 1 || snaps > allowed || desyncs != snaps {
		t.Errorf("%d snapshots and %d desyncs sent during the flood, want 1 to %d of each (one per %v)", snaps, desyncs, allowed, netplay.DefaultResyncEvery)
	}
	dumps, _ := filepath.Glob(filepath.Join(dir, "desync-*-server.dump"))
	if len(dumps) < 1 || len(dumps) > cfg.MaxDumps {
		t.Errorf("%d dumps written, want 1 to MaxDumps (%d)", len(dumps), cfg.MaxDumps)
	}
	entries := ts.hook.AllEntries()[logsBefore:]
	errorLines, repeats := 0, 0
	for _, e := range entries {
		if e.Level == logrus.ErrorLevel {
			errorLines++
		}
		if n, ok := e.Data["repeats"].(int); ok {
			repeats += n
		}
	}
	seconds := int(elapsed/time.Second) + 2
	if errorLines > seconds || len(entries) > 4*seconds {
		t.Errorf("%d log lines (%d errors) for %d wrong hashes in %v, want at most a few a second", len(entries), errorLines, sent, elapsed)
	}
	if repeats == 0 {
		for _, e := range entries {
			t.Logf("%s %s %v", e.Level, e.Message, e.Data)
		}
		t.Errorf("no log line counts the repeats it stands for")
	}
	ts.srv.Close()
	<-readDone
}

// A refused client that goes on pinging is closed at once; a match's end
// is not held up by connections that linger (refused, or in their
// handshake): the server exits once its match is over, though its
// handshake timeout is an hour. Nothing here depends on how long the
// match lasts: the refusals and the silent connections come before the
// player, whose arrival starts the match.
func TestRefusedClientsAreClosedAndTheServerExits(t *testing.T) {
	const refused, silent = 100, 10
	cfg := matchConfig(1, 240)
	cfg.MaxSpectators = 0
	cfg.HandshakeTimeout = time.Hour // only the server's exit closes the silent connections
	ts := startServer(t, cfg)

	fp := fingerprint(t, testEngine)
	closed := make(chan time.Duration, refused)
	var pingers sync.WaitGroup
	for i := range refused {
		rc, err := dialRaw(ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.conn.Close()
		if err := rc.hello(wire.RoleSpectator, fp); err != nil {
			t.Fatal(err)
		}
		if _, err := rc.welcome(); err == nil || !strings.Contains(err.Error(), "match full") {
			t.Fatalf("spectator %d: %v, want a refusal: the match is full", i, err)
		}
		refusedAt := time.Now()
		// It goes on pinging, and reading, until the server closes it.
		stop := make(chan struct{})
		pingers.Add(1)
		go func() {
			defer pingers.Done()
			for n := int64(0); ; n++ {
				if rc.send(&wire.Ping{Time: time.Duration(n)}) != nil {
					return
				}
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		go func() {
			defer close(stop)
			rc.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			io.Copy(io.Discard, rc.conn)
			closed <- time.Since(refusedAt)
		}()
	}
	var worst time.Duration
	for range refused {
		select {
		case d := <-closed:
			worst = max(worst, d)
		case <-time.After(30 * time.Second):
			t.Fatal("a refused client's connection is still open 30 s after its refusal")
		}
	}
	pingers.Wait()
	t.Logf("%d refused clients that went on pinging: each closed within %v of its refusal", refused, worst.Round(time.Millisecond))

	// Connections in their handshake when the match ends: dialled before
	// the player, they are accepted before it (one listener accepts in
	// order), so they are in the server's hands once the player is in.
	for range silent {
		conn, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
	}
	a, err := dialClient(t, ts.addr, wire.RolePlayer, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := play(a)[0]; err != nil {
		t.Fatalf("the player stopped at tick %d: %v", a.c.Tick(), err)
	}
	var exit time.Time
	select {
	case err := <-ts.done:
		exit = time.Now()
		ts.done <- err
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not exit within 30 s of its match's end (its handshake timeout is an hour)")
	}
	var end time.Time
	for _, e := range ts.hook.AllEntries() {
		if e.Message == "match over" {
			end = e.Time
		}
	}
	if end.IsZero() {
		t.Fatal("no \"match over\" line")
	}
	t.Logf("the server exited %v after its match's end, with %d connections in their handshake", exit.Sub(end).Round(time.Millisecond), silent)
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// residentKB is the process's resident memory, from /proc (0 elsewhere).
func residentKB() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// churnCycles is how many spectators join and leave in
// TestChurnKeepsMemoryFlat.
const churnCycles = 10000

// Spectators that join and leave, 10,000 of them, leave the server's
// memory where it was: a client that left is released (the report keeps
// the latest rows, and counts the others).
func TestChurnKeepsMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 connections")
	}
	cfg := matchConfig(1, 0)
	discard := logrus.New()
	discard.SetOutput(io.Discard)
	cfg.Log = discard // a test hook would keep every line
	ts := startServer(t, cfg)
	fp := fingerprint(t, testEngine)
	player, err := joinRaw(ts.addr, wire.RolePlayer, fp)
	if err != nil {
		t.Fatal(err)
	}
	defer player.conn.Close()
	go io.Copy(io.Discard, player.conn) // it reads, and sends no input: substituted
	go func() {
		for player.send(&wire.Ping{}) == nil {
			time.Sleep(time.Second)
		}
	}()

	cycle := func() error {
		rc, err := joinRaw(ts.addr, wire.RoleSpectator, fp)
		if err != nil {
			return err
		}
		defer rc.conn.Close()
		if err := rc.send(&wire.Bye{}); err != nil {
			return err
		}
		// The server closes the connection once it has let the client go.
		rc.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.Copy(io.Discard, rc.conn); err != nil {
			return err
		}
		return nil
	}
	run := func(n int) {
		const workers = 4
		var wg sync.WaitGroup
		var failed atomic.Pointer[error]
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n && failed.Load() == nil; i += workers {
					if err := cycle(); err != nil {
						failed.Store(&err)
					}
				}
			}()
		}
		wg.Wait()
		if err := failed.Load(); err != nil {
			t.Fatalf("a spectator's join and leave: %v", *err)
		}
	}
	heap0, rss0 := heapInUse(), residentKB()
	run(1000)
	heap1, rss1 := heapInUse(), residentKB()
	run(churnCycles - 1000)
	heap2, rss2 := heapInUse(), residentKB()
	t.Logf("heap in use after GC: %d KiB at 0 cycles, %d KiB at 1,000, %d KiB at %d; resident: %d, %d, %d KiB",
		heap0>>10, heap1>>10, heap2>>10, churnCycles, rss0, rss1, rss2)
	// Flat within 10% once the report's rows are full (256), with 512 KiB
	// for the heap's own noise.
	if heap2 > heap1+heap1/10+512<<10 {
		t.Errorf("heap in use grew from %d KiB after 1,000 joins and leaves to %d KiB after %d, want within 10%%", heap1>>10, heap2>>10, churnCycles)
	}
	ts.srv.Close()
	rep := ts.wait(t)
	if got := len(rep.Players) + rep.Omitted; got != churnCycles+1 || rep.Spectators != churnCycles || len(rep.Players) > 257 {
		t.Errorf("report: %d rows, %d omitted, %d spectators; want %d clients in all, %d spectators, at most 257 rows",
			len(rep.Players), rep.Omitted, rep.Spectators, churnCycles+1, churnCycles)
	}
}

// muteConn swallows what the client writes once muted: a client that
// stops sending, as far as the server can tell.
type muteConn struct {
	net.Conn
	muted atomic.Bool
}

func (c *muteConn) Write(b []byte) (int, error) {
	if c.muted.Load() {
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// A client the server drops says so, and why, in one line.
func TestClientSaysTheServerDroppedIt(t *testing.T) {
	cfg := matchConfig(1, 0)
	cfg.IdleTimeout = time.Second
	ts := startServer(t, cfg)
	var mc *muteConn
	a, err := dialClient(t, ts.addr, wire.RolePlayer, func(c *netplay.ClientConfig) {
		c.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			mc = &muteConn{Conn: conn}
			return mc, nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	mc.muted.Store(true)
	err = play(a)[0]
	want := "dropped this client: this client sent nothing for 1s (the server's idle timeout)"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("RunHeadless: %v, want one line saying %q", err, want)
	}
	t.Logf("the client's line: %v", err)
}

// udpRelay forwards one client's datagrams to a server and back until it
// is cut, and then drops them all: a server that died without a word, as
// far as the client can tell.
type udpRelay struct {
	pc     net.PacketConn
	up     net.Conn
	client atomic.Pointer[net.Addr]
	cut    atomic.Bool
}

func startUDPRelay(t *testing.T, server string) *udpRelay {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	up, err := net.Dial("udp", server)
	if err != nil {
		t.Fatal(err)
	}
	r := &udpRelay{pc: pc, up: up}
	t.Cleanup(func() { pc.Close(); up.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			r.client.Store(&from)
			if !r.cut.Load() {
				up.Write(buf[:n])
			}
		}
	}()
	go func() {
		buf := make([]byte, 2048)
		for {
			n, err := up.Read(buf)
			if err != nil {
				return
			}
			if to := r.client.Load(); to != nil && !r.cut.Load() {
				pc.WriteTo(buf[:n], *to)
			}
		}
	}()
	return r
}

// A UDP client whose server dies notices within 2 s, says the server
// stopped answering, and closes without waiting for it.
func TestUDPClientNoticesADeadServer(t *testing.T) {
	ts := startServerOn(t, matchConfig(1, 0), true)
	relay := startUDPRelay(t, ts.addr)
	a, err := dialClient(t, relay.pc.LocalAddr().String(), wire.RolePlayer, func(c *netplay.ClientConfig) { c.Transport = netplay.UDP })
	if err != nil {
		t.Fatal(err)
	}
	cut := make(chan time.Time, 1)
	go func() {
		for a.c.Tick() < 30 {
			time.Sleep(5 * time.Millisecond)
		}
		cut <- time.Now()
		relay.cut.Store(true)
	}()
	err = play(a)[0]
	noticed := time.Since(<-cut)
	start := time.Now()
	a.c.Close()
	closing := time.Since(start)
	t.Logf("the client noticed the dead server %v after it died and closed in %v: %v", noticed.Round(time.Millisecond), closing.Round(time.Millisecond), err)
	if err == nil || !strings.Contains(err.Error(), "stopped answering") {
		t.Fatalf("RunHeadless: %v, want an error saying the server stopped answering", err)
	}
	// 1.75 s by design (the idle timeout and one more read); before, 5 s,
	// and Close waited 2 s more. A busy machine may add to it.
	if noticed > 4*time.Second || closing > time.Second {
		t.Errorf("noticed after %v and closed in %v, want about 1.5 s and at once", noticed, closing)
	}
}

// A client that does not read is dropped once what it left unread passes
// the server's small cap (here 4 KiB beyond its largest message, the late
// join's snapshot of 8 MiB, more than the kernel's buffers hold: two
// seconds of the match's ticks): logged once, and sent why, which it reads
// once it reads again.
func TestServerDropsAClientThatDoesNotRead(t *testing.T) {
	cfg := matchConfig(1, 0)
	cfg.OutboxLimit = 4 << 10
	ts := startServerWith(t, bigBallastEngine(t), cfg, false)
	fp := fingerprint(t, bigBallastEngine)
	player, err := dialRaw(ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer player.conn.Close()
	if err := player.hello(wire.RolePlayer, fp); err != nil {
		t.Fatal(err)
	}
	// Once a tick is confirmed, a joiner gets a snapshot.
	for {
		m, err := player.next()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.(*wire.Confirmed); ok {
			break
		}
	}
	go io.Copy(io.Discard, player.conn)

	conn, err := net.DialTimeout("tcp", ts.addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rc := &rawClient{conn: conn, r: wire.NewReader(conn, wire.MaxServerMessage), w: wire.NewWriter(conn)}
	if err := rc.hello(wire.RoleSpectator, fp); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !hasLog(ts, "dropped a connection that reads too slowly") {
		if time.Now().After(deadline) {
			t.Fatal("the server did not drop the client that does not read within 30 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	var last wire.Message
	for {
		m, err := rc.next()
		if err != nil {
			break
		}
		last = m
		if r, ok := m.(*wire.Refuse); ok {
			c := *r
			last = &c
		}
	}
	r, ok := last.(*wire.Refuse)
	if !ok || r.Reason != wire.ReasonDropped || !strings.Contains(r.Text, "reads too slowly") {
		t.Errorf("the client's last message: %#v, want a Refuse (dropped) saying it reads too slowly", last)
	}
	n := 0
	for _, e := range ts.hook.AllEntries() {
		if e.Data["kind"] == "slow reader" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d log lines of kind \"slow reader\", want 1", n)
	}
}

// hasLog reports whether the server logged a line with message msg.
func hasLog(ts *testServer, msg string) bool {
	for _, e := range ts.hook.AllEntries() {
		if e.Message == msg {
			return true
		}
	}
	return false
}
