package engine

import (
	"slices"
	"time"
)

// The methods in this file are what package rollback (its rollback
// session and its sync test) drives an engine with, through its
// rollback.Simulation interface, besides SaveState, LoadState, StepTick,
// AddTickHook, Interpolation and Err: a game does not need them.

// AdvanceTick runs the next tick outside the loop, as StepTick does, with
// the players p instead of what the tick hooks would say: the tick's
// players are the previous tick's, with p's leaves, joins and inputs
// applied, and no tick hook is called. It is the "advance one tick with
// these inputs" of a rollback library (GGRS's AdvanceFrame): a sync test
// simulates a tick again with the players its first simulation had. It
// reports false after a panic (Err says so).
func (e *Engine) AdvanceTick(due time.Duration, p *Players) (ok bool) {
	hooks := e.hooks
	e.hooks = tickHooks{list: []TickHook{givenPlayers{p}}, owns: true}
	defer func() { e.hooks = hooks }()
	return e.StepTick(due)
}

// givenPlayers is AdvanceTick's hook: it gives the tick the players p.
type givenPlayers struct{ p *Players }

func (g givenPlayers) PreTick() {}

func (g givenPlayers) BeginTick(t *TickInfo) { t.Players.Apply(g.p) }

func (g givenPlayers) JobApplied(uint64, JobID, []byte) {}
func (g givenPlayers) EndTick(uint64, *World)           {}

// Simulated returns the world the engine simulates (the World field), for
// code that drives the engine through an interface (package rollback).
func (e *Engine) Simulated() *World { return e.World }

// TickRate returns the loop's tick rate (Loop.TickRate), in Hz.
func (e *Engine) TickRate() int { return e.Loop.TickRate() }

// SetJobMode sets when job results are applied (Jobs.SetMode): a rollback
// session and a sync test set JobsDeterministic.
func (e *Engine) SetJobMode(m JobMode) { e.Jobs.SetMode(m) }

// SlotTeleported reports whether the entity in slot i was teleported
// (Teleport) in the current tick: it is drawn where it is, without
// interpolation, and a rollback session does not ease its correction.
func (w *World) SlotTeleported(i int) bool { return w.snap[i] }

// CopyFrom makes p a copy of src: the players, their inputs, and who
// joined and left at src's tick. p accepts changes afterwards whatever
// src does (a rollback session keeps copies of the world's players).
func (p *Players) CopyFrom(src *Players) {
	copyInto(&p.ids, src.ids)
	copyInto(&p.inputs, src.inputs)
	copyInto(&p.joined, src.joined)
	copyInto(&p.left, src.left)
	p.locked, p.local = false, nil
}

// ClearChanges empties Joined and Left, keeping the players and their
// inputs: p becomes the players as the next tick starts, before anyone
// joins or leaves. It is for a Players of one's own (CopyFrom); the
// world's change only at the start of a tick.
func (p *Players) ClearChanges() {
	if p.locked {
		return
	}
	p.joined, p.left = p.joined[:0], p.left[:0]
}

// Equal reports whether p and q have the same players with the same
// inputs, and the same joins and leaves.
func (p *Players) Equal(q *Players) bool {
	return slices.Equal(p.ids, q.ids) && slices.Equal(p.inputs, q.inputs) &&
		slices.Equal(p.joined, q.joined) && slices.Equal(p.left, q.left)
}

// Apply makes the changes of want, the players of one tick, to p, the
// players of the tick before as the tick starts (TickInfo.Players, in
// BeginTick): who left, who joined, and every player's input. It ignores
// what p refuses (a player of want that p does not have): want is taken
// to follow from p.
func (p *Players) Apply(want *Players) {
	for _, id := range want.left {
		_ = p.Leave(id)
	}
	for _, id := range want.joined {
		_ = p.Join(id)
	}
	for i, id := range want.ids {
		_ = p.SetInput(id, want.inputs[i])
	}
}

// TickTime is tick n's time at rate ticks a second, n/rate seconds, exact
// to the nanosecond at any n: the due time of a tick stepped outside the
// loop (StepTick) on a clock that starts at tick 0.
func TickTime(n uint64, rate int) time.Duration {
	r := uint64(rate)
	return time.Duration(n/r)*time.Second + time.Duration(n%r)*time.Second/time.Duration(r)
}
