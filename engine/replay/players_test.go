package replay

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
)

// keyInput returns an input with key k down.
func keyInput(k input.Key) input.Sample {
	var w [input.SampleWords]uint64
	w[k/64] = 1 << (k % 64)
	var s input.Sample
	_ = s.SetWords(&w) // k is a key
	return s
}

// match is the tick hook of a four-player match: it plays players 1 to 3
// (player 0 is the local player, from the input script). A Recorder
// beside it, another hook, records the match.
type match struct {
	t testing.TB
}

func (m *match) PreTick()                                {}
func (m *match) JobApplied(uint64, engine.JobID, []byte) {}
func (m *match) EndTick(uint64, *engine.World)           {}

// BeginTick joins players 1, 2 and 3 at tick 1; player 2 leaves at 200
// and comes back at 260, player 3 leaves at 400; each holds Up or Down
// for a while in turn, player by player.
func (m *match) BeginTick(ti *engine.TickInfo) {
	ps := ti.Players
	do := func(err error) {
		if err != nil {
			m.t.Fatal(err)
		}
	}
	switch ti.Tick {
	case 1:
		do(ps.Join(1))
		do(ps.Join(2))
		do(ps.Join(3))
	case 200:
		do(ps.Leave(2))
	case 260:
		do(ps.Join(2))
	case 400:
		do(ps.Leave(3))
	}
	for id := engine.PlayerID(1); id < 4; id++ {
		if !ps.Has(id) {
			continue
		}
		switch (ti.Tick + 17*uint64(id)) % 90 {
		case 0:
			do(ps.SetInput(id, keyInput(input.KeyArrowUp)))
		case 30:
			do(ps.SetInput(id, keyInput(input.KeyArrowDown)))
		case 60:
			do(ps.SetInput(id, input.Sample{}))
		}
	}
}

// addHook adds h to e's tick hooks.
func addHook(t testing.TB, e *engine.Engine, h engine.TickHook) {
	t.Helper()
	if _, err := e.AddTickHook(h); err != nil {
		t.Fatal(err)
	}
}

// watch adds a fixed system to s that writes down what each tick saw of
// the players.
func watch(s *testScene) *[]string {
	var seen []string
	s.e.AddSystem(engine.StageScripts, "watch", func(c *engine.FixedContext) {
		var b strings.Builder
		fmt.Fprintf(&b, "%d joined %v left %v:", c.Tick, c.Players.Joined(), c.Players.Left())
		for i := range c.Players.Len() {
			id, in := c.Players.At(i)
			var w [input.SampleWords]uint64
			in.Words(&w)
			fmt.Fprintf(&b, " %d=%x", id, w)
		}
		seen = append(seen, b.String())
	})
	return &seen
}

// recordMatch records 600 ticks of the four-player match and returns the
// file, the final hash and what the ticks saw.
func recordMatch(t testing.TB) ([]byte, uint64, []string) {
	s := newTestScene(t, 7, 50, engine.JobsDeterministic)
	seen := watch(s)
	s.e.SetInputScript(script)
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, testHeader(7, 50))
	if err != nil {
		t.Fatal(err)
	}
	addHook(t, s.e, &match{t: t})
	addHook(t, s.e, rec)
	if _, err := engine.RunHeadless(s.e, engine.HeadlessConfig{DisplayHz: 144, Ticks: 600}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(s.e.World.Hash()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), s.e.World.Hash(), *seen
}

// A four-player match with joins, leaves and every player's input is
// recorded and replays headless: every tick sees the same players and
// inputs, and every hash agrees.
func TestRecordAndVerifyMatch(t *testing.T) {
	data, hash, recorded := recordMatch(t)
	r, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if st := r.Stats; st.Joins != 5 || st.Leaves != 2 {
		t.Errorf("%d joins and %d leaves recorded, want 5 (0 to 3, then 2 again) and 2", st.Joins, st.Leaves)
	}
	s := newTestScene(t, 7, 50, engine.JobsDeterministic)
	replayed := watch(s)
	res, err := Verify(s.e, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ticks != 600 || res.Hashes != 11 || s.e.World.Hash() != hash {
		t.Errorf("verified %d ticks, %d hashes, hash %016x; want 600, 11, %016x", res.Ticks, res.Hashes, s.e.World.Hash(), hash)
	}
	if !slices.Equal(*replayed, recorded) {
		for i := range min(len(recorded), len(*replayed)) {
			if recorded[i] != (*replayed)[i] {
				t.Fatalf("tick %d differs:\nrecorded %s\nreplayed %s", i+1, recorded[i], (*replayed)[i])
			}
		}
		t.Fatalf("%d ticks replayed, %d recorded", len(*replayed), len(recorded))
	}
	for _, want := range []string{"1 joined [0 1 2 3] left []:", "200 joined [] left [2]:", "260 joined [2] left []:", "400 joined [] left [3]:"} {
		if !slices.ContainsFunc(recorded, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("no tick saw %q", want)
		}
	}

}

// Replaying a four-player match allocates nothing per tick once warm.
func TestPlayerDoesNotAllocate(t *testing.T) {
	data, _, _ := recordMatch(t)
	r, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	s := newTestScene(t, 7, 50, engine.JobsDeterministic)
	p, err := NewPlayer(s.e, r)
	if err != nil {
		t.Fatal(err)
	}
	// The scene's planner allocates when it submits a job (every 30
	// ticks), so the replay is compared with the same scene run live over
	// the same ticks: replaying must add no allocation of its own. Counted
	// exactly over 300 ticks (AllocsPerRun's average would round a few
	// allocations away).
	live := newTestScene(t, 7, 50, engine.JobsDeterministic)
	mallocs := func(e *engine.Engine, ticks int) uint64 {
		step := func() {
			if !e.StepTick(time.Duration(e.World.Tick()+1) * time.Second / 60) {
				t.Fatal(e.Err())
			}
		}
		for range 300 { // warm up
			step()
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range ticks {
			step()
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	const ticks = 300
	replayed, lived := mallocs(s.e, ticks), mallocs(live.e, ticks)
	t.Logf("%d ticks: %d allocations replayed, %d live", ticks, replayed, lived)
	if replayed > lived {
		t.Errorf("replaying %d ticks allocates %d times, the same scene live %d: the replay adds %d", ticks, replayed, lived, replayed-lived)
	}
	if p.Err() != nil {
		t.Fatal(p.Err())
	}
}
