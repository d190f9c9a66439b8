// Package gfx draws with OpenGL 4.1 core. It is the only package that
// imports go-gl/gl; the window and its context come from internal/platform.
//
// Every function here must be called on the thread where the context is
// current, which is the main thread (see internal/platform). Init must be
// called once a context is current and before anything else in the package:
//
//	win, err := platform.Open(platform.DefaultConfig())
//	if err != nil {
//		return err
//	}
//	defer win.Close()
//	if err := gfx.Init(); err != nil {
//		return err // for example "gfx: OpenGL 4.1 or newer is required, the context is 3.3 (...)"
//	}
//	log.Println("OpenGL", gfx.Version(), "on", gfx.Renderer())
//	for !win.ShouldClose() {
//		gfx.Clear(0.1, 0.1, 0.1, 1)
//		win.SwapBuffers()
//		win.PollEvents()
//	}
//
// Functions that may run every frame (Clear, ReadPixels, CheckError) do not
// allocate.
package gfx
