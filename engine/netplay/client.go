package netplay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay/udp"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/engine/rollback"
	"github.com/nebulaengine/nebula/timing"
)

// ClientConfig describes a client: what it runs and how it joins.
type ClientConfig struct {
	// Role is wire.RolePlayer or wire.RoleSpectator.
	Role wire.Role
	// Scene is the scene's id and Fingerprint the schema fingerprint of
	// the client's world (engine.Schema.Fingerprint): a server running
	// another refuses the client.
	Scene       string
	Fingerprint uint64 // the client world's schema fingerprint
	// Name names the client in the server's logs (at most wire.MaxName
	// bytes).
	Name string
	// InputDelay is the input delay in ticks (0 to 255): the input
	// sampled when the client's clock is at tick L is for tick L plus the
	// delay. -1 takes the server's advice (Welcome.InputDelay).
	InputDelay int
	// Slack is the least margin by which the client aims its inputs to
	// arrive before their deadline; the clock adds the jitter it measures
	// on top.
	Slack time.Duration
	// Predict is how many ticks the client may simulate past its last
	// confirmed tick, predicting the inputs it does not have yet (every
	// player keeps its last confirmed input; its own is what it sampled),
	// from 0 to rollback.MaxDepth; 0 is lockstep. See rollback.Rollback.
	Predict int
	// Smoothing eases what corrections of predictions move on screen
	// (rollback.Smoothing; the zero value shows them at once).
	Smoothing rollback.Smoothing
	// FrameBudget is how long a frame may spend re-simulating before it
	// counts as late (rollback.Config.FrameBudget; 0: none counted).
	FrameBudget time.Duration
	// DumpDir is where the client writes its state dump when the server
	// reports a desync ("" = no dump).
	DumpDir string
	// HandshakeTimeout bounds the connection and the server's answer to
	// the Hello (the wait for the match to start is not bounded).
	HandshakeTimeout time.Duration
	// IdleTimeout: a server that sends nothing for that long, and then
	// for a quarter of a second more while the client runs to hear it,
	// is gone (0: the transport's, TCPIdleTimeout or UDPIdleTimeout). A
	// client stopped or starved longer (a busy machine) reads what came
	// meanwhile before it judges.
	IdleTimeout time.Duration
	// Transport is TCP (the zero value) or UDP.
	Transport Transport
	// Dial opens the connection (nil: a net.Dialer's DialContext on
	// "tcp", or udp.Dial for UDP); a test or -net-delay wraps it in a
	// network simulator.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// WrapPacketConn, with UDP and no Dial, wraps the client's UDP
	// socket: a network simulator (netsim.WrapPacketConn).
	WrapPacketConn func(net.PacketConn) net.PacketConn
	// Log receives the client's log lines (nil: logrus's standard logger).
	Log logrus.FieldLogger
}

// DefaultClientConfig returns a player's configuration with the default
// margins, predicting up to 8 ticks ahead with corrections eased (see
// rollback.DefaultConfig); set Scene and Fingerprint.
func DefaultClientConfig() ClientConfig {
	return ClientConfig{
		Role: wire.RolePlayer, InputDelay: -1, Slack: time.Millisecond,
		HandshakeTimeout: 5 * time.Second,
		Predict:          8, Smoothing: rollback.DefaultConfig().Smoothing,
	}
}

// The clients' default idle timeouts. A client pings its server every
// pingEvery over TCP and every udpPingEvery over UDP, and the server
// answers each ping at once (during a match it also sends every tick).
// Over TCP the server's kernel closes the connection of a server that
// exits, however it exits, so the timeout is for a machine or a network
// that fails; over UDP nothing tells the client, and the timeout, plus
// the quarter of a second a client reads more before it believes it, is
// how long it takes to notice a server that died: 1.75 s.
const (
	TCPIdleTimeout = 5 * time.Second
	UDPIdleTimeout = 1500 * time.Millisecond
)

// Client is one peer of a match: it sends its player's input, stamped
// with the tick it is for, and receives every tick's confirmed inputs
// from the server. It is not itself one of the engine's tick hooks:
// Attach adds to the engine a rollback session (rollback.Rollback) of
// which the client is the rollback.Source, and the session is the hook.
// The session simulates the confirmed ticks, predicts up to
// ClientConfig.Predict ticks past them and rolls back when a confirmed
// tick differs from its prediction; with Predict 0 (and for a spectator)
// it is lockstep, every tick waiting for its confirmed inputs.
type Client struct {
	cfg     ClientConfig
	log     logrus.FieldLogger
	conn    net.Conn
	addr    string
	welcome wire.Welcome
	delay   int
	epoch   time.Time
	rate    time.Duration // ticks per second

	bytesUp, bytesDown atomic.Int64

	mu        sync.Mutex
	ring      []wire.ConfirmedTick // confirmed ticks not yet simulated, from head
	head, n   int
	next      uint64 // the tick the next Confirmed must start at
	snap      []byte // a snapshot to restore before the next tick
	snapTick  uint64
	desyncs   []wire.Desync // reported, not yet dumped
	endTick   uint64
	ended     bool
	err       error
	joinTick  uint64 // the tick this client's player joined at (0: not yet)
	clk       clockSync
	stats     ClientReport
	failed    chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
	// finished is closed once the match has ended and its last tick is
	// simulated: the sender then says goodbye.
	finished   chan struct{}
	finishOnce sync.Once
	readDone   chan struct{}
	sendDone   chan struct{}

	// Owned by the engine's goroutine (the rollback session's source).
	e        *engine.Engine
	rb       *rollback.Rollback
	headless bool    // RunHeadless drives the engine: no clock to steer
	gap      float64 // steer's smoothed gap, in ticks
	steering bool    // steer has measured the gap once
	cur      wire.ConfirmedTick
	states   [hashRing]engine.State
	simTick  atomic.Uint64 // the last tick simulated with its confirmed inputs
	// endTaken is set once Sync has told the rollback session where the
	// match ends: from then on no tick past the end runs, and a session
	// that predicted past it goes back to it in the same StartFrame.
	endTaken atomic.Bool
	attached chan struct{}

	// The local input, sampled by the sender.
	inMu   sync.Mutex
	local  input.Queue
	script func(tick uint64, due time.Duration, in *input.Queue)
	// sampled holds the inputs sampled for the latest ticks, by tick
	// modulo its length, for the predictions; lastSampled is the latest
	// tick sampled.
	sampled     [256]sampledInput
	lastSampled uint64
	hashes      chan wire.Hash
	notify      chan struct{} // signalled when a message arrives
}

// ClientReport is what a client counts about its match.
type ClientReport struct {
	Ticks       uint64        // ticks simulated
	Sent        uint64        // inputs sent
	Substituted uint64        // of this player's inputs, how many the server substituted
	Desyncs     int           // desyncs the server reported
	Resyncs     int           // snapshots restored after a desync
	Adjustments int           // changes of the send clock by more than half a millisecond
	RTT         time.Duration // the best round trip measured
	BytesUp     int64         // bytes sent to the server (over UDP, the packets' payloads)
	BytesDown   int64         // bytes received from it
	// ClockAdjustments counts the changes of a windowed client's tick
	// clock speed (time synchronisation; see ClientConfig.Predict).
	ClockAdjustments int
	// Predict is the prediction window, in ticks (0: lockstep).
	Predict int
	// Rollback is what the rollback session counted: rollbacks, ticks
	// re-simulated, their time, late frames, prediction depth, stalls.
	// A headless lockstep client simulates as fast as its inputs come, so
	// its stalls say nothing: they are not counted. Read it once the
	// engine has stopped, or from the engine's goroutine.
	Rollback rollback.Stats
	// UDP is, over UDP, the transport's counters: packets, losses,
	// duplicates, resends.
	UDP *udp.Stats
}

// Dial connects to the server at addr and does the handshake: it returns
// once the server has welcomed the client into the match (which, before
// the match starts, waits for its players), or the error that stopped it:
// not a Nebula server, a refusal (with the server's reason), a timeout.
// Build the engine from Welcome's parameters, then Attach it.
func Dial(ctx context.Context, addr string, cfg ClientConfig) (*Client, error) {
	if cfg.Role != wire.RolePlayer && cfg.Role != wire.RoleSpectator {
		return nil, fmt.Errorf("netplay: client: role %v: must be player or spectator", cfg.Role)
	}
	if cfg.InputDelay < -1 || cfg.InputDelay > 255 {
		return nil, fmt.Errorf("netplay: client: input delay %d: must be from 0 to 255 ticks (-1: the server's)", cfg.InputDelay)
	}
	if cfg.Predict < 0 || cfg.Predict > rollback.MaxDepth {
		return nil, fmt.Errorf("netplay: client: prediction of %d ticks: must be from 0 (lockstep) to %d", cfg.Predict, rollback.MaxDepth)
	}
	if cfg.HandshakeTimeout <= 0 || cfg.IdleTimeout < 0 {
		return nil, fmt.Errorf("netplay: client: the handshake timeout must be above 0 and the idle timeout 0 (the default) or above")
	}
	if cfg.Transport != TCP && cfg.Transport != UDP {
		return nil, fmt.Errorf("netplay: client: transport %v: must be TCP or UDP", cfg.Transport)
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = TCPIdleTimeout
		if cfg.Transport == UDP {
			cfg.IdleTimeout = UDPIdleTimeout
		}
	}
	dial, network := cfg.Dial, cfg.Transport.String()
	switch {
	case dial == nil && cfg.Transport == UDP:
		dial = dialUDP(&cfg)
	case dial == nil:
		d := &net.Dialer{Timeout: cfg.HandshakeTimeout}
		dial = d.DialContext
	}
	log := cfg.Log
	if log == nil {
		log = logrus.StandardLogger()
	}
	dctx, cancel := context.WithTimeout(ctx, cfg.HandshakeTimeout)
	conn, err := dial(dctx, network, addr)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s: %w", addr, err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	c := &Client{
		cfg: cfg, log: log, conn: conn, addr: addr, epoch: time.Now(),
		failed: make(chan struct{}), closed: make(chan struct{}), finished: make(chan struct{}),
		readDone: make(chan struct{}), sendDone: make(chan struct{}),
		attached: make(chan struct{}), hashes: make(chan wire.Hash, 16), notify: make(chan struct{}, 1),
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	r, err := c.handshake()
	if err != nil {
		conn.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("server %s: %w", addr, ctx.Err())
		}
		return nil, fmt.Errorf("server %s: %w", addr, err)
	}
	c.delay = cfg.InputDelay
	if c.delay < 0 {
		c.delay = int(c.welcome.InputDelay)
	}
	c.rate = time.Duration(c.welcome.TickRate)
	c.next = c.welcome.FirstTick
	c.clk.init(time.Second/c.rate, udpSlack(cfg.Transport, cfg.Slack, time.Second/c.rate), c.delay)
	go c.readLoop(r)
	go c.sendLoop()
	return c, nil
}

// handshake sends the preamble and Hello and reads the server's answer.
func (c *Client) handshake() (*wire.Reader, error) {
	c.conn.SetDeadline(time.Now().Add(c.cfg.HandshakeTimeout))
	defer c.conn.SetDeadline(time.Time{})
	w := wire.NewWriter(countingWriter{c.conn, &c.bytesUp})
	hello := &wire.Hello{Version: wire.Version, Role: c.cfg.Role, Scene: c.cfg.Scene, Fingerprint: c.cfg.Fingerprint, Name: c.cfg.Name}
	if err := wire.Check(hello); err != nil {
		return nil, err
	}
	if err := w.WritePreamble(); err != nil {
		return nil, fmt.Errorf("cannot send the handshake: %w", err)
	}
	if err := w.WriteMessage(hello); err != nil {
		return nil, fmt.Errorf("cannot send the handshake: %w", err)
	}
	r := wire.NewReader(countingReader{c.conn, &c.bytesDown}, wire.MaxServerMessage)
	version, err := r.ReadServerPreamble()
	switch {
	case errors.Is(err, wire.ErrNotServer):
		return nil, fmt.Errorf("not a Nebula server: %w", err)
	case isTimeout(err):
		return nil, fmt.Errorf("no answer to the handshake within %v (is it a Nebula server?)", c.cfg.HandshakeTimeout)
	case errors.Is(err, io.EOF) || errors.Is(err, wire.ErrTruncated):
		return nil, fmt.Errorf("the server closed the connection before its preamble, with no reason given (a server that is not Nebula's, or one with too many connections in their handshake)")
	case err != nil && !errors.Is(err, wire.ErrVersion):
		return nil, fmt.Errorf("handshake: %w", err)
	}
	// The Welcome comes when the match starts: no deadline but the
	// server's liveness, checked by the pings the sender starts now.
	c.conn.SetDeadline(time.Time{})
	stop, done := make(chan struct{}), make(chan struct{})
	go c.pingWhileWaiting(stop, done)
	defer func() { close(stop); <-done }()
	for {
		m, silent, err := c.readIdle(r)
		if err != nil {
			if isTimeout(err) {
				return nil, fmt.Errorf("the server stopped answering while this client waited for the match: nothing received for %v", silent)
			}
			if closedByPeer(err) {
				return nil, fmt.Errorf("the server closed the connection while this client waited for the match, with no reason given (did it crash?)")
			}
			return nil, fmt.Errorf("handshake: %w", err)
		}
		switch m := m.(type) {
		case *wire.Refuse:
			if m.Reason == wire.ReasonDropped {
				return nil, fmt.Errorf("dropped this client: %s", m.Text)
			}
			return nil, fmt.Errorf("refused: %v", m)
		case *wire.Pong:
			continue
		case *wire.Welcome:
			if version != wire.Version {
				return nil, fmt.Errorf("protocol version %d, this client speaks %d", version, wire.Version)
			}
			if err := c.checkWelcome(m); err != nil {
				wire.NewWriter(c.conn).WriteMessage(&wire.Refuse{Reason: wire.ReasonOther, Text: err.Error()})
				return nil, err
			}
			c.welcome = *m
			c.welcome.Params = slices.Clone(m.Params)
			return r, nil
		default:
			return nil, fmt.Errorf("the server sent a %v message before its Welcome", m.Type())
		}
	}
}

// checkWelcome refuses a Welcome this client cannot play.
func (c *Client) checkWelcome(m *wire.Welcome) error {
	switch {
	case m.Scene != c.cfg.Scene:
		return fmt.Errorf("scene mismatch: the server runs %q, this client %q", m.Scene, c.cfg.Scene)
	case m.Fingerprint != c.cfg.Fingerprint:
		return fmt.Errorf("schema mismatch: the server's fingerprint is %016x, this client's %016x", m.Fingerprint, c.cfg.Fingerprint)
	case timing.ValidateTickRate(int(m.TickRate)) != nil:
		return fmt.Errorf("the server's tick rate, %d Hz, is outside %d to %d", m.TickRate, timing.MinTickRate, timing.MaxTickRate)
	case (c.cfg.Role == wire.RoleSpectator) != (m.Player == wire.NoPlayer):
		return fmt.Errorf("the server welcomed a %v as player %d", c.cfg.Role, m.Player)
	case m.FirstTick != m.SnapshotTick+1:
		return fmt.Errorf("the server's first tick %d does not follow its snapshot tick %d", m.FirstTick, m.SnapshotTick)
	}
	return nil
}

// pingWhileWaiting pings the server while the client waits for its
// Welcome, so that a server that went away is noticed, until stop is
// closed; it closes done when it returns.
func (c *Client) pingWhileWaiting(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(c.pingEvery())
	defer t.Stop()
	w := wire.NewWriter(countingWriter{c.conn, &c.bytesUp})
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			c.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
			if w.WriteMessage(&wire.Ping{Time: c.now()}) != nil {
				return
			}
		}
	}
}

// pingEvery is how often a client pings its server over TCP, and
// udpPingEvery over UDP, where a ping and its answer are each lost now
// and then and UDPIdleTimeout is short: a UDP client waiting for its match
// gives up on its server only after six pings in a row are unanswered.
const (
	pingEvery    = 500 * time.Millisecond
	udpPingEvery = 250 * time.Millisecond
)

// pingEvery is how often c pings its server.
func (c *Client) pingEvery() time.Duration {
	if c.cfg.Transport == UDP {
		return udpPingEvery
	}
	return pingEvery
}

// Welcome returns the server's Welcome: the player ID, the tick rate, the
// scene's parameters, the first tick.
func (c *Client) Welcome() wire.Welcome { return c.welcome }

// InputDelay returns the input delay the client stamps its inputs with.
func (c *Client) InputDelay() int { return c.delay }

func (c *Client) now() time.Duration { return time.Since(c.epoch) }

// Attach installs on e, from e's tick 0, a rollback session fed by the
// client (rollback.New), which becomes the tick hook of e that steers
// (another, a recorder, may sit beside it): e must be built
// from the Welcome's parameters and tick rate. script, if not nil, is the
// player's input (a headless client's script, called for every tick the
// client sends input for, with that tick); otherwise the input is what
// LocalInput queued. Attach starts the client's input clock.
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
	rb, err := rollback.New(e, c, rcfg)
	if err != nil {
		return fmt.Errorf("netplay: client: %w", err)
	}
	c.e, c.rb = e, rb
	c.script = script
	close(c.attached)
	return nil
}

// LocalInput returns the local player's device input, for a window to
// push its events to (desktop.Config.Input): the client samples it on its
// input clock and sends it. Without an input script (Attach), it is the
// player's input.
func (c *Client) LocalInput() *LocalInput { return &LocalInput{c} }

// LocalInput is a client's local player's device input. Its methods are
// safe from any goroutine; an event's time is replaced by the client's
// clock.
type LocalInput struct{ c *Client }

// Push queues a device event.
func (l *LocalInput) Push(ev input.Event) {
	c := l.c
	c.inMu.Lock()
	defer c.inMu.Unlock()
	ev.Time = c.now()
	c.local.Push(ev)
}

// SetActions makes the local player's Samples carry the actions a
// resolves (input.Queue.SetActions): what the client sends, and every
// peer and recording sees, is the action's state and value, whatever their
// own bindings. a may be rebound while the client runs.
func (l *LocalInput) SetActions(a *input.Actions) {
	c := l.c
	c.inMu.Lock()
	defer c.inMu.Unlock()
	c.local.SetActions(a)
}

// ReleaseAll releases every key and button held, as a window that loses
// the focus does (the time is the client's clock's).
func (l *LocalInput) ReleaseAll(time.Duration) {
	c := l.c
	c.inMu.Lock()
	defer c.inMu.Unlock()
	c.local.ReleaseAll(c.now())
}

// Err returns why the client stopped (the connection failed, the server
// went away or sent something wrong), or nil.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Failed returns a channel closed when Err becomes set.
func (c *Client) Failed() <-chan struct{} { return c.failed }

// End returns the match's last tick once the server has ended the match.
func (c *Client) End() (last uint64, ended bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.endTick, c.ended
}

// Done reports whether the match has ended and the client has simulated
// its last tick, and its world is back at that tick (a session that
// predicted past the end goes back to it in the StartFrame whose Sync
// learns of the end).
func (c *Client) Done() bool {
	last, ended := c.End()
	return ended && c.endTaken.Load() && c.simTick.Load() >= last
}

// finishIfDone closes finished once the match has ended and its last
// tick is simulated. c.mu is held.
func (c *Client) finishIfDone() {
	if c.ended && c.endTaken.Load() && c.simTick.Load() >= c.endTick {
		c.finishOnce.Do(func() { close(c.finished) })
	}
}

// Tick returns the last tick the client simulated. Safe from any
// goroutine, unlike the engine's World.Tick while the engine runs.
func (c *Client) Tick() uint64 { return c.simTick.Load() }

// Report returns what the client counted so far.
func (c *Client) Report() ClientReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.stats
	r.Ticks = c.simTick.Load()
	r.RTT = c.clk.bestRTT
	r.Adjustments = c.clk.adjustments
	r.Predict = c.cfg.Predict
	if c.rb != nil {
		r.Rollback = c.rb.Stats()
		if c.headless && c.cfg.Predict == 0 {
			r.Rollback.Stalls, r.Rollback.StallTime = 0, 0
		}
	}
	r.BytesUp, r.BytesDown = c.bytesUp.Load(), c.bytesDown.Load()
	if u, ok := c.conn.(udpStats); ok {
		st := u.Stats()
		r.UDP, r.BytesUp, r.BytesDown = &st, st.BytesSent, st.BytesReceived
	}
	return r
}

// Close leaves the match: it tells the server (Bye) and closes the
// connection. Safe to call more than once.
func (c *Client) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	select {
	case <-c.sendDone:
	case <-time.After(time.Second):
	}
	c.conn.Close()
	if d, ok := c.conn.(interface{ Done() <-chan struct{} }); ok && c.Err() == nil {
		// Over UDP, Close resends what the server has not acknowledged
		// (the goodbye) in the background: wait for it, so that a
		// program that exits next does not cut it short. A client that
		// failed (its server dropped it, went away or stopped answering)
		// has nothing to say and nobody to wait for.
		select {
		case <-d.Done():
		case <-time.After(2 * time.Second):
		}
	}
	<-c.readDone
	return nil
}

// fail records the first error and closes the connection.
func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failLocked(err)
}

// failLocked is fail with c.mu held.
func (c *Client) failLocked(err error) {
	if c.err != nil || c.ended && c.simTick.Load() >= c.endTick {
		return
	}
	c.err = err
	close(c.failed)
	c.conn.Close()
}

// readLoop reads the server's messages until the connection ends.
func (c *Client) readLoop(r *wire.Reader) {
	defer close(c.readDone)
	for {
		m, silent, err := c.readIdle(r)
		if err != nil {
			select {
			case <-c.closed:
				return
			default:
			}
			if _, ended := c.End(); ended {
				return
			}
			switch {
			case isTimeout(err):
				c.fail(fmt.Errorf("server %s stopped answering: nothing received for %v (it is down, or the network to it is)", c.addr, silent))
			case closedByPeer(err):
				c.fail(c.wentAway())
			default:
				c.fail(fmt.Errorf("server %s: %w", c.addr, err))
			}
			return
		}
		if r, ok := m.(*wire.Refuse); ok {
			c.fail(c.refused(r))
			return
		}
		if err := c.receive(m); err != nil {
			c.fail(fmt.Errorf("server %s: %w", c.addr, err))
			return
		}
	}
}

// idleGrace is how long a client that found its idle timeout passed
// reads once more before it calls the server silent (see readIdle).
const idleGrace = 250 * time.Millisecond

// readIdle reads the server's next message, waiting up to the idle
// timeout, and returns it or why there is none, with how long nothing
// came. A timeout is believed only once the client was running to hear
// the server: a deadline that passes while the process is stopped or
// starved (a busy machine, kill -STOP) is noticed when it runs again,
// maybe before its reader has taken what arrived meanwhile (over UDP the
// packets wait in the socket, and an expired deadline fails a read even
// with data queued). So a timeout is followed by one more read of up to
// idleGrace, during which the runtime polls the network, and by another
// for as long as each timeout is noticed late, by more than half of
// idleGrace, on the monotonic clock. A running client calls a dead
// server silent after the idle timeout plus idleGrace (1.75 s over UDP);
// a stalled one, no sooner than it had the time to hear it.
func (c *Client) readIdle(r *wire.Reader) (wire.Message, time.Duration, error) {
	start := time.Now()
	deadline := start.Add(c.cfg.IdleTimeout)
	for grace := false; ; grace = true {
		c.conn.SetReadDeadline(deadline)
		m, err := r.ReadMessage()
		if err == nil || !isTimeout(err) {
			return m, 0, err
		}
		now := time.Now()
		if grace && now.Sub(deadline) <= idleGrace/2 {
			return nil, now.Sub(start).Round(10 * time.Millisecond), err
		}
		deadline = now.Add(idleGrace)
	}
}

// wentAway is the error of a server whose connection ended before the
// match did, without a reason: a server that drops a client says why
// (refused, below).
func (c *Client) wentAway() error {
	return fmt.Errorf("server %s went away: the connection closed before the match ended, with no reason given (did the server crash?)", c.addr)
}

// refused is the error of a server that ended the connection with a
// Refuse after the handshake: it dropped the client, and says why.
func (c *Client) refused(r *wire.Refuse) error {
	if r.Reason == wire.ReasonDropped {
		return fmt.Errorf("server %s dropped this client: %s", c.addr, r.Text)
	}
	return fmt.Errorf("server %s closed the connection: %v", c.addr, r)
}

// closedByPeer reports whether err means the connection is gone: closed,
// reset or broken, rather than a message that could not be read.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, wire.ErrTruncated) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED)
}

// receive acts on one message from the server.
func (c *Client) receive(m wire.Message) error {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := m.(type) {
	case *wire.Confirmed:
		if c.ended {
			return fmt.Errorf("a confirmed tick after the match's end")
		}
		if m.First != c.next {
			return fmt.Errorf("confirmed ticks from %d, expected %d", m.First, c.next)
		}
		me := c.welcome.Player
		for i := range m.Ticks {
			t := &m.Ticks[i]
			tick := m.First + uint64(i)
			if c.cfg.Role == wire.RolePlayer && c.joinTick == 0 && slices.Contains(t.Joins, me) {
				c.joinTick = tick
			}
			c.push(t)
			if c.cfg.Role == wire.RolePlayer && c.joinTick != 0 && tick >= c.joinTick {
				if t.Substituted {
					c.stats.Substituted++
				}
				c.clk.feedback(t.Early, t.Substituted)
			}
		}
		c.next = m.First + uint64(len(m.Ticks))
	case *wire.Snapshot:
		for c.n > 0 && c.peekTick() <= m.Tick {
			c.pop()
		}
		if c.n > 0 {
			return fmt.Errorf("a snapshot of tick %d, with later ticks already confirmed", m.Tick)
		}
		c.snap, c.snapTick = slices.Clone(m.Data), m.Tick
		c.next = m.Tick + 1
	case *wire.Desync:
		c.stats.Desyncs++
		c.desyncs = append(c.desyncs, *m)
		c.log.WithFields(logrus.Fields{"tick": m.Tick, "server_hash": fmt.Sprintf("%016x", m.Server), "client_hash": fmt.Sprintf("%016x", m.Client)}).
			Error("desync: this client's state hash differs from the server's; resynchronising from the server's snapshot")
	case *wire.Pong:
		c.clk.pong(now, m.Echo, m.Time)
	case *wire.End:
		c.ended, c.endTick = true, m.Tick
		c.log.WithFields(logrus.Fields{"last_tick": m.Tick, "reason": m.Reason.String()}).Info("the server ended the match")
		c.finishIfDone()
	default:
		return fmt.Errorf("unexpected %v message", m.Type())
	}
	select {
	case c.notify <- struct{}{}:
	default:
	}
	return nil
}

// The ring of confirmed ticks not yet simulated: head is the oldest, of
// tick next-n. c.mu is held.

func (c *Client) peekTick() uint64 { return c.next - uint64(c.n) }

func (c *Client) push(t *wire.ConfirmedTick) {
	if c.n == len(c.ring) {
		grown := make([]wire.ConfirmedTick, max(2*len(c.ring), 64))
		for i := range c.n {
			grown[i] = c.ring[(c.head+i)%len(c.ring)]
		}
		c.ring, c.head = grown, 0
	}
	copyTick(&c.ring[(c.head+c.n)%len(c.ring)], t)
	c.n++
}

func (c *Client) pop() {
	c.head = (c.head + 1) % len(c.ring)
	c.n--
}
