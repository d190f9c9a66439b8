package replay

import (
	"os"
	"slices"
	"testing"

	"github.com/nebulaengine/nebula/engine"
)

// testdata/match-v4.nebreplay is the four-player match of recordMatch as
// format version 4 wrote it (before gamepads and actions): 600 ticks,
// every player's input, joins and leaves. Set NEBULA_WRITE_V4=1 on a
// build that writes version 4 to write it again.
const v4Match = "testdata/match-v4.nebreplay"

func TestWriteV4Match(t *testing.T) {
	if os.Getenv("NEBULA_WRITE_V4") == "" {
		t.Skip("set NEBULA_WRITE_V4=1 to rewrite " + v4Match)
	}
	data, _, _ := recordMatch(t)
	if err := os.WriteFile(v4Match, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A version 4 recording still opens and replays with the same hashes and
// the same inputs, its samples read with zero gamepad and action words.
func TestV4RecordingReplays(t *testing.T) {
	data, err := os.ReadFile(v4Match)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Version != 4 {
		t.Errorf("version %d, want 4", r.Header.Version)
	}
	_, hash, recorded := recordMatch(t)
	s := newTestScene(t, 7, 50, engine.JobsDeterministic)
	replayed := watch(s)
	res, err := Verify(s.e, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ticks != 600 || res.Hashes != 11 || s.e.World.Hash() != hash || r.End.Hash != hash {
		t.Errorf("verified %d ticks, %d hashes, hash %016x, stored %016x; want 600, 11, %016x", res.Ticks, res.Hashes, s.e.World.Hash(), r.End.Hash, hash)
	}
	if !slices.Equal(*replayed, recorded) {
		t.Errorf("the v4 recording's ticks saw other players or inputs than a new recording's")
	}
}
