package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestPhysicsMatch: a physics match (-physics) between a server and two
// predicting players, one behind 80 ms ± 20 ms of simulated latency, who
// fire spheres from their cubes: both end with the server's hash after
// rolling back, and the server's recording verifies.
func TestPhysicsMatch(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "match.rep")
	srv, addr := startServer(t, "-physics", "-entities", "200", "-players", "2", "-ticks", "600", "-record", rec, "-print-hash")
	clients := []*proc{
		startProc(t, "player A", os.Environ(), "-physics", "-connect", addr, "-headless", "-print-hash", "-predict", "8"),
		startProc(t, "player B (80 ms)", os.Environ(), "-physics", "-connect", addr, "-headless", "-print-hash", "-predict", "8", "-net-delay", "80ms", "-net-jitter", "20ms"),
	}
	want := matchHash(t, srv, clients, 600)
	for _, c := range clients {
		_, errOut := c.out()
		if n := predictionField(t, c.name, errOut, "rollbacks"); n == "0" {
			t.Errorf("%s: no rollbacks: the test proves nothing about physics under rollback", c.name)
		}
	}
	verifyRecording(t, rec, 600, want[len("state-hash 600 "):])
}

// The sync test on the physics mode: every tick loads the state of 8
// ticks ago (bodies, contact cache, sleep) and steps the physics again,
// and every hash matches; the run ends on the plain run's hash.
func TestSyncTestPhysics(t *testing.T) {
	ticks := "600"
	if raceEnabled {
		ticks = "120"
	}
	args := []string{"-headless", "-physics", "-entities", "300", "-ticks", ticks, "-print-hash", "-log-level", "error"}
	var plain, stdout, stderr bytes.Buffer
	if code := run(args, &plain, &stderr); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	if code := run(append(args, "-synctest", "8"), &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	if got, want := stdout.String(), "synctest ok "+ticks+" depth 8\n"+plain.String(); got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
}
