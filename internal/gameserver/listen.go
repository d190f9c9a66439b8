package gameserver

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"syscall"
)

// listen opens the match's ports (-port for TCP, -udp-port for UDP, on
// -addr) and the operator port (-ops), setting s.Addrs. It returns the
// listener the match accepts on (both transports merged), the names of
// s.Addrs for the log ("tcp", "udp") and the operator port's listener
// (nil without -ops). On an error nothing stays open.
func (s *Server) listen(c *config) (ln net.Listener, names []string, ops net.Listener, err error) {
	var lns []net.Listener
	defer func() {
		if err != nil {
			for _, l := range lns {
				l.Close()
			}
			if ops != nil {
				ops.Close()
			}
		}
	}()
	if c.port >= 0 {
		tl, err := net.Listen("tcp", net.JoinHostPort(c.addr, strconv.Itoa(c.port)))
		if err != nil {
			return nil, nil, nil, errListen{fmt.Errorf("cannot listen on TCP port %d: %w", c.port, err)}
		}
		lns = append(lns, tl)
		s.Addrs, names = append(s.Addrs, tl.Addr()), append(names, "tcp")
	}
	if c.udpPort >= 0 {
		pc, err := net.ListenPacket("udp", net.JoinHostPort(c.addr, strconv.Itoa(c.udpPort)))
		if err != nil {
			return nil, nil, nil, errListen{fmt.Errorf("cannot listen on UDP port %d: %w", c.udpPort, err)}
		}
		lns = append(lns, s.srv.UDPListener(pc))
		s.Addrs, names = append(s.Addrs, pc.LocalAddr()), append(names, "udp")
	}
	if c.ops != "" {
		if ops, err = net.Listen("tcp", c.ops); err != nil {
			return nil, nil, nil, errListen{fmt.Errorf("cannot listen on the operator port %s: %w", c.ops, err)}
		}
	}
	if len(lns) == 1 {
		return lns[0], names, ops, nil
	}
	return mergeListeners(lns...), names, ops, nil
}

// mergedListener accepts the connections of several listeners (TCP's and
// UDP's): netplay.Server.Serve accepts on one.
type mergedListener struct {
	lns   []net.Listener
	conns chan accepted
	done  chan struct{}
	once  sync.Once
}

// accepted is one Accept's result.
type accepted struct {
	conn net.Conn
	err  error
}

func mergeListeners(lns ...net.Listener) *mergedListener {
	m := &mergedListener{lns: lns, conns: make(chan accepted), done: make(chan struct{})}
	for _, l := range lns {
		go m.pump(l)
	}
	return m
}

// pump accepts on l until it fails for good or m is closed.
func (m *mergedListener) pump(l net.Listener) {
	for {
		conn, err := l.Accept()
		if err != nil && errors.Is(err, net.ErrClosed) {
			return
		}
		select {
		case m.conns <- accepted{conn, err}:
		case <-m.done:
			if conn != nil {
				conn.Close()
			}
			return
		}
		var ne net.Error
		if err != nil && !(errors.As(err, &ne) && ne.Timeout()) && !errors.Is(err, syscall.EMFILE) {
			return // failed for good: Serve ends the match
		}
	}
}

// Accept returns the next connection of any of the listeners.
func (m *mergedListener) Accept() (net.Conn, error) {
	select {
	case a := <-m.conns:
		return a.conn, a.err
	case <-m.done:
		return nil, net.ErrClosed
	}
}

// Close closes every listener.
func (m *mergedListener) Close() error {
	var err error
	m.once.Do(func() {
		close(m.done)
		for _, l := range m.lns {
			err = errors.Join(err, l.Close())
		}
	})
	return err
}

// Addr returns the first listener's address.
func (m *mergedListener) Addr() net.Addr { return m.lns[0].Addr() }
