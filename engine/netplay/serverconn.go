package netplay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/udp"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// serverConn is a client's connection to its server: the socket, the
// bytes each way, the handshake, and reads bounded by the idle timeout.
// It speaks the protocol's messages but knows nothing of the match.
//
//srccheck:wrapped by Dial ("netplay: client: server <addr>: ...") and Client.fail, as "netplay: client: ..."
type serverConn struct {
	conn      net.Conn
	addr      string
	transport Transport
	idle      time.Duration        // the idle timeout
	now       func() time.Duration // the client's clock, for pings
	// sealWrites, with a connect token over TCP, seals every write after
	// the Hello.
	sealWrites func()

	bytesUp, bytesDown atomic.Int64
}

// writer returns a writer of messages to the server that counts the bytes.
func (s *serverConn) writer() *wire.Writer {
	return wire.NewWriter(countingWriter{s.conn, &s.bytesUp})
}

// handshake sends the preamble and hello and reads the server's answer:
// its preamble, then its Welcome, which comes when the match starts,
// pinging the server meanwhile. check refuses a Welcome the client cannot
// play (the server is told why). It returns the reader of the server's
// messages that follow, and the Welcome.
func (s *serverConn) handshake(hello *wire.Hello, timeout time.Duration, check func(*wire.Welcome) error) (*wire.Reader, *wire.Welcome, error) {
	s.conn.SetDeadline(time.Now().Add(timeout))
	defer s.conn.SetDeadline(time.Time{})
	w := s.writer()
	if err := wire.Check(hello); err != nil {
		return nil, nil, err
	}
	if err := w.WritePreamble(); err != nil {
		return nil, nil, fmt.Errorf("cannot send the handshake: %w", err)
	}
	if err := w.WriteMessage(hello); err != nil {
		return nil, nil, fmt.Errorf("cannot send the handshake: %w", err)
	}
	if s.sealWrites != nil {
		s.sealWrites()
	}
	r := wire.NewReader(countingReader{s.conn, &s.bytesDown, nil}, wire.MaxServerMessage)
	version, err := r.ReadServerPreamble()
	switch {
	case errors.Is(err, wire.ErrNotServer):
		return nil, nil, fmt.Errorf("not a Nebula server: %w", err)
	case isTimeout(err):
		return nil, nil, fmt.Errorf("no answer to the handshake within %v (is it a Nebula server?)", timeout)
	case errors.Is(err, io.EOF) || errors.Is(err, wire.ErrTruncated):
		return nil, nil, fmt.Errorf("the server closed the connection before its preamble, with no reason given (a server that is not Nebula's, or one with too many connections in their handshake)")
	case err != nil && !errors.Is(err, wire.ErrVersion):
		return nil, nil, fmt.Errorf("handshake: %w", err)
	}
	// The Welcome comes when the match starts: no deadline but the
	// server's liveness, checked by the pings the sender starts now.
	s.conn.SetDeadline(time.Time{})
	stop, done := make(chan struct{}), make(chan struct{})
	go s.pingWhileWaiting(stop, done)
	defer func() { close(stop); <-done }()
	for {
		m, silent, err := s.readIdle(r)
		if err != nil {
			if isTimeout(err) {
				return nil, nil, fmt.Errorf("the server stopped answering while this client waited for the match: nothing received for %v", silent)
			}
			if closedByPeer(err) {
				return nil, nil, fmt.Errorf("the server closed the connection while this client waited for the match, with no reason given (did it crash?)")
			}
			return nil, nil, fmt.Errorf("handshake: %w", err)
		}
		switch m := m.(type) {
		case *wire.Refuse:
			if m.Reason == wire.ReasonDropped {
				return nil, nil, fmt.Errorf("dropped this client: %s", m.Text)
			}
			return nil, nil, fmt.Errorf("refused: %v", m)
		case *wire.Pong:
			continue
		case *wire.Welcome:
			if version != wire.Version {
				return nil, nil, fmt.Errorf("protocol version %d, this client speaks %d", version, wire.Version)
			}
			if err := check(m); err != nil {
				wire.NewWriter(s.conn).WriteMessage(&wire.Refuse{Reason: wire.ReasonOther, Text: err.Error()})
				return nil, nil, err
			}
			welcome := *m
			welcome.Params = slices.Clone(m.Params)
			return r, &welcome, nil
		default:
			return nil, nil, fmt.Errorf("the server sent a %v message before its Welcome", m.Type())
		}
	}
}

// pingWhileWaiting pings the server while the client waits for its
// Welcome, so that a server that went away is noticed, until stop is
// closed; it closes done when it returns.
func (s *serverConn) pingWhileWaiting(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(s.pingEvery())
	defer t.Stop()
	w := s.writer()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
			if w.WriteMessage(&wire.Ping{Time: s.now()}) != nil {
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

// pingEvery is how often the client pings its server.
func (s *serverConn) pingEvery() time.Duration {
	if s.transport == UDP {
		return udpPingEvery
	}
	return pingEvery
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
func (s *serverConn) readIdle(r *wire.Reader) (wire.Message, time.Duration, error) {
	start := time.Now()
	deadline := start.Add(s.idle)
	for grace := false; ; grace = true {
		s.conn.SetReadDeadline(deadline)
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

// readError is the error of a read from the server that failed after
// silent without a message.
func (s *serverConn) readError(err error, silent time.Duration) error {
	switch {
	case isTimeout(err):
		return fmt.Errorf("server %s stopped answering: nothing received for %v (it is down, or the network to it is)", s.addr, silent)
	case closedByPeer(err):
		return s.wentAway()
	}
	return fmt.Errorf("server %s: %w", s.addr, err)
}

// wentAway is the error of a server whose connection ended before the
// match did, without a reason: a server that drops a client says why
// (refused, below).
func (s *serverConn) wentAway() error {
	return fmt.Errorf("server %s went away: the connection closed before the match ended, with no reason given (did the server crash?)", s.addr)
}

// refused is the error of a server that ended the connection with a
// Refuse after the handshake: it dropped the client, and says why.
func (s *serverConn) refused(r *wire.Refuse) error {
	if r.Reason == wire.ReasonDropped {
		return fmt.Errorf("server %s dropped this client: %s", s.addr, r.Text)
	}
	return fmt.Errorf("server %s closed the connection: %v", s.addr, r)
}

// close closes the connection. Over UDP, closing resends what the server
// has not acknowledged (the goodbye) in the background: unless the
// client failed (its server dropped it, went away or stopped answering:
// nothing to say, nobody to wait for), close waits for it, up to 2 s, so
// that a program that exits next does not cut it short.
func (s *serverConn) close(failed func() bool) {
	s.conn.Close()
	if d, ok := s.conn.(interface{ Done() <-chan struct{} }); ok && !failed() {
		select {
		case <-d.Done():
		case <-time.After(2 * time.Second):
		}
	}
}

// counts returns the bytes sent and received, and over UDP the
// transport's counters (the bytes are then the packets' payloads).
func (s *serverConn) counts() (up, down int64, st *udp.Stats) {
	if u, ok := s.conn.(udpStats); ok {
		x := u.Stats()
		return x.BytesSent, x.BytesReceived, &x
	}
	return s.bytesUp.Load(), s.bytesDown.Load(), nil
}

// closedByPeer reports whether err means the connection is gone: closed,
// reset or broken, rather than a message that could not be read.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, wire.ErrTruncated) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED)
}
