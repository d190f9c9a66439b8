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
	// SeatTicks, for a server without a rejoin grace
	// (ServerConfig.RejoinGrace 0), is how many ticks after the tick it
	// resumes at the match's players keep their seats without a client,
	// their input being their last one (the rule for a missing input);
	// then they leave. 0: they keep them until the match ends. With a
	// rejoin grace, the grace decides, from Serve's start.
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
// ResumeConfig.SeatTicks). With connect tokens and a rejoin grace
// (ServerConfig.TokenKey, RejoinGrace), a held seat is a seat kept for a
// player whose connection ended, from Serve's start: the player takes it
// back with its token within the grace, with a snapshot and the ticks
// since, and leaves once the grace is over. Other clients come back as
// late joiners do, as new players (or as spectators).
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
	m.started, m.resumed, m.confirmed, m.resumedAt = true, true, k, k
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
	if rc.SeatTicks > 0 && len(held) > 0 && s.cfg.RejoinGrace == 0 {
		m.leaves[k+rc.SeatTicks] = slices.Clone(held)
	}
	if s.cfg.SnapshotEvery > 0 {
		m.keptTick, m.kept = k, s.e.Snapshot()
	}
	s.log.WithFields(logrus.Fields{"tick": k, "seats": held, "seat_ticks": rc.SeatTicks, "rejoin_grace": s.cfg.RejoinGrace}).Info("match resumed")
	s.cfg.Trace.resumed(k)
}

// startResumed starts a resumed match's clock as Serve starts: the tick
// after the resumed one is due StartDelay from now, and the seats held
// for the match's players are, with a rejoin grace, seats kept for
// players away since now.
func (m *match) startResumed() {
	if !m.resumed {
		return
	}
	s := m.s
	now := s.now()
	m.origin.Store(int64(now + s.cfg.StartDelay - m.at(m.confirmed+1)))
	m.started0 = now
	if s.cfg.RejoinGrace > 0 {
		for _, p := range m.players {
			if p.gone {
				p.away = max(now, 1)
			}
		}
	}
}
