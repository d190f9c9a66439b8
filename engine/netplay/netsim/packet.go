package netsim

import (
	"container/heap"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"time"
)

// ReorderDelay is the most extra delay of a reordered packet.
const ReorderDelay = 30 * time.Millisecond

// inboxLen is the packets a wrapped socket holds for its reader; more are
// dropped, as a full socket buffer drops them.
const inboxLen = 4096

// WrapPacketConn returns a PacketConn that sends and receives through pc,
// each packet with the delay, jitter, loss, duplication and reordering of
// cfg (see the package doc), drawn from two seeded generators, one per
// direction. It supports read deadlines; writes never wait. Closing it
// closes pc at once (packets in flight are dropped). cfg should pass
// Validate; values out of range are clamped.
func WrapPacketConn(pc net.PacketConn, cfg Config) net.PacketConn {
	cfg.Delay, cfg.Jitter = max(cfg.Delay, 0), max(cfg.Jitter, 0)
	w := &packetConn{pc: pc, cfg: cfg, closed: make(chan struct{}), inbox: make(chan packet, inboxLen), deadline: make(chan struct{}, 1)}
	w.out = newLane(cfg, cfg.rng(2), w.closed, func(p packet) { pc.WriteTo(p.b, p.addr) })
	w.in = newLane(cfg, cfg.rng(3), w.closed, func(p packet) {
		select {
		case w.inbox <- p:
		default:
		}
	})
	go w.read()
	return w
}

type packet struct {
	b    []byte
	addr net.Addr
	at   time.Time
	seq  uint64
}

// lane is one direction: it draws each packet's fate and delivers the
// survivors at their due times, from a goroutine of its own.
type lane struct {
	cfg     Config
	deliver func(packet)
	stop    <-chan struct{}
	wake    chan struct{}

	mu   sync.Mutex
	rng  *rand.Rand
	q    packetHeap
	last time.Time // the due time of the last packet not reordered
	seq  uint64
}

func newLane(cfg Config, rng *rand.Rand, stop <-chan struct{}, deliver func(packet)) *lane {
	l := &lane{cfg: cfg, rng: rng, deliver: deliver, stop: stop, wake: make(chan struct{}, 1)}
	go l.run()
	return l
}

// push draws b's fate and queues its copies.
func (l *lane) push(b []byte, addr net.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if l.cfg.Loss > 0 && l.rng.Float64() < l.cfg.Loss {
		return
	}
	copies := 1
	if l.cfg.Dup > 0 && l.rng.Float64() < l.cfg.Dup {
		copies = 2
	}
	for range copies {
		at := now.Add(l.cfg.delay(l.rng))
		if l.cfg.Reorder > 0 && l.rng.Float64() < l.cfg.Reorder {
			at = at.Add(time.Duration(l.rng.Int64N(int64(ReorderDelay))) + 1)
		} else {
			if at.Before(l.last) {
				at = l.last
			}
			l.last = at
		}
		l.seq++
		heap.Push(&l.q, packet{b: append([]byte(nil), b...), addr: addr, at: at, seq: l.seq})
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *lane) run() {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		l.mu.Lock()
		var due []packet
		now := time.Now()
		for len(l.q) > 0 && !l.q[0].at.After(now) {
			due = append(due, heap.Pop(&l.q).(packet))
		}
		wait := time.Hour
		if len(l.q) > 0 {
			wait = l.q[0].at.Sub(now)
		}
		l.mu.Unlock()
		for _, p := range due {
			l.deliver(p)
		}
		timer.Reset(wait)
		select {
		case <-timer.C:
		case <-l.wake:
		case <-l.stop:
			return
		}
	}
}

// packetHeap orders packets by due time, then by their order of arrival.
type packetHeap []packet

func (h packetHeap) Len() int { return len(h) }
func (h packetHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h packetHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *packetHeap) Push(x any)   { *h = append(*h, x.(packet)) }
func (h *packetHeap) Pop() any {
	old := *h
	p := old[len(old)-1]
	*h = old[:len(old)-1]
	return p
}

// packetConn is the PacketConn WrapPacketConn returns.
type packetConn struct {
	pc       net.PacketConn
	cfg      Config
	out, in  *lane
	inbox    chan packet
	closed   chan struct{}
	once     sync.Once
	deadline chan struct{} // signalled when the read deadline changes

	mu  sync.Mutex
	rdl time.Time
}

func (w *packetConn) read() {
	buf := make([]byte, 64<<10)
	for {
		n, addr, err := w.pc.ReadFrom(buf)
		if err != nil {
			select {
			case <-w.closed:
				return
			default:
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			w.Close()
			return
		}
		w.in.push(buf[:n], addr)
	}
}

// ReadFrom reads the next packet delivered to the program.
func (w *packetConn) ReadFrom(b []byte) (int, net.Addr, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		w.mu.Lock()
		dl := w.rdl
		w.mu.Unlock()
		var expire <-chan time.Time
		if !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				select {
				case p := <-w.inbox:
					return copy(b, p.b), p.addr, nil
				default:
				}
				return 0, nil, os.ErrDeadlineExceeded
			}
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			expire = timer.C
		}
		select {
		case p := <-w.inbox:
			return copy(b, p.b), p.addr, nil
		case <-w.closed:
			return 0, nil, net.ErrClosed
		case <-expire:
		case <-w.deadline:
		}
	}
}

// WriteTo sends b to addr through the simulator; it never waits.
func (w *packetConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	select {
	case <-w.closed:
		return 0, net.ErrClosed
	default:
	}
	w.out.push(b, addr)
	return len(b), nil
}

// Close closes the socket; packets in flight are dropped.
func (w *packetConn) Close() error {
	var err error
	w.once.Do(func() {
		close(w.closed)
		err = w.pc.Close()
	})
	return err
}

// LocalAddr returns the socket's address.
func (w *packetConn) LocalAddr() net.Addr { return w.pc.LocalAddr() }

// SetDeadline sets the read deadline (writes never wait).
func (w *packetConn) SetDeadline(t time.Time) error { return w.SetReadDeadline(t) }

// SetReadDeadline sets the time after which ReadFrom fails with a
// timeout.
func (w *packetConn) SetReadDeadline(t time.Time) error {
	w.mu.Lock()
	w.rdl = t
	w.mu.Unlock()
	select {
	case w.deadline <- struct{}{}:
	default:
	}
	return nil
}

// SetWriteDeadline does nothing: writes never wait.
func (w *packetConn) SetWriteDeadline(time.Time) error { return nil }
