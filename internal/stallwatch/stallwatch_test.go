package stallwatch

import (
	"testing"
	"time"
)

func TestTicks(t *testing.T) {
	w := &Watch{gaps: []time.Duration{200 * time.Millisecond, 600 * time.Millisecond, 2 * time.Second}}
	// Slack 500 ms: the 200 ms gap costs nothing; 600 ms costs
	// (600+250)*60/1000 + 1 = 52; 2 s costs (2000+250)*60/1000 + 1 = 136.
	if got := w.Ticks(500*time.Millisecond, 60); got != 52+136 {
		t.Errorf("Ticks = %d, want %d", got, 52+136)
	}
	if got := w.String(); got != "stalls of 200ms, 600ms, 2s" {
		t.Errorf("String = %q", got)
	}
	if got := (&Watch{}).String(); got != "no stall over 100ms" {
		t.Errorf("String of no gaps = %q", got)
	}
}

// A stop of the process is seen: a goroutine that cannot run while the
// watcher's ticker is starved is not something a test can arrange, but
// Stop must end the watch, return at once a second time, and leave the
// gaps readable.
func TestStartStop(t *testing.T) {
	w := Start(t)
	if w.Stop() != w {
		t.Fatal("Stop does not return its watch")
	}
	if again := w.Stop(); again != w {
		t.Fatal("a second Stop does not return its watch")
	}
	for _, g := range w.Gaps() {
		if g <= MinGap {
			t.Errorf("recorded a gap of %v, not over %v", g, MinGap)
		}
	}
}
