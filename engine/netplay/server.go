package netplay

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay/token"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// Server runs one match: it accepts clients, owns the tick clock, confirms
// every player's input for each tick at the tick's deadline, simulates
// the tick itself (headless, on the engine it was given) and sends the
// confirmed inputs of every tick to every client. See the package doc.
type Server struct {
	cfg ServerConfig
	e   *engine.Engine
	log logrus.FieldLogger
	bad *rateLog

	opener *token.Opener // with ServerConfig.TokenKey
	tokens tokenTable

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
	if e.World.Tick() != 0 {
		return nil, fmt.Errorf("netplay: server: the engine is at tick %d; a match starts from tick 0 (ResumeServer continues one)", e.World.Tick())
	}
	return newServer(e, cfg)
}

// newServer is NewServer without its check of e's tick.
func newServer(e *engine.Engine, cfg ServerConfig) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
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
	if cfg.TokenKey != nil {
		s.opener = token.NewOpener(*cfg.TokenKey, cfg.MatchID)
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
			s.refused("busy")
			s.bad.warn("too many pending", logrus.Fields{"remote": conn.RemoteAddr().String(), "max_pending": s.cfg.MaxPending},
				"dropped a connection: too many connections are in their handshake")
			conn.Close()
			continue
		}
		if !s.hosts.acquire(conn.RemoteAddr(), int(s.pending.Load()), s.cfg.MaxPending) {
			s.refused("busy")
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

// send hands ev to the match goroutine; false once the match is over.
func (s *Server) send(ev event) bool {
	select {
	case s.events <- ev:
		return true
	case <-s.done:
		return false
	}
}

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
