package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/netsim"
	"github.com/nebulaengine/nebula/engine/netplay/udp"
)

// BenchmarkLockstepLoss compares, in one run, lockstep over TCP and over
// UDP when the network loses packets: two players of the demo scene (100
// cubes) play 600 ticks at 60 Hz against a server in this process, each
// behind 25 ms of simulated latency each way (a 50 ms round trip), at 1%
// and at 5% loss each way. Each client's reader is timed as each
// confirmed tick arrives (arrival minus the tick's time on the match
// clock); a stall is a tick that arrives more than a tick interval later
// than the median, and its stall time is how much later.
//
// UDP loses packets through netsim.WrapPacketConn. TCP cannot lose bytes
// (netsim's stream delays them only), and netem on the machine's loopback
// would delay every other program on it, so TCP's loss is modelled as
// what Linux does about it: a lost chunk, and every byte behind it, is
// delivered late by the time its retransmission takes, in two models:
//
//   - tcp-rack: fast recovery (RACK, Linux's default): one round trip, a
//     quarter of it for the reordering window, and a packet interval for
//     the next segment whose acknowledgement reveals the loss: 79 ms;
//   - tcp-rto: the retransmission timeout, Linux's minimum of 200 ms plus
//     the round trip: 250 ms.
//
// The same benchmark measures the bandwidth per player over UDP at 4
// players, each behind 25 ms and 1% loss (the redundant inputs and
// confirmed ticks included). Targets: at most 4 KB/s up and 12 KB/s down.
//
//	go test -run '^$' -bench 'BenchmarkLockstepLoss' -benchtime 1x ./cmd/nebula-demo/
func BenchmarkLockstepLoss(b *testing.B) {
	const delay = 25 * time.Millisecond
	ticks := benchSize[uint64](600, 60)
	rtt := 2 * delay
	dt := time.Second / 60
	models := []struct {
		name    string
		udp     bool
		penalty time.Duration // TCP: the delay of a lost chunk
	}{
		{"tcp-rack", false, rtt + rtt/4 + dt},
		{"tcp-rto", false, 200*time.Millisecond + rtt},
		{"udp", true, 0},
	}
	for range b.N {
		for _, loss := range benchSize([]float64{0.01, 0.05}, []float64{0.05}) {
			for _, model := range models {
				r := lossRun(b, model.udp, delay, loss, model.penalty, ticks)
				name := fmt.Sprintf("%s-%g%%", model.name, loss*100)
				b.ReportMetric(float64(r.stalls), "stalls/"+name)
				b.ReportMetric(float64(r.stallTime)/float64(time.Millisecond), "stall-ms/"+name)
				b.Logf("%-14s %4d stalls, %8v in all (of %d ticks x 2 clients), %d inputs substituted, worst stall %v",
					name, r.stalls, r.stallTime.Round(time.Millisecond), ticks, r.subst, r.worst.Round(time.Millisecond))
			}
		}
		up, down := udpBandwidth(b, 4, delay, 0.01, ticks)
		b.ReportMetric(up, "udp-up-B/s")
		b.ReportMetric(down, "udp-down-B/s")
		b.Logf("UDP, 4 players at 25 ms and 1%% loss: per player, worst of 4: up %.0f B/s, down %.0f B/s (UDP payloads)", up, down)
	}
}

type lossResult struct {
	stalls     int
	stallTime  time.Duration
	worst      time.Duration
	subst      uint64
	upPerSec   float64
	downPerSec float64
}

// lossRun plays one match of two players and counts the stalls.
func lossRun(b *testing.B, overUDP bool, delay time.Duration, loss float64, penalty time.Duration, ticks uint64) lossResult {
	cfg := netplay.DefaultServerConfig()
	cfg.Players, cfg.MaxPlayers, cfg.Ticks = 2, 2, ticks
	m := startBenchServer(b, cfg, 100, overUDP)
	t := newTap(2, ticks)
	clients := runClients(b, m.addr, 2, 100, lossyDial(overUDP, delay, loss, penalty, t))
	if err := <-m.done; err != nil {
		b.Fatalf("server: %v", err)
	}
	for i, bc := range clients {
		if bc.e.World.Hash() != m.e.World.Hash() {
			b.Fatalf("client %d ended with another hash than the server's", i)
		}
	}
	var r lossResult
	dt := time.Second / 60
	t.mu.Lock()
	for c := range t.read {
		var late []time.Duration
		for k := uint64(1); k <= ticks; k++ {
			if at := t.read[c][k]; at != 0 {
				late = append(late, at-engine.TickTime(k, 60))
			}
		}
		sorted := slices.Clone(late)
		slices.Sort(sorted)
		median := sorted[len(sorted)/2]
		for _, l := range late {
			if l-median > dt {
				r.stalls++
				r.stallTime += l - median
				r.worst = max(r.worst, l-median)
			}
		}
	}
	t.mu.Unlock()
	for _, p := range m.srv.Report().Players {
		r.subst += p.Substituted
		r.upPerSec = max(r.upPerSec, p.UpRate())
		r.downPerSec = max(r.downPerSec, p.DownRate())
	}
	return r
}

// udpBandwidth plays one match of players players over UDP and returns
// the worst player's bytes per second up and down.
func udpBandwidth(b *testing.B, players int, delay time.Duration, loss float64, ticks uint64) (up, down float64) {
	cfg := netplay.DefaultServerConfig()
	cfg.Players, cfg.MaxPlayers, cfg.Ticks = players, players, ticks
	m := startBenchServer(b, cfg, 100, true)
	runClients(b, m.addr, players, 100, lossyDial(true, delay, loss, 0, nil))
	if err := <-m.done; err != nil {
		b.Fatalf("server: %v", err)
	}
	for _, p := range m.srv.Report().Players {
		up, down = max(up, p.UpRate()), max(down, p.DownRate())
	}
	return up, down
}

// lossyDial returns a dialBench configuration that puts a client behind
// the simulated network, over UDP or TCP (see lossyStream); a tap, if not
// nil, times its connection.
func lossyDial(overUDP bool, delay time.Duration, loss float64, penalty time.Duration, t *tap) func(int, *netplay.ClientConfig) {
	return func(i int, cfg *netplay.ClientConfig) {
		seed := uint64(i + 1)
		wrap := func(c net.Conn) net.Conn {
			if t == nil {
				return c
			}
			return &tapConn{Conn: c, t: t, client: i}
		}
		if overUDP {
			cfg.Transport = netplay.UDP
			sim := netsim.Config{Delay: delay, Loss: loss, Seed: seed}
			cfg.Dial = func(ctx context.Context, _, addr string) (net.Conn, error) {
				c, err := udp.Dial(ctx, addr, udp.DialConfig{Wrap: func(pc net.PacketConn) net.PacketConn { return netsim.WrapPacketConn(pc, sim) }})
				if err != nil {
					return nil, err
				}
				return &statsConn{wrap(c), c}, nil
			}
			return
		}
		cfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			c.(*net.TCPConn).SetNoDelay(true)
			return wrap(lossyStream(c, delay, loss, penalty, seed)), nil
		}
	}
}

// statsConn is a wrapped UDP connection that still reports the
// transport's counters.
type statsConn struct {
	net.Conn
	u *udp.Conn
}

func (s *statsConn) Stats() udp.Stats { return s.u.Stats() }

// lossyStream models a TCP connection over a lossy link: each chunk
// written or read is delivered delay later, and a lost one (with
// probability loss, drawn per chunk from a generator seeded with seed)
// penalty later still; bytes stay in order, so every chunk behind a lost
// one waits for it.
func lossyStream(conn net.Conn, delay time.Duration, loss float64, penalty time.Duration, seed uint64) net.Conn {
	inner, outer := net.Pipe()
	go streamDir(inner, conn, delay, loss, penalty, rand.New(rand.NewPCG(seed, 10)))
	go streamDir(conn, inner, delay, loss, penalty, rand.New(rand.NewPCG(seed, 11)))
	return &wrappedConn{Conn: outer, real: conn}
}

type wrappedConn struct {
	net.Conn
	real net.Conn
}

func (w *wrappedConn) LocalAddr() net.Addr  { return w.real.LocalAddr() }
func (w *wrappedConn) RemoteAddr() net.Addr { return w.real.RemoteAddr() }

// streamDir forwards src to dst, chunk by chunk, each at its due time.
func streamDir(src io.ReadCloser, dst io.WriteCloser, delay time.Duration, loss float64, penalty time.Duration, rng *rand.Rand) {
	type chunk struct {
		b  []byte
		at time.Time
	}
	q := make(chan chunk, 4096)
	go func() {
		defer close(q)
		var last time.Time
		buf := make([]byte, 64<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				at := time.Now().Add(delay)
				if rng.Float64() < loss {
					at = at.Add(penalty)
				}
				if at.Before(last) {
					at = last
				}
				last = at
				q <- chunk{append([]byte(nil), buf[:n]...), at}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q {
		time.Sleep(time.Until(c.at))
		if _, err := dst.Write(c.b); err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
}
