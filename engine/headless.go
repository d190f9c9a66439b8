package engine

import (
	"fmt"
	"math"
	"time"

	"github.com/nebulaengine/nebula/timing"
)

// Limits of the simulated display of the headless runner.
const (
	DefaultDisplayHz = 144.0
	MaxDisplayHz     = 10000.0
	MaxJitter        = 0.9
)

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
	// Ticks stops the run at the end of this tick (0 = no tick limit).
	Ticks uint64
	// Frames stops the run after this many frames (0 = no frame limit).
	// At least one of Ticks and Frames must be set.
	Frames uint64
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
		return fmt.Errorf("display rate must be above 0 and at most %v Hz, got %v", MaxDisplayHz, c.DisplayHz)
	}
	if !(c.Jitter >= 0 && c.Jitter <= MaxJitter) {
		return fmt.Errorf("jitter must be from 0 to %v of a frame, got %v", MaxJitter, c.Jitter)
	}
	if c.Ticks == 0 && c.Frames == 0 {
		return fmt.Errorf("a headless run needs a tick or frame limit")
	}
	return nil
}

// HeadlessResult tells how a headless run ended.
type HeadlessResult struct {
	Frames   uint64        // frames run
	Ticks    uint64        // fixed ticks run
	SimTime  time.Duration // simulated time reached
	Elapsed  time.Duration // simulated display time used
	WorldSum uint64        // the world's state hash at the end
}

// RunHeadless drives e from a simulated display on a manual clock, as fast
// as the CPU allows, until the tick or frame limit. Frame k+1 starts one
// display period after frame k, varied by the jitter; the display's clock
// is the only source of time, so the run is a pure function of e's systems,
// its input script and cfg. With a tick limit the world ends at exactly
// that tick (a World.Tick number), whatever the display. A panic in a
// system ends the run with the engine's *PanicError (see Engine.Err).
func RunHeadless(e *Engine, cfg HeadlessConfig) (HeadlessResult, error) {
	if err := cfg.Validate(); err != nil {
		return HeadlessResult{}, fmt.Errorf("engine: headless: %w", err)
	}
	clock := timing.NewManualClock(0)
	display := newSimDisplay(cfg)
	e.StopAfter(cfg.Ticks)
	defer e.StopAfter(0)
	drawing := e.drawing
	e.drawing = cfg.Draw
	defer func() { e.drawing = drawing }()
	for {
		e.Frame(clock.Now())
		if err := e.Err(); err != nil {
			return HeadlessResult{Frames: e.Loop.Frames(), Ticks: e.Loop.Ticks(), SimTime: e.Loop.SimTime(), Elapsed: clock.Now()}, err
		}
		if cfg.OnFrame != nil {
			cfg.OnFrame(e.Loop.Stats())
		}
		frames := e.Loop.Frames()
		if (cfg.Ticks != 0 && e.World.Tick() >= cfg.Ticks) || (cfg.Frames != 0 && frames >= cfg.Frames) {
			return HeadlessResult{
				Frames:   frames,
				Ticks:    e.Loop.Ticks(),
				SimTime:  e.Loop.SimTime(),
				Elapsed:  clock.Now(),
				WorldSum: e.World.Hash(),
			}, nil
		}
		clock.Set(display.next())
	}
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
// 1 + jitter*u after the current one, u uniform in [-1, 1).
func (d *simDisplay) next() time.Duration {
	f := 1.0
	if d.jitter > 0 {
		u := float64(d.rng.Uint32())/(1<<31) - 1
		f += d.jitter * u
	}
	d.at += d.period * f
	return time.Duration(math.Round(d.at))
}
