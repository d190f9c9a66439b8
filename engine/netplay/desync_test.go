package netplay_test

// The server's answer to a client out of sync, whatever the order in which
// its hashes, the match's end and the answer cross: each test makes one
// order happen by waiting for the events, not for time.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// readUntil reads rc's messages until one that stop accepts, and returns
// them all (that one last).
func readUntil(t *testing.T, rc *rawClient, stop func(wire.Message) bool) []wire.Message {
	t.Helper()
	var got []wire.Message
	for {
		m, err := rc.next()
		if err != nil {
			t.Fatalf("reading the server's messages: %v (after %d)", err, len(got))
		}
		m = copyMessage(t, m)
		got = append(got, m)
		if stop(m) {
			return got
		}
	}
}

// copyMessage copies m out of the reader's buffers (the next read reuses
// them).
func copyMessage(t *testing.T, m wire.Message) wire.Message {
	t.Helper()
	b := wire.AppendMessage(nil, m)
	r := wire.NewReader(bytes.NewReader(b), wire.MaxServerMessage)
	c, err := r.ReadMessage()
	if err != nil {
		t.Fatalf("copying a %v: %v", m.Type(), err)
	}
	return c
}

// confirmedThrough reports whether m is a Confirmed whose last tick is at
// least tick.
func confirmedThrough(tick uint64) func(wire.Message) bool {
	return func(m wire.Message) bool {
		c, ok := m.(*wire.Confirmed)
		return ok && c.First+uint64(len(c.Ticks))-1 >= tick
	}
}

// types names the messages' types, for an error.
func types(ms []wire.Message) []string {
	var s []string
	for _, m := range ms {
		s = append(s, m.Type().String())
	}
	return s
}

func isType(t wire.Type) func(wire.Message) bool {
	return func(m wire.Message) bool { return m.Type() == t }
}

// A wrong hash that reaches the server after the match's end (a client
// behind it: the server caught up after a stall and ended the match
// first) is answered: the Desync and a snapshot of the last tick go out
// after the End, before the server closes the connection. The client's
// later hashes, of ticks up to that snapshot, were computed before it
// restored it: they are not a new desync.
func TestWrongHashAfterTheEndIsAnswered(t *testing.T) {
	const ticks = 2 * netplay.HashEvery
	cfg := matchConfig(1, ticks)
	ts := startServer(t, cfg)
	rc, err := joinRaw(ts.addr, wire.RolePlayer, fingerprint(t, testEngine))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.conn.Close()
	got := readUntil(t, rc, isType(wire.TypeEnd))
	if end := got[len(got)-1].(*wire.End); end.Tick != ticks {
		t.Fatalf("the match ended at tick %d, want %d", end.Tick, ticks)
	}
	// The match is over; the hashes of its two hashed ticks arrive now.
	if err := rc.send(&wire.Hash{Tick: netplay.HashEvery, Hash: 0xbad}); err != nil {
		t.Fatal(err)
	}
	got = readUntil(t, rc, isType(wire.TypeSnapshot))
	var desync *wire.Desync
	for _, m := range got {
		if d, ok := m.(*wire.Desync); ok {
			desync = d
		}
	}
	if desync == nil || desync.Tick != netplay.HashEvery || desync.Client != 0xbad {
		t.Fatalf("the answer to a wrong hash after the end: %v (%+v), want a Desync of tick %d, then the Snapshot", types(got), desync, netplay.HashEvery)
	}
	if snap := got[len(got)-1].(*wire.Snapshot); snap.Tick != ticks {
		t.Errorf("the resynchronisation's snapshot is of tick %d, want the last, %d", snap.Tick, ticks)
	}
	if err := rc.send(&wire.Hash{Tick: ticks, Hash: 0xbad}); err != nil {
		t.Fatal(err)
	}
	if err := rc.send(&wire.Bye{}); err != nil {
		t.Fatal(err)
	}
	// Nothing more, and the server closes the connection once the client
	// has said goodbye (it does not wait for its drain time).
	for {
		m, err := rc.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("after the goodbye: %v, want the server to close the connection", err)
		}
		if m.Type() == wire.TypeDesync || m.Type() == wire.TypeSnapshot {
			t.Errorf("a %v in answer to the hash of a tick up to the resynchronisation's snapshot", m.Type())
		}
	}
	rep := ts.wait(t)
	if rep.Desyncs != 1 || len(rep.Players) != 1 || rep.Players[0].Desyncs != 1 || rep.Players[0].Hashes != 1 {
		t.Errorf("report: %d desyncs, players %+v; want 1 desync, of 1 hash compared", rep.Desyncs, rep.Players)
	}
}

// A wrong hash within the resync interval is not dropped: the client's
// resynchronisation is due, and the match's end sends it (the Desync of
// that hash and a snapshot of the last tick) before the End.
func TestThrottledResyncIsSentAtTheEnd(t *testing.T) {
	cfg := matchConfig(1, 0)
	cfg.ResyncEvery = time.Hour
	var desyncs, resyncs atomic.Int32
	cfg.Trace = &netplay.ServerTrace{Desync: func() { desyncs.Add(1) }, Resync: func() { resyncs.Add(1) }}
	ts := startServer(t, cfg)
	rc, err := joinRaw(ts.addr, wire.RolePlayer, fingerprint(t, testEngine))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.conn.Close()
	readUntil(t, rc, confirmedThrough(netplay.HashEvery))
	if err := rc.send(&wire.Hash{Tick: netplay.HashEvery, Hash: 0xbad}); err != nil {
		t.Fatal(err)
	}
	got := readUntil(t, rc, isType(wire.TypeSnapshot))
	first := got[len(got)-1].(*wire.Snapshot).Tick
	// A wrong hash of a tick past that snapshot: a desync again, within
	// the interval.
	second := (first/netplay.HashEvery + 1) * netplay.HashEvery
	readUntil(t, rc, confirmedThrough(second))
	if err := rc.send(&wire.Hash{Tick: second, Hash: 0xbad2}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); desyncs.Load() < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server saw %d desyncs in 30 s, want 2", desyncs.Load())
		}
	}
	if n := resyncs.Load(); n != 1 {
		t.Fatalf("%d resynchronisations within the interval, want 1", n)
	}
	ts.srv.Close()
	got = readUntil(t, rc, isType(wire.TypeEnd))
	end := got[len(got)-1].(*wire.End)
	var desync *wire.Desync
	var snap *wire.Snapshot
	for _, m := range got {
		switch m := m.(type) {
		case *wire.Desync:
			desync = m
		case *wire.Snapshot:
			snap = m
		}
	}
	if desync == nil || desync.Tick != second || desync.Client != 0xbad2 || snap == nil || snap.Tick != end.Tick {
		t.Errorf("before the End of tick %d the server sent %v (%+v); want the due Desync of tick %d and a snapshot of tick %d", end.Tick, types(got), desync, second, end.Tick)
	}
	if n := resyncs.Load(); n != 2 {
		t.Errorf("%d resynchronisations, want 2", n)
	}
}

// A client that has simulated the match's last tick and said goodbye is
// not done while the server may still answer its last hash: a Desync and
// a snapshot that come after the goodbye are restored before RunHeadless
// returns.
func TestClientRestoresAResyncThatComesAfterItsGoodbye(t *testing.T) {
	const ticks = netplay.HashEvery
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// The server's world: the test game with a desync of its own at tick
	// 30, so that the client's world differs from it at the last tick.
	se, sg := newTestEngine(t)
	sg.perturbAt = 30
	for n := uint64(1); n <= ticks; n++ {
		if !se.StepTick(engine.TickTime(n, 60)) {
			t.Fatal(se.Err())
		}
	}
	want := se.World.Hash()
	fp := se.World.Schema().Fingerprint()
	served := make(chan error, 1)
	go func() { served <- serveOneSpectator(ln, fp, ticks, se.Snapshot(), want) }()

	tc, err := dialClient(t, ln.Addr().String(), wire.RoleSpectator, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := tc.c.RunHeadless(ctx); err != nil {
		t.Fatalf("RunHeadless: %v", err)
	}
	if err := <-served; err != nil {
		t.Fatalf("the server: %v", err)
	}
	if got := tc.e.World.Hash(); got != want || tc.e.World.Tick() != ticks {
		t.Errorf("the client ended at tick %d with hash %016x, want the server's snapshot: tick %d, %016x", tc.e.World.Tick(), got, ticks, want)
	}
	if r := tc.c.Report(); r.Desyncs != 1 || r.Resyncs != 1 {
		t.Errorf("client: %d desyncs, %d resyncs; want 1 and 1", r.Desyncs, r.Resyncs)
	}
}

// serveOneSpectator is a server of one spectator, by hand: it welcomes it,
// sends ticks empty confirmed ticks and the End, reads until the client's
// goodbye (its hash of the last tick before it), and only then answers
// that hash with a Desync and snap (of the last tick, whose hash is
// hash), and closes its side of the connection.
func serveOneSpectator(ln net.Listener, fp uint64, ticks uint64, snap []byte, hash uint64) error {
	conn, err := ln.Accept()
	if err != nil {
		return err
	}
	answered := false
	defer func() {
		if !answered {
			conn.Close()
		}
	}()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	r := wire.NewReader(conn, wire.MaxClientMessage)
	w := wire.NewWriter(conn)
	if _, err := r.ReadClientPreamble(); err != nil {
		return err
	}
	if err := w.WritePreamble(); err != nil {
		return err
	}
	if _, err := r.ReadMessage(); err != nil {
		return err
	}
	msgs := []wire.Message{
		&wire.Welcome{Player: wire.NoPlayer, TickRate: 60, Scene: testScene, Fingerprint: fp, FirstTick: 1},
		&wire.Confirmed{First: 1, Ticks: make([]wire.ConfirmedTick, ticks)},
		&wire.End{Tick: ticks, Reason: wire.EndTicks},
	}
	for _, m := range msgs {
		if err := w.WriteMessage(m); err != nil {
			return err
		}
	}
	var last *wire.Hash
	for {
		m, err := r.ReadMessage()
		if err != nil {
			return err
		}
		if h, ok := m.(*wire.Hash); ok {
			c := *h
			last = &c
		}
		if m.Type() == wire.TypeBye {
			break
		}
	}
	if last == nil || last.Tick != ticks {
		return errors.New("the client said goodbye without its hash of the last tick")
	}
	if last.Hash == hash {
		return errors.New("the client's hash is the server's: no desync to answer")
	}
	for _, m := range []wire.Message{&wire.Desync{Tick: ticks, Server: hash, Client: last.Hash}, &wire.Snapshot{Tick: ticks, Data: snap}} {
		if err := w.WriteMessage(m); err != nil {
			return err
		}
	}
	// Close the sending side and read until the client closes its own:
	// closing with bytes unread would reset the connection, and the reset
	// discard what the client has not read yet.
	answered = true
	conn.(*net.TCPConn).CloseWrite()
	go func() {
		io.Copy(io.Discard, conn)
		conn.Close()
	}()
	return nil
}
