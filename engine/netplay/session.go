package netplay

import (
	"context"
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// OwnsPlayers implements engine.PlayerOwner: the server's confirmed ticks
// say who plays, with what input.
func (c *Client) OwnsPlayers() bool { return true }

// PreTick implements engine.TickHook.
func (c *Client) PreTick() {}

// TickReady implements engine.TickGate: tick n runs once its confirmed
// inputs are here. Between ticks, it also restores a snapshot the server
// sent (a late join's start, or a resynchronisation after a desync) and
// writes the dumps of reported desyncs.
func (c *Client) TickReady(n uint64) bool {
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
		if err := c.e.Restore(snap); err != nil {
			c.failLocked(fmt.Errorf("server %s sent a snapshot that cannot be restored: %w", c.addr, err))
			return false
		}
		if c.e.World.Tick() != tick {
			c.failLocked(fmt.Errorf("server %s sent a snapshot of tick %d labelled %d", c.addr, c.e.World.Tick(), tick))
			return false
		}
		c.simTick.Store(tick)
		if resync {
			c.stats.Resyncs++
			c.log.WithField("tick", tick).Info("resynchronised from the server's snapshot")
		}
		n = tick + 1
	}
	if c.n == 0 {
		return false
	}
	if t := c.peekTick(); t != n {
		c.failLocked(fmt.Errorf("netplay: client: the next confirmed tick is %d, the engine's next is %d", t, n))
		return false
	}
	return true
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

// BeginTick implements engine.TickHook: the tick's players and inputs
// are the confirmed tick's.
func (c *Client) BeginTick(t *engine.TickInfo) {
	c.mu.Lock()
	copyTick(&c.cur, &c.ring[c.head])
	c.pop()
	c.mu.Unlock()
	if err := applyTick(t.Players, &c.cur); err != nil {
		c.fail(fmt.Errorf("server %s: confirmed tick %d does not fit the match: %w", c.addr, t.Tick, err))
	}
}

// JobApplied implements engine.TickHook.
func (c *Client) JobApplied(uint64, engine.JobID, []byte) {}

// EndTick implements engine.TickHook: every HashEvery ticks the client
// sends its state hash (and keeps its state, for a dump).
func (c *Client) EndTick(tick uint64, w *engine.World) {
	c.simTick.Store(tick)
	if tick%HashEvery == 0 {
		if c.cfg.DumpDir != "" {
			c.e.SaveState(&c.states[(tick/HashEvery)%hashRing])
		}
		select {
		case c.hashes <- wire.Hash{Tick: tick, Hash: w.Hash()}:
		default: // the sender is far behind; the next hash will do
		}
	}
	c.mu.Lock()
	c.finishIfDone()
	c.mu.Unlock()
}

// RunHeadless simulates the match's ticks as their confirmed inputs
// arrive, as fast as the CPU allows, until the match ends and its last
// tick is simulated (nil), the connection fails, the simulation panics
// (the engine's *engine.PanicError) or ctx is done.
func (c *Client) RunHeadless(ctx context.Context) error {
	e := c.e
	if e == nil {
		return fmt.Errorf("netplay: client: RunHeadless before Attach")
	}
	for {
		for e.StepTick(engine.TickTime(e.World.Tick()+1, int(c.rate))) {
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
		select {
		case <-c.notify:
		case <-c.failed:
		case <-ctx.Done():
			return ctx.Err()
		}
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
				c.fail(c.wentAway())
			default:
				c.fail(fmt.Errorf("cannot send to server %s: %w", c.addr, err))
			}
			return false
		}
		return true
	}
	// Ping fast at first, to synchronise the clock, then twice a second.
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
				ping.Reset(pingEvery)
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
func (c *Client) sample(tick uint64) engine.InputSnapshot {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	if c.script != nil {
		due := engine.TickTime(tick, int(c.rate))
		c.script(tick, due, &c.local)
		return c.local.Advance(due)
	}
	return c.local.Advance(c.now())
}
