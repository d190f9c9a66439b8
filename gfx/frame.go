package gfx

import (
	"cmp"
	"math"
	"slices"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/nebulaengine/nebula/engine/render"
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
// An instance of alpha 255 is opaque. One of alpha 1 to 254 is drawn
// transparent: after every opaque one, from the farthest to the nearest,
// blended with premultiplied alpha (glBlendFunc(GL_ONE,
// GL_ONE_MINUS_SRC_ALPHA)), testing depth without writing it. One of alpha
// 0 is not drawn, nor is one out of view (frustum culling: SetCulling);
// Stats.Culled counts both. A transparent instance is drawn whole, nearest
// faces last within it only as far as its mesh's triangles are ordered.
//
// The opaque instances are sorted by mesh (a counting sort into a reused buffer;
// when they all show one mesh and none is left out they are used as they are), streamed to the
// GPU (the buffer is orphaned, then written) and drawn with one draw call
// per mesh in use, or per part of a model: the GL calls made depend on the
// meshes in use (and the programs their parts need), not on how many
// instances or poses there are (the transparent ones add a draw per run
// of one mesh in their order). The built-in cube and sphere are drawn
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
	planes, cull := r.frustum()
	lights, lightsLeft := r.uploadLights(&planes, cam.Eye)
	sorted, opaque, unknown, culled := r.sort(instances, &planes, cull)
	if len(sorted) > 0 {
		r.stream(sorted)
	}
	// The transparent instances' runs of one mesh, in their order.
	runs := r.runs[:0]
	for k := opaque; k < len(sorted); {
		end := k + 1
		for end < len(sorted) && sorted[end].Mesh == sorted[k].Mesh {
			end++
		}
		runs = append(runs, meshRun{slot: r.slotOf(sorted[k].Mesh), first: int32(k), count: int32(end - k)})
		k = end
	}
	r.runs = runs
	draws, triangles, meshes, posed := r.drawFrame(cam, width, height, r.tex, len(sorted), opaque, poses, true)
	r.end(len(sorted), draws)
	r.stats.Triangles = triangles
	r.stats.Unknown = unknown
	r.stats.Dropped = dropped
	r.stats.Culled = culled
	r.stats.Transparent = len(sorted) - opaque
	r.stats.Lights, r.stats.LightsLeftOut = lights, lightsLeft
	r.stats.Meshes = meshes
	r.stats.Poses = posed
	checkFrame("Renderer.Draw")
}

// meshRun is a run of instances of one mesh: its slot, its first
// instance and how many.
type meshRun struct {
	slot         int32
	first, count int32
}

// drawFrame draws the frame's instances, n of them streamed (read
// through the buffer texture tex), the first opaque of them opaque and
// sorted by mesh (r.counts, r.starts; r.used counts both kinds), the
// others transparent in r.runs: the shadow pass, then the opaque runs,
// then the transparent ones, blended. It returns the draw calls, the
// triangles, the meshes in use and the poses uploaded; uploadPoses false
// says the pose buffer already holds poses (beginModels).
func (r *Renderer) drawFrame(cam Camera, width, height int, tex uint32, n, opaque int, poses *render.Poses, uploadPoses bool) (draws, triangles, meshes, posed int) {
	if n == 0 {
		return 0, 0, 0, 0
	}
	c := &r.gl
	c.activeTexture(gl.TEXTURE0 + instanceTextureUnit)
	c.bindTexture(gl.TEXTURE_BUFFER, tex)
	models := false
	for s, m := range r.meshes {
		if r.used[s] == 0 {
			continue
		}
		meshes++
		models = models || m.pulled == notPulled
	}
	if models {
		posed = r.beginModels(poses, uploadPoses)
	}
	// The shadow pass, from the light, before the frame's own.
	shadowed := false
	if sh := &r.shadow; sh.cfg.On && sh.size > 0 && opaque > 0 && r.fitShadow(cam, float32(width)/float32(height)) {
		r.stats.ShadowDrawCalls = r.shadowPass(width, height)
		draws += r.stats.ShadowDrawCalls
		shadowed = true
	}
	if r.shadow.cfg.On {
		r.setShadowUniforms(shadowed)
	}
	// The opaque instances, a run per mesh; then the transparent ones
	// back to front, a draw per run of one mesh, blended.
	for s := range r.meshes {
		if r.counts[s] > 0 {
			d, tris := r.drawRun(cam, s, r.starts[s], r.counts[s])
			draws += d
			triangles += tris
		}
	}
	if opaque < n {
		c.enable(gl.BLEND)
		c.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA)
		c.depthMask(false)
		for _, run := range r.runs {
			d, tris := r.drawRun(cam, int(run.slot), run.first, run.count)
			draws += d
			triangles += tris
		}
		c.depthMask(true)
		c.disable(gl.BLEND)
	}
	if models {
		c.activeTexture(gl.TEXTURE0)
	}
	c.bindVertexArray(0)
	return draws, triangles, meshes, posed
}

// drawRun draws count instances of the mesh in slot s from instance first
// of the streamed instances, and returns the draw calls and triangles.
func (r *Renderer) drawRun(cam Camera, s int, first, count int32) (draws, triangles int) {
	switch r.meshes[s].pulled {
	case pulledCube:
		r.drawCubes(cam, first, count)
		return 1, int(count) * verticesPerCube / 3
	case pulledSphere:
		r.drawSpheres(cam, first, count)
		return 1, int(count) * verticesPerSphere / 3
	}
	return r.drawModel(s, first, count)
}

// A transparent instance to sort: its depth in front of the camera and its
// index in the instances.
type depthRef struct {
	depth float32
	i     int32
}

// sort returns the instances to draw: the opaque ones (alpha 255) sorted
// by mesh, each registered mesh's run starting at r.starts[s] with
// r.counts[s] instances, then the transparent ones (alpha 1 to 254) from
// the farthest to the nearest (ties in the order given). opaque is the
// number of opaque instances; r.used[s] counts each mesh's instances of
// both kinds. Left out are the instances of no registered mesh (unknown)
// and, counted in culled, those of alpha 0 and, with cull (the view's planes, from frustum), those
// whose bounds are wholly outside the view (see cullRadius). When every
// instance is opaque, drawn and of one mesh it returns instances itself.
func (r *Renderer) sort(instances []render.Instance, planes *[6][4]float32, cull bool) (sorted []render.Instance, opaque, unknown, culled int) {
	counts, starts, used := r.counts, r.starts, r.used
	clear(counts)
	clear(starts)
	clear(used)
	if len(instances) == 0 {
		return nil, 0, 0, 0
	}
	if cap(r.which) < len(instances) {
		r.which = make([]int32, len(instances), max(len(instances), 2*cap(r.which)))
	}
	which := r.which[:len(instances)]
	back := r.back[:0]
	slot, meshes := r.slot, r.meshes
	for i := range instances {
		in := &instances[i]
		s := int32(-1)
		if id := int(in.Mesh); id < len(slot) {
			s = slot[id]
		}
		which[i] = -1
		switch {
		case s < 0 || !meshes[s].live():
			unknown++
			continue
		case in.Color[3] == 0:
			culled++
			continue
		case cull:
			if rad, ok := cullRadius(meshes[s], in); ok && outside(planes, in.Pos, rad) {
				culled++
				continue
			}
		}
		used[s]++
		if in.Color[3] < 255 {
			back = append(back, depthRef{depth: r.depth(in.Pos), i: int32(i)})
			continue
		}
		which[i] = s
		counts[s]++
	}
	r.back = back
	n := int32(0)
	runs := 0
	for s := range meshes {
		starts[s] = n
		n += counts[s]
		if counts[s] > 0 {
			runs++
		}
	}
	if int(n) == len(instances) && runs == 1 {
		return instances, len(instances), 0, 0 // the common frame: nothing left out, one mesh
	}

	// Place each opaque instance at the next free index of its mesh's
	// run, then the transparent ones, farthest first.
	total := int(n) + len(back)
	if cap(r.staging) < total {
		r.staging = make([]render.Instance, total, max(total, 2*cap(r.staging)))
	}
	staging := r.staging[:total]
	next := r.next
	copy(next, starts)
	for i, s := range which {
		if s >= 0 {
			staging[next[s]] = instances[i]
			next[s]++
		}
	}
	slices.SortStableFunc(back, func(a, b depthRef) int { return cmp.Compare(b.depth, a.depth) })
	for k, b := range back {
		staging[int(n)+k] = instances[b.i]
	}
	return staging, int(n), unknown, culled
}

// depth returns how far in front of the camera a point is: its clip w.
func (r *Renderer) depth(p [3]float32) float32 {
	m := &r.vp
	return m[3]*p[0] + m[7]*p[1] + m[11]*p[2] + m[15]
}

// frustum returns the six planes of the frame's view (each a unit normal
// pointing inwards and an offset: a point p is inside when n·p + d >= 0),
// and whether culling is on.
func (r *Renderer) frustum() (planes [6][4]float32, on bool) {
	if r.noCulling {
		return planes, false
	}
	m := &r.vp // column-major: row k is m[k], m[4+k], m[8+k], m[12+k]
	row := func(k int) [4]float32 { return [4]float32{m[k], m[4+k], m[8+k], m[12+k]} }
	w := row(3)
	for k := range 3 {
		a := row(k)
		for j, sign := range [2]float32{1, -1} {
			var p [4]float32
			for c := range 4 {
				p[c] = w[c] + sign*a[c]
			}
			l := float32(math.Sqrt(float64(p[0]*p[0] + p[1]*p[1] + p[2]*p[2])))
			if l > 0 {
				for c := range 4 {
					p[c] /= l
				}
			}
			planes[2*k+j] = p
		}
	}
	return planes, true
}

// outside reports whether the sphere at c of radius rad is wholly on the
// outer side of one of the planes.
func outside(planes *[6][4]float32, c [3]float32, rad float32) bool {
	for k := range planes {
		p := &planes[k]
		if p[0]*c[0]+p[1]*c[1]+p[2]*c[2]+p[3] < -rad {
			return true
		}
	}
	return false
}

// cullRadius returns the radius of a sphere about the instance's position
// that holds what it draws of m, and whether there is one: a skinned or
// morphed model drawn with a pose can be anywhere its pose puts it (a
// ragdoll's skin follows its bodies), so such an instance is never culled.
func cullRadius(m *Model, in *render.Instance) (float32, bool) {
	s := in.Scale
	big := max(abs32(s[0]), abs32(s[1]), abs32(s[2]))
	switch {
	case m.pulled == pulledCube:
		return 0.8660255 * big, true // half the unit cube's diagonal
	case m.pulled == pulledSphere:
		return 0.5 * big, true
	case in.Pose != 0:
		return 0, false
	}
	return m.radius * big, true
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

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
// model's draw shares. It returns the number of poses the buffer holds.
//
// The pose buffer holds the bones (3 RGBA32F texels each: the frame's,
// then each model's rest palette), the weights from the next whole texel
// on (the frame's, then each model's rest weights) and the references
// from the next whole texel on: mesh.vert reads the first two as RGBA32F
// texels, the last as 32-bit words.
//
// With upload false the buffer is left as it is, holding the same poses
// (the GPU path between ticks).
func (r *Renderer) beginModels(poses *render.Poses, upload bool) int {
	c := &r.gl
	if upload {
		r.tk.posesOK = false // the GPU path's poses are overwritten
	}
	var bones []render.Bone
	var weights []float32
	var refs []render.PoseRef
	if poses != nil {
		bones, weights, refs = poses.Bones, poses.Weights, poses.Refs
	}
	nb, nw := len(bones), len(weights)
	var shadings uint8
	for s, m := range r.meshes {
		if r.used[s] > 0 && m.pulled == notPulled {
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
	if upload {
		r.writePoses(bones, weights, refs, boneBytes, weightBytes)
	}

	for sh := range r.meshProgs {
		if shadings&(1<<sh) != 0 {
			mp := &r.meshProgs[sh]
			c.useProgram(mp.prog)
			c.uniformMatrix4(mp.loc.viewProj, &r.vp)
			c.uniform4i(mp.loc.frame, int32(len(refs)), int32(boneBytes/16), int32((boneBytes+weightBytes)/4), 0)
		}
	}
	r.frame = [3]int32{int32(len(refs)), int32(boneBytes / 16), int32((boneBytes + weightBytes) / 4)}
	c.activeTexture(gl.TEXTURE0 + poseTextureUnit)
	c.bindTexture(gl.TEXTURE_BUFFER, r.poseTex)
	c.activeTexture(gl.TEXTURE0 + poseWordTextureUnit)
	c.bindTexture(gl.TEXTURE_BUFFER, r.poseWordTex)
	return len(refs)
}

// writePoses streams the frame's bones, weights and references, and the
// rest palette and weights of every model in use, into the orphaned pose
// buffer, as beginModels lays them out.
func (r *Renderer) writePoses(bones []render.Bone, weights []float32, refs []render.PoseRef, boneBytes, weightBytes int) {
	c := &r.gl
	c.bindBuffer(gl.TEXTURE_BUFFER, r.poseBuf)
	c.orphan(gl.TEXTURE_BUFFER, r.poseCap, gl.STREAM_DRAW)
	c.bufferSubData(gl.TEXTURE_BUFFER, 0, len(bones)*boneSize, unsafe.Pointer(unsafe.SliceData(bones)))
	for s, m := range r.meshes {
		if r.used[s] > 0 && m.pulled == notPulled {
			c.bufferSubData(gl.TEXTURE_BUFFER, int(r.rest[s].bone)*boneSize, len(m.restBones)*boneSize, unsafe.Pointer(unsafe.SliceData(m.restBones)))
		}
	}
	c.bufferSubData(gl.TEXTURE_BUFFER, boneBytes, 4*len(weights), unsafe.Pointer(unsafe.SliceData(weights)))
	for s, m := range r.meshes {
		if r.used[s] > 0 && m.pulled == notPulled {
			c.bufferSubData(gl.TEXTURE_BUFFER, boneBytes+4*int(r.rest[s].weight), 4*len(m.restWeights), unsafe.Pointer(unsafe.SliceData(m.restWeights)))
		}
	}
	c.bufferSubData(gl.TEXTURE_BUFFER, boneBytes+weightBytes, len(refs)*poseRefSize, unsafe.Pointer(unsafe.SliceData(refs)))
	c.bindBuffer(gl.TEXTURE_BUFFER, 0)
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
