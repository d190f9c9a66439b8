package gfx

import (
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
)

// glCounter is how the per-frame code (frame.go) calls OpenGL: each method
// makes one GL call and counts it, so Stats can report the GL calls of a
// frame and a test can check that the count does not grow with the number of
// entities. frame.go calls no gl function directly (TestFrameCallsGLOnlyThroughCounter).
type glCounter struct {
	calls int
	// got receives getInteger's value: it lives with the counter, so
	// passing its address to OpenGL (through cgo) moves nothing to the
	// heap.
	got int32
}

func (c *glCounter) viewport(x, y, w, h int32) { c.calls++; gl.Viewport(x, y, w, h) }

func (c *glCounter) clearColor(r, g, b, a float32) { c.calls++; gl.ClearColor(r, g, b, a) }

func (c *glCounter) clear(mask uint32) { c.calls++; gl.Clear(mask) }

func (c *glCounter) enable(capability uint32) { c.calls++; gl.Enable(capability) }

func (c *glCounter) disable(capability uint32) { c.calls++; gl.Disable(capability) }

func (c *glCounter) depthMask(on bool) { c.calls++; gl.DepthMask(on) }

func (c *glCounter) blendFunc(src, dst uint32) { c.calls++; gl.BlendFunc(src, dst) }

func (c *glCounter) uniform1f(loc int32, v float32) { c.calls++; gl.Uniform1f(loc, v) }

func (c *glCounter) bindFramebuffer(target, fbo uint32) { c.calls++; gl.BindFramebuffer(target, fbo) }

func (c *glCounter) polygonOffset(factor, units float32) { c.calls++; gl.PolygonOffset(factor, units) }

// getInteger reads a piece of GL state (a binding: no GPU work is waited
// for).
func (c *glCounter) getInteger(name uint32) int32 {
	c.calls++
	gl.GetIntegerv(name, &c.got)
	return c.got
}

func (c *glCounter) bindBufferBase(target, index, buf uint32) {
	c.calls++
	gl.BindBufferBase(target, index, buf)
}

func (c *glCounter) useProgram(p Program) { c.calls++; gl.UseProgram(uint32(p)) }

// uniformMatrix4 sets a mat4 uniform. m must not be on the stack of the
// caller's frame: a pointer handed to cgo escapes, so a local matrix would be
// moved to the heap on every call.
func (c *glCounter) uniformMatrix4(loc int32, m *mgl32.Mat4) {
	c.calls++
	gl.UniformMatrix4fv(loc, 1, false, &m[0])
}

func (c *glCounter) uniform3f(loc int32, x, y, z float32) { c.calls++; gl.Uniform3f(loc, x, y, z) }

func (c *glCounter) bindVertexArray(vao uint32) { c.calls++; gl.BindVertexArray(vao) }

func (c *glCounter) bindBuffer(target, buf uint32) { c.calls++; gl.BindBuffer(target, buf) }

// orphan gives the bound buffer new, uninitialised storage of size bytes.
// The driver can hand out fresh memory at once while the GPU still reads
// the old storage for earlier frames, instead of stalling until it is done.
func (c *glCounter) orphan(target uint32, size int, usage uint32) {
	c.calls++
	gl.BufferData(target, size, nil, usage)
}

func (c *glCounter) bufferSubData(target uint32, offset, size int, data unsafe.Pointer) {
	c.calls++
	gl.BufferSubData(target, offset, size, data)
}

// drawArrays draws count vertices from first, with no index buffer.
func (c *glCounter) drawArrays(mode uint32, first, count int32) {
	c.calls++
	gl.DrawArrays(mode, first, count)
}

func (c *glCounter) activeTexture(unit uint32) { c.calls++; gl.ActiveTexture(unit) }

func (c *glCounter) bindTexture(target, tex uint32) { c.calls++; gl.BindTexture(target, tex) }

func (c *glCounter) uniform4i(loc int32, x, y, z, w int32) { c.calls++; gl.Uniform4i(loc, x, y, z, w) }

func (c *glCounter) uniform4f(loc int32, x, y, z, w float32) {
	c.calls++
	gl.Uniform4f(loc, x, y, z, w)
}

// drawElementsInstanced draws count indices of the bound element buffer
// from its start, instances times.
func (c *glCounter) drawElementsInstanced(mode uint32, count int32, xtype uint32, instances int32) {
	c.calls++
	gl.DrawElementsInstanced(mode, count, xtype, nil, instances)
}

func (c *glCounter) uniform2i(loc int32, x, y int32) { c.calls++; gl.Uniform2i(loc, x, y) }

// mapBufferRange maps length bytes of the bound buffer from offset.
func (c *glCounter) mapBufferRange(target uint32, offset, length int, access uint32) unsafe.Pointer {
	c.calls++
	return gl.MapBufferRange(target, offset, length, access)
}

// flushMappedRange flushes length bytes from offset of the mapped range.
func (c *glCounter) flushMappedRange(target uint32, offset, length int) {
	c.calls++
	gl.FlushMappedBufferRange(target, offset, length)
}

// unmap unmaps the bound buffer; false says its storage was lost.
func (c *glCounter) unmap(target uint32) bool {
	c.calls++
	return gl.UnmapBuffer(target)
}

// fenceSync returns a fence signalled once the GPU has done every command
// issued before it.
func (c *glCounter) fenceSync() uintptr {
	c.calls++
	return gl.FenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0)
}

// waitSync waits for fence (0: none) to be signalled, flushing the
// commands before it.
func (c *glCounter) waitSync(fence uintptr) {
	if fence == 0 {
		return
	}
	for {
		c.calls++
		switch gl.ClientWaitSync(fence, gl.SYNC_FLUSH_COMMANDS_BIT, 1e9) {
		case gl.TIMEOUT_EXPIRED:
			continue
		default: // signalled, or a failure a debug build reports
			return
		}
	}
}

// deleteSync deletes *fence, if any, and zeroes it.
func (c *glCounter) deleteSync(fence *uintptr) {
	if *fence == 0 {
		return
	}
	c.calls++
	gl.DeleteSync(*fence)
	*fence = 0
}
