package timing

import (
	"math"
	"testing"
	"time"
)

func BenchmarkLoopTick(b *testing.B) {
	l := MustNewLoop(DefaultConfig())
	fixed := func(Step) {}
	render := func(float64) {}
	b.ReportAllocs()
	k := int64(0)
	for b.Loop() {
		l.Tick(frameAt(k, 144), fixed, render)
		k++
	}
}

// BenchmarkPacer paces b.N frames at 144 Hz on the real clock, once with the
// Pacer (sleep, then spin the margin) and once with plain time.Sleep to the
// same absolute deadlines, and reports for each: the median and 99th
// percentile of |interval - 6.944 ms| in µs, the mean rate in Hz and the
// process CPU as a percentage of one core. Run it with enough frames to
// mean something: go test -run '^$' -bench BenchmarkPacer -benchtime 1440x
func BenchmarkPacer(b *testing.B) {
	const hz = 144.0
	b.Run("pacer", func(b *testing.B) {
		clock := NewMonotonicClock()
		p, err := NewPacer(clock, hz)
		if err != nil {
			b.Fatal(err)
		}
		benchmarkPacing(b, hz, p.Wait)
		st := p.Stats()
		b.ReportMetric(float64(st.Spun.Microseconds())/float64(b.N), "spin-µs/frame")
		b.ReportMetric(float64(st.Late), "late-frames")
		b.ReportMetric(float64(st.Skipped), "skipped-frames")
	})
	b.Run("sleep", func(b *testing.B) {
		start := time.Now()
		period := float64(time.Second) / hz
		k := 0
		benchmarkPacing(b, hz, func() time.Duration {
			k++
			target := time.Duration(math.Round(float64(k) * period))
			if d := target - time.Since(start); d > 0 {
				time.Sleep(d)
			}
			return time.Since(start)
		})
	})
}

// benchmarkPacing calls wait b.N times and reports the pacing figures.
func benchmarkPacing(b *testing.B, hz float64, wait func() time.Duration) {
	b.ReportAllocs()
	starts := make([]time.Duration, 0, b.N+1)
	cpu0 := processCPU()
	wall0 := time.Now()
	starts = append(starts, wait())
	for i := 0; i < b.N; i++ {
		starts = append(starts, wait())
	}
	wall := time.Since(wall0)
	cpu := processCPU() - cpu0
	intervals := make([]time.Duration, b.N)
	for i := range intervals {
		intervals[i] = starts[i+1] - starts[i]
	}
	s := SummarizeIntervals(intervals, time.Duration(float64(time.Second)/hz))
	b.ReportMetric(float64(s.ErrP50.Nanoseconds())/1e3, "err-p50-µs")
	b.ReportMetric(float64(s.ErrP99.Nanoseconds())/1e3, "err-p99-µs")
	b.ReportMetric(s.Rate, "Hz")
	if cpu >= 0 {
		b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu-%")
	}
}
