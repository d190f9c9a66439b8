package matchlog

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/engine/replay"
)

const testScene = "matchlog-test"

// hashes records the state hash at the end of every tick an engine runs.
type hashes struct {
	mu sync.Mutex
	h  map[uint64]uint64
	// at, when not nil, is closed once the tick reaches atTick.
	at     chan struct{}
	atTick uint64
}

func (h *hashes) PreTick()                                {}
func (h *hashes) BeginTick(*engine.TickInfo)              {}
func (h *hashes) JobApplied(uint64, engine.JobID, []byte) {}
func (h *hashes) EndTick(tick uint64, w *engine.World) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.h[tick] = w.Hash()
	if h.at != nil && tick >= h.atTick {
		close(h.at)
		h.at = nil
	}
}

func (h *hashes) get(tick uint64) (uint64, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.h[tick]
	return v, ok
}

// newGame is a tiny deterministic game: a resource folding in every
// player's input, every join and leave and a draw of the RNG each tick,
// and a job every 20 ticks whose result lands 3 ticks later. Its hooks
// record its hashes.
func newGame(h replay.Header) (*engine.Engine, *hashes, error) {
	cfg := engine.DefaultConfig()
	cfg.Seed = h.Seed
	e, err := engine.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	sum := engine.NewResource(e.World, "sum", uint64(0))
	mix := e.Jobs.Register("mix", func(in []byte, _ bool) []byte {
		out := make([]byte, len(in))
		for i, b := range in {
			out[i] = b*7 + 1
		}
		return out
	}, func(c *engine.FixedContext, _, out []byte) {
		for _, b := range out {
			*sum.Ptr() = *sum.Ptr()*131 + uint64(b)
		}
	})
	e.AddSystem(engine.StageScripts, "fold", func(c *engine.FixedContext) {
		s := sum.Ptr()
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
		if c.Tick%20 == 0 {
			c.Jobs.Submit(mix, []byte{byte(*s), byte(*s >> 8)}, 3)
		}
	})
	hs := &hashes{h: map[uint64]uint64{}}
	if _, err := e.AddTickHook(hs); err != nil {
		return nil, nil, err
	}
	return e, hs, nil
}

func testHeader(e *engine.Engine) replay.Header {
	return replay.Header{TickRate: 60, Seed: 3, HashEvery: 60, Scene: testScene, JobMode: engine.JobsDeterministic, Schema: e.World.Schema()}
}

func quiet() logrus.FieldLogger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return l
}

func serverConfig(ticks uint64) netplay.ServerConfig {
	cfg := netplay.DefaultServerConfig()
	cfg.Scene, cfg.Players, cfg.Ticks, cfg.Log = testScene, 2, ticks, quiet()
	cfg.SnapshotEvery = 30
	return cfg
}

// serve serves srv on a loopback port; the channel has Serve's result.
func serve(t testing.TB, srv *netplay.Server) (string, chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	return ln.Addr().String(), done
}

// script is a bot's input: keys held over spans that differ per bot.
func script(seed int) func(tick uint64, due time.Duration, in *input.Queue) {
	return func(tick uint64, due time.Duration, in *input.Queue) {
		key := input.KeyArrowLeft + input.Key(seed%4)
		switch (tick + 7*uint64(seed)) % 40 {
		case 0:
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: key})
		case 20:
			in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: key})
		}
	}
}

// bot is a headless client of the test game.
type bot struct {
	e    *engine.Engine
	done chan error
}

// startBot dials addr and runs a headless player (or spectator) until the
// match ends or its connection does.
func startBot(t testing.TB, addr string, role wire.Role, seed int) *bot {
	t.Helper()
	e, _, err := newGame(replay.Header{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cfg := netplay.DefaultClientConfig()
	cfg.Scene, cfg.Fingerprint, cfg.Log, cfg.Role = testScene, e.World.Schema().Fingerprint(), quiet(), role
	b := &bot{e: e, done: make(chan error, 1)}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		c, err := netplay.Dial(ctx, addr, cfg) // a player waits here for the match to start
		if err != nil {
			b.done <- err
			return
		}
		defer c.Close()
		if err := c.Attach(e, script(seed)); err != nil {
			b.done <- err
			return
		}
		b.done <- c.RunHeadless(ctx)
	}()
	return b
}

// crashed is what a crashed match left: its log and every tick's hash.
type crashed struct {
	path    string
	hashes  map[uint64]uint64
	written uint64 // a tick known to be written before the crash
	last    uint64 // the last tick the server ran
}

// runAndAbandon runs a server of the test game with two bots, logging to
// a new log, and abandons the server and its log as a kill would once
// its tick reaches at: the log's writer stops where it is.
func runAndAbandon(t *testing.T, cfg Config, at uint64) crashed {
	path := filepath.Join(t.TempDir(), "match.nebreplay")
	e, hs, err := newGame(replay.Header{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	hs.at, hs.atTick = make(chan struct{}), at
	reached := hs.at
	scfg := serverConfig(0)
	srv, err := netplay.NewServer(e, scfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Log = quiet()
	lg, err := Create(path, e, testHeader(e), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.AddTickHook(lg); err != nil {
		t.Fatal(err)
	}
	addr, done := serve(t, srv)
	b1 := startBot(t, addr, wire.RolePlayer, 1)
	b2 := startBot(t, addr, wire.RolePlayer, 2)
	select {
	case <-reached:
	case err := <-done:
		t.Fatalf("the server ended before tick %d: %v", at, err)
	}
	lg.abandon()
	written := lg.Written()
	srv.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-b1.done
	<-b2.done
	return crashed{path: path, hashes: hs.h, written: written, last: e.World.Tick()}
}

// resumeAndFinish resumes the crashed match, checks the replayed ticks'
// hashes against the crashed server's, runs the match to tick end with a
// late joiner and a spectator, closes the log and verifies it from its
// first tick: every tick's hash is the crashed server's up to the
// resumed tick and the resumed server's after.
func resumeAndFinish(t *testing.T, c crashed, end uint64) {
	var live *hashes
	res, err := Resume(c.path, ResumeConfig{
		Build: func(h replay.Header) (*engine.Engine, error) {
			e, hs, err := newGame(h)
			live = hs
			return e, err
		},
		Server: serverConfig(end),
		Seats:  netplay.ResumeConfig{SeatTicks: 45},
		Log:    Config{SnapshotEvery: 50, SyncEvery: 6, SyncInterval: 100 * time.Millisecond, Log: quiet()},
	})
	if err != nil {
		t.Fatal(err)
	}
	k := res.Tick
	t.Logf("crashed at tick %d (%d known written); resumed at tick %d from the snapshot of tick %d (%d ticks replayed, %d bytes cut) in %v; %d ticks lost",
		c.last, c.written, k, res.SnapshotTick, res.Replayed, res.Cut, res.Took, c.last-k)
	if k < c.written || k > c.last {
		t.Fatalf("resumed at tick %d: want from %d (written before the crash) to %d (the last run)", k, c.written, c.last)
	}
	if res.SnapshotTick == 0 || res.SnapshotTick > k || k-res.SnapshotTick > 50 {
		t.Errorf("restored the snapshot of tick %d to resume at %d: want one of the last 50 ticks", res.SnapshotTick, k)
	}
	for tick := res.SnapshotTick + 1; tick <= k; tick++ {
		if got, _ := live.get(tick); got != c.hashes[tick] {
			t.Fatalf("replayed tick %d: hash %016x, the crashed server had %016x", tick, got, c.hashes[tick])
		}
	}

	addr, done := serve(t, res.Server)
	late := startBot(t, addr, wire.RolePlayer, 3)
	spec := startBot(t, addr, wire.RoleSpectator, 0)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]*bot{"late joiner": late, "spectator": spec} {
		if err := <-b.done; err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if b.e.World.Tick() != end || b.e.World.Hash() != res.Engine.World.Hash() {
			t.Errorf("%s ended at tick %d, hash %016x; the server at %d, %016x", name, b.e.World.Tick(), b.e.World.Hash(), end, res.Engine.World.Hash())
		}
	}
	rep := res.Server.Report()
	if rep.Desyncs != 0 || rep.Ticks != end {
		t.Errorf("report: %d desyncs, %d ticks; want 0 and %d", rep.Desyncs, rep.Ticks, end)
	}
	if err := res.Log.Close(res.Engine.World.Hash()); err != nil {
		t.Fatal(err)
	}

	// The whole log, before and after the crash, is one run.
	data, err := os.ReadFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	e, check, err := newGame(r.Header)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Verify(e, r); err != nil {
		t.Fatal(err)
	}
	if r.Records() != end {
		t.Fatalf("the log has %d ticks, want %d", r.Records(), end)
	}
	for tick := uint64(1); tick <= end; tick++ {
		want := c.hashes[tick]
		if tick > k {
			want, _ = live.get(tick)
		}
		if got, _ := check.get(tick); got != want {
			t.Fatalf("tick %d: the log replays to hash %016x, the match had %016x", tick, got, want)
		}
	}
}

// A server logs its match; abandoned as a kill would leave it, its log
// resumes: the replayed ticks have the crashed server's hashes, the match
// goes on with a late joiner and a spectator who agree with the server,
// and the log, continued in the same file, verifies from its first tick
// with every tick's hash that of the match as it ran.
func TestResumeAfterAbandon(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  Config
		torn []byte // bytes the crash left after the last whole chunk
	}{
		{"fsync every tick", Config{SnapshotEvery: 50, SyncEvery: 0}, nil},
		{"group commit", Config{SnapshotEvery: 50, SyncEvery: 6, SyncInterval: 100 * time.Millisecond}, nil},
		{"torn tail", Config{SnapshotEvery: 50, SyncEvery: 6}, []byte("T\x2a\x00\x00\x00 a chunk cut short by a crash")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := runAndAbandon(t, tt.cfg, 130)
			if tt.torn != nil {
				f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.Write(tt.torn)
				f.Close()
			}
			resumeAndFinish(t, c, c.last+120)
		})
	}
}

// A log whose match ended verifies as it is, and is not resumed.
func TestLogOfAnEndedMatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "match.nebreplay")
	e, hs, err := newGame(replay.Header{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := netplay.NewServer(e, serverConfig(150))
	if err != nil {
		t.Fatal(err)
	}
	var writes, syncs int
	var mu sync.Mutex
	trace := &netplay.ServerTrace{LogWritten: func(_ time.Duration, synced bool) {
		mu.Lock()
		defer mu.Unlock()
		writes++
		if synced {
			syncs++
		}
	}}
	lg, err := Create(path, e, testHeader(e), Config{SnapshotEvery: 50, SyncEvery: 10, Trace: trace, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.AddTickHook(lg); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(path, e, testHeader(e), DefaultConfig()); !errors.Is(err, os.ErrExist) {
		t.Errorf("Create over an existing log = %v, want ErrExist", err)
	}
	addr, done := serve(t, srv)
	b1 := startBot(t, addr, wire.RolePlayer, 1)
	b2 := startBot(t, addr, wire.RolePlayer, 2)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-b1.done
	<-b2.done
	if err := lg.Close(e.World.Hash()); err != nil {
		t.Fatal(err)
	}
	if lg.Written() != 150 || lg.Durable() != 150 {
		t.Errorf("written to tick %d, durable to %d; want 150", lg.Written(), lg.Durable())
	}
	mu.Lock()
	if writes == 0 || syncs == 0 || syncs > writes {
		t.Errorf("%d writes, %d fsyncs traced", writes, syncs)
	}
	t.Logf("%d writes, %d fsyncs for 150 ticks (SyncEvery 10)", writes, syncs)
	mu.Unlock()

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stats.Snapshots != 2 || r.Records() != 150 {
		t.Errorf("%d snapshots, %d ticks; want 2 (before ticks 51 and 101) and 150", r.Stats.Snapshots, r.Records())
	}
	ve, check, err := newGame(r.Header)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Verify(ve, r); err != nil {
		t.Fatal(err)
	}
	for tick := uint64(1); tick <= 150; tick++ {
		if a, _ := check.get(tick); a != hs.h[tick] {
			t.Fatalf("tick %d: replayed hash %016x, the server's %016x", tick, a, hs.h[tick])
		}
	}
	_, err = Resume(path, ResumeConfig{Server: serverConfig(0)})
	if err == nil {
		t.Error("Resume of an ended match's log succeeded")
	}
}
