package netplay_test

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// Spectators that join and leave again and again cannot flood the
// server's log: 300 join/leave cycles write a line each at the debug
// level, and at the info level a bounded number of lines (one a second of
// each kind, and a summary), whose counts add up to the 300 joins and 300
// leaves.
func TestJoinAndLeaveChurnCannotFloodTheLog(t *testing.T) {
	const cycles = 300
	cfg := matchConfig(1, 0)
	ts := startServer(t, cfg)
	fp := fingerprint(t, testEngine)
	player, err := joinRaw(ts.addr, wire.RolePlayer, fp)
	if err != nil {
		t.Fatal(err)
	}
	defer player.conn.Close()
	go io.Copy(io.Discard, player.conn) // the player reads its ticks

	start := time.Now()
	for i := range cycles {
		rc, err := joinRaw(ts.addr, wire.RoleSpectator, fp)
		if err != nil {
			t.Fatalf("spectator %d: %v", i, err)
		}
		if err := rc.send(&wire.Bye{}); err != nil {
			t.Fatalf("spectator %d: %v", i, err)
		}
		// The server closes its side once it has had the goodbye.
		for err == nil {
			_, err = rc.next()
		}
		rc.conn.Close()
		if !errors.Is(err, io.EOF) {
			t.Fatalf("spectator %d: %v, want the server to close the connection after the goodbye", i, err)
		}
	}
	// Every leave is through the match (a line each at the debug level)
	// before the match ends: the server's drain does not log them.
	waitFor(t, "the server to see every spectator go", func() bool { return countMsg(ts, "client left") == cycles })
	ts.srv.Close()
	ts.wait(t)
	elapsed := time.Since(start)

	if n := countMsg(ts, "client joined the running match"); n != cycles {
		t.Errorf("%d lines (at any level) of spectators joining, want one a connection: %d", n, cycles)
	}
	info := 0
	counted := map[string]int{}
	for _, e := range ts.hook.AllEntries() {
		if e.Level > logrus.InfoLevel {
			continue
		}
		info++
		kind, _ := e.Data["kind"].(string)
		if summary, _ := e.Data["summary"].(bool); !summary {
			counted[kind]++
		}
		if n, ok := e.Data["repeats"].(int); ok {
			counted[kind] += n
		}
	}
	// At most a line a second of each kind (joined, left), and a summary
	// a second of each, besides the match's own few lines.
	limit := 2*2*(int(elapsed/time.Second)+2) + 10
	t.Logf("%d join/leave cycles in %v: %d lines at info or above (at most %d); counted %v", cycles, elapsed.Round(time.Millisecond), info, limit, counted)
	if info > limit {
		t.Errorf("%d lines at info or above for %d join/leave cycles in %v, want at most %d", info, cycles, elapsed, limit)
	}
	if counted["joined"] != cycles || counted["left"] != cycles {
		t.Errorf("the info lines count %d joins and %d leaves, want %d of each", counted["joined"], counted["left"], cycles)
	}
}

// countMsg counts the server's log lines, at any level, with message msg,
// but for the summaries of lines held back (field "summary").
func countMsg(ts *testServer, msg string) int {
	n := 0
	for _, e := range ts.hook.AllEntries() {
		if summary, _ := e.Data["summary"].(bool); e.Message == msg && !summary {
			n++
		}
	}
	return n
}
