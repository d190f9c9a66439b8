package diag

import (
	"fmt"
	"strconv"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/timing"
)

// Report sums up a run: how fast it went, how evenly frames were paced and
// what the loop had to give up. Monitor.Report builds it at the end of a
// run; Log writes it as one line.
type Report struct {
	// Frames is the number of frames observed and Ticks the fixed steps
	// they ran.
	Frames, Ticks uint64
	// Intervals is the number of frame intervals measured (every frame but
	// the loop's first) and Elapsed their sum.
	Intervals uint64
	Elapsed   time.Duration // the sum of the intervals
	// FPS and UPS are the mean frame and tick rates over the whole run:
	// Intervals and Ticks divided by Elapsed (0 when nothing elapsed).
	FPS, UPS float64

	// Target is the ideal frame interval the report was asked about (1/fps),
	// or 0 for an uncapped run.
	Target time.Duration
	// Sampled is the number of intervals the percentiles cover: the last
	// ReportFrames of the run.
	Sampled int
	// P50, P95, P99 and Max are nearest-rank percentiles of the intervals.
	P50, P95, P99, Max time.Duration
	// ErrP50 and ErrP99 are the median and 99th percentile of
	// |interval - Target|; both 0 (and left out of Log) when Target is 0.
	ErrP50, ErrP99 time.Duration

	// Steps counts the frames that ran 0, 1, 2, 3, 4, and 5 or more steps.
	Steps [StepsBuckets]uint64
	// Dropped, Clamped and Capped are the loop's running counts at the last
	// frame: time dropped, frames clamped, frames capped.
	Dropped         time.Duration
	Clamped, Capped uint64 // frames clamped, frames capped
	// Snaps is the running count of teleport snaps at the last frame.
	Snaps int

	// Entities is the number of live entities at the last frame.
	Entities int
	// DrawCalls and Triangles are the last frame's draw calls and the
	// triangles they submitted (Figures.DrawCalls, Triangles).
	DrawCalls, Triangles int
	// Instances and Culled are the last frame's instances drawn and
	// culled (Figures.Instances, Culled).
	Instances, Culled int
	// MaxDrawCalls and MaxTriangles are the largest of any frame observed.
	MaxDrawCalls, MaxTriangles int
	// Drawn reports whether the frames' draw calls and triangles were
	// counted (Figures.Drawn): false in a run that draws nothing.
	Drawn bool
	// GPUMemory is the last frame's GPU memory, and GPUPeak the largest
	// GPUMemory.InUse of the run (the same figure: the driver's or the
	// engine's own bytes, as GPUMemory.Source says).
	GPUMemory GPUMemory
	GPUPeak   uint64 // the largest GPUMemory.InUse observed
}

// Report sums up the frames observed so far against target, the ideal frame
// interval (1/fps; 0, or negative, for an uncapped run). It sorts copies of
// up to ReportFrames intervals, so it allocates: call it at the end of a
// run, not per frame.
func (m *Monitor) Report(target time.Duration) Report {
	target = max(target, 0)
	n := int(min(m.nPacing, ReportFrames))
	sum := timing.SummarizeIntervals(m.pacing[:n], target)
	r := Report{
		Frames:    m.frames,
		Ticks:     m.ticks,
		Intervals: m.nPacing,
		Elapsed:   m.elapsed,
		Target:    target,
		Sampled:   n,
		P50:       sum.P50,
		P95:       sum.P95,
		P99:       sum.P99,
		Max:       sum.Max,
		Steps:     m.hist,
		Dropped:   m.last.Loop.DroppedTime(),
		Clamped:   m.last.Loop.ClampedFrames,
		Capped:    m.last.Loop.CappedFrames,
		Snaps:     m.last.TotalSnaps,
		Entities:  m.last.Entities,
		DrawCalls: m.last.DrawCalls,
		Triangles: m.last.Triangles,
		Instances: m.last.Instances,
		Culled:    m.last.Culled,
		Drawn:     m.last.Drawn,
		GPUMemory: m.last.GPUMemory,
		GPUPeak:   m.gpuPeak,

		MaxDrawCalls: m.maxDraws,
		MaxTriangles: m.maxTriangles,
	}
	if target > 0 {
		r.ErrP50, r.ErrP99 = sum.ErrP50, sum.ErrP99
	}
	if m.elapsed > 0 {
		secs := m.elapsed.Seconds()
		r.FPS = float64(m.nPacing) / secs
		r.UPS = float64(m.ticks) / secs
	}
	return r
}

// Log writes r as one Info line, "frame pacing report", with fields frames,
// ticks, mean_fps, mean_ups, p50, p95, p99, max, target, err_p50 and
// err_p99 (these three only with a target), steps (the histogram as
// "0:n 1:n 2:n 3:n 4:n 5+:n"), dropped, clamped, capped, snaps and
// entities; when the frames' drawing was counted, draw_calls,
// triangles, instances and culled (the last frame's) and max_draw_calls
// and max_triangles; and,
// when the GPU memory was measured, gpu_mem and
// gpu_mem_peak (as "12.3 MiB") and gpu_mem_source ("driver" or "own
// buffers", GPUMemory.InUse's label).
func (r Report) Log(log logrus.FieldLogger) {
	f := logrus.Fields{
		"frames":   r.Frames,
		"ticks":    r.Ticks,
		"mean_fps": fmt.Sprintf("%.2f", r.FPS),
		"mean_ups": fmt.Sprintf("%.2f", r.UPS),
		"p50":      r.P50,
		"p95":      r.P95,
		"p99":      r.P99,
		"max":      r.Max,
		"steps":    string(r.appendSteps(nil)),
		"dropped":  r.Dropped,
		"clamped":  r.Clamped,
		"capped":   r.Capped,
		"snaps":    r.Snaps,
		"entities": r.Entities,
	}
	if r.Drawn {
		f["draw_calls"] = r.DrawCalls
		f["triangles"] = r.Triangles
		f["instances"] = r.Instances
		f["culled"] = r.Culled
		f["max_draw_calls"] = r.MaxDrawCalls
		f["max_triangles"] = r.MaxTriangles
	}
	if n, label := r.GPUMemory.InUse(); label != "" {
		f["gpu_mem"] = string(appendMiB(nil, n))
		f["gpu_mem_peak"] = string(appendMiB(nil, r.GPUPeak))
		f["gpu_mem_source"] = label
	}
	if r.Target > 0 {
		f["target"] = r.Target
		f["err_p50"] = r.ErrP50
		f["err_p99"] = r.ErrP99
	}
	log.WithFields(f).Info("frame pacing report")
}

// appendSteps appends the histogram as "0:n 1:n 2:n 3:n 4:n 5+:n".
func (r Report) appendSteps(b []byte) []byte {
	for i, n := range r.Steps {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(i), 10)
		if i == StepsBuckets-1 {
			b = append(b, '+')
		}
		b = append(b, ':')
		b = strconv.AppendUint(b, n, 10)
	}
	return b
}
