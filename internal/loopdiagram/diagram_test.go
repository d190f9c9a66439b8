package loopdiagram

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite "+committed)

const committed = "../../docs/loop-timing.svg"

// The committed diagram is what the loop does today: regenerate it with
// go test ./internal/loopdiagram -update.
func TestCommittedDiagramIsCurrent(t *testing.T) {
	got := SVG()
	if *update {
		if err := os.WriteFile(committed, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatalf("%v (go test ./internal/loopdiagram -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: the loop's behaviour or the drawing changed; run go test ./internal/loopdiagram -update and commit it", committed)
	}
}

// The story the diagram tells: a 40 ms frame runs several ticks, the
// stall is clamped and capped, and every alpha is in [0, 1).
func TestDiagramStory(t *testing.T) {
	frames := run()
	var multi, clamped, capped int
	for _, f := range frames {
		if len(f.ticks) > 1 {
			multi++
		}
		if f.clamped > 0 {
			clamped++
		}
		if f.capped > 0 {
			capped++
			if len(f.ticks) != 5 {
				t.Errorf("the capped frame ran %d ticks, want 5", len(f.ticks))
			}
		}
		if f.alpha < 0 || f.alpha >= 1 {
			t.Errorf("alpha %v", f.alpha)
		}
	}
	if multi < 2 || clamped != 1 || capped != 1 {
		t.Errorf("%d frames with several ticks, %d clamped, %d capped; want at least 2, 1, 1", multi, clamped, capped)
	}
}
