package netplay

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/timing"
)

// The client is a rollback.Source: the engine's rollback session
// (Attach makes it) takes the confirmed ticks from it, predicts past them
// up to ClientConfig.Predict ticks, and reports each tick once confirmed
// (confirmed, below). With Predict 0 the session is lockstep: every tick
// waits for its confirmed inputs.

// Sync implements rollback.Source. At the start of every frame it
// writes the dumps of reported desyncs, restores a snapshot the server
// sent (a late join's start, or a resynchronisation after a desync),
// tells the session where the match ends, and, in a window, steers the
// engine's tick clock (see steer).
func (c *Client) Sync() (restored bool) {
	e := c.e
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return false
	}
	for _, d := range c.desyncs {
		c.dump(d)
	}
	c.desyncs = c.desyncs[:0]
	if c.snap != nil {
		snap, tick := c.snap, c.snapTick
		c.snap = nil
		resync := c.simTick.Load() > 0
		if err := e.Restore(snap); err != nil {
			c.failLocked(fmt.Errorf("server %s sent a snapshot that cannot be restored: %w", c.addr, err))
			return false
		}
		if e.World.Tick() != tick {
			c.failLocked(fmt.Errorf("server %s sent a snapshot of tick %d labelled %d", c.addr, e.World.Tick(), tick))
			return false
		}
		c.simTick.Store(tick)
		if resync {
			c.stats.Resyncs++
			c.log.WithField("tick", tick).Info("resynchronised from the server's snapshot")
		}
		restored = true
	}
	if c.ended {
		// Done waits for this: a match whose end arrived after this
		// frame's Sync, while the session predicted past it, is not
		// done until the next StartFrame has gone back to its last tick.
		c.rb.EndAt(c.endTick)
		c.endTaken.Store(true)
		c.finishIfDone()
	}
	if !c.headless {
		c.steer(e)
	}
	return restored
}

// Confirmed implements rollback.Source: tick's confirmed players
// and inputs, once they have arrived.
func (c *Client) Confirmed(tick uint64, p *engine.Players) bool {
	c.mu.Lock()
	if c.err != nil || c.n == 0 {
		c.mu.Unlock()
		return false
	}
	if t := c.peekTick(); t != tick {
		c.failLocked(fmt.Errorf("netplay: client: the next confirmed tick is %d, the engine's next is %d", t, tick))
		c.mu.Unlock()
		return false
	}
	copyTick(&c.cur, &c.ring[c.head])
	c.pop()
	c.mu.Unlock()
	if err := applyTick(p, &c.cur); err != nil {
		c.fail(fmt.Errorf("server %s: confirmed tick %d does not fit the match: %w", c.addr, tick, err))
		return false
	}
	return true
}

// Local implements rollback.Source: the input this client sampled
// for tick, or its latest for a tick past those.
func (c *Client) Local(tick uint64) (engine.PlayerID, input.Sample, bool) {
	if c.cfg.Role != wire.RolePlayer {
		return 0, input.Sample{}, false
	}
	c.inMu.Lock()
	defer c.inMu.Unlock()
	if s := &c.sampled[tick%uint64(len(c.sampled))]; s.tick == tick && tick != 0 {
		return engine.PlayerID(c.welcome.Player), s.in, true
	}
	if c.lastSampled != 0 && tick > c.lastSampled {
		return engine.PlayerID(c.welcome.Player), c.sampled[c.lastSampled%uint64(len(c.sampled))].in, true
	}
	return 0, input.Sample{}, false
}

// dump writes the client's state at a desynchronised tick, if it kept it.
// c.mu is held.
func (c *Client) dump(d wire.Desync) {
	if c.cfg.DumpDir == "" {
		return
	}
	st := &c.states[(d.Tick/HashEvery)%hashRing]
	if st.Tick() != d.Tick {
		c.log.WithField("tick", d.Tick).Warn("no dump of the desynchronised tick: its state is no longer kept")
		return
	}
	who := "spectator"
	if c.cfg.Role == wire.RolePlayer {
		who = fmt.Sprintf("player%d", c.welcome.Player)
	}
	path := dumpPath(c.cfg.DumpDir, d.Tick, who)
	if err := writeDump(c.e, st, path); err != nil {
		c.log.WithError(err).Error("cannot write the state dump")
		return
	}
	c.log.WithFields(logrus.Fields{"tick": d.Tick, "dump": path}).Error("desync: wrote this client's state at the tick (diff it with the server's)")
}

// confirmed is the rollback session's report of a tick simulated with its
// confirmed inputs: every HashEvery ticks the client sends its state hash
// (and keeps its state, for a dump).
func (c *Client) confirmed(tick, hash uint64, st *engine.State) {
	c.simTick.Store(tick)
	if tick%HashEvery == 0 {
		if c.cfg.DumpDir != "" {
			c.states[(tick/HashEvery)%hashRing].CopyFrom(st)
		}
		select {
		case c.hashes <- wire.Hash{Tick: tick, Hash: hash}:
		default: // the sender is far behind; the next hash will do
		}
	}
	c.mu.Lock()
	c.finishIfDone()
	c.mu.Unlock()
}

// RunHeadless simulates the match's ticks until the match ends and its
// last tick is simulated (nil), the connection fails, the simulation
// panics (the engine's *engine.PanicError) or ctx is done. In lockstep it
// simulates each tick as soon as its confirmed inputs arrive, as fast as
// the CPU allows; with prediction it simulates each tick when its own
// input is sampled (the client's input clock), predicting the others.
func (c *Client) RunHeadless(ctx context.Context) error {
	e := c.e
	if e == nil {
		return fmt.Errorf("netplay: client: RunHeadless before Attach")
	}
	c.headless = true
	var timer *time.Timer
	var wake <-chan time.Time
	for {
		c.rb.StartFrame()
		target, next := c.headlessTarget()
		for e.World.Tick() < target && e.StepTick(engine.TickTime(e.World.Tick()+1, int(c.rate))) {
		}
		if err := e.Err(); err != nil {
			return err
		}
		if c.Done() {
			return nil
		}
		if err := c.Err(); err != nil {
			return err
		}
		wake = nil
		if next > 0 {
			if timer == nil {
				timer = time.NewTimer(next)
				defer timer.Stop()
			} else {
				timer.Reset(next)
			}
			wake = timer.C
		}
		select {
		case <-c.notify:
		case <-wake:
		case <-c.failed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// headlessTarget is the tick a headless client simulates up to now, and
// how long until that changes (0: when a message arrives). In lockstep it
// is every tick there is; with prediction, the last tick whose own input
// the client has sampled (its input clock's tick plus the input delay),
// but no further than the prediction window past the last tick received
// (a round trip longer than the window delays the client's picture
// rather than stalling it every tick), or the confirmed ticks while the
// clock is not set yet.
func (c *Client) headlessTarget() (uint64, time.Duration) {
	if c.cfg.Predict == 0 || c.cfg.Role != wire.RolePlayer {
		return math.MaxUint64, 0
	}
	c.mu.Lock()
	clk := c.clk
	window := c.next - 1 + uint64(c.cfg.Predict) // the last tick received, plus the window
	c.mu.Unlock()
	if !clk.haveOff {
		return c.rb.Available(), 0
	}
	now := c.now()
	l := c.firstLocalTick(&clk, now) - 1 // the last local tick whose send time has come
	return min(l+uint64(c.delay), window), max(clk.sendTime(l+1, c.rate)-now, 0) + time.Millisecond/4
}

// steer sets the engine loop's speed so that its ticks keep their place:
// in lockstep, about a tick and a half behind the last confirmed tick
// received (so that a tick's inputs are there when the tick is due,
// without waiting behind a backlog); with prediction, half a tick behind
// the tick whose own input the client samples now (so that a tick never
// runs before its own input is sampled), but not past the prediction
// window.
// Where the loop is counts the time it owes (timing.Loop.Owed): a loop
// that held ticks is further ahead than its alpha says. The gap is
// smoothed over about 20 frames. The speed is 1 plus 2% per tick of gap,
// from 0.97 to 1.03 times real time; more than two ticks ahead it slows
// down to as little as half real time (a loop that held ticks at the
// start of the match owes several), and more than six behind (after a stall, or
// a minimised window) it catches up at up to twice real time. It moves
// in steps of 1%, and only when the speed wanted is a step away from the
// current one, so that noise does not flip it. Every change counts in
// ClientReport.ClockAdjustments. c.mu is held.
func (c *Client) steer(e *engine.Engine) {
	if c.next == 0 {
		return
	}
	// Where the loop will be once this frame's time is fed in (the last
	// frame's interval stands for this one's, which is not known yet).
	at := float64(e.World.Tick()) + e.Loop.Owed() + e.Loop.Stats().Interval.Seconds()*float64(c.rate)*e.Loop.Speed()
	received := float64(c.next - 1)
	ref := received - 1
	if c.cfg.Predict > 0 && c.cfg.Role == wire.RolePlayer && c.clk.haveOff {
		// Half a tick behind the last tick whose own input is sampled,
		// so that the frame that runs a tick never comes before the
		// sample for it.
		lt := c.now() + c.clk.lead + c.clk.off
		local := lt.Seconds()*float64(c.rate) + float64(c.delay) - 0.5
		ref = min(local, received+float64(c.cfg.Predict)-1)
	}
	if !c.steering { // the first measure: no history to smooth
		c.gap, c.steering = ref-at, true
	}
	c.gap += (ref - at - c.gap) * 0.05
	want := 1 + min(max(c.gap*0.02, -0.03), 0.03)
	switch {
	case c.gap > 6:
		want = min(1.03+0.1*(c.gap-6), timing.MaxSpeed)
	case c.gap < -2:
		want = max(0.97+0.1*(c.gap+2), timing.MinSpeed)
	}
	if cur := e.Loop.Speed(); math.Abs(want-cur) >= 0.01 || want == 1 && math.Abs(want-cur) >= 0.005 {
		_ = e.Loop.SetSpeed(math.Round(want*100) / 100) // within MinSpeed to MaxSpeed
		c.stats.ClockAdjustments++
	}
}

// sendLoop writes everything the client sends: its inputs, on the input
// clock; its hashes; pings; and Bye when it closes.
func (c *Client) sendLoop() {
	defer close(c.sendDone)
	w := wire.NewWriter(countingWriter{c.conn, &c.bytesUp})
	write := func(m wire.Message) bool {
		c.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
		if err := w.WriteMessage(m); err != nil {
			_, ended := c.End()
			switch {
			case ended:
				// The End follows the last confirmed tick: the client
				// needs nothing more from the server, which closes the
				// connection once the match is over. A client still
				// simulating the last ticks (a loaded machine, a window
				// that was minimised) finishes them alone, as readLoop
				// lets it.
			case closedByPeer(err):
				// The server closed the connection: if it said why
				// first, the reader is about to say so.
				select {
				case <-c.readDone:
				case <-time.After(time.Second):
				}
				c.fail(c.wentAway())
			default:
				c.fail(fmt.Errorf("cannot send to server %s: %w", c.addr, err))
			}
			return false
		}
		return true
	}
	// Ping fast at first, to synchronise the clock, then every
	// pingEvery.
	ping := time.NewTicker(pingEvery / 8)
	defer ping.Stop()
	pings := 0
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	attached := c.attached
	player := c.cfg.Role == wire.RolePlayer
	var next uint64 // the next local tick to send input for; 0: not started
	var in wire.Input
	if !write(&wire.Ping{Time: c.now()}) {
		return
	}
	for {
		select {
		case <-c.closed:
			write(&wire.Bye{})
			return
		case <-c.finished:
			// The match is over and its last tick simulated: send the
			// last hash, say goodbye, and let the server close the
			// connection (the reader goes on until it does).
			for len(c.hashes) > 0 { // this goroutine alone receives
				if h := <-c.hashes; !write(&h) {
					return
				}
			}
			write(&wire.Bye{})
			return
		case <-c.failed:
			return
		case h := <-c.hashes:
			if !write(&h) {
				return
			}
		case <-ping.C:
			if !write(&wire.Ping{Time: c.now()}) {
				return
			}
			if pings++; pings == 8 {
				ping.Reset(c.pingEvery())
			}
		case <-attached:
			attached = nil
		case <-timer.C:
		}
		if !player || attached != nil {
			continue
		}
		c.mu.Lock()
		clk := c.clk
		c.mu.Unlock()
		if !clk.haveOff {
			continue
		}
		now := c.now()
		if next == 0 {
			next = c.firstLocalTick(&clk, now)
		}
		if behind := now - clk.sendTime(next, c.rate); behind > time.Second {
			// The client stalled: skip to the present rather than send a
			// second of stale input (the server substitutes those ticks).
			next = c.firstLocalTick(&clk, now)
		}
		in.Inputs = in.Inputs[:0]
		for clk.sendTime(next, c.rate) <= now && len(in.Inputs) < wire.MaxInputRun {
			in.Inputs = append(in.Inputs, c.sample(next+uint64(c.delay)))
			next++
		}
		if n := len(in.Inputs); n > 0 {
			in.First = next - uint64(n) + uint64(c.delay)
			if !write(&in) {
				return
			}
			c.mu.Lock()
			c.stats.Sent += uint64(n)
			c.mu.Unlock()
		}
		timer.Reset(max(clk.sendTime(next, c.rate)-c.now(), 0))
	}
}

// firstLocalTick is the first local tick whose send time is not past.
func (c *Client) firstLocalTick(clk *clockSync, now time.Duration) uint64 {
	at := now + clk.lead + clk.off // the match clock at the send time
	n := uint64(1)
	if at > 0 {
		n = uint64(at/time.Second)*uint64(c.rate) + uint64((at%time.Second)*c.rate/time.Second) + 1
	}
	for n > 1 && clk.sendTime(n-1, c.rate) >= now {
		n--
	}
	return max(n, 1)
}

// sample returns the local player's input for tick: the script's, or the
// device events pushed since the last sample.
func (c *Client) sample(tick uint64) input.Sample {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	var in input.Sample
	if c.script != nil {
		due := engine.TickTime(tick, int(c.rate))
		c.script(tick, due, &c.local)
		in = c.local.Advance(due)
	} else {
		in = c.local.Advance(c.now())
	}
	c.sampled[tick%uint64(len(c.sampled))] = sampledInput{tick, in}
	c.lastSampled = max(c.lastSampled, tick)
	return in
}

// sampledInput is the local input sampled for a tick.
type sampledInput struct {
	tick uint64
	in   input.Sample
}
