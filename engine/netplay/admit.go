package netplay

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// letIn answers a client whose handshake succeeded: it refuses it when
// there is no room, holds it until the match starts, or welcomes it into
// the running match.
func (m *match) letIn(p *peer) {
	s := m.s
	defer m.tracePlayers()
	// A refused client is sent why, and its connection closed: its
	// reader stops (outbox.drop), whatever the client goes on sending.
	// The server is done with it first (the trace told, the line
	// logged, its token free to try again): once the refusal is out, the
	// client may act on it at once (look at the trace, dial again with
	// its token), and it finds the server's state as the refusal says.
	refuse := func(r *wire.Refuse, label string) {
		p.gone = true
		s.refused(label)
		s.tokens.forget(p.use)
		s.bad.warn("refused", logrus.Fields{"conn": p.id, "remote": p.remote, "reason": r.String()}, "refused a client")
		p.out.drop(dropped(errors.New(r.String()), r))
	}
	if m.ended {
		refuse(wire.RefuseShutdown(), "shutdown")
		return
	}
	var kept *peer // the player whose seat p takes back
	if p.hasSeat {
		if i := m.playerIndex(wire.PlayerID(p.seat)); i >= 0 {
			if kept = m.players[i]; kept.away == 0 {
				refuse(wire.RefuseToken(fmt.Sprintf("seat %d is taken by a player in the match", p.seat)), "seat-taken")
				return
			}
		}
	}
	if p.role == wire.RoleSpectator {
		n := 0
		for _, q := range m.peers {
			if q.role == wire.RoleSpectator && !q.gone {
				n++
			}
		}
		if n >= s.cfg.MaxSpectators {
			refuse(&wire.Refuse{Reason: wire.ReasonFull, Text: fmt.Sprintf("the match has no room for another spectator (%d)", n)}, "full")
			return
		}
	} else if kept != nil {
		m.rejoin(p, kept)
	} else {
		if len(m.players) >= s.cfg.MaxPlayers {
			refuse(wire.RefuseFull(len(m.players)), "full")
			return
		}
		p.player = m.freeID()
		if p.hasSeat {
			p.player = wire.PlayerID(p.seat)
		}
		p.playerInputs = new(playerInputs)
		i, _ := slices.BinarySearchFunc(m.players, p.player, func(q *peer, id wire.PlayerID) int { return int(q.player) - int(id) })
		m.players = slices.Insert(m.players, i, p)
	}
	p.since = s.now()
	p.stats = PlayerReport{Player: p.player, Name: p.name, Remote: p.remote, Spectator: p.role == wire.RoleSpectator}
	p.seq = m.admitted
	m.admitted++
	if p.role == wire.RoleSpectator {
		m.spectators++
	}
	m.peers = append(m.peers, p)
	// A line a connection is a debug line: at the info level, joins are
	// summarised at most once a second (rateLog), however many come.
	if !m.started {
		m.waiting = append(m.waiting, p)
		if n := m.waitingPlayers(); n < s.cfg.Players {
			s.bad.info("joined", p.fields(logrus.Fields{"players": n, "needed": s.cfg.Players}), "client in; waiting for players")
			return
		}
		m.start()
		return
	}
	m.welcomeLate(p)
	if p.rejoined {
		s.bad.info("rejoined", p.fields(logrus.Fields{"join_tick": p.joinTick, "snapshot_tick": m.confirmed}), "player took its seat back")
		return
	}
	s.bad.info("joined", p.fields(logrus.Fields{"join_tick": p.joinTick, "snapshot_tick": m.confirmed}), "client joined the running match")
}

// rejoin gives p the seat kept for q, a player whose connection ended
// within the rejoin grace: p is the same player, with its inputs so far,
// already in the match (no join), and q is released.
func (m *match) rejoin(p, q *peer) {
	i := m.playerIndex(q.player)
	p.player, p.playerInputs, p.joinTick, p.rejoined = q.player, q.playerInputs, q.joinTick, true
	m.players[i] = p
	q.away = 0
	m.release(q)
	p.logger(m.s.log).WithFields(logrus.Fields{"away": m.s.now() - q.until, "left_conn": q.id}).Debug("a player rejoins its seat")
}

// expireAway frees the seats kept for players away longer than the
// rejoin grace: each leaves at the next tick, as a player whose
// connection ends does without a grace.
func (m *match) expireAway(now time.Duration) {
	grace := m.s.cfg.RejoinGrace
	for _, p := range m.players {
		if p.away != 0 && now-p.away >= grace {
			p.away = 0
			fields := logrus.Fields{"grace": grace}
			m.drop(p, fields)
			m.s.bad.info("rejoin grace over", p.fields(fields), "the rejoin grace is over: the player leaves")
			m.s.tokens.expire(p.use)
			return // m.drop may have changed m.players: the next call goes on
		}
	}
}

// freeID returns the lowest player ID not held by a player in or about to
// join the match.
func (m *match) freeID() wire.PlayerID {
	id := wire.PlayerID(0)
	for _, p := range m.players { // sorted by ID
		if p.player != id {
			break
		}
		id++
	}
	return id
}

func (m *match) waitingPlayers() int {
	n := 0
	for _, p := range m.waiting {
		if p.role == wire.RolePlayer {
			n++
		}
	}
	return n
}

// welcome is the Welcome of p, with its first tick and snapshot tick.
func (m *match) welcome(p *peer, first, snap uint64) *wire.Welcome {
	s := m.s
	return &wire.Welcome{
		Player: p.player, TickRate: uint16(s.e.Loop.TickRate()), Scene: s.cfg.Scene,
		Fingerprint: s.e.World.Schema().Fingerprint(), Params: s.cfg.Params,
		InputDelay: uint8(s.cfg.InputDelay), FirstTick: first, SnapshotTick: snap,
	}
}

// start starts the match: the waiting players join at tick 1, whose
// deadline is StartDelay from now.
func (m *match) start() {
	s := m.s
	now := s.now()
	m.origin.Store(int64(now + s.cfg.StartDelay - m.dt))
	m.started, m.started0 = true, now
	if s.cfg.SnapshotEvery > 0 {
		m.keptTick, m.kept = 0, nil // tick 0: the scene's initial state
	}
	for _, p := range m.waiting {
		if p.role == wire.RolePlayer {
			p.joinTick = 1
			m.joins[1] = append(m.joins[1], p.player)
		}
		p.out.queue(m.welcome(p, 1, 0))
		p.live = true
	}
	slices.Sort(m.joins[1])
	m.waiting = nil
	s.log.WithFields(logrus.Fields{"players": len(m.players), "first_deadline": s.cfg.StartDelay}).Info("match started")
}

// joinLead is how many ticks after the last confirmed one a late joiner
// joins: StartDelay in ticks, at least 1.
func (m *match) joinLead() uint64 {
	return max(uint64((m.s.cfg.StartDelay*m.rate+time.Second-1)/time.Second), 1)
}

// welcomeLate lets p into the running match: a snapshot (of the latest
// snapshot kept, or of the last confirmed tick) and the confirmed ticks since,
// then the live ticks; a player joins joinLead ticks ahead.
func (m *match) welcomeLate(p *peer) {
	s := m.s
	if p.role == wire.RolePlayer && !p.rejoined {
		p.joinTick = m.confirmed + 1 + m.joinLead()
		m.joins[p.joinTick] = append(m.joins[p.joinTick], p.player)
		slices.Sort(m.joins[p.joinTick])
	}
	snapTick, snap := m.confirmed, []byte(nil)
	if s.cfg.SnapshotEvery > 0 {
		snapTick, snap = m.keptTick, m.kept
	} else if snapTick > 0 {
		snap = s.e.Snapshot()
	}
	w := m.welcome(p, snapTick+1, snapTick)
	if p.rejoined {
		w.JoinTick = p.joinTick
	}
	p.out.queue(w)
	if snapTick > 0 {
		p.out.queue(&wire.Snapshot{Tick: snapTick, Data: snap})
	}
	if s.cfg.SnapshotEvery > 0 {
		for first := 0; first < len(m.history); first += wire.MaxConfirmedRun {
			run := m.history[first:min(first+wire.MaxConfirmedRun, len(m.history))]
			p.out.queue(&wire.Confirmed{First: snapTick + 1 + uint64(first), Ticks: run})
		}
	}
	p.live = true
}
