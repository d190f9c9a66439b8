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
// A Renderer draws every render.Instance of the interpolated render buffer
// the engine fills every frame as the mesh its Mesh names, lit by one
// directional light, with one draw call per mesh in use:
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
//	var mem gfx.MemoryCounter // the context's GPU memory count (see GPU memory below)
//	r, err := gfx.NewRenderer(&mem)
//	if err != nil {
//		return err // a shader that does not compile names its file, stage and line
//	}
//	defer r.Delete()
//	cam := gfx.Camera{Eye: mgl32.Vec3{0, 5, 20}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(60), Near: 0.1, Far: 500}
//	var rb engine.RenderBuffer
//	for !win.ShouldClose() {
//		// ... run the fixed ticks, then:
//		world.Interpolate(alpha, tickDT, cfg, &rb)
//		// ... the Render systems add the animated instances' poses to rb.Poses
//		w, h := win.FramebufferSize()
//		r.Draw(w, h, [4]float32{0.1, 0.1, 0.1, 1}, cam, rb.Instances, &rb.Poses)
//		win.SwapBuffers()
//		win.PollEvents()
//	}
//
// Renderer.Draw sorts the instances by mesh (a counting sort into a reused
// buffer; a frame whose instances all show one mesh is used as it is),
// streams them into a GPU buffer that is orphaned every frame and grows
// by doubling, then draws each mesh in use with one draw call, each part
// of a model with one. Its GL call count (Renderer.Stats) depends on the
// meshes in use and their parts, not on the number of instances or poses.
// A screenshot is read with Renderer.ReadRGBA after Draw and before
// SwapBuffers, and written with SavePNG.
//
// # Transparency, emission and culling
//
// An instance's alpha (the fourth byte of its Color) decides how it is
// drawn: 255 opaque; 1 to 254 transparent, drawn after every opaque
// instance, from the farthest to the nearest (by depth in front of the
// camera), blended with premultiplied alpha and testing depth without
// writing it; 0 not at all. Its Emissive colour is added to its lit
// colour, so it glows with no light on it. Before anything is streamed,
// frustum culling leaves out the instances whose bounding sphere is wholly
// out of view (Renderer.SetCulling); Stats.Culled and Stats.Transparent
// count them. Hidden entities and pivots never reach the renderer: the
// engine leaves them out of the render buffer (engine.World.SetVisible,
// render.MeshNone).
//
// # Lights and shadows
//
// Besides the directional light (SetLight), up to MaxLights point and
// spot lights a frame (SetLights: render.Frame.Lights, which package
// engine/light gathers) light every fragment, forward, in one loop
// (shaders/lights.glsl). SetShadows gives the directional light a shadow
// map, drawn from the light before the frame each time, fitted to the
// view and snapped to its texels.
//
// # Interpolation on the GPU
//
// Draw draws instances the CPU placed between two ticks
// (engine.World.Interpolate), a per-entity cost every frame. DrawTicks
// draws from every slot's state at the start and end of the last tick
// (render.TickInstance, engine.World.InterpolateOnGPU), uploaded once a
// tick with a draw list sorted by mesh; the vertex shaders place each
// instance at the frame's alpha, so a frame between ticks costs the CPU
// nothing per entity. A tick uploads only the slots that changed
// (render.Ticks.Changed) into the next of three slot buffers, mapped
// unsynchronised behind a fence, and keeps its draw list unless a slot
// changed its mesh, visibility or transparency. Animated models take the
// same path: their poses at the start and end of the tick, blended in
// mesh.vert. Both paths draw the same pixels; the GPU path culls nothing
// on the CPU.
//
// # Meshes and models
//
// The renderer keeps a registry of meshes by render.MeshID. NewRenderer
// registers the built-in ones: render.MeshCube, the unit cube, drawn by
// vertex pulling (the vertex shader reads each cube from the instance
// buffer, a buffer texture, and builds the three faces that can face the
// camera from gl_VertexID, all cubes in one glDrawArrays: on llvmpipe a
// frame of cubes takes about 2.5 times as long with the cube drawn as a
// regular model, see BenchmarkCubePaths); render.MeshSphere, the sphere
// of diameter 1, drawn as an impostor (below); and render.MeshPlane
// (model.Plane). A game uploads its own models with
// NewModel and registers them from render.MeshFirstGame on; an entity
// shows one after World.SetMesh:
//
//	m, err := gfx.NewModel(r.Memory(), loaded) // a *model.Model: a glTF file, model.Sphere(64), ...
//	if err != nil {
//		return err // "gfx: NewModel arm.glb: mesh 0 primitive 0: vertex 7: joint 40, the palette has 31 entries"
//	}
//	defer m.Delete()
//	const arm = render.MeshFirstGame
//	r.Register(arm, m)          // and world.SetMesh(e, arm) in a fixed system
//	defer r.Register(arm, nil)  // before m.Delete
//
// A Model holds each part's vertices (position, normal, texture
// coordinates, colour, four joints and their weights) and indices, its
// morph targets' deltas in a buffer texture, its base colour texture (RGBA8
// with mipmaps; 1×1 white without one), and the model's rest palette and
// rest weights. Every part of every model in use is drawn with one
// glDrawElementsInstanced (OpenGL 4.1 has no base-instance draw: the shader
// reads instance uFirst + gl_InstanceID of the sorted buffer). The vertex
// shader (shaders/mesh.vert) morphs the vertex by the part's targets,
// skins it with the palette (the weighted sum of up to four matrices) and
// places it by the instance's transform; normals likewise, normalised per
// fragment. The colour is the base colour factor × the texture × the
// vertex colour × the instance's colour (World.SetColor still tints a
// model), lit as the cube is.
//
// Each part is drawn by the cheapest of three programs that gives its
// picture: mesh.frag for a part with a base colour texture; for one
// without, mesh_plain.frag, which skips the texture fetch; and for an
// untextured faceted part (every triangle one normal, joint and weights at
// its three corners, no morph targets: a plane, a box)
// mesh_faceted.frag, which takes the colour mesh.vert lit per vertex. A
// software rasteriser pays for the fetch on every pixel, even for the 1×1
// white texture and even behind a uniform branch; the demo's floor, a
// plane over a third of the window, took about 1.6 ms a frame on llvmpipe
// with mesh.frag and takes about 0.5 ms faceted (BenchmarkDemoFrame).
//
// # The sphere impostor
//
// render.MeshSphere is not triangles: each instance is one camera-facing
// quad, built in the vertex shader from gl_VertexID like the cube (all
// spheres in one glDrawArrays of 6 vertices each, shaders/sphere.vert),
// covering the silhouette of the instance's bounding sphere (radius
// max(Scale)/2) under perspective. The fragment shader (sphere.frag)
// casts the pixel's ray against the instance's ellipsoid, turned and
// scaled unevenly as its Rot and Scale say, discards the misses, lights
// the hit with its exact normal as a model is lit, and writes the hit's
// depth, so the sphere meets other geometry where the ellipsoid does. Its
// pixels are model.Sphere(64)'s to within a pixel at its edges
// (TestSphereImpostorMatchesModelSphere). Software rasterisers pay per
// triangle and per vertex of an instanced draw: 1,000 spheres of the
// demo's view took 44 ms a frame on llvmpipe as model.Sphere(16) (224
// triangles each) and take 4.5 ms as impostors, as many cubes cost
// (BenchmarkSpherePaths). The impostor has no texture coordinates: a game
// that wants a textured or otherwise drawn sphere registers a model, such
// as model.Sphere(32), under render.MeshSphere or a number of its own. An
// instance with a zero scale draws nothing, and one the eye is inside
// draws nothing (as a mesh's back faces are culled).
//
// An instance's Pose picks its palette and weights from the frame's
// render.Poses (uploaded once a frame, when a model is in use, into one
// buffer with the rest palettes of the models drawn); Pose 0, or a pose
// past Poses.Len, draws the model at rest. A pose for a model holds one
// render.Bone per palette entry and one weight per blend-shape weight of
// the model, in model.Model's order.
//
// Instances whose mesh is not registered, or is a deleted Model, are not
// drawn and are counted in Stats.Unknown.
//
// # Limits
//
//   - A model: model.MaxPalette (256) palette entries (joints and rigid
//     mesh nodes), model.MaxTargets (8) morph targets a part,
//     model.MaxWeights (64) blend-shape weights; four joints a vertex.
//     NewModel refuses more, naming the model and the part.
//   - A frame: render.MaxPoses (65,535) poses; Renderer.MaxInstances
//     instances (GL_MAX_TEXTURE_BUFFER_SIZE / 3; more are dropped and
//     counted in Stats.Dropped).
//   - Buffer textures address GL_MAX_TEXTURE_BUFFER_SIZE texels (OpenGL 4.1
//     guarantees 65,536; llvmpipe and desktop drivers offer 2^27): a
//     part's morph targets need 2 × targets × vertices RGB32F texels
//     (NewModel checks); a frame's pose buffer needs 3 RGBA32F texels a
//     bone and one 32-bit word per weight and two per pose, counting the
//     frame's poses and the rest palettes of the models drawn. When the
//     pose references lie past the words the driver can address, every
//     model is drawn at rest. At the guaranteed minimum that is about
//     5,000 bones a frame; llvmpipe's limit is 2,048 times that.
//   - Parts of more than 65,536 vertices use 32-bit indices, the others
//     16-bit.
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
//	ov, err := gfx.NewOverlay(r.Memory())
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
// # Text
//
// Text draws a game's own text (a score, lives, a message) over the
// frame with the overlay's bitmap font, without the overlay: Print queues
// a string at a position in framebuffer pixels (top-left origin, y down),
// a whole scale and a colour; Draw draws the frame's queue after the
// scene, every glyph in one draw call, each glyph's pixels exactly its
// colour:
//
//	text, err := gfx.NewText(r.Memory())
//	// ... handle err, defer text.Delete()
//	for !win.ShouldClose() {
//		r.Draw(w, h, clear, cam, rb.Instances, &rb.Poses)
//		text.Print(8, 8, 2, "SCORE 120", [4]uint8{255, 220, 60, 255})
//		tw, th := gfx.TextSize("PAUSED", 3)
//		text.Print((w-tw)/2, (h-th)/2, 3, "PAUSED", [4]uint8{255, 255, 255, 255})
//		text.Draw(w, h)
//		win.SwapBuffers()
//	}
//
// Runes without a glyph draw the replacement glyph, text off the
// framebuffer is skipped, scales are clamped and a frame holds at most
// MaxTextGlyphs glyphs: bad input never panics (see Text). In the windowed
// runner a game reaches its Text through desktop.Runner.Text.
//
// # GPU memory
//
// A MemoryCounter is the bytes the buffers and textures made by this
// package in one GL context hold, counted where they are made, grown and
// deleted (the renderer's streaming buffers at their capacity, models'
// vertices, indices, morph targets and textures with their mipmaps, the
// overlay's panel, Text's atlas and glyphs). Whoever owns the context
// owns its counter and hands it to every constructor (NewRenderer,
// NewText, NewOverlay, NewModel, NewLines, NewMesh); a drawer that has
// only the renderer reaches it through Renderer.Memory. There is no count
// for the process: two windows, or two tests in parallel, count apart.
// A MemoryMeter reads it each frame, with the driver's
// own figures where the driver offers GL_NVX_gpu_memory_info (memory in
// use, free and total) or GL_ATI_meminfo (free); Memory.InUse picks the
// driver's figure where there is one and says which it is. Mesa's
// llvmpipe offers neither, so there the figure is the own count.
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
// Camera.ViewProjection, Overlay.Draw, Text.Print and Text.Draw,
// MemoryMeter.Read, the GPUTimer's methods) do not allocate on the Go heap; the instance
// and pose buffers grow on the GPU side only, and the sort's buffer on
// the Go side when a frame has more instances than any before.
// NewModel and Renderer.Register allocate.
//
// # Who uses what
//
// A game reaches this package for Camera (desktop.Config.Camera,
// desktop.Runner.Camera), Light (Runner.Renderer().SetLight), and Model
// (NewModel, Runner.Renderer().Register) to draw meshes of its own, and
// Text (Runner.Text) to draw its own text.
// Everything else (Init, the Renderer's drawing, Overlay, GPUTimer,
// SavePNG) is driven by engine/desktop. The GL helpers (CheckError, ReadPixels, Clear,
// Program, Mesh, Vertex) stay exported because gfx's own GL tests, in
// package gfx_test, build their scenes from them, and because a game that
// replaces the renderer starts from them. See docs/api.md.
package gfx
