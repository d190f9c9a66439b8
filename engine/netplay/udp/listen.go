package udp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// ListenConfig is a Listener's limits.
type ListenConfig struct {
	// MaxRecord is the most bytes of one message a client may send (a
	// wire message, its length field included); 0: wire.MaxClientMessage
	// and the message's length field.
	MaxRecord int
	// Backlog caps the connections handshaken but not yet accepted; a
	// client's response beyond it is dropped (0: 32).
	Backlog int
	// MaxPacketsPerSecond caps the packets a connection may send in a
	// second; the rest are dropped (0: 1000; an honest client sends
	// about 100).
	MaxPacketsPerSecond int
	// Drop, if set, is told of every packet the listener drops: its kind
	// ("malformed packet", "unknown source", "bad token", "bad cookie",
	// "flood", "backlog full", ...), where it came from and why. A server
	// logs it, rate-limited.
	Drop func(kind string, from net.Addr, err error)
}

// Listener accepts connections on a UDP socket: a net.Listener whose
// Accept returns a *Conn once a client has proven its address. It answers
// a connect with a challenge that carries a cookie bound to the sender's
// address, and keeps nothing; only a response that echoes a valid cookie
// from the address it was sent to makes a connection. Every packet is
// read and checked by one goroutine; a packet that is malformed, too
// large, from an address without a connection, with another connection's
// token, with a cookie that is forged or expired, or beyond a
// connection's rate is dropped (and Drop is told).
type Listener struct {
	pc     net.PacketConn
	cfg    ListenConfig
	accept chan *Conn
	closed chan struct{}
	once   sync.Once
	done   chan struct{}
	epoch  time.Time // cookie times count from here

	// Owned by the reading goroutine.
	mac   hash.Hash // HMAC-SHA256 under the listener's secret
	macIn [16 + 2 + 8 + 8]byte
	sum   []byte
	wbuf  []byte
	p     packet

	mu    sync.Mutex
	conns map[netip.AddrPort]*entry
	// ended holds, for cookieLife, the nonce of each connection that
	// ended: a late copy of its handshake's response (a resend that
	// crossed the accept) makes no new connection.
	ended map[netip.AddrPort]ended
	swept time.Time // when ended was last cleared of expired entries
}

// ended is a connection that ended: its nonce, and until when a response
// of that nonce is a stale one.
type ended struct {
	nonce uint64
	until time.Time
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
	l := newListener(pc, cfg)
	go l.read()
	return l
}

// newListener returns a Listener on pc that does not read it yet.
func newListener(pc net.PacketConn, cfg ListenConfig) *Listener {
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
	var secret [32]byte
	rand.Read(secret[:])
	l := &Listener{pc: pc, cfg: cfg, accept: make(chan *Conn, cfg.Backlog), closed: make(chan struct{}),
		done: make(chan struct{}), epoch: time.Now(), mac: hmac.New(sha256.New, secret[:]),
		conns: map[netip.AddrPort]*entry{}, ended: map[netip.AddrPort]ended{}}
	return l
}

// cookieLife is how long a challenge's cookie is good for: a client
// answers within a round trip, and asks again with a connect once its
// cookie is half this old.
const cookieLife = 5 * time.Second

// sign sets c's MAC: of its time, the client's address and its nonce,
// under the listener's secret. Only the reading goroutine calls it.
func (l *Listener) sign(c *cookie, key netip.AddrPort, nonce uint64) {
	b := &l.macIn
	a := key.Addr().As16()
	copy(b[:16], a[:])
	binary.LittleEndian.PutUint16(b[16:], key.Port())
	binary.LittleEndian.PutUint64(b[18:], nonce)
	binary.LittleEndian.PutUint64(b[26:], c.time)
	l.mac.Reset()
	l.mac.Write(b[:])
	l.sum = l.mac.Sum(l.sum[:0])
	copy(c.mac[:], l.sum)
}

// check reports why the cookie of a response from key is not one this
// listener gave that address and nonce within cookieLife (nil: it is).
//
//srccheck:wrapped by Listener.connect, which hands it to ListenConfig.Drop with its kind ("bad cookie")
func (l *Listener) check(c *cookie, key netip.AddrPort, nonce uint64, now time.Time) error {
	ms := uint64(now.Sub(l.epoch) / time.Millisecond)
	if c.time > ms || ms-c.time > uint64(cookieLife/time.Millisecond) {
		return fmt.Errorf("a cookie of %d ms, the listener is at %d ms: expired or forged", c.time, ms)
	}
	want := cookie{time: c.time}
	l.sign(&want, key, nonce)
	if !hmac.Equal(want.mac[:], c.mac[:]) {
		return errors.New("a cookie not given to this address and nonce")
	}
	return nil
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
	buf := make([]byte, MaxSealedPacket+1)
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
		l.receive(buf[:n], from, time.Now())
	}
}

// receive acts on one packet from the socket. Only the reading goroutine
// calls it.
func (l *Listener) receive(b []byte, from net.Addr, now time.Time) {
	if len(b) > MaxPacket && !(len(b) <= MaxSealedPacket && b[0] == magic && b[1] == kindSealed) {
		l.drop("oversized packet", from, fmt.Errorf("more than %d bytes", MaxPacket))
		return
	}
	p := &l.p
	if len(b) > 1 && b[0] == magic && b[1] == kindSealed {
		c, plain, ok := l.receiveSealed(b, from, now)
		if !ok {
			return
		}
		if err := parsePacket(p, plain); err != nil {
			l.drop("malformed packet", from, err)
			return
		}
		c.handle(p, len(b), now)
		return
	}
	if err := parsePacket(p, b); err != nil {
		if len(b) > 2 && b[0] == magic && (b[1] == kindConnect || b[1] == kindResponse) && b[2] != Version {
			// Another version's connect may have another layout: say
			// which version it is rather than what does not parse.
			l.drop("version", from, fmt.Errorf("transport version %d, this server speaks %d", b[2], Version))
			return
		}
		l.drop("malformed packet", from, err)
		return
	}
	key := addrKey(from)
	switch p.kind {
	case kindConnect:
		l.challenge(key, from, p, now)
		return
	case kindResponse:
		l.connect(key, from, p, now)
		return
	case kindAccept, kindChallenge:
		l.drop("malformed packet", from, errors.New("an accept or a challenge, which only a server sends"))
		return
	}
	l.mu.Lock()
	e := l.conns[key]
	switch {
	case e == nil:
		l.mu.Unlock()
		l.drop("unknown source", from, errors.New("a packet from an address without a connection"))
		return
	case p.token != e.c.token:
		l.mu.Unlock()
		l.drop("bad token", from, errors.New("a packet whose token is not its connection's"))
		return
	}
	l.mu.Unlock()
	if !l.count(e.c, from, now) {
		return
	}
	if e.c.refuseClear(p.kind) {
		l.drop("unauthentic packet", from, errUnsealed)
		return
	}
	e.c.handle(p, len(b), now)
}

// count counts a packet of c's from from, and reports false (and drops
// it) when it is beyond the connection's rate.
func (l *Listener) count(c *Conn, from net.Addr, now time.Time) bool {
	l.mu.Lock()
	e := l.conns[addrKey(from)]
	if e == nil || e.c != c {
		l.mu.Unlock()
		return false
	}
	if now.Sub(e.window) > time.Second {
		e.window, e.count = now, 0
	}
	e.count++
	flood := e.count > l.cfg.MaxPacketsPerSecond
	l.mu.Unlock()
	if flood {
		l.drop("flood", from, fmt.Errorf("more than %d packets in a second", l.cfg.MaxPacketsPerSecond))
		return false
	}
	return true
}

// challenge answers a connect: a challenge with a cookie bound to the
// sender's address and nonce, smaller than the connect. It keeps nothing:
// a sender that cannot receive at its source address costs one MAC.
func (l *Listener) challenge(key netip.AddrPort, from net.Addr, p *packet, now time.Time) {
	if p.version != Version {
		l.drop("version", from, fmt.Errorf("transport version %d, this server speaks %d", p.version, Version))
		return
	}
	c := cookie{time: uint64(now.Sub(l.epoch) / time.Millisecond)}
	l.sign(&c, key, p.nonce)
	l.wbuf = appendChallenge(l.wbuf[:0], p.nonce, &c)
	l.pc.WriteTo(l.wbuf, from)
}

// connect answers a response that echoes a valid cookie: a new
// connection with a token of its own, or the same answer again for a
// repeated response.
func (l *Listener) connect(key netip.AddrPort, from net.Addr, p *packet, now time.Time) {
	if p.version != Version {
		l.drop("version", from, fmt.Errorf("transport version %d, this server speaks %d", p.version, Version))
		return
	}
	if err := l.check(&p.cookie, key, p.nonce, now); err != nil {
		l.drop("bad cookie", from, err)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.conns[key]; e != nil {
		if e.nonce == p.nonce {
			l.wbuf = appendAccept(l.wbuf[:0], p.nonce, e.c.token)
			l.pc.WriteTo(l.wbuf, from)
		} else {
			l.drop("bad connect", from, errors.New("a response from an address that has a connection"))
		}
		return
	}
	if d, ok := l.ended[key]; ok && now.Before(d.until) && d.nonce == p.nonce {
		l.drop("stale response", from, errors.New("a response of a connection that ended"))
		return
	}
	if len(l.accept) == cap(l.accept) {
		l.drop("backlog full", from, fmt.Errorf("%d connections wait to be accepted", cap(l.accept)))
		return
	}
	delete(l.ended, key)
	var e *entry
	c := newConn(l.pc.LocalAddr(), from, randomToken(), l.cfg.MaxRecord, true,
		func(b []byte) { l.pc.WriteTo(b, from) },
		func() {
			now := time.Now()
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.conns[key] != e {
				return
			}
			delete(l.conns, key)
			if now.Sub(l.swept) > cookieLife {
				for k, d := range l.ended {
					if !now.Before(d.until) {
						delete(l.ended, k)
					}
				}
				l.swept = now
			}
			l.ended[key] = ended{nonce: e.nonce, until: now.Add(cookieLife)}
		})
	e = &entry{c: c, nonce: p.nonce}
	l.conns[key] = e
	l.wbuf = appendAccept(l.wbuf[:0], p.nonce, c.token)
	l.pc.WriteTo(l.wbuf, from)
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
