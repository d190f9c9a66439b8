// Package agonestest runs the real Agones SDK server for tests, in its
// local mode (no Kubernetes: it keeps a GameServer object in memory,
// applies the SDK calls to it and logs each one), on free loopback ports,
// starting from a GameServer in state Scheduled.
//
// The SDK server is not part of this module: EnvServer names its binary
// (the sdk-server command of Agones, or a wrapper that execs it), and
// Start skips the test when it is unset. make test sets it when the
// binary is at hand.
//
//	sdk := agonestest.Start(t, "match-1")
//	w := sdk.Watch(t) // the GameServer's states and labels, from Scheduled on
//	c, _ := agones.NewClient(sdk.Addr())
//	c.Ready(ctx)
//	w.WaitState(agones.StateReady) // before causing the next change
//	// ...
//	gs := sdk.GameServer(t) // state and labels, as GET /gameserver has them
//	walk := w.Walk()        // Scheduled, Ready, ..., Shutdown
//	if sdk.Count("Health Ping Received!") == 0 { ... }
package agonestest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/internal/agones"
)

// EnvServer is the environment variable naming the SDK server's binary.
const EnvServer = "AGONES_SDK_SERVER"

// startTimeout bounds the SDK server's start (the first start on a
// machine may unpack it) and its exit after SIGINT.
const startTimeout = 30 * time.Second

// Server is a running SDK server, stopped when its test ends.
type Server struct {
	HTTPPort int    // the REST API's port on 127.0.0.1
	GRPCPort int    // the gRPC API's port on 127.0.0.1
	LogPath  string // the server's log: one JSON line per call it received
	File     string // the GameServer file it was started with (-f)
}

// GameServerYAML returns the GameServer manifest Start gives the SDK
// server: named name, label app: nebula-server, the health settings of
// the Fleet in deploy/, in state Scheduled, with address 127.0.0.1 and
// port 7777 named "default".
func GameServerYAML(name string) string {
	return `apiVersion: agones.dev/v1
kind: GameServer
metadata:
  name: ` + name + `
  namespace: default
  labels:
    app: nebula-server
spec:
  health:
    disabled: false
    initialDelaySeconds: 5
    periodSeconds: 5
    failureThreshold: 3
  ports:
    - name: default
      portPolicy: Dynamic
      containerPort: 7777
      protocol: UDP
status:
  state: Scheduled
  address: 127.0.0.1
  ports:
    - name: default
      port: 7777
`
}

// Start runs the SDK server named by EnvServer with a GameServer named
// name in state Scheduled (GameServerYAML), and waits until its REST API
// answers. It skips t when EnvServer is unset, and fails it when the
// server does not start. The server gets SIGINT when t ends.
func Start(t testing.TB, name string) *Server {
	t.Helper()
	bin := os.Getenv(EnvServer)
	if bin == "" {
		t.Skipf("agonestest: set %s to the Agones SDK server's binary (sdk-server, or a wrapper that execs it) to run this test", EnvServer)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("agonestest: %s=%s: %v", EnvServer, bin, err)
	}
	dir := t.TempDir()
	s := &Server{File: filepath.Join(dir, "gameserver.yaml")}
	if err := os.WriteFile(s.File, []byte(GameServerYAML(name)), 0o644); err != nil {
		t.Fatal(err)
	}
	// A port found free may be taken before the server binds it: then
	// the server exits at once, and another pair is tried.
	for attempt := 1; ; attempt++ {
		s.HTTPPort, s.GRPCPort = freePort(t), freePort(t)
		s.LogPath = filepath.Join(dir, fmt.Sprintf("sdk-server-%d.log", attempt))
		err := s.start(t, bin)
		if err == nil {
			return s
		}
		if attempt == 3 || !strings.Contains(s.Log(), "Could not listen") {
			t.Fatalf("agonestest: %v\nits log:\n%s", err, s.Log())
		}
	}
}

// start runs the server once and waits for its REST API.
//
//srccheck:wrapped by Start, as "agonestest: ..."
func (s *Server) start(t testing.TB, bin string) error {
	log, err := os.Create(s.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	// Every setting is explicit: the server takes unset flags from
	// environment variables of the same name (FILE, TIMEOUT, ...).
	cmd := exec.Command(bin, "--local", "--address", "127.0.0.1",
		"--http-port", strconv.Itoa(s.HTTPPort), "--grpc-port", strconv.Itoa(s.GRPCPort),
		"--timeout", "0", "--delay", "0", "-f", s.File)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), "LOG_LEVEL=info")
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("starting %s: %w", bin, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); log.Close(); close(exited) }()
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(startTimeout):
			cmd.Process.Kill()
			<-exited
		}
	}
	url := fmt.Sprintf("http://%s/gameserver", s.Addr())
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case <-exited:
			return fmt.Errorf("the SDK server exited before answering on %s (%v)", url, cmd.ProcessState)
		default:
		}
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Cleanup(stop)
				return nil
			}
		}
		if time.Now().After(deadline) {
			stop()
			return fmt.Errorf("the SDK server did not answer on %s within %v", url, startTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Addr returns the REST API's host:port, for agones.NewClient.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.HTTPPort)) }

// GameServer returns the GameServer as GET /gameserver has it, failing t
// on an error.
func (s *Server) GameServer(t testing.TB) agones.GameServer {
	t.Helper()
	c, err := agones.NewClient(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	gs, err := c.GameServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

// Log returns the server's log so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.LogPath)
	return string(b)
}

// Count returns how many lines of the server's log have the message msg
// ("Health Ping Received!", "Ready request has been received!", ...).
func (s *Server) Count(msg string) int {
	n := 0
	for _, line := range bytes.Split([]byte(s.Log()), []byte("\n")) {
		var l struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(line, &l) == nil && l.Message == msg {
			n++
		}
	}
	return n
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitTimeout bounds every wait of a Watch: it only catches a hang.
const waitTimeout = 2 * time.Minute

// Watch follows the GameServer on the SDK server's watch stream, from the
// state it has when the watch starts until Shutdown. The SDK server's
// local mode sends the object as it is when its watcher runs, so changes
// that come close together may show as one: a test that checks a walk
// waits for each state (WaitState) before it causes the next.
type Watch struct {
	t      testing.TB
	mu     sync.Mutex
	states []agones.State      // repeats folded
	labels map[string][]string // values of the labels set through the SDK, by key, repeats folded
	more   chan struct{}       // cap 1: something was recorded, or the watch ended
	ended  bool
	err    error
}

// Watch starts watching the GameServer and returns once the first state
// is in; the watch ends at Shutdown or with the test.
func (s *Server) Watch(t testing.TB) *Watch {
	t.Helper()
	c, err := agones.NewClient(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watch{t: t, labels: map[string][]string{}, more: make(chan struct{}, 1)}
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		err := c.WatchGameServer(ctx, func(gs agones.GameServer) bool {
			w.mu.Lock()
			if n := len(w.states); n == 0 || w.states[n-1] != gs.State {
				w.states = append(w.states, gs.State)
			}
			for k, v := range gs.Labels {
				key, ok := strings.CutPrefix(k, agones.LabelPrefix)
				if vs := w.labels[key]; ok && (len(vs) == 0 || vs[len(vs)-1] != v) {
					w.labels[key] = append(vs, v)
				}
			}
			w.mu.Unlock()
			w.notify()
			return gs.State != agones.StateShutdown
		})
		w.mu.Lock()
		w.ended, w.err = true, err
		w.mu.Unlock()
		w.notify()
	}()
	w.wait("the first state", func() bool { return len(w.states) > 0 })
	return w
}

func (w *Watch) notify() {
	select {
	case w.more <- struct{}{}:
	default:
	}
}

// wait waits until ok (called with w.mu held) is true, failing the test
// if the watch ends or hangs first.
func (w *Watch) wait(what string, ok func() bool) {
	w.t.Helper()
	timeout := time.After(waitTimeout)
	for {
		w.mu.Lock()
		done, ended, err, states := ok(), w.ended, w.err, slices.Clone(w.states)
		w.mu.Unlock()
		switch {
		case done:
			return
		case ended:
			w.t.Fatalf("agonestest: the watch ended (%v) before %s; states %v", err, what, states)
		}
		select {
		case <-w.more:
		case <-timeout:
			w.t.Fatalf("agonestest: no %s after %v; states %v", what, waitTimeout, states)
		}
	}
}

// WaitState waits until the GameServer has been in state s.
func (w *Watch) WaitState(s agones.State) {
	w.t.Helper()
	w.wait("state "+string(s), func() bool { return slices.Contains(w.states, s) })
}

// WaitLabel waits until the label the SDK set under key has had value v.
func (w *Watch) WaitLabel(key, v string) {
	w.t.Helper()
	w.wait(fmt.Sprintf("label %s=%s", key, v), func() bool { return slices.Contains(w.labels[key], v) })
}

// Walk waits for the end of the watch (the GameServer's Shutdown) and
// returns the states it went through, in order.
func (w *Watch) Walk() []agones.State {
	w.t.Helper()
	w.wait("the end of the watch", func() bool { return w.ended })
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		w.t.Fatalf("agonestest: watching the GameServer: %v (states %v)", w.err, w.states)
	}
	return slices.Clone(w.states)
}

// Label returns the values the label the SDK set under key took, in
// order.
func (w *Watch) Label(key string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.labels[key])
}
