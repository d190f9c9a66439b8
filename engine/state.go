package engine

import (
	"fmt"

	"github.com/nebulaengine/nebula/engine/input"
)

// State is the whole simulated state of an Engine, saved in memory by
// SaveState for LoadState: the world (entity table, current and previous
// transforms, the hierarchy and its world transforms, velocities, draw
// modes, colours, teleport marks, RNG, tick, components and resources, the
// players in the match and their latest inputs), the input state, the tick rate and the jobs in flight. It is what rollback netcode saves at its last confirmed tick
// and loads to re-simulate from there, many times a second, so it copies
// memory rather than encoding bytes: a State reuses its buffers, and once
// they have grown to the world's size SaveState and LoadState do not
// allocate (except what a variable-size component's UnmarshalBinary
// allocates: LoadState decodes into the value already there, so one that
// reuses its slices allocates nothing). A State belongs to the process that saved it; for files and
// the network use the portable Snapshot.
//
// The zero State is empty and ready to be saved into.
type State struct {
	saved       bool
	fingerprint uint64 // of the world's schema
	rate        int

	// table holds the world's entity table and bodies (its other fields
	// are unused).
	table World
	cols  []any

	input   input.Queue
	jobNext JobID
	jobs    []*job
}

// Tick returns the world tick the state was saved at (0 for a State never
// saved).
func (st *State) Tick() uint64 { return st.table.tick }

// copyInto makes *dst a copy of src, reusing *dst's memory.
func copyInto[T any](dst *[]T, src []T) { *dst = append((*dst)[:0], src...) }

// copyTable makes dst's entity table, bodies and players a copy of src's,
// reusing dst's memory.
func copyTable(dst, src *World) {
	dst.tick, dst.rng, dst.count = src.tick, src.rng, src.count
	copyInto(&dst.gen, src.gen)
	copyInto(&dst.free, src.free)
	copyInto(&dst.cur.Pos, src.cur.Pos)
	copyInto(&dst.cur.Rot, src.cur.Rot)
	copyInto(&dst.cur.Scale, src.cur.Scale)
	copyInto(&dst.cur.Vel, src.cur.Vel)
	copyInto(&dst.cur.AngVel, src.cur.AngVel)
	copyInto(&dst.cur.Mode, src.cur.Mode)
	copyInto(&dst.cur.Color, src.cur.Color)
	copyInto(&dst.cur.Mesh, src.cur.Mesh)
	copyInto(&dst.cur.MeshScale, src.cur.MeshScale)
	copyInto(&dst.cur.Emissive, src.cur.Emissive)
	copyInto(&dst.cur.Hidden, src.cur.Hidden)
	copyInto(&dst.prev.Pos, src.prev.Pos)
	copyInto(&dst.prev.Rot, src.prev.Rot)
	copyInto(&dst.prev.Scale, src.prev.Scale)
	copyInto(&dst.prev.Vel, src.prev.Vel)
	copyInto(&dst.snap, src.snap)
	copyHierarchy(&dst.hier, &src.hier)
	copyPlayers(&dst.players, &src.players)
}

// SaveState saves the engine's whole simulated state into st, replacing
// what st held. Call it between ticks (between frames, or from
// TickHook.PreTick), like Snapshot.
func (e *Engine) SaveState(st *State) {
	w := e.World
	st.saved = true
	st.fingerprint = w.fingerprint
	st.rate = e.Loop.TickRate()
	copyTable(&st.table, w)
	if len(st.cols) != len(w.cols) {
		st.cols = make([]any, len(w.cols))
	}
	for i, c := range w.cols {
		c.save(&st.cols[i])
	}

	st.input.CopyFrom(e.Input)
	st.jobNext = e.Jobs.nextID
	copyInto(&st.jobs, e.Jobs.pending)
}

// savedColumn is a component or resource saved in a State.
type savedColumn interface {
	copyTo(dst *any)
}

// CopyFrom makes st a copy of src, reusing st's memory: a rollback keeps
// the states of a few ticks and hands them out, and a caller that wants
// one for longer copies it. Values are copied as SaveState copies them
// (a component of a fixed-size type bit for bit, a variable-size one as
// its encoding).
func (st *State) CopyFrom(src *State) {
	st.saved, st.fingerprint, st.rate = src.saved, src.fingerprint, src.rate
	copyTable(&st.table, &src.table)
	if len(st.cols) != len(src.cols) {
		st.cols = make([]any, len(src.cols))
	}
	for i, c := range src.cols {
		c.(savedColumn).copyTo(&st.cols[i])
	}
	st.input.CopyFrom(&src.input)
	st.jobNext = src.jobNext
	copyInto(&st.jobs, src.jobs)
}

// LoadState returns the engine to the state st holds: the next tick is
// st.Tick()+1 and the run continues exactly as it did from the save. The
// Bodies and component slices taken before are invalid afterwards, and so
// are the slices inside variable-size values (they are decoded into). Jobs
// submitted since the save are dropped (their goroutines finish unheard);
// jobs in flight at the save are pending again, and those applied since
// are applied again, at the same ticks, with the same results. Call it
// between ticks. LoadState panics when st was never saved, or was saved
// from a world with another schema.
func (e *Engine) LoadState(st *State) {
	w := e.World
	switch {
	case !st.saved:
		panic("engine: LoadState: the State was never saved (SaveState fills it)")
	case st.fingerprint != w.fingerprint || len(st.cols) != len(w.cols):
		panic(fmt.Sprintf("engine: LoadState: the State was saved from a world with another schema (this world has %d components and resources)", len(w.cols)))
	}
	for i, c := range w.cols {
		if !c.canLoad(st.cols[i]) {
			panic(fmt.Sprintf("engine: LoadState: the State was saved from a world whose %v is of another Go type", c.schemaEntry()))
		}
	}
	if st.rate != e.Loop.TickRate() {
		_ = e.Loop.SetTickRate(st.rate) // it was the loop's rate
	}
	copyTable(w, &st.table)
	w.hier.stale = true // propagating again gives the same bits; the State may have been saved before a propagation
	w.epoch++
	for i, c := range w.cols {
		c.load(st.cols[i])
	}

	e.Input.CopyFrom(&st.input)
	e.Jobs.nextID = st.jobNext
	clear(e.Jobs.pending)
	copyInto(&e.Jobs.pending, st.jobs)
	for _, jb := range e.Jobs.pending {
		// A job delivered (JobsReplay) and applied since the save is
		// pending again: it waits for its delivery once more. No job
		// pending at the save was marked (a delivered job is applied in
		// the tick it is delivered for).
		jb.deliver = false
	}
}
