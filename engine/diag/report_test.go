package diag

import (
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/timing"
)

// observeIntervals feeds a first frame and then one frame per interval
// (in ms), with steps i%3.
func observeIntervals(m *Monitor, intervals []time.Duration) {
	now := time.Duration(0)
	m.Observe(now, &Figures{Loop: timing.Stats{Frames: 1}})
	for i, iv := range intervals {
		now += iv
		m.Observe(now, &Figures{Loop: timing.Stats{Frames: uint64(i + 2), Interval: iv, Steps: (i + 1) % 3}})
	}
}

func TestReport(t *testing.T) {
	m, _ := newTestMonitor(t, DefaultConfig(60))
	var in []time.Duration
	for i := 1; i <= 100; i++ { // 1 ms .. 100 ms, 5.05 s in all
		in = append(in, time.Duration(i)*ms)
	}
	observeIntervals(m, in)
	m.Observe(5050*ms, &Figures{Loop: timing.Stats{Frames: 102, Interval: 0, ClampedFrames: 2, ClampedTime: 30 * ms,
		CappedFrames: 1, CappedTime: 50 * ms}, TotalSnaps: 7, Entities: 1003, GPUMemory: GPUMemory{Source: GPUMemoryOwn, Own: 7000}})
	// Frame 102 also has an interval, 0 ms: 101 intervals, 5.05 s.
	r := m.Report(10 * ms)
	want := Report{
		Frames: 102, Ticks: 100, Intervals: 101, Elapsed: 5050 * ms,
		FPS: 101 / 5.05, UPS: 100 / 5.05,
		Target: 10 * ms, Sampled: 101,
		// Nearest rank of 0, 1, 2, ..., 100 ms.
		P50: 50 * ms, P95: 95 * ms, P99: 99 * ms, Max: 100 * ms,
		// |i - 10| for i = 0..100: 0, 1, 1, ..., 10, 10, 11, ..., 90.
		ErrP50: 40 * ms, ErrP99: 89 * ms,
		Steps:   [StepsBuckets]uint64{35, 34, 33},
		Dropped: 80 * ms, Clamped: 2, Capped: 1, Snaps: 7,
		Entities: 1003, GPUMemory: GPUMemory{Source: GPUMemoryOwn, Own: 7000}, GPUPeak: 7000,
	}
	if r != want {
		t.Errorf("Report =\n %+v\nwant\n %+v", r, want)
	}

	// Uncapped: no target, no errors.
	u := m.Report(0)
	want.Target, want.ErrP50, want.ErrP99 = 0, 0, 0
	if u != want {
		t.Errorf("uncapped Report =\n %+v\nwant\n %+v", u, want)
	}
	if neg := m.Report(-time.Second); neg != want {
		t.Errorf("Report with a negative target = %+v, want the uncapped one", neg)
	}
}

// The report's GPU memory is the last frame's, and its peak the largest
// in-use figure of the run: the driver's where it says, the own bytes
// otherwise.
func TestReportGPUMemoryPeak(t *testing.T) {
	m, _ := newTestMonitor(t, DefaultConfig(60))
	for i, g := range []GPUMemory{
		{}, // not measured
		{Source: GPUMemoryNVX, Own: 10, Used: 5000, Free: 1},
		{Source: GPUMemoryNVX, Own: 9000, Used: 4000, Free: 1},
		{Source: GPUMemoryNVX, Own: 20, Used: 3000, Free: 2},
	} {
		m.Observe(time.Duration(i)*ms, &Figures{Loop: timing.Stats{Frames: uint64(i + 1)}, Entities: i, GPUMemory: g})
	}
	r := m.Report(0)
	if want := (GPUMemory{Source: GPUMemoryNVX, Own: 20, Used: 3000, Free: 2}); r.GPUMemory != want || r.GPUPeak != 5000 || r.Entities != 3 {
		t.Errorf("Report: GPUMemory %+v, GPUPeak %d, Entities %d; want %+v, 5000, 3", r.GPUMemory, r.GPUPeak, r.Entities, want)
	}
}

// The report's draw calls and triangles are the last frame's, beside the
// largest of the run, counted only where a frame was drawn.
func TestReportDrawCalls(t *testing.T) {
	m, _ := newTestMonitor(t, DefaultConfig(60))
	for i, d := range []struct{ draws, tris int }{{5, 6000}, {7, 6100}, {6, 6200}, {5, 6050}} {
		m.Observe(time.Duration(i)*ms, &Figures{Loop: timing.Stats{Frames: uint64(i + 1)}, DrawCalls: d.draws, Triangles: d.tris, Drawn: true})
	}
	r := m.Report(0)
	if !r.Drawn || r.DrawCalls != 5 || r.Triangles != 6050 || r.MaxDrawCalls != 7 || r.MaxTriangles != 6200 {
		t.Errorf("Report: drawn %v, draw calls %d (max %d), triangles %d (max %d); want true, 5 (7), 6050 (6200)",
			r.Drawn, r.DrawCalls, r.MaxDrawCalls, r.Triangles, r.MaxTriangles)
	}
}

func TestReportOfNothing(t *testing.T) {
	m, _ := newTestMonitor(t, DefaultConfig(60))
	if r := m.Report(time.Second / 144); r != (Report{Target: time.Second / 144}) {
		t.Errorf("Report before any frame = %+v", r)
	}
}

func TestReportPercentilesCoverTheLastFrames(t *testing.T) {
	m, _ := newTestMonitor(t, DefaultConfig(60))
	in := make([]time.Duration, 0, 1000+ReportFrames)
	for range 1000 {
		in = append(in, 50*ms)
	}
	for range ReportFrames {
		in = append(in, 5*ms)
	}
	observeIntervals(m, in)
	r := m.Report(5 * ms)
	if r.Sampled != ReportFrames || r.Intervals != uint64(len(in)) || r.Max != 5*ms || r.P50 != 5*ms || r.ErrP99 != 0 {
		t.Errorf("Report = %+v; want percentiles of the last %d intervals only", r, ReportFrames)
	}
	elapsed := 1000*50*ms + ReportFrames*5*ms
	if r.Elapsed != elapsed || r.FPS != float64(len(in))/elapsed.Seconds() {
		t.Errorf("Elapsed %v, FPS %v; want the whole run: %v, %v", r.Elapsed, r.FPS, elapsed, float64(len(in))/elapsed.Seconds())
	}
}

func TestReportLog(t *testing.T) {
	r := Report{Frames: 145, Ticks: 60, FPS: 144, UPS: 60.004, Target: 6944444,
		P50: 6944444, P95: 7 * ms, P99: 8 * ms, Max: 9 * ms, ErrP50: ms / 10, ErrP99: ms,
		Steps: [StepsBuckets]uint64{85, 60, 0, 0, 0, 1}, Dropped: 250 * ms, Clamped: 1, Capped: 2, Snaps: 3}
	want := logrus.Fields{
		"frames": uint64(145), "ticks": uint64(60), "mean_fps": "144.00", "mean_ups": "60.00",
		"p50": time.Duration(6944444), "p95": 7 * ms, "p99": 8 * ms, "max": 9 * ms,
		"target": time.Duration(6944444), "err_p50": ms / 10, "err_p99": ms,
		"steps": "0:85 1:60 2:0 3:0 4:0 5+:1", "dropped": 250 * ms, "clamped": uint64(1), "capped": uint64(2), "snaps": 3,
		"entities": 0,
	}
	log, hook := newLogger()
	r.Log(log)
	checkLines(t, hook, line{logrus.InfoLevel, "frame pacing report", want})

	r.Target, r.ErrP50, r.ErrP99 = 0, 0, 0
	delete(want, "target")
	delete(want, "err_p50")
	delete(want, "err_p99")
	r.Log(log)
	checkLines(t, hook, line{logrus.InfoLevel, "frame pacing report", want})

	// With the GPU memory measured: the in-use figure, its peak and its
	// label.
	r.Entities = 1003
	r.GPUMemory, r.GPUPeak = GPUMemory{Source: GPUMemoryOwn, Own: 3 << 20, Free: 1}, 4<<20+1<<19
	want["entities"] = 1003
	want["gpu_mem"], want["gpu_mem_peak"], want["gpu_mem_source"] = "3.0 MiB", "4.5 MiB", "own buffers"
	r.Log(log)
	checkLines(t, hook, line{logrus.InfoLevel, "frame pacing report", want})
	r.GPUMemory = GPUMemory{Source: GPUMemoryNVX, Own: 3 << 20, Used: 700 << 20}
	want["gpu_mem"], want["gpu_mem_source"] = "700.0 MiB", "driver"
	r.Log(log)
	checkLines(t, hook, line{logrus.InfoLevel, "frame pacing report", want})

	// With the frames' drawing counted: the last frame's and the largest.
	r.DrawCalls, r.Triangles, r.MaxDrawCalls, r.MaxTriangles, r.Drawn = 5, 6017, 6, 6020, true
	r.Instances, r.Culled = 990, 13
	want["draw_calls"], want["triangles"], want["max_draw_calls"], want["max_triangles"] = 5, 6017, 6, 6020
	want["instances"], want["culled"] = 990, 13
	r.Log(log)
	checkLines(t, hook, line{logrus.InfoLevel, "frame pacing report", want})
}
