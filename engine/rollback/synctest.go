package rollback

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/nebulaengine/nebula/engine"
)

// SyncTestConfig describes a sync test: see SyncTest.
type SyncTestConfig struct {
	// Ticks is the tick the test runs to.
	Ticks uint64
	// Depth is how many ticks are re-simulated after every tick: the
	// deepest rollback the game must survive (1 to MaxSyncTestDepth).
	Depth int
	// Due, if set, is each tick's due time (what the input script and
	// input.Queue.Advance see); nil means the tick's time at the tick
	// rate (engine.TickTime).
	Due func(tick uint64) time.Duration
}

// MaxSyncTestDepth is the deepest sync test SyncTest runs.
const MaxSyncTestDepth = 64

// SyncTestError is a sync test's finding: re-simulating Tick from the
// state of tick From, with the same inputs, gave another state.
type SyncTestError struct {
	Tick         uint64 // the first tick whose re-simulation differed
	From         uint64 // the tick whose saved state the re-simulation started from
	First, Again uint64 // the state hashes of the first simulation and the re-simulation
	// Diff names the values that differ, as engine.DiffDumps does (the first
	// simulation's dump is a, the re-simulation's b).
	Diff []string
}

// Error says which tick differed, from where, and what differs.
func (e *SyncTestError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sync test: tick %d simulated again from tick %d gives hash %016x, the first time %016x: the simulation is not a pure function of the state and the inputs",
		e.Tick, e.From, e.Again, e.First)
	if len(e.Diff) > 0 {
		fmt.Fprintf(&b, "; it differs in %s", strings.Join(e.Diff, "; "))
	}
	return b.String()
}

// SyncTest runs sim's ticks up to cfg.Ticks and, after every tick t,
// loads the state saved at tick t-Depth and simulates the Depth ticks up
// to t again, with the inputs and players they had the first time,
// comparing each re-simulated tick's state hash with the first
// simulation's. It is the check a rollback game needs (GGPO calls it the
// sync test): every tick a rollback client predicts it may have to
// simulate again from an earlier state, and a system that reads anything
// beyond the state and the inputs (the wall clock, a map's iteration
// order, a global) gives another result the second time, which is a
// desync between players.
//
// It returns nil when every re-simulation matched, the engine then at
// cfg.Ticks in exactly the state a plain run reaches; a *SyncTestError
// at the first tick that differed, the engine then at that tick as the
// re-simulation left it; or the engine's *engine.PanicError. The ticks
// run headless, as StepTick runs them, from sim's current tick. The first
// simulation of every tick goes through sim's tick hooks (a recorder sees
// each tick once); the re-simulations do not (Simulation.AdvanceTick):
// the test gives them the players and inputs the first simulation had.
// Jobs run in engine.JobsDeterministic mode. A sync test runs alone: it
// returns an error when a hook holds a tick (an engine.TickGate, a
// network client).
func SyncTest(sim Simulation, cfg SyncTestConfig) error {
	if cfg.Depth < 1 || cfg.Depth > MaxSyncTestDepth {
		return fmt.Errorf("rollback: sync test: depth %d: must be from 1 to %d ticks", cfg.Depth, MaxSyncTestDepth)
	}
	due := cfg.Due
	if due == nil {
		due = func(tick uint64) time.Duration { return engine.TickTime(tick, sim.TickRate()) }
	}
	w := sim.Simulated()
	n := cfg.Depth + 1
	st := &syncTest{
		sim:     sim,
		start:   w.Tick(),
		states:  make([]engine.State, n),
		hashes:  make([]uint64, n),
		players: make([]engine.Players, n),
	}
	// The test's own hook, after the game's: it keeps the players each
	// first simulation ran with.
	remove, err := sim.AddTickHook(&st.rec)
	if err != nil {
		return fmt.Errorf("rollback: sync test: %w", err)
	}
	defer remove()
	sim.SetJobMode(engine.JobsDeterministic)
	for w.Tick() < cfg.Ticks {
		t := w.Tick()
		// The state before tick t+1 is the state of tick t.
		sim.SaveState(&st.states[t%uint64(n)])
		st.rec.players = &st.players[(t+1)%uint64(n)]
		if !sim.StepTick(due(t + 1)) {
			if err := sim.Err(); err != nil {
				return err
			}
			return fmt.Errorf("rollback: sync test: a tick hook held tick %d (a TickGate: a network client); a sync test runs alone", t+1)
		}
		st.hashes[(t+1)%uint64(n)] = w.Hash()
		if err := st.resimulate(t+1, cfg.Depth, due); err != nil {
			return err
		}
	}
	return nil
}

// syncTest holds a sync test's last Depth+1 ticks, by tick modulo
// Depth+1: the state at the end of each, its hash, and the players its
// fixed systems saw (who joined and left, every player's input).
type syncTest struct {
	sim     Simulation
	start   uint64 // the tick the test started from
	states  []engine.State
	hashes  []uint64
	players []engine.Players
	now     engine.State // the state of the latest tick, while re-simulating
	rec     syncRecorder
}

// resimulate loads the state of tick t-depth (or of the tick the test
// started from, when that is later) and simulates the ticks up to t
// again, comparing hashes.
func (st *syncTest) resimulate(t uint64, depth int, due func(uint64) time.Duration) error {
	sim := st.sim
	w := sim.Simulated()
	n := uint64(len(st.states))
	from := max(t-min(uint64(depth), t), st.start)
	sim.SaveState(&st.now)
	sim.LoadState(&st.states[from%n])
	for k := from + 1; k <= t; k++ {
		if !sim.AdvanceTick(due(k), &st.players[k%n]) {
			return sim.Err()
		}
		if got, want := w.Hash(), st.hashes[k%n]; got != want {
			return st.report(k, from, want, got)
		}
	}
	// Back to the first simulation's state of t: identical by hash, and
	// by value unless the hash missed a difference.
	sim.LoadState(&st.now)
	return nil
}

// report builds the error of tick k, whose re-simulation (the engine's
// state now) gave hash again where the first simulation gave first.
func (st *syncTest) report(k, from, first, again uint64) error {
	sim := st.sim
	w := sim.Simulated()
	err := &SyncTestError{Tick: k, From: from, First: first, Again: again}
	var b bytes.Buffer
	if w.WriteDump(&b) != nil {
		return err
	}
	resim := bytes.Clone(b.Bytes())
	var now engine.State
	sim.SaveState(&now)
	// The first simulation's state of k is in the ring unless k is the
	// latest tick, saved in st.now.
	n := uint64(len(st.states))
	orig := &st.states[k%n]
	if orig.Tick() != k {
		orig = &st.now
	}
	sim.LoadState(orig)
	b.Reset()
	if w.WriteDump(&b) == nil {
		err.Diff = engine.DiffDumps(b.Bytes(), resim, 8)
	}
	sim.LoadState(&now)
	return err
}

// syncRecorder is the sync test's tick hook: on a first simulation, it
// keeps what the tick's systems saw of the players.
type syncRecorder struct {
	players *engine.Players // where the tick's players go
}

func (r *syncRecorder) PreTick()                                {}
func (r *syncRecorder) BeginTick(*engine.TickInfo)              {}
func (r *syncRecorder) JobApplied(uint64, engine.JobID, []byte) {}

func (r *syncRecorder) EndTick(tick uint64, w *engine.World) {
	r.players.CopyFrom(w.Players())
}
