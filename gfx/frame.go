package gfx

import (
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/nebulaengine/nebula/engine"
)

// This file holds the per-frame code. It calls OpenGL only through
// r.gl (a glCounter), so Stats.GLCalls is exact; a test checks that no gl
// function is called here directly. Nothing here allocates.

// Draw draws one frame into the bound framebuffer (a window's back
// buffer): it sets the viewport to width×height, clears colour (to clear,
// RGBA in [0, 1]) and depth, and draws a lit cube for every instance, seen
// by cam, with depth testing and back-face culling. The instances are
// streamed to the GPU (the buffer is orphaned, then written) and drawn with
// one draw call; the GL calls made do not depend on how many instances
// there are. Instances beyond MaxInstances are not drawn (Stats.Dropped
// counts them).
//
// A framebuffer of zero width or height (a minimised window) draws nothing
// and makes no GL call. Draw does not allocate. In builds with the
// nebuladebug tag it checks for OpenGL errors afterwards and panics with the
// error's name.
//
// Call it with the renderer's context current; show the frame with the
// window's SwapBuffers afterwards, and read it back (ReadRGBA) before that.
func (r *Renderer) Draw(width, height int, clear [4]float32, cam Camera, instances []engine.Instance) {
	if !r.begin("Draw", width, height, clear, cam) {
		return
	}
	dropped := 0
	if len(instances) > r.maxInstances {
		dropped = len(instances) - r.maxInstances
		instances = instances[:r.maxInstances]
	}
	c := &r.gl
	draws := 0
	if n := len(instances); n > 0 {
		c.useProgram(r.prog)
		c.uniformMatrix4(r.loc.viewProj, &r.vp)
		c.uniform3f(r.loc.eye, cam.Eye[0], cam.Eye[1], cam.Eye[2])
		r.stream(instances)
		c.activeTexture(gl.TEXTURE0 + instanceTextureUnit)
		c.bindTexture(gl.TEXTURE_BUFFER, r.tex)
		c.bindVertexArray(r.vao)
		c.drawArrays(gl.TRIANGLES, 0, int32(n*verticesPerCube))
		draws = 1
		c.bindVertexArray(0)
	}
	r.end(len(instances), draws)
	r.stats.Dropped = dropped
	checkFrame("Renderer.Draw")
}

// stream copies the instances into the instance buffer. The buffer is
// orphaned first (glBufferData with no data): the driver gives it fresh
// storage, so the copy never waits for the GPU to finish drawing the
// previous frame from the old one. Its capacity doubles when a frame needs
// more, and stays: in steady state every frame makes the same four calls.
// The buffer texture follows the buffer's new storage by itself.
func (r *Renderer) stream(instances []engine.Instance) {
	c := &r.gl
	size := len(instances) * instanceSize
	for r.bufCap < size {
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
	r.stats = Stats{InstanceBufferBytes: r.bufCap}
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
}
