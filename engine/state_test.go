package engine

import (
	"encoding/binary"
	"fmt"
	"github.com/nebulaengine/nebula/engine/geom"
	"math"
	"slices"

	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
)

// SaveState at tick k, run on to N (the waves of the scene grow the slot
// count after every k before 250), LoadState, run to N again: every hash
// after the load is the uninterrupted run's. Loading the same State a
// second time does it again, and so does a fresh engine loading it. One
// State serves every cut point, shrinking and growing.
func TestComponentsSaveLoadStateContinue(t *testing.T) {
	const total = 320
	want := map[uint64]uint64{}
	stepN(t, compScene(t).Engine, total, want)

	var st State
	for _, k := range []int{250, 0, 319, 37, 1, 149, 50} {
		g := compScene(t)
		stepN(t, g.Engine, k, nil)
		g.SaveState(&st)
		slots, hash, lens := g.World.Slots(), g.World.Hash(), g.lens()
		if st.Tick() != uint64(k) {
			t.Fatalf("k=%d: State.Tick() = %d", k, st.Tick())
		}
		stepN(t, g.Engine, total-k, nil)
		if g.World.Hash() != want[total] {
			t.Fatalf("k=%d: the run with a state saved differs from the reference run", k)
		}
		if k < 250 && g.World.Slots() <= slots {
			t.Fatalf("k=%d: the slot count did not grow after the save (%d, then %d); the test wants it to", k, slots, g.World.Slots())
		}
		tallyPtr := g.tally.Ptr()
		for round := range 2 {
			g.LoadState(&st)
			if g.World.Tick() != uint64(k) || g.World.Slots() != slots || g.World.Hash() != hash {
				t.Fatalf("k=%d round %d: loaded tick %d, %d slots, hash %016x; want %d, %d, %016x", k, round, g.World.Tick(), g.World.Slots(), g.World.Hash(), k, slots, hash)
			}
			if g.lens() != lens {
				t.Fatalf("k=%d round %d: loaded component Len %v, want %v", k, round, g.lens(), lens)
			}
			if tallyPtr != g.tally.Ptr() || *tallyPtr != g.tally.Get() {
				t.Fatalf("k=%d: a resource's Ptr does not see the loaded value", k)
			}
			got := map[uint64]uint64{}
			stepN(t, g.Engine, total-k, got)
			for tick := uint64(k + 1); tick <= total; tick++ {
				if got[tick] != want[tick] {
					t.Fatalf("k=%d round %d: tick %d hash %016x, uninterrupted %016x", k, round, tick, got[tick], want[tick])
				}
			}
		}

		f := compScene(t)
		stepN(t, f.Engine, 3, nil) // somewhere else first
		f.LoadState(&st)
		stepN(t, f.Engine, total-k, nil)
		if f.World.Hash() != want[total] {
			t.Errorf("k=%d: a fresh engine loading the state ends with %016x, want %016x", k, f.World.Hash(), want[total])
		}
	}
}

// plainGame is an engine whose components and resources are all plain
// data: packed, padded, padded with a bool.
func plainGame(t testing.TB) *Engine {
	e := newEngine(t)
	w := e.World
	hp := NewComponent[int32](w, "health")
	st := NewComponent[status](w, "status")
	pad := NewComponent[padStruct](w, "pad")
	NewResource(w, "tally", tally{Kills: 3, Total: 4})
	NewResource(w, "pos", mgl32.Vec3{1, 2, 3})
	for i := range 200 {
		ent := w.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0, 0}), Interpolate)
		if i%2 == 0 {
			hp.Set(ent, int32(i))
		}
		if i%3 == 0 {
			st.Set(ent, status{Alive: i%6 == 0, Level: uint8(i)})
		}
		if i%5 == 0 {
			pad.Set(ent, padStruct{A: uint8(i), B: uint32(i), C: uint16(i)})
		}
		if i%7 == 0 {
			w.Despawn(ent)
		}
	}
	e.AddSystem(StageScripts, "regen", func(c *FixedContext) {
		vals, has := hp.Slices()
		for i, ok := range has {
			if ok {
				vals[i]++
			}
		}
	})
	stepN(t, e, 5, nil)
	return e
}

// Once a State has grown to the world, SaveState and LoadState of a world
// with only plain-data components and resources do not allocate.
func TestSaveLoadStateDoesNotAllocate(t *testing.T) {
	e := plainGame(t)
	var st State
	e.SaveState(&st)
	e.LoadState(&st)
	hash := e.World.Hash()
	if a := testing.AllocsPerRun(100, func() {
		e.SaveState(&st)
		e.LoadState(&st)
	}); a != 0 {
		t.Errorf("SaveState and LoadState allocate %v times per run, want 0", a)
	}
	stepN(t, e, 10, nil)
	if a := testing.AllocsPerRun(100, func() { e.LoadState(&st) }); a != 0 {
		t.Errorf("LoadState allocates %v times per run, want 0", a)
	}
	if e.World.Hash() != hash {
		t.Error("LoadState did not return the world to the state saved")
	}
}

// LoadState of a State saved from a world with another schema panics
// "engine: LoadState", leaving the engine as it was; so does a State never
// saved.
func TestLoadStateRefusesOtherSchema(t *testing.T) {
	saved := func(reg func(w *World)) *State {
		e := newEngine(t)
		e.World.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
		reg(e.World)
		stepN(t, e, 2, nil)
		var st State
		e.SaveState(&st)
		return &st
	}
	base := func(w *World) {
		NewComponent[int32](w, "health")
		NewComponent[path](w, "route")
		NewResource(w, "tally", tally{})
	}
	for _, tc := range []struct {
		name string
		reg  func(w *World)
	}{
		{"other type", func(w *World) {
			NewComponent[float32](w, "health")
			NewComponent[path](w, "route")
			NewResource(w, "tally", tally{})
		}},
		{"other name", func(w *World) {
			NewComponent[int32](w, "hp")
			NewComponent[path](w, "route")
			NewResource(w, "tally", tally{})
		}},
		{"missing", func(w *World) {
			NewComponent[int32](w, "health")
			NewResource(w, "tally", tally{})
		}},
		{"extra", func(w *World) {
			base(w)
			NewComponent[int32](w, "mana")
		}},
		{"resource for component", func(w *World) {
			NewResource[int32](w, "health", 0)
			NewComponent[path](w, "route")
			NewResource(w, "tally", tally{})
		}},
		{"none", func(w *World) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := saved(tc.reg)
			e := newEngine(t)
			e.World.Spawn(geom.NewTransform(mgl32.Vec3{1, 1, 1}), Interpolate)
			base(e.World)
			stepN(t, e, 4, nil)
			before, hash := e.Snapshot(), e.World.Hash()
			msg, panicked := panicOf(func() { e.LoadState(st) })
			if !panicked || !strings.HasPrefix(msg, "engine: LoadState") {
				t.Errorf("LoadState of a State from another schema: panic %v %q, want one starting \"engine: LoadState\"", panicked, msg)
			}
			if e.World.Hash() != hash || string(e.Snapshot()) != string(before) {
				t.Error("a refused LoadState changed the engine")
			}
		})
	}

	// A component registered after the save changes the schema too.
	e := newEngine(t)
	base(e.World)
	var st State
	e.SaveState(&st)
	NewComponent[int32](e.World, "late")
	if msg, panicked := panicOf(func() { e.LoadState(&st) }); !panicked || !strings.HasPrefix(msg, "engine: LoadState") {
		t.Errorf("LoadState after a new registration: panic %v %q", panicked, msg)
	}
	if msg, panicked := panicOf(func() { e.LoadState(new(State)) }); !panicked || !strings.HasPrefix(msg, "engine: LoadState") {
		t.Errorf("LoadState of a State never saved: panic %v %q", panicked, msg)
	}
	// The same schema loads.
	if msg, panicked := panicOf(func() { newEngineWith(t, base).LoadState(saved(base)) }); panicked {
		t.Errorf("LoadState with the same schema panicked: %s", msg)
	}
}

func newEngineWith(t testing.TB, reg func(w *World)) *Engine {
	e := newEngine(t)
	reg(e.World)
	return e
}

// In JobsReplay mode a job's result is applied at the tick a replayer
// delivers it. After LoadState returns to a tick before a delivery, the
// job is pending again and waits for its delivery as it did the first
// time: it is not applied at the next tick without one, and Deliver
// accepts it again.
func TestLoadStateReplayJobWaitsForDelivery(t *testing.T) {
	e := newEngine(t)
	e.Jobs.SetMode(JobsReplay)
	var applied []uint64
	kind := e.Jobs.Register("echo", func(in []byte, live bool) []byte { return in },
		func(c *FixedContext, in, out []byte) { applied = append(applied, c.Tick) })
	var id JobID
	e.AddSystem(StageScripts, "submit", func(c *FixedContext) {
		if c.Tick == 1 {
			id = c.Jobs.Submit(kind, []byte{1}, 3)
		}
	})
	step := func() {
		t.Helper()
		if !e.StepTick(time.Duration(e.World.Tick()+1) * time.Second / 60) {
			t.Fatal(e.Err())
		}
	}
	step() // tick 1 submits
	var st State
	e.SaveState(&st)
	step() // tick 2
	step() // tick 3
	if err := e.Jobs.Deliver(id, []byte{9}); err != nil {
		t.Fatal(err)
	}
	step() // tick 4 applies
	if len(applied) != 1 || applied[0] != 4 {
		t.Fatalf("applied at ticks %v, want [4]", applied)
	}

	e.LoadState(&st) // tick 1, the job in flight
	applied = nil
	step() // tick 2
	step() // tick 3
	if len(applied) != 0 || e.Jobs.Pending() != 1 {
		t.Fatalf("after LoadState the job was applied at ticks %v without a delivery (%d pending); want none and 1", applied, e.Jobs.Pending())
	}
	if err := e.Jobs.Deliver(id, []byte{9}); err != nil {
		t.Fatalf("delivering the job again after LoadState: %v", err)
	}
	step() // tick 4
	if len(applied) != 1 || applied[0] != 4 {
		t.Errorf("after LoadState applied at ticks %v, want [4]", applied)
	}
}

// route is a variable-size value whose UnmarshalBinary reuses its slice.
type route struct{ pts []mgl32.Vec3 }

func (r route) AppendBinary(b []byte) ([]byte, error) { return path(r).AppendBinary(b) }

func (r *route) UnmarshalBinary(b []byte) error {
	if len(b)%12 != 0 {
		return fmt.Errorf("%d bytes, not a whole number of 12-byte points", len(b))
	}
	r.pts = slices.Grow(r.pts[:0], len(b)/12)[:len(b)/12]
	for i := range r.pts {
		for a := range 3 {
			r.pts[i][a] = math.Float32frombits(binary.LittleEndian.Uint32(b[12*i+4*a:]))
		}
	}
	return nil
}

// LoadState decodes a variable-size value into the value already there:
// one whose UnmarshalBinary reuses its slice allocates nothing once it has
// grown, and the world is the saved one again however the values changed
// (longer, shorter, removed, added on other entities) since the save.
func TestLoadStateDecodesIntoValues(t *testing.T) {
	e, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	w := e.World
	rc := NewComponent[route](w, "route")
	rr := NewResource(w, "routes", route{pts: make([]mgl32.Vec3, 5)})
	var ents []Entity
	for i := range 6 {
		ent := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
		ents = append(ents, ent)
		if i%2 == 0 {
			rc.Set(ent, route{pts: make([]mgl32.Vec3, i+1)})
		}
	}
	e.AddSystem(StageScripts, "walk", func(c *FixedContext) {
		for _, ent := range ents {
			if p := rc.Ptr(ent); p != nil {
				p.pts = append(p.pts, mgl32.Vec3{float32(c.Tick), 1, 2})
			}
		}
		r := rr.Ptr()
		r.pts = append(r.pts[1:], mgl32.Vec3{3, float32(c.Tick), 4})
	})
	stepN(t, e, 3, nil)
	var st State
	e.SaveState(&st)
	hash := w.Hash()
	stepN(t, e, 4, nil)
	rc.Remove(ents[0])
	rc.Set(ents[1], route{pts: make([]mgl32.Vec3, 9)})
	e.LoadState(&st)
	if w.Hash() != hash {
		t.Fatal("LoadState did not return the world to the state saved")
	}
	stepN(t, e, 4, nil)
	e.LoadState(&st)
	if a := testing.AllocsPerRun(50, func() {
		stepN(t, e, 2, nil)
		e.LoadState(&st)
	}); a != 0 {
		// stepN's appends grow past the saved lengths, not past the
		// capacities reached before.
		t.Errorf("LoadState with reusing values: %v allocations per run, want 0", a)
	}
	if w.Hash() != hash {
		t.Error("LoadState did not return the world to the state saved")
	}
}

// An engine that replayed a run in JobsReplay and takes it over
// (SetMode to JobsDeterministic, as a recovery does) runs the jobs the
// replay left in flight: their results are applied when due, computed,
// not empty.
func TestLeavingReplayModeRunsPendingJobs(t *testing.T) {
	e := newEngine(t)
	e.Jobs.SetMode(JobsReplay)
	var got []byte
	kind := e.Jobs.Register("double", func(in []byte, live bool) []byte { return []byte{in[0] * 2} },
		func(c *FixedContext, in, out []byte) { got = append(got, out...) })
	e.AddSystem(StageScripts, "submit", func(c *FixedContext) {
		if c.Tick == 1 {
			c.Jobs.Submit(kind, []byte{21}, 3)
		}
	})
	for range 2 {
		if !e.StepTick(0) {
			t.Fatal(e.Err())
		}
	}
	e.Jobs.SetMode(JobsDeterministic)
	for range 2 {
		if !e.StepTick(0) {
			t.Fatal(e.Err())
		}
	}
	if len(got) != 1 || got[0] != 42 || e.Jobs.Pending() != 0 {
		t.Errorf("applied %v with %d pending; want [42] at tick 4", got, e.Jobs.Pending())
	}
}
