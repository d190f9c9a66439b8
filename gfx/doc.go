// Package gfx draws with OpenGL 4.1 core. It is the only package that
// imports go-gl/gl; the window and its context come from internal/platform,
// the GLSL sources from package shaders.
//
// # Threads and contexts
//
// Every function here must be called on the thread where the context is
// current, which is the main thread (see internal/platform). Init must be
// called once a context is current and before anything else in the package;
// functions that create GL objects panic if it was not.
//
// # Drawing
//
// A Renderer draws one lit cube per engine.Instance, the interpolated
// render buffer the engine fills every frame, with one draw call:
//
//	win, err := platform.Open(platform.DefaultConfig())
//	if err != nil {
//		return err
//	}
//	defer win.Close()
//	if err := gfx.Init(); err != nil {
//		return err // for example "gfx: OpenGL 4.1 or newer is required, the context is 3.3 (...)"
//	}
//	log.Println("OpenGL", gfx.Version(), "on", gfx.RendererName())
//	r, err := gfx.NewRenderer()
//	if err != nil {
//		return err // a shader that does not compile names its file, stage and line
//	}
//	defer r.Delete()
//	cam := gfx.Camera{Eye: mgl32.Vec3{0, 5, 20}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(60), Near: 0.1, Far: 500}
//	var rb engine.RenderBuffer
//	for !win.ShouldClose() {
//		// ... run the fixed ticks, then:
//		world.Interpolate(alpha, tickDT, cfg, &rb)
//		w, h := win.FramebufferSize()
//		r.Draw(w, h, [4]float32{0.1, 0.1, 0.1, 1}, cam, rb.Instances, &rb.Poses)
//		win.SwapBuffers()
//		win.PollEvents()
//	}
//
// Renderer.Draw streams the instances into a GPU buffer that is orphaned
// every frame and grows by doubling, then draws them all at once: the
// vertex shader reads each cube from that buffer (a buffer texture) and
// builds the three faces that can face the camera from gl_VertexID. Its GL
// call count (Renderer.Stats) does not depend on the number of instances.
// A screenshot is read with Renderer.ReadRGBA after Draw and before
// SwapBuffers, and written with SavePNG.
//
// # Overlay and GPU timing
//
// An Overlay draws diagnostics over the finished scene: text, a graph of
// recent frame intervals with reference lines and a small histogram, in a
// translucent panel at the top-left corner, in framebuffer pixels. Its font
// (basicfont's 7×13) is rasterised once into an atlas texture, and each
// Draw streams one buffer and makes one draw call. A GPUTimer measures the
// GPU time of the commands between its Begin and End with GL_TIME_ELAPSED
// queries, and reports each measurement a few frames later without ever
// waiting for the GPU:
//
//	ov, err := gfx.NewOverlay()
//	// ... handle err, defer ov.Delete(); likewise gt, err := gfx.NewGPUTimer()
//	f := &gfx.OverlayPanel{Marks: []float32{6.94, 16.67}} // reused every frame
//	for !win.ShouldClose() {
//		gt.Begin()
//		r.Draw(w, h, clear, cam, rb.Instances, &rb.Poses)
//		gt.End()
//		f.Text = append(f.Text[:0], "gpu "...)
//		if d, ok := gt.Latest(); ok {
//			f.Text = strconv.AppendFloat(f.Text, d.Seconds()*1000, 'f', 2, 64)
//		}
//		f.Graph = frameMillis // the last 240 frame intervals, oldest first
//		ov.Draw(w, h, f)
//		win.SwapBuffers()
//	}
//
// Draw leaves the state Renderer.Draw draws with (depth test and culling
// on, blending off, texture unit 0 active and untouched), so the next frame
// is the same with or without an overlay.
//
// # Errors
//
// Environment failures are returned errors starting with "gfx: ": no GL 4.1,
// a shader that does not compile (a *ShaderError naming the file, the stage
// and the driver's log with its line numbers), a file that cannot be
// written. OpenGL's own error flags are read with CheckError, which the
// tests call after every frame; builds with the nebuladebug tag
// (go build -tags nebuladebug) check after every Draw and panic with the
// error's name. Misuse (a nil or deleted Renderer, a camera with Near <= 0,
// calling before Init) panics with a message starting with "gfx: ".
//
// # Allocation
//
// Functions that may run every frame (Clear, ReadPixels, CheckError,
// Renderer.Draw, Renderer.ReadRGBA,
// Camera.ViewProjection, Overlay.Draw, the GPUTimer's methods) do not allocate on the Go heap; the instance
// buffer grows on the GPU side only.
//
// # Who uses what
//
// A game reaches this package for two types: Camera (desktop.Config.Camera,
// desktop.Runner.Camera) and Light (Runner.Renderer().SetLight). Everything
// else (Init, the Renderer's drawing, Overlay, GPUTimer, SavePNG) is driven
// by engine/desktop. The GL helpers (CheckError, ReadPixels, Clear,
// Program, Mesh, Vertex) stay exported because gfx's own GL tests, in
// package gfx_test, build their scenes from them, and because a game that
// replaces the cube renderer starts from them. See docs/api.md.
package gfx
