package replay

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
)

// seats is a tick hook that owns the players, as a server does: players
// 0 and 1 join at tick 1, player 2 at 150 and leaves at 420; each holds a
// key for a while in turn.
type seats struct{ t testing.TB }

func (s *seats) OwnsPlayers() bool                       { return true }
func (s *seats) PreTick()                                {}
func (s *seats) JobApplied(uint64, engine.JobID, []byte) {}
func (s *seats) EndTick(uint64, *engine.World)           {}

func (s *seats) BeginTick(ti *engine.TickInfo) {
	ps := ti.Players
	do := func(err error) {
		if err != nil {
			s.t.Fatal(err)
		}
	}
	switch ti.Tick {
	case 1:
		do(ps.Join(0))
		do(ps.Join(1))
	case 150:
		do(ps.Join(2))
	case 420:
		do(ps.Leave(2))
	}
	for id := engine.PlayerID(0); id < 3; id++ {
		if !ps.Has(id) {
			continue
		}
		switch (ti.Tick + 23*uint64(id)) % 70 {
		case 0:
			do(ps.SetInput(id, keyInput(input.KeyArrowRight)))
		case 25:
			do(ps.SetInput(id, keyInput(input.KeyArrowLeft)))
		case 50:
			do(ps.SetInput(id, input.Sample{}))
		}
	}
}

// checkpointer writes a checkpoint into rec every n ticks, between ticks.
type checkpointer struct {
	e    *engine.Engine
	rec  *Recorder
	n    uint64
	hash uint64 // xored into the recorded hash: a wrong checkpoint
}

func (c *checkpointer) PreTick() {
	if t := c.e.World.Tick(); t > 0 && t%c.n == 0 {
		c.rec.Checkpoint(c.e.Snapshot(), c.e.World.Hash()^c.hash)
	}
}
func (c *checkpointer) BeginTick(*engine.TickInfo)              {}
func (c *checkpointer) JobApplied(uint64, engine.JobID, []byte) {}
func (c *checkpointer) EndTick(uint64, *engine.World)           {}

// hashes records the state hash at the end of every tick.
type hashes map[uint64]uint64

// hashWatch adds a hook to e that records its hashes.
func hashWatch(t testing.TB, e *engine.Engine) hashes {
	h := hashes{}
	addHook(t, e, &hashHook{h})
	return h
}

type hashHook struct{ h hashes }

func (h *hashHook) PreTick()                                {}
func (h *hashHook) BeginTick(*engine.TickInfo)              {}
func (h *hashHook) JobApplied(uint64, engine.JobID, []byte) {}
func (h *hashHook) EndTick(tick uint64, w *engine.World)    { h.h[tick] = w.Hash() }

// stepTo steps e's ticks up to tick to, as a server does.
func stepTo(t testing.TB, e *engine.Engine, to uint64) {
	t.Helper()
	for e.World.Tick() < to {
		n := e.World.Tick() + 1
		if !e.StepTick(time.Duration(n) * time.Second / 60) {
			t.Fatalf("tick %d did not run: %v", n, e.Err())
		}
	}
}

// recordSeats records ticks of the seats match with a checkpoint every
// 100 ticks (its hash xored with bad) and returns the file and every
// tick's hash.
func recordSeats(t testing.TB, ticks uint64, bad uint64) ([]byte, hashes) {
	s := newTestScene(t, 7, 50, engine.JobsDeterministic)
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, testHeader(7, 50))
	if err != nil {
		t.Fatal(err)
	}
	addHook(t, s.e, &seats{t: t})
	addHook(t, s.e, rec)
	addHook(t, s.e, &checkpointer{e: s.e, rec: rec, n: 100, hash: bad})
	h := hashWatch(t, s.e)
	stepTo(t, s.e, ticks)
	if err := rec.Close(s.e.World.Hash()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), h
}

// Checkpoints are in the recording, a replay checks each one's hash, and
// a wrong one is a divergence at its tick.
func TestCheckpointsVerify(t *testing.T) {
	data, _ := recordSeats(t, 600, 0)
	r, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.Version != Version || r.Stats.Snapshots != 5 {
		t.Fatalf("version %d, %d checkpoints; want %d and 5 (before ticks 101 to 501)", r.Header.Version, r.Stats.Snapshots, Version)
	}
	s := newTestScene(t, 7, 50, engine.JobsDeterministic)
	res, err := Verify(s.e, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ticks != 600 || res.Hashes != 10+1+5 {
		t.Errorf("verified %d ticks, %d hashes; want 600 and 16 (10 stored, the end's, 5 checkpoints)", res.Ticks, res.Hashes)
	}

	bad, _ := recordSeats(t, 600, 1)
	r, err = Open(bad)
	if err != nil {
		t.Fatal(err)
	}
	s = newTestScene(t, 7, 50, engine.JobsDeterministic)
	_, err = Verify(s.e, r)
	var de *DivergenceError
	if !errors.As(err, &de) || de.Tick != 100 || de.Want != de.Got^1 {
		t.Errorf("Verify of a wrong checkpoint = %v, want a divergence at tick 100", err)
	}
}

// A recording cut short (a killed server's log) recovers from its last
// checkpoint: the tail replays to the recorded hashes, the recording
// continues in the same file from the tick after its last, and the whole
// file then verifies as one run, with every hash of a run never stopped.
func TestRecoverFromCheckpointAndContinue(t *testing.T) {
	data, want := recordSeats(t, 600, 0)
	ends := chunkEnds(t, data)
	// Chunks end every 60 ticks: the 6th ends at tick 360.
	for _, tt := range []struct {
		name string
		tail []byte
	}{
		{"no tail", nil},
		{"a chunk cut short", data[ends[5] : ends[5]+30]},
		{"a torn chunk", append(append([]byte(nil), data[ends[5]:ends[6]-8]...), 0, 0, 0, 0, 0, 0, 0, 0)},
		{"zeros", make([]byte, 4096)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := append(append([]byte(nil), data[:ends[5]]...), tt.tail...)
			r, err := OpenIncomplete(file)
			if err != nil {
				t.Fatal(err)
			}
			if r.End.LastTick != 360 || r.End.Missing == nil || r.End.Missing.Bytes != len(tt.tail) {
				t.Fatalf("end %+v, want tick 360 and %d bytes dropped", r.End, len(tt.tail))
			}
			s := newTestScene(t, 7, 50, engine.JobsDeterministic)
			got := hashWatch(t, s.e)
			p, snapTick, err := NewPlayerFromSnapshot(s.e, r)
			if err != nil {
				t.Fatal(err)
			}
			if snapTick != 300 || p.Ticks() != 300 {
				t.Fatalf("restored tick %d, %d records skipped; want 300", snapTick, p.Ticks())
			}
			for !p.Done() {
				if !s.e.StepTick(0) || p.Err() != nil {
					t.Fatalf("tick %d: %v %v", s.e.World.Tick(), p.Err(), s.e.Err())
				}
			}
			p.Close()
			if s.e.World.Tick() != 360 {
				t.Fatalf("the tail replayed to tick %d, want 360", s.e.World.Tick())
			}

			// Continue recording in the same file, cut to its whole chunks.
			var buf bytes.Buffer
			buf.Write(file[:len(file)-r.End.Missing.Bytes])
			rec, err := ContinueRecorder(&buf, r)
			if err != nil {
				t.Fatal(err)
			}
			s.e.Jobs.SetMode(engine.JobsDeterministic)
			addHook(t, s.e, &seats{t: t})
			addHook(t, s.e, rec)
			addHook(t, s.e, &checkpointer{e: s.e, rec: rec, n: 100})
			stepTo(t, s.e, 600)
			if err := rec.Close(s.e.World.Hash()); err != nil {
				t.Fatal(err)
			}
			for tick := uint64(301); tick <= 600; tick++ {
				if got[tick] != want[tick] {
					t.Fatalf("tick %d: hash %016x after recovery, %016x in the run never stopped", tick, got[tick], want[tick])
				}
			}
			whole, err := Open(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			v := newTestScene(t, 7, 50, engine.JobsDeterministic)
			res, err := Verify(v.e, whole)
			if err != nil || res.Ticks != 600 || whole.Stats.Snapshots != 5 {
				t.Fatalf("the continued recording: %d ticks, %d checkpoints, %v; want 600, 5", res.Ticks, whole.Stats.Snapshots, err)
			}
		})
	}
}

// A damaged chunk that a whole chunk follows is not a torn tail: refused.
func TestOpenIncompleteRefusesDamageBeforeWholeChunks(t *testing.T) {
	data, _ := recordSeats(t, 600, 0)
	ends := chunkEnds(t, data)
	bad := append([]byte(nil), data[:ends[5]]...)
	bad[ends[3]+20] ^= 0x10 // in chunk 5; chunk 6 is whole
	if _, err := OpenIncomplete(bad); !errors.Is(err, ErrChecksum) {
		t.Errorf("OpenIncomplete = %v, want ErrChecksum", err)
	}
	// The same damage in the last chunk is a torn tail.
	bad = append([]byte(nil), data[:ends[5]]...)
	bad[ends[4]+20] ^= 0x10
	r, err := OpenIncomplete(bad)
	if err != nil || r.End.LastTick != 300 || !errors.Is(r.End.Missing.Reason, ErrChecksum) {
		t.Errorf("OpenIncomplete of a torn last chunk = %+v, %v; want the ticks to 300", r, err)
	}
}
