package timing

import "time"

// Durations is a histogram of durations from 0 to MaxDuration in steps of
// DurationStep, for percentiles without keeping every sample; larger
// durations count in the last bucket. The zero value is empty and ready;
// Add does not allocate.
type Durations struct {
	counts [durationBuckets]uint32
	n      uint64
	max    time.Duration
}

// The histogram's resolution and range.
const (
	DurationStep    = 20 * time.Microsecond
	MaxDuration     = 400 * time.Millisecond
	durationBuckets = int(MaxDuration/DurationStep) + 1
)

// Add counts d (negative counts as 0).
func (l *Durations) Add(d time.Duration) {
	d = max(d, 0)
	l.max = max(l.max, d)
	l.counts[min(int(d/DurationStep), durationBuckets-1)]++
	l.n++
}

// Count returns the number of durations added.
func (l *Durations) Count() uint64 { return l.n }

// Max returns the largest duration added.
func (l *Durations) Max() time.Duration { return l.max }

// Percentile returns the duration below which a fraction q (0 to 1) of
// the added durations fall, to DurationStep (the top of its bucket, at
// most Max); 0 when none were added.
func (l *Durations) Percentile(q float64) time.Duration {
	if l.n == 0 {
		return 0
	}
	rank := uint64(q*float64(l.n) + 0.5)
	rank = min(max(rank, 1), l.n)
	var seen uint64
	for i, c := range l.counts {
		seen += uint64(c)
		if seen >= rank {
			return min(time.Duration(i+1)*DurationStep, l.max)
		}
	}
	return l.max
}
