package timing

import "time"

// Stats describes the latest frame of a Loop and counts what the loop had to
// throw away. Every field is a plain value; reading Stats does not allocate.
type Stats struct {
	// Frames is the number of frames run, this one included.
	Frames uint64
	// Time is when this frame started, measured from the first frame.
	Time time.Duration
	// Interval is the measured time since the previous frame, before any
	// clamp (0 on the first frame).
	Interval time.Duration
	// Steps is the number of fixed ticks this frame ran.
	Steps int
	// Alpha is the interpolation fraction handed to render, in [0, 1]: 1
	// only in a frame whose tick was held (Loop.Hold).
	Alpha float64
	// Tick is the number of ticks run so far, and SimTime the simulation
	// time they reached.
	Tick    uint64
	SimTime time.Duration // simulation time of the last tick
	// FPS and UPS are frames and ticks per second over the last second.
	FPS, UPS float64
	// Debt is the simulation time this frame owed when it started to step:
	// the accumulator after this frame's interval was added. Steadily more
	// than a tick or two means the machine cannot keep up.
	Debt time.Duration

	// NonPositiveFrames counts frames whose interval was zero or negative
	// (a clock anomaly); they run no tick.
	NonPositiveFrames uint64
	// ClampedFrames counts frames longer than MaxFrameTime, and ClampedTime
	// the time cut from them.
	ClampedFrames uint64
	ClampedTime   time.Duration // real time cut from clamped frames
	// CappedFrames counts frames that reached MaxStepsPerFrame with whole
	// ticks still owed; CappedTicks and CappedTime are what was dropped.
	CappedFrames uint64
	CappedTicks  uint64        // whole ticks dropped by the cap
	CappedTime   time.Duration // real time dropped by the cap
	// HeldFrames counts frames whose tick was held (Loop.Hold), and
	// HeldTime the real time cut from the time owed while ticks were held
	// (what was owed beyond MaxStepsPerFrame ticks, or one tick without a
	// cap).
	HeldFrames uint64
	HeldTime   time.Duration // real time cut while ticks were held
}

// DroppedTime is all the real time the simulation did not get: clamped,
// capped and cut while held. A game that keeps dropping time runs in slow
// motion.
func (s Stats) DroppedTime() time.Duration { return s.ClampedTime + s.CappedTime + s.HeldTime }

// rateWindowSize bounds the frames a rateWindow remembers. At frame rates
// above it per second the window covers less than a second, which still
// measures the rate.
const rateWindowSize = 4096

// rateWindow measures frames and ticks per second over the last second from
// a ring of frame start times and tick counts. It does not allocate.
type rateWindow struct {
	times [rateWindowSize]time.Duration
	ticks [rateWindowSize]uint64
	head  int // index of the oldest entry
	n     int
}

func (w *rateWindow) reset() { w.head, w.n = 0, 0 }

// add records a frame that started at now with ticks run so far, and
// forgets frames more than a second older than it.
func (w *rateWindow) add(now time.Duration, ticks uint64) {
	if w.n == rateWindowSize {
		w.head = (w.head + 1) % rateWindowSize
		w.n--
	}
	i := (w.head + w.n) % rateWindowSize
	w.times[i], w.ticks[i] = now, ticks
	w.n++
	for w.n > 1 && now-w.times[w.head] > time.Second {
		w.head = (w.head + 1) % rateWindowSize
		w.n--
	}
}

// rates returns frames and ticks per second between the oldest and newest
// frame in the window; 0 until two frames at different times are known.
func (w *rateWindow) rates() (fps, ups float64) {
	if w.n < 2 {
		return 0, 0
	}
	newest := (w.head + w.n - 1) % rateWindowSize
	span := w.times[newest] - w.times[w.head]
	if span <= 0 {
		return 0, 0
	}
	secs := span.Seconds()
	return float64(w.n-1) / secs, float64(w.ticks[newest]-w.ticks[w.head]) / secs
}
