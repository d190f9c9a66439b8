package engine

import (
	"bytes"
	"os"
	"testing"

	"github.com/nebulaengine/nebula/engine/input"
)

// testdata/players-v5.nebsnap is playersGame's snapshot at tick 22 as
// format version 5 wrote it (before gamepads and actions), with a key
// held, a cursor move and a key press still queued. Set
// NEBULA_WRITE_V5=1 on a build that writes version 5 to write it again.
const v5Players = "testdata/players-v5.nebsnap"

func v5State(t *testing.T) *Engine {
	e := playersGame(t)
	e.Input.Push(input.Event{Kind: input.KeyDown, Key: input.KeyArrowLeft})
	stepN(t, e, 22, nil)
	e.Input.Push(input.Event{Kind: input.CursorMove, X: 3, Y: 4})
	e.Input.Push(input.Event{Kind: input.KeyDown, Key: input.KeySpace})
	return e
}

func TestWriteV5Snapshot(t *testing.T) {
	if os.Getenv("NEBULA_WRITE_V5") == "" {
		t.Skip("set NEBULA_WRITE_V5=1 to rewrite " + v5Players)
	}
	if SnapshotVersion != 5 {
		t.Skipf("this build writes version %d; check out a build that writes version 5", SnapshotVersion)
	}
	if err := os.WriteFile(v5Players, v5State(t).Snapshot(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A version 5 snapshot still restores, to the state the current version's
// snapshot of the same run restores: the players' inputs and the queued
// input read with zero gamepad and action state, and the same hashes on.
func TestRestoreReadsVersion5(t *testing.T) {
	old, err := os.ReadFile(v5Players)
	if err != nil {
		t.Fatal(err)
	}
	a, b := playersGame(t), v5State(t)
	if err := a.Restore(old); err != nil {
		t.Fatal(err)
	}
	if sa, sb := a.Snapshot(), b.Snapshot(); !bytes.Equal(sa, sb) {
		t.Fatal("the version 5 snapshot restores to another state than the current snapshot of the same run")
	}
	ha, hb := map[uint64]uint64{}, map[uint64]uint64{}
	stepN(t, a, 10, ha)
	stepN(t, b, 10, hb)
	for tick, h := range hb {
		if ha[tick] != h {
			t.Errorf("tick %d: hash %016x after the version 5 snapshot, %016x without", tick, ha[tick], h)
		}
	}
	if !a.World.Players().Input(0).Down(input.KeyArrowLeft) {
		t.Error("player 0's held key was lost")
	}
}

// A version 6 snapshot (a hierarchy, inputs without gamepads and
// actions) restores to what the version 8 snapshot of the same state
// restores; a world without parents is written as version 7, with them
// as version 8.
func TestRestoreReadsVersion6(t *testing.T) {
	e := v5State(t)
	if v := e.Snapshot()[8]; v != 7 {
		t.Fatalf("a world without parents: version %d, want 7", v)
	}
	a, b := e.World.EntityAt(0)
	c, d := e.World.EntityAt(1)
	if !b || !d {
		t.Fatal("no entities 0 and 1")
	}
	if err := e.World.SetParent(c, a, KeepWorld); err != nil {
		t.Fatal(err)
	}
	v8 := e.Snapshot()
	if v8[8] != 8 {
		t.Fatalf("a world with a parent: version %d, want 8", v8[8])
	}
	x, y := playersGame(t), playersGame(t)
	if err := x.Restore(snapshotOld(e, 6)); err != nil {
		t.Fatal(err)
	}
	if err := y.Restore(v8); err != nil {
		t.Fatal(err)
	}
	if sx, sy := x.Snapshot(), y.Snapshot(); !bytes.Equal(sx, sy) || !bytes.Equal(sx, v8) {
		t.Error("a version 6 snapshot restores to another state than the version 8 snapshot of the same state")
	}
}
