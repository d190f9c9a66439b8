package udp

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// ListenConfig is a Listener's limits.
type ListenConfig struct {
	// MaxRecord is the most bytes of one message a client may send (a
	// wire frame, its length field included); 0: wire.MaxClientMessage
	// and the frame's length field.
	MaxRecord int
	// Backlog caps the connections handshaken but not yet accepted; a
	// client's connect beyond it is dropped (0: 32).
	Backlog int
	// MaxPacketsPerSecond caps the packets a connection may send in a
	// second; the rest are dropped (0: 1000; an honest client sends
	// about 100).
	MaxPacketsPerSecond int
	// Drop, if set, is told of every packet the listener drops: its kind
	// ("malformed packet", "unknown source", "bad token", "flood",
	// "backlog full", ...), where it came from and why. A server logs it,
	// rate-limited.
	Drop func(kind string, from net.Addr, err error)
}

// Listener accepts connections on a UDP socket: a net.Listener whose
// Accept returns a *Conn once a client's connect arrives. Every packet is
// read and checked by one goroutine; a packet that is malformed, too
// large, from an address without a connection, with another connection's
// token, or beyond a connection's rate is dropped (and Drop is told).
type Listener struct {
	pc     net.PacketConn
	cfg    ListenConfig
	accept chan *Conn
	closed chan struct{}
	once   sync.Once
	done   chan struct{}

	mu    sync.Mutex
	conns map[netip.AddrPort]*entry
}

// entry is a connection of a listener.
type entry struct {
	c      *Conn
	nonce  uint64
	window time.Time // the start of the second packets are counted in
	count  int
}

// Listen returns a Listener on pc, which it owns: Close closes it.
func Listen(pc net.PacketConn, cfg ListenConfig) *Listener {
	if cfg.MaxRecord <= 0 {
		cfg.MaxRecord = 4 + wire.MaxClientMessage
	}
	if cfg.Backlog <= 0 {
		cfg.Backlog = 32
	}
	if cfg.MaxPacketsPerSecond <= 0 {
		cfg.MaxPacketsPerSecond = 1000
	}
	if u, ok := pc.(*net.UDPConn); ok {
		u.SetReadBuffer(4 << 20)
		u.SetWriteBuffer(4 << 20)
	}
	l := &Listener{pc: pc, cfg: cfg, accept: make(chan *Conn, cfg.Backlog), closed: make(chan struct{}),
		done: make(chan struct{}), conns: map[netip.AddrPort]*entry{}}
	go l.read()
	return l
}

// ListenUDP listens on the UDP address addr ("host:port").
func ListenUDP(addr string, cfg ListenConfig) (*Listener, error) {
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, err
	}
	return Listen(pc, cfg), nil
}

// Accept returns the next connection.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.accept:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Addr returns the socket's address.
func (l *Listener) Addr() net.Addr { return l.pc.LocalAddr() }

// Close closes the socket and ends every connection at once.
func (l *Listener) Close() error {
	var err error
	l.once.Do(func() {
		close(l.closed)
		l.mu.Lock()
		for _, e := range l.conns {
			e.c.sayClose()
		}
		l.mu.Unlock()
		err = l.pc.Close()
		<-l.done
		l.mu.Lock()
		conns := l.conns
		l.conns = map[netip.AddrPort]*entry{}
		l.mu.Unlock()
		for _, e := range conns {
			e.c.kill()
		}
	})
	return err
}

func (l *Listener) drop(kind string, from net.Addr, err error) {
	if l.cfg.Drop != nil {
		l.cfg.Drop(kind, from, err)
	}
}

// addrKey is the map key of a UDP address: IPv4-mapped IPv6 addresses are
// their IPv4 ones.
func addrKey(a net.Addr) netip.AddrPort {
	if u, ok := a.(*net.UDPAddr); ok {
		ap := u.AddrPort()
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	}
	ap, _ := netip.ParseAddrPort(a.String())
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

func (l *Listener) read() {
	defer close(l.done)
	buf := make([]byte, MaxPacket+1)
	var p packet
	for {
		n, from, err := l.pc.ReadFrom(buf)
		if err != nil {
			select {
			case <-l.closed:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(time.Millisecond) // a passing fault
			continue
		}
		if n > MaxPacket {
			l.drop("oversized packet", from, fmt.Errorf("more than %d bytes", MaxPacket))
			continue
		}
		if err := parsePacket(&p, buf[:n]); err != nil {
			l.drop("malformed packet", from, err)
			continue
		}
		key := addrKey(from)
		now := time.Now()
		switch p.kind {
		case kindConnect:
			l.connect(key, from, &p)
			continue
		case kindAccept:
			l.drop("malformed packet", from, errors.New("an accept packet, which only a server sends"))
			continue
		}
		l.mu.Lock()
		e := l.conns[key]
		switch {
		case e == nil:
			l.mu.Unlock()
			l.drop("unknown source", from, errors.New("a packet from an address without a connection"))
			continue
		case p.token != e.c.token:
			l.mu.Unlock()
			l.drop("bad token", from, errors.New("a packet whose token is not its connection's"))
			continue
		}
		if now.Sub(e.window) > time.Second {
			e.window, e.count = now, 0
		}
		e.count++
		flood := e.count > l.cfg.MaxPacketsPerSecond
		l.mu.Unlock()
		if flood {
			l.drop("flood", from, fmt.Errorf("more than %d packets in a second", l.cfg.MaxPacketsPerSecond))
			continue
		}
		e.c.handle(&p, n, now)
	}
}

// connect answers a client's connect packet: a new connection with a
// token of its own, or the same answer again for a repeated connect.
func (l *Listener) connect(key netip.AddrPort, from net.Addr, p *packet) {
	if p.version != Version {
		l.drop("version", from, fmt.Errorf("transport version %d, this server speaks %d", p.version, Version))
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.conns[key]; e != nil {
		if e.nonce == p.nonce {
			l.pc.WriteTo(appendAccept(nil, p.nonce, e.c.token), from)
		} else {
			l.drop("bad connect", from, errors.New("a connect from an address that has a connection"))
		}
		return
	}
	if len(l.accept) == cap(l.accept) {
		l.drop("backlog full", from, fmt.Errorf("%d connections wait to be accepted", cap(l.accept)))
		return
	}
	var e *entry
	c := newConn(l.pc.LocalAddr(), from, randomToken(), l.cfg.MaxRecord,
		func(b []byte) { l.pc.WriteTo(b, from) },
		func() {
			l.mu.Lock()
			if l.conns[key] == e {
				delete(l.conns, key)
			}
			l.mu.Unlock()
		})
	e = &entry{c: c, nonce: p.nonce}
	l.conns[key] = e
	l.pc.WriteTo(appendAccept(nil, p.nonce, c.token), from)
	l.accept <- c
}

// randomToken returns a random non-zero token.
func randomToken() uint64 {
	var b [8]byte
	for {
		rand.Read(b[:])
		if t := binary.LittleEndian.Uint64(b[:]); t != 0 {
			return t
		}
	}
}

// DialConfig is a client connection's options.
type DialConfig struct {
	// MaxRecord is the most bytes of one message the server may send (a
	// wire frame, its length field included); 0: wire.MaxServerMessage
	// and the frame's length field.
	MaxRecord int
	// Wrap, if set, wraps the client's socket before use: a network
	// simulator (netsim.WrapPacketConn).
	Wrap func(net.PacketConn) net.PacketConn
}

// Dial connects to the server listening on the UDP address addr: it sends
// connects (after 0, 100, 300, 700 ms, ...) until the server accepts, or
// ctx is done.
func Dial(ctx context.Context, addr string, cfg DialConfig) (*Conn, error) {
	if cfg.MaxRecord <= 0 {
		cfg.MaxRecord = 4 + wire.MaxServerMessage
	}
	raddr, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	network := "udp4"
	if raddr.IP.To4() == nil {
		network = "udp6"
	}
	sock, err := net.ListenUDP(network, nil)
	if err != nil {
		return nil, err
	}
	sock.SetReadBuffer(4 << 20)
	sock.SetWriteBuffer(4 << 20)
	var pc net.PacketConn = sock
	if cfg.Wrap != nil {
		pc = cfg.Wrap(sock)
	}
	stop := context.AfterFunc(ctx, func() { pc.SetReadDeadline(time.Now()) })
	defer stop()
	nonce := randomToken()
	want := addrKey(raddr)
	hello := appendConnect(nil, nonce)
	buf := make([]byte, MaxPacket+1)
	var p packet
	wait := 100 * time.Millisecond
	sent := 0
	var first time.Time
	var token uint64
	for token == 0 {
		if ctx.Err() != nil {
			pc.Close()
			return nil, fmt.Errorf("no answer from %s over UDP: %w", addr, ctx.Err())
		}
		at := time.Now()
		if sent == 0 {
			first = at
		}
		if _, err := pc.WriteTo(hello, raddr); err != nil {
			pc.Close()
			return nil, err
		}
		sent++
		resend := at.Add(wait)
		wait = min(2*wait, time.Second)
		pc.SetReadDeadline(resend)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					break
				}
				pc.Close()
				return nil, err
			}
			if addrKey(from) != want || parsePacket(&p, buf[:n]) != nil || p.kind != kindAccept || p.nonce != nonce {
				continue
			}
			token = p.token
			break
		}
	}
	pc.SetReadDeadline(time.Time{})
	c := newConn(pc.LocalAddr(), raddr, token, cfg.MaxRecord,
		func(b []byte) { pc.WriteTo(b, raddr) },
		func() { pc.Close() })
	if sent == 1 {
		c.mu.Lock()
		c.sample(time.Since(first))
		c.mu.Unlock()
	}
	go func() {
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					continue
				}
				c.kill()
				return
			}
			if addrKey(from) != want || parsePacket(&p, buf[:n]) != nil || p.kind == kindAccept || p.kind == kindConnect || p.token != token {
				continue
			}
			c.handle(&p, n, time.Now())
		}
	}()
	return c, nil
}
