package netplay

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// hashRing is how many of its latest hashes (and, with a dump directory,
// saved states) the server keeps: a client's hash more than that many
// hash intervals late is not compared.
const hashRing = 8

// match is the state of a server's match, owned by the match goroutine
// (Server.Serve): nothing else touches it, except origin, read atomically.
type match struct {
	s    *Server
	rate time.Duration // ticks per second
	dt   time.Duration // a tick, rounded to the nanosecond (for waits)

	// origin is the server clock's value at the match clock's zero:
	// tick n's deadline is at origin + n*dt. Set when the match starts.
	origin  atomic.Int64
	started bool
	resumed bool // ResumeServer's: the clock starts when Serve does (startResumed)
	ended   bool
	err     error

	confirmed uint64 // the last confirmed tick
	// peers are the clients let in and not yet released: those still
	// connected, and players gone whose leave is not confirmed yet. A
	// client released leaves its row of the report in left.
	peers      []*peer
	admitted   int // clients let in so far
	spectators int // spectators let in so far
	left       []reportRow
	omitted    int     // rows dropped from left (reportRowsKept)
	waiting    []*peer // let in before the match started
	players    []*peer // in the match or about to join it, by player ID
	joins      map[uint64][]wire.PlayerID
	leaves     map[uint64][]wire.PlayerID

	// The tick being confirmed, its message, and the encoding buffer.
	ct  wire.ConfirmedTick
	msg wire.Confirmed
	buf []byte

	hashes [hashRing]struct{ tick, hash uint64 }
	states [hashRing]engine.State
	dumped map[uint64]string // the server's dump of each desynchronised tick (at most MaxDumps)

	// The latest snapshot kept and the confirmed ticks since
	// (ServerConfig.SnapshotEvery).
	keptTick uint64
	kept     []byte
	history  []wire.ConfirmedTick

	tickTime Latencies
	desyncs  int
	// The players and spectators connected that the trace's
	// PlayersChanged last said (tracePlayers).
	tracedPlayers, tracedSpectators int
	started0                        time.Duration // the server clock at the match's start
	nextSummary                     time.Duration // the server clock at the next rateLog.flushDue
	ended0                          time.Duration

	resumedAt uint64 // the tick a resumed match continued from
}

func (m *match) init(s *Server) {
	m.s = s
	m.rate = time.Duration(s.e.Loop.TickRate())
	m.dt = time.Second / m.rate
	m.joins = map[uint64][]wire.PlayerID{}
	m.leaves = map[uint64][]wire.PlayerID{}
	m.dumped = map[uint64]string{}
	m.msg.Ticks = make([]wire.ConfirmedTick, 1)
}

// clock returns the match clock: 0 at the match's start minus a tick, so
// tick n's deadline is at n*dt. Safe from any goroutine.
func (m *match) clock() time.Duration { return m.s.now() - time.Duration(m.origin.Load()) }

// deadline is tick n's deadline on the server's clock.
func (m *match) deadline(n uint64) time.Duration {
	return time.Duration(m.origin.Load()) + m.at(n)
}

// at is tick n's time on the match clock, n/rate seconds, exact to the
// nanosecond at any n (no drift from rounding the tick).
func (m *match) at(n uint64) time.Duration {
	return time.Duration(n/uint64(m.rate))*time.Second + time.Duration(n%uint64(m.rate))*time.Second/m.rate
}

// run is the match goroutine.
func (m *match) run() error {
	s := m.s
	m.startResumed()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for !m.ended {
		m.advance()
		if m.ended {
			break
		}
		wait := summaryEvery
		if m.started {
			wait = min(max(m.nextWake()-s.now(), 0), wait)
		}
		timer.Reset(wait)
		select {
		case ev := <-s.events:
			m.handle(ev)
		case <-timer.C:
		case <-s.quit:
			m.finish(wire.EndShutdown)
		}
		if now := s.now(); now >= m.nextSummary {
			s.bad.flushDue()
			m.nextSummary = now + summaryEvery
		}
	}
	m.drain(timer)
	m.closeAll()
	// Every connection is closed: no client is connected any more.
	for _, p := range m.peers {
		p.gone = true
	}
	m.tracePlayers()
	return m.err
}

// summaryEvery is how often the match goroutine has the server's
// rate-limited log report the lines it held back (rateLog.flushDue).
const summaryEvery = time.Second

// drainTime is how long a server waits, after the match's end, for its
// clients' last hashes (of the last tick) and their goodbyes.
const drainTime = 2 * time.Second

// drain compares the hashes that arrive after the match's end, and
// resynchronises a client they show out of sync, until every client has
// gone or drainTime has passed.
func (m *match) drain(timer *time.Timer) {
	timer.Reset(drainTime)
	for m.anyLive() {
		select {
		case ev := <-m.s.events:
			switch ev.kind {
			case evHello:
				m.letIn(ev.p) // refused: the match is over
			case evHash:
				m.hash(ev.p, ev.hash)
			case evGone:
				// What is queued for it (a resync) goes out, then its
				// connection closes (Server.handle).
				ev.p.gone, ev.p.until = true, m.s.now()
				ev.p.out.close()
				m.tracePlayers()
			}
		case <-timer.C:
			return
		case <-m.s.quit:
			return
		}
	}
}

// anyLive reports whether a client let in is still connected.
func (m *match) anyLive() bool {
	for _, p := range m.peers {
		if !p.gone {
			return true
		}
	}
	return false
}

// nextWake is when the next tick may be confirmed: its deadline, or with
// an input missing, its deadline plus the tolerance.
func (m *match) nextWake() time.Duration {
	n := m.confirmed + 1
	d := m.deadline(n)
	if m.s.now() >= d && !m.allIn(n) {
		d += m.s.cfg.Tolerance
	}
	return d
}

// allIn reports whether every player in the match at tick n has sent its
// input for n. A player whose client is gone (a seat a resumed server
// holds: ResumeServer) sends none: it is not waited for.
func (m *match) allIn(n uint64) bool {
	for _, p := range m.players {
		if p.joinTick <= n && p.have[n%inputRing] != n+1 && !m.leavesAt(p, n) && p.away == 0 && !p.gone {
			return false
		}
	}
	return true
}

func (m *match) leavesAt(p *peer, n uint64) bool { return slices.Contains(m.leaves[n], p.player) }

// advance confirms every tick whose time has come.
func (m *match) advance() {
	if m.s.cfg.RejoinGrace > 0 && m.started && !m.ended {
		m.expireAway(m.s.now())
	}
	for m.started && !m.ended {
		n := m.confirmed + 1
		now := m.s.now()
		d := m.deadline(n)
		if now < d || now < d+m.s.cfg.Tolerance && !m.allIn(n) {
			return
		}
		m.confirm(n, now)
	}
}

// handle acts on what a connection's goroutine reports.
func (m *match) handle(ev event) {
	p := ev.p
	switch ev.kind {
	case evHello:
		m.letIn(p)
	case evInput:
		m.input(p, ev)
	case evHash:
		m.hash(p, ev.hash)
	case evGone:
		m.gone(p, ev.err)
	}
}
