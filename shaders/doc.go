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
//     holding []render.Instance as is (64 bytes: position, rotation
//     quaternion stored W first, scale, RGBA colour bytes, mesh, pose,
//     emissive RGB bytes). It lights the face: one directional light plus
//     ambient, plus the emissive colour.
//   - cube.frag: writes the colour cube.vert lit (a face is flat, so its
//     colour is the same across it), premultiplied by the instance's alpha
//     (every fragment shader does: transparent instances are blended with
//     glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA)).
//   - mesh.vert: a part of a model (gfx.Model), every instance that shows
//     the model in one glDrawElementsInstanced. Its vertex attributes are
//     position (location 0), normal (1), texture coordinates (2), colour
//     (3, normalised bytes), four joints (4, a uvec4 of 16-bit indices)
//     and their weights (5). It reads the instance at uPart.x +
//     gl_InstanceID from the same instance buffer as cube.vert (the
//     renderer sorts the instances by mesh, and OpenGL 4.1 has no
//     base-instance draw), morphs the vertex by the part's morph targets
//     (a buffer texture indexed by target and gl_VertexID) with the pose's
//     weights, skins it with the pose's palette (both from the frame's
//     pose buffer, or from the model's rest palette and weights for pose
//     0) and places it by the instance's position, rotation and scale.
//   - mesh.frag: the base colour factor, vertex colour and instance colour
//     times the base colour texture, lit per fragment with the same light
//     as the cube.
//   - mesh_plain.frag: mesh.frag without the texture, for parts without
//     one (a software rasteriser pays for a texture fetch on every pixel,
//     even for a white texture and behind a uniform branch).
//   - mesh_faceted.frag: for untextured parts whose every triangle has one
//     normal, joint and weights at its corners and no morph targets (a
//     plane, a box): the light is then the same across a triangle, so
//     mesh.vert lights each vertex (its vLit output) and this shader only
//     writes the interpolated colour: a large floor's pixels cost a
//     fraction of mesh.frag's.
//   - sphere.vert, sphere.frag: the built-in sphere as an impostor, every
//     instance in one draw call like the cube: one camera-facing quad per
//     instance (from gl_VertexID) covering its bounding sphere's
//     silhouette under perspective, and per pixel a ray cast against the
//     instance's ellipsoid (its rotation and non-uniform scale), misses
//     discarded, hits lit with the exact normal and written at their exact
//     depth. Two triangles a sphere instead of hundreds: software
//     rasterisers pay per triangle and per vertex.
//   - cube_single.vert: the cube mesh transformed by uniforms, one draw call
//     per cube; only gfx's deliberately naive baseline (in its tests),
//     kept to measure the one-call path against.
//   - text.vert, text.frag: a game's text (gfx.Text), every glyph of a
//     frame in one draw call: a quad per glyph built from gl_VertexID
//     over a buffer texture of glyphs (position, atlas cell, scale,
//     colour), its pixels the font atlas's coverage fetched by integer
//     texel, blended over the frame.
//   - linebatch.vert, linebatch.frag: line segments that change every
//     frame (gfx.LineBatch: a debug drawing), each vertex with its position
//     (location 0) and RGBA colour from 4 normalised bytes (location 3),
//     []render.LineVertex as is (16 bytes).
//   - instance.glsl, instance_gpu.glsl: fetchInstance, included by
//     cube.vert, sphere.vert and mesh.vert: an instance as the CPU placed
//     it (render.Instance, gfx.Renderer.Draw), or placed by the shader
//     between two ticks from the slots' render.TickInstance and a draw
//     list (gfx.Renderer.DrawTicks), with the same lerp, shortest-arc
//     slerp and snap as engine.World.Interpolate.
//   - depth.frag, sphere_depth.frag: the shadow pass's fragments, depth
//     only: depth.frag with cube.vert and mesh.vert, sphere_depth.frag
//     (the impostor's hit, sphere_hit.glsl) with sphere.vert.
//   - shadow.glsl: included by the lit fragment shaders: the directional
//     light's shadow map and shadowAt, how lit a surface is (four
//     filtered comparisons over 3x3 texels).
//   - sphere_hit.glsl: the impostor's ray hit and depth, included by
//     sphere.frag and sphere_depth.frag.
//   - lights.glsl: not a shader but a part of the lit fragment shaders,
//     which include it (`#include "lights.glsl"`, expanded by
//     gfx.NewProgram): the uniform block of the frame's point and spot
//     lights and pointLights, the light they bring to a surface.
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
