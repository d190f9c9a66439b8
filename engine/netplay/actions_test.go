package netplay_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// A player's actions cross the network as exactly as its keys: the
// client resolves its own bindings (a gamepad's A and left stick) into
// the Samples it sends, and the server, which binds nothing, sees the
// presses and values; every peer ends with the server's hash, which folds
// in every word of every input (the action words too).
func TestActionsOverTheNetwork(t *testing.T) {
	const (
		jump input.Action = iota
		moveX
	)
	type seen struct {
		jumps int
		sum   int64
	}
	// The server's system looks at every player: the other client binds
	// no actions, so what it sees is the gamepad's client's. (It cannot
	// wait for that client's ID: the match may tick before the test has
	// read its Welcome.)
	watch := func(e *engine.Engine, out *seen) {
		e.AddSystem(engine.StageScripts, "actions", func(c *engine.FixedContext) {
			for i := range c.Players.Len() {
				_, in := c.Players.At(i)
				if in.ActionPressed(jump) {
					out.jumps++
				}
				out.sum += int64(in.ActionUnits(moveX))
			}
		})
	}
	srvEngine, _ := newTestEngine(t)
	var atServer seen
	watch(srvEngine, &atServer)
	ts := startServerWith(t, srvEngine, matchConfig(2, 120), false)

	acts, err := input.NewActions("jump", "move-x")
	if err != nil {
		t.Fatal(err)
	}
	if err := acts.LoadBindings(stringsReader("jump button A\nmove-x axis LeftX\n")); err != nil {
		t.Fatal(err)
	}
	e, _ := newTestEngine(t)
	cfg := netplay.DefaultClientConfig()
	cfg.Role, cfg.Scene, cfg.Fingerprint = wire.RolePlayer, testScene, e.World.Schema().Fingerprint()
	cfg.Log, _ = quietLog()
	type dialed struct {
		tc  *testClient
		err error
	}
	otherc := make(chan dialed, 1) // the server welcomes no one before both have come
	go func() {
		tc, err := dialClient(t, ts.addr, wire.RolePlayer, nil)
		otherc <- dialed{tc, err}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := netplay.Dial(ctx, ts.addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	who := engine.PlayerID(c.Welcome().Player)
	c.LocalInput().SetActions(acts)
	pad := func(tick uint64, due time.Duration, in *input.Queue) {
		switch {
		case tick == 1:
			in.Push(input.Event{Time: due, Kind: input.PadConnected})
		case tick%20 == 3:
			in.Push(input.Event{Time: due, Kind: input.PadButtonDown, PadButton: input.PadA})
		case tick%20 == 8:
			in.Push(input.Event{Time: due, Kind: input.PadButtonUp, PadButton: input.PadA})
		case tick%20 == 10:
			in.Push(input.Event{Time: due, Kind: input.PadAxisMove, Axis: input.PadLeftX, X: 0.5})
		case tick%20 == 15:
			in.Push(input.Event{Time: due, Kind: input.PadAxisMove, Axis: input.PadLeftX, X: -0.25})
		}
	}
	if err := c.Attach(e, pad); err != nil {
		t.Fatal(err)
	}
	d := <-otherc
	if d.err != nil {
		t.Fatal(d.err)
	}
	other := d.tc
	for i, err := range play(&testClient{c: c, e: e}, other) {
		if err != nil {
			t.Errorf("client %d: %v", i, err)
		}
	}
	rep := ts.wait(t)
	if h := ts.e.World.Hash(); e.World.Hash() != h || other.e.World.Hash() != h {
		t.Errorf("hashes: server %016x, the gamepad's client %016x, the other %016x", h, e.World.Hash(), other.e.World.Hash())
	}
	if atServer.jumps == 0 || atServer.sum == 0 {
		t.Errorf("the server saw %d jumps and move-x summing to %d; want the client's actions", atServer.jumps, atServer.sum)
	}
	substituted := uint64(0)
	for _, p := range rep.Players {
		if engine.PlayerID(p.Player) == who {
			substituted = p.Substituted
		}
	}
	if substituted == 0 && atServer.jumps != 6 {
		t.Errorf("%d jumps with no input substituted, want 6 (A at ticks 3, 23, ..., 103)", atServer.jumps)
	}
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
