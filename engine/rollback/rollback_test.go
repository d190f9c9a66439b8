package rollback_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/rollback"
)

// keys returns an input sample with the right arrow held or not.
func keys(right bool) input.Sample {
	var in input.Queue
	if right {
		in.Push(input.Event{Kind: input.KeyDown, Key: input.KeyArrowRight})
	}
	s := in.Advance(0)
	// A held key, not a fresh press: the second snapshot.
	if right {
		s = in.Advance(0)
	}
	return s
}

// inputOf is player id's input at tick: the right arrow held for runs of
// ticks whose lengths differ by player, so that a prediction (the last
// input) is sometimes wrong.
func inputOf(id engine.PlayerID, tick uint64) input.Sample {
	return keys((tick/uint64(7+5*int(id)))%2 == 1)
}

// lagSource confirms tick t once its clock, advanced by the test, reaches
// t plus lag: players 0 and 1 join at tick 1 and player 2 at joinAt, each
// with inputOf. Player 0 is local: its input is known at once.
type lagSource struct {
	now     uint64 // the clock, in ticks
	lag     uint64
	joinAt  uint64
	next    uint64 // the next tick to confirm
	restore func() bool
}

func (s *lagSource) Sync() bool {
	if s.restore != nil {
		return s.restore()
	}
	return false
}

func (s *lagSource) Confirmed(tick uint64, p *engine.Players) bool {
	if tick+s.lag > s.now {
		return false
	}
	if tick != s.next {
		panic("asked out of order")
	}
	s.next++
	if tick == 1 {
		p.Join(0)
		p.Join(1)
	}
	if tick == s.joinAt {
		p.Join(2)
	}
	for i := range p.Len() {
		id, _ := p.At(i)
		p.SetInput(id, inputOf(id, tick))
	}
	return true
}

func (s *lagSource) Local(tick uint64) (engine.PlayerID, input.Sample, bool) {
	return 0, inputOf(0, tick), true
}

// moveGame is syncGame with a body per player that moves right while the
// player holds the right arrow.
func moveGame(t testing.TB) (*syncGame, []engine.Entity) {
	g := newSyncGame(t, 0)
	var bodies []engine.Entity
	for i := range 3 {
		bodies = append(bodies, g.e.World.Spawn(geom.NewTransform(mgl32.Vec3{0, float32(10 + i), 0}), engine.Interpolate))
	}
	g.e.AddSystem(engine.StageScripts, "move", func(c *engine.FixedContext) {
		for i := range c.Players.Len() {
			id, in := c.Players.At(i)
			if in.Down(input.KeyArrowRight) {
				tr := c.World.Transform(bodies[id])
				tr.Pos[0] += 0.5
				c.World.SetTransform(bodies[id], tr)
			}
		}
	})
	return g, bodies
}

// runRollback runs a moveGame under a rollback session to tick n, one tick
// of the source's clock per step, and returns the session, the confirmed
// ticks' hashes in the order reported, and the final hash.
func runRollback(t *testing.T, n, lag uint64, predict int) (*rollback.Rollback, []uint64, uint64) {
	t.Helper()
	g, _ := moveGame(t)
	e := g.e
	src := &lagSource{lag: lag, joinAt: 40, next: 1}
	var hashes []uint64
	cfg := rollback.DefaultConfig()
	cfg.MaxPrediction = predict
	cfg.Confirmed = func(tick, hash uint64, st *engine.State) {
		if st.Tick() != tick {
			t.Fatalf("confirmed tick %d with the state of tick %d", tick, st.Tick())
		}
		if want := uint64(len(hashes)) + 1; tick != want {
			t.Fatalf("confirmed tick %d, want %d", tick, want)
		}
		hashes = append(hashes, hash)
	}
	r, err := rollback.New(e, src, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.EndAt(n)
	for steps := 0; r.Confirmed() < n; steps++ {
		if steps > int(n+lag)*3 {
			t.Fatalf("stuck at confirmed tick %d, engine tick %d", r.Confirmed(), e.World.Tick())
		}
		src.now++
		r.StartFrame()
		e.StepTick(engine.TickTime(e.World.Tick()+1, 60))
		if err := e.Err(); err != nil {
			t.Fatal(err)
		}
		if ahead := e.World.Tick() - min(e.World.Tick(), r.Available()); ahead > uint64(predict) {
			t.Fatalf("tick %d is %d ticks past the last confirmed one, the window is %d", e.World.Tick(), ahead, predict)
		}
	}
	r.StartFrame()
	if e.World.Tick() != n {
		t.Fatalf("ended at tick %d, want %d", e.World.Tick(), n)
	}
	return r, hashes, e.World.Hash()
}

func TestRollbackEndsOnTheLockstepState(t *testing.T) {
	const n = 300
	_, lockHashes, lock := runRollback(t, n, 0, 0)
	for _, c := range []struct {
		lag     uint64
		predict int
	}{{0, 8}, {3, 8}, {6, 8}, {8, 8}, {12, 8}, {5, 0}, {4, 2}} {
		r, hashes, got := runRollback(t, n, c.lag, c.predict)
		st := r.Stats()
		if got != lock {
			t.Errorf("lag %d, predict %d: final hash %016x, lockstep's %016x", c.lag, c.predict, got, lock)
		}
		if len(hashes) != n {
			t.Fatalf("lag %d, predict %d: %d ticks confirmed, want %d", c.lag, c.predict, len(hashes), n)
		}
		for i := range hashes {
			if hashes[i] != lockHashes[i] {
				t.Fatalf("lag %d, predict %d: confirmed tick %d has hash %016x, lockstep's %016x", c.lag, c.predict, i+1, hashes[i], lockHashes[i])
			}
		}
		predicts := c.predict > 0 && c.lag > 0
		if predicts != (st.Rollbacks > 0) || predicts != (st.Predicted > 0) {
			t.Errorf("lag %d, predict %d: %d rollbacks, %d ticks predicted", c.lag, c.predict, st.Rollbacks, st.Predicted)
		}
		if predicts && uint64(st.MaxResimulated) > min(c.lag, uint64(c.predict)) {
			t.Errorf("lag %d, predict %d: a rollback simulated %d ticks again, more than the window", c.lag, c.predict, st.MaxResimulated)
		}
		if c.lag > uint64(c.predict) && st.Stalls == 0 {
			t.Errorf("lag %d, predict %d: no stall, though the lag is past the window", c.lag, c.predict)
		}
		t.Logf("lag %d predict %d: %d rollbacks, %d re-simulated (max %d), %d predicted, %d stalls", c.lag, c.predict, st.Rollbacks, st.Resimulated, st.MaxResimulated, st.Predicted, st.Stalls)
	}
}

func TestRollbackFlagsPredictedAndResimulatedTicks(t *testing.T) {
	g, _ := moveGame(t)
	e := g.e
	type run struct {
		tick                   uint64
		predicted, resimulated bool
	}
	var runs []run
	e.AddSystem(engine.StageScripts, "watch", func(c *engine.FixedContext) {
		runs = append(runs, run{c.Tick, c.Predicted, c.Resimulated})
	})
	src := &lagSource{lag: 4, joinAt: 40, next: 1}
	r, err := rollback.New(e, src, rollback.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for range 120 {
		src.now++
		r.StartFrame()
		e.StepTick(engine.TickTime(e.World.Tick()+1, 60))
	}
	var first, again, predicted int
	seen := map[uint64]bool{}
	for _, x := range runs {
		switch {
		case x.resimulated:
			again++
			if !seen[x.tick] {
				t.Fatalf("tick %d re-simulated before it was simulated", x.tick)
			}
		default:
			first++
			if seen[x.tick] {
				t.Fatalf("tick %d simulated a second time without the Resimulated flag", x.tick)
			}
		}
		if x.predicted {
			predicted++
		}
		seen[x.tick] = true
	}
	if first != int(e.World.Tick()) || again == 0 || predicted == 0 {
		t.Errorf("%d first simulations for %d ticks, %d again, %d predicted", first, e.World.Tick(), again, predicted)
	}
}

func TestRollbackSmoothsCorrectionsAndSnapsTeleports(t *testing.T) {
	g, bodies := moveGame(t)
	e := g.e
	// Player 1 holds the right arrow from tick 20 to 40 (confirmed late);
	// the prediction says it does not.
	src := &scriptSource{lag: 6, input: func(id engine.PlayerID, tick uint64) input.Sample {
		return keys(id == 1 && tick >= 20 && tick < 40)
	}}
	cfg := rollback.DefaultConfig()
	r, err := rollback.New(e, src, cfg)
	if err != nil {
		t.Fatal(err)
	}
	step := time.Second / 60
	now := time.Duration(0)
	e.Frame(now)
	drawn := func() float32 {
		for k, ent := range e.Render.Entities {
			if ent == bodies[1] {
				return e.Render.Instances[k].Pos[0]
			}
		}
		t.Fatal("player 1's body is not drawn")
		return 0
	}
	var maxJump float32
	last := float32(0)
	for range 80 {
		now += step
		src.now = e.World.Tick() + 1
		e.Frame(now)
		x := drawn()
		maxJump = max(maxJump, x-last)
		last = x
	}
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	st := r.Stats()
	if st.Rollbacks == 0 || st.Smoothed == 0 {
		t.Fatalf("no correction smoothed: %+v", st)
	}
	// The correction at tick 26 puts the body 6 steps (3 units) further
	// right at once; eased, no frame moves it more than about a step plus
	// a part of the offset.
	if maxJump > 1.5 {
		t.Errorf("the drawn body jumped %.2f units in one frame: the correction was not eased", maxJump)
	}
	// Long after, the drawing is exact.
	tr := e.World.Transform(bodies[1])
	if x := drawn(); x < tr.Pos[0]-0.01 || x > tr.Pos[0]+0.01 {
		t.Errorf("drawn at x %v long after the correction, the body is at %v", x, tr.Pos[0])
	}

	// With smoothing off, the same correction shows at once.
	g2, bodies2 := moveGame(t)
	e2 := g2.e
	src2 := &scriptSource{lag: 6, input: src.input}
	cfg.Smoothing.HalfLife = 0
	r2, _ := rollback.New(e2, src2, cfg)
	now = 0
	e2.Frame(now)
	maxJump, last = 0, 0
	for range 80 {
		now += step
		src2.now = e2.World.Tick() + 1
		e2.Frame(now)
		for k, ent := range e2.Render.Entities {
			if ent == bodies2[1] {
				x := e2.Render.Instances[k].Pos[0]
				maxJump = max(maxJump, x-last)
				last = x
			}
		}
	}
	if r2.Stats().Smoothed != 0 || maxJump < 2.5 {
		t.Errorf("smoothing off: %d smoothed, largest jump %.2f (want the whole correction, 3 units, at once)", r2.Stats().Smoothed, maxJump)
	}
}

func TestRollbackCorrectionBeyondTheSnapDistanceSnaps(t *testing.T) {
	g, bodies := moveGame(t)
	e := g.e
	// A teleport of player 1's body far away, decided by its input.
	e.AddSystem(engine.StageScripts, "warp", func(c *engine.FixedContext) {
		if in := c.Players.Input(1); in != nil && in.Down(input.KeyArrowUp) {
			c.World.Teleport(bodies[1], geom.NewTransform(mgl32.Vec3{100, 0, 0}))
		}
	})
	var up input.Queue
	up.Push(input.Event{Kind: input.KeyDown, Key: input.KeyArrowUp})
	warp := up.Advance(0)
	src := &scriptSource{lag: 5, input: func(id engine.PlayerID, tick uint64) input.Sample {
		if id == 1 && tick == 30 {
			return warp
		}
		return input.Sample{}
	}}
	r, _ := rollback.New(e, src, rollback.DefaultConfig())
	now := time.Duration(0)
	e.Frame(now)
	for range 60 {
		now += time.Second / 60
		src.now = e.World.Tick() + 1
		e.Frame(now)
		for k, ent := range e.Render.Entities {
			if x := e.Render.Instances[k].Pos[0]; ent == bodies[1] && x != 0 && x != 100 {
				t.Fatalf("tick %d: the teleported body drawn at x %v, between where it was and where it went", e.World.Tick(), x)
			}
		}
	}
	if st := r.Stats(); st.Snapped == 0 || st.Smoothed != 0 {
		t.Errorf("want the correction snapped, not smoothed: %+v", st)
	}
}

// scriptSource confirms tick t when its clock reaches t plus lag, players
// 0 and 1 joining at tick 1 with input's inputs; player 0 is local.
type scriptSource struct {
	now, lag uint64
	input    func(engine.PlayerID, uint64) input.Sample
}

func (s *scriptSource) Sync() bool { return false }

func (s *scriptSource) Confirmed(tick uint64, p *engine.Players) bool {
	if tick+s.lag > s.now {
		return false
	}
	if tick == 1 {
		p.Join(0)
		p.Join(1)
	}
	for i := range p.Len() {
		id, _ := p.At(i)
		p.SetInput(id, s.input(id, tick))
	}
	return true
}

func (s *scriptSource) Local(tick uint64) (engine.PlayerID, input.Sample, bool) {
	return 0, s.input(0, tick), true
}

func TestRollbackGoesBackToTheEnd(t *testing.T) {
	g, _ := moveGame(t)
	e := g.e
	src := &lagSource{lag: 5, joinAt: 40, next: 1}
	r, _ := rollback.New(e, src, rollback.DefaultConfig())
	for e.World.Tick() < 60 {
		src.now++
		r.StartFrame()
		e.StepTick(engine.TickTime(e.World.Tick()+1, 60))
	}
	// The match ends at tick 58, which the session passed on predictions.
	r.EndAt(58)
	for range 20 {
		src.now++
		r.StartFrame()
		if e.StepTick(engine.TickTime(e.World.Tick()+1, 60)) {
			t.Fatalf("tick %d ran past the end", e.World.Tick())
		}
	}
	if e.World.Tick() != 58 || r.Confirmed() != 58 {
		t.Fatalf("at tick %d, confirmed %d, want both 58", e.World.Tick(), r.Confirmed())
	}
	_, _, want := runRollback(t, 58, 0, 0)
	if got := e.World.Hash(); got != want {
		t.Errorf("hash %016x at the end, a lockstep run's %016x", got, want)
	}
}

func TestRollbackRestartsFromARestoredSnapshot(t *testing.T) {
	// A lockstep run to tick 100 gives the snapshot a late joiner gets.
	ref, _ := moveGame(t)
	refSrc := &lagSource{joinAt: 40, next: 1}
	rr, _ := rollback.New(ref.e, refSrc, rollback.Config{})
	for ref.e.World.Tick() < 100 {
		refSrc.now++
		rr.StartFrame()
		ref.e.StepTick(engine.TickTime(ref.e.World.Tick()+1, 60))
	}
	snap := ref.e.Snapshot()
	for ref.e.World.Tick() < 200 {
		refSrc.now++
		rr.StartFrame()
		ref.e.StepTick(engine.TickTime(ref.e.World.Tick()+1, 60))
	}

	g, _ := moveGame(t)
	e := g.e
	src := &lagSource{lag: 3, joinAt: 40, next: 101}
	src.restore = func() bool {
		if snap == nil {
			return false
		}
		if err := e.Restore(snap); err != nil {
			t.Fatal(err)
		}
		snap = nil
		return true
	}
	src.now = 100
	r, _ := rollback.New(e, src, rollback.DefaultConfig())
	for r.Confirmed() < 200 {
		src.now++
		r.StartFrame()
		if e.World.Tick() < 200 {
			e.StepTick(engine.TickTime(e.World.Tick()+1, 60))
		}
	}
	r.StartFrame()
	if e.World.Tick() != 200 || e.World.Hash() != ref.e.World.Hash() {
		t.Errorf("at tick %d with hash %016x, want tick 200 with %016x", e.World.Tick(), e.World.Hash(), ref.e.World.Hash())
	}
}

func TestNewRollbackRefusesBadConfigs(t *testing.T) {
	g, _ := moveGame(t)
	src := &lagSource{}
	for _, cfg := range []rollback.Config{
		{MaxPrediction: -1},
		{MaxPrediction: rollback.MaxDepth + 1},
		{Smoothing: rollback.Smoothing{HalfLife: -time.Millisecond}},
		{Smoothing: rollback.Smoothing{MaxDistance: -1}},
	} {
		if _, err := rollback.New(g.e, src, cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	if _, err := rollback.New(g.e, nil, rollback.Config{}); err == nil {
		t.Error("a nil source accepted")
	}
}

func TestStateCopyFromLoadsLikeTheOriginal(t *testing.T) {
	g := newSyncGame(t, 0)
	e := g.e
	for range 30 {
		e.StepTick(engine.TickTime(e.World.Tick()+1, 60))
	}
	var st, cp engine.State
	e.SaveState(&st)
	want := e.World.Hash()
	cp.CopyFrom(&st)
	for range 30 {
		e.StepTick(engine.TickTime(e.World.Tick()+1, 60))
	}
	st = engine.State{} // the copy must not share the original's memory
	e.LoadState(&cp)
	if e.World.Tick() != 30 || e.World.Hash() != want {
		t.Errorf("loaded the copy: tick %d hash %016x, want tick 30 hash %016x", e.World.Tick(), e.World.Hash(), want)
	}
}

func TestRollbackHashesOnlyTheTicksAskedFor(t *testing.T) {
	_, every, _ := runRollback(t, 60, 0, 0)
	g, _ := moveGame(t)
	src := &lagSource{lag: 4, joinAt: 40, next: 1}
	cfg := rollback.DefaultConfig()
	cfg.HashEvery = 10
	var got []uint64
	cfg.Confirmed = func(tick, hash uint64, _ *engine.State) { got = append(got, hash) }
	r, _ := rollback.New(g.e, src, cfg)
	r.EndAt(60)
	for r.Confirmed() < 60 {
		src.now++
		r.StartFrame()
		g.e.StepTick(engine.TickTime(g.e.World.Tick()+1, 60))
	}
	for i, h := range got {
		tick := i + 1
		want := uint64(0)
		if tick%10 == 0 {
			want = every[i]
		}
		if h != want {
			t.Errorf("tick %d: hash %016x, want %016x", tick, h, want)
		}
	}
}
