package netplay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// ServerConfig describes a match and the limits of the server that runs
// it.
type ServerConfig struct {
	// Scene is the scene's id: a client running another is refused.
	Scene string
	// Params are the scene's parameters, sent to every client in its
	// Welcome (at most wire.MaxParams bytes), so that every peer builds
	// the identical world.
	Params []byte
	// Players is how many players must be in before the match starts at
	// tick 1 (at least 1). Later players join the running match.
	Players int
	// MaxPlayers caps the players in the match at once (Players to
	// wire.MaxPlayers).
	MaxPlayers int
	// MaxSpectators caps the spectators (0 or more).
	MaxSpectators int
	// Ticks ends the match at that tick (0: it runs until Close).
	Ticks uint64
	// InputDelay is the input delay, in ticks, the server advises its
	// clients in their Welcome (0 to 255): a client stamps the input it
	// samples for the tick its clock is at plus the delay.
	InputDelay int
	// Tolerance is how long past a tick's deadline the server waits for
	// a missing input before it substitutes the player's previous one.
	Tolerance time.Duration
	// StartDelay is the time between the moment the match starts (or a
	// player is let in) and the deadline of its first tick: the time a
	// client has to synchronise its clock before its inputs count.
	StartDelay time.Duration
	// KeyframeEvery, when above 0, makes the server keep a snapshot of
	// every KeyframeEvery-th tick and the confirmed ticks since: a late
	// joiner starts from the latest such snapshot and catches up through
	// the ticks since. 0: a joiner gets a snapshot of the tick it joins at.
	KeyframeEvery uint64
	// HandshakeTimeout bounds a connection's handshake: its preamble and
	// Hello must arrive within it.
	HandshakeTimeout time.Duration
	// IdleTimeout drops a connection that sends nothing for that long
	// (clients ping twice a second).
	IdleTimeout time.Duration
	// MaxPending caps the connections in their handshake at once; once
	// half of them are, one host (IP address) may have at most a quarter
	// of them (at least 1). More are closed at once.
	MaxPending int
	// MaxMessage caps a client's message (wire.MaxClientMessage if 0).
	MaxMessage int
	// OutboxLimit is the bytes a client may leave unread, beyond the
	// largest message queued to it (a snapshot), before it is dropped
	// (0: DefaultOutboxLimit).
	OutboxLimit int
	// ResyncEvery is the least time between two resynchronisations of a
	// client (a Desync and a snapshot) after hashes that differ from the
	// server's (0: DefaultResyncEvery). A wrong hash within it is counted
	// and logged (rate-limited), and answered with nothing.
	ResyncEvery time.Duration
	// DumpDir is the directory where the server writes its state dump
	// when a client's hash differs from its own ("" = no dumps).
	DumpDir string
	// MaxDumps caps the state dumps the server writes in a match, one per
	// desynchronised tick (0: DefaultMaxDumps).
	MaxDumps int
	// Log receives the server's log lines (nil: logrus's standard logger).
	Log logrus.FieldLogger
}

// DefaultServerConfig returns a one-player match of up to 8 players and
// the server's default limits; set Scene and Params.
func DefaultServerConfig() ServerConfig {
	return ServerConfig{
		Players:          1,
		MaxPlayers:       8,
		MaxSpectators:    16,
		InputDelay:       DefaultInputDelay,
		Tolerance:        4 * time.Millisecond,
		StartDelay:       250 * time.Millisecond,
		HandshakeTimeout: 5 * time.Second,
		IdleTimeout:      10 * time.Second,
		MaxPending:       32,
	}
}

// The server's defaults for the limits whose zero value in ServerConfig
// means "the default".
const (
	// DefaultOutboxLimit: a client that leaves 1 MiB unread beyond the
	// largest message queued to it is dropped (a match's live ticks are a
	// few KiB a second).
	DefaultOutboxLimit = 1 << 20
	// DefaultResyncEvery: a client is resynchronised at most once every
	// 5 s (its hash comes once a second).
	DefaultResyncEvery = 5 * time.Second
	// DefaultMaxDumps: at most 8 state dumps per match.
	DefaultMaxDumps = 8
)

// DefaultInputDelay is the input delay the server advises when not told
// otherwise: 0 ticks. In lockstep a client's input shows only once the
// server has confirmed it, whatever the delay, so a delay only adds to
// the time from a key press to the screen; the clock synchronisation
// already makes inputs arrive just before they are needed, with a margin
// that grows with the measured jitter.
const DefaultInputDelay = 0

// Validate reports the first field out of range, saying what is accepted.
func (c *ServerConfig) Validate() error {
	switch {
	case c.Scene == "" || len(c.Scene) > wire.MaxScene:
		return fmt.Errorf("scene id %q: must be 1 to %d bytes", c.Scene, wire.MaxScene)
	case len(c.Params) > wire.MaxParams:
		return fmt.Errorf("scene params: %d bytes, at most %d", len(c.Params), wire.MaxParams)
	case c.MaxPlayers < 1 || c.MaxPlayers > wire.MaxPlayers:
		return fmt.Errorf("max players %d: must be from 1 to %d", c.MaxPlayers, wire.MaxPlayers)
	case c.Players < 1 || c.Players > c.MaxPlayers:
		return fmt.Errorf("players %d: must be from 1 to the max players, %d", c.Players, c.MaxPlayers)
	case c.MaxSpectators < 0:
		return fmt.Errorf("max spectators %d: must be 0 or more", c.MaxSpectators)
	case c.InputDelay < 0 || c.InputDelay > 255:
		return fmt.Errorf("input delay %d: must be from 0 to 255 ticks", c.InputDelay)
	case c.Tolerance < 0 || c.Tolerance > time.Second:
		return fmt.Errorf("tolerance %v: must be from 0 to 1s", c.Tolerance)
	case c.StartDelay < 0 || c.StartDelay > 10*time.Second:
		return fmt.Errorf("start delay %v: must be from 0 to 10s", c.StartDelay)
	case c.HandshakeTimeout <= 0:
		return fmt.Errorf("handshake timeout %v: must be above 0", c.HandshakeTimeout)
	case c.IdleTimeout <= 0:
		return fmt.Errorf("idle timeout %v: must be above 0", c.IdleTimeout)
	case c.MaxPending < 1:
		return fmt.Errorf("max pending connections %d: must be 1 or more", c.MaxPending)
	case c.MaxMessage < 0:
		return fmt.Errorf("max message %d: must be 0 (the default) or more", c.MaxMessage)
	case c.OutboxLimit < 0:
		return fmt.Errorf("outbox limit %d: must be 0 (the default) or more", c.OutboxLimit)
	case c.ResyncEvery < 0:
		return fmt.Errorf("resync interval %v: must be 0 (the default) or more", c.ResyncEvery)
	case c.MaxDumps < 0:
		return fmt.Errorf("max dumps %d: must be 0 (the default) or more", c.MaxDumps)
	}
	return nil
}

// Server runs one match: it accepts clients, owns the tick clock, confirms
// every player's input for each tick at the tick's deadline, simulates
// the tick itself (headless, on the engine it was given) and sends the
// confirmed inputs of every tick to every client. See the package doc.
type Server struct {
	cfg ServerConfig
	e   *engine.Engine
	log logrus.FieldLogger
	bad *rateLog

	epoch   time.Time // the server's clock starts here (monotonic)
	events  chan event
	quit    chan struct{}
	stop    sync.Once
	done    chan struct{} // closed when Serve's match loop returns
	pending atomic.Int32  // connections in their handshake
	hosts   hostLimit     // connections in their handshake, per host
	conns   atomic.Int64  // connections accepted, for ids
	wg      sync.WaitGroup

	mu       sync.Mutex
	listener net.Listener
	open     map[net.Conn]struct{} // the connections accepted and not yet closed
	report   Report
	err      error

	// The match, owned by the match goroutine.
	m match
}

// NewServer returns a server of the match cfg describes, on e: e's scene
// is set up (its systems added, its world built from the parameters in
// cfg.Params) and it has not run a tick. The server adds its own tick
// hook to e, the one that says who plays, and runs e's ticks; a recorder
// of the match is another of e's hooks (engine.Engine.AddTickHook).
func NewServer(e *engine.Engine, cfg ServerConfig) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("netplay: server: %w", err)
	}
	if e.World.Tick() != 0 {
		return nil, fmt.Errorf("netplay: server: the engine is at tick %d; a match starts from tick 0", e.World.Tick())
	}
	if cfg.MaxMessage == 0 {
		cfg.MaxMessage = wire.MaxClientMessage
	}
	if cfg.OutboxLimit == 0 {
		cfg.OutboxLimit = DefaultOutboxLimit
	}
	if cfg.ResyncEvery == 0 {
		cfg.ResyncEvery = DefaultResyncEvery
	}
	if cfg.MaxDumps == 0 {
		cfg.MaxDumps = DefaultMaxDumps
	}
	log := cfg.Log
	if log == nil {
		log = logrus.StandardLogger()
	}
	s := &Server{
		cfg: cfg, e: e, log: log, bad: newRateLog(log),
		epoch:  time.Now(),
		events: make(chan event, 1024),
		open:   map[net.Conn]struct{}{},
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	s.m.init(s)
	e.Jobs.SetMode(engine.JobsDeterministic)
	if _, err := e.AddTickHook(&serverHook{s: s}); err != nil {
		return nil, fmt.Errorf("netplay: server: %w", err)
	}
	return s, nil
}

// now is the server's monotonic clock.
func (s *Server) now() time.Duration { return time.Since(s.epoch) }

// Serve accepts clients on ln and runs the match until it ends (its last
// tick, or Close), then closes ln and every connection, and returns. It
// returns nil when the match ended as configured or was closed, and an
// error when the simulation failed (a panic in a system: the engine's
// *engine.PanicError) or ln failed for good.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	s.listener = ln
	s.mu.Unlock()
	acceptDone := make(chan error, 1)
	go func() { acceptDone <- s.accept(ln) }()
	matchErr := s.m.run()
	close(s.done)
	ln.Close()
	acceptErr := <-acceptDone
	s.closeLingering()
	s.bad.flush()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.report = s.m.report()
	switch {
	case matchErr != nil:
		s.err = matchErr
	case acceptErr != nil:
		s.err = acceptErr
	}
	return s.err
}

// exitGrace is how long Serve, the match over and its clients' last
// messages sent (match.closeAll), lets the other connections' goroutines
// finish on their own (a refusal on its way out) before it closes their
// connections: a connection in its handshake, or one that does not go,
// never holds the server's exit up for longer.
const exitGrace = 500 * time.Millisecond

// closeLingering waits for every connection's goroutine to finish, closing
// the connections still open after exitGrace.
func (s *Server) closeLingering() {
	finished := make(chan struct{})
	go func() { s.wg.Wait(); close(finished) }()
	select {
	case <-finished:
		return
	case <-time.After(exitGrace):
	}
	s.mu.Lock()
	for conn := range s.open {
		conn.Close()
	}
	s.mu.Unlock()
	<-finished
}

// track adds conn to the open connections; untrack removes it.
func (s *Server) track(conn net.Conn) {
	s.mu.Lock()
	s.open[conn] = struct{}{}
	s.mu.Unlock()
}

func (s *Server) untrack(conn net.Conn) {
	s.mu.Lock()
	delete(s.open, conn)
	s.mu.Unlock()
}

// Close ends the match: clients are told the server is shutting down, and
// Serve returns once every connection is closed. It is safe to call from
// any goroutine, more than once.
func (s *Server) Close() {
	s.stop.Do(func() { close(s.quit) })
}

// Report returns the match report; complete once Serve has returned.
func (s *Server) Report() Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.report
}

// accept accepts connections until ln is closed.
func (s *Server) accept(ln net.Listener) error {
	var backoff time.Duration
	for {
		conn, err := ln.Accept()
		if err != nil {
			select {
			case <-s.done:
				return nil
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) {
				// Out of file descriptors, or a passing fault: wait a
				// little rather than spin, and go on.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.bad.warn("accept", logrus.Fields{"error": err, "retry_in": backoff}, "cannot accept a connection")
				time.Sleep(backoff)
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			s.Close()
			return fmt.Errorf("netplay: server: accept: %w", err)
		}
		backoff = 0
		if int(s.pending.Load()) >= s.cfg.MaxPending {
			s.bad.warn("too many pending", logrus.Fields{"remote": conn.RemoteAddr().String(), "max_pending": s.cfg.MaxPending},
				"dropped a connection: too many connections are in their handshake")
			conn.Close()
			continue
		}
		if !s.hosts.acquire(conn.RemoteAddr(), int(s.pending.Load()), s.cfg.MaxPending) {
			s.bad.warn("too many pending from a host", logrus.Fields{"remote": conn.RemoteAddr().String(), "max_pending_per_host": pendingPerHost(s.cfg.MaxPending)},
				"dropped a connection: its host has too many connections in their handshake")
			conn.Close()
			continue
		}
		s.pending.Add(1)
		s.wg.Add(1)
		s.track(conn)
		go s.handle(conn, s.conns.Add(1))
	}
}

// A peer is one client's connection.
type peer struct {
	id      int64 // the connection's number, for logs
	conn    net.Conn
	remote  string
	name    string
	role    wire.Role
	out     *outbox
	bytesIn atomic.Int64
	// readDone is closed when the connection's reader has stopped: the
	// client closed its side, said goodbye, or broke the rules.
	readDone chan struct{}

	// Owned by the match goroutine.
	player        wire.PlayerID // NoPlayer for a spectator
	joinTick      uint64        // the tick the player joins at
	seq           int           // the order it was let in
	live          bool          // receives the confirmed ticks
	gone          bool
	since         time.Duration // the server's clock when it was let in
	until         time.Duration // the server's clock when it left
	lastHash      uint64        // the tick of its latest hash compared
	resynced      time.Duration // the server's clock at its latest resynchronisation (0: none)
	stats         PlayerReport
	*playerInputs // a player's; nil for a spectator
}

// playerInputs is what the server keeps of a player's input, by tick.
type playerInputs struct {
	inputs  [inputRing]input.Sample
	have    [inputRing]uint64 // have[i] is the tick of inputs[i] plus 1; 0: none
	arrived [inputRing]time.Duration
	last    input.Sample // its latest confirmed input
	latency Latencies
}

// inputRing holds a player's inputs by tick: the window of ticks a client
// may stamp inputs for, both ways.
const inputRing = 2 * MaxInputAhead

// connLog is log with the connection's fields that do not change once
// its handshake is done: safe from the connection's own goroutine.
func (p *peer) connLog(log logrus.FieldLogger) logrus.FieldLogger {
	f := logrus.Fields{"conn": p.id, "remote": p.remote}
	if p.name != "" {
		f["name"] = p.name
	}
	return log.WithFields(f)
}

// logger is log with the connection's fields and its player: only on the
// match goroutine, which assigns the player.
func (p *peer) logger(log logrus.FieldLogger) logrus.FieldLogger {
	f := logrus.Fields{"conn": p.id, "remote": p.remote}
	if p.name != "" {
		f["name"] = p.name
	}
	if p.player != wire.NoPlayer && p.role == wire.RolePlayer {
		f["player"] = p.player
	}
	return log.WithFields(f)
}

// handle runs one connection: its handshake, then its reader, until it
// closes.
func (s *Server) handle(conn net.Conn, id int64) {
	defer s.wg.Done()
	defer s.untrack(conn)
	p := &peer{id: id, conn: conn, remote: conn.RemoteAddr().String(), player: wire.NoPlayer, readDone: make(chan struct{})}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	hello, r, err := s.handshake(p)
	s.pending.Add(-1)
	s.hosts.release(conn.RemoteAddr())
	if err != nil {
		conn.Close()
		return
	}
	p.name, p.role = hello.Name, hello.Role
	p.out = newOutbox(conn, s.cfg.OutboxLimit)
	if !s.send(event{kind: evHello, p: p}) {
		p.out.queue(wire.RefuseShutdown())
		p.out.close()
		p.out.wait(time.Second)
		conn.Close()
		return
	}
	err = s.read(p, r)
	close(p.readDone)
	s.send(event{kind: evGone, p: p, err: err})
	// The match goroutine closes the outbox; wait for the writer so that
	// the last messages (End, a refusal, why the client was dropped) go
	// out before the socket closes.
	select {
	case <-p.out.stopped():
	case <-s.done:
		p.out.close()
		p.out.wait(time.Second)
	case <-time.After(dropWriteTimeout):
	}
	lingeringClose(conn)
}

// lingerTime bounds lingeringClose's wait for the peer's side to close.
const lingerTime = time.Second

// lingeringClose closes a TCP connection's sending side, reads and
// discards what the peer still sends until it closes its side (at most
// lingerTime), then closes the connection: closing a socket with
// received bytes unread makes the kernel reset the connection, and the
// reset makes the peer's kernel discard what the peer has not read yet
// (the server's last message: why it dropped the client).
func lingeringClose(conn net.Conn) {
	tc, ok := conn.(*net.TCPConn)
	if !ok || tc.CloseWrite() != nil {
		conn.Close()
		return
	}
	tc.SetReadDeadline(time.Now().Add(lingerTime))
	io.Copy(io.Discard, tc)
	tc.Close()
}

// send hands ev to the match goroutine; false once the match is over.
func (s *Server) send(ev event) bool {
	select {
	case s.events <- ev:
		return true
	case <-s.done:
		return false
	}
}

// handshake reads the client's preamble and Hello and checks them, writing
// the server's preamble and, when it refuses the client, the refusal.
func (s *Server) handshake(p *peer) (*wire.Hello, *wire.Reader, error) {
	p.conn.SetDeadline(time.Now().Add(s.cfg.HandshakeTimeout))
	defer p.conn.SetDeadline(time.Time{})
	r := wire.NewReader(countingReader{p.conn, &p.bytesIn}, s.cfg.MaxMessage)
	w := wire.NewWriter(p.conn)
	drop := func(kind string, err error, msg string) error {
		s.bad.warn(kind, logrus.Fields{"conn": p.id, "remote": p.remote, "error": err}, msg)
		return err
	}
	version, err := r.ReadClientPreamble()
	switch {
	case isTimeout(err):
		return nil, nil, drop("handshake timeout", err, fmt.Sprintf("dropped a connection that did not finish its handshake within %v", s.cfg.HandshakeTimeout))
	case errors.Is(err, wire.ErrNotClient):
		return nil, nil, drop("not a client", err, "dropped a connection that is not a Nebula client")
	case errors.Is(err, wire.ErrVersion) || err == nil && version != wire.Version:
		w.WritePreamble()
		w.WriteMessage(wire.RefuseVersion(version))
		return nil, nil, drop("version", fmt.Errorf("protocol version %d", version), "refused a client of another protocol version")
	case err != nil:
		return nil, nil, drop("handshake", err, "dropped a connection during its handshake")
	}
	if err := w.WritePreamble(); err != nil {
		return nil, nil, drop("handshake", err, "dropped a connection during its handshake")
	}
	m, err := r.ReadMessage()
	if err != nil {
		kind, msg := "handshake", "dropped a connection during its handshake"
		if isTimeout(err) {
			kind, msg = "handshake timeout", fmt.Sprintf("dropped a connection that did not finish its handshake within %v", s.cfg.HandshakeTimeout)
		} else if !errors.Is(err, wire.ErrTruncated) {
			kind, msg = "bad message", "dropped a connection that sent a bad message"
		}
		return nil, nil, drop(kind, err, msg)
	}
	hello, ok := m.(*wire.Hello)
	if !ok {
		return nil, nil, drop("bad message", fmt.Errorf("%v message before the Hello", m.Type()), "dropped a connection that did not start with a Hello")
	}
	h := *hello
	var refusal *wire.Refuse
	fp := s.e.World.Schema().Fingerprint()
	switch {
	case h.Version != version:
		return nil, nil, drop("bad message", fmt.Errorf("the Hello says protocol version %d, its preamble %d", h.Version, version), "dropped a connection that sent a bad message")
	case h.Scene != s.cfg.Scene:
		refusal = wire.RefuseScene(h.Scene, s.cfg.Scene)
	case h.Fingerprint != fp:
		refusal = wire.RefuseSchema(h.Fingerprint, fp)
	}
	if refusal != nil {
		w.WriteMessage(refusal)
		return nil, nil, drop("refused", errors.New(refusal.String()), "refused a client")
	}
	return &h, r, nil
}

// read reads a client's messages after its handshake, handing inputs and
// hashes to the match goroutine and answering pings, until the connection
// ends; it returns why (nil for a Bye).
func (s *Server) read(p *peer, r *wire.Reader) error {
	log := p.connLog(s.log)
	var window time.Time
	var count int
	// drop drops the client for err, whose text it is sent.
	drop := func(err error) error {
		d := dropped(err, nil)
		p.out.drop(d)
		return d
	}
	badMessage := func(err error) error {
		s.bad.warn("bad message", logrus.Fields{"conn": p.id, "remote": p.remote, "error": err}, "dropped a connection that sent a bad message")
		return drop(fmt.Errorf("this client sent a bad message: %w", err))
	}
	for {
		p.conn.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
		if err := p.out.dropReason(); err != nil {
			return err // the match dropped the client (see outbox.drop)
		}
		m, err := r.ReadMessage()
		if err != nil {
			select {
			case <-s.done:
				return nil
			default:
			}
			if err := p.out.dropReason(); err != nil {
				return err
			}
			switch {
			case isTimeout(err):
				s.bad.warn("idle", logrus.Fields{"conn": p.id, "remote": p.remote}, fmt.Sprintf("dropped a connection silent for %v", s.cfg.IdleTimeout))
				return drop(fmt.Errorf("this client sent nothing for %v (the server's idle timeout)", s.cfg.IdleTimeout))
			case errors.Is(err, io.EOF) || errors.Is(err, wire.ErrTruncated) || errors.Is(err, net.ErrClosed):
				log.WithError(err).Info("connection closed")
				return err
			case closedByPeer(err):
				log.WithError(err).Info("connection reset")
				return err
			}
			return badMessage(err)
		}
		// More than maxMessagesPerSecond messages in a second is a flood.
		if now := time.Now(); now.Sub(window) > time.Second {
			window, count = now, 0
		}
		if count++; count > maxMessagesPerSecond {
			s.bad.warn("flood", logrus.Fields{"conn": p.id, "remote": p.remote}, "dropped a connection that floods the server")
			return drop(fmt.Errorf("this client sent more than %d messages in a second", maxMessagesPerSecond))
		}
		switch m := m.(type) {
		case *wire.Input:
			if p.role != wire.RolePlayer {
				return badMessage(errors.New("a spectator sent input"))
			}
			ev := event{kind: evInput, p: p, first: m.First, inputs: slices.Clone(m.Inputs), at: s.now()}
			if !s.send(ev) {
				return nil
			}
		case *wire.Hash:
			if !s.send(event{kind: evHash, p: p, hash: *m}) {
				return nil
			}
		case *wire.Ping:
			p.out.queue(&wire.Pong{Echo: m.Time, Time: s.m.clock()})
		case *wire.Bye:
			log.Info("the client said goodbye")
			return nil
		case *wire.Hello:
			return badMessage(errors.New("a second Hello"))
		default:
			return badMessage(fmt.Errorf("a %v message, which only a server sends", m.Type()))
		}
	}
}

// maxMessagesPerSecond is the most messages a client may send in a
// second: an honest one sends an input a tick and two pings.
const maxMessagesPerSecond = 4000

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// eventKind says what happened to a connection.
type eventKind uint8

const (
	evHello eventKind = iota // a client finished its handshake
	evInput                  // a player's input arrived
	evHash                   // a client's hash arrived
	evGone                   // the connection ended
)

// event is what a connection's goroutine tells the match goroutine.
type event struct {
	kind   eventKind
	p      *peer
	first  uint64
	inputs []input.Sample
	at     time.Duration
	hash   wire.Hash
	err    error
}

// serverHook is the server's tick hook: each tick's players are those of
// the tick being confirmed. A recorder of the match is another of the
// engine's hooks.
type serverHook struct{ s *Server }

func (h *serverHook) OwnsPlayers() bool { return true }

func (h *serverHook) PreTick() {}

func (h *serverHook) BeginTick(t *engine.TickInfo) {
	if err := applyTick(t.Players, &h.s.m.ct); err != nil {
		panic(fmt.Sprintf("netplay: server: tick %d: %v", t.Tick, err)) // the server's own bookkeeping is wrong
	}
}

func (h *serverHook) JobApplied(uint64, engine.JobID, []byte) {}

func (h *serverHook) EndTick(tick uint64, w *engine.World) {
	if tick%HashEvery == 0 {
		h.s.m.saveHash(tick, w.Hash())
	}
}

// writeDump writes the world's state as saved in st to path, restoring
// the engine's state afterwards.
func writeDump(e *engine.Engine, st *engine.State, path string) error {
	var now engine.State
	e.SaveState(&now)
	e.LoadState(st)
	defer e.LoadState(&now)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := e.World.WriteDump(f); err != nil {
		f.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return f.Close()
}

// dumpPath is the file a peer writes its dump of tick to.
func dumpPath(dir string, tick uint64, who string) string {
	return filepath.Join(dir, fmt.Sprintf("desync-%d-%s.dump", tick, who))
}
