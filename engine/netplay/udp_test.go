package netplay_test

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/netsim"
)

// A server and two players over UDP, one of them behind 20 ms ± 5 ms each
// way with 5% of its packets lost, 1% duplicated and 1% reordered, both
// ways: both end with the server's hash, and the transport delivers every
// input (every packet repeats the inputs not yet acknowledged), so the
// server substitutes at most 0.1% of the inputs.
//
// The test judges the transport, not the machine's scheduling. With the
// default margins (inputs aimed 43 ms early, 4 ms of tolerance) a busy
// machine makes inputs late that the transport delivered: this process,
// the clients' senders and the server's readers with it, starved for 50
// to 150 ms, substituted up to 69 of 1,800 inputs in a run at a load of 8
// to 10 on 2 cores. So the server waits as long as it may
// (ServerConfig.Tolerance, 1 s) for a missing input: only an input whose
// packet and the sixty after it were all lost, or a stall of a second,
// is substituted. Such stalls happen there too (the whole process frozen
// for 1 to 5 s, the clients' senders skipping the input gone stale): the
// inputs of the ticks a stall of this process covers (stallWatch) are not
// held against the transport. How many inputs the default margins lose
// to 5% loss on an idle machine is BenchmarkLockstepLoss's figure
// (cmd/nebula-demo).
func TestMatchOverUDPWithLoss(t *testing.T) {
	const ticks = 900
	const lossTolerance = time.Second
	cfg := matchConfig(2, ticks)
	cfg.StartDelay = 300 * time.Millisecond // time for the lossy client's clock sync
	cfg.Tolerance = lossTolerance
	stalls := watchStalls(t)
	ts := startServerOn(t, cfg, true)
	sim := netsim.Config{Delay: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05, Dup: 0.01, Reorder: 0.01, Seed: 3}
	var mu sync.Mutex
	n := 0
	clients := dialPlayers(t, ts.addr, 2, func(c *netplay.ClientConfig) {
		c.Transport = netplay.UDP
		mu.Lock()
		defer mu.Unlock()
		if n++; n == 1 {
			c.WrapPacketConn = func(pc net.PacketConn) net.PacketConn { return netsim.WrapPacketConn(pc, sim) }
		}
	})
	for i, err := range play(clients...) {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	rep := ts.wait(t)
	want := ts.e.World.Hash()
	for i, tc := range clients {
		if got := tc.e.World.Hash(); got != want || tc.e.World.Tick() != ticks {
			t.Errorf("client %d: tick %d hash %016x; server tick %d hash %016x", i, tc.e.World.Tick(), got, ticks, want)
		}
	}
	var b strings.Builder
	rep.WriteText(&b)
	t.Logf("\n%s", b.String())
	var subst, inputs uint64
	for _, p := range rep.Players {
		subst += p.Substituted
		inputs += p.Inputs + p.Substituted
	}
	for i, tc := range clients {
		r := tc.c.Report()
		if r.UDP == nil {
			t.Fatalf("client %d: no UDP counters in its report", i)
		}
		t.Logf("client %d: substituted %d, rtt %v, up %d B, down %d B, %+v", i, r.Substituted, r.RTT, r.BytesUp, r.BytesDown, *r.UDP)
	}
	stalled := 2 * stalls.stop().ticks(lossTolerance, 60)
	t.Logf("substituted %d of %d inputs (%.3f%%); %v, which cover %d inputs", subst, inputs, 100*float64(subst)/float64(max(inputs, 1)), stalls, stalled)
	if inputs != 2*ticks || (subst-min(subst, stalled))*1000 > inputs {
		t.Errorf("%d of %d inputs substituted, %d of them excused by stalls of this process; want %d inputs, at most 0.1%% substituted otherwise",
			subst, inputs, min(subst, stalled), 2*ticks)
	}
	if lossy := clients[0].c.Report().UDP; lossy.PacketsLost == 0 && clients[1].c.Report().UDP.PacketsLost == 0 {
		t.Errorf("neither client counted a lost packet")
	}
}

// stallWatch records the times this process did not run: a goroutine
// that wakes every millisecond notes every gap between two wakes of more
// than stallGap (a busy machine starves a process now and then for tens
// of milliseconds, and at times for seconds).
type stallWatch struct {
	quit, done chan struct{}
	gaps       []time.Duration
}

// stallGap is the least gap stallWatch records.
const stallGap = 100 * time.Millisecond

// watchStalls starts a stallWatch, stopped when the test ends.
func watchStalls(t *testing.T) *stallWatch {
	w := &stallWatch{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		last := time.Now()
		for {
			select {
			case <-w.quit:
				return
			case <-tick.C:
			}
			now := time.Now()
			if gap := now.Sub(last); gap > stallGap {
				w.gaps = append(w.gaps, gap)
			}
			last = now
		}
	}()
	t.Cleanup(func() { w.stop() })
	return w
}

// stop stops the watch, once, and returns it with its gaps final.
func (w *stallWatch) stop() *stallWatch {
	select {
	case <-w.quit:
	default:
		close(w.quit)
	}
	<-w.done
	return w
}

// ticks bounds how many ticks at rate Hz the stalls can have cost each
// player its input when the server waits tolerance for a missing one. A
// stall shorter than half the tolerance costs none (the server waits for
// the inputs it makes late). A longer one costs the ticks whose inputs
// were due to be sent while it lasted (a sender a second behind skips
// them as stale; a shorter stall sends them late), counted here with half
// the tolerance more, for the stall of the sender that the watch saw
// shorter than it was.
func (w *stallWatch) ticks(tolerance time.Duration, rate int) uint64 {
	var n uint64
	for _, g := range w.gaps {
		if g >= tolerance/2 {
			n += uint64((g+tolerance/2)*time.Duration(rate)/time.Second) + 1
		}
	}
	return n
}

// String lists the stalls.
func (w *stallWatch) String() string {
	if len(w.gaps) == 0 {
		return fmt.Sprintf("no stall over %v", stallGap)
	}
	gaps := make([]string, len(w.gaps))
	for i, g := range w.gaps {
		gaps[i] = g.Round(time.Millisecond).String()
	}
	return "stalls of " + strings.Join(gaps, ", ")
}
