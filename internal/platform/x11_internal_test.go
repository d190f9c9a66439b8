//go:build (linux || freebsd || netbsd || openbsd) && !wayland

package platform

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLocalXSocketExists(t *testing.T) {
	// Only local displays whose socket exists are worth retrying. Find one
	// that exists, if any, to test the positive case.
	existing := ""
	if matches, _ := filepath.Glob("/tmp/.X11-unix/X*"); len(matches) > 0 {
		existing = ":" + filepath.Base(matches[0])[1:]
	}
	tests := []struct {
		display string
		want    bool
	}{
		{"", false},
		{"nonsense", false},
		{"remote.example:0", false},
		{":", false},
		{":x", false},
		{":987654", false}, // no such socket
		{"unix:987654.0", false},
	}
	if existing != "" {
		tests = append(tests,
			struct {
				display string
				want    bool
			}{existing, true},
			struct {
				display string
				want    bool
			}{"unix" + existing + ".0", true})
	}
	for _, tt := range tests {
		if got := localXSocketExists(tt.display); got != tt.want {
			t.Errorf("localXSocketExists(%q) = %v, want %v", tt.display, got, tt.want)
		}
	}
	if existing == "" && os.Getenv("DISPLAY") != "" {
		t.Logf("no X socket in /tmp/.X11-unix: the positive case was not checked")
	}
}
