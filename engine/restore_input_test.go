package engine

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/input"

	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
)

// inputGame is a game whose state depends on every kind of input at every
// tick: presses and releases of Space (two presses in one tick, so that
// one waits in the queue across the tick boundary), ArrowUp held, and the
// cursor. Its input is recorded: a script keyed by tick, stamped with each
// tick's due time on whatever clock runs the engine. It keeps every tick's
// hash.
type inputGame struct {
	*Engine
	hashes map[uint64]uint64
}

func newInputGame(t *testing.T) *inputGame {
	t.Helper()
	g := &inputGame{Engine: newEngine(t), hashes: map[uint64]uint64{}}
	cube := g.World.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	g.AddSystem(StageScripts, "move", func(c *FixedContext) {
		tr := c.World.Transform(cube)
		if c.Input.JustPressed(input.KeySpace) {
			tr.Pos[0]++
		}
		if c.Input.JustReleased(input.KeySpace) {
			tr.Pos[0] += 0.25
		}
		if c.Input.Down(input.KeyArrowUp) {
			tr.Pos[1] += 0.5
		}
		x, _ := c.Input.Cursor()
		tr.Pos[2] = float32(x)
		c.World.SetTransform(cube, tr)
		g.hashes[c.Tick] = c.World.Hash()
	})
	g.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		push := func(kind input.EventKind, k input.Key) { in.Push(input.Event{Time: due, Kind: kind, Key: k}) }
		switch tick % 10 {
		case 1: // a tap and a second press: the second waits for tick+1
			push(input.KeyDown, input.KeySpace)
			push(input.KeyUp, input.KeySpace)
			push(input.KeyDown, input.KeySpace)
		case 2:
			push(input.KeyUp, input.KeySpace)
		}
		switch tick % 25 {
		case 5:
			push(input.KeyDown, input.KeyArrowUp)
		case 15:
			push(input.KeyUp, input.KeyArrowUp)
		}
		if tick%7 == 3 {
			in.Push(input.Event{Time: due, Kind: input.CursorMove, X: float64(tick), Y: 1})
		}
	})
	return g
}

// startAt makes g's clock start at start: a first frame there (which only
// starts the loop's clock), when start is not 0.
func (g *inputGame) startAt(start time.Duration) {
	if start != 0 {
		g.Frame(start)
	}
}

func (g *inputGame) runTo(t *testing.T, tick uint64) {
	t.Helper()
	if _, err := runHeadless(t, g.Engine, HeadlessConfig{DisplayHz: 144, Ticks: tick}); err != nil {
		t.Fatal(err)
	}
}

// A snapshot restored into a new engine (its clock starting at 0) or into
// one whose clock is far ahead, from a run whose clock started at 0 or far
// ahead, and run on with the recorded input, gives the original run's hash
// at every tick: the snapshot carries no clock time, and the event queued
// at the snapshot (the second press of a tick, and the event behind it) is
// seen by the next tick,
// as in the original run. A version 4 snapshot, with the saving run's
// clock times, restores the same way. LoadState in the saving engine
// (rollback) goes back and on with the same hashes.
func TestRestoredSnapshotReplaysInput(t *testing.T) {
	const snapAt, total = 101, 200
	far := 9 * time.Hour
	for _, from := range []time.Duration{0, far} {
		src := newInputGame(t)
		src.startAt(from)
		src.runTo(t, snapAt)
		if src.Input.Pending() != 2 {
			t.Fatalf("from %v: %d input events queued at the snapshot, the test wants 2 (the second press, the cursor move behind it)", from, src.Input.Pending())
		}
		snaps := map[string][]byte{"v6": src.Snapshot(), "v5": snapshotOld(src.Engine, 5), "v4": snapshotV4(src.Engine)}
		var saved State
		src.SaveState(&saved)
		src.runTo(t, total)
		want := src.hashes

		for _, into := range []time.Duration{0, far} {
			for version, snap := range snaps {
				name := fmt.Sprintf("from clock %v into clock %v, %s", from, into, version)
				dst := newInputGame(t)
				dst.startAt(into)
				dst.runTo(t, 20) // its own input too: the latest event is at its clock's time
				if err := dst.Restore(snap); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				clear(dst.hashes)
				dst.runTo(t, total)
				for tick := uint64(snapAt + 1); tick <= total; tick++ {
					if dst.hashes[tick] != want[tick] {
						t.Errorf("%s: tick %d hash %016x, the original run's %016x", name, tick, dst.hashes[tick], want[tick])
						break
					}
				}
			}
		}

		// Rollback: back to the saved state in the same engine, whose
		// clock has gone on, and forward again.
		orig := make(map[uint64]uint64, len(want))
		for k, v := range want {
			orig[k] = v
		}
		src.LoadState(&saved)
		clear(src.hashes)
		src.runTo(t, total)
		for tick := uint64(snapAt + 1); tick <= total; tick++ {
			if src.hashes[tick] != orig[tick] {
				t.Errorf("from %v, LoadState: tick %d hash %016x, the first time %016x", from, tick, src.hashes[tick], orig[tick])
				break
			}
		}
	}
}

// A restored queued event is due at once, and an event pushed after the
// restore keeps its time, even one far earlier than any time of the
// saving run.
func TestRestoredInputQueue(t *testing.T) {
	src := newEngine(t)
	src.Input.Push(input.Event{Time: time.Hour, Kind: input.KeyDown, Key: input.KeyA})
	src.Input.Push(input.Event{Time: time.Hour, Kind: input.KeyUp, Key: input.KeyA})
	src.Input.Push(input.Event{Time: time.Hour, Kind: input.KeyDown, Key: input.KeyA})
	for version, snap := range map[string][]byte{"v6": src.Snapshot(), "v5": snapshotOld(src, 5), "v4": snapshotV4(src)} {
		dst := newEngine(t)
		if err := dst.Restore(snap); err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		dst.Input.Push(input.Event{Time: 5 * time.Millisecond, Kind: input.KeyDown, Key: input.KeyB})
		s1 := dst.Input.Advance(0)
		s2 := dst.Input.Advance(10 * time.Millisecond)
		if !s1.JustPressed(input.KeyA) || !s1.JustReleased(input.KeyA) || s1.Down(input.KeyB) ||
			!s2.JustPressed(input.KeyA) || !s2.JustPressed(input.KeyB) || dst.Input.Pending() != 0 {
			t.Errorf("%s: the restored tap and press, then B at 5 ms: ticks at 0 and 10 ms saw pressed A %v %v, released A %v, pressed B %v %v, %d pending; want the tap, then A and B",
				version, s1.JustPressed(input.KeyA), s2.JustPressed(input.KeyA), s1.JustReleased(input.KeyA), s1.JustPressed(input.KeyB), s2.JustPressed(input.KeyB), dst.Input.Pending())
		}
	}
}

// Version 4 snapshots (the input's clock times included) are read: what
// they restore is what the version 5 snapshot of the same state restores.
func TestRestoreReadsVersion4(t *testing.T) {
	e := snapScene(t, JobsDeterministic)
	stepN(t, e, 37, nil)
	waitJobs(e)
	e.Input.Push(input.Event{Time: time.Hour, Kind: input.CursorMove, X: 3, Y: 4})
	v5 := e.Snapshot()
	a, b := snapScene(t, JobsDeterministic), snapScene(t, JobsDeterministic)
	if err := a.Restore(snapshotV4(e)); err != nil {
		t.Fatal(err)
	}
	if err := b.Restore(v5); err != nil {
		t.Fatal(err)
	}
	waitJobs(a)
	waitJobs(b)
	if sa, sb := a.Snapshot(), b.Snapshot(); string(sa) != string(sb) || string(sa) != string(v5) {
		t.Error("a version 4 snapshot restores to another state than the version 5 snapshot of the same state")
	}
}

// snapshotV4 returns e's snapshot in format version 4, which held the
// clock time of the latest input event (and whether there was one) before
// the queue, and each queued event's time before its kind, and, like
// version 5, input.KeyMouseWords words per input and no gamepad fields in
// the queued events.
func snapshotV4(e *Engine) []byte { return snapshotOld(e, 4) }

// snapshotOld returns e's snapshot in format version 4 or 5.
func snapshotOld(e *Engine, version uint16) []byte {
	snap := e.Snapshot()
	in := e.Input.AppendState(nil)
	jobs := e.Jobs.appendState(nil)
	players := e.World.players.appendState(nil)
	head := snap[:len(snap)-len(in)-len(jobs)-len(players)]
	b := append([]byte(nil), head...)
	binary.LittleEndian.PutUint16(b[len(snapshotMagic):], version)
	// The players: each input cut to its first KeyMouseWords words.
	b = append(b, players[:2]...)
	const rec = 2 + 8*input.SampleWords
	for i := range int(binary.LittleEndian.Uint16(players)) {
		b = append(b, players[2+rec*i:2+rec*i+2+8*input.KeyMouseWords]...)
	}
	// The input: the sample's first words, keys and buttons pushed.
	b = append(b, in[:8*input.KeyMouseWords]...)
	pushed := in[8*input.SampleWords : 8*input.SampleWords+8*keyWords+1]
	b = append(b, pushed...)
	if version == 4 {
		// Version 4's clock times are read and dropped: any value does.
		b = binary.LittleEndian.AppendUint64(b, 12345)
		b = append(b, 1)
	}
	queue := in[8*input.SampleWords+len(pushed):]
	n := binary.LittleEndian.Uint32(queue)
	b = append(b, queue[:4]...)
	for i := range int(n) {
		if version == 4 {
			b = binary.LittleEndian.AppendUint64(b, uint64(1000+i))
		}
		ev := queue[4+22*i : 4+22*(i+1)]
		b = append(b, ev[:3]...) // kind, key, button
		b = append(b, ev[6:]...) // x, y
	}
	return append(b, jobs...)
}
