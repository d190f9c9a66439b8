package udp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay/wire"
)

// DialConfig is a client connection's options.
type DialConfig struct {
	// MaxRecord is the most bytes of one message the server may send (a
	// wire message, its length field included); 0: wire.MaxServerMessage
	// and the message's length field.
	MaxRecord int
	// Wrap, if set, wraps the client's socket before use: a network
	// simulator (netsim.WrapPacketConn).
	Wrap func(net.PacketConn) net.PacketConn
}

// Dial connects to the server listening on the UDP address addr: it sends
// connects (after 0, 100, 300, 700 ms, ...) until the server challenges
// it, then responses with the challenge's cookie, on the same schedule,
// until the server accepts, or ctx is done.
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
	token, rtt, err := handshake(ctx, pc, raddr, randomToken())
	if err != nil {
		pc.Close()
		return nil, fmt.Errorf("udp: no answer from %s over UDP: %w", addr, err)
	}
	want := addrKey(raddr)
	buf := make([]byte, MaxSealedPacket+1)
	var p packet
	pc.SetReadDeadline(time.Time{})
	c := newConn(pc.LocalAddr(), raddr, token, cfg.MaxRecord, false,
		func(b []byte) { pc.WriteTo(b, raddr) },
		func() { pc.Close() })
	if rtt > 0 {
		c.mu.Lock()
		c.sample(rtt)
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
			if addrKey(from) != want {
				continue
			}
			b := buf[:n]
			tok, sealed := sealedToken(b)
			if sealed {
				if tok != token {
					continue
				}
				if b, err = c.open(b); err != nil {
					continue
				}
			}
			if parsePacket(&p, b) != nil || (p.kind != kindData && p.kind != kindClose) || p.token != token || !sealed && c.refuseClear(p.kind) {
				continue
			}
			if !sealed && c.awaitsSeal() {
				// Before the server's first sealed packet, only the
				// reliable stream's first records (the server's preamble,
				// a refusal in clear) may come in clear: no tick.
				p.runs, p.messages = p.runs[:0], p.messages[:0]
			}
			c.handle(&p, n, time.Now())
		}
	}()
	return c, nil
}

// handshake runs a client's side of the handshake on pc with the server
// at raddr: connects until a challenge for nonce comes, then responses
// echoing its cookie until the accept. It resends after 100, 200, 400 ms
// and so on, up to a second apart; a cookie half its life old is asked
// for again. It returns the connection's token and, when the first
// connect was answered, the round trip it took (0 otherwise).
func handshake(ctx context.Context, pc net.PacketConn, raddr *net.UDPAddr, nonce uint64) (token uint64, rtt time.Duration, err error) {
	want := addrKey(raddr)
	buf := make([]byte, MaxPacket+1)
	var out []byte
	var p packet
	var ck cookie
	var ckAt, first time.Time // when the cookie came; when the first connect went
	connects := 0
	wait := 100 * time.Millisecond
	send := func(now time.Time) error {
		if ckAt.IsZero() || now.Sub(ckAt) > cookieLife/2 {
			ckAt = time.Time{}
			out = appendConnect(out[:0], nonce)
			if connects++; connects == 1 {
				first = now
			}
		} else {
			out = appendResponse(out[:0], Version, nonce, &ck)
		}
		_, err := pc.WriteTo(out, raddr)
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		now := time.Now()
		if err := send(now); err != nil {
			return 0, 0, err
		}
		pc.SetReadDeadline(now.Add(wait))
		wait = min(2*wait, time.Second)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					break
				}
				return 0, 0, err
			}
			if addrKey(from) != want || parsePacket(&p, buf[:n]) != nil || p.nonce != nonce {
				continue
			}
			switch {
			case p.kind == kindAccept && p.token != 0:
				pc.SetReadDeadline(time.Time{})
				return p.token, rtt, nil
			case p.kind == kindChallenge && ckAt.IsZero():
				at := time.Now()
				if connects == 1 {
					rtt = at.Sub(first)
				}
				ck, ckAt = p.cookie, at
				if err := send(at); err != nil {
					return 0, 0, err
				}
			}
		}
	}
}
