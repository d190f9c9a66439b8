package engine

import (
	"github.com/nebulaengine/nebula/engine/input"

	"context"
	"fmt"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"time"

	"github.com/nebulaengine/nebula/timing"
)

// Config configures an Engine. Start from DefaultConfig.
type Config struct {
	// Loop is the fixed-timestep loop's configuration (tick rate, clamps).
	Loop timing.Config
	// Interpolation configures how entities are drawn between ticks.
	Interpolation InterpolationConfig
	// Seed seeds the world's RNG.
	Seed uint64
}

// DefaultConfig returns the defaults: a 60 Hz loop clamped to 250 ms frames
// and 5 ticks per frame, interpolation on with a 10-unit snap distance, and
// seed 1.
func DefaultConfig() Config {
	return Config{
		Loop:          timing.DefaultConfig(),
		Interpolation: DefaultInterpolationConfig(),
		Seed:          1,
	}
}

// FixedContext is what a tick's system (AddSystem) may read: the world, the
// tick's players and their inputs, the fixed step, the tick number and the
// system's stage. A tick's systems must not read anything else that
// varies (the wall clock, the frame time, map iteration order); that is
// what makes the simulation a pure function of its inputs. Take
// randomness from World.RNG.
type FixedContext struct {
	// World is the simulated world: read and change it here.
	World *World
	// Input is player 0's input sample at this tick: keys, mouse buttons,
	// cursor and scroll, gamepads (PadDown, PadAxis) and the game's
	// actions resolved from their bindings (Action, ActionPressed,
	// ActionValue); a zero sample when player 0 is not in the match. In a
	// single-player game it is the player's input.
	Input *input.Sample
	// Players is who plays at this tick, each with its input, and who
	// joined and left at it (the same as World.Players). Read it; only a
	// tick hook changes it, in BeginTick.
	Players *Players
	// DT is the fixed step in seconds (1/tick rate).
	DT float32
	// Tick is the number of this tick, from 1.
	Tick uint64
	// Jobs submits off-loop work whose results land in a later tick.
	Jobs *Jobs
	// Stage is the stage the running system belongs to (empty while the
	// engine applies the job results due, before the first stage).
	Stage Stage
	// Predicted is true when the tick runs on predicted inputs (a
	// rollback client ahead of its confirmed ticks): it may be simulated
	// again. Resimulated is true when it is simulated again, after a
	// correction. A system whose effect must not repeat (a sound, a log
	// line) checks them; the simulation itself must not depend on them.
	Predicted, Resimulated bool
}

// FrameContext is what Update and Render systems see, once per frame.
type FrameContext struct {
	// World is the world after the frame's ticks. Update and Render systems
	// may read it; changing its simulated state here breaks determinism.
	World *World
	// DT is the real time since the previous frame, in seconds: for
	// cameras, UI and effects, never for the simulation.
	DT float64
	// Alpha is how far the frame is between the last two ticks, in [0, 1]:
	// 1 only while a held tick is owed (see TickGate), when the picture
	// shows the latest tick.
	Alpha float32
	// Stats are the loop's statistics for this frame.
	Stats timing.Stats
	// Render holds the interpolated instances (filled before the Render
	// schedule runs).
	Render *RenderBuffer
}

type fixedSystem struct {
	name string
	run  func(*FixedContext)
	// labels carries the pprof labels phase=fixed, stage=its stage and
	// system=name, made once when the system is added so that running it
	// does not allocate.
	labels context.Context
}

type frameSystem struct {
	name   string
	run    func(*FrameContext)
	labels context.Context // phase=update or phase=render, system=name
}

// PhaseTimes is how long the last frame spent in each part of
// Engine.Frame, measured with the clock given to SetPhaseClock (all zero
// without one).
type PhaseTimes struct {
	// Fixed is the time of the frame's ticks: input samples, saving the
	// previous state and the stages' systems, summed over the ticks.
	Fixed time.Duration
	// Update is the time of the Update systems.
	Update time.Duration
	// Render is the time of interpolation and the Render systems. (A
	// windowed runner adds the time it spends submitting the frame to the
	// GPU to its own figure; the engine does not draw.)
	Render time.Duration
}

// Engine runs a World on a fixed-timestep loop: each frame, Frame runs the
// tick's stages once per tick (after saving the previous state and taking
// the tick's input sample), then the Update systems, then
// interpolates every entity into the render buffer, then the Render systems.
// The headless runner and the windowed runner both drive it through Frame.
type Engine struct {
	// World holds the entities: spawn them here before running.
	World *World
	// Input queues device events for the ticks. The windowed runner pushes
	// into it; a headless game uses SetInputScript instead.
	Input *input.Queue
	// Loop is the fixed-timestep loop: tick rate, pause, statistics.
	Loop *timing.Loop
	// Render is the frame's interpolated instances, filled by Frame before
	// the Render systems run; the windowed runner draws it.
	Render RenderBuffer

	interp InterpolationConfig
	onGPU  bool    // SetInterpolationOnGPU
	stages []stage // the tick's, in order (stage.go)
	update []frameSystem
	render []frameSystem

	fixedCtx FixedContext
	frameCtx FrameContext
	local    input.Sample // the tick's local input
	snapshot input.Sample // player 0's input, FixedContext.Input
	info     TickInfo

	// Jobs is the engine's off-loop job system (see Jobs).
	Jobs *Jobs
	// hooks are the tick hooks, in the order added (AddTickHook).
	hooks tickHooks

	// Crash capture: what runs now (for the PanicError of a panic), and
	// the panic recovered at the loop, if any.
	curTick   uint64
	curPhase  string
	curSystem string
	crash     *PanicError

	inputScript func(tick uint64, due time.Duration, in *input.Queue)
	stopAfter   uint64
	drawing     bool // run Update, interpolation and Render each frame
	// lastFrame is the now of the latest Frame, if framed: where
	// RunHeadless goes on from.
	lastFrame time.Duration
	framed    bool

	fixedStep   func(timing.Step)
	renderFrame func(float64)
	step        timing.Step // the tick tickBody runs
	tickBody    func()
	updateBody  func()
	renderBody  func()

	// Profiling: the context the pprof labels and trace regions hang
	// from, the labels of the engine's own work, and the phase clock.
	ctx          context.Context
	tickLabels   context.Context // phase=fixed system=engine
	interpLabels context.Context // phase=render system=interpolate
	phaseClock   func() time.Duration
	phases       PhaseTimes
}

// New returns an engine with an empty world, or an error saying which part
// of cfg is out of range.
func New(cfg Config) (*Engine, error) {
	loop, err := timing.NewLoop(cfg.Loop)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if err := cfg.Interpolation.Validate(); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	e := &Engine{
		World:   NewWorld(cfg.Seed),
		Input:   new(input.Queue),
		Loop:    loop,
		interp:  cfg.Interpolation,
		drawing: true,
	}
	e.Jobs = newJobs(e)
	e.fixedStep = e.runTick
	e.renderFrame = e.runFrame
	e.tickBody = e.runTickBody
	e.updateBody = e.runUpdateBody
	e.renderBody = e.runRenderBody
	e.stages = newStages()
	e.SetContext(context.Background()) // labels the systems
	return e, nil
}

// Profiling labels. Every system runs with the pprof labels phase (fixed,
// update or render) and system (its name), and a tick's systems with stage
// (LabelStage) too, so that a CPU profile can be cut by phase, stage or
// system:
//
//	go tool pprof -tagfocus=phase=render cpu.prof
//	go tool pprof -tagfocus=system=move cpu.prof
//
// The engine's own work carries system=engine (before each tick) and
// system=interpolate (interpolation, in the render phase). Between systems
// the goroutine's labels are those of the engine's context (SetContext).
const (
	LabelPhase  = "phase"
	LabelSystem = "system"
)

// Phase names, the values of the phase label.
const (
	PhaseFixed  = "fixed"
	PhaseUpdate = "update"
	PhaseRender = "render"
	PhasePace   = "pace" // waiting for the next frame's deadline (windowed runner)
)

// Labels returns ctx with the pprof labels phase and system set, for code
// outside the engine that wants its samples filed like a system's.
func Labels(ctx context.Context, phase, system string) context.Context {
	return pprof.WithLabels(ctx, pprof.Labels(LabelPhase, phase, LabelSystem, system))
}

// SetContext sets the context the engine's pprof labels and runtime/trace
// regions derive from: pass the context of a runtime/trace task to group a
// run's frames under it, or one with pprof labels of your own. The default
// is context.Background(). Systems added before the call are relabelled.
func (e *Engine) SetContext(ctx context.Context) {
	e.ctx = ctx
	e.tickLabels = Labels(ctx, PhaseFixed, "engine")
	e.interpLabels = Labels(ctx, PhaseRender, "interpolate")
	e.relabelStages()
	for i := range e.update {
		e.update[i].labels = Labels(ctx, PhaseUpdate, e.update[i].name)
	}
	for i := range e.render {
		e.render[i].labels = Labels(ctx, PhaseRender, e.render[i].name)
	}
}

// Context returns the context set by SetContext.
func (e *Engine) Context() context.Context { return e.ctx }

// SetPhaseClock makes Frame measure its phases with now (PhaseTimes); nil,
// the default, turns the measuring off. The windowed runner passes its
// monotonic clock; a headless run needs none. Runner plumbing: a game
// reads the figures from desktop.Runner.Figures instead.
func (e *Engine) SetPhaseClock(now func() time.Duration) { e.phaseClock = now }

// PhaseTimes returns how long the last Frame spent in each phase.
func (e *Engine) PhaseTimes() PhaseTimes { return e.phases }

// AddUpdate appends a system to the Update schedule: once per frame, after
// the frame's ticks, with the real frame time.
func (e *Engine) AddUpdate(name string, run func(*FrameContext)) {
	e.update = append(e.update, frameSystem{name, run, Labels(e.ctx, PhaseUpdate, name)})
}

// AddRender appends a system to the Render schedule: once per frame, after
// interpolation, with alpha and the render buffer.
func (e *Engine) AddRender(name string, run func(*FrameContext)) {
	e.render = append(e.render, frameSystem{name, run, Labels(e.ctx, PhaseRender, name)})
}

// SetInputScript makes script feed the input of every tick before the
// tick's snapshot is taken: it is called with the tick number and the
// tick's due time, and pushes events stamped with that time. The headless
// demo's input comes from such a script, so a run is a pure function of
// its flags.
func (e *Engine) SetInputScript(script func(tick uint64, due time.Duration, in *input.Queue)) {
	e.inputScript = script
}

// InputScript returns the script SetInputScript installed, or nil: a
// runner that feeds the input another way (a networked client) takes it
// from there.
func (e *Engine) InputScript() func(tick uint64, due time.Duration, in *input.Queue) {
	return e.inputScript
}

// StopAfter pauses the loop at the end of tick n (0 = never), so that no
// later tick runs; a headless run to n ticks ends with the world at exactly
// tick n whatever the display rate. n is a world tick number (World.Tick),
// which after a Restore may differ from the loop's count of ticks run.
func (e *Engine) StopAfter(n uint64) { e.stopAfter = n }

// Interpolation returns the current interpolation configuration.
func (e *Engine) Interpolation() InterpolationConfig { return e.interp }

// SetInterpolationOnGPU chooses where the frame's entities are placed
// between ticks: on the CPU (false, the default: World.Interpolate fills
// Render.Instances every frame) or on the GPU (true:
// World.InterpolateOnGPU fills Render.Ticks once a tick, and a renderer
// that draws them, gfx.Renderer.DrawTicks, places each entity in its
// vertex shader). desktop.Config.InterpolateOnGPU sets it for a windowed
// run.
func (e *Engine) SetInterpolationOnGPU(on bool) { e.onGPU = on }

// InterpolationOnGPU reports what SetInterpolationOnGPU set.
func (e *Engine) InterpolationOnGPU() bool { return e.onGPU }

// SetInterpolation changes how entities are drawn between ticks.
func (e *Engine) SetInterpolation(cfg InterpolationConfig) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	e.interp = cfg
	return nil
}

// Frame runs one frame that starts at now (a clock reading) and returns the
// number of ticks it ran. When runtime/trace is recording, each tick and
// the update and render phases are trace regions ("tick", "update",
// "render").
//
// A panic in a system (or a hook, or a job's Apply) is recovered here: the
// frame ends, the loop is paused, and Err returns a *PanicError with the
// tick, the phase, the system's name and the stack. Frame does nothing
// once that has happened.
//
// A game does not call Frame: the runners do (RunHeadless, and
// desktop.Runner with its monotonic clock). It is exported for them, and
// for driving the loop by hand on invented times (see ExampleEngine_Frame).
func (e *Engine) Frame(now time.Duration) int {
	if e.crash != nil {
		return 0
	}
	e.lastFrame, e.framed = now, true
	e.phases = PhaseTimes{}
	defer e.recoverPanic()
	for _, s := range e.hooks.starters {
		s.StartFrame()
		if e.crash != nil {
			return 0
		}
	}
	return e.Loop.Tick(now, e.fixedStep, e.renderFrame)
}

// since returns the phase clock's time since start, and the clock's now.
func (e *Engine) since(start time.Duration) (time.Duration, time.Duration) {
	now := e.phaseClock()
	return now - start, now
}

// The phases run inside trace.WithRegion, which records a region without
// allocating (trace.StartRegion allocates one *Region per call while
// tracing). Its functions are method values made once in New, with their
// argument in a field.

func (e *Engine) runTick(s timing.Step) {
	if !e.tickReady() {
		e.Loop.Hold()
		return
	}
	var start time.Duration
	if e.phaseClock != nil {
		start = e.phaseClock()
	}
	e.step = s
	trace.WithRegion(e.ctx, "tick", e.tickBody)
	if e.stopAfter != 0 && e.World.Tick() >= e.stopAfter {
		e.Loop.Pause()
	}
	if e.phaseClock != nil {
		d, _ := e.since(start)
		e.phases.Fixed += d
	}
}

// runTickBody runs one tick. Its number is the world's tick plus one (the
// same as the loop's count, unless a snapshot was restored), its step is
// 1/Loop.TickRate() as of the start of the tick. In order: the hooks'
// PreTick (a replayer may restore a recorded snapshot there), the input
// script and the tick's local input sample, the tick's players (the
// previous tick's; unless a hook owns the players, player 0 joins at
// tick 1 and gets the local input), the hooks' BeginTicks (a recorder
// notes the tick, a replayer or a lockstep client sets the players and
// their inputs), saving the previous state, applying the job results due
// in this tick, the stages with their systems (runStages; the last,
// StageTransforms, computes the world transforms), the world transforms
// computed again if a system moved something after that (World.endTick:
// what is drawn and hashed for the tick is the world at its end), and the
// hooks' EndTicks.
func (e *Engine) runTickBody() {
	s := e.step
	pprof.SetGoroutineLabels(e.tickLabels)
	e.curPhase, e.curSystem = PhaseFixed, "engine"
	e.hooks.preTick()
	tick := e.World.Tick() + 1
	e.curTick = tick
	if e.inputScript != nil {
		e.inputScript(tick, s.Due, e.Input)
	}
	e.local = e.Input.Advance(s.Due)
	local := &e.local
	p := &e.World.players
	if e.hooks.owns {
		p.startTick(nil)
	} else {
		p.startTick(local)
		if tick == 1 && !p.Has(0) {
			_ = p.Join(0) // cannot fail: 0 is in range, not in, and nobody left
		}
		if in := p.Input(0); in != nil {
			*in = *local
		}
	}
	e.info = TickInfo{}
	if len(e.hooks.list) > 0 {
		e.info = TickInfo{Tick: tick, Rate: e.Loop.TickRate(), Input: *local, Players: p}
		e.hooks.beginTick(&e.info)
		if in := p.Input(0); in != nil && e.info.Input != *local {
			*in = e.info.Input
		}
	}
	p.endStart()
	e.snapshot = input.Sample{}
	if in := p.Input(0); in != nil {
		e.snapshot = *in
	}
	e.World.BeginTick(tick)
	e.fixedCtx = FixedContext{World: e.World, Input: &e.snapshot, Players: p, DT: float32(e.Loop.DT()), Tick: tick, Jobs: e.Jobs,
		Predicted: e.info.Predicted, Resimulated: e.info.Resimulated}
	e.Jobs.applyDue(&e.fixedCtx)
	e.runStages()
	e.curSystem = "engine"
	e.World.endTick()
	e.hooks.endTick(tick, e.World)
	pprof.SetGoroutineLabels(e.ctx)
}

func (e *Engine) runFrame(alpha float64) {
	if !e.drawing {
		return
	}
	var start time.Duration
	if e.phaseClock != nil {
		start = e.phaseClock()
	}
	st := e.Loop.Stats()
	e.frameCtx = FrameContext{World: e.World, DT: st.Interval.Seconds(), Alpha: float32(alpha), Stats: st, Render: &e.Render}
	trace.WithRegion(e.ctx, "update", e.updateBody)
	if e.phaseClock != nil {
		e.phases.Update, start = e.since(start)
	}
	trace.WithRegion(e.ctx, "render", e.renderBody)
	if e.phaseClock != nil {
		e.phases.Render, _ = e.since(start)
	}
}

func (e *Engine) runUpdateBody() {
	e.curPhase = PhaseUpdate
	for i := range e.update {
		pprof.SetGoroutineLabels(e.update[i].labels)
		e.curSystem = e.update[i].name
		e.update[i].run(&e.frameCtx)
	}
	pprof.SetGoroutineLabels(e.ctx)
}

func (e *Engine) runRenderBody() {
	pprof.SetGoroutineLabels(e.interpLabels)
	e.curPhase, e.curSystem = PhaseRender, "interpolate"
	if e.onGPU {
		e.World.InterpolateOnGPU(e.frameCtx.Alpha, float32(e.Loop.DT()), e.interp, &e.Render)
	} else {
		e.World.Interpolate(e.frameCtx.Alpha, float32(e.Loop.DT()), e.interp, &e.Render)
	}
	for _, c := range e.hooks.correctors {
		c.CorrectRender(e.frameCtx.DT, &e.Render)
	}
	for i := range e.render {
		pprof.SetGoroutineLabels(e.render[i].labels)
		e.curSystem = e.render[i].name
		e.render[i].run(&e.frameCtx)
	}
	pprof.SetGoroutineLabels(e.ctx)
}

// recoverPanic turns a panic in the frame into the engine's crash.
func (e *Engine) recoverPanic() {
	v := recover()
	if v == nil {
		return
	}
	e.crash = &PanicError{Tick: e.curTick, Phase: e.curPhase, System: e.curSystem, Value: v, Stack: debug.Stack()}
	e.World.players.endStart() // a hook's BeginTick may have panicked
	e.Loop.Pause()
	pprof.SetGoroutineLabels(e.ctx)
}
