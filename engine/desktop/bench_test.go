package desktop_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
)

// BenchmarkDiagnosticsOverhead measures what the diagnostics cost a frame:
// 1,000 cubes in a 1280x720 window, uncapped, in blocks of frames with the
// diagnostics off (SetDiagnostics(false): no phase timing, no GPU timer,
// no monitor, no overlay), with the metrics on but no overlay, and with
// both, taking turns in one run so that all see the same machine. It
// reports the process's CPU time per frame (user + system, every thread:
// the driver's included) and the wall time per frame with the diagnostics
// off, and what the metrics and the overlay add, in percent.
//
//	xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" go test -run '^$' -bench DiagnosticsOverhead -benchtime 20x ./engine/desktop
func BenchmarkDiagnosticsOverhead(b *testing.B) {
	const entities, block = 1000, 60
	e := newScene(b, entities)
	cfg := desktop.DefaultConfig()
	cfg.Window.Visible = false
	cfg.FPS = 0
	cfg.Frames = block
	cfg.Overlay = true
	r := newRunner(b, e, cfg)

	// Modes: 0 diagnostics off, 1 metrics without the overlay, 2 metrics
	// and the overlay.
	var cpu, wall [3]time.Duration
	runBlock := func(i int) {
		platformtest.OnMain(func() {
			if err := r.SetDiagnostics(i > 0); err != nil {
				b.Fatal(err)
			}
			if err := r.SetOverlay(i == 2); err != nil {
				b.Fatal(err)
			}
			c0, w0 := processCPU(b), time.Now()
			if err := r.Run(); err != nil {
				b.Fatal(err)
			}
			cpu[i] += processCPU(b) - c0
			wall[i] += time.Since(w0)
		})
	}
	for i := range 3 { // warm up: shaders, buffers, the overlay's atlas
		runBlock(i)
	}
	cpu, wall = [3]time.Duration{}, [3]time.Duration{}
	b.ResetTimer()
	for n := range b.N {
		// Rotate the order, so that no mode always follows another.
		for k := range 3 {
			runBlock((n + k) % 3)
		}
	}
	b.StopTimer()
	frames := float64(b.N * block)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / frames }
	pct := func(v [3]time.Duration, i int) float64 { return 100 * (float64(v[i])/float64(v[0]) - 1) }
	b.ReportMetric(ms(cpu[0]), "cpu-ms/frame-off")
	b.ReportMetric(ms(wall[0]), "wall-ms/frame-off")
	b.ReportMetric(pct(cpu, 1), "cpu-%-metrics")
	b.ReportMetric(pct(cpu, 2), "cpu-%-metrics+overlay")
	b.ReportMetric(pct(wall, 1), "wall-%-metrics")
	b.ReportMetric(pct(wall, 2), "wall-%-metrics+overlay")
}

// processCPU returns the CPU time the process has used, user and system,
// over all its threads.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
