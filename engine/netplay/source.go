package netplay

import (
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/engine/rollback"
)

// Attach adds to e, from e's tick 0, a rollback session fed by the client
// (rollback.New), which becomes the tick hook of e that steers (another,
// a recorder, may sit beside it): e must be built from the Welcome's
// parameters and tick rate. script, if not nil,
// is the player's input (a headless client's script, called for every
// tick the client sends input for, with that tick); otherwise the input
// is what LocalInput queued. The local player's input resolves the
// actions of e's input (e.Input.Actions, a game's declared actions)
// unless LocalInput.SetActions gave others: what a player's bindings
// press is what the server, the other players and the recordings see.
// Attach starts the client's input clock.
func (c *Client) Attach(e *engine.Engine, script func(tick uint64, due time.Duration, in *input.Queue)) error {
	switch {
	case e.World.Tick() != 0:
		return fmt.Errorf("netplay: client: the engine is at tick %d; attach it at tick 0", e.World.Tick())
	case e.World.Schema().Fingerprint() != c.welcome.Fingerprint:
		return fmt.Errorf("netplay: client: the engine's schema fingerprint %016x is not the server's %016x", e.World.Schema().Fingerprint(), c.welcome.Fingerprint)
	case e.Loop.TickRate() != int(c.welcome.TickRate):
		return fmt.Errorf("netplay: client: the engine ticks at %d Hz, the server at %d Hz", e.Loop.TickRate(), c.welcome.TickRate)
	}
	rcfg := rollback.Config{MaxPrediction: c.cfg.Predict, Confirmed: c.confirmed, HashEvery: HashEvery, Smoothing: c.cfg.Smoothing, FrameBudget: c.cfg.FrameBudget}
	if c.cfg.Role != wire.RolePlayer {
		rcfg.MaxPrediction = 0 // a spectator has nothing to predict with
	}
	rb, err := rollback.New(e, (*rollbackSource)(c), rcfg)
	if err != nil {
		return fmt.Errorf("netplay: client: %w", err)
	}
	c.e, c.rb = e, rb
	c.input.setScript(script)
	c.input.inheritActions(e.Input.Actions())
	close(c.attached)
	return nil
}

// rollbackSource is the client as the rollback.Source of the rollback
// session Attach adds: the session takes the confirmed ticks from
// it, predicts past them up to ClientConfig.Predict ticks, and reports
// each tick once confirmed (Client.confirmed). With Predict 0 the
// session is lockstep: every tick waits for its confirmed inputs. Its
// methods run on the engine's goroutine.
type rollbackSource Client

// Sync implements rollback.Source. At the start of every frame it
// writes the dumps of reported desyncs, restores a snapshot the server
// sent (a late join's start, or a resynchronisation after a desync),
// tells the session where the match ends, and, in a window, steers the
// engine's tick clock (see steer).
func (s *rollbackSource) Sync() (restored bool) {
	c := (*Client)(s)
	e := c.e
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return false
	}
	for _, d := range c.match.desyncs {
		c.dump(d)
	}
	c.match.desyncs = c.match.desyncs[:0]
	if snap, tick := c.match.ticks.takeSnapshot(); snap != nil {
		resync := c.simTick.Load() > 0
		if err := e.Restore(snap); err != nil {
			c.failLocked(fmt.Errorf("server %s sent a snapshot that cannot be restored: %w", c.link.addr, err))
			return false
		}
		if e.World.Tick() != tick {
			c.failLocked(fmt.Errorf("server %s sent a snapshot of tick %d labelled %d", c.link.addr, e.World.Tick(), tick))
			return false
		}
		c.simTick.Store(tick)
		if resync {
			c.stats.Resyncs++
			c.log.WithField("tick", tick).Info("resynchronised from the server's snapshot")
		}
		restored = true
	}
	if c.match.ended {
		// Done waits for this: a match whose end arrived after this
		// frame's Sync, while the session predicted past it, is not
		// done until the next StartFrame has gone back to its last tick.
		c.rb.EndAt(c.match.endTick)
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
func (s *rollbackSource) Confirmed(tick uint64, p *engine.Players) bool {
	c := (*Client)(s)
	c.mu.Lock()
	if c.err != nil || c.match.ticks.len() == 0 {
		c.mu.Unlock()
		return false
	}
	if t := c.match.ticks.peekTick(); t != tick {
		c.failLocked(fmt.Errorf("the next confirmed tick is %d, the engine's next is %d", t, tick))
		c.mu.Unlock()
		return false
	}
	c.match.ticks.take(&c.cur)
	c.mu.Unlock()
	if err := applyTick(p, &c.cur); err != nil {
		c.fail(fmt.Errorf("server %s: confirmed tick %d does not fit the match: %w", c.link.addr, tick, err))
		return false
	}
	return true
}

// Local implements rollback.Source: the input this client sampled
// for tick, or its latest for a tick past those (Client.Local).
func (s *rollbackSource) Local(tick uint64) (engine.PlayerID, input.Sample, bool) {
	return (*Client)(s).Local(tick)
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
