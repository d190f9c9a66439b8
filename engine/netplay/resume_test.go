package netplay_test

import (
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay"
)

// ResumeServer continues a match at its engine's tick; NewServer refuses
// such an engine and names ResumeServer; a match at tick 0, or past its
// last tick, is not resumed.
func TestResumeServerRefuses(t *testing.T) {
	e, _ := newTestEngine(t)
	cfg := netplay.DefaultServerConfig()
	cfg.Scene, cfg.Ticks = testScene, 5
	cfg.Log, _ = quietLog()
	if _, err := netplay.ResumeServer(e, cfg, netplay.ResumeConfig{}); err == nil || !strings.Contains(err.Error(), "tick 0") {
		t.Errorf("ResumeServer at tick 0 = %v, want a refusal", err)
	}
	for range 10 {
		if !e.StepTick(0) {
			t.Fatal(e.Err())
		}
	}
	if _, err := netplay.NewServer(e, cfg); err == nil || !strings.Contains(err.Error(), "ResumeServer") {
		t.Errorf("NewServer at tick 10 = %v, want a refusal naming ResumeServer", err)
	}
	if _, err := netplay.ResumeServer(e, cfg, netplay.ResumeConfig{}); err == nil || !strings.Contains(err.Error(), "ended at tick 5") {
		t.Errorf("ResumeServer past the match's end = %v, want a refusal", err)
	}
	cfg.Ticks = 0
	if _, err := netplay.ResumeServer(e, cfg, netplay.ResumeConfig{}); err != nil {
		t.Errorf("ResumeServer at tick 10: %v", err)
	}
}

// A resumed server tells its trace the tick it continues from as soon as
// it is made (an operator's tick gauge reads it, not 0, before the first
// new tick), and its report says which part of the match it ran: the
// ticks since it resumed, in its own run's time.
func TestResumedServerReportsItsPart(t *testing.T) {
	e, _ := newTestEngine(t)
	for range 10 {
		if !e.StepTick(0) {
			t.Fatal(e.Err())
		}
	}
	cfg := matchConfig(1, 40)
	cfg.Scene = testScene
	cfg.Log, _ = quietLog()
	var mu sync.Mutex
	var resumed []uint64
	var players [][2]int
	cfg.Trace = &netplay.ServerTrace{
		Resumed:        func(tick uint64) { mu.Lock(); resumed = append(resumed, tick); mu.Unlock() },
		PlayersChanged: func(p, s int) { mu.Lock(); players = append(players, [2]int{p, s}); mu.Unlock() },
	}
	srv, err := netplay.ResumeServer(e, cfg, netplay.ResumeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if !slices.Equal(resumed, []uint64{10}) {
		t.Errorf("Resumed calls %v once the server is made, want [10]", resumed)
	}
	mu.Unlock()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		srv.Close()
		t.Fatal("the resumed match did not end within 60 s")
	}
	rep := srv.Report()
	if rep.Ticks != 40 || rep.ResumedAt != 10 || rep.Duration <= 0 {
		t.Errorf("report: ticks %d, resumed at %d, duration %v; want 40, 10, the run's time", rep.Ticks, rep.ResumedAt, rep.Duration)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "match report: tick 40, resumed at tick 10: 30 ticks in "
	if first, _, _ := strings.Cut(b.String(), "\n"); !strings.HasPrefix(first, want) {
		t.Errorf("report's first line %q, want it to start %q", first, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(resumed, []uint64{10}) {
		t.Errorf("Resumed calls %v, want [10]", resumed)
	}
	if n := len(players); n > 0 && players[n-1] != [2]int{0, 0} {
		t.Errorf("PlayersChanged calls %v, want none or the last with 0 and 0", players)
	}
}
