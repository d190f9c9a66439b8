package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Clients record their match (-connect -record, -spectate -record) beside
// their rollback session: two predicting players (one behind 100 ms +/- 20
// ms of simulated latency each way, so both roll back), a spectator, and
// a player who joins late (its recording starts with the server's
// snapshot). Each client's recording replays with -verify to the match's
// final hash, and those of the players who were there from the start
// have every one of its 900 ticks, like the server's.
func TestClientRecordingsVerify(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name+".rep") }
	srv, addr := startServer(t, "-players", "2", "-ticks", "900", "-record", path("server"), "-print-hash")
	a := startProc(t, "player A", os.Environ(), "-connect", addr, "-headless", "-print-hash", "-predict", "8", "-record", path("a"))
	b := startProc(t, "player B (100 ms)", os.Environ(), "-connect", addr, "-headless", "-print-hash", "-predict", "8",
		"-net-delay", "100ms", "-net-jitter", "20ms", "-record", path("b"))
	spec := startProc(t, "spectator", os.Environ(), "-spectate", addr, "-headless", "-print-hash", "-record", path("spectator"))
	waitLog(t, srv, "match started", 20*time.Second)
	start := time.Now()
	time.Sleep(time.Until(start.Add(300 * time.Second / 60)))
	late := startProc(t, "late joiner", os.Environ(), "-connect", addr, "-headless", "-print-hash", "-record", path("late"))
	clients := []*proc{a, b, spec, late}
	want := matchHash(t, srv, clients, 900)
	hash := want[len("state-hash 900 "):]
	for _, c := range []*proc{a, b} {
		_, errOut := c.out()
		if n, err := strconv.Atoi(predictionField(t, c.name, errOut, "rollbacks")); err != nil || n == 0 {
			t.Errorf("%s: rollbacks %d (%v), want some (its recording must keep predicted ticks until they are confirmed)", c.name, n, err)
		}
	}
	verifyRecording(t, path("server"), 900, hash)
	verifyRecording(t, path("a"), 900, hash)
	verifyRecording(t, path("b"), 900, hash)
	verifyRecording(t, path("spectator"), 900, hash)
	// The late joiner's recording restores the snapshot it joined with
	// and has the ticks after it.
	out, err := exec.Command(demoBinary(t), "-replay", path("late"), "-headless", "-verify", "-print-hash", "-log-level", "error").CombinedOutput()
	if err != nil {
		t.Fatalf("verifying the late joiner's recording: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`replay ok (\d+)\n`).FindStringSubmatch(string(out))
	if m == nil || !strings.Contains(string(out), hash) {
		t.Fatalf("the late joiner's recording verified with %q, want \"replay ok <ticks>\" and %q", out, hash)
	}
	if n, _ := strconv.Atoi(m[1]); n < 100 || n > 640 {
		t.Errorf("the late joiner's recording has %d ticks, want those after its join at about tick 300", n)
	}
}
