package engine

import (
	"reflect"

	"github.com/nebulaengine/nebula/engine/input"

	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nebulaengine/nebula/timing"
)

// TickInfo is what a TickHook sees at the start of a tick.
type TickInfo struct {
	// Tick is the number of the tick about to run.
	Tick uint64
	// Rate is the tick rate of this tick, in Hz (its DT is 1/Rate).
	Rate int
	// Input is the tick's local input sample: what the local devices
	// did up to the tick's due time (Input.Advance, after the input
	// script). A lockstep client sends it; unless a hook is a
	// PlayerOwner, it is player 0's input already. BeginTick may replace
	// it: when Input differs from the local snapshot once BeginTick
	// returns, player 0's input becomes Input, as if SetInput(0, Input)
	// came last (when player 0 is in the match; otherwise the change is
	// ignored). Left as it was, it changes nothing, and player 0's input
	// is whatever Players holds.
	Input input.Sample
	// Players is who plays at the tick, as the tick starts: the previous
	// tick's players with their inputs, nobody joined or left yet, and,
	// unless a hook is a PlayerOwner, player 0 joined at tick 1 and
	// given the local input (and given it when BeginTick joins it).
	// BeginTick may Join, Leave and SetInput.
	Players *Players
	// Predicted and Resimulated are what BeginTick says of the tick, for
	// its fixed systems (FixedContext): the tick runs on predicted inputs,
	// and the tick was simulated before and runs again after a correction
	// (see package rollback). Both start false.
	Predicted, Resimulated bool
	// Unconfirmed is how many ticks, counting back from this one, are
	// not final once this tick ends (may still run again with other
	// inputs): 0, the zero value, when every tick is final as it runs. A
	// rollback session sets it to Tick minus its last confirmed tick when
	// this tick is predicted. A hook that must see each tick once, as it
	// finally ran (a recorder), reads it in EndTick and keeps the ticks
	// after Tick-Unconfirmed until a later tick says they are final.
	Unconfirmed uint64
}

// A TickHook observes or steers every fixed tick: a recorder writes down
// what each tick saw, a replayer feeds each tick what a recording says it
// saw, a server or a rollback session feeds each tick every player's
// confirmed (or predicted) input. An engine holds a list of hooks
// (AddTickHook), each with one role, and calls each hook's methods in the
// order the hooks were added, on the loop's goroutine, in this order for
// every tick:
//
//  1. PreTick, before anything else: the tick's number is World.Tick()+1
//     after it returns, so a replayer may Restore a snapshot here.
//  2. BeginTick, once the tick's local input sample is taken
//     (Input.Advance, after the input script) and its players are set up
//     (see TickInfo): it may replace the snapshot, and join, leave and set
//     the inputs of players. This is the tick boundary: the tick's fixed
//     systems see the players as the hooks' BeginTicks leave them.
//  3. JobApplied, for each job result applied in the tick, in order, just
//     before the job's Apply runs (after the previous state is saved,
//     before the fixed systems), so a recording has the result even when
//     Apply panics.
//  4. EndTick, after the fixed systems.
//
// A panic in a system leaves a tick without its EndTick. A hook may also
// have one of the optional roles below, found when it is added: at most
// one hook steers the ticks (a TickGate, which holds ticks until they are
// ready, or a PlayerOwner, which decides who plays); any number may be
// FrameStarters, RenderCorrectors and RestoreHooks.
type TickHook interface {
	// PreTick is called first, before the tick's number is taken.
	PreTick()
	// BeginTick is called with the tick's local input sample and its
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
// input for it. When a hook implements TickGate, the engine asks
// TickReady(World.Tick()+1) before each tick; when it says false, the tick
// does nothing (no hook call, no input taken, no system run): Engine.Frame
// holds it (timing.Loop.Hold: the frame draws on, the tick runs in a later
// frame with the same number), and StepTick returns false. A TickGate
// steers the ticks: an engine has at most one hook that does.
type TickGate interface {
	// TickReady reports whether the tick numbered tick may run now.
	TickReady(tick uint64) bool
}

// A PlayerOwner is a TickHook that decides who plays: a replayer, a
// server, a rollback session. When a hook implements PlayerOwner and
// OwnsPlayers returns true (it is asked once, by AddTickHook), the engine
// leaves the players to it: it does not join player 0 at tick 1, nor give
// player 0 the local input; every player's input carries over from the
// previous tick until the hook sets it. Otherwise (no hook, or only
// observers such as a recorder) the engine keeps the single-player
// default: player 0 joins at tick 1 and gets the local input every tick.
// A PlayerOwner steers the ticks: an engine has at most one hook that
// does.
type PlayerOwner interface {
	// OwnsPlayers reports whether the hook joins, leaves and sets the
	// input of every player itself.
	OwnsPlayers() bool
}

// A FrameStarter is a TickHook that does something at the start of every
// frame, before the frame's ticks: a rollback session takes the confirmed
// ticks that arrived and re-simulates when they need it. Engine.Frame
// calls StartFrame first; a panic in it is the engine's, like a system's.
type FrameStarter interface {
	// StartFrame is called at the start of every Engine.Frame.
	StartFrame()
}

// A RenderCorrector is a TickHook that changes what is drawn: after the
// engine interpolates the frame's instances, and before the Render
// systems run, it calls CorrectRender with the frame's real time
// (FrameContext.DT) and the render buffer. A rollback session eases its
// corrections there.
type RenderCorrector interface {
	// CorrectRender changes the frame's instances in r; dt is the
	// frame's real time in seconds.
	CorrectRender(dt float64, r *RenderBuffer)
}

// A RestoreHook is a TickHook told of every snapshot the engine restores
// (Engine.Restore), whoever restores it (a game's "load" key, a network
// client's late join or resynchronisation): a recorder notes it, so that
// its replay restores it at the same point. It is called after the
// restore, with the snapshot, the restored world and the state hash of the
// world the snapshot replaced.
type RestoreHook interface {
	// Restored is called once snap has been restored into w; before is
	// the state hash of the world it replaced.
	Restored(snap []byte, w *World, before uint64)
}

// ErrTwoSteeringHooks is the error of AddTickHook when the hook would be
// the second to steer the ticks (a TickGate, or a PlayerOwner that owns
// the players): two hooks that both decide who plays, or when a tick
// runs, cannot agree. A client that records adds a recorder (an observer)
// beside its rollback session (the one that steers).
var ErrTwoSteeringHooks = errors.New("engine: a tick hook already steers the ticks (a TickGate or a PlayerOwner); an engine has at most one")

// AddTickHook adds h to the engine's tick hooks, after those added before
// (hooks are called in the order they were added), and returns the
// function that removes it again. It returns an error wrapping
// ErrTwoSteeringHooks, and adds nothing, when h steers the ticks (it is a
// TickGate, or a PlayerOwner whose OwnsPlayers is true) and a hook added
// before does too. Add and remove hooks between ticks, or from a hook's
// own call (the calls that follow see the change). A hook is known by its
// identity, so it must be comparable: a pointer, or a value of a type
// without slices, maps or funcs.
func (e *Engine) AddTickHook(h TickHook) (remove func(), err error) {
	if h == nil {
		return nil, errors.New("engine: AddTickHook: nil hook")
	}
	if !reflect.TypeOf(h).Comparable() {
		return nil, fmt.Errorf("engine: AddTickHook: a %T cannot be told apart from another (hooks are compared by identity): add a pointer to it", h)
	}
	if err := e.hooks.add(h); err != nil {
		return nil, err
	}
	removed := false
	return func() {
		if !removed {
			removed = true
			e.hooks.remove(h)
		}
	}, nil
}

// TickHooks returns the engine's tick hooks, in the order they are
// called. The slice is the caller's.
func (e *Engine) TickHooks() []TickHook { return slices.Clone(e.hooks.list) }

// StepTick runs one fixed tick outside the loop, at the loop's current tick
// rate, with the input sample taken at due: exactly what a frame's tick
// runs, without the frame's accounting (the loop's counters, Update and
// Render). A replay verifier steps through a recording with it, as fast as
// the CPU allows. Like Frame, it recovers a panic into Err, and does
// nothing once Err is set. It reports whether the tick ran to its end:
// false after a panic (Err says so), and false without running anything
// when a hook is a TickGate that says the tick is not ready.
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

// tickReady asks the hook that is a TickGate, if any, whether the next
// tick may run.
func (e *Engine) tickReady() bool {
	if e.hooks.gate == nil {
		return true
	}
	e.curTick = e.World.Tick() + 1
	e.curPhase, e.curSystem = PhaseFixed, "engine"
	return e.hooks.gate.TickReady(e.curTick)
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
