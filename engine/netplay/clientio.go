package netplay

import (
	"fmt"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// readLoop reads the server's messages until the connection ends.
func (c *Client) readLoop(r *wire.Reader) {
	defer c.signal() // Done may have become true
	defer close(c.readDone)
	for {
		m, silent, err := c.link.readIdle(r)
		if err != nil {
			select {
			case <-c.closed:
				return
			default:
			}
			if _, ended := c.End(); ended {
				return
			}
			c.fail(c.link.readError(err, silent))
			return
		}
		if r, ok := m.(*wire.Refuse); ok {
			c.fail(c.link.refused(r))
			return
		}
		if err := c.receive(m); err != nil {
			c.fail(fmt.Errorf("server %s: %w", c.link.addr, err))
			return
		}
	}
}

// receive acts on one message from the server.
//
//srccheck:wrapped by readLoop and Client.fail, as "netplay: client: ..."
func (c *Client) receive(m wire.Message) error {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := m.(type) {
	case *wire.Confirmed:
		err := c.match.confirmed(m, c.cfg.Role == wire.RolePlayer, c.welcome.Player, func(t *wire.ConfirmedTick) {
			if t.Substituted {
				c.stats.Substituted++
			}
			c.clk.feedback(t.Early, t.Substituted)
		})
		if err != nil {
			return err
		}
	case *wire.Snapshot:
		if err := c.match.snapshot(m); err != nil {
			return err
		}
	case *wire.Desync:
		c.stats.Desyncs++
		c.match.desync(m)
		c.log.WithFields(logrus.Fields{"tick": m.Tick, "server_hash": fmt.Sprintf("%016x", m.Server), "client_hash": fmt.Sprintf("%016x", m.Client)}).
			Error("desync: this client's state hash differs from the server's; resynchronising from the server's snapshot")
	case *wire.Pong:
		c.clk.pong(now, m.Echo, m.Time)
	case *wire.End:
		c.match.end(m)
		c.log.WithFields(logrus.Fields{"last_tick": m.Tick, "reason": m.Reason.String()}).Info("the server ended the match")
		c.finishIfDone()
	default:
		return fmt.Errorf("unexpected %v message", m.Type())
	}
	c.signal()
	return nil
}

// signal wakes the engine's goroutine (RunHeadless) to look at what
// changed.
func (c *Client) signal() {
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

// sendLoop writes everything the client sends: its inputs, on the input
// clock; its hashes; pings; and Bye when it closes.
func (c *Client) sendLoop() {
	defer close(c.sendDone)
	w := c.link.writer()
	write := func(m wire.Message) bool {
		c.link.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
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
				c.fail(c.link.wentAway())
			default:
				c.fail(fmt.Errorf("cannot send to server %s: %w", c.link.addr, err))
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
				ping.Reset(c.link.pingEvery())
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
		c.input.due(&clk, c.now(), &in)
		if n := len(in.Inputs); n > 0 {
			if !write(&in) {
				return
			}
			c.mu.Lock()
			c.stats.Sent += uint64(n)
			c.mu.Unlock()
		}
		timer.Reset(max(c.input.nextSend(&clk)-c.now(), 0))
	}
}
