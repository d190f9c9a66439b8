package timing

import "time"

// A Clock tells the time as a monotonic duration since an arbitrary origin
// and can wait. Loop code never asks a Clock itself: the caller reads Now once
// per frame and passes it in, so tests and the headless runner can feed
// invented times.
type Clock interface {
	// Now returns the time elapsed since the clock's origin. It never goes
	// backwards for the real clock; a ManualClock may be set anywhere.
	Now() time.Duration
	// Sleep blocks for about d (the real clock may oversleep; see Pacer).
	Sleep(d time.Duration)
}

// MonotonicClock is the real clock: Go's monotonic time since the clock was
// made. It is immune to wall-clock changes.
type MonotonicClock struct {
	origin time.Time
}

// NewMonotonicClock returns a real clock whose origin is now.
func NewMonotonicClock() *MonotonicClock {
	return &MonotonicClock{origin: time.Now()}
}

// Now returns the monotonic time since the clock was made.
func (c *MonotonicClock) Now() time.Duration { return time.Since(c.origin) }

// Sleep blocks for d: in nanosleep(2) on Linux, which oversleeps less than
// time.Sleep (see sleep_linux.go), and with time.Sleep elsewhere.
func (c *MonotonicClock) Sleep(d time.Duration) {
	if d > 0 {
		sleep(d)
	}
}

// ManualClock is a clock that moves only when told to. Tests and the headless
// runner use it to drive the loop with invented frame times. Sleep advances
// it by exactly the requested duration, so a Pacer on a ManualClock lands on
// its deadlines exactly. The zero value reads 0 and is ready to use.
type ManualClock struct {
	now time.Duration
}

// NewManualClock returns a manual clock that reads start.
func NewManualClock(start time.Duration) *ManualClock {
	return &ManualClock{now: start}
}

// Now returns the clock's current reading.
func (c *ManualClock) Now() time.Duration { return c.now }

// Set moves the clock to t, forwards or backwards.
func (c *ManualClock) Set(t time.Duration) { c.now = t }

// Advance moves the clock forwards by d (backwards when d is negative).
func (c *ManualClock) Advance(d time.Duration) { c.now += d }

// Sleep advances the clock by d when d is positive, like an ideal sleep.
func (c *ManualClock) Sleep(d time.Duration) {
	if d > 0 {
		c.now += d
	}
}
