package timing

import (
	"math"
	"slices"
	"time"
)

// IntervalSummary describes a run of frame intervals against a target
// interval: what a pacing report prints.
type IntervalSummary struct {
	// Count is the number of intervals.
	Count int
	// Rate is the mean frame rate: Count divided by the summed intervals.
	Rate float64
	// P50, P95, P99 and Max are percentiles of the intervals.
	P50, P95, P99, Max time.Duration
	// ErrP50 and ErrP99 are percentiles of |interval - target|.
	ErrP50, ErrP99 time.Duration
}

// SummarizeIntervals summarises frame intervals against target (the ideal
// interval, 1/rate). It sorts copies, so it allocates; call it at the end of
// a run, not per frame. An empty input gives a zero summary.
func SummarizeIntervals(intervals []time.Duration, target time.Duration) IntervalSummary {
	n := len(intervals)
	if n == 0 {
		return IntervalSummary{}
	}
	sorted := slices.Clone(intervals)
	slices.Sort(sorted)
	errs := make([]time.Duration, n)
	var total time.Duration
	for i, d := range intervals {
		total += d
		e := d - target
		if e < 0 {
			e = -e
		}
		errs[i] = e
	}
	slices.Sort(errs)
	s := IntervalSummary{
		Count:  n,
		P50:    percentile(sorted, 50),
		P95:    percentile(sorted, 95),
		P99:    percentile(sorted, 99),
		Max:    sorted[n-1],
		ErrP50: percentile(errs, 50),
		ErrP99: percentile(errs, 99),
	}
	if total > 0 {
		s.Rate = float64(n) / total.Seconds()
	}
	return s
}

// percentile returns the nearest-rank p-th percentile of sorted values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	return sorted[rank-1]
}
