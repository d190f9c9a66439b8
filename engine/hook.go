package engine

import (
	"github.com/nebulaengine/nebula/engine/input"

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
	// Input is the tick's local input snapshot: what the local devices
	// did up to the tick's due time (Input.Advance, after the input
	// script). A lockstep client sends it; unless the hook is a
	// PlayerOwner, it is player 0's input already. BeginTick may replace
	// it: when Input differs from the local snapshot once BeginTick
	// returns, player 0's input becomes Input, as if SetInput(0, Input)
	// came last (when player 0 is in the match; otherwise the change is
	// ignored). Left as it was, it changes nothing, and player 0's input
	// is whatever Players holds.
	Input input.Sample
	// Players is who plays at the tick, as the tick starts: the previous
	// tick's players with their inputs, nobody joined or left yet, and,
	// unless the hook is a PlayerOwner, player 0 joined at tick 1 and
	// given the local input (and given it when BeginTick joins it).
	// BeginTick may Join, Leave and SetInput.
	Players *Players
	// Predicted and Resimulated are what BeginTick says of the tick, for
	// its fixed systems (FixedContext): the tick runs on predicted inputs,
	// and the tick was simulated before and runs again after a correction
	// (see Rollback). Both start false.
	Predicted, Resimulated bool
}

// A TickHook observes or steers every fixed tick: a recorder writes down
// what each tick saw, a replayer feeds each tick what a recording says it
// saw, a lockstep client feeds each tick every player's confirmed input.
// The engine calls its methods on the loop's goroutine, in this order for
// every tick:
//
//  1. PreTick, before anything else: the tick's number is World.Tick()+1
//     after it returns, so a replayer may Restore a snapshot here.
//  2. BeginTick, once the tick's local input snapshot is taken
//     (Input.Advance, after the input script) and its players are set up
//     (see TickInfo): it may replace the snapshot, and join, leave and set
//     the inputs of players. This is the tick boundary: the tick's fixed
//     systems see the players as BeginTick leaves them.
//  3. JobApplied, for each job result applied in the tick, in order, just
//     before the job's Apply runs (after the previous state is saved,
//     before the fixed systems), so a recording has the result even when
//     Apply panics.
//  4. EndTick, after the fixed systems.
//
// A panic in a system leaves a tick without its EndTick. A hook that also
// implements TickGate can hold ticks until they are ready, and one that
// implements PlayerOwner decides who plays.
type TickHook interface {
	// PreTick is called first, before the tick's number is taken.
	PreTick()
	// BeginTick is called with the tick's local input snapshot and its
	// players, which it may change.
	BeginTick(t *TickInfo)
	// JobApplied is called for each job result applied in tick, before
	// its Apply runs.
	JobApplied(tick uint64, id JobID, result []byte)
	// EndTick is called after the fixed systems of tick ran.
	EndTick(tick uint64, w *World)
}

// A TickGate is a TickHook that says whether a tick may run: a lockstep
// client may not simulate a tick before it holds every player's confirmed
// input for it. When the installed hook implements TickGate, the engine
// asks TickReady(World.Tick()+1) before each tick; when it says false, the
// tick does nothing (no hook call, no input taken, no system run):
// Engine.Frame holds it (timing.Loop.Hold: the frame draws on, the tick
// runs in a later frame with the same number), and StepTick returns false.
type TickGate interface {
	// TickReady reports whether the tick numbered tick may run now.
	TickReady(tick uint64) bool
}

// A PlayerOwner is a TickHook that decides who plays: a replayer, a
// lockstep client. When the installed hook implements PlayerOwner and
// OwnsPlayers returns true (it is asked once, by SetTickHook), the engine
// leaves the players to it: it does not join player 0 at tick 1, nor give
// player 0 the local input; every player's input carries over from the
// previous tick until the hook sets it. Otherwise (no hook, or a recorder)
// the engine keeps the single-player default: player 0 joins at tick 1
// and gets the local input every tick.
type PlayerOwner interface {
	// OwnsPlayers reports whether the hook joins, leaves and sets the
	// input of every player itself.
	OwnsPlayers() bool
}

// A FrameStarter is a TickHook that does something at the start of every
// frame, before the frame's ticks: a Rollback takes the confirmed ticks
// that arrived and re-simulates when they need it. Engine.Frame calls
// StartFrame first; a panic in it is the engine's, like a system's.
type FrameStarter interface {
	// StartFrame is called at the start of every Engine.Frame.
	StartFrame()
}

// A RenderCorrector is a TickHook that changes what is drawn: after the
// engine interpolates the frame's instances, and before the Render
// systems run, it calls CorrectRender with the frame's real time (FrameContext.DT)
// and the render buffer. A Rollback eases its corrections there.
type RenderCorrector interface {
	// CorrectRender changes the frame's instances in r; dt is the
	// frame's real time in seconds.
	CorrectRender(dt float64, r *RenderBuffer)
}

// SetTickHook installs h (nil removes it). There is one hook at a time.
func (e *Engine) SetTickHook(h TickHook) {
	e.hook = h
	e.gate, _ = h.(TickGate)
	e.starter, _ = h.(FrameStarter)
	e.corrector, _ = h.(RenderCorrector)
	o, ok := h.(PlayerOwner)
	e.ownsPlayers = ok && o.OwnsPlayers()
}

// TickHook returns the installed hook, or nil.
func (e *Engine) TickHook() TickHook { return e.hook }

// StepTick runs one fixed tick outside the loop, at the loop's current tick
// rate, with the input snapshot taken at due: exactly what a frame's tick
// runs, without the frame's accounting (the loop's counters, Update and
// Render). A replay verifier steps through a recording with it, as fast as
// the CPU allows. Like Frame, it recovers a panic into Err, and does
// nothing once Err is set. It reports whether the tick ran to its end:
// false after a panic (Err says so), and false without running anything
// when the hook is a TickGate that says the tick is not ready.
func (e *Engine) StepTick(due time.Duration) (ok bool) {
	if e.crash != nil {
		return false
	}
	defer e.recoverPanic()
	if !e.tickReady() {
		return false
	}
	e.step = timing.Step{Tick: e.World.Tick() + 1, DT: e.Loop.DT(), Due: due}
	e.tickBody()
	return true
}

// tickReady asks the hook, if it is a TickGate, whether the next tick may
// run.
func (e *Engine) tickReady() bool {
	if e.gate == nil {
		return true
	}
	e.curTick = e.World.Tick() + 1
	e.curPhase, e.curSystem = PhaseFixed, "engine"
	return e.gate.TickReady(e.curTick)
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
