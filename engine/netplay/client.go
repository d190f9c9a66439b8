package netplay

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay/token"
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
	// Credentials, for a server that requires connect tokens, are the
	// token and session keys the matchmaker gave this client (package
	// token). With them the Hello carries the token, and everything after
	// it is sealed (package seal); a server that does not seal is not
	// played with. Nil: no token, in clear.
	Credentials *token.Credentials
	// OnHeadlessFrame, when not nil, is called by RunHeadless after each
	// of its frames (each time it woke up and simulated what it could),
	// on RunHeadless's goroutine: a headless client's -stats rows.
	OnHeadlessFrame func(HeadlessFrame)
}

// HeadlessFrame is what one frame of Client.RunHeadless did: a frame
// starts when the client wakes up (a message came, or its input clock
// reached a tick) and simulates what it may.
type HeadlessFrame struct {
	// Ticks is how many ticks past the frame's first the world moved on
	// (0 when none was ready; re-simulated ticks are not counted).
	Ticks int
	// Fixed is the real time the frame spent on the simulation: taking
	// the confirmed ticks that arrived (with any re-simulation after a
	// correction, or a resynchronisation's restore) and running its new
	// ticks.
	Fixed time.Duration
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
// Attach adds to the engine a rollback session (rollback.Rollback) fed by
// the client, and the session is the hook. The session simulates the
// confirmed ticks, predicts up to ClientConfig.Predict ticks past them
// and rolls back when a confirmed tick differs from its prediction; with Predict 0 (and for a
// spectator) it is lockstep, every tick waiting for its confirmed inputs.
//
// A Client is made of parts with one job each: its connection to the
// server (serverConn), its input sender (inputSender, on the clock of
// clockSync), its view of the match by the protocol's rules (matchRules,
// with the confirmed-tick store, tickStore), and the engine's source of
// confirmed ticks (rollbackSource).
type Client struct {
	cfg     ClientConfig
	log     logrus.FieldLogger
	link    *serverConn
	welcome wire.Welcome
	delay   int
	epoch   time.Time
	rate    time.Duration // ticks per second
	input   inputSender

	mu        sync.Mutex
	match     matchRules
	err       error
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
	// match ends: from then on no tick past the end runs, and a session that
	// predicted past it goes back to it in the same StartFrame.
	endTaken atomic.Bool
	attached chan struct{}

	hashes chan wire.Hash
	notify chan struct{} // signalled when a message arrives
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
	if cr := cfg.Credentials; cr != nil && (cr.Seat == token.Spectator) != (cfg.Role == wire.RoleSpectator) {
		return nil, fmt.Errorf("netplay: client: the token's seat is %d, and this client joins as a %v", cr.Seat, cfg.Role)
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
		return nil, fmt.Errorf("netplay: client: cannot connect to %s: %w", addr, err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	c := &Client{
		cfg: cfg, log: log, epoch: time.Now(),
		failed: make(chan struct{}), closed: make(chan struct{}), finished: make(chan struct{}),
		readDone: make(chan struct{}), sendDone: make(chan struct{}),
		attached: make(chan struct{}), hashes: make(chan wire.Hash, 16), notify: make(chan struct{}, 1),
	}
	hello := &wire.Hello{Version: wire.Version, Role: cfg.Role, Scene: cfg.Scene, Fingerprint: cfg.Fingerprint, Name: cfg.Name}
	var sealWrites func()
	if cfg.Credentials != nil {
		if conn, sealWrites, err = sealClient(conn, hello, cfg.Credentials); err != nil {
			conn.Close()
			return nil, err
		}
	}
	c.link = &serverConn{conn: conn, addr: addr, transport: cfg.Transport, idle: cfg.IdleTimeout, now: c.now, sealWrites: sealWrites}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	r, welcome, err := c.link.handshake(hello, cfg.HandshakeTimeout, c.checkWelcome)
	if err != nil {
		conn.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("netplay: client: server %s: %w", addr, ctx.Err())
		}
		return nil, fmt.Errorf("netplay: client: server %s: %w", addr, err)
	}
	if uc, ok := conn.(*udp.Conn); ok && cfg.Credentials != nil && !uc.Sealed() {
		conn.Close()
		return nil, fmt.Errorf("netplay: client: server %s: its Welcome came in clear: not the server the token is for, or someone on the path", addr)
	}
	c.welcome = *welcome
	c.delay = cfg.InputDelay
	if c.delay < 0 {
		c.delay = int(c.welcome.InputDelay)
	}
	c.rate = time.Duration(c.welcome.TickRate)
	c.input.delay, c.input.rate, c.input.now = c.delay, c.rate, c.now
	c.match.ticks.next = c.welcome.FirstTick
	c.match.joinTick = c.welcome.JoinTick // a rejoin: the player is in the match already
	c.clk.init(time.Second/c.rate, udpSlack(cfg.Transport, cfg.Slack, time.Second/c.rate), c.delay)
	go c.readLoop(r)
	go c.sendLoop()
	return c, nil
}

// checkWelcome refuses a Welcome this client cannot play.
//
//srccheck:wrapped by Dial, as "netplay: client: server <addr>: ..."
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
	case c.cfg.Credentials != nil && c.cfg.Role == wire.RolePlayer && m.Player != wire.PlayerID(c.cfg.Credentials.Seat):
		return fmt.Errorf("the server welcomed this client as player %d, and its token is for seat %d", m.Player, c.cfg.Credentials.Seat)
	case m.JoinTick > m.SnapshotTick:
		return fmt.Errorf("the server's join tick %d is after its snapshot tick %d", m.JoinTick, m.SnapshotTick)
	case m.FirstTick != m.SnapshotTick+1:
		return fmt.Errorf("the server's first tick %d does not follow its snapshot tick %d", m.FirstTick, m.SnapshotTick)
	}
	return nil
}

// Welcome returns the server's Welcome: the player ID, the tick rate, the
// scene's parameters, the first tick.
func (c *Client) Welcome() wire.Welcome { return c.welcome }

// InputDelay returns the input delay the client stamps its inputs with.
func (c *Client) InputDelay() int { return c.delay }

func (c *Client) now() time.Duration { return time.Since(c.epoch) }

// LocalInput returns the local player's device input, for a window to
// push its events to (desktop.Config.Input): the client samples it on its
// input clock and sends it. Without an input script (Attach), it is the
// player's input.
func (c *Client) LocalInput() *LocalInput { return &LocalInput{&c.input} }

// Local returns the input this client sampled for tick, or its latest
// for a tick past those, with its player; false for a spectator or a tick
// not sampled. It is the rollback.Source's Local of the rollback session
// Attach installs.
func (c *Client) Local(tick uint64) (engine.PlayerID, input.Sample, bool) {
	if c.cfg.Role != wire.RolePlayer {
		return 0, input.Sample{}, false
	}
	if in, ok := c.input.sampledFor(tick); ok {
		return engine.PlayerID(c.welcome.Player), in, true
	}
	return 0, input.Sample{}, false
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
	return c.match.endTick, c.match.ended
}

// EndReason returns why the server ended the match (wire.EndTicks: its
// last tick; wire.EndShutdown: the server is shutting down; wire.EndFailed:
// the match failed on the server), 0 before
// the server has ended it.
func (c *Client) EndReason() wire.EndReason {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.match.endReason
}

// Done reports whether the match has ended and the client has simulated
// its last tick, and its world is back at that tick (a rollback session that
// predicted past the end goes back to it in the StartFrame whose Sync
// learns of the end), and the server has had its last word: it has
// closed the connection (after the client's last hash and goodbye, or
// when the client's idle timeout passed), and a resynchronisation it sent
// in answer to a last hash is restored. A client whose last hashes show
// it out of sync is not done until it is back in sync with the server.
func (c *Client) Done() bool {
	last, ended := c.End()
	if !ended || !c.endTaken.Load() || c.simTick.Load() < last {
		return false
	}
	select {
	case <-c.readDone:
	default:
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.match.ticks.snap == nil && len(c.match.desyncs) == 0
}

// finishIfDone closes finished once the match has ended and its last
// tick is simulated. c.mu is held.
func (c *Client) finishIfDone() {
	if c.endTaken.Load() && c.match.over(c.simTick.Load()) {
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
	r.BytesUp, r.BytesDown, r.UDP = c.link.counts()
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
	c.link.close(func() bool { return c.Err() != nil })
	<-c.readDone
	return nil
}

// fail records the first error and closes the connection.
func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failLocked(err)
}

// failLocked is fail with c.mu held. The error Err returns says it is
// the client's ("netplay: client: ...").
func (c *Client) failLocked(err error) {
	if c.err != nil || c.match.over(c.simTick.Load()) {
		return
	}
	c.err = fmt.Errorf("netplay: client: %w", err)
	close(c.failed)
	c.link.conn.Close()
}
