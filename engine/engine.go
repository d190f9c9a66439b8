package engine

import (
	"fmt"
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

// FixedContext is what a FixedUpdate system may read: the world, the tick's
// input snapshot, the fixed step and the tick number. Fixed systems must not
// read anything else that varies (the wall clock, the frame time, map
// iteration order); that is what makes the simulation a pure function of its
// inputs. Take randomness from World.RNG.
type FixedContext struct {
	World *World
	Input *InputSnapshot
	// DT is the fixed step in seconds (1/tick rate).
	DT float32
	// Tick is the number of this tick, from 1.
	Tick uint64
}

// FrameContext is what Update and Render systems see, once per frame.
type FrameContext struct {
	World *World
	// DT is the real time since the previous frame, in seconds: for
	// cameras, UI and effects, never for the simulation.
	DT float64
	// Alpha is how far the frame is between the last two ticks, in [0, 1).
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
}

type frameSystem struct {
	name string
	run  func(*FrameContext)
}

// Engine runs a World on a fixed-timestep loop: each frame, Frame runs the
// FixedUpdate systems once per tick (after saving the previous state and
// taking the tick's input snapshot), then the Update systems, then
// interpolates every entity into the render buffer, then the Render systems.
// The headless runner and the windowed runner both drive it through Frame.
type Engine struct {
	World  *World
	Input  *Input
	Loop   *timing.Loop
	Render RenderBuffer

	interp InterpolationConfig
	fixed  []fixedSystem
	update []frameSystem
	render []frameSystem

	fixedCtx FixedContext
	frameCtx FrameContext
	snapshot InputSnapshot

	inputScript func(tick uint64, due time.Duration, in *Input)
	stopAfter   uint64
	drawing     bool // run Update, interpolation and Render each frame

	fixedStep   func(timing.Step)
	renderFrame func(float64)
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
		Input:   new(Input),
		Loop:    loop,
		interp:  cfg.Interpolation,
		drawing: true,
	}
	e.fixedStep = e.runTick
	e.renderFrame = e.runFrame
	return e, nil
}

// AddFixed appends a system to the FixedUpdate schedule: it runs once per
// tick, in the order added.
func (e *Engine) AddFixed(name string, run func(*FixedContext)) {
	e.fixed = append(e.fixed, fixedSystem{name, run})
}

// AddUpdate appends a system to the Update schedule: once per frame, after
// the frame's ticks, with the real frame time.
func (e *Engine) AddUpdate(name string, run func(*FrameContext)) {
	e.update = append(e.update, frameSystem{name, run})
}

// AddRender appends a system to the Render schedule: once per frame, after
// interpolation, with alpha and the render buffer.
func (e *Engine) AddRender(name string, run func(*FrameContext)) {
	e.render = append(e.render, frameSystem{name, run})
}

// SetInputScript makes script feed the input of every tick before the
// tick's snapshot is taken: it is called with the tick number and the
// tick's due time, and pushes events stamped with that time. The headless
// demo's input comes from such a script, so a run is a pure function of
// its flags.
func (e *Engine) SetInputScript(script func(tick uint64, due time.Duration, in *Input)) {
	e.inputScript = script
}

// StopAfter pauses the loop at the end of tick n (0 = never), so that no
// later tick runs; a headless run to n ticks ends with the world at exactly
// tick n whatever the display rate.
func (e *Engine) StopAfter(n uint64) { e.stopAfter = n }

// Interpolation returns the current interpolation configuration.
func (e *Engine) Interpolation() InterpolationConfig { return e.interp }

// SetInterpolation changes how entities are drawn between ticks.
func (e *Engine) SetInterpolation(cfg InterpolationConfig) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	e.interp = cfg
	return nil
}

// Frame runs one frame that starts at now (a clock reading) and returns the
// number of ticks it ran.
func (e *Engine) Frame(now time.Duration) int {
	return e.Loop.Tick(now, e.fixedStep, e.renderFrame)
}

func (e *Engine) runTick(s timing.Step) {
	if e.inputScript != nil {
		e.inputScript(s.Tick, s.Due, e.Input)
	}
	e.snapshot = e.Input.Advance(s.Due)
	e.World.BeginTick(s.Tick)
	e.fixedCtx = FixedContext{World: e.World, Input: &e.snapshot, DT: float32(s.DT), Tick: s.Tick}
	for i := range e.fixed {
		e.fixed[i].run(&e.fixedCtx)
	}
	if e.stopAfter != 0 && s.Tick >= e.stopAfter {
		e.Loop.Pause()
	}
}

func (e *Engine) runFrame(alpha float64) {
	if !e.drawing {
		return
	}
	st := e.Loop.Stats()
	e.frameCtx = FrameContext{World: e.World, DT: st.Interval.Seconds(), Alpha: float32(alpha), Stats: st, Render: &e.Render}
	for i := range e.update {
		e.update[i].run(&e.frameCtx)
	}
	e.World.Interpolate(float32(alpha), float32(e.Loop.DT()), e.interp, &e.Render)
	for i := range e.render {
		e.render[i].run(&e.frameCtx)
	}
}
