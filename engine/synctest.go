package engine

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// SyncTestConfig describes a sync test: see SyncTest.
type SyncTestConfig struct {
	// Ticks is the tick the test runs to.
	Ticks uint64
	// Depth is how many ticks are re-simulated after every tick: the
	// deepest rollback the game must survive (1 to MaxSyncTestDepth).
	Depth int
	// Due, if set, is each tick's due time (what the input script and
	// Input.Advance see); nil means the tick's time at the loop's rate.
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
	// Diff names the values that differ, as DiffDumps does (the first
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

// SyncTest runs e's ticks up to cfg.Ticks and, after every tick t, loads
// the state saved at tick t-Depth and simulates the Depth ticks up to t
// again, with the inputs and players they had the first time, comparing
// each re-simulated tick's state hash with the first simulation's. It is
// the check a rollback game needs (GGPO calls it the sync test): every
// tick a rollback client predicts it may have to simulate again from an
// earlier state, and a system that reads anything beyond the state and
// the inputs (the wall clock, a map's iteration order, a global) gives
// another result the second time, which is a desync between players.
//
// It returns nil when every re-simulation matched, the engine then at
// cfg.Ticks in exactly the state a plain run reaches; a *SyncTestError
// at the first tick that differed, the engine then at that tick as the
// re-simulation left it; or the engine's *PanicError. The ticks run
// headless, as StepTick runs them, from e's current tick. The first
// simulation of every tick goes through e's TickHook (a recorder sees
// each tick once); the re-simulations do not: the test feeds them the
// players and inputs the first simulation had. Jobs run in JobsDeterministic
// mode.
func SyncTest(e *Engine, cfg SyncTestConfig) error {
	if cfg.Depth < 1 || cfg.Depth > MaxSyncTestDepth {
		return fmt.Errorf("engine: sync test: depth %d: must be from 1 to %d ticks", cfg.Depth, MaxSyncTestDepth)
	}
	if e.gate != nil {
		return fmt.Errorf("engine: sync test: the engine's tick hook is a TickGate (a network client); a sync test runs alone")
	}
	due := cfg.Due
	if due == nil {
		due = func(tick uint64) time.Duration { return TickTime(tick, e.Loop.TickRate()) }
	}
	e.Jobs.SetMode(JobsDeterministic)
	n := cfg.Depth + 1
	st := &syncTest{
		e:       e,
		start:   e.World.Tick(),
		states:  make([]State, n),
		hashes:  make([]uint64, n),
		players: make([]Players, n),
	}
	hook := e.hook
	defer e.SetTickHook(hook)
	rec := &syncRecorder{hook: hook}
	for e.World.Tick() < cfg.Ticks {
		t := e.World.Tick()
		// The state before tick t+1 is the state of tick t.
		e.SaveState(&st.states[t%uint64(n)])
		rec.players = &st.players[(t+1)%uint64(n)]
		e.SetTickHook(rec)
		if !e.StepTick(due(t + 1)) {
			return e.Err()
		}
		st.hashes[(t+1)%uint64(n)] = e.World.Hash()
		if err := st.resimulate(t+1, cfg.Depth, due); err != nil {
			return err
		}
	}
	return nil
}

// TickTime is tick n's time at rate ticks a second, n/rate seconds, exact
// to the nanosecond at any n: the due time of a tick stepped outside the
// loop (StepTick) on a clock that starts at tick 0.
func TickTime(n uint64, rate int) time.Duration {
	r := uint64(rate)
	return time.Duration(n/r)*time.Second + time.Duration(n%r)*time.Second/time.Duration(r)
}

// syncTest holds a sync test's last Depth+1 ticks, by tick modulo
// Depth+1: the state at the end of each, its hash, and the players its
// fixed systems saw (who joined and left, every player's input).
type syncTest struct {
	e       *Engine
	start   uint64 // the tick the test started from
	states  []State
	hashes  []uint64
	players []Players
	now     State // the state of the latest tick, while re-simulating
	replay  syncReplayer
}

// resimulate loads the state of tick t-depth (or of the tick the test
// started from, when that is later) and simulates the ticks up to t
// again, comparing hashes.
func (st *syncTest) resimulate(t uint64, depth int, due func(uint64) time.Duration) error {
	e := st.e
	n := uint64(len(st.states))
	from := max(t-min(uint64(depth), t), st.start)
	e.SaveState(&st.now)
	e.LoadState(&st.states[from%n])
	for k := from + 1; k <= t; k++ {
		st.replay.players = &st.players[k%n]
		e.SetTickHook(&st.replay)
		if !e.StepTick(due(k)) {
			return e.Err()
		}
		if got, want := e.World.Hash(), st.hashes[k%n]; got != want {
			return st.report(k, from, want, got)
		}
	}
	// Back to the first simulation's state of t: identical by hash, and
	// by value unless the hash missed a difference.
	e.LoadState(&st.now)
	return nil
}

// report builds the error of tick k, whose re-simulation (the engine's
// state now) gave hash again where the first simulation gave first.
func (st *syncTest) report(k, from, first, again uint64) error {
	e := st.e
	err := &SyncTestError{Tick: k, From: from, First: first, Again: again}
	var b bytes.Buffer
	if e.World.WriteDump(&b) != nil {
		return err
	}
	resim := bytes.Clone(b.Bytes())
	var now State
	e.SaveState(&now)
	// The first simulation's state of k is in the ring unless k is the
	// latest tick, saved in st.now.
	n := uint64(len(st.states))
	orig := &st.states[k%n]
	if orig.Tick() != k {
		orig = &st.now
	}
	e.LoadState(orig)
	b.Reset()
	if e.World.WriteDump(&b) == nil {
		err.Diff = DiffDumps(b.Bytes(), resim, 8)
	}
	e.LoadState(&now)
	return err
}

// syncRecorder wraps the game's hook on a first simulation and records
// what the tick's systems see.
type syncRecorder struct {
	hook    TickHook // the game's, or nil
	players *Players // where the tick's players go
}

func (r *syncRecorder) OwnsPlayers() bool {
	o, ok := r.hook.(PlayerOwner)
	return ok && o.OwnsPlayers()
}

func (r *syncRecorder) PreTick() {
	if r.hook != nil {
		r.hook.PreTick()
	}
}

func (r *syncRecorder) BeginTick(t *TickInfo) {
	if r.hook != nil {
		r.hook.BeginTick(t)
	}
}

func (r *syncRecorder) JobApplied(tick uint64, id JobID, result []byte) {
	if r.hook != nil {
		r.hook.JobApplied(tick, id, result)
	}
}

func (r *syncRecorder) EndTick(tick uint64, w *World) {
	copyPlayers(r.players, &w.players)
	copyInto(&r.players.joined, w.players.joined)
	copyInto(&r.players.left, w.players.left)
	if r.hook != nil {
		r.hook.EndTick(tick, w)
	}
}

// syncReplayer feeds a re-simulated tick the players and inputs its
// first simulation had.
type syncReplayer struct{ players *Players }

func (r *syncReplayer) OwnsPlayers() bool { return true }
func (r *syncReplayer) PreTick()          {}

func (r *syncReplayer) BeginTick(t *TickInfo) {
	p, want := t.Players, r.players
	for _, id := range want.Left() {
		_ = p.Leave(id) // it was in the match the first time
	}
	for _, id := range want.Joined() {
		_ = p.Join(id)
	}
	for i := range want.Len() {
		id, in := want.At(i)
		_ = p.SetInput(id, *in)
	}
}

func (r *syncReplayer) JobApplied(uint64, JobID, []byte) {}
func (r *syncReplayer) EndTick(uint64, *World)           {}
