package netsim

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// noLeaks fails t when, within 10 s after it, more goroutines run than
// before f (a loaded machine may take a while to run the goroutines that
// are ending).
func noLeaks(t *testing.T, f func()) {
	t.Helper()
	before := runtime.NumGoroutine()
	f()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// server listens on 127.0.0.1 and runs handle for each connection; stop
// closes the listener and waits for the handlers.
func server(t *testing.T, handle func(net.Conn)) (ln net.Listener, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return ln, func() { ln.Close(); wg.Wait() }
}

func echo(c net.Conn) { io.Copy(c, c) }

// sent is a record the tests send: a sequence number and the time it was
// written, on one clock (the test's process).
const recordSize = 16

var epoch = time.Now()

func appendRecord(b []byte, seq uint64) []byte {
	b = binary.LittleEndian.AppendUint64(b, seq)
	return binary.LittleEndian.AppendUint64(b, uint64(time.Since(epoch)))
}

// readRecords reads n records and returns each one's delay (arrival
// minus sending), checking that they arrive in order.
func readRecords(t *testing.T, r io.Reader, n int) []time.Duration {
	t.Helper()
	var delays []time.Duration
	var rec [recordSize]byte
	for i := range n {
		if _, err := io.ReadFull(r, rec[:]); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		now := time.Since(epoch)
		if seq := binary.LittleEndian.Uint64(rec[:]); seq != uint64(i) {
			t.Fatalf("record %d arrived as record %d: out of order", i, seq)
		}
		delays = append(delays, now-time.Duration(binary.LittleEndian.Uint64(rec[8:])))
	}
	return delays
}

func TestProxyDelayAndOrder(t *testing.T) {
	for _, cfg := range []Config{
		{Delay: 40 * time.Millisecond},
		{Delay: 40 * time.Millisecond, Jitter: 30 * time.Millisecond, Seed: 7},
	} {
		noLeaks(t, func() {
			got := make(chan []time.Duration, 1)
			const n = 200
			ln, stop := server(t, func(c net.Conn) { got <- readRecords(t, c, n) })
			defer stop()
			p, c := dialThrough(t, ln.Addr().String(), cfg)
			defer p.Close()
			defer c.Close()
			// Writes 0.5 ms apart: far closer than the jitter, so that
			// without the order rule they would overtake each other.
			for i := range n {
				if _, err := c.Write(appendRecord(nil, uint64(i))); err != nil {
					t.Fatal(err)
				}
				time.Sleep(500 * time.Microsecond)
			}
			var delays []time.Duration
			select {
			case delays = <-got:
			case <-time.After(30 * time.Second):
				t.Fatal("the records did not arrive within 30 s")
			}
			lo, hi := delays[0], delays[0]
			for _, d := range delays {
				lo, hi = min(lo, d), max(hi, d)
			}
			t.Logf("%+v: %d records in order, one-way delay %v to %v", cfg, n, lo, hi)
			if lo < cfg.Delay-cfg.Jitter {
				t.Errorf("a record arrived after %v, before the least delay %v", lo, cfg.Delay-cfg.Jitter)
			}
			// Late is only a loaded machine's scheduling; early would be
			// a bug, so only a gross lateness fails.
			if hi > cfg.Delay+cfg.Jitter+3*time.Second {
				t.Errorf("a record took %v, far beyond the %v configured", hi, cfg.Delay+cfg.Jitter)
			}
			if cfg.Jitter > 0 && hi-lo < cfg.Jitter/2 {
				t.Errorf("delays from %v to %v: the jitter of ±%v barely shows", lo, hi, cfg.Jitter)
			}
		})
	}
}

// Each direction is delayed: a round trip through an echo server takes
// twice the delay.
func TestProxyRoundTrip(t *testing.T) {
	noLeaks(t, func() {
		ln, stop := server(t, echo)
		defer stop()
		cfg := Config{Delay: 25 * time.Millisecond}
		p, c := dialThrough(t, ln.Addr().String(), cfg)
		defer p.Close()
		defer c.Close()
		for i := range 5 {
			if _, err := c.Write(appendRecord(nil, 0)); err != nil { // readRecords counts from 0
				t.Fatal(err)
			}
			// The delay is a floor: a loaded machine may add any amount
			// to it, so the round trip has no upper bound here.
			if d := readRecords(t, c, 1)[0]; d < 2*cfg.Delay {
				t.Errorf("round trip %d: %v, want at least %v", i, d, 2*cfg.Delay)
			}
		}
	})
}

// The end of a stream is passed on after its last bytes, each way.
func TestProxyHalfClose(t *testing.T) {
	noLeaks(t, func() {
		ln, stop := server(t, func(c net.Conn) {
			b, _ := io.ReadAll(c) // until the client's CloseWrite arrives
			c.Write([]byte(strings.ToUpper(string(b))))
		})
		defer stop()
		p, err := Listen(ln.Addr().String(), Config{Delay: 10 * time.Millisecond, Jitter: 5 * time.Millisecond, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		c, err := net.Dial("tcp", p.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for _, s := range []string{"nebula ", "over ", "a slow ", "network"} {
			c.Write([]byte(s))
		}
		c.(*net.TCPConn).CloseWrite()
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, err := io.ReadAll(c)
		if err != nil || string(b) != "NEBULA OVER A SLOW NETWORK" {
			t.Fatalf("read %q, %v", b, err)
		}
	})
}

// Close ends every connection and goroutine, with bytes in flight.
func TestProxyClose(t *testing.T) {
	noLeaks(t, func() {
		accepted := make(chan struct{}, 3)
		ln, stop := server(t, func(c net.Conn) {
			accepted <- struct{}{}
			echo(c)
		})
		defer stop()
		// A delay far beyond what Close may take on a loaded machine.
		p, err := Listen(ln.Addr().String(), Config{Delay: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		var conns []net.Conn
		for range 3 {
			c, err := net.Dial("tcp", p.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.Write([]byte("in flight"))
			conns = append(conns, c)
		}
		for i := range conns { // the proxy has accepted and dialled each
			select {
			case <-accepted:
			case <-time.After(10 * time.Second):
				t.Fatalf("the proxy dialled the server for %d of %d connections in 10 s", i, len(conns))
			}
		}
		start := time.Now()
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("Close took %v: it waited for the delay", d)
		}
		for i, c := range conns {
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if n, err := c.Read(make([]byte, 16)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("connection %d after Close: read %d bytes, %v; want it closed", i, n, err)
			}
		}
		if _, err := net.DialTimeout("tcp", p.Addr().String(), time.Second); err == nil {
			t.Error("the proxy still accepts connections after Close")
		}
		p.Close() // a second Close does nothing
	})
}

// A connection whose target cannot be reached is closed.
func TestProxyTargetDown(t *testing.T) {
	noLeaks(t, func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close() // nothing listens there now
		p, err := Listen(addr, Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		c, err := net.Dial("tcp", p.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read %v, want the connection closed", err)
		}
	})
}

func TestListenRefusesBadConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Delay: -time.Millisecond}, "netsim: delay -1ms, want 0 or more"},
		{Config{Jitter: -time.Millisecond}, "netsim: jitter -1ms, want 0 or more"},
	} {
		if p, err := Listen("127.0.0.1:1", tc.cfg); err == nil || err.Error() != tc.want {
			if p != nil {
				p.Close()
			}
			t.Errorf("Listen(%+v): %v, want %s", tc.cfg, err, tc.want)
		}
	}
}

// The jitter is uniform over [-Jitter, +Jitter], the same for the same
// seed, and never makes a delay negative.
func TestJitter(t *testing.T) {
	cfg := Config{Delay: 10 * time.Millisecond, Jitter: 4 * time.Millisecond, Seed: 3}
	a, b := cfg.rng(0), cfg.rng(0)
	var sum time.Duration
	lo, hi := time.Hour, time.Duration(0)
	const n = 100000
	for range n {
		d := cfg.delay(a)
		if d != cfg.delay(b) {
			t.Fatal("the same seed drew different delays")
		}
		sum += d
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo < 6*time.Millisecond || lo > 6*time.Millisecond+100*time.Microsecond ||
		hi > 14*time.Millisecond || hi < 14*time.Millisecond-100*time.Microsecond {
		t.Errorf("delays from %v to %v, want 6ms to 14ms", lo, hi)
	}
	if mean := sum / n; mean < 9950*time.Microsecond || mean > 10050*time.Microsecond {
		t.Errorf("mean delay %v, want 10ms", mean)
	}
	neg := Config{Delay: time.Millisecond, Jitter: 5 * time.Millisecond}
	r := neg.rng(0)
	for range 1000 {
		if d := neg.delay(r); d < 0 {
			t.Fatalf("delay %v", d)
		}
	}
}

// Wrap delays one connection both ways, keeps deadlines and addresses,
// and delivers what was written before Close.
func TestWrap(t *testing.T) {
	noLeaks(t, func() {
		got := make(chan string, 1)
		ln, stop := server(t, func(c net.Conn) {
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Write([]byte(line))
			b, _ := io.ReadAll(c)
			got <- line + string(b)
		})
		defer stop()
		raw, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Delay: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Seed: 2}
		c := Wrap(raw, cfg)
		if c.RemoteAddr().String() != ln.Addr().String() || c.LocalAddr().String() != raw.LocalAddr().String() {
			t.Errorf("addresses %v -> %v, want %v -> %v", c.LocalAddr(), c.RemoteAddr(), raw.LocalAddr(), ln.Addr())
		}

		start := time.Now()
		c.Write([]byte("ping\n"))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		rtt := time.Since(start)
		if err != nil || line != "ping\n" {
			t.Fatalf("read %q, %v", line, err)
		}
		if rtt < 2*(cfg.Delay-cfg.Jitter) {
			t.Errorf("round trip %v, want at least %v", rtt, 2*(cfg.Delay-cfg.Jitter))
		}

		c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("read past the deadline: %v, want os.ErrDeadlineExceeded", err)
		}

		c.Write([]byte("bye"))
		c.Close() // "bye" is still in flight
		select {
		case s := <-got:
			if s != "ping\nbye" {
				t.Errorf("the server read %q, want %q", s, "ping\nbye")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the server did not see the end of the connection")
		}
	})
}

// A wrapped connection whose peer goes away ends the program's reads.
func TestWrapPeerCloses(t *testing.T) {
	noLeaks(t, func() {
		ln, stop := server(t, func(c net.Conn) { c.Write([]byte("last words")) })
		defer stop()
		raw, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c := Wrap(raw, Config{Delay: 10 * time.Millisecond})
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, err := io.ReadAll(c)
		if err != nil || string(b) != "last words" {
			t.Fatalf("read %q, %v; want the words, then the end", b, err)
		}
	})
}

// dialThrough starts a proxy to target and dials it. The caller closes
// both (before its leak check).
func dialThrough(t *testing.T, target string, cfg Config) (*Proxy, net.Conn) {
	t.Helper()
	p, err := Listen(target, cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		p.Close()
		t.Fatal(err)
	}
	return p, c
}
