package replay

import (
	"bytes"
	"time"

	"github.com/nebulaengine/nebula/engine/input"
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
	if Version != 4 {
		t.Skipf("this build writes version %d; check out a build that writes version 4", Version)
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

// padScript connects a gamepad, moves its left stick and presses A, on
// top of script's keys.
func padScript(tick uint64, due time.Duration, in *input.Queue) {
	script(tick, due, in)
	switch tick % 50 {
	case 1:
		in.Push(input.Event{Time: due, Kind: input.PadConnected, Pad: 1})
	case 5:
		in.Push(input.Event{Time: due, Kind: input.PadAxisMove, Pad: 1, Axis: input.PadLeftX, X: float64(tick%7) / 7})
	case 9:
		in.Push(input.Event{Time: due, Kind: input.PadButtonDown, Pad: 1, PadButton: input.PadA})
	case 12:
		in.Push(input.Event{Time: due, Kind: input.PadButtonUp, Pad: 1, PadButton: input.PadA})
	case 30:
		in.Push(input.Event{Time: due, Kind: input.PadDisconnected, Pad: 1})
	}
}

// A run with a gamepad and actions records and replays exactly: every
// tick of the replay sees the same words (gamepad state, action states
// and values included) as the recorded run, and the replaying engine's
// own bindings (here none) play no part.
func TestRecordAndVerifyGamepadActions(t *testing.T) {
	const (
		jump input.Action = iota
		moveX
	)
	acts, err := input.NewActions("jump", "move-x")
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(acts.Bind(jump, input.PadButtonBinding(input.PadA)))
	must(acts.Bind(jump, input.KeyBinding(input.KeySpace)))
	must(acts.Bind(moveX, input.PadAxisBinding(input.PadLeftX)))
	must(acts.Bind(moveX, input.KeyBinding(input.KeyArrowLeft).WithScale(-1)))

	s := newTestScene(t, 7, 50, engine.JobsDeterministic)
	recorded := watch(s)
	var jumps, moved int
	s.e.AddSystem(engine.StageScripts, "actions", func(c *engine.FixedContext) {
		if c.Input.ActionPressed(jump) {
			jumps++
		}
		if c.Input.ActionValue(moveX) != 0 {
			moved++
		}
	})
	s.e.Input.SetActions(acts)
	s.e.SetInputScript(padScript)
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, testHeader(7, 50))
	must(err)
	if _, err := s.e.AddTickHook(rec); err != nil {
		t.Fatal(err)
	}
	_, err = engine.RunHeadless(s.e, engine.HeadlessConfig{DisplayHz: 144, Ticks: 300})
	must(err)
	must(rec.Close(s.e.World.Hash()))
	if jumps != 9 || moved == 0 {
		t.Errorf("the run saw %d jumps and %d ticks of move-x; want 9 (A at ticks 9, 59, ..., Space at 77, 177, 277) and some", jumps, moved)
	}

	r, err := Open(buf.Bytes())
	must(err)
	if r.Header.Version != Version {
		t.Errorf("version %d, want %d", r.Header.Version, Version)
	}
	p := newTestScene(t, 7, 50, engine.JobsDeterministic)
	replayed := watch(p)
	if _, err := Verify(p.e, r); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(*replayed, *recorded) {
		for i := range min(len(*recorded), len(*replayed)) {
			if (*recorded)[i] != (*replayed)[i] {
				t.Fatalf("tick %d differs:\nrecorded %s\nreplayed %s", i+1, (*recorded)[i], (*replayed)[i])
			}
		}
		t.Fatalf("%d ticks replayed, %d recorded", len(*replayed), len(*recorded))
	}
}
