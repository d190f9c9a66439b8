package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/replay"
	"github.com/nebulaengine/nebula/internal/gameserver"
	"github.com/nebulaengine/nebula/internal/testbin"
)

// waitLogged waits until the log at path holds tick at (it may have no
// end: its server is running) and returns its last tick.
func waitLogged(t *testing.T, path string, at uint64) uint64 {
	t.Helper()
	deadline := time.Now().Add(hang)
	for {
		if data, err := os.ReadFile(path); err == nil {
			if r, err := replay.OpenIncomplete(data); err == nil && r.End.LastTick >= at {
				return r.End.LastTick
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log %s never reached tick %d", path, at)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// verify runs nebula-demo (demo) -replay path -headless -verify (and
// flags) and returns its output.
func verify(t *testing.T, demo *testbin.Program, path string, flags ...string) string {
	t.Helper()
	args := append([]string{"-replay", path, "-headless", "-verify", "-print-hash", "-log-level", "error"}, flags...)
	out, err := exec.Command(demo.Path(t), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("nebula-demo %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// A server logging its match is killed with SIGKILL mid-match; its log
// verifies as far as it goes (nebula-demo -partial). The same server,
// given -resume, continues the match from the log at its last tick: a
// bot joining the resumed match ends with the server's hash, and the log,
// continued in the same file and ended, verifies from its first tick to
// its last with nebula-demo, to the server's final hash.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nebula-demo")
	}
	demo := testbin.New("nebula-demo", "../nebula-demo") // verifies the log
	t.Cleanup(demo.Remove)
	path := filepath.Join(t.TempDir(), "match.nebreplay")
	flags := []string{"-players", "2", "-entities", "50", "-snapshot-every", "60", "-fsync-every", "6", "-fsync-interval", "100ms"}
	s := startServer(t, nil, append(flags, "-log", path, "-ops", "127.0.0.1:0")...)
	l := s.waitLog("listening")
	startBot(t, "-connect", l["tcp"].(string), "-n", "2", "-entities", "50")
	waitLogged(t, path, 150)
	// The log's writes are in the metrics: fsynced ones every 6 ticks,
	// the others between.
	m := scrape(t, l["ops"].(string))
	synced, plain := m[`nebula_server_log_write_seconds_count{synced="true"}`], m[`nebula_server_log_write_seconds_count{synced="false"}`]
	if synced < 10 || plain < synced {
		t.Errorf("log writes in the metrics: %v fsynced, %v not; want some of each, more not (fsync every 6 ticks)", synced, plain)
	}
	s.cmd.Process.Kill() // SIGKILL
	<-s.done
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	crashed, err := replay.OpenIncomplete(data)
	if err != nil {
		t.Fatal(err)
	}
	k := crashed.End.LastTick
	if out := verify(t, demo, path, "-partial"); !strings.HasPrefix(out, fmt.Sprintf("replay ok %d\n", k)) {
		t.Errorf("nebula-demo -partial -verify of the killed server's log: %q, want replay ok %d", out, k)
	}

	end := k + 120
	s = startServer(t, nil, append(flags, "-resume", path, "-ticks", fmt.Sprint(end), "-resume-seat-ticks", "30", "-ops", "127.0.0.1:0")...)
	r := s.waitLog("match resumed from its log")
	if r["tick"] != float64(k) {
		t.Fatalf("resumed at tick %v, the log's last is %d; line %v", r["tick"], k, r)
	}
	t.Logf("killed after tick %d was logged; resumed from the snapshot of tick %v (%v ticks replayed, %v bytes cut) in %v",
		k, r["snapshot_tick"], r["replayed"], r["cut_bytes"], r["took"])
	l = s.waitLog("listening")
	// From its first scrape the resumed server's tick is the match's
	// (the log's last, or a later one), never 0.
	if m := scrape(t, l["ops"].(string)); m["nebula_server_tick"] < float64(k) {
		t.Errorf("the resumed server's nebula_server_tick %v, want %d or later", m["nebula_server_tick"], k)
	}
	late := startBot(t, "-connect", l["tcp"].(string), "-entities", "50")
	if code := s.wait(); code != gameserver.ExitOK {
		t.Fatalf("the resumed server exited with %d; its log:\n%s", code, s.log())
	}
	h := hashLine.FindStringSubmatch(s.output())
	if h == nil || h[1] != fmt.Sprint(end) {
		t.Fatalf("the resumed server's output %q, want state-hash %d", s.output(), end)
	}
	// The report says what this server ran: the ticks since it resumed.
	if want := fmt.Sprintf("match report: tick %d, resumed at tick %d: %d ticks in ", end, k, end-k); !strings.Contains(s.output(), want) {
		t.Errorf("the resumed server's output %q, want a report line starting %q", s.output(), want)
	}
	if n := checkBots(t, late.lines(t), h[1], h[2], "last tick"); n != 1 {
		t.Errorf("%d bot lines, want 1", n)
	}
	out := verify(t, demo, path)
	if want := fmt.Sprintf("replay ok %d\nstate-hash %d %s", end, end, h[2]); out != want {
		t.Errorf("nebula-demo -verify of the resumed match's log: %q, want %q", out, want)
	}
}

// The log's flags are checked: a cadence without a log, a log and another
// resumed, a log that exists, a resumed log that does not.
func TestLogUsage(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing")
	if err := os.WriteFile(existing, []byte("a match's log"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // the last line of stderr
	}{
		{"cadence without a log", []string{"-fsync-every", "3", "-snapshot-every", "10"}, gameserver.ExitUsage, "nebula-server: -fsync-every, -snapshot-every: means nothing without -log or -resume"},
		{"log and resume", []string{"-log", "a", "-resume", "b"}, gameserver.ExitUsage, "nebula-server: -log a and -resume b: a resumed match appends to the log it resumes (leave -log out)"},
		{"seat ticks without resume", []string{"-log", missing, "-resume-seat-ticks", "5"}, gameserver.ExitUsage, "nebula-server: -resume-seat-ticks 5: only with -resume"},
		// A file named by a flag that cannot be used is bad usage (2), as
		// -key's is; a file that is there but holds no log fails (1) when
		// it is read.
		{"existing log", []string{"-log", existing}, gameserver.ExitUsage, "nebula-server: -log " + existing + ": the file exists (a match log is never replaced; -resume continues it)"},
		{"missing log", []string{"-resume", missing}, gameserver.ExitUsage, "nebula-server: -resume " + missing + ": open " + missing + ": no such file or directory"},
		{"not a log", []string{"-resume", existing}, gameserver.ExitFailed, "nebula-server: match log: matchlog: resume " + existing + ": header, byte 0, field magic: not a Nebula replay: magic \"a match'\", want \"NEBREPLY\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin.Path(t), append([]string{"-addr", "127.0.0.1", "-port", "0", "-udp-port", "-1"}, tc.args...)...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			code := exitCode(t, cmd.Run())
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if code != tc.code || lines[len(lines)-1] != tc.want {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and last line %q", code, stderr.String(), tc.code, tc.want)
			}
		})
	}
}
