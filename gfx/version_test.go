package gfx

import "testing"

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in           string
		major, minor int
		ok           bool
	}{
		{"4.5 (Core Profile) Mesa 22.3.6", 4, 5, true},
		{"4.1 ATI-4.14.1", 4, 1, true},
		{"4.6.0 NVIDIA 535.54.03", 4, 6, true},
		{"3.3.0 - Build 31.0.101.2111", 3, 3, true},
		{"10.12", 10, 12, true},
		{"", 0, 0, false},
		{"4", 0, 0, false},
		{"OpenGL ES 3.2 Mesa", 0, 0, false},
		{"x.y", 0, 0, false},
		{"-4.1", 0, 0, false},
	}
	for _, tt := range tests {
		major, minor, err := parseVersion(tt.in)
		if ok := err == nil; ok != tt.ok || major != tt.major || minor != tt.minor {
			t.Errorf("parseVersion(%q) = %d, %d, %v; want %d, %d, ok=%v", tt.in, major, minor, err, tt.major, tt.minor, tt.ok)
		}
	}
}
