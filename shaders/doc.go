// Package shaders holds Nebula's GLSL sources, embedded in the binary (see
// FS) and nothing else: no Go code here reads or rewrites them, and gfx
// hands them to the driver unchanged, so the line numbers in a driver's
// compile log are the lines of these files.
//
// Every file is GLSL 4.10 core (it starts with "#version 410 core"), the
// version of the OpenGL 4.1 core contexts the engine creates:
//
//   - cube.vert: the lit, instanced cube. Per vertex a position and a normal;
//     per instance one engine.Instance, read straight from the buffer the
//     renderer streams (44 bytes: position, rotation quaternion stored W
//     first, scale, RGBA colour as normalised bytes).
//   - cube.frag: one directional light plus ambient, coloured by the
//     instance.
//   - cube_single.vert: the same cube transformed by uniforms, one draw call
//     per cube; only gfx's deliberately naive baseline (DrawPerInstance),
//     kept to measure instancing against.
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
