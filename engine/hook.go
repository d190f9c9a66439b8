package engine

import (
	"fmt"
	"time"

	"github.com/nebulaengine/nebula/timing"
)

// TickInfo is what a TickHook sees at the start of a tick.
type TickInfo struct {
	// Tick is the number of the tick about to run.
	Tick uint64
	// Rate is the tick rate of this tick, in Hz (its DT is 1/Rate).
	Rate int
	// Input is the tick's input snapshot. BeginTick may replace it: the
	// fixed systems see whatever it holds when BeginTick returns.
	Input InputSnapshot
}

// A TickHook observes or steers every fixed tick: a recorder writes down
// what each tick saw, a replayer feeds each tick what a recording says it
// saw. The engine calls its methods on the loop's goroutine, in this order
// for every tick:
//
//  1. PreTick, before anything else: the tick's number is World.Tick()+1
//     after it returns, so a replayer may Restore a snapshot here.
//  2. BeginTick, once the tick's input snapshot is taken (Input.Advance,
//     after the input script): it may replace the snapshot.
//  3. JobApplied, for each job result applied in the tick, in order, just
//     before the job's Apply runs (after the previous state is saved,
//     before the fixed systems), so a recording has the result even when
//     Apply panics.
//  4. EndTick, after the fixed systems.
//
// A panic in a system leaves a tick without its EndTick.
type TickHook interface {
	// PreTick is called first, before the tick's number is taken.
	PreTick()
	// BeginTick is called with the tick's input snapshot, which it may
	// replace.
	BeginTick(t *TickInfo)
	// JobApplied is called for each job result applied in tick, before
	// its Apply runs.
	JobApplied(tick uint64, id JobID, result []byte)
	// EndTick is called after the fixed systems of tick ran.
	EndTick(tick uint64, w *World)
}

// SetTickHook installs h (nil removes it). There is one hook at a time.
func (e *Engine) SetTickHook(h TickHook) { e.hook = h }

// TickHook returns the installed hook, or nil.
func (e *Engine) TickHook() TickHook { return e.hook }

// StepTick runs one fixed tick outside the loop, at the loop's current tick
// rate, with the input snapshot taken at due: exactly what a frame's tick
// runs, without the frame's accounting (the loop's counters, Update and
// Render). A replay verifier steps through a recording with it, as fast as
// the CPU allows. Like Frame, it recovers a panic into Err, and does
// nothing once Err is set. It reports whether the tick ran to its end.
func (e *Engine) StepTick(due time.Duration) (ok bool) {
	if e.crash != nil {
		return false
	}
	defer e.recoverPanic()
	e.step = timing.Step{Tick: e.World.Tick() + 1, DT: e.Loop.DT(), Due: due}
	e.tickBody()
	return true
}

// Err returns the *PanicError of a panic the engine recovered, or nil.
func (e *Engine) Err() error {
	if e.crash == nil {
		return nil
	}
	return e.crash
}

// PanicError is a panic in a system, recovered at the loop: the tick it
// happened in (for the Update and Render phases, the last tick run), the
// phase, the system's name ("engine" for the engine's own work between
// systems, "job:<kind>" for a job's Apply), the panic's value and the
// stack of the panicking goroutine.
type PanicError struct {
	Tick   uint64 // the tick the panic happened in (or the last tick run)
	Phase  string // PhaseFixed, PhaseUpdate or PhaseRender
	System string // the system's name, "engine" or "job:<kind>"
	Value  any    // the value passed to panic
	Stack  []byte // the panicking goroutine's stack
}

// Error says which system panicked, in which phase and tick, and with what.
func (p *PanicError) Error() string {
	return fmt.Sprintf("system %q (%s) panicked at tick %d: %v", p.System, p.Phase, p.Tick, p.Value)
}

// Unwrap returns the panic's value when it is an error.
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}
