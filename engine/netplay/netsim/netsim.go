// Package netsim simulates a slow network for tests, benchmarks and a
// client's -net-delay and -net-jitter flags: it delays what goes through a
// TCP connection, by a fixed one-way delay and a seeded jitter in each
// direction, and keeps the bytes in order.
//
// Listen starts a proxy on 127.0.0.1 that forwards every connection it
// accepts to a target; Wrap delays one connection a program already has.
//
//	p, err := netsim.Listen(server.Addr().String(), netsim.Config{Delay: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Seed: 1})
//	defer p.Close()
//	conn, err := net.Dial("tcp", p.Addr().String()) // 100 ms more round trip, give or take 20
//
// Each chunk of bytes read from one side is written to the other at its
// due time: the time it was read plus Delay plus a jitter drawn uniformly
// from [-Jitter, +Jitter] (a due time before the read is the read time).
// TCP is a stream, so a chunk is never written before the one read before
// it: it goes at its due time or when the previous one went, whichever is
// later. Jitter therefore bunches bytes up behind a late chunk, as a
// retransmission on a real network does, and never reorders them.
//
// Over TCP only the delay is simulated: nothing is lost (TCP hides losses
// as delay), and the bandwidth is the loopback's.
//
// WrapPacketConn does the same to the packets of a UDP socket (a client's,
// with -transport udp), each way, and can also lose a packet (Loss),
// deliver it twice (Dup) or hold it back so that later ones overtake it
// (Reorder), each with its probability, drawn from the seeded generator:
//
//	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
//	sim := netsim.WrapPacketConn(pc, netsim.Config{Delay: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05, Dup: 0.01, Reorder: 0.01, Seed: 1})
//
// Packets keep their order unless one is reordered: a packet's due time is
// its time plus its delay, or the previous packet's due time if that is
// later, as on a stream; a reordered packet gets an extra delay drawn from
// (0, ReorderDelay] and does not hold back the ones after it. A duplicate
// gets a delay of its own. Loss is drawn first: a lost packet is neither
// duplicated nor reordered.
package netsim

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// Config is the delay added to each direction of a connection, and, for
// packets (WrapPacketConn), their loss, duplication and reordering.
type Config struct {
	Delay  time.Duration // one-way delay, in each direction (>= 0)
	Jitter time.Duration // each chunk's delay varies uniformly in [Delay-Jitter, Delay+Jitter] (>= 0)
	Seed   uint64        // seeds the jitter (and the packets' fates): the same seed draws the same delays

	// Packets only (WrapPacketConn); Listen refuses them and Wrap
	// ignores them, since a TCP stream loses, duplicates and reorders
	// nothing its reader sees.
	Loss    float64 // the probability that a packet is dropped (0 to 1)
	Dup     float64 // the probability that a packet is delivered twice (0 to 1)
	Reorder float64 // the probability that a packet is held back by up to ReorderDelay more, so that later ones overtake it (0 to 1)
}

// Validate returns an error naming a negative Delay or Jitter, or a
// probability outside 0 to 1.
func (c Config) Validate() error {
	switch {
	case c.Delay < 0:
		return fmt.Errorf("netsim: delay %v, want 0 or more", c.Delay)
	case c.Jitter < 0:
		return fmt.Errorf("netsim: jitter %v, want 0 or more", c.Jitter)
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"loss", c.Loss}, {"duplication", c.Dup}, {"reordering", c.Reorder}} {
		if !(p.v >= 0 && p.v <= 1) { // NaN too
			return fmt.Errorf("netsim: %s probability %v, want 0 to 1", p.name, p.v)
		}
	}
	return nil
}

// packetsOnly returns an error when c asks for what only packets have.
func (c Config) packetsOnly() error {
	if c.Loss != 0 || c.Dup != 0 || c.Reorder != 0 {
		return errors.New("netsim: loss, duplication and reordering apply to packets (WrapPacketConn), not to a TCP stream")
	}
	return nil
}

// delay draws one chunk's delay: Delay plus a jitter uniform in [-Jitter,
// +Jitter], at least 0.
func (c Config) delay(rng *rand.Rand) time.Duration {
	d := c.Delay
	if c.Jitter > 0 {
		d += time.Duration(rng.Int64N(2*int64(c.Jitter)+1)) - c.Jitter
	}
	return max(d, 0)
}

// rng returns the jitter's generator for a connection's direction.
func (c Config) rng(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(c.Seed, stream))
}

// queueLen is the chunks one direction holds in flight; beyond them the
// reading side waits, as TCP's window makes a sender wait.
const queueLen = 1024

// readSize is the most bytes a chunk holds.
const readSize = 32 << 10

type chunk struct {
	b  []byte
	at time.Time // when to write it
}

// forward reads src and writes each chunk to dst at its time (see the
// package doc) until src ends, a write fails or stop is closed. It returns
// nil when src ended with io.EOF and every chunk was written, the read
// error when src failed, or the write error. The goroutine that reads src
// is counted by wg; it ends when src does, so the caller closes src when
// forward returns early.
func forward(src io.Reader, dst io.Writer, cfg Config, rng *rand.Rand, stop <-chan struct{}, wg *sync.WaitGroup) error {
	q := make(chan chunk, queueLen)
	quit := make(chan struct{})
	defer close(quit)
	var readErr error // written before q is closed
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(q)
		var last time.Time
		buf := make([]byte, readSize)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				now := time.Now()
				at := now.Add(cfg.delay(rng))
				if at.Before(last) {
					at = last
				}
				last = at
				select {
				case q <- chunk{b: append([]byte(nil), buf[:n]...), at: at}:
				case <-quit:
					return
				}
			}
			if err != nil {
				if err != io.EOF {
					readErr = err
				}
				return
			}
		}
	}()

	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for c := range q {
		if d := time.Until(c.at); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-stop:
				return net.ErrClosed
			}
		}
		if _, err := dst.Write(c.b); err != nil {
			return err
		}
	}
	return readErr
}

// Proxy accepts connections on 127.0.0.1 and forwards each to its target
// with the delay of its Config.
type Proxy struct {
	ln     net.Listener
	target string
	cfg    Config
	stop   chan struct{} // closed by Close
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	n      uint64 // connections accepted
}

// Listen starts a proxy on 127.0.0.1 (a port the system picks: Addr) that
// forwards every connection it accepts to target, a "host:port" it dials
// over TCP, delaying both directions as cfg says. A connection whose
// target cannot be dialled is closed.
func Listen(target string, cfg Config) (*Proxy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.packetsOnly(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("netsim: %w", err)
	}
	p := &Proxy{ln: ln, target: target, cfg: cfg, stop: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr returns the address the proxy listens on.
func (p *Proxy) Addr() net.Addr { return p.ln.Addr() }

// Close stops the proxy: it closes the listener and every connection
// (bytes in flight are dropped) and returns once every goroutine of the
// proxy has ended.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.stop)
	err := p.ln.Close()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

// track adds c to the connections Close closes, or closes it and reports
// false when the proxy is closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.conns, c)
	}
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		a, err := p.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return // closed
		}
		if !p.track(a) {
			return
		}
		p.mu.Lock()
		n := p.n
		p.n++
		p.mu.Unlock()
		p.wg.Add(1)
		go p.serve(a, n)
	}
}

// serve forwards the proxy's n-th connection a to the target.
func (p *Proxy) serve(a net.Conn, n uint64) {
	defer p.wg.Done()
	d := net.Dialer{Timeout: 5 * time.Second}
	b, err := d.Dial("tcp", p.target)
	if err != nil {
		a.Close()
		p.untrack(a)
		return
	}
	if !p.track(b) {
		a.Close()
		p.untrack(a)
		return
	}
	var once sync.Once
	closeBoth := func() {
		once.Do(func() {
			a.Close()
			b.Close()
			p.untrack(a, b)
		})
	}
	var both sync.WaitGroup
	both.Add(2)
	dir := func(src, dst net.Conn, stream uint64) {
		defer both.Done()
		if err := forward(src, dst, p.cfg, p.cfg.rng(stream), p.stop, &p.wg); err != nil {
			closeBoth()
			return
		}
		// src ended and all it sent was delivered: pass the end on.
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		} else {
			closeBoth()
		}
	}
	go dir(a, b, 2*n)
	dir(b, a, 2*n+1)
	both.Wait()
	closeBoth()
}

// Wrap returns a connection that reads and writes through conn with the
// delay of cfg in each direction: a client's -net-delay and -net-jitter.
// Set conn's options (TCP_NODELAY) before wrapping it. The returned
// connection has conn's addresses and supports deadlines. Closing it
// closes conn once what was written before has been delivered (after at
// most the delay); the goroutines of the wrapper end then. cfg should pass
// Validate; a negative Delay or Jitter counts as 0, and Loss, Dup and
// Reorder are ignored (a stream has none).
func Wrap(conn net.Conn, cfg Config) net.Conn {
	cfg.Delay, cfg.Jitter = max(cfg.Delay, 0), max(cfg.Jitter, 0)
	inner, outer := net.Pipe()
	w := &wrapped{Conn: outer, real: conn}
	never := make(chan struct{})
	var wg sync.WaitGroup // the forwarders' reading goroutines: nothing waits for them
	go func() {
		// What the program writes: on its Close, deliver what it wrote,
		// then close conn.
		forward(inner, conn, cfg, cfg.rng(0), never, &wg)
		inner.Close()
		conn.Close()
	}()
	go func() {
		// What the peer sends: when conn ends, deliver what it sent, then
		// end the program's reads (and writes).
		forward(conn, inner, cfg, cfg.rng(1), never, &wg)
		inner.Close()
	}()
	return w
}

// wrapped is the net.Conn Wrap returns: the program's end of a pipe, with
// the real connection's addresses.
type wrapped struct {
	net.Conn
	real net.Conn
}

func (w *wrapped) LocalAddr() net.Addr  { return w.real.LocalAddr() }
func (w *wrapped) RemoteAddr() net.Addr { return w.real.RemoteAddr() }
