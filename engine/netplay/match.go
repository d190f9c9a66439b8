package netplay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

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

	// The latest keyframe and the confirmed ticks since (KeyframeEvery).
	keyTick  uint64
	keyframe []byte
	history  []wire.ConfirmedTick

	tickTime Latencies
	desyncs  int
	started0 time.Duration // the server clock at the match's start
	ended0   time.Duration
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
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for !m.ended {
		m.advance()
		if m.ended {
			break
		}
		wait := time.Hour
		if m.started {
			wait = max(m.nextWake()-s.now(), 0)
		}
		timer.Reset(wait)
		select {
		case ev := <-s.events:
			m.handle(ev)
		case <-timer.C:
		case <-s.quit:
			m.finish(wire.EndShutdown)
		}
	}
	m.drain(timer)
	m.closeAll()
	return m.err
}

// drainTime is how long a server waits, after the match's end, for its
// clients' last hashes (of the last tick) and their goodbyes.
const drainTime = 2 * time.Second

// drain compares the hashes that arrive after the match's end, until
// every client has gone or drainTime has passed.
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
				ev.p.gone, ev.p.until = true, m.s.now()
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
// input for n.
func (m *match) allIn(n uint64) bool {
	for _, p := range m.players {
		if p.joinTick <= n && p.have[n%inputRing] != n+1 && !m.leavesAt(p, n) {
			return false
		}
	}
	return true
}

func (m *match) leavesAt(p *peer, n uint64) bool { return slices.Contains(m.leaves[n], p.player) }

// advance confirms every tick whose time has come.
func (m *match) advance() {
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

// letIn answers a client whose handshake succeeded: it refuses it when
// there is no room, holds it until the match starts, or welcomes it into
// the running match.
func (m *match) letIn(p *peer) {
	s := m.s
	// A refused client is sent why, and its connection closed: its
	// reader stops (outbox.drop), whatever the client goes on sending.
	refuse := func(r *wire.Refuse) {
		p.out.drop(dropped(errors.New(r.String()), r))
		p.gone = true
		s.bad.warn("refused", logrus.Fields{"conn": p.id, "remote": p.remote, "reason": r.String()}, "refused a client")
	}
	if m.ended {
		refuse(wire.RefuseShutdown())
		return
	}
	if p.role == wire.RoleSpectator {
		n := 0
		for _, q := range m.peers {
			if q.role == wire.RoleSpectator && !q.gone {
				n++
			}
		}
		if n >= s.cfg.MaxSpectators {
			refuse(&wire.Refuse{Reason: wire.ReasonFull, Text: fmt.Sprintf("the match has no room for another spectator (%d)", n)})
			return
		}
	} else {
		if len(m.players) >= s.cfg.MaxPlayers {
			refuse(wire.RefuseFull(len(m.players)))
			return
		}
		p.player = m.freeID()
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
	log := p.logger(s.log)
	if !m.started {
		m.waiting = append(m.waiting, p)
		if n := m.waitingPlayers(); n < s.cfg.Players {
			log.WithFields(logrus.Fields{"players": n, "needed": s.cfg.Players}).Info("client in; waiting for players")
			return
		}
		m.start()
		return
	}
	m.welcomeLate(p)
	log.WithFields(logrus.Fields{"join_tick": p.joinTick, "snapshot_tick": m.confirmed}).Info("client joined the running match")
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
	if s.cfg.KeyframeEvery > 0 {
		m.keyTick, m.keyframe = 0, nil // tick 0: the scene's initial state
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
// keyframe, or of the last confirmed tick) and the confirmed ticks since,
// then the live ticks; a player joins joinLead ticks ahead.
func (m *match) welcomeLate(p *peer) {
	s := m.s
	if p.role == wire.RolePlayer {
		p.joinTick = m.confirmed + 1 + m.joinLead()
		m.joins[p.joinTick] = append(m.joins[p.joinTick], p.player)
		slices.Sort(m.joins[p.joinTick])
	}
	snapTick, snap := m.confirmed, []byte(nil)
	if s.cfg.KeyframeEvery > 0 {
		snapTick, snap = m.keyTick, m.keyframe
	} else if snapTick > 0 {
		snap = s.e.Snapshot()
	}
	p.out.queue(m.welcome(p, snapTick+1, snapTick))
	if snapTick > 0 {
		p.out.queue(&wire.Snapshot{Tick: snapTick, Data: snap})
	}
	if s.cfg.KeyframeEvery > 0 {
		for first := 0; first < len(m.history); first += wire.MaxConfirmedRun {
			run := m.history[first:min(first+wire.MaxConfirmedRun, len(m.history))]
			p.out.queue(&wire.Confirmed{First: snapTick + 1 + uint64(first), Ticks: run})
		}
	}
	p.live = true
}

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
		m.finish(wire.EndShutdown)
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

	if s.cfg.KeyframeEvery > 0 {
		var h wire.ConfirmedTick
		copyTick(&h, ct)
		h.Early, h.Substituted = 0, false
		m.history = append(m.history, h)
		if n%s.cfg.KeyframeEvery == 0 {
			m.keyTick, m.keyframe, m.history = n, s.e.Snapshot(), m.history[:0]
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
}

// gone acts on a connection that ended: a player in the match leaves at
// the next tick; one about to join does not.
func (m *match) gone(p *peer, err error) {
	s := m.s
	if p.gone {
		return
	}
	p.gone, p.live, p.until = true, false, s.now()
	p.out.close()
	m.waiting = slices.DeleteFunc(m.waiting, func(q *peer) bool { return q == p })
	fields := logrus.Fields{}
	if err != nil {
		fields["error"] = err.Error()
	}
	if errors.Is(err, errOutboxFull) {
		s.bad.warn("slow reader", logrus.Fields{"conn": p.id, "remote": p.remote, "error": err}, "dropped a connection that reads too slowly")
	}
	if p.role == wire.RolePlayer {
		m.drop(p, fields)
	}
	p.logger(s.log).WithFields(fields).Info("client left")
	if i := m.playerIndex(p.player); i < 0 || m.players[i] != p {
		m.release(p) // not in the match, or no longer about to join it
	}
}

// reportRowsKept is how many rows of clients released the match report
// keeps: the latest; the earlier are counted in Report.Omitted. Every
// client ever let in would make the server's memory grow with churn.
const reportRowsKept = 256

// A reportRow is a released client's row of the report, with the order it
// was let in.
type reportRow struct {
	seq int
	r   PlayerReport
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

// row is p's row of the report.
func (m *match) row(p *peer) PlayerReport {
	st := p.stats
	st.JoinTick = p.joinTick
	if p.playerInputs != nil {
		st.Latency = percentiles(&p.latency)
	}
	st.BytesUp, st.BytesDown = p.bytesIn.Load(), p.out.sent.Load()
	if u, ok := p.conn.(udpStats); ok { // the packets' payloads
		s := u.Stats()
		st.BytesUp, st.BytesDown = s.BytesReceived, s.BytesSent
	}
	st.Connected = max(p.until-p.since, 0)
	return st
}

// drop takes a player whose connection ended out of the match: it leaves
// at the next tick, or, if it would not be in the match by then, never
// joins (a player cannot join and leave in one tick).
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
		return
	}
	m.leaves[next] = append(m.leaves[next], p.player)
	fields["leave_tick"] = next
}

// finish ends the match: every client is told, and what is queued for it
// is sent.
func (m *match) finish(reason wire.EndReason) {
	if m.ended {
		return
	}
	m.ended, m.ended0 = true, m.s.now()
	for _, p := range m.peers {
		if p.live {
			p.out.queue(&wire.End{Tick: m.confirmed, Reason: reason})
		}
		p.out.close()
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

// report builds the match report.
func (m *match) report() Report {
	r := Report{Ticks: m.confirmed, Desyncs: m.desyncs, Spectators: m.spectators, Omitted: m.omitted}
	r.TickTime = percentiles(&m.tickTime)
	if m.started {
		r.Duration = m.ended0 - m.started0
	}
	rows := slices.Clone(m.left)
	for _, p := range m.peers {
		rows = append(rows, reportRow{p.seq, m.row(p)})
	}
	slices.SortFunc(rows, func(a, b reportRow) int { return a.seq - b.seq })
	for _, row := range rows {
		r.Players = append(r.Players, row.r)
	}
	return r
}
