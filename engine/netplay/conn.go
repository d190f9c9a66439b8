package netplay

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// errOutboxFull is why a connection is dropped when its peer does not read
// what it is sent.
var errOutboxFull = errors.New("the peer reads too slowly: more than the outbox holds is waiting to be sent")

// An outbox sends a connection's messages from a goroutine of its own, so
// that the goroutine that queues them (the server's tick) never waits for
// a slow peer: it appends encoded messages to a buffer that the writer
// swaps out and writes. A peer that lets more than limit bytes pile up is
// disconnected.
type outbox struct {
	conn  net.Conn
	limit int
	sent  atomic.Int64 // bytes written to the connection

	mu      sync.Mutex
	buf     []byte
	closing bool  // no more messages: write what is queued, then stop
	err     error // why the outbox stopped, once it has
	wake    chan struct{}
	done    chan struct{} // closed when the writer returns
}

// writeTimeout bounds one write: a peer that accepts nothing for that
// long is gone.
const writeTimeout = 10 * time.Second

func newOutbox(conn net.Conn, limit int) *outbox {
	o := &outbox{conn: conn, limit: limit, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go o.run()
	return o
}

// queue appends m, encoded, to the outbox. It reports false when the
// outbox has stopped or is too full (and then stops it).
func (o *outbox) queue(m wire.Message) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closing || o.err != nil {
		return false
	}
	o.buf = wire.AppendMessage(o.buf, m)
	return o.pushed()
}

// queueBytes appends encoded messages to the outbox, like queue.
func (o *outbox) queueBytes(b []byte) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closing || o.err != nil {
		return false
	}
	o.buf = append(o.buf, b...)
	return o.pushed()
}

// pushed wakes the writer, or stops the outbox when it holds too much.
// o.mu is held.
func (o *outbox) pushed() bool {
	if len(o.buf) > o.limit {
		o.err = errOutboxFull
		o.buf = nil
		o.conn.Close()
		return false
	}
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return true
}

// close lets the writer send what is queued and stop; it does not wait.
func (o *outbox) close() {
	o.mu.Lock()
	o.closing = true
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
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
		out, closing := o.buf, o.closing
		o.buf = spare[:0]
		stop := o.err != nil
		o.mu.Unlock()
		if stop {
			return
		}
		if len(out) > 0 {
			o.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
			n, err := o.conn.Write(out)
			o.sent.Add(int64(n))
			if err != nil {
				o.mu.Lock()
				if o.err == nil {
					o.err = err
				}
				o.buf = nil
				o.mu.Unlock()
				return
			}
		}
		spare = out
		if closing {
			o.mu.Lock()
			empty := len(o.buf) == 0
			o.mu.Unlock()
			if empty {
				return
			}
			select {
			case o.wake <- struct{}{}:
			default:
			}
		}
	}
}
