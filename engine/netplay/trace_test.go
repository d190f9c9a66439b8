package netplay_test

import (
	"sync"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay"
)

// traceRecord is what a server's trace was told.
type traceRecord struct {
	mu                    sync.Mutex
	ticks                 []uint64
	peakPlayers           int
	spectators            []int
	read, written         int
	resyncs, desyncs      int
	negativeTook, changes int
	lastPlayers           [2]int // the last PlayersChanged's players and spectators
}

func (r *traceRecord) trace() *netplay.ServerTrace {
	return &netplay.ServerTrace{
		TickConfirmed: func(tick uint64, took time.Duration) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.ticks = append(r.ticks, tick)
			if took < 0 {
				r.negativeTook++
			}
		},
		PlayersChanged: func(players, spectators int) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.changes++
			r.lastPlayers = [2]int{players, spectators}
			r.peakPlayers = max(r.peakPlayers, players)
			r.spectators = append(r.spectators, spectators)
		},
		BytesRead:    func(n int) { r.mu.Lock(); r.read += n; r.mu.Unlock() },
		BytesWritten: func(n int) { r.mu.Lock(); r.written += n; r.mu.Unlock() },
		Resync:       func() { r.mu.Lock(); r.resyncs++; r.mu.Unlock() },
		Desync:       func() { r.mu.Lock(); r.desyncs++; r.mu.Unlock() },
	}
}

// The server tells its trace of every confirmed tick, once and in order,
// of its players coming, of the bytes both ways, and of a client's desync
// and its resynchronisation.
func TestServerTrace(t *testing.T) {
	var rec traceRecord
	cfg := matchConfig(2, 240)
	cfg.Trace = rec.trace()
	ts := startServer(t, cfg)
	ab := dialPlayers(t, ts.addr, 2, nil)
	ab[1].g.perturbAt = 70
	for i, err := range play(ab...) {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	rep := ts.wait(t)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.ticks) != 240 {
		t.Errorf("TickConfirmed called %d times, want 240", len(rec.ticks))
	}
	for i, tick := range rec.ticks {
		if tick != uint64(i+1) {
			t.Errorf("TickConfirmed call %d was tick %d, want %d", i, tick, i+1)
			break
		}
	}
	if rec.negativeTook > 0 {
		t.Errorf("%d ticks took a negative time", rec.negativeTook)
	}
	if rec.peakPlayers != 2 || rec.changes < 2 {
		t.Errorf("PlayersChanged: %d calls, at most %d players; want 2 calls or more and 2 players", rec.changes, rec.peakPlayers)
	}
	if rec.lastPlayers != [2]int{0, 0} {
		t.Errorf("the last PlayersChanged said %d players and %d spectators after the match; want 0 and 0", rec.lastPlayers[0], rec.lastPlayers[1])
	}
	for _, s := range rec.spectators {
		if s != 0 {
			t.Errorf("PlayersChanged said %d spectators, want 0", s)
		}
	}
	var up, down int64
	for _, p := range rep.Players {
		up, down = up+p.BytesUp, down+p.BytesDown
	}
	if int64(rec.read) < up || int64(rec.written) < down || up == 0 || down == 0 {
		t.Errorf("the trace read %d and wrote %d bytes; the report's clients sent %d and were sent %d", rec.read, rec.written, up, down)
	}
	if rec.desyncs != 1 || rec.resyncs != 1 || rep.Desyncs != 1 {
		t.Errorf("the trace counted %d desyncs and %d resyncs, the report %d desyncs; want 1 each", rec.desyncs, rec.resyncs, rep.Desyncs)
	}
}
