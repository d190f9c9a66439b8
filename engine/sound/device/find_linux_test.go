package device

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without a server's socket or a sound card, Open says so at once, and
// ALSA is not asked (its messages on stderr are spared); a server's
// socket in $XDG_RUNTIME_DIR is found.
func TestFindOutput(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	t.Setenv("PULSE_SERVER", "")
	if err := findOutput(); err != nil {
		if !strings.Contains(err.Error(), filepath.Join(dir, "pulse")) || !strings.HasPrefix(err.Error(), "device: no audio output: ") {
			t.Errorf("findOutput: %v; want it to name where it looked", err)
		}
	} else {
		t.Log("this machine has a sound card or a user's server: only the socket case is tested")
	}
	if err := os.MkdirAll(filepath.Join(dir, "pulse"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pulse", "native"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := findOutput(); err != nil {
		t.Errorf("findOutput with a socket in $XDG_RUNTIME_DIR/pulse: %v", err)
	}
}
