package netplay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r     io.Reader
	n     *atomic.Int64
	trace func(int) // ServerTrace.BytesRead, or nil
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	if c.trace != nil && n > 0 {
		c.trace(n)
	}
	return n, err
}

// errOutboxFull is why a connection is dropped when its peer does not read
// what it is sent.
var errOutboxFull = errors.New("the peer reads too slowly")

// An outbox sends a connection's messages from a goroutine of its own, so
// that the goroutine that queues them (the server's tick) never waits for
// a slow peer: it appends encoded messages to a buffer that the writer
// swaps out and writes. A peer that leaves more than limit bytes, plus the
// largest message queued to it (a snapshot), unsent is dropped: what is
// queued is discarded and the peer is sent the reason instead.
//
// drop also ends the connection's reader (its read deadline is set to
// now, and the reader's error is then the drop's reason): the outbox is
// where the goroutine that reads, the match goroutine and the writer meet.
type outbox struct {
	conn     net.Conn
	limit    int
	dropWait time.Duration // dropWriteTimeout
	sent     atomic.Int64  // bytes written to the connection
	onWrite  func(int)     // ServerTrace.BytesWritten, or nil

	mu       sync.Mutex
	buf      []byte
	inflight int   // bytes the writer took and has not written yet
	largest  int   // the largest message queued
	closing  bool  // no more messages: write what is queued, then stop
	dropped  error // why the peer was dropped, once it has been
	err      error // why the outbox stopped, once it has
	wake     chan struct{}
	done     chan struct{} // closed when the writer returns
}

// writeTimeout bounds one write: a peer that accepts nothing for that
// long is gone.
const writeTimeout = 10 * time.Second

// dropWriteTimeout bounds the writes to a dropped peer (what was in
// flight, then its reason): it is not waited for longer. (At the match's
// end, Serve closes what lingers sooner.)
const dropWriteTimeout = 3 * time.Second

// A dropError is why the server dropped a client: the error, and the
// text it sends the client.
type dropError struct {
	err  error
	sent *wire.Refuse
}

func (e *dropError) Error() string { return e.err.Error() }
func (e *dropError) Unwrap() error { return e.err }

// dropped returns a dropError of err that sends the client r (nil:
// RefuseDropped with err's text).
func dropped(err error, r *wire.Refuse) *dropError {
	if r == nil {
		r = wire.RefuseDropped(err.Error())
	}
	return &dropError{err: err, sent: r}
}

// newOutbox starts conn's outbox; onWrite, if not nil, is called with the
// bytes of each write (ServerTrace.BytesWritten).
func newOutbox(conn net.Conn, limit int, onWrite func(int)) *outbox {
	o := &outbox{conn: conn, limit: limit, onWrite: onWrite, dropWait: dropWriteTimeout, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go o.run()
	return o
}

// queue appends m, encoded, to the outbox. It reports false when the
// outbox has stopped or is too full (and then drops the peer).
func (o *outbox) queue(m wire.Message) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closing || o.err != nil {
		return false
	}
	n := len(o.buf)
	o.buf = wire.AppendMessage(o.buf, m)
	return o.pushed(len(o.buf) - n)
}

// queueBytes appends an encoded message to the outbox, like queue.
func (o *outbox) queueBytes(b []byte) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closing || o.err != nil {
		return false
	}
	o.buf = append(o.buf, b...)
	return o.pushed(len(b))
}

// pushed wakes the writer, or drops the peer when too much is unsent. n
// is the size of the message just queued. o.mu is held.
func (o *outbox) pushed(n int) bool {
	o.largest = max(o.largest, n)
	if unsent := len(o.buf) + o.inflight; unsent > o.limit+o.largest {
		o.dropLocked(dropped(fmt.Errorf("%w: %d bytes unsent, the limit is %d bytes plus the largest message queued (%d)",
			errOutboxFull, unsent, o.limit, o.largest), wire.RefuseDropped(fmt.Sprintf("this client left more than %d bytes unread (it reads too slowly)", o.limit+o.largest))))
		return false
	}
	o.wakeWriter()
	return true
}

func (o *outbox) wakeWriter() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// drop drops the peer for reason: what is queued is discarded, the peer
// is sent reason's Refuse (given at most dropWriteTimeout to take what
// is in flight and it), and the connection's reader stops with reason as
// its error. Only the first reason counts.
func (o *outbox) drop(reason *dropError) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.dropLocked(reason)
}

func (o *outbox) dropLocked(reason *dropError) {
	if o.dropped != nil {
		return
	}
	o.dropped = reason
	if o.err == nil {
		o.buf = wire.AppendMessage(o.buf[:0:0], reason.sent)
		o.conn.SetWriteDeadline(time.Now().Add(o.dropWait))
	}
	o.closing = true
	o.conn.SetReadDeadline(time.Now())
	o.wakeWriter()
}

// dropReason returns why the peer was dropped, or nil.
func (o *outbox) dropReason() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.dropped == nil {
		return nil
	}
	return o.dropped
}

// close lets the writer send what is queued and stop; it does not wait.
func (o *outbox) close() {
	o.mu.Lock()
	o.closing = true
	o.mu.Unlock()
	o.wakeWriter()
}

// wait waits until the writer has stopped, at most d, and returns why it
// stopped (nil when it sent everything).
func (o *outbox) wait(d time.Duration) error {
	select {
	case <-o.done:
	case <-time.After(d):
		o.conn.Close()
		<-o.done
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// stopped returns the channel closed when the writer has stopped.
func (o *outbox) stopped() <-chan struct{} { return o.done }

func (o *outbox) run() {
	defer close(o.done)
	var spare []byte
	for range o.wake {
		o.mu.Lock()
		out, closing, isDropped := o.buf, o.closing, o.dropped != nil
		o.buf, o.inflight = spare[:0], len(out)
		stop := o.err != nil
		o.mu.Unlock()
		if stop {
			return
		}
		if len(out) > 0 {
			timeout := writeTimeout
			if isDropped {
				timeout = o.dropWait
			}
			o.conn.SetWriteDeadline(time.Now().Add(timeout))
			n, err := o.conn.Write(out)
			o.sent.Add(int64(n))
			if o.onWrite != nil && n > 0 {
				o.onWrite(n)
			}
			o.mu.Lock()
			o.inflight = 0
			if err != nil {
				if o.err == nil {
					o.err = err
				}
				o.buf = nil
				o.mu.Unlock()
				return
			}
			o.mu.Unlock()
		}
		spare = out
		if closing {
			o.mu.Lock()
			empty := len(o.buf) == 0
			o.mu.Unlock()
			if empty {
				return
			}
			o.wakeWriter()
		}
	}
}
