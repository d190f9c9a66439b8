package app

import (
	"io"
	"testing"
)

// Game.Params naming no flag is the game's mistake: Main panics at once,
// saying which.
func TestParamsNameFlags(t *testing.T) {
	defer func() {
		if r := recover(); r != `app: Game.Params names "level", which no flag defines` {
			t.Errorf("recovered %v", r)
		}
	}()
	Main("g", nil, io.Discard, io.Discard, Game{Params: []string{"level"}, Run: func(*Process) error { return nil }})
	t.Error("Main returned")
}
