// Package diag collects a running game's per-frame figures and watches them:
// it is what the debug overlay shows, what -stats writes and what logs
// "fixed systems over budget" or "running in slow motion". It is pure Go
// (no cgo, no GL, no window), so a headless run can use it too.
//
// The windowed runner fills a Figures every frame (the loop's timing.Stats,
// the CPU time of the fixed systems, update systems and rendering, a recent
// GPU time, snaps, entities, the draw calls and triangles of the scene,
// the GPU memory in use: the driver's figure
// where it offers one, else the bytes of the engine's own buffers and
// textures, labelled as such; see GPUMemory) and hands it to:
//
//   - Monitor.Observe, which fills the frame's memory figures from
//     runtime/metrics, keeps the last RecentFrames intervals (Intervals, for
//     the overlay's graph), a steps-per-frame histogram and the intervals of
//     the last ReportFrames frames (Report, logged at exit), and logs
//     threshold crossings and slow motion, rate-limited (see Monitor and
//     Config);
//   - CSV.Write, one row per frame (a headless run writes its rows too,
//     its CPU times from Engine.PhaseTimes and its heap from a HeapMeter);
//   - AppendText, the overlay's lines.
//
// None of them allocates per frame (Observe only when it writes a log line,
// at most a few a second). Thresholds are configuration: DefaultConfig
// scales the 60 Hz figures to the tick rate, and Config.Validate checks
// them.
//
//	mon := diag.NewMonitor(diag.DefaultConfig(60), log)
//	for each frame {
//		f.Loop = loop.Stats() // and the CPU and GPU times, snaps, entities, GPU memory
//		mon.Observe(now, &f)
//		text = diag.AppendText(text[:0], &f)
//	}
//	mon.Report(time.Second / 144).Log(log)
//
// A game rarely imports diag: the windowed runner (engine/desktop) and the
// shared program set-up (internal/app) feed it, and a game reads it through
// desktop.Runner.Figures (in Config.OnFrame) and desktop.Runner.Monitor. It is
// a public package, not an internal one, because those two types appear in
// the runner's API and because a game's own runner or tool may use it.
package diag
