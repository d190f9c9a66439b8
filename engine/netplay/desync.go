package netplay

import (
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// saveHash keeps the server's hash of tick (and its state, for a dump).
func (m *match) saveHash(tick, hash uint64) {
	i := (tick / HashEvery) % hashRing
	m.hashes[i].tick, m.hashes[i].hash = tick, hash
	if m.s.cfg.DumpDir != "" {
		m.s.e.SaveState(&m.states[i])
	}
}

// hash compares a client's hash with the server's; on a mismatch it
// reports the desync, writes the server's dump (at most MaxDumps in the
// match) and resynchronises the client: it sends the client the Desync
// and a snapshot of the last confirmed tick to restore (resync).
//
// A client's hashes count only for ticks past its last one compared: a
// 21-byte Hash may cost the server a snapshot, a dump and a log line, so
// a hostile client that repeats wrong hashes gets none of those more
// often than an honest one that desyncs. For the same reason a client is
// resynchronised at most once per ResyncEvery while the match runs; a
// wrong hash within it is counted and leaves the resynchronisation due,
// for the next wrong hash past the interval or the match's end
// (finish), whichever comes first: a client out of sync and still
// connected is resynchronised however late its hashes arrive.
//
// A hash of a tick no later than the snapshot of the client's latest
// resynchronisation was computed before the client restored it (it was on
// its way, or the client simulated ahead of it): it is the desync already
// answered, not a new one, and is not compared.
func (m *match) hash(p *peer, h wire.Hash) {
	s := m.s
	if p.gone {
		return
	}
	i := (h.Tick / HashEvery) % hashRing
	if h.Tick == 0 || h.Tick%HashEvery != 0 || m.hashes[i].tick != h.Tick {
		if h.Tick > m.confirmed {
			s.bad.warn("hash out of window", logrus.Fields{"conn": p.id, "remote": p.remote, "tick": h.Tick, "confirmed": m.confirmed},
				"ignored a hash for a tick not yet confirmed")
		}
		return
	}
	if h.Tick <= p.lastHash {
		s.bad.warn("hash repeated", logrus.Fields{"conn": p.id, "remote": p.remote, "tick": h.Tick, "last_hash_tick": p.lastHash},
			"ignored a hash for a tick no later than the client's last one")
		return
	}
	p.lastHash = h.Tick
	if h.Tick <= p.resyncTick {
		return // computed before the client restored the resync's snapshot
	}
	p.stats.Hashes++
	server := m.hashes[i].hash
	if h.Hash == server {
		p.resyncDue = nil
		return
	}
	m.desyncs++
	p.stats.Desyncs++
	s.cfg.Trace.desync()
	fields := logrus.Fields{"conn": p.id, "remote": p.remote, "tick": h.Tick,
		"server_hash": fmt.Sprintf("%016x", server), "client_hash": fmt.Sprintf("%016x", h.Hash)}
	if p.name != "" {
		fields["name"] = p.name
	}
	if p.role == wire.RolePlayer {
		fields["player"] = p.player
	}
	if s.cfg.DumpDir != "" {
		path, ok := m.dumped[h.Tick]
		if !ok && m.states[i].Tick() == h.Tick {
			if len(m.dumped) < s.cfg.MaxDumps {
				path = dumpPath(s.cfg.DumpDir, h.Tick, "server")
				if err := writeDump(s.e, &m.states[i], path); err != nil {
					s.bad.error("dump", logrus.Fields{"error": err}, "cannot write the server's state dump")
					path = ""
				}
				m.dumped[h.Tick] = path
			} else {
				fields["dump"] = fmt.Sprintf("none: the match's %d dumps are written", s.cfg.MaxDumps)
			}
		}
		if path != "" {
			fields["dump"] = path
		}
	}
	d := &wire.Desync{Tick: h.Tick, Server: server, Client: h.Hash}
	now := s.now()
	if !m.ended && p.resynced != 0 && now-p.resynced < s.cfg.ResyncEvery {
		// The match's end resynchronises the client if no later hash
		// past the interval does (finish).
		p.resyncDue = d
		fields["next_resync_in"] = (s.cfg.ResyncEvery - (now - p.resynced)).Round(time.Millisecond)
		s.bad.error("desync", fields, "desync: the client's state hash differs from the server's again; it was resynchronised less than the resync interval ago, and will be at the next wrong hash past it or at the match's end")
		return
	}
	s.bad.error("desync", fields, "desync: the client's state hash differs from the server's; resynchronising it")
	m.resync(p, d)
}

// resync sends p the desync d and a snapshot of the last confirmed tick to
// restore.
func (m *match) resync(p *peer, d *wire.Desync) {
	s := m.s
	p.resynced, p.resyncTick, p.resyncDue = max(s.now(), 1), m.confirmed, nil
	p.out.queue(d)
	p.out.queue(&wire.Snapshot{Tick: m.confirmed, Data: s.e.Snapshot()})
	s.cfg.Trace.resync()
}
