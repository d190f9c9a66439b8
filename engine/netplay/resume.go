package netplay

import (
	"fmt"
	"slices"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// ResumeConfig says how a resumed server (ResumeServer) treats the
// players of the match it continues.
type ResumeConfig struct {
	// SeatTicks is how many ticks after the tick it resumes at the
	// match's players keep their seats without a client, their input
	// being their last one (the rule for a missing input); then they
	// leave. 0: they keep them until the match ends.
	SeatTicks uint64
}

// ResumeServer returns a server that continues, on e, a match that
// another server ran up to e's tick (its last durable tick) and that
// ended without its end: a crashed server's match, restored from its
// match log (package matchlog). e holds the match's state at that tick
// (the scene set up as cfg says, then the log's snapshot restored and its
// tail replayed), and cfg is the crashed server's configuration. The next
// tick is e's tick plus one, its deadline StartDelay from Serve's start.
//
// The players in e's world keep their seats (their IDs), without a
// client: their input stays their last one until they leave (see
// ResumeConfig.SeatTicks). The match's clients come back as late joiners
// do, with a snapshot and the ticks since, as new players (or as
// spectators); a player's own seat goes back to it only through a rejoin
// that proves who it is, which this server does not offer.
func ResumeServer(e *engine.Engine, cfg ServerConfig, rc ResumeConfig) (*Server, error) {
	k := e.World.Tick()
	ps := e.World.Players()
	switch {
	case k == 0:
		return nil, fmt.Errorf("netplay: server: resume: the engine is at tick 0; NewServer starts a match")
	case cfg.Ticks != 0 && k >= cfg.Ticks:
		return nil, fmt.Errorf("netplay: server: resume: the match ended at tick %d, and the engine is at tick %d", cfg.Ticks, k)
	case ps.Len() > cfg.MaxPlayers:
		return nil, fmt.Errorf("netplay: server: resume: %d players in the match, more than the max players, %d", ps.Len(), cfg.MaxPlayers)
	}
	s, err := newServer(e, cfg)
	if err != nil {
		return nil, err
	}
	s.m.resume(k, ps, rc)
	return s, nil
}

// resume makes the match one that runs since tick k, its players those
// of ps, holding their seats with no client.
func (m *match) resume(k uint64, ps *engine.Players, rc ResumeConfig) {
	s := m.s
	m.started, m.confirmed = true, k
	m.origin.Store(int64(s.now() + s.cfg.StartDelay - m.at(k+1)))
	var held []wire.PlayerID
	for i := range ps.Len() {
		id, in := ps.At(i)
		p := &peer{
			player: wire.PlayerID(id), role: wire.RolePlayer, joinTick: 1, gone: true,
			playerInputs: &playerInputs{last: *in},
			stats:        PlayerReport{Player: wire.PlayerID(id), Name: "resumed seat"},
		}
		m.players = append(m.players, p) // ascending, as ps is
		held = append(held, p.player)
	}
	if rc.SeatTicks > 0 && len(held) > 0 {
		m.leaves[k+rc.SeatTicks] = slices.Clone(held)
	}
	if s.cfg.SnapshotEvery > 0 {
		m.keptTick, m.kept = k, s.e.Snapshot()
	}
	s.log.WithFields(logrus.Fields{"tick": k, "seats": held, "seat_ticks": rc.SeatTicks}).Info("match resumed")
}
