package engine

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/nebulaengine/nebula/timing"
)

// Limits of the simulated display of the headless runner, and the default
// of HeadlessConfig.StallTicks.
const (
	DefaultDisplayHz = 144.0
	MaxDisplayHz     = 10000.0
	MaxJitter        = 0.9
	// DefaultStallTicks is how many ticks' worth of display time a
	// headless run with a tick limit waits for a new world tick before it
	// fails as stalled (a healthy loop needs at most one tick's worth and
	// one frame).
	DefaultStallTicks = 60
)

// ErrStalled is wrapped by the error of a headless run that stopped making
// progress towards its tick limit; the error says why (a paused loop, a
// TickGate that holds every tick, a hook that sets the world back).
var ErrStalled = errors.New("stalled")

// HeadlessConfig describes the simulated display that drives a headless
// run, and when the run stops.
type HeadlessConfig struct {
	// DisplayHz is the simulated display's refresh rate, in (0, 10000].
	DisplayHz float64
	// Jitter varies each frame interval by up to this fraction of a frame,
	// uniformly, in [0, 0.9]; JitterSeed seeds that variation.
	Jitter float64
	// JitterSeed seeds the jitter's random sequence.
	JitterSeed uint64
	// Ticks is the world tick (World.Tick) the run stops at, at the end of
	// that tick, whatever the display (0 = no tick limit). It is a tick
	// number, not a count: on an engine that already ran (an earlier run,
	// frames run by hand, a Restore), the run goes on from the world's
	// tick up to Ticks; a world already at Ticks runs no frame, and one
	// past it is an error.
	Ticks uint64
	// Frames stops the run after this many frames of this run (0 = no
	// frame limit). At least one of Ticks and Frames must be set; with
	// both, the run stops at whichever comes first.
	Frames uint64
	// StallTicks bounds a run with a tick limit that makes no progress:
	// when this many ticks' worth of display time pass (at the loop's tick
	// rate and speed) without the world reaching a tick it has not reached
	// before in the run, the run ends with an error wrapping ErrStalled
	// that says why. 0 means DefaultStallTicks.
	StallTicks uint64
	// Draw runs the Update schedule, interpolation and the Render schedule
	// every frame, as a windowed run does. Off, a headless run only
	// simulates: nothing would read the render buffer.
	Draw bool
	// OnFrame, if set, is called after every frame with the loop's
	// statistics (for a -stats file).
	OnFrame func(timing.Stats)
}

// DefaultHeadlessConfig returns a 144 Hz display without jitter and no
// limits (set Ticks or Frames).
func DefaultHeadlessConfig() HeadlessConfig {
	return HeadlessConfig{DisplayHz: DefaultDisplayHz}
}

// Validate reports the first out-of-range field, saying what is accepted.
func (c HeadlessConfig) Validate() error {
	if !(c.DisplayHz > 0 && c.DisplayHz <= MaxDisplayHz) {
		return fmt.Errorf("engine: headless: display rate must be above 0 and at most %v Hz, got %v", MaxDisplayHz, c.DisplayHz)
	}
	if !(c.Jitter >= 0 && c.Jitter <= MaxJitter) {
		return fmt.Errorf("engine: headless: jitter must be from 0 to %v of a frame, got %v", MaxJitter, c.Jitter)
	}
	if c.Ticks == 0 && c.Frames == 0 {
		return fmt.Errorf("engine: headless: a run needs a tick or frame limit")
	}
	return nil
}

// HeadlessResult tells how a headless run ended. The counts are this
// run's: on an engine that already ran, they leave out what ran before.
type HeadlessResult struct {
	Frames   uint64        // frames run
	Ticks    uint64        // fixed ticks run by the loop
	SimTime  time.Duration // simulated time those ticks cover
	Elapsed  time.Duration // simulated display time used
	WorldSum uint64        // the world's state hash at the end
}

// RunHeadless drives e from a simulated display on a manual clock, as fast
// as the CPU allows, until the tick or frame limit. Frame k+1 starts one
// display period after frame k, varied by the jitter; the display's clock
// is the only source of time, so the run is a pure function of e's state,
// its systems, its input script and cfg. With a tick limit the world ends
// at exactly that tick (a World.Tick number), whatever the display.
//
// RunHeadless continues an engine that already ran: the display starts
// where e's latest frame (Engine.Frame, by hand or by an earlier run)
// left the clock, the first frame one display period after it, so the
// loop's time goes on forward. A fresh engine's first frame is at time 0
// and only starts the loop's clock. Runs to tick a and then to tick b end
// with the world of one run to tick b. RunHeadless leaves the loop paused
// only if it was paused before (it resumes the pause its tick limit
// caused) and restores the engine's StopAfter.
//
// A panic in a system ends the run with the engine's *PanicError (see
// Engine.Err); an engine that panicked before runs nothing and returns
// it. A run with a tick limit that stops making progress (see
// HeadlessConfig.StallTicks) ends with an error wrapping ErrStalled.
func RunHeadless(e *Engine, cfg HeadlessConfig) (HeadlessResult, error) {
	if err := cfg.Validate(); err != nil {
		return HeadlessResult{}, err
	}
	if err := e.Err(); err != nil {
		return HeadlessResult{}, fmt.Errorf("engine: headless: the engine stopped at an earlier panic: %w", err)
	}
	if t := e.World.Tick(); cfg.Ticks != 0 && t > cfg.Ticks {
		return HeadlessResult{}, fmt.Errorf("engine: headless: the world is at tick %d, past the tick limit %d", t, cfg.Ticks)
	}
	r := headlessRun{e: e, cfg: cfg, display: newSimDisplay(cfg), ticks0: e.Loop.Ticks(), sim0: e.Loop.SimTime()}
	if e.framed {
		r.display.at = float64(e.lastFrame)
		r.now = e.lastFrame
	}
	r.start = r.now
	if r.limitReached() {
		return r.result(), nil
	}
	paused := e.Loop.Paused()
	stop := e.stopAfter
	e.StopAfter(cfg.Ticks)
	drawing := e.drawing
	e.drawing = cfg.Draw
	defer func() {
		e.drawing = drawing
		e.StopAfter(stop)
		if !paused && e.Loop.Paused() && e.crash == nil {
			// Paused by the tick limit: the next run, or a frame run by
			// hand, goes on from here.
			e.Loop.Resume(r.now)
		}
	}()
	if e.framed {
		if err := r.advance(); err != nil {
			return r.result(), err
		}
	}
	stall := newStallWatch(e, cfg, r.start)
	for {
		e.Frame(r.now)
		r.frames++
		if err := e.Err(); err != nil {
			return r.result(), err
		}
		if cfg.OnFrame != nil {
			cfg.OnFrame(e.Loop.Stats())
		}
		if r.limitReached() {
			return r.result(), nil
		}
		if err := stall.frame(r.now); err != nil {
			return r.result(), fmt.Errorf("engine: headless: %w", err)
		}
		if err := r.advance(); err != nil {
			return r.result(), err
		}
	}
}

// headlessRun is the state of one RunHeadless call.
type headlessRun struct {
	e       *Engine
	cfg     HeadlessConfig
	display *simDisplay
	now     time.Duration // the display's clock: the current frame's start
	start   time.Duration // the clock when the run began
	frames  uint64        // frames this run
	ticks0  uint64        // the loop's ticks when the run began
	sim0    time.Duration // the loop's simulated time when the run began
}

// limitReached reports whether the run has reached its tick or frame
// limit.
func (r *headlessRun) limitReached() bool {
	return (r.cfg.Ticks != 0 && r.e.World.Tick() >= r.cfg.Ticks) || (r.cfg.Frames != 0 && r.frames >= r.cfg.Frames)
}

// advance moves the clock to the next frame's start.
func (r *headlessRun) advance() error {
	next, ok := r.display.next()
	if !ok {
		return fmt.Errorf("engine: headless: the engine's clock is at %v, too close to the largest time.Duration to go on", r.now)
	}
	r.now = next
	return nil
}

// result returns the run's figures so far.
func (r *headlessRun) result() HeadlessResult {
	l := r.e.Loop
	res := HeadlessResult{Frames: r.frames, Elapsed: r.now - r.start, WorldSum: r.e.World.Hash()}
	if t := l.Ticks(); t >= r.ticks0 { // not after a Loop.Reset in the run
		res.Ticks = t - r.ticks0
		res.SimTime = l.SimTime() - r.sim0
	}
	return res
}

// stallWatch tells a headless run that makes no progress towards its tick
// limit: it adds up the display time that passes (clamped and scaled as
// the loop feeds it, in ticks) while the world does not reach a new tick.
type stallWatch struct {
	e     *Engine
	on    bool          // the run has a tick limit
	limit float64       // ticks' worth of display time allowed without a new tick
	best  uint64        // the highest world tick reached in the run
	owed  float64       // ticks' worth of display time since then
	last  time.Duration // the previous frame's start

	// At the start of the current stall: the loop's counts, and frames.
	held, ticks uint64
	frames      uint64
}

// newStallWatch returns the stall watch of a run whose clock starts at
// start (the previous frame's time, or 0 before the first frame).
func newStallWatch(e *Engine, cfg HeadlessConfig, start time.Duration) *stallWatch {
	limit := cfg.StallTicks
	if limit == 0 {
		limit = DefaultStallTicks
	}
	w := &stallWatch{e: e, on: cfg.Ticks != 0, limit: float64(limit), last: start}
	w.reset()
	return w
}

// reset starts a new stall count at the world's tick.
func (w *stallWatch) reset() {
	st := w.e.Loop.Stats()
	w.best, w.owed = w.e.World.Tick(), 0
	w.held, w.ticks, w.frames = st.HeldFrames, w.e.Loop.Ticks(), 0
}

// frame accounts for a frame that started at now, and returns an error
// wrapping ErrStalled, saying why, when the run has stalled.
func (w *stallWatch) frame(now time.Duration) error {
	if !w.on {
		return nil
	}
	l := w.e.Loop
	interval := now - w.last
	w.last = now
	if w.e.World.Tick() > w.best {
		w.reset()
		return nil
	}
	w.frames++
	if interval > 0 {
		interval = min(interval, l.Config().MaxFrameTime)
		w.owed += interval.Seconds() * l.Speed() * float64(l.TickRate())
	}
	if w.owed < w.limit {
		return nil
	}
	st := l.Stats()
	var why string
	switch {
	case l.Paused():
		why = "the loop is paused (Loop.Pause) and nothing resumes it"
	case st.HeldFrames > w.held:
		why = fmt.Sprintf("the tick hook (a TickGate) held tick %d in %d frames; a headless run has no real time to wait in", w.best+1, st.HeldFrames-w.held)
	case l.Ticks() > w.ticks:
		why = fmt.Sprintf("the loop ran %d ticks, but the world never got past tick %d (a hook sets it back)", l.Ticks()-w.ticks, w.best)
	default:
		why = "no tick ran"
	}
	return fmt.Errorf("%w at world tick %d (limit %d): %s; no new tick for %.0f ticks' worth of display time (%d frames)",
		ErrStalled, w.best, w.e.stopAfter, why, w.owed, w.frames)
}

// simDisplay yields the frame start times of a simulated display. It
// keeps the exact start time as a float and rounds each one, so that the
// display does not drift by rounding every interval: frame k of a display
// without jitter starts at round(k/rate).
type simDisplay struct {
	period float64 // ns
	jitter float64
	rng    RNG
	at     float64 // start of the current frame, ns
}

func newSimDisplay(cfg HeadlessConfig) *simDisplay {
	return &simDisplay{period: float64(time.Second) / cfg.DisplayHz, jitter: cfg.Jitter, rng: NewRNG(cfg.JitterSeed)}
}

// next returns the start time of the next frame, a period times
// 1 + jitter*u after the current one, u uniform in [-1, 1), or false when
// that time does not fit in a time.Duration.
func (d *simDisplay) next() (time.Duration, bool) {
	f := 1.0
	if d.jitter > 0 {
		u := float64(d.rng.Uint32())/(1<<31) - 1
		f += d.jitter * u
	}
	at := d.at + d.period*f
	if at >= math.MaxInt64 { // float64(math.MaxInt64) is 2^63, beyond the largest Duration
		return 0, false
	}
	d.at = at
	return time.Duration(math.Round(at)), true
}
