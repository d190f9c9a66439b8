package scene

import (
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
)

// snapshots returns the snapshots script gives for ticks 1..n.
func snapshots(script func(uint64, time.Duration, *input.Queue), n int) []input.Sample {
	in := &input.Queue{}
	out := make([]input.Sample, n)
	for i := range out {
		tick := uint64(i + 1)
		due := time.Duration(tick) * time.Second / 60
		script(tick, due, in)
		out[i] = in.Advance(due)
	}
	return out
}

// Player 0's script is Script; every other player's differs from it and
// from each other's within one period, and is the same every time it runs.
func TestPlayerScript(t *testing.T) {
	const n = 2 * ScriptPeriod
	base := snapshots(Script, n)
	if got := snapshots(PlayerScript(0), n); !equalSnapshots(got, base) {
		t.Fatal("player 0's script differs from Script")
	}
	seen := [][]input.Sample{base}
	for p := engine.PlayerID(1); p < 8; p++ {
		got := snapshots(PlayerScript(p), n)
		if again := snapshots(PlayerScript(p), n); !equalSnapshots(got, again) {
			t.Fatalf("player %d's script gave two different runs", p)
		}
		for q, other := range seen {
			if equalSnapshots(got, other) {
				t.Errorf("players %d and %d have the same script", p, q)
			}
		}
		seen = append(seen, got)
	}
}

func equalSnapshots(a, b []input.Sample) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
