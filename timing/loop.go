package timing

import (
	"fmt"
	"math/bits"
	"time"
)

// unitsPerTick is one tick in the accumulator's unit. The accumulator counts
// nanoseconds multiplied by the tick rate, so a tick is exactly 1e9 units for
// every integer rate and no remainder is ever rounded away: 1/60 s, which is
// not a whole number of nanoseconds, is still exactly 1e9 units at 60 Hz.
const unitsPerTick = int64(time.Second)

// A Step describes one fixed tick to the fixed-step callback.
type Step struct {
	// Tick is the number of this tick, counting from 1 for the first tick
	// after NewLoop or Reset. When the callback returns, Loop.Ticks()
	// equals Tick.
	Tick uint64
	// DT is the fixed step in seconds, 1/TickRate.
	DT float64
	// SimTime is the simulation time the world reaches at the end of this
	// tick: Tick/TickRate seconds, computed from the tick number (rounded
	// down to the nanosecond), never by summing DT.
	SimTime time.Duration
	// Due is the clock time at which the accumulator came to hold this
	// tick: between the previous frame and this one, never after the
	// frame's start. Input events with times up to Due belong to this
	// tick. Due never decreases from one tick to the next while the clock
	// does not go backwards, also across a tick-rate change (see
	// SetTickRate). When a frame was clamped, the ticks' due times are
	// compressed into the start of the frame; the events after them wait
	// for later ticks, and none is lost.
	Due time.Duration
}

// Loop is a fixed-timestep loop ("Fix Your Timestep"). Each call to Tick is
// one rendered frame: it measures the real time since the previous frame,
// clamps it, adds it to an exact integer accumulator, runs the fixed-step
// callback once for every whole tick the accumulator holds (up to the step
// cap), then calls the render callback once with alpha, the fraction of a
// tick left over, in [0, 1] (1 only in a frame whose tick was held: see
// Hold).
//
// A Loop is not safe for concurrent use; call it from the thread that owns
// the frame. Tick does not allocate.
type Loop struct {
	cfg       Config
	rate      int64
	dtSeconds float64

	acc int64 // not yet simulated time in ns*rate; below unitsPerTick between frames, unless a tick was held
	// speed scales the real time fed to the accumulator, in units of
	// 1/speedOne (speedOne: real time; see SetSpeed).
	speed  int64
	ticks  uint64
	frames uint64

	// held is set by Hold during the fixed callback: the step being run
	// is not run.
	held bool

	// While Tick runs the fixed callbacks, stepping is set and fedEnd is
	// the clock time up to which the frame fed the accumulator (its start,
	// or the start of its clamped part): a tick is due at fedEnd minus the
	// time still owed after it.
	stepping bool
	fedEnd   time.Duration

	// Sim time is baseTime + (ticks-baseTicks)/rate; the base moves when
	// the tick rate changes, so earlier ticks keep their times.
	baseTicks uint64
	baseTime  time.Duration

	started bool          // a frame has set the time reference
	paused  bool          // no time accumulates
	resumed bool          // Resume set the time reference; no frame since
	last    time.Duration // now of the previous frame, or of the Resume
	origin  time.Duration // now of the first frame

	stats  Stats
	window rateWindow
}

// NewLoop returns a loop with the given configuration, or an error naming
// the field that is out of range.
func NewLoop(cfg Config) (*Loop, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l := &Loop{cfg: cfg, speed: speedOne}
	l.setRate(cfg.TickRate)
	return l, nil
}

// MustNewLoop is NewLoop for configurations known to be valid, such as
// DefaultConfig(); it panics on an invalid one.
func MustNewLoop(cfg Config) *Loop {
	l, err := NewLoop(cfg)
	if err != nil {
		panic(err.Error())
	}
	return l
}

func (l *Loop) setRate(hz int) {
	l.cfg.TickRate = hz
	l.rate = int64(hz)
	l.dtSeconds = 1 / float64(hz)
}

// Tick advances the loop by one frame that starts at now (a Clock reading):
// the whole fixed ticks the elapsed time owes, then one render. It is the
// method the desktop runner's main-thread loop calls once per frame. The
// first Tick after NewLoop or Reset only sets the time reference and runs
// no tick.
// Otherwise the interval since the time reference (the previous frame, or
// the Resume after it) is clamped to MaxFrameTime and accumulated; fixed is
// called for each whole tick, at most MaxStepsPerFrame times (whole ticks
// beyond the cap are dropped and counted); a zero or negative interval runs
// no tick and is counted as an anomaly, except a zero interval right after
// Resume (Resume(t) then Tick(t)), which is expected. While paused no time
// accumulates. Finally render is called exactly once with alpha in [0, 1).
// Tick returns the number of ticks it ran.
//
// Either callback may be nil. Stats is up to date when render is called.
// The fixed callback may call SetTickRate and Pause; see their docs for
// what that does to the ticks the frame still owes.
func (l *Loop) Tick(now time.Duration, fixed func(Step), render func(alpha float64)) int {
	s := &l.stats
	l.frames++
	s.Frames = l.frames
	s.Steps = 0

	l.stepping = false // a fixed callback that panicked left it set
	first := !l.started
	if first {
		l.started = true
		l.last = now
		if l.frames == 1 {
			l.origin = now
		}
	}
	prev := l.last
	interval := now - prev
	l.last = now
	resumed := l.resumed
	l.resumed = false
	s.Interval = interval
	s.Time = now - l.origin

	l.fedEnd = prev
	fed := false // only a frame that fed time runs ticks (ticks held earlier may be owed)
	switch {
	case first || l.paused:
		// Nothing to accumulate: the reference was just set, or time is
		// stopped.
	case interval == 0 && resumed:
		// Resume(now) then Tick(now): nothing to accumulate, and nothing
		// wrong either.
	case interval <= 0:
		s.NonPositiveFrames++
		if interval < 0 {
			l.window.reset()
		}
	default:
		if interval > l.cfg.MaxFrameTime {
			s.ClampedFrames++
			s.ClampedTime += interval - l.cfg.MaxFrameTime
			interval = l.cfg.MaxFrameTime
		}
		l.acc += l.scale(interval) * l.rate
		l.fedEnd = prev + interval
		fed = true
	}
	s.Debt = time.Duration(l.acc / l.rate)

	l.stepping, l.held = true, false
	held := false
	for fed && l.acc >= unitsPerTick && !l.paused {
		if l.cfg.MaxStepsPerFrame > 0 && s.Steps == l.cfg.MaxStepsPerFrame {
			whole := l.acc / unitsPerTick
			l.acc -= whole * unitsPerTick
			s.CappedFrames++
			s.CappedTicks += uint64(whole)
			s.CappedTime += time.Duration(whole * unitsPerTick / l.rate)
			break
		}
		l.acc -= unitsPerTick
		l.ticks++
		s.Steps++
		if fixed != nil {
			// The accumulator was fed up to fedEnd and still holds acc
			// after this tick, so the tick became due acc/rate before
			// fedEnd (rounded up to the nanosecond). The accumulator holds
			// time, in whichever rate, so this holds across SetTickRate.
			due := l.fedEnd - l.unscale(l.acc/l.rate)
			baseTicks, baseTime, rate := l.baseTicks, l.baseTime, l.rate
			fixed(Step{Tick: l.ticks, DT: l.dtSeconds, SimTime: l.simTime(l.ticks), Due: due})
			if l.held {
				// Not run after all: the tick is owed again (below) and
				// keeps its number for when it runs.
				l.held, held = false, true
				l.ticks--
				s.Steps--
				if l.baseTicks > l.ticks {
					// SetTickRate in the held step based the new rate on
					// the held tick: base it on the tick before, at the
					// time the old rate gave it.
					l.baseTime = simTimeAt(baseTicks, baseTime, rate, l.ticks)
					l.baseTicks = l.ticks
				}
				break
			}
		}
	}
	l.stepping = false

	if l.paused {
		// Paused by a fixed callback: the ticks still owed are not run,
		// like the rest of the pause; the fraction of a tick is kept.
		l.acc %= unitsPerTick
	}
	if held {
		// The held tick is owed again, and so is the time behind it, up
		// to the cap of a frame's ticks (one tick without a cap): a long
		// wait does not become a burst of ticks afterwards.
		l.acc += unitsPerTick
		limit := int64(max(l.cfg.MaxStepsPerFrame, 1)) * unitsPerTick
		if l.acc > limit {
			s.HeldTime += time.Duration((l.acc - limit) / l.rate)
			l.acc = limit
		}
		s.HeldFrames++
	}
	s.Alpha = l.Alpha()
	s.Tick = l.ticks
	s.SimTime = l.simTime(l.ticks)
	l.window.add(now, l.ticks)
	s.FPS, s.UPS = l.window.rates()

	if render != nil {
		render(s.Alpha)
	}
	return s.Steps
}

// simTime returns the simulation time after tick n.
func (l *Loop) simTime(n uint64) time.Duration {
	return simTimeAt(l.baseTicks, l.baseTime, l.rate, n)
}

// simTimeAt returns the simulation time after tick n at rate Hz, tick
// baseTicks having ended at baseTime.
func simTimeAt(baseTicks uint64, baseTime time.Duration, rate int64, n uint64) time.Duration {
	hi, lo := bits.Mul64(n-baseTicks, uint64(time.Second))
	q, _ := bits.Div64(hi, lo, uint64(rate))
	return baseTime + time.Duration(q)
}

// Alpha returns how far the present is between the last tick and the next,
// as a fraction of a tick in [0, 1]. Renderers interpolate with it. It is
// below 1, except after a frame whose tick was held (Hold) with a whole
// tick owed: then it is exactly 1, and the picture shows the latest tick.
func (l *Loop) Alpha() float64 { return min(float64(l.acc)/float64(unitsPerTick), 1) }

// Owed returns the time the accumulator holds, in ticks: below 1 between
// frames (it is alpha then), and up to MaxStepsPerFrame after frames
// whose tick was held (Hold), which Alpha clamps to 1. A networked client
// steering its tick clock reads where its loop really is from it.
func (l *Loop) Owed() float64 { return float64(l.acc) / float64(unitsPerTick) }

// Ticks returns the number of fixed ticks run since NewLoop or Reset.
func (l *Loop) Ticks() uint64 { return l.ticks }

// Frames returns the number of Tick calls (frames) since NewLoop or Reset.
func (l *Loop) Frames() uint64 { return l.frames }

// SimTime returns the simulation time reached by the ticks run so far.
func (l *Loop) SimTime() time.Duration { return l.simTime(l.ticks) }

// TickRate returns the fixed tick rate in Hz.
func (l *Loop) TickRate() int { return l.cfg.TickRate }

// DT returns the fixed step in seconds.
func (l *Loop) DT() float64 { return l.dtSeconds }

// Config returns the loop's current configuration.
func (l *Loop) Config() Config { return l.cfg }

// Stats returns the statistics of the latest frame and the running counts.
func (l *Loop) Stats() Stats { return l.stats }

// Paused reports whether the loop is paused.
func (l *Loop) Paused() bool { return l.paused }

// Pause stops the simulation: frames keep rendering (with an unchanging
// alpha) but no time accumulates and no tick runs. Called from a fixed
// callback, it also stops the ticks the current frame still owed: a
// headless run that pauses at tick n ends exactly at tick n.
func (l *Loop) Pause() { l.paused = true }

// Hold declares the tick being run not run. A fixed callback calls it when
// the tick cannot run yet (a lockstep client that does not hold the tick's
// inputs, which the engine's TickGate asks for) and returns without
// simulating anything. The loop then:
//
//   - does not count the tick: Ticks, Stats.Steps and Tick's result leave
//     it out, and the next tick run has the held tick's Step.Tick and
//     SimTime (and its Due, unless time was cut, below);
//   - runs no more ticks in this frame;
//   - keeps the time owed, the held tick's included, but at most
//     MaxStepsPerFrame ticks of it (one tick when there is no cap), so that
//     a long wait does not become a burst of catch-up ticks: the real time
//     cut is counted in Stats.HeldTime (and so in DroppedTime), the frame in
//     Stats.HeldFrames;
//   - renders with alpha exactly 1: the picture shows the latest tick, and
//     stays there until ticks run again.
//
// A callback that holds a tick after calling SetTickRate in it gets the new
// rate from the held tick on. Outside the fixed callback Hold does nothing.
func (l *Loop) Hold() {
	if l.stepping {
		l.held = true
	}
}

// Resume restarts a paused simulation. The time reference becomes now: the
// next Tick accumulates only the time from now to its own start, so the
// pause is not caught up in a burst of ticks, and a Tick at now itself runs
// no tick and is not counted as a non-positive frame. The leftover fraction
// of a tick is kept, so the picture does not jump. Before the first Tick,
// Resume only unpauses: that Tick sets the time reference.
func (l *Loop) Resume(now time.Duration) {
	l.paused = false
	if l.started {
		l.last = now
		l.resumed = true
	}
}

// Reset returns the loop to its state after NewLoop, keeping the current
// configuration (including a tick rate set by SetTickRate): no ticks, no
// frames, an empty accumulator, cleared statistics, not paused.
func (l *Loop) Reset() {
	*l = Loop{cfg: l.cfg, rate: l.rate, dtSeconds: l.dtSeconds, speed: speedOne}
}

// Speed limits: SetSpeed accepts factors from MinSpeed to MaxSpeed.
const (
	MinSpeed = 0.5
	MaxSpeed = 2.0
)

// speedOne is a speed of 1 (real time) in the loop's fixed-point unit.
const speedOne = 1 << 16

// SetSpeed makes the loop's tick clock run at factor times real time from
// the next frame on: each frame's interval (after the MaxFrameTime clamp)
// is multiplied by factor before it is added to the accumulator, so ticks
// come factor times as often, and alpha moves factor times as fast. A
// networked client steers its tick clock with it, a few percent either
// way, to stay at the right distance behind (or ahead of) the server's
// ticks without a burst or a pause. The factor is rounded to a multiple of
// 1/65536; 1, the default, is exactly real time. It returns an error, and
// changes nothing, for a factor outside [MinSpeed, MaxSpeed] or NaN.
// Reset keeps the factor at 1.
func (l *Loop) SetSpeed(factor float64) error {
	if !(factor >= MinSpeed && factor <= MaxSpeed) {
		return fmt.Errorf("timing: speed must be from %v to %v times real time, got %v", MinSpeed, MaxSpeed, factor)
	}
	l.speed = int64(factor*speedOne + 0.5)
	return nil
}

// Speed returns the factor set by SetSpeed (1: real time).
func (l *Loop) Speed() float64 {
	if l.speed == 0 {
		return 1
	}
	return float64(l.speed) / speedOne
}

// scale returns a real interval in the loop's sped-up time. The interval
// is at most MaxMaxFrameTime (3.6e12 ns), so times the speed (at most
// 2*speedOne) it fits in an int64.
func (l *Loop) scale(d time.Duration) int64 {
	if l.speed == speedOne || l.speed == 0 { // 0: a Loop not made by NewLoop
		return int64(d)
	}
	return int64(d) * l.speed / speedOne
}

// unscale returns the real time of an interval of sped-up time.
func (l *Loop) unscale(t int64) time.Duration {
	if l.speed == speedOne || l.speed == 0 {
		return time.Duration(t)
	}
	return time.Duration(t * speedOne / l.speed)
}

// SetTickRate changes the tick rate from the next tick on. Ticks already run
// keep their simulation times. It returns an error, and changes nothing,
// when hz is out of range. What happens to the time not yet simulated
// depends on when it is called:
//
//   - Between frames (outside Tick, or from the render callback), the
//     accumulator holds less than a tick, and that fraction of a tick
//     (alpha) is kept as a fraction, so rendering does not jump: the next
//     tick comes after (1-alpha) ticks of the new rate. After a frame
//     whose tick was held, the accumulator holds whole ticks: their real
//     time is kept, converted as from the fixed callback (below). The real time it
//     stood for changes from alpha/old to alpha/new seconds, less than one
//     tick of the slower rate; that is the rate change's phase, not a
//     frame's time, and is not counted in Stats.
//   - From the fixed callback, during Tick (a snapshot restored in a tick
//     hook, a replay reaching a recorded rate change), the frame may still
//     owe ticks at the old rate. Their real time is kept: the accumulator
//     is converted to the new rate exactly, acc*new/old rounded down to its
//     unit (1/new of a nanosecond, so less than a nanosecond is lost per
//     change), and the frame goes on running the whole ticks that time
//     holds at the new rate, under the same MaxStepsPerFrame cap (ticks
//     beyond it are dropped and counted in CappedTicks and CappedTime).
//     Step.Due goes on increasing from the tick that made the change and
//     never passes the frame's start, and alpha after the frame is the
//     fraction of a new-rate tick left over.
func (l *Loop) SetTickRate(hz int) error {
	if err := ValidateTickRate(hz); err != nil {
		return err
	}
	l.baseTime = l.simTime(l.ticks)
	l.baseTicks = l.ticks
	if l.stepping || l.acc >= unitsPerTick {
		// acc is at most MaxMaxFrameTime*MaxTickRate + a tick, about
		// 3.6e15, so acc*hz (hz at most 1000) fits in an int64.
		l.acc = l.acc * int64(hz) / l.rate
	}
	l.setRate(hz)
	return nil
}

// String describes the loop's configuration, for logs.
func (l *Loop) String() string {
	return fmt.Sprintf("timing.Loop{%d Hz, max frame %v, max steps %d}", l.cfg.TickRate, l.cfg.MaxFrameTime, l.cfg.MaxStepsPerFrame)
}
