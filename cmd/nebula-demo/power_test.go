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
// frame's tick count follows the clock at 30 Hz, less the time the loop
// dropped, which a loaded machine makes it drop: frames past -max-frame)
// and caps frames at 30 per second (never more frames than that, and no
// frame interval shorter than a 30 Hz frame's at the median). A busy
// machine may draw fewer frames than the cap allows; that is no failure
// of the cap, so the frame rate has no lower bound here.
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
	simSecs := (last.tMS - last.droppedMS) / 1000
	ups := float64(last.tick) / simSecs
	fps := float64(len(rows)-1) / secs // frame 1 starts the clock
	intervals := make([]float64, 0, len(rows))
	for _, r := range rows[1:] {
		intervals = append(intervals, r.frameMS)
	}
	slices.Sort(intervals)
	median := intervals[len(intervals)/2]
	t.Logf("%d frames, %d ticks in %.3f s (%.3f s dropped): %.2f UPS of simulated time, %.2f FPS, median frame %.2f ms",
		len(rows), last.tick, secs, secs-simSecs, ups, fps, median)
	if math.Abs(ups-30) > 1 {
		t.Errorf("%.2f ticks per second of simulated time, want 30", ups)
	}
	if fps > 30.5 {
		t.Errorf("%.2f frames per second, want at most 30 (the cap)", fps)
	}
	if median < 1000.0/30-2 {
		t.Errorf("median frame interval %.2f ms, want no shorter than %.2f (the cap)", median, 1000.0/30)
	}
}
