package main

import (
	"bytes"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// The low-power preset on a real window: -power low ticks at 30 Hz (every
// frame's tick count follows the clock at 30 Hz) and draws at about 30
// frames per second (the median frame interval is a 30 Hz frame).
func TestLowPowerRates(t *testing.T) {
	needDisplay(t)
	bin := demoBinary(t)
	statsPath := filepath.Join(t.TempDir(), "s.csv")
	cmd := exec.Command(bin, "-power", "low", "-duration", "3s", "-entities", "200", "-width", "320", "-height", "200",
		"-stats", statsPath, "-hitch", "0", "-log-level", "warn")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	rows := readStats(t, statsPath)
	checkTicksFollowTheClock(t, rows, 30)

	last := rows[len(rows)-1]
	secs := last.tMS / 1000
	ups := float64(last.tick) / secs
	fps := float64(len(rows)-1) / secs // frame 1 starts the clock
	intervals := make([]float64, 0, len(rows))
	for _, r := range rows[1:] {
		intervals = append(intervals, r.frameMS)
	}
	slices.Sort(intervals)
	median := intervals[len(intervals)/2]
	t.Logf("%d frames, %d ticks in %.3f s: %.2f UPS, %.2f FPS, median frame %.2f ms", len(rows), last.tick, secs, ups, fps, median)
	if math.Abs(ups-30) > 1 {
		t.Errorf("%.2f ticks per second, want 30", ups)
	}
	// The cap holds frames to 30 per second; a loaded machine may drop a
	// few, never add any.
	if fps > 30.5 || fps < 25 {
		t.Errorf("%.2f frames per second, want about 30 (25 to 30.5)", fps)
	}
	if math.Abs(median-1000.0/30) > 2 {
		t.Errorf("median frame interval %.2f ms, want %.2f", median, 1000.0/30)
	}
}
