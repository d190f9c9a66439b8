package agones

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestLifecycleHealthFollowsBeats drives the health ticker by hand: pings
// go out before the loop's first Beat, then only in periods with a Beat.
func TestLifecycleHealthFollowsBeats(t *testing.T) {
	f := newFakeSDK(t)
	l, err := NewLifecycle(f.client(t), LifecycleConfig{MatchID: "m-1"})
	if err != nil {
		t.Fatal(err)
	}
	ticks, ticked := make(chan time.Time), make(chan bool)
	l.ticks, l.ticked = ticks, ticked
	ctx := context.Background()
	if err := l.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{`PUT /metadata/label {"key":"match","value":"m-1"}`, "POST /health {}", "POST /ready {}"}
	if got := f.callLog(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Ready sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	tick := func() bool { ticks <- time.Time{}; return <-ticked }
	steps := []struct {
		beats int
		ping  bool
	}{
		{0, true}, {0, true}, // not armed: waiting for players
		{1, true}, {5, true}, // ticking
		{0, false}, {0, false}, // stalled
		{1, true},
	}
	pings := 1 // Start's
	for i, s := range steps {
		for range s.beats {
			l.Beat()
		}
		if got := tick(); got != s.ping {
			t.Fatalf("step %d (%d beats): pinged %v, want %v", i, s.beats, got, s.ping)
		}
		if s.ping {
			pings++
		}
	}
	health := 0
	for _, c := range f.callLog() {
		if c == "POST /health {}" {
			health++
		}
	}
	if health != pings {
		t.Errorf("the SDK server got %d health pings, want %d", health, pings)
	}

	// Player counts: only the latest is sent, before Shutdown.
	l.SetPlayers(1)
	l.SetPlayers(2)
	l.SetPlayers(3)
	if err := l.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	calls := f.callLog()
	if calls[len(calls)-1] != "POST /shutdown {}" || calls[len(calls)-2] != `PUT /metadata/label {"key":"players","value":"3"}` {
		t.Errorf("the last calls: %q", calls[len(calls)-3:])
	}
	select {
	case ticks <- time.Time{}:
		t.Error("the health goroutine still runs after Shutdown")
	default:
	}
	if err := l.Start(ctx); err == nil {
		t.Error("Start after Shutdown: no error")
	}
}

func TestLifecycleConfig(t *testing.T) {
	f := newFakeSDK(t)
	c := f.client(t)
	if _, err := NewLifecycle(c, LifecycleConfig{MatchID: "match one"}); err == nil || !strings.HasPrefix(err.Error(), `agones: match id "match one" as a label value: character ' '`) {
		t.Errorf("a match id with a space: %v", err)
	}
	if _, err := NewLifecycle(c, LifecycleConfig{HealthEvery: -time.Second}); err == nil {
		t.Error("a negative health period: no error")
	}
	// Shutdown without Start: only the call.
	l, err := NewLifecycle(c, LifecycleConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := f.callLog(); len(got) != 1 || got[0] != "POST /shutdown {}" {
		t.Errorf("calls %q", got)
	}
}

// A player count set before Ready is on the GameServer when Ready is.
func TestLifecyclePlayersBeforeReady(t *testing.T) {
	f := newFakeSDK(t)
	l, err := NewLifecycle(f.client(t), LifecycleConfig{})
	if err != nil {
		t.Fatal(err)
	}
	l.SetPlayers(0)
	ctx := context.Background()
	if err := l.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{`PUT /metadata/label {"key":"players","value":"0"}`, "POST /health {}", "POST /ready {}"}
	if got := f.callLog(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Ready sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := l.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.callLog(); got[len(got)-1] != "POST /shutdown {}" || len(got) != 4 {
		t.Errorf("Shutdown sent %q after Ready's calls (an unchanged count is not sent again)", got[3:])
	}
}
