package replay

import (
	"bytes"
	"testing"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/rollback"
)

// lateSource confirms each tick lag ticks after the driver's clock reaches
// it, with player 0 holding the right arrow in runs the predictions (the
// last confirmed input) keep getting wrong.
type lateSource struct{ now, lag uint64 }

func (s *lateSource) Sync() bool { return false }

func (s *lateSource) Confirmed(tick uint64, p *engine.Players) bool {
	if tick+s.lag > s.now {
		return false
	}
	if tick == 1 {
		_ = p.Join(0)
	}
	var in input.Sample
	if tick%50 >= 20 {
		in = keyInput(input.KeyArrowRight)
	}
	_ = p.SetInput(0, in)
	return true
}

func (s *lateSource) Local(uint64) (engine.PlayerID, input.Sample, bool) {
	return 0, input.Sample{}, false
}

// A Recorder beside a rollback session writes each tick once, as it ran
// with its confirmed inputs, though the session simulated most ticks on
// predictions first and again after a correction: the recording verifies
// with every hash, and ends where the session ended.
func TestRecorderBesideARollbackSession(t *testing.T) {
	s := newTestScene(t, 7, 50, engine.JobsDeterministic)
	src := &lateSource{lag: 4}
	rb, err := rollback.New(s.e, src, rollback.Config{MaxPrediction: 8})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, testHeader(7, 50))
	if err != nil {
		t.Fatal(err)
	}
	addHook(t, s.e, rec)
	const ticks = 300
	for s.e.World.Tick() < ticks {
		src.now++
		rb.StartFrame()
		if !s.e.StepTick(engine.TickTime(s.e.World.Tick()+1, 60)) {
			t.Fatalf("tick %d did not run: %v", s.e.World.Tick()+1, s.e.Err())
		}
	}
	// The last ticks are confirmed without running again.
	for rb.Confirmed() < ticks {
		src.now++
		rb.StartFrame()
	}
	if st := rb.Stats(); st.Rollbacks == 0 || st.Predicted == 0 {
		t.Fatalf("the session predicted %d ticks and rolled back %d times; the test needs both", st.Predicted, st.Rollbacks)
	}
	hash := s.e.World.Hash()
	if err := rec.Close(hash); err != nil {
		t.Fatal(err)
	}
	if rec.Records() != ticks {
		t.Errorf("%d ticks recorded, want %d", rec.Records(), ticks)
	}
	r, err := Open(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	replayed := newTestScene(t, 7, 50, engine.JobsDeterministic)
	res, err := Verify(replayed.e, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ticks != ticks || res.Hashes != ticks/60+1 || replayed.e.World.Hash() != hash {
		t.Errorf("verified %d ticks, %d hashes, hash %016x; want %d, %d, %016x", res.Ticks, res.Hashes, replayed.e.World.Hash(), ticks, ticks/60+1, hash)
	}
}
