package engine

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/input"

	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
)

// snapScene is a scene that uses every part of the state a snapshot holds:
// bodies moving and spinning, spawns and despawns (the free list and the
// generations), teleports, colours from the RNG, input held and pressed,
// and jobs with latencies of 1 to 40 ticks.
func snapScene(t testing.TB, mode JobMode) *Engine {
	t.Helper()
	e, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	e.Jobs.SetMode(mode)
	w := e.World
	for i := range 64 {
		id := w.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0, 0}), DrawMode(i%3))
		w.SetDrawVelocity(id, mgl32.Vec3{w.RNG().Range(-1, 1), 1, 0}, mgl32.Vec3{0, 1, 0})
	}
	kind := e.Jobs.Register("nudge", func(in []byte, live bool) []byte {
		r := NewRNG(binary.LittleEndian.Uint64(in))
		if live {
			time.Sleep(time.Millisecond)
		}
		return binary.LittleEndian.AppendUint32(nil, r.Uint32())
	}, func(c *FixedContext, in, out []byte) {
		v := binary.LittleEndian.Uint32(out)
		if id, ok := c.World.EntityAt(int(v % uint32(c.World.Slots()))); ok {
			c.World.SetDrawVelocity(id, mgl32.Vec3{float32(v%7) - 3, 0, 1}, mgl32.Vec3{})
		}
	})
	e.AddSystem(StageScripts, "move", func(c *FixedContext) {
		b := c.World.Bodies()
		for i := range c.World.Slots() {
			if !c.World.SlotAlive(i) {
				continue
			}
			for a := range 3 {
				b.Pos[i][a] = float32(b.Vel[i][a]*c.DT) + b.Pos[i][a]
			}
		}
		if c.Input.Down(input.KeyArrowUp) {
			b.Pos[0][1] += 0.5
		}
	})
	e.AddSystem(StageScripts, "life", func(c *FixedContext) {
		w, r := c.World, c.World.RNG()
		if c.Tick%7 == 0 {
			if id, ok := w.EntityAt(r.Intn(w.Slots())); ok {
				w.Despawn(id)
			}
		}
		if c.Tick%5 == 0 {
			id := w.Spawn(geom.NewTransform(mgl32.Vec3{r.Range(-3, 3), 0, 0}), Hermite)
			w.SetColor(id, [4]uint8{uint8(r.Intn(256)), 0, 0, 255})
		}
		if c.Tick%11 == 0 {
			if id, ok := w.EntityAt(0); ok {
				w.Teleport(id, geom.NewTransform(mgl32.Vec3{0, r.Range(0, 1), 0}))
			}
		}
		if c.Tick%13 == 0 {
			in := binary.LittleEndian.AppendUint64(nil, r.Uint64())
			c.Jobs.Submit(kind, in, uint32(1+r.Intn(40)))
		}
	})
	e.SetInputScript(func(tick uint64, due time.Duration, in *input.Queue) {
		switch tick % 50 {
		case 3:
			in.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeyArrowUp})
		case 30:
			in.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeyArrowUp})
			in.Push(input.Event{Time: due, Kind: input.CursorMove, X: float64(tick), Y: 1})
		}
	})
	return e
}

func stepN(t testing.TB, e *Engine, n int, hashes map[uint64]uint64) {
	t.Helper()
	for range n {
		tick := e.World.Tick() + 1
		if !e.StepTick(time.Duration(tick) * time.Second / 60) {
			t.Fatal(e.Err())
		}
		if hashes != nil {
			hashes[tick] = e.World.Hash()
		}
	}
}

// Snapshot, run on, restore, run on: every hash after the restore is the
// uninterrupted run's, for several restore points, including ones with
// jobs in flight (due later than the restore point) and one taken before
// the first tick.
func TestSnapshotRestoreContinue(t *testing.T) {
	const total = 400
	want := map[uint64]uint64{}
	stepN(t, snapScene(t, JobsDeterministic), total, want)

	for _, k := range []int{0, 1, 13, 14, 100, 247, 399} {
		e := snapScene(t, JobsDeterministic)
		stepN(t, e, k, nil)
		inFlight := e.Jobs.Pending()
		snap := e.Snapshot()
		stepN(t, e, 57, nil) // wander off
		if err := e.Restore(snap); err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		if e.World.Tick() != uint64(k) || e.Jobs.Pending() != inFlight {
			t.Fatalf("k=%d: restored to tick %d with %d jobs, want %d and %d", k, e.World.Tick(), e.Jobs.Pending(), k, inFlight)
		}
		got := map[uint64]uint64{}
		stepN(t, e, total-k, got)
		for tick := uint64(k + 1); tick <= total; tick++ {
			if got[tick] != want[tick] {
				t.Fatalf("k=%d (%d jobs in flight): tick %d hash %016x, uninterrupted %016x", k, inFlight, tick, got[tick], want[tick])
			}
		}
		if k == 14 && inFlight == 0 {
			t.Errorf("restore point 14 has no job in flight; the test wants one")
		}
		// A snapshot restored into a fresh engine continues the same way.
		f := snapScene(t, JobsDeterministic)
		if err := f.Restore(snap); err != nil {
			t.Fatal(err)
		}
		stepN(t, f, total-k, nil)
		if f.World.Hash() != want[total] {
			t.Errorf("k=%d: a fresh engine restored and run on ends with %016x, want %016x", k, f.World.Hash(), want[total])
		}
	}
}

// Snapshot bytes round-trip exactly, and a bad snapshot is refused with
// the field and offset, leaving the engine unchanged.
func TestRestoreRefusesBadSnapshots(t *testing.T) {
	e := snapScene(t, JobsDeterministic)
	stepN(t, e, 30, nil)
	waitJobs(e) // a job that finishes between two snapshots adds its result to the second
	snap := e.Snapshot()
	before := e.World.Hash()
	if err := e.Restore(snap); err != nil {
		t.Fatal(err)
	}
	waitJobs(e)
	if again := e.Snapshot(); string(again) != string(snap) {
		t.Error("Snapshot after Restore differs from the restored snapshot")
	}
	newer := append([]byte{}, snap...)
	newer[8] = SnapshotVersion + 1
	for name, bad := range map[string][]byte{
		"truncated":     snap[:len(snap)-3],
		"empty":         nil,
		"wrong magic":   append([]byte("XXXXXXXX"), snap[8:]...),
		"newer version": newer,
		"trailing":      append(append([]byte{}, snap...), 0),
	} {
		var se *SnapshotError
		if err := e.Restore(bad); !errors.As(err, &se) {
			t.Errorf("%s: %v, want a *SnapshotError", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if e.World.Hash() != before {
		t.Error("a refused snapshot changed the world")
	}
}

// FuzzRestore: arbitrary bytes never make Restore panic, in an engine with
// components (packed, padded with a bool field, variable-size) and
// resources (padded, variable-size). When Restore accepts a snapshot, its
// component and resource sections are canonical (the values they decode
// to encode to the same bytes), and the engine's own snapshot then
// restores to the same bytes and hash. The seeds are snapshots of
// fuzzScene at a few ticks (jobs in flight, entities dead and alive,
// components present and absent, a teleport), and one of an engine with
// another schema.
func FuzzRestore(f *testing.F) {
	g := fuzzScene(f)
	for _, k := range []int{0, 7, 12, 30} {
		stepN(f, g.Engine, k-int(g.World.Tick()), nil)
		snap := g.Snapshot()
		if err := fuzzScene(f).Restore(snap); err != nil {
			f.Fatalf("seed at tick %d: %v", k, err)
		}
		f.Add(snap)
	}
	other := newEngine(f)
	other.World.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	NewComponent[int32](other.World, "health")
	if fuzzScene(f).Restore(other.Snapshot()) == nil {
		f.Fatal("a snapshot of another schema restored")
	}
	f.Add(other.Snapshot())
	f.Fuzz(func(t *testing.T, data []byte) {
		g := fuzzScene(t)
		if g.Restore(data) != nil {
			return
		}
		w := g.World
		n, nf := w.Slots(), len(w.free)
		at := len(snapshotMagic) + 2 + 4 + len(AppendSchema(nil, w.schema)) +
			8 + 16 + 4 + 4 + 4*n + 4 + 4*nf + (snapshotSlotBytes-4)*n
		var cols []byte
		for _, c := range w.cols {
			cols = c.appendSnapshot(cols)
		}
		if len(data) < at+len(cols) || !bytes.Equal(data[at:at+len(cols)], cols) {
			t.Fatalf("the component and resource sections at byte %d restored to values that encode differently", at)
		}
		waitJobs(g.Engine) // a job's result is in the snapshot once it has run
		snap, hash := g.Snapshot(), w.Hash()
		if err := g.Restore(snap); err != nil {
			t.Fatalf("the snapshot of a restored engine: %v", err)
		}
		waitJobs(g.Engine)
		if again := g.Snapshot(); !bytes.Equal(again, snap) || w.Hash() != hash {
			t.Fatal("the snapshot of a restored engine does not round-trip")
		}
	})
}

// Live jobs land at a tick boundary whenever they are ready; with the race
// detector this checks the hand-over between the job goroutines and the
// loop.
func TestLiveJobsLandAtTicks(t *testing.T) {
	e := snapScene(t, JobsLive)
	applied := 0
	e.AddTickHook(&countHook{n: &applied})
	for range 600 {
		stepN(t, e, 1, nil)
		if e.World.Tick()%100 == 0 {
			time.Sleep(3 * time.Millisecond) // let some jobs finish
		}
	}
	// A loaded machine may not have run a job yet: tick on until one
	// lands, for up to 30 s.
	for deadline := time.Now().Add(30 * time.Second); applied == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		stepN(t, e, 1, nil)
	}
	if applied == 0 {
		t.Errorf("no live job result was applied in %d ticks and 30 s", e.World.Tick())
	}
}

type countHook struct{ n *int }

func (h *countHook) PreTick()                         {}
func (h *countHook) BeginTick(*TickInfo)              {}
func (h *countHook) JobApplied(uint64, JobID, []byte) { *h.n++ }
func (h *countHook) EndTick(uint64, *World)           {}

// A panic in a system is recovered at the loop with the tick, the phase,
// the system's name and the stack; the engine runs nothing more.
func TestPanicIsRecoveredAtTheLoop(t *testing.T) {
	e := snapScene(t, JobsDeterministic)
	e.AddSystem(StageScripts, "bomb", func(c *FixedContext) {
		if c.Tick == 42 {
			panic(errors.New("bang"))
		}
	})
	_, err := RunHeadless(e, HeadlessConfig{DisplayHz: 144, Ticks: 100})
	var p *PanicError
	if !errors.As(err, &p) {
		t.Fatalf("err %v, want a *PanicError", err)
	}
	if p.Tick != 42 || p.System != "bomb" || p.Phase != PhaseFixed || len(p.Stack) == 0 || p.Unwrap().Error() != "bang" {
		t.Errorf("panic %+v", p)
	}
	if e.Frame(time.Hour) != 0 || e.StepTick(0) || e.World.Tick() != 42 {
		t.Error("the engine ran on after the panic")
	}
}

// waitJobs waits until every job in flight has run.
func waitJobs(e *Engine) {
	for _, jb := range e.Jobs.pending {
		<-jb.done
	}
}
