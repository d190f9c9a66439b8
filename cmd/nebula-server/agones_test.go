package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/nebulaengine/nebula/internal/agones"
	"github.com/nebulaengine/nebula/internal/agones/agonestest"
	"github.com/nebulaengine/nebula/internal/gameserver"
)

// TestAgonesLifecycle runs the server under the real Agones SDK server,
// as Agones runs it in a pod: the GameServer moves Scheduled -> Ready once
// the server listens, Allocated when the test allocates it (as a
// matchmaker's GameServerAllocation would; the server takes no player
// before, -agones-wait-allocated), the match runs with two headless
// players (the players label says 2), and SIGTERM, as Agones sends when
// it deletes the pod, ends the match: Shutdown, exit status 0.
func TestAgonesLifecycle(t *testing.T) {
	sdk := agonestest.Start(t, "nebula-server-agones")
	c, err := agones.NewClient(sdk.Addr())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	w := sdk.Watch(t)

	s := startServer(t, nil, "-agones", sdk.Addr(), "-agones-wait-allocated", "-agones-health", "100ms",
		"-players", "2", "-entities", "50", "-match", "agones-match", "-ops", "127.0.0.1:0")
	l := s.waitLog("listening")
	tcp, ops := l["tcp"].(string), l["ops"].(string)
	s.waitLog("agones: ready; waiting to be allocated")
	if gs := sdk.GameServer(t); gs.State != agones.StateReady {
		t.Fatalf("the server said it is ready; the GameServer is %s", gs.State)
	}
	w.WaitState(agones.StateReady)
	if err := c.Allocate(ctx); err != nil { // the matchmaker's allocation
		t.Fatal(err)
	}
	s.waitLog("agones: allocated")
	w.WaitState(agones.StateAllocated)
	bots := startBot(t, "-connect", tcp, "-n", "2", "-entities", "50")
	w.WaitLabel(agones.LabelPlayers, "2")
	waitMetric(t, ops, "tick 30", func(m map[string]float64) bool { return m["nebula_server_tick"] >= 30 })
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(); code != gameserver.ExitOK {
		t.Fatalf("the server exited with %d; its log:\n%s", code, s.log())
	}
	s.waitLog("agones: shutdown")
	h := hashLine.FindStringSubmatch(s.output())
	if h == nil {
		t.Fatalf("no state hash in the server's output %q", s.output())
	}
	if n := checkBots(t, bots.lines(t), h[1], h[2], "shutdown"); n != 2 {
		t.Errorf("%d bot lines, want 2", n)
	}

	states := w.Walk()
	want := []agones.State{agones.StateScheduled, agones.StateReady, agones.StateAllocated, agones.StateShutdown}
	if !slices.Equal(states, want) {
		t.Errorf("the GameServer went %v, want %v", states, want)
	}
	seen := w.Label(agones.LabelPlayers)
	if len(seen) == 0 || seen[0] != "0" {
		t.Errorf("the players label went %v, want 0 first, then up to 2", seen)
	}
	gs := sdk.GameServer(t)
	if m, _ := gs.Label(agones.LabelMatch); m != "agones-match" {
		t.Errorf("the match label is %q, want agones-match; labels %v", m, gs.Labels)
	}
	pings := sdk.Count("Health Ping Received!")
	if pings < 1 {
		t.Errorf("the SDK server logged %d health pings", pings)
	}
	t.Logf("states %s; players label %s; %d health pings; %s", join(states), strings.Join(seen, " -> "), pings, strings.TrimSpace(h[0]))
}

// TestAgonesMatchEnds: without -agones-wait-allocated the server is Ready
// and takes players at once (a game that finds its own); the match ends
// at its last tick, and the GameServer is Shutdown.
func TestAgonesMatchEnds(t *testing.T) {
	sdk := agonestest.Start(t, "nebula-server-ends")
	w := sdk.Watch(t)
	s := startServer(t, []string{agones.EnvHTTPPort + "=" + fmt.Sprint(sdk.HTTPPort)},
		"-players", "1", "-ticks", "60", "-entities", "50", "-match", "agones-ends")
	tcp := s.waitLog("listening")["tcp"].(string)
	w.WaitState(agones.StateReady)
	bots := startBot(t, "-connect", tcp, "-entities", "50")
	if code := s.wait(); code != gameserver.ExitOK {
		t.Fatalf("the server exited with %d; its log:\n%s", code, s.log())
	}
	h := hashLine.FindStringSubmatch(s.output())
	if h == nil || h[1] != "60" {
		t.Fatalf("server output %q, want state-hash 60 <hash>", s.output())
	}
	checkBots(t, bots.lines(t), h[1], h[2], "last tick")
	if want, states := []agones.State{agones.StateScheduled, agones.StateReady, agones.StateShutdown}, w.Walk(); !slices.Equal(states, want) {
		t.Errorf("the GameServer went %v, want %v", states, want)
	}
	if m, _ := sdk.GameServer(t).Label(agones.LabelMatch); m != "agones-ends" {
		t.Errorf("the match label is %q", m)
	}
}

// TestAgonesScaledDown: a Ready server that is never allocated gets
// SIGTERM when the Fleet scales down; it ends without a match, calls
// Shutdown and exits 0.
func TestAgonesScaledDown(t *testing.T) {
	sdk := agonestest.Start(t, "nebula-server-scaled-down")
	w := sdk.Watch(t)
	s := startServer(t, nil, "-agones", sdk.Addr(), "-agones-wait-allocated", "-players", "1", "-entities", "50")
	s.waitLog("agones: ready; waiting to be allocated")
	w.WaitState(agones.StateReady)
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(); code != gameserver.ExitOK {
		t.Fatalf("the server exited with %d; its log:\n%s", code, s.log())
	}
	if want, states := []agones.State{agones.StateScheduled, agones.StateReady, agones.StateShutdown}, w.Walk(); !slices.Equal(states, want) {
		t.Errorf("the GameServer went %v, want %v", states, want)
	}
}

// TestAgonesUnreachable: a server told to use an SDK server that does not
// answer fails before the match, saying so.
func TestAgonesUnreachable(t *testing.T) {
	s := startServer(t, nil, "-agones", fmt.Sprintf("127.0.0.1:%d", closedPort(t)), "-players", "1")
	if code := s.wait(); code != gameserver.ExitFailed {
		t.Fatalf("exit status %d, want %d; log:\n%s", code, gameserver.ExitFailed, s.log())
	}
	if !strings.Contains(s.log(), "agones: POST /health") && !strings.Contains(s.log(), "agones: PUT /metadata/label") {
		t.Errorf("the log does not say which Agones call failed:\n%s", s.log())
	}
}

// closedPort returns a TCP port of 127.0.0.1 nothing listened on a moment
// ago.
// TestAgonesBadUsage: flags that cannot work under Agones are refused
// before anything starts.
func TestAgonesBadUsage(t *testing.T) {
	port := fmt.Sprint(closedPort(t))
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"-agones-wait-allocated"}, "nebula-server: -agones-wait-allocated needs Agones: -agones or AGONES_SDK_HTTP_PORT"},
		{nil, []string{"-agones", "host:x"}, `nebula-server: -agones: SDK server address "host:x": port must be a number from 1 to 65535`},
		{[]string{agones.EnvHTTPPort + "=x"}, nil, `nebula-server: AGONES_SDK_HTTP_PORT="x": port must be a number from 1 to 65535`},
		{nil, []string{"-agones", port, "-agones-health", "0s"}, "nebula-server: -agones-health 0s: must be above 0"},
		{nil, []string{"-agones", port, "-match", "-m1"}, `nebula-server: -match "-m1": under Agones the match id is a label's value: label value "-m1": a label value starts with a letter or digit`},
	} {
		cmd := exec.Command(bin.Path(t), c.args...)
		cmd.Env = append(os.Environ(), c.env...)
		out, err := cmd.CombinedOutput()
		if code := exitCode(t, err); code != gameserver.ExitUsage || strings.TrimSpace(string(out)) != c.want {
			t.Errorf("%v %q: exit status %d, output %q; want %d, %q", c.env, c.args, code, out, gameserver.ExitUsage, c.want)
		}
	}
}

func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func join(states []agones.State) string {
	var b strings.Builder
	for i, s := range states {
		if i > 0 {
			b.WriteString(" -> ")
		}
		b.WriteString(string(s))
	}
	return b.String()
}
