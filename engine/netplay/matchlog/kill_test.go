package matchlog

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/engine/replay"
)

// childLogEnv names the log of the server TestChildServer runs, in the
// process TestKill9 starts and kills.
const childLogEnv = "NEBULA_MATCHLOG_CHILD_LOG"

// printer prints every tick's hash on stdout: "hash TICK HASH".
type printer struct{}

func (printer) PreTick()                                {}
func (printer) BeginTick(*engine.TickInfo)              {}
func (printer) JobApplied(uint64, engine.JobID, []byte) {}
func (printer) EndTick(tick uint64, w *engine.World) {
	fmt.Printf("hash %d %d\n", tick, w.Hash())
}

// TestChildServer is the server TestKill9 kills: a match of the test game
// with two bots, logged to the file childLogEnv names, running until the
// process dies. It prints every tick's hash before the log has the tick,
// and "written TICK" once the log has written it.
func TestChildServer(t *testing.T) {
	path := os.Getenv(childLogEnv)
	if path == "" {
		t.Skip("the server TestKill9 runs in a process of its own")
	}
	e, _, err := newGame(replay.Header{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := netplay.NewServer(e, serverConfig(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.AddTickHook(printer{}); err != nil {
		t.Fatal(err)
	}
	var lg atomic.Pointer[Log]
	trace := &netplay.ServerTrace{LogWritten: func(time.Duration, bool) {
		if l := lg.Load(); l != nil {
			fmt.Printf("written %d\n", l.Written())
		}
	}}
	l, err := Create(path, e, testHeader(e), Config{SnapshotEvery: 50, SyncEvery: 6, SyncInterval: 100 * time.Millisecond, Trace: trace, Log: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	lg.Store(l)
	if _, err := e.AddTickHook(l); err != nil {
		t.Fatal(err)
	}
	addr, done := serve(t, srv)
	startBot(t, addr, wire.RolePlayer, 1)
	startBot(t, addr, wire.RolePlayer, 2)
	t.Fatalf("the server ended: %v", <-done) // it runs until killed
}

// A server process killed with SIGKILL mid-match leaves a log that
// resumes: every tick it had written is there, the replayed ticks have
// the killed server's hashes, and the match goes on and verifies from its
// first tick (resumeAndFinish).
func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs a server process")
	}
	path := filepath.Join(t.TempDir(), "match.nebreplay")
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildServer$")
	cmd.Env = append(os.Environ(), childLogEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := crashed{path: path, hashes: map[uint64]uint64{}}
	sc := bufio.NewScanner(out)
	killed := false
	for sc.Scan() {
		var tick, v uint64
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "hash "):
			if _, err := fmt.Sscanf(line, "hash %d %d", &tick, &v); err == nil {
				c.hashes[tick] = v
				c.last = max(c.last, tick)
			}
		case strings.HasPrefix(line, "written "):
			if _, err := fmt.Sscanf(line, "written %d", &tick); err == nil {
				c.written = max(c.written, tick)
			}
			if c.written >= 130 && !killed {
				if err := cmd.Process.Kill(); err != nil { // SIGKILL
					t.Fatal(err)
				}
				killed = true
			}
		}
	}
	err = cmd.Wait()
	if !killed {
		t.Fatalf("the server process ended before tick 130: %v", err)
	}
	t.Logf("killed the server process (%v) after it wrote tick %d; it had run tick %d", err, c.written, c.last)
	resumeAndFinish(t, c, c.last+120)
}
