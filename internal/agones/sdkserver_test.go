package agones_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/internal/agones"
	"github.com/nebulaengine/nebula/internal/agones/agonestest"
)

// TestRealSDKServer walks a GameServer through the real Agones SDK
// server: Scheduled, then Ready from the lifecycle, Allocated by an
// allocation (the SDK's Allocate, as a matchmaker's GameServerAllocation
// would), Shutdown at the match's end, with the match and players labels.
// A watch started first sees exactly those states, in order.
func TestRealSDKServer(t *testing.T) {
	sdk := agonestest.Start(t, "nebula-lifecycle")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := agones.NewClient(sdk.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if gs := sdk.GameServer(t); gs.State != agones.StateScheduled || gs.Name != "nebula-lifecycle" {
		t.Fatalf("before any call: %s in state %s, want nebula-lifecycle in Scheduled", gs.Name, gs.State)
	}
	w := sdk.Watch(t)

	lc, err := agones.NewLifecycle(c, agones.LifecycleConfig{MatchID: "match-7", HealthEvery: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := lc.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if gs := sdk.GameServer(t); gs.State != agones.StateReady {
		t.Fatalf("after Ready: %s", gs.State)
	}
	w.WaitState(agones.StateReady)
	allocated := make(chan error, 1)
	go func() {
		gs, err := lc.WaitAllocated(ctx)
		if err == nil && gs.State != agones.StateAllocated {
			t.Errorf("WaitAllocated returned in state %s", gs.State)
		}
		allocated <- err
	}()
	if err := c.Allocate(ctx); err != nil { // the matchmaker's allocation
		t.Fatal(err)
	}
	if err := <-allocated; err != nil {
		t.Fatal(err)
	}
	w.WaitState(agones.StateAllocated)
	for n := 1; n <= 4; n++ {
		lc.SetPlayers(n)
		lc.Beat()
	}
	if err := lc.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	gs := sdk.GameServer(t)
	if gs.State != agones.StateShutdown {
		t.Errorf("after Shutdown: %s", gs.State)
	}
	if v, _ := gs.Label(agones.LabelMatch); v != "match-7" {
		t.Errorf("match label %q; labels %v", v, gs.Labels)
	}
	if v, _ := gs.Label(agones.LabelPlayers); v != "4" {
		t.Errorf("players label %q; labels %v", v, gs.Labels)
	}
	want := []agones.State{agones.StateScheduled, agones.StateReady, agones.StateAllocated, agones.StateShutdown}
	if got := w.Walk(); !slices.Equal(got, want) {
		t.Errorf("the watch saw %v, want %v", got, want)
	}
	if n := sdk.Count("Health Ping Received!"); n < 1 {
		t.Errorf("the SDK server logged %d health pings", n)
	}
	t.Logf("states %v, labels %v, %d health pings", want, gs.Labels, sdk.Count("Health Ping Received!"))
}
