// Package desktop runs an engine.Engine in a window: the main-thread GLFW
// event loop that drives timing.Loop (through engine.Engine.Frame), draws
// with the gfx renderer and paces the frames.
//
// Each frame, Run does this, in this order (the one place the windowed
// frame is written down; docs/loop.md links here):
//
//  1. processes the window's events: keys, mouse buttons, cursor and wheel
//     go to the engine's Input, stamped on the clock that drives the loop;
//     keys also go to the hook set with SetOnKey;
//  2. runs engine.Engine.Frame: the tick's stages once per due tick,
//     the Update systems, interpolation into the render buffer with alpha,
//     the Render systems;
//  3. draws the frame through the Drawer (Config.Drawer; the gfx renderer's
//     meshes by default) with the render buffer's instances and poses,
//     Runner.Camera and Runner.ClearColor, which Update systems may
//     change; then the text the game printed this frame (Runner.Text);
//     then, when it is shown (Config.Overlay, SetOverlay), the
//     diagnostics overlay over them, with the previous frame's figures
//     (this frame's are complete only after the swap); then swaps;
//  4. with the diagnostics on, completes the frame's figures
//     (Runner.Figures: CPU time per phase, GPU time, heap and GPU memory,
//     entities, the renderer's draw calls and triangles) and hands them
//     to the monitor (Runner.Monitor: warnings, the pacing report); then
//     calls Config.OnFrame with the loop's statistics;
//  5. waits for the pacer's next deadline (Config.FPS, 144 by default),
//     with or without vsync.
//
// One monotonic clock starts the frames, paces them and stamps the input.
// A minimised window (or a 0x0 framebuffer) neither simulates nor draws,
// and the loop sleeps in the window system's event wait meanwhile; an
// unfocused window pauses the simulation when Config.PauseWhenUnfocused is
// set, and always releases the keys held, so none sticks; SetPaused is the
// game's own pause. Every resume continues from the moment of the resume:
// there is no burst of catch-up ticks. Nothing on the frame path allocates.
//
// The runner is in layers, each in its own file: the window, clock, pacer
// and Run (desktop.go); pause, suspend, focus and input resynchronisation
// (internal/pause, pure Go, tested without a window); drawing, a seam
// (drawer.go: Drawer and View); and the diagnostics (diagnostics.go: the
// monitor, the GPU timer and the overlay), a layer that exists only while
// it is switched on (Config.DiagnosticsOff, SetDiagnostics).
//
// Power modes: the tick rate (engine.Config.Loop.TickRate) and the render
// cap (Config.FPS) are the two numbers of a power mode. The low-power
// preset, timing.PowerLow, is 30 Hz ticks and at most 30 frames a second:
//
//	ecfg.Loop.TickRate = timing.PowerLow.TickRate()
//	dcfg.FPS = timing.PowerLow.RenderRate()
//	dcfg.PauseWhenUnfocused = true // also stop simulating in the background
//
// GLFW and OpenGL must run on the main thread: importing this package locks
// the main goroutine to it, and New, Run and every other method except
// Quit must be called from main (not from another goroutine):
//
//	func run() int {
//		e, err := engine.New(engine.DefaultConfig())
//		if err != nil { ... }
//		// spawn entities; e.AddSystem(engine.StageScripts, ...), e.AddUpdate(...)
//		cfg := desktop.DefaultConfig()
//		cfg.Window.Title = "my game"
//		r, err := desktop.New(e, cfg)
//		if err != nil {
//			fmt.Fprintln(os.Stderr, "my-game:", err) // one line: what is missing, what to do
//			return 1
//		}
//		defer r.Close()
//		r.SetOnKey(func(k input.Key, pressed, repeat bool) {
//			if k == input.KeyEscape && pressed {
//				r.Quit()
//			}
//		})
//		if err := r.Run(); err != nil {
//			fmt.Fprintln(os.Stderr, "my-game:", err)
//			return 1
//		}
//		return 0
//	}
package desktop
