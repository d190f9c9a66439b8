package matchlog

import (
	"os"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/token"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/engine/replay"
)

// With connect tokens and a rejoin grace, the players of a crashed match
// take their own seats back on the resumed server with their tokens: no
// player leaves or joins in the whole match (the log says so), both end
// with the server's hash, and the log verifies from its first tick.
func TestResumeRejoinByToken(t *testing.T) {
	var key token.Key
	for i := range key {
		key[i] = byte(3*i + 1)
	}
	cfgFor := func(ticks uint64) netplay.ServerConfig {
		c := serverConfig(ticks)
		c.TokenKey, c.MatchID, c.RejoinGrace = &key, "resumed-match", 30*time.Second
		return c
	}
	now := time.Now()
	var creds [2]*token.Credentials
	for seat := range creds {
		c, err := token.Mint(key, token.Request{MatchID: "resumed-match", Seat: token.Seat(seat), TTL: 5 * time.Minute}, now)
		if err != nil {
			t.Fatal(err)
		}
		creds[seat] = &c
	}
	c := runAndAbandonWith(t, Config{SnapshotEvery: 50, SyncEvery: 6}, 130, cfgFor(0), creds[0], creds[1])

	var live *hashes
	res, err := Resume(c.path, ResumeConfig{
		Build: func(h replay.Header) (*engine.Engine, error) {
			e, hs, err := newGame(h)
			live = hs
			return e, err
		},
		Server: cfgFor(c.last + 120),
		Log:    Config{SnapshotEvery: 50, SyncEvery: 6, Log: quiet()},
	})
	if err != nil {
		t.Fatal(err)
	}
	for tick := res.SnapshotTick + 1; tick <= res.Tick; tick++ {
		if got, _ := live.get(tick); got != c.hashes[tick] {
			t.Fatalf("replayed tick %d: hash %016x, the crashed server had %016x", tick, got, c.hashes[tick])
		}
	}
	addr, done := serve(t, res.Server)
	b1 := startBotWith(t, addr, wire.RolePlayer, 1, creds[0])
	b2 := startBotWith(t, addr, wire.RolePlayer, 2, creds[1])
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for seat, b := range []*bot{b1, b2} {
		if err := <-b.done; err != nil {
			t.Errorf("seat %d: %v", seat, err)
		}
		if b.player != wire.PlayerID(seat) {
			t.Errorf("the bot with the token of seat %d came back as player %d", seat, b.player)
		}
		if b.e.World.Hash() != res.Engine.World.Hash() {
			t.Errorf("seat %d ended with hash %016x, the server with %016x", seat, b.e.World.Hash(), res.Engine.World.Hash())
		}
	}
	if rep := res.Server.Report(); rep.Desyncs != 0 {
		t.Errorf("%d desyncs", rep.Desyncs)
	}
	if err := res.Log.Close(res.Engine.World.Hash()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	ve, _, err := newGame(r.Header)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Verify(ve, r); err != nil {
		t.Fatal(err)
	}
	if r.Stats.Joins != 2 || r.Stats.Leaves != 0 {
		t.Errorf("the log has %d joins and %d leaves; want the 2 joins of tick 1 and no leave", r.Stats.Joins, r.Stats.Leaves)
	}
	t.Logf("crashed at tick %d, resumed at %d; both players took their seats back", c.last, res.Tick)
}
