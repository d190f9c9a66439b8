package netplay

import (
	"io"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/sirupsen/logrus/hooks/test"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// A player whose connection ends before the tick it was to join at never
// joins: the report says it left at the next tick and joined at none (not
// that it played to the end), and its bytes, a snapshot taken within
// milliseconds, are a rate over a second, not megabytes a second.
func TestPlayerDroppedBeforeItsJoinTickIsReportedAsLeft(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultServerConfig()
	cfg.Scene = "report-test"
	cfg.Log, _ = test.NewNullLogger()
	s, err := NewServer(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	conn, other := net.Pipe()
	defer conn.Close()
	defer other.Close()
	go io.Copy(io.Discard, other)

	// The match is at tick 100; the late player was to join at 105.
	m := &s.m
	m.started, m.confirmed = true, 100
	p := &peer{id: 1, conn: conn, remote: "pipe", role: wire.RolePlayer, player: 1, readDone: make(chan struct{}),
		joinTick: 105, playerInputs: new(playerInputs), live: true}
	p.out = newOutbox(conn, DefaultOutboxLimit, nil)
	p.stats = PlayerReport{Player: 1}
	m.joins[105] = []wire.PlayerID{1}
	m.players, m.peers = append(m.players, p), append(m.peers, p)
	p.since = s.now()
	p.bytesIn.Store(180_000) // what it sent; a snapshot's worth
	m.gone(p, io.EOF)        // its connection ended, no goodbye
	p.out.wait(0)

	if slices.Contains(m.joins[105], 1) || len(m.players) != 0 {
		t.Errorf("the player still joins at 105 (%v) or is in the match (%d players)", m.joins[105], len(m.players))
	}
	rep := m.report()
	if len(rep.Players) != 1 {
		t.Fatalf("%d rows, want 1", len(rep.Players))
	}
	r := rep.Players[0]
	if r.JoinTick != 0 || r.LeftTick != 101 {
		t.Errorf("the row: joined at %d, left at %d; want never (0) and 101", r.JoinTick, r.LeftTick)
	}
	if r.Connected >= minRateTime {
		t.Fatalf("connected for %v: the test wants a connection shorter than %v", r.Connected, minRateTime)
	}
	if up := r.UpRate(); up != 180_000 {
		t.Errorf("up rate %.0f B/s, want 180000 (its bytes over a second, not over %v)", up, r.Connected)
	}
	var b strings.Builder
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "left at 101, never joined") || strings.Contains(b.String(), "-end") {
		t.Errorf("the report's text does not say the player left at 101 without joining:\n%s", b.String())
	}
}
