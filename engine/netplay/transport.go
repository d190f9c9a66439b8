package netplay

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/netplay/udp"
)

// Transport is what a client's connection to its server runs over. Its
// String is "tcp" or "udp".
type Transport uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Transport -linecomment

// The transports. Both carry the same messages (package wire).
const (
	// TCP: one stream; a lost packet holds back everything behind it for
	// a retransmission (at least 200 ms on Linux).
	TCP Transport = iota // tcp
	// UDP: package udp. Every packet repeats the inputs (and confirmed
	// ticks) the peer has not acknowledged, so a lost packet costs one
	// packet interval. A UDP client aims its inputs UDPLossTicks and a
	// half ticks earlier than ClientConfig.Slack alone says, so that an
	// input whose packet is lost that many times in a row still arrives
	// in time with the next one (the half tick: the jitter between the
	// lost packet's delay and the delay of the one that brings it).
	UDP // udp
)

// UDPLossTicks is the losses in a row a UDP client's margin covers (at 5%
// loss, two in a row happen once in 400 ticks, three once in 8,000).
const UDPLossTicks = 2

// ParseTransport parses "tcp" or "udp".
func ParseTransport(s string) (Transport, error) {
	switch s {
	case "tcp":
		return TCP, nil
	case "udp":
		return UDP, nil
	}
	return 0, fmt.Errorf("netplay: transport %q: want tcp or udp", s)
}

// dialUDP is a UDP client's default dial: the transport's handshake with
// the server, over a socket cfg.WrapPacketConn may wrap.
func dialUDP(cfg *ClientConfig) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		return udp.Dial(ctx, addr, udp.DialConfig{Wrap: cfg.WrapPacketConn})
	}
}

// udpStats is a connection that counts its packets: a *udp.Conn.
type udpStats interface{ Stats() udp.Stats }

// udpSlack is the slack a client of transport t aims with at tick rate
// rate.
func udpSlack(t Transport, slack, dt time.Duration) time.Duration {
	if t == UDP {
		return slack + UDPLossTicks*dt + dt/2
	}
	return slack
}

// ServeUDP runs the match, as Serve does, for clients of the UDP
// transport on pc (package udp), which it closes at the end. A packet the
// transport drops (malformed, spoofed, flooding) is logged, rate-limited,
// like every other fault of a client.
func (s *Server) ServeUDP(pc net.PacketConn) error {
	return s.Serve(s.UDPListener(pc))
}

// UDPListener returns the listener ServeUDP serves on pc: clients of the
// UDP transport (package udp), with the server's limits, and the packets
// it drops logged, rate-limited. A server of both transports merges it
// with a TCP listener into the one Serve accepts on.
func (s *Server) UDPListener(pc net.PacketConn) net.Listener {
	return udp.Listen(pc, udp.ListenConfig{
		MaxRecord: 4 + s.cfg.MaxMessage,
		Backlog:   s.cfg.MaxPending,
		Drop: func(kind string, from net.Addr, err error) {
			s.bad.warn(kind, logrus.Fields{"remote": from.String(), "error": err}, "dropped a UDP packet")
		},
	})
}
