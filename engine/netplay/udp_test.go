package netplay_test

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/netsim"
	"github.com/nebulaengine/nebula/internal/stallwatch"
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
	stalls := stallwatch.Start(t)
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
	stalled := 2 * stalls.Stop().Ticks(lossTolerance, 60)
	t.Logf("substituted %d of %d inputs (%.3f%%); %v, which cover %d inputs", subst, inputs, 100*float64(subst)/float64(max(inputs, 1)), stalls, stalled)
	if inputs != 2*ticks || (subst-min(subst, stalled))*1000 > inputs {
		t.Errorf("%d of %d inputs substituted, %d of them excused by stalls of this process; want %d inputs, at most 0.1%% substituted otherwise",
			subst, inputs, min(subst, stalled), 2*ticks)
	}
	if lossy := clients[0].c.Report().UDP; lossy.PacketsLost == 0 && clients[1].c.Report().UDP.PacketsLost == 0 {
		t.Errorf("neither client counted a lost packet")
	}
}
