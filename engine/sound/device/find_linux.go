package device

import (
	"fmt"
	"os"
	"path/filepath"
)

// findOutput reports why there is no audio output to open, or nil when
// there may be one: a PulseAudio or PipeWire server's socket, or a sound
// card. Looking first spares a machine without either (a server, a test
// runner) the ALSA library's and its plugins' messages on stderr as they
// try every device and fail.
func findOutput() error {
	if os.Getenv("PULSE_SERVER") != "" {
		return nil
	}
	var dirs []string
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	dirs = append(dirs, fmt.Sprintf("/run/user/%d", os.Getuid()))
	for _, d := range dirs {
		for _, sock := range []string{"pulse/native", "pipewire-0"} {
			if _, err := os.Stat(filepath.Join(d, sock)); err == nil {
				return nil
			}
		}
	}
	if _, err := os.Stat("/var/run/pulse/native"); err == nil {
		return nil
	}
	if cards, _ := filepath.Glob("/dev/snd/pcmC*p"); len(cards) > 0 {
		return nil
	}
	return fmt.Errorf("device: no audio output: no PulseAudio or PipeWire server (no socket in %s or /var/run/pulse, $PULSE_SERVER unset) and no sound card (/dev/snd)", filepath.Join(dirs[0], "pulse"))
}
