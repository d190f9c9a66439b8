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
// match) and, at most once per ResyncEvery, sends the client the Desync
// and a snapshot to resynchronise from. A client's hashes count only for
// ticks past its last one compared: a 21-byte Hash may cost the server a
// snapshot, a dump and a log line, so a hostile client that repeats wrong
// hashes gets none of those more often than an honest one that desyncs.
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
	p.stats.Hashes++
	server := m.hashes[i].hash
	if h.Hash == server {
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
	now := s.now()
	if p.resynced != 0 && now-p.resynced < s.cfg.ResyncEvery {
		fields["next_resync_in"] = (s.cfg.ResyncEvery - (now - p.resynced)).Round(time.Millisecond)
		s.bad.error("desync", fields, "desync: the client's state hash differs from the server's again; it was resynchronised less than the resync interval ago")
		return
	}
	p.resynced = max(now, 1)
	s.bad.error("desync", fields, "desync: the client's state hash differs from the server's; resynchronising it")
	p.out.queue(&wire.Desync{Tick: h.Tick, Server: server, Client: h.Hash})
	p.out.queue(&wire.Snapshot{Tick: m.confirmed, Data: s.e.Snapshot()})
	s.cfg.Trace.resync()
}
