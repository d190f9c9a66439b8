package matchlog_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay/matchlog"
	"github.com/nebulaengine/nebula/engine/replay"
)

// A match's engine logs its ticks (here stepped by hand; a
// netplay.Server steps them), with a snapshot every 30 ticks; the log,
// closed at the match's end, is a recording that replays to the same
// hashes.
func Example() {
	dir, err := os.MkdirTemp("", "matchlog-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "match.nebreplay")
	newGame := func() *engine.Engine {
		e, err := engine.New(engine.DefaultConfig())
		if err != nil {
			panic(err)
		}
		return e // a game adds its systems and builds its world here
	}

	e := newGame()
	h := replay.Header{TickRate: 60, Seed: 1, HashEvery: 60, Scene: "example", JobMode: e.Jobs.Mode(), Schema: e.World.Schema()}
	cfg := matchlog.DefaultConfig()
	cfg.SnapshotEvery = 30
	lg, err := matchlog.Create(path, e, h, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := e.AddTickHook(lg); err != nil {
		fmt.Println(err)
		return
	}
	for range 90 {
		e.StepTick(0)
	}
	if err := lg.Close(e.World.Hash()); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("written to tick", lg.Written(), "durable to tick", lg.Durable())

	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := replay.Open(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := replay.Verify(newGame(), r)
	fmt.Println("ticks", res.Ticks, "snapshots", r.Stats.Snapshots, "verified:", err == nil)
	// Output:
	// written to tick 90 durable to tick 90
	// ticks 90 snapshots 2 verified: true
}
