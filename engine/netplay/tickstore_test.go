package netplay

import (
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// confirmedRun returns a Confirmed of n ticks from first; tick t's Leaves holds t,
// so that each tick can be told apart.
func confirmedRun(first uint64, n int) *wire.Confirmed {
	m := &wire.Confirmed{First: first}
	for i := range n {
		m.Ticks = append(m.Ticks, wire.ConfirmedTick{Leaves: []wire.PlayerID{wire.PlayerID(first + uint64(i))}})
	}
	return m
}

// The store hands out the confirmed ticks in order, across the growth of
// its ring, and refuses a run that does not follow the last one.
func TestTickStoreOrder(t *testing.T) {
	var s tickStore
	s.next = 1
	if err := s.add(confirmedRun(1, 50)); err != nil {
		t.Fatal(err)
	}
	var got wire.ConfirmedTick
	for range 30 {
		s.take(&got)
	}
	if err := s.add(confirmedRun(51, 100)); err != nil { // wraps, then grows the ring
		t.Fatal(err)
	}
	if err := s.add(confirmedRun(200, 1)); err == nil || !strings.Contains(err.Error(), "confirmed ticks from 200, expected 151") {
		t.Fatalf("a gap: %v", err)
	}
	if s.len() != 120 || s.received() != 150 {
		t.Fatalf("len %d, received %d: want 120 and 150", s.len(), s.received())
	}
	for want := uint64(31); want <= 150; want++ {
		if s.peekTick() != want {
			t.Fatalf("peekTick %d, want %d", s.peekTick(), want)
		}
		s.take(&got)
		if uint64(got.Leaves[0]) != want {
			t.Fatalf("took the tick of %d, want %d", got.Leaves[0], want)
		}
	}
	if s.len() != 0 {
		t.Fatalf("%d ticks left", s.len())
	}
}

// A snapshot drops the ticks it covers and is handed out once; one behind
// a tick already held past it is refused.
func TestTickStoreSnapshot(t *testing.T) {
	var s tickStore
	s.next = 1
	s.add(confirmedRun(1, 10))
	if err := s.setSnapshot(12, []byte("state")); err != nil {
		t.Fatal(err)
	}
	if s.len() != 0 || s.next != 13 {
		t.Fatalf("len %d, next %d: want 0 and 13", s.len(), s.next)
	}
	if snap, tick := s.takeSnapshot(); string(snap) != "state" || tick != 12 {
		t.Fatalf("takeSnapshot: %q at %d", snap, tick)
	}
	if snap, _ := s.takeSnapshot(); snap != nil {
		t.Fatalf("a second takeSnapshot: %q", snap)
	}
	s.add(confirmedRun(13, 5))
	if err := s.setSnapshot(14, nil); err == nil || !strings.Contains(err.Error(), "later ticks already confirmed") {
		t.Fatalf("a snapshot behind later ticks: %v", err)
	}
}

// The rules: a player counts its own ticks from the one it joined at; no
// confirmed tick comes after the end.
func TestMatchRules(t *testing.T) {
	var r matchRules
	r.ticks.next = 1
	m := confirmedRun(1, 5)
	m.Ticks[2].Joins = []wire.PlayerID{7}
	var own []uint64
	if err := r.confirmed(m, true, 7, func(ct *wire.ConfirmedTick) { own = append(own, uint64(ct.Leaves[0])) }); err != nil {
		t.Fatal(err)
	}
	if r.joinTick != 3 || len(own) != 3 || own[0] != 3 || own[2] != 5 {
		t.Fatalf("joinTick %d, own ticks %v: want 3 and [3 4 5]", r.joinTick, own)
	}
	r.end(&wire.End{Tick: 5})
	if !r.over(5) || r.over(4) {
		t.Fatalf("over(5) %v, over(4) %v: want true, false", r.over(5), r.over(4))
	}
	if err := r.confirmed(confirmedRun(6, 1), true, 7, func(*wire.ConfirmedTick) {}); err == nil || !strings.Contains(err.Error(), "after the match's end") {
		t.Fatalf("a tick after the end: %v", err)
	}
}
