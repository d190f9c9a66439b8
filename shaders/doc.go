// Package shaders holds Nebula's GLSL sources, embedded in the binary (see
// FS) and nothing else: no Go code here reads or rewrites them, and gfx
// hands them to the driver unchanged, so the line numbers in a driver's
// compile log are the lines of these files.
//
// Every file is GLSL 4.10 core (it starts with "#version 410 core"), the
// version of the OpenGL 4.1 core contexts the engine creates:
//
//   - cube.vert: the lit cube, every instance in one draw call. It has no
//     vertex attributes: it builds each vertex from gl_VertexID (the three
//     faces of a cube that can face the camera) and reads the instance from
//     the buffer the renderer streams, a buffer texture of 32-bit words
//     holding []engine.Instance as is (48 bytes: position, rotation
//     quaternion stored W first, scale, RGBA colour bytes, mesh, pose). It lights the
//     face: one directional light plus ambient.
//   - cube.frag: writes the colour cube.vert lit (a face is flat, so its
//     colour is the same across it).
//   - cube_single.vert: the cube mesh transformed by uniforms, one draw call
//     per cube; only gfx's deliberately naive baseline (in its tests),
//     kept to measure the one-call path against.
//
// The attribute locations and uniform names are a contract with package gfx,
// which checks them when it builds its programs.
//
// gfx builds programs from FS by path:
//
//	prog, err := gfx.NewProgram(shaders.FS, "cube.vert", "cube.frag")
//	if err != nil {
//		return err // for example "gfx: compile cube.frag (fragment shader): 0:12(3): error: ..."
//	}
//	defer prog.Delete()
package shaders
