package netplay

import (
	"errors"
	"slices"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// gone acts on a connection that ended: a player in the match leaves at
// the next tick; one about to join does not.
func (m *match) gone(p *peer, err error) {
	s := m.s
	if p.gone {
		return
	}
	p.gone, p.live, p.until = true, false, s.now()
	defer m.tracePlayers()
	p.out.close()
	m.waiting = slices.DeleteFunc(m.waiting, func(q *peer) bool { return q == p })
	fields := logrus.Fields{}
	if err != nil {
		fields["error"] = err.Error()
	}
	if errors.Is(err, errOutboxFull) {
		s.bad.warn("slow reader", logrus.Fields{"conn": p.id, "remote": p.remote, "error": err}, "dropped a connection that reads too slowly")
	}
	if p.role == wire.RolePlayer && err != nil && m.keepSeat(p) {
		p.away = p.until
		fields["rejoin_grace"] = s.cfg.RejoinGrace
	} else if p.role == wire.RolePlayer {
		m.drop(p, fields)
	}
	s.bad.info("left", p.fields(fields), "client left") // a debug line a connection, summarised at info
	if i := m.playerIndex(p.player); i < 0 || m.players[i] != p {
		m.release(p) // not in the match, or no longer about to join it
	}
}

// keepSeat reports whether p, a player whose connection just ended
// without a goodbye (a Bye is a player leaving for good), keeps its seat
// for the rejoin grace: with a grace, a player in the running match (it
// joined at a confirmed tick) does; one not in it yet leaves as without
// one.
func (m *match) keepSeat(p *peer) bool {
	if m.s.cfg.RejoinGrace == 0 || !m.started || m.ended || p.joinTick == 0 || p.joinTick > m.confirmed {
		return false
	}
	i := m.playerIndex(p.player)
	return i >= 0 && m.players[i] == p
}

// release lets go of p, gone and out of the match: its row of the report
// is all the match keeps of it.
func (m *match) release(p *peer) {
	i := slices.Index(m.peers, p)
	if i < 0 {
		return
	}
	m.peers = slices.Delete(m.peers, i, i+1)
	if len(m.left) == reportRowsKept {
		copy(m.left, m.left[1:])
		m.left = m.left[:len(m.left)-1]
		m.omitted++
	}
	m.left = append(m.left, reportRow{p.seq, m.row(p)})
}

// drop takes a player whose connection ended out of the match: it leaves
// at the next tick, or, if it would not be in the match by then, never
// joins (a player cannot join and leave in one tick): its report says it
// left at that tick, and joined at none.
func (m *match) drop(p *peer, fields logrus.Fields) {
	i := m.playerIndex(p.player)
	if i < 0 || m.players[i] != p {
		return
	}
	next := m.confirmed + 1
	if !m.started || p.joinTick >= next {
		if list, ok := m.joins[p.joinTick]; ok {
			m.joins[p.joinTick] = slices.DeleteFunc(list, func(id wire.PlayerID) bool { return id == p.player })
		}
		m.players = slices.Delete(m.players, i, i+1)
		p.joinTick, p.stats.LeftTick = 0, next
		fields["leave_tick"], fields["joined"] = next, false
		return
	}
	m.leaves[next] = append(m.leaves[next], p.player)
	fields["leave_tick"] = next
}

// finish ends the match: every client is told, a client whose
// resynchronisation is due (match.hash) is resynchronised first, and the
// outboxes stay open for the drain (a client's hash may still show it out
// of sync), which closes each as its client goes, and closeAll the rest.
func (m *match) finish(reason wire.EndReason) {
	if m.ended {
		return
	}
	m.ended, m.ended0 = true, m.s.now()
	for _, p := range m.peers {
		if !p.live {
			p.out.close()
			continue
		}
		if p.resyncDue != nil {
			m.resync(p, p.resyncDue)
		}
		p.out.queue(&wire.End{Tick: m.confirmed, Reason: reason})
	}
	m.s.log.WithFields(logrus.Fields{"tick": m.confirmed, "reason": reason.String()}).Info("match over")
}

// closeAll waits (a little) for every client's last messages to go out,
// then closes the connections. It closes the sending side first and
// waits for each client to finish (its Bye, or its side closing): closing
// a socket whose received messages are still unread makes the kernel
// reset the connection, and a reset makes the client's kernel discard
// what the client has not read yet, the match's last ticks and End
// included, where the client is busy (catching up, or on a loaded
// machine).
func (m *match) closeAll() {
	deadline := time.Now().Add(3 * time.Second)
	for _, p := range m.peers {
		p.out.close()
		p.out.wait(max(time.Until(deadline), 10*time.Millisecond))
		if cw, ok := p.conn.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
	}
	for _, p := range m.peers {
		select {
		case <-p.readDone:
		case <-time.After(max(time.Until(deadline), 10*time.Millisecond)):
		}
		if p.until == 0 {
			p.until = m.s.now()
		}
		p.conn.Close()
	}
	// Connections still in their handshake, or refused: their goroutines
	// close them (their deadlines bound the wait).
}

// tracePlayers calls the trace's PlayersChanged when the players or the
// spectators connected (let in and not gone) are no longer those it last
// said.
func (m *match) tracePlayers() {
	t := m.s.cfg.Trace
	if t == nil || t.PlayersChanged == nil {
		return
	}
	players, spectators := 0, 0
	for _, p := range m.peers {
		switch {
		case p.gone:
		case p.role == wire.RoleSpectator:
			spectators++
		default:
			players++
		}
	}
	if players != m.tracedPlayers || spectators != m.tracedSpectators {
		m.tracedPlayers, m.tracedSpectators = players, spectators
		t.PlayersChanged(players, spectators)
	}
}
