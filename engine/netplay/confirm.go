package netplay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// input stores a player's inputs by tick.
func (m *match) input(p *peer, ev event) {
	if p.gone || p.role != wire.RolePlayer {
		return
	}
	last := ev.first + uint64(len(ev.inputs)) - 1
	if ev.first > m.confirmed+MaxInputAhead || last+MaxInputAhead < m.confirmed {
		m.s.bad.warn("input out of window", logrus.Fields{"conn": p.id, "remote": p.remote, "first": ev.first, "last": last, "confirmed": m.confirmed},
			fmt.Sprintf("dropped a connection that sent input for a tick more than %d ticks from the match's", MaxInputAhead))
		p.out.drop(dropped(fmt.Errorf("this client sent input for ticks %d to %d, more than %d ticks from the match's tick %d", ev.first, last, MaxInputAhead, m.confirmed), nil))
		return
	}
	for i := range ev.inputs {
		t := ev.first + uint64(i)
		switch {
		case t <= m.confirmed:
			p.stats.Late++
			continue
		case t < p.joinTick:
			continue
		}
		k := t % inputRing
		p.inputs[k], p.have[k], p.arrived[k] = ev.inputs[i], t+1, ev.at
	}
}

// confirm confirms tick n, at the server clock's now: every player's
// input (or a substitute), the joins and leaves; runs it; and sends it to
// every client.
func (m *match) confirm(n uint64, now time.Duration) {
	s := m.s
	ct := &m.ct
	ct.Joins = append(ct.Joins[:0], m.joins[n]...)
	ct.Leaves = append(ct.Leaves[:0], m.leaves[n]...)
	slices.Sort(ct.Leaves)
	delete(m.joins, n)
	delete(m.leaves, n)
	for _, id := range ct.Leaves {
		if i := m.playerIndex(id); i >= 0 {
			p := m.players[i]
			p.stats.LeftTick = n
			m.players = slices.Delete(m.players, i, i+1)
			m.release(p) // gone: only players gone leave
		}
	}
	ct.Inputs = ct.Inputs[:0]
	due := m.deadline(n)
	for _, p := range m.players {
		if p.joinTick > n {
			continue
		}
		k := n % inputRing
		if p.have[k] == n+1 {
			p.last = p.inputs[k]
			p.stats.Inputs++
		} else {
			p.stats.Substituted++
		}
		ct.Inputs = append(ct.Inputs, wire.PlayerInput{Player: p.player, Input: p.last})
	}
	if !s.e.StepTick(m.at(n)) {
		m.err = s.e.Err()
		if m.err == nil {
			m.err = errors.New("netplay: server: a tick did not run")
		}
		s.log.WithError(m.err).WithField("tick", n).Error("the simulation failed; ending the match")
		m.finish(wire.EndFailed) // the clients are told it failed, not that it was shut down
		return
	}
	m.confirmed = n

	// Encode the tick once; each client's own flags and early time are
	// the message's last five bytes.
	m.msg.First = n
	t := &m.msg.Ticks[0]
	t.Joins, t.Leaves, t.Inputs, t.Early, t.Substituted = ct.Joins, ct.Leaves, ct.Inputs, 0, false
	m.buf = wire.AppendMessage(m.buf[:0], &m.msg)
	tail := m.buf[len(m.buf)-5:]
	for _, p := range m.peers {
		if !p.live {
			continue
		}
		tail[0] = 0
		binary.LittleEndian.PutUint32(tail[1:], 0)
		if p.role == wire.RolePlayer && p.joinTick <= n {
			k := n % inputRing
			early := due - now
			if p.have[k] == n+1 {
				early = due - p.arrived[k]
			} else {
				tail[0] = 1 // substituted
			}
			us := min(max(early/time.Microsecond, -1<<31), 1<<31-1)
			binary.LittleEndian.PutUint32(tail[1:], uint32(int32(us)))
		}
		p.out.queueBytes(m.buf)
	}
	fanout := s.now()
	for _, p := range m.players {
		if k := n % inputRing; p.joinTick <= n && p.have[k] == n+1 {
			p.latency.Add(fanout - p.arrived[k])
		}
	}
	m.tickTime.Add(fanout - now)
	s.cfg.Trace.tickConfirmed(n, fanout-now)

	if s.cfg.SnapshotEvery > 0 {
		var h wire.ConfirmedTick
		copyTick(&h, ct)
		h.Early, h.Substituted = 0, false
		m.history = append(m.history, h)
		if n%s.cfg.SnapshotEvery == 0 {
			m.keptTick, m.kept, m.history = n, s.e.Snapshot(), m.history[:0]
		}
	}
	if s.cfg.Ticks != 0 && n >= s.cfg.Ticks {
		m.finish(wire.EndTicks)
	}
}

func (m *match) playerIndex(id wire.PlayerID) int {
	for i, p := range m.players {
		if p.player == id {
			return i
		}
	}
	return -1
}
