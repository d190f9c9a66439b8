package gfx

import (
	"github.com/nebulaengine/nebula/engine/render"

	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// This file holds the per-frame code. It calls OpenGL only through
// r.gl (a glCounter), so Stats.GLCalls is exact; a test checks that no gl
// function is called here directly. Nothing here allocates.

// Draw draws one frame into the bound framebuffer (a window's back
// buffer): it sets the viewport to width×height, clears colour (to clear,
// RGBA in [0, 1]) and depth, and draws every instance as the mesh
// registered under its Mesh, seen by cam, lit, with depth testing and
// back-face culling. A model's instance is skinned and morphed by its
// Pose, a pose of poses (nil: every model at rest); pose 0, or a pose
// past poses.Len(), draws the model at rest. A pose for a model must hold
// a bone per palette entry and a weight per blend-shape weight of the
// model (as model.Model orders them).
//
// The instances are sorted by mesh (a counting sort into a reused buffer;
// when they all show one mesh they are used as they are), streamed to the
// GPU (the buffer is orphaned, then written) and drawn with one draw call
// per mesh in use, or per part of a model: the GL calls made depend on the
// meshes in use (and the programs their parts need), not on how many
// instances or poses there are. The built-in cube and sphere are drawn
// from the instance buffer alone (vertex pulling; the sphere as a
// ray-cast impostor whose depth is the ellipsoid's, see the package doc). Instances
// whose mesh is not registered are not drawn (Stats.Unknown counts them),
// nor instances beyond MaxInstances (Stats.Dropped).
//
// A framebuffer of zero width or height (a minimised window) draws nothing
// and makes no GL call. Draw does not allocate once its buffers have grown
// to the frame's needs. In builds with the nebuladebug tag it checks for
// OpenGL errors afterwards and panics with the error's name.
//
// Call it with the renderer's context current; show the frame with the
// window's SwapBuffers afterwards, and read it back (ReadRGBA) before that.
func (r *Renderer) Draw(width, height int, clear [4]float32, cam Camera, instances []render.Instance, poses *render.Poses) {
	if !r.begin("Draw", width, height, clear, cam) {
		return
	}
	dropped := 0
	if len(instances) > r.maxInstances {
		dropped = len(instances) - r.maxInstances
		instances = instances[:r.maxInstances]
	}
	sorted, unknown := r.sort(instances)
	c := &r.gl
	draws, triangles, meshes, posed := 0, 0, 0, 0
	if len(sorted) > 0 {
		r.stream(sorted)
		c.activeTexture(gl.TEXTURE0 + instanceTextureUnit)
		c.bindTexture(gl.TEXTURE_BUFFER, r.tex)
		models := false
		for s, m := range r.meshes {
			if r.counts[s] == 0 {
				continue
			}
			meshes++
			switch m.pulled {
			case pulledCube:
				r.drawCubes(cam, r.starts[s], r.counts[s])
				draws++
				triangles += int(r.counts[s]) * verticesPerCube / 3
			case pulledSphere:
				r.drawSpheres(cam, r.starts[s], r.counts[s])
				draws++
				triangles += int(r.counts[s]) * verticesPerSphere / 3
			default:
				models = true
			}
		}
		if models {
			posed = r.beginModels(poses)
			for s, m := range r.meshes {
				if r.counts[s] > 0 && m.pulled == notPulled {
					d, tris := r.drawModel(s, r.starts[s], r.counts[s])
					draws += d
					triangles += tris
				}
			}
			c.activeTexture(gl.TEXTURE0)
		}
		c.bindVertexArray(0)
	}
	r.end(len(sorted), draws)
	r.stats.Triangles = triangles
	r.stats.Unknown = unknown
	r.stats.Dropped = dropped
	r.stats.Meshes = meshes
	r.stats.Poses = posed
	checkFrame("Renderer.Draw")
}

// sort counts the instances of every registered mesh into r.counts and
// returns them sorted by mesh, each mesh's run starting at r.starts, and
// the number of instances of no registered mesh, left out. When every
// instance shows the same registered mesh it returns instances itself.
func (r *Renderer) sort(instances []render.Instance) (sorted []render.Instance, unknown int) {
	counts, starts := r.counts, r.starts
	clear(counts)
	clear(starts)
	if len(instances) == 0 {
		return nil, 0
	}
	// The common frame: every instance shows one mesh.
	first, same := instances[0].Mesh, true
	for i := range instances {
		if instances[i].Mesh != first {
			same = false
			break
		}
	}
	if same {
		if s := r.slotOf(first); s >= 0 && r.meshes[s].live() {
			counts[s] = int32(len(instances))
			return instances, 0
		}
		return nil, len(instances)
	}

	// Count, remembering each instance's slot (-1: not registered).
	if cap(r.which) < len(instances) {
		r.which = make([]int32, len(instances), max(len(instances), 2*cap(r.which)))
	}
	which := r.which[:len(instances)]
	slot := r.slot
	for i := range instances {
		s := int32(-1)
		if id := int(instances[i].Mesh); id < len(slot) {
			s = slot[id]
		}
		which[i] = s
		if s >= 0 {
			counts[s]++
		} else {
			unknown++
		}
	}
	n := int32(0)
	for s, m := range r.meshes {
		if !m.live() { // a deleted model: its instances are unknown
			unknown += int(counts[s])
			counts[s] = 0
		}
		starts[s] = n
		n += counts[s]
	}

	// Place each instance at the next free index of its mesh's run.
	if cap(r.staging) < int(n) {
		r.staging = make([]render.Instance, n, max(int(n), 2*cap(r.staging)))
	}
	staging := r.staging[:n]
	next := r.next
	copy(next, starts)
	for i, s := range which {
		if s >= 0 && counts[s] > 0 {
			staging[next[s]] = instances[i]
			next[s]++
		}
	}
	return staging, unknown
}

// slotOf returns the slot of the mesh registered as id, or -1.
func (r *Renderer) slotOf(id render.MeshID) int32 {
	if int(id) < len(r.slot) {
		return r.slot[id]
	}
	return -1
}

// drawCubes draws count cubes from instance first with cube.vert.
func (r *Renderer) drawCubes(cam Camera, first, count int32) {
	c := &r.gl
	c.useProgram(r.prog)
	c.uniformMatrix4(r.loc.viewProj, &r.vp)
	c.uniform3f(r.loc.eye, cam.Eye[0], cam.Eye[1], cam.Eye[2])
	c.bindVertexArray(r.vao)
	c.drawArrays(gl.TRIANGLES, first*verticesPerCube, count*verticesPerCube)
}

// drawSpheres draws count sphere impostors from instance first with
// sphere.vert and sphere.frag. Depth clamping is on while they draw: the
// quads are not clipped by the near and far planes, the fragment shader
// clips each hit against them (see sphere.vert).
func (r *Renderer) drawSpheres(cam Camera, first, count int32) {
	c := &r.gl
	l := &r.sphereLoc
	r.invVP = r.vp.Inv()
	c.useProgram(r.sphereProg)
	c.uniformMatrix4(l.viewProj, &r.vp)
	c.uniformMatrix4(l.invViewProj, &r.invVP)
	c.uniform3f(l.eye, cam.Eye[0], cam.Eye[1], cam.Eye[2])
	c.bindVertexArray(r.vao)
	c.enable(gl.DEPTH_CLAMP)
	c.drawArrays(gl.TRIANGLES, first*verticesPerSphere, count*verticesPerSphere)
	c.disable(gl.DEPTH_CLAMP)
}

// beginModels streams the poses, and the rest palette and weights of
// every model in use (where r.rest says), and sets the state every
// model's draw shares. It returns the number of poses uploaded.
//
// The pose buffer holds the bones (3 RGBA32F texels each: the frame's,
// then each model's rest palette), the weights from the next whole texel
// on (the frame's, then each model's rest weights) and the references
// from the next whole texel on: mesh.vert reads the first two as RGBA32F
// texels, the last as 32-bit words.
func (r *Renderer) beginModels(poses *render.Poses) int {
	c := &r.gl
	var bones []render.Bone
	var weights []float32
	var refs []render.PoseRef
	if poses != nil {
		bones, weights, refs = poses.Bones, poses.Weights, poses.Refs
	}
	nb, nw := len(bones), len(weights)
	var shadings uint8
	for s, m := range r.meshes {
		if r.counts[s] > 0 && m.pulled == notPulled {
			r.rest[s] = restRef{bone: int32(nb), weight: int32(nw)}
			nb += len(m.restBones)
			nw += len(m.restWeights)
			shadings |= m.shadings
		}
	}
	boneBytes := nb * boneSize
	weightBytes := (nw + 3) / 4 * 16
	refBytes := len(refs) * poseRefSize
	size := boneBytes + weightBytes + refBytes
	for r.poseCap < size {
		r.mem.add(r.poseCap) // doubling adds as much again
		r.poseCap *= 2
	}
	if size/4 > r.maxTexels {
		// The references are past what the word view can address: draw
		// every model at rest rather than with wrong poses.
		refs = refs[:0]
	}
	c.bindBuffer(gl.TEXTURE_BUFFER, r.poseBuf)
	c.orphan(gl.TEXTURE_BUFFER, r.poseCap, gl.STREAM_DRAW)
	c.bufferSubData(gl.TEXTURE_BUFFER, 0, len(bones)*boneSize, unsafe.Pointer(unsafe.SliceData(bones)))
	for s, m := range r.meshes {
		if r.counts[s] > 0 && m.pulled == notPulled {
			c.bufferSubData(gl.TEXTURE_BUFFER, int(r.rest[s].bone)*boneSize, len(m.restBones)*boneSize, unsafe.Pointer(unsafe.SliceData(m.restBones)))
		}
	}
	c.bufferSubData(gl.TEXTURE_BUFFER, boneBytes, 4*len(weights), unsafe.Pointer(unsafe.SliceData(weights)))
	for s, m := range r.meshes {
		if r.counts[s] > 0 && m.pulled == notPulled {
			c.bufferSubData(gl.TEXTURE_BUFFER, boneBytes+4*int(r.rest[s].weight), 4*len(m.restWeights), unsafe.Pointer(unsafe.SliceData(m.restWeights)))
		}
	}
	c.bufferSubData(gl.TEXTURE_BUFFER, boneBytes+weightBytes, len(refs)*poseRefSize, unsafe.Pointer(unsafe.SliceData(refs)))
	c.bindBuffer(gl.TEXTURE_BUFFER, 0)

	for sh := range r.meshProgs {
		if shadings&(1<<sh) != 0 {
			mp := &r.meshProgs[sh]
			c.useProgram(mp.prog)
			c.uniformMatrix4(mp.loc.viewProj, &r.vp)
			c.uniform4i(mp.loc.frame, int32(len(refs)), int32(boneBytes/16), int32((boneBytes+weightBytes)/4), 0)
		}
	}
	c.activeTexture(gl.TEXTURE0 + poseTextureUnit)
	c.bindTexture(gl.TEXTURE_BUFFER, r.poseTex)
	c.activeTexture(gl.TEXTURE0 + poseWordTextureUnit)
	c.bindTexture(gl.TEXTURE_BUFFER, r.poseWordTex)
	return len(refs)
}

// drawModel draws count instances of the model in slot s from instance
// first, one draw call per part, each with the program of its shading,
// and returns the number of draw calls and of triangles drawn.
func (r *Renderer) drawModel(s int, first, count int32) (draws, triangles int) {
	c := &r.gl
	m := r.meshes[s]
	current := numShadings
	var mp *meshProgram
	for i := range m.parts {
		p := &m.parts[i]
		if p.shading != current {
			current = p.shading
			mp = &r.meshProgs[current]
			c.useProgram(mp.prog)
			c.uniform2i(mp.loc.rest, r.rest[s].bone, r.rest[s].weight)
		}
		l := &mp.loc
		c.bindVertexArray(p.vao)
		c.activeTexture(gl.TEXTURE0 + targetTextureUnit)
		c.bindTexture(gl.TEXTURE_BUFFER, p.targetTex)
		c.activeTexture(gl.TEXTURE0 + colorTextureUnit)
		c.bindTexture(gl.TEXTURE_2D, p.texture)
		c.uniform4i(l.part, first, p.numTargets, p.influences, p.firstWeight)
		col := &p.baseColor
		c.uniform4f(l.baseColor, col[0], col[1], col[2], col[3])
		c.drawElementsInstanced(gl.TRIANGLES, p.indices, p.indexType, count)
		triangles += int(p.indices) / 3 * int(count)
	}
	return len(m.parts), triangles
}

// stream copies the instances into the instance buffer. The buffer is
// orphaned first (glBufferData with no data): the driver gives it fresh
// storage, so the copy never waits for the GPU to finish drawing the
// previous frame from the old one. Its capacity doubles when a frame needs
// more, and stays: in steady state every frame makes the same four calls.
// The buffer texture follows the buffer's new storage by itself.
func (r *Renderer) stream(instances []render.Instance) {
	c := &r.gl
	size := len(instances) * instanceSize
	for r.bufCap < size {
		r.mem.add(r.bufCap) // doubling adds as much again
		r.bufCap *= 2
	}
	c.bindBuffer(gl.TEXTURE_BUFFER, r.buf)
	c.orphan(gl.TEXTURE_BUFFER, r.bufCap, gl.STREAM_DRAW)
	c.bufferSubData(gl.TEXTURE_BUFFER, 0, size, unsafe.Pointer(unsafe.SliceData(instances)))
	c.bindBuffer(gl.TEXTURE_BUFFER, 0)
}

// begin starts a frame: it resets the statistics and, unless the
// framebuffer is empty, computes the view-projection matrix, sets the
// viewport and the state the cubes need and clears. It reports whether
// there is anything to draw into.
func (r *Renderer) begin(method string, width, height int, clear [4]float32, cam Camera) bool {
	r.mustLive(method)
	c := &r.gl
	c.calls = 0
	r.stats = Stats{InstanceBufferBytes: r.bufCap, PoseBufferBytes: r.poseCap}
	if width <= 0 || height <= 0 {
		return false
	}
	r.stats.Width, r.stats.Height = width, height
	r.vp = cam.ViewProjection(float32(width) / float32(height))
	c.viewport(0, 0, int32(width), int32(height))
	c.clearColor(clear[0], clear[1], clear[2], clear[3])
	// glClear honours the depth mask, and other code (an overlay) may have
	// turned it off; depth test and culling likewise. Culling keeps the
	// default back faces of counter-clockwise fronts.
	c.depthMask(true)
	c.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	c.enable(gl.DEPTH_TEST)
	c.enable(gl.CULL_FACE)
	return true
}

// end records the frame's statistics.
func (r *Renderer) end(instances, draws int) {
	r.stats.Instances = instances
	r.stats.DrawCalls = draws
	r.stats.GLCalls = r.gl.calls
	r.stats.InstanceBufferBytes = r.bufCap
	r.stats.PoseBufferBytes = r.poseCap
}
