package timing

import (
	"fmt"
	"math"
	"time"
)

// Limits of a Pacer's rate. A rate of 0 means unlimited.
const (
	DefaultRenderRate = 144.0
	MaxRenderRate     = 10000.0
)

// Pacer starts frames on a grid of absolute deadlines at a target rate,
// independent of vsync. Deadline k is origin + k/rate, computed from k, so
// the rate never drifts however late single frames are.
//
// Go's time.Sleep wakes late (about 0.1 to 2 ms on Linux, more for short
// sleeps), so Wait sleeps until a margin before the deadline and spins for
// the rest. The margin is the 90th percentile of the last 128 oversleeps the
// pacer observed: it costs a few percent of a core on a quiet machine, and a
// rare long oversleep makes one frame late instead of making every frame
// spin. On a ManualClock, whose sleeps are exact, the margin stays zero and
// Wait never spins.
//
// A frame that misses its deadline starts at once. The next deadline stays
// on the grid, so the frame after a slightly late one is shorter (one frame
// of catch-up); when a frame is more than a whole period late the missed
// deadlines are skipped rather than rendered back to back.
type Pacer struct {
	clock  Clock
	hz     float64
	period float64 // nanoseconds

	started bool
	origin  time.Duration
	k       int64 // index of the deadline of the frame in progress

	margin    time.Duration // spin this long before a deadline
	oversleep oversleepHistogram
	stats     PacerStats
}

// PacerStats counts what a Pacer did.
type PacerStats struct {
	// Frames is the number of Wait calls.
	Frames uint64
	// Late counts frames that began after their deadline, and Skipped the
	// deadlines passed over because a frame was more than a period late.
	Late, Skipped uint64
	// Slept and Spun are the total time spent sleeping and spinning.
	Slept, Spun time.Duration
	// Margin is the current spin margin before a deadline.
	Margin time.Duration
}

// NewPacer returns a pacer on clock at hz frames per second; hz 0 means
// unlimited (Wait returns at once). It returns an error when hz is negative,
// not finite or above MaxRenderRate.
func NewPacer(clock Clock, hz float64) (*Pacer, error) {
	p := &Pacer{clock: clock}
	if err := p.SetRate(hz); err != nil {
		return nil, err
	}
	return p, nil
}

// ValidateRenderRate reports whether hz is an accepted render rate.
func ValidateRenderRate(hz float64) error {
	if math.IsNaN(hz) || hz < 0 || hz > MaxRenderRate {
		return fmt.Errorf("timing: render rate must be 0 (unlimited) or up to %v Hz, got %v", MaxRenderRate, hz)
	}
	return nil
}

// SetRate changes the target rate; the grid restarts at the next Wait.
func (p *Pacer) SetRate(hz float64) error {
	if err := ValidateRenderRate(hz); err != nil {
		return err
	}
	p.hz = hz
	p.period = 0
	if hz > 0 {
		p.period = float64(time.Second) / hz
	}
	p.started = false
	return nil
}

// Rate returns the target rate in Hz (0 = unlimited).
func (p *Pacer) Rate() float64 { return p.hz }

// Stats returns what the pacer has done so far.
func (p *Pacer) Stats() PacerStats {
	s := p.stats
	s.Margin = p.margin
	return s
}

// deadline returns the start time of frame k on the grid.
func (p *Pacer) deadline(k int64) time.Duration {
	return p.origin + time.Duration(math.Round(float64(k)*p.period))
}

// Wait blocks until the next frame's deadline and returns the clock reading
// when it returned: the start time of the next frame. The first Wait after
// NewPacer or SetRate anchors the grid at the current time and waits one
// period. With an unlimited rate it returns at once.
func (p *Pacer) Wait() time.Duration {
	p.stats.Frames++
	now := p.clock.Now()
	if p.period == 0 {
		return now
	}
	if !p.started {
		p.started = true
		p.origin = now
		p.k = 0
	}
	p.k++
	target := p.deadline(p.k)
	if now >= target {
		p.stats.Late++
		if now-target >= time.Duration(p.period) {
			// More than a whole frame behind: do not sprint through the
			// missed deadlines; rejoin the grid at the last one passed.
			k := int64(float64(now-p.origin) / p.period)
			for p.deadline(k) > now { // guard against float rounding
				k--
			}
			p.stats.Skipped += uint64(k - p.k)
			p.k = k
		}
		return now
	}
	return p.sleepUntil(now, target)
}

// sleepUntil sleeps until margin before target, then spins to it.
func (p *Pacer) sleepUntil(now, target time.Duration) time.Duration {
	if d := target - now - p.margin; d > 0 {
		p.clock.Sleep(d)
		woke := p.clock.Now()
		p.stats.Slept += woke - now
		p.observeOversleep(woke - now - d)
		now = woke
	}
	spinFrom := now
	for now < target {
		now = p.clock.Now()
	}
	p.stats.Spun += now - spinFrom
	return now
}

// The spin margin is a high quantile of recent oversleeps, read from a
// histogram of the last oversleepWindow sleeps in oversleepBucket steps.
// Bucket 0 holds sleeps that were not late at all (a ManualClock's), so a
// clock that never oversleeps gets a margin of zero; bucket i > 0 holds
// oversleeps in ((i-1)*step, i*step], the last one everything longer.
const (
	oversleepQuantile = 0.9
	oversleepWindow   = 128
	oversleepBucket   = 50 * time.Microsecond
	oversleepBuckets  = 61 // up to 3 ms of margin
)

// oversleepHistogram tracks the recent oversleeps of a Pacer.
type oversleepHistogram struct {
	ring   [oversleepWindow]uint8 // bucket of each recent sample
	next   int
	n      int
	counts [oversleepBuckets]int
}

// add records one oversleep, forgetting the oldest when the window is full.
func (h *oversleepHistogram) add(over time.Duration) {
	b := 0
	if over > 0 {
		b = min(int((over+oversleepBucket-1)/oversleepBucket), oversleepBuckets-1)
	}
	if h.n == oversleepWindow {
		h.counts[h.ring[h.next]]--
	} else {
		h.n++
	}
	h.ring[h.next] = uint8(b)
	h.counts[b]++
	h.next = (h.next + 1) % oversleepWindow
}

// quantile returns the upper edge of the bucket holding the q-th quantile.
func (h *oversleepHistogram) quantile(q float64) time.Duration {
	want := int(q * float64(h.n))
	seen := 0
	for b, c := range h.counts {
		seen += c
		if seen > want {
			return time.Duration(b) * oversleepBucket
		}
	}
	return time.Duration(oversleepBuckets-1) * oversleepBucket
}

// observeOversleep records how late one sleep woke and sets the margin to
// the oversleepQuantile of the recent ones: most frames then end their sleep
// before the deadline and spin a little, and the rare long oversleep costs
// one late frame instead of a long spin on every frame.
func (p *Pacer) observeOversleep(over time.Duration) {
	p.oversleep.add(over)
	p.margin = p.oversleep.quantile(oversleepQuantile)
}
