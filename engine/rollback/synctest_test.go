package rollback_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/rollback"
)

// syncGame is a small game for the sync test: bodies that move by their
// velocity, a score that folds in every player's input and a draw of the
// RNG each tick, and players who join and leave. leakFrom, when not 0,
// makes a system read a counter outside the world from that tick on: the
// kind of mistake a sync test exists to catch.
type syncGame struct {
	e        *engine.Engine
	score    *engine.Resource[uint64]
	leakFrom uint64
	calls    uint64 // outside the world: what the leaky system reads
}

func newSyncGame(t testing.TB, leakFrom uint64) *syncGame {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	g := &syncGame{e: e, leakFrom: leakFrom, score: engine.NewResource(e.World, "score", uint64(0))}
	w := e.World
	for i := range 20 {
		b := w.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0, 0}), engine.Hermite)
		w.SetDrawVelocity(b, mgl32.Vec3{1, float32(i % 3), 0}, mgl32.Vec3{})
	}
	e.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		switch tick % 30 {
		case 0:
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeyArrowRight})
		case 15:
			in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeyArrowRight})
		}
	})
	e.AddSystem(engine.StageScripts, "score", func(c *engine.FixedContext) {
		s := g.score.Ptr()
		for i := range c.Players.Len() {
			id, in := c.Players.At(i)
			var words [input.SampleWords]uint64
			in.Words(&words)
			for _, v := range words {
				*s = *s*31 + v + uint64(id)
			}
		}
		*s += uint64(c.World.RNG().Uint32())
		if g.leakFrom != 0 && c.Tick >= g.leakFrom {
			g.calls++
			*s += g.calls
		}
	})
	return g
}

// plainRun runs a syncGame to tick n without a sync test and returns its
// hash.
func plainRun(t *testing.T, n uint64) uint64 {
	t.Helper()
	g := newSyncGame(t, 0)
	for g.e.World.Tick() < n {
		if !g.e.StepTick(time.Duration(g.e.World.Tick()+1) * time.Second / 60) {
			t.Fatal(g.e.Err())
		}
	}
	return g.e.World.Hash()
}

// countHook counts the ticks it sees.
type countHook struct{ begins, ends int }

func (h *countHook) PreTick()                                {}
func (h *countHook) BeginTick(*engine.TickInfo)              { h.begins++ }
func (h *countHook) JobApplied(uint64, engine.JobID, []byte) {}
func (h *countHook) EndTick(uint64, *engine.World)           { h.ends++ }

// A deterministic game passes, ends in the state a plain run reaches,
// and its tick hook (a recorder, say) sees every tick once.
func TestSyncTestPassesADeterministicGame(t *testing.T) {
	want := plainRun(t, 300)
	g := newSyncGame(t, 0)
	h := &countHook{}
	if _, err := g.e.AddTickHook(h); err != nil {
		t.Fatal(err)
	}
	if err := rollback.SyncTest(g.e, rollback.SyncTestConfig{Ticks: 300, Depth: 8}); err != nil {
		t.Fatal(err)
	}
	if got := g.e.World.Tick(); got != 300 {
		t.Fatalf("the sync test ended at tick %d, want 300", got)
	}
	if got := g.e.World.Hash(); got != want {
		t.Errorf("hash %016x after the sync test, %016x after a plain run", got, want)
	}
	if h.begins != 300 || h.ends != 300 {
		t.Errorf("the hook saw %d BeginTicks and %d EndTicks, want 300 of each", h.begins, h.ends)
	}
	if hooks := g.e.TickHooks(); len(hooks) != 1 || hooks[0] != engine.TickHook(h) {
		t.Errorf("the sync test left the tick hooks %v, want only the game's", hooks)
	}
}

// A system that reads something outside the state is caught at the first
// tick it does so, with the value that differs named.
func TestSyncTestCatchesASystemThatReadsOutsideTheState(t *testing.T) {
	for _, depth := range []int{1, 8} {
		g := newSyncGame(t, 100)
		err := rollback.SyncTest(g.e, rollback.SyncTestConfig{Ticks: 300, Depth: depth})
		var se *rollback.SyncTestError
		if !errors.As(err, &se) {
			t.Fatalf("depth %d: SyncTest returned %v, want a *SyncTestError", depth, err)
		}
		if se.Tick != 100 || se.From != 100-uint64(depth) {
			t.Errorf("depth %d: caught at tick %d re-simulated from %d, want 100 from %d", depth, se.Tick, se.From, 100-depth)
		}
		if se.First == se.Again {
			t.Errorf("depth %d: both hashes are %016x", depth, se.First)
		}
		if len(se.Diff) == 0 || !strings.Contains(strings.Join(se.Diff, "\n"), `resource "score"`) {
			t.Errorf("depth %d: the difference %q does not name the score", depth, se.Diff)
		}
		if !strings.Contains(err.Error(), "tick 100") {
			t.Errorf("depth %d: the message %q does not name the tick", depth, err)
		}
	}
}

func TestSyncTestRefusesABadDepth(t *testing.T) {
	for _, depth := range []int{0, -1, rollback.MaxSyncTestDepth + 1} {
		g := newSyncGame(t, 0)
		err := rollback.SyncTest(g.e, rollback.SyncTestConfig{Ticks: 10, Depth: depth})
		if err == nil || !strings.Contains(err.Error(), "depth") {
			t.Errorf("depth %d: %v, want an error about the depth", depth, err)
		}
		if g.e.World.Tick() != 0 {
			t.Errorf("depth %d: ran to tick %d", depth, g.e.World.Tick())
		}
	}
}

// A sync test started from a later tick re-simulates from that tick while
// it has fewer than Depth ticks behind it, so a mistake in its first
// ticks is caught too.
func TestSyncTestFromALaterTick(t *testing.T) {
	g := newSyncGame(t, 52)
	for g.e.World.Tick() < 50 {
		if !g.e.StepTick(engine.TickTime(g.e.World.Tick()+1, 60)) {
			t.Fatal(g.e.Err())
		}
	}
	err := rollback.SyncTest(g.e, rollback.SyncTestConfig{Ticks: 100, Depth: 8})
	var se *rollback.SyncTestError
	if !errors.As(err, &se) || se.Tick != 52 || se.From != 50 {
		t.Fatalf("SyncTest from tick 50 = %v, want tick 52 re-simulated from 50", err)
	}
}

func TestTickTime(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		rate int
		want time.Duration
	}{
		{0, 60, 0},
		{1, 60, 16_666_666},
		{3600, 60, time.Minute},
		{7, 144, 48_611_111},
		// Exact where n*time.Second would overflow int64: 2^40 =
		// 7,635,497,415 × 144 + 16.
		{1 << 40, 144, 7_635_497_415*time.Second + 111_111_111},
	} {
		if got := engine.TickTime(tc.n, tc.rate); got != tc.want {
			t.Errorf("TickTime(%d, %d) = %v, want %v", tc.n, tc.rate, got, tc.want)
		}
	}
}
