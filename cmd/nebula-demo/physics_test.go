package main

import (
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
