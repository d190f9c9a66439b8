package netplay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay/seal"
	"github.com/nebulaengine/nebula/engine/netplay/token"
	"github.com/nebulaengine/nebula/engine/netplay/udp"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

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
	// With connect tokens: the token's seat (hasSeat) and its entry in
	// the server's table of tokens. Set by the handshake.
	seat    token.Seat
	hasSeat bool
	use     *tokenUse

	// Owned by the match goroutine.
	player   wire.PlayerID // NoPlayer for a spectator
	joinTick uint64        // the tick the player joins at
	seq      int           // the order it was let in
	live     bool          // receives the confirmed ticks
	gone     bool
	since    time.Duration // the server's clock when it was let in
	until    time.Duration // the server's clock when it left
	lastHash uint64        // the tick of its latest hash compared
	resynced time.Duration // the server's clock at its latest resynchronisation (0: none)
	// resyncTick is the tick of the snapshot of its latest
	// resynchronisation (0: none): its hashes up to it predate the
	// snapshot.
	resyncTick uint64
	// resyncDue is the desync of a wrong hash not answered yet (the resync
	// interval had not passed), nil when none is due.
	resyncDue *wire.Desync
	// away is the server's clock when a player's connection ended, while
	// its seat is kept for it to rejoin (ServerConfig.RejoinGrace); 0
	// otherwise.
	away time.Duration
	// rejoined: the player took back a seat kept for it.
	rejoined      bool
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
	return log.WithFields(p.fields(nil))
}

// fields returns more (a new map when nil) with the connection's fields
// and its player added: only on the match goroutine.
func (p *peer) fields(more logrus.Fields) logrus.Fields {
	if more == nil {
		more = logrus.Fields{}
	}
	more["conn"], more["remote"] = p.id, p.remote
	if p.name != "" {
		more["name"] = p.name
	}
	if p.player != wire.NoPlayer && p.role == wire.RolePlayer {
		more["player"] = p.player
	}
	return more
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
	p.out = newOutbox(p.conn, s.cfg.OutboxLimit, s.cfg.Trace.bytesWritten())
	if !s.send(event{kind: evHello, p: p}) {
		s.refused("shutdown")
		s.tokens.forget(p.use)
		p.out.queue(wire.RefuseShutdown())
		p.out.close()
		p.out.wait(time.Second)
		conn.Close()
		return
	}
	err = s.read(p, r)
	close(p.readDone)
	s.send(event{kind: evGone, p: p, err: err})
	s.tokens.end(p.use, time.Now())
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

// handshake reads the client's preamble and Hello and checks them, writing
// the server's preamble and, when it refuses the client, the refusal.
//
// With connect tokens (ServerConfig.TokenKey), a TCP connection is
// wrapped in a seal.Conn before anything is read (it passes the
// handshake in clear), and once the token is accepted, p's connection is
// sealed with the token's session keys: only a refusal of the token
// itself goes out in clear.
func (s *Server) handshake(p *peer) (*wire.Hello, *wire.Reader, error) {
	p.conn.SetDeadline(time.Now().Add(s.cfg.HandshakeTimeout))
	defer p.conn.SetDeadline(time.Time{})
	if _, isUDP := p.conn.(*udp.Conn); s.opener != nil && !isUDP {
		p.conn = seal.NewConn(p.conn, wire.PreambleSize)
	}
	r := wire.NewReader(countingReader{p.conn, &p.bytesIn, s.cfg.Trace.bytesRead()}, s.cfg.MaxMessage)
	w := wire.NewWriter(p.conn)
	drop := func(kind string, err error, msg string) error {
		s.bad.warn(kind, logrus.Fields{"conn": p.id, "remote": p.remote, "error": err}, msg)
		return err
	}
	version, err := r.ReadClientPreamble()
	switch {
	case isTimeout(err):
		s.refused("timeout")
		return nil, nil, drop("handshake timeout", err, fmt.Sprintf("dropped a connection that did not finish its handshake within %v", s.cfg.HandshakeTimeout))
	case errors.Is(err, wire.ErrNotClient):
		s.refused("not-client")
		return nil, nil, drop("not a client", err, "dropped a connection that is not a Nebula client")
	case errors.Is(err, wire.ErrVersion) || err == nil && version != wire.Version:
		s.refused("version")
		w.WritePreamble()
		w.WriteMessage(wire.RefuseVersion(version))
		return nil, nil, drop("version", fmt.Errorf("protocol version %d", version), "refused a client of another protocol version")
	case err != nil:
		s.refused("handshake")
		return nil, nil, drop("handshake", err, "dropped a connection during its handshake")
	}
	if err := w.WritePreamble(); err != nil {
		s.refused("handshake")
		return nil, nil, drop("handshake", err, "dropped a connection during its handshake")
	}
	m, err := r.ReadMessage()
	if err != nil {
		kind, msg, label := "handshake", "dropped a connection during its handshake", "handshake"
		if isTimeout(err) {
			kind, msg, label = "handshake timeout", fmt.Sprintf("dropped a connection that did not finish its handshake within %v", s.cfg.HandshakeTimeout), "timeout"
		} else if !errors.Is(err, wire.ErrTruncated) {
			kind, msg, label = "bad message", "dropped a connection that sent a bad message", "bad-message"
		}
		s.refused(label)
		return nil, nil, drop(kind, err, msg)
	}
	hello, ok := m.(*wire.Hello)
	if !ok {
		s.refused("bad-message")
		return nil, nil, drop("bad message", fmt.Errorf("%v message before the Hello", m.Type()), "dropped a connection that did not start with a Hello")
	}
	h := *hello
	h.Token = slices.Clone(h.Token)
	if h.Version != version {
		s.refused("bad-message")
		return nil, nil, drop("bad message", fmt.Errorf("the Hello says protocol version %d, its preamble %d", h.Version, version), "dropped a connection that sent a bad message")
	}
	// The token first: a server that requires tokens tells nothing of
	// its match to a client without a valid one.
	claims, use, err := s.checkToken(&h)
	if err != nil {
		var tr *tokenRefusal
		errors.As(err, &tr)
		s.refused(tr.label)
		w.WriteMessage(wire.RefuseToken(err.Error()))
		return nil, nil, drop("token "+tr.label, err, "refused a client's connect token")
	}
	// From here on, with a token, everything is sealed, a refusal too
	// (the client reads sealed from its Hello on; only a refusal of its
	// token comes in clear, as the server has no keys for it).
	if use != nil {
		p.seat, p.hasSeat, p.use = claims.Seat, claims.Seat != token.Spectator, use
		s.seal(p, claims, h.Salt)
	}
	var refusal *wire.Refuse
	label := ""
	fp := s.e.World.Schema().Fingerprint()
	switch {
	case h.Scene != s.cfg.Scene:
		refusal, label = wire.RefuseScene(h.Scene, s.cfg.Scene), "scene"
	case h.Fingerprint != fp:
		refusal, label = wire.RefuseSchema(h.Fingerprint, fp), "schema"
	}
	if refusal != nil {
		s.tokens.forget(use)
		s.refused(label)
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
				log.WithError(err).Debug("connection closed")
				return err
			case closedByPeer(err):
				log.WithError(err).Debug("connection reset")
				return err
			case errors.Is(err, seal.ErrAuth):
				s.bad.warn("tampered", logrus.Fields{"conn": p.id, "remote": p.remote, "error": err},
					"closed a connection whose traffic failed authentication: altered, forged or replayed on its way")
				return drop(fmt.Errorf("this client's traffic failed authentication: %w", err))
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
			log.Debug("the client said goodbye")
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
