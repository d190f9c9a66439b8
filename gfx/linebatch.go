package gfx

import (
	"fmt"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/nebulaengine/nebula/engine/render"
	"github.com/nebulaengine/nebula/shaders"
)

// LineBatch draws line segments in world space that change every frame,
// each vertex in its own colour (render.LineVertex), over what is drawn
// already and hidden by it where it is nearer (depth tested): a debug
// drawing such as engine/physics/debugdraw's. Each Draw uploads the
// vertices into a buffer orphaned first, so the driver never waits for
// the previous frame's draw to finish with it; the buffer grows, by
// doubling, to the largest frame drawn and is reused. Its GL objects are
// freed by Delete.
type LineBatch struct {
	prog     Program
	vao, vbo uint32
	capacity int // vertices the buffer holds
	loc      struct{ viewProj int32 }
	mem      *MemoryCounter // the context's counter, for vbo
	drawn    int            // vertices drawn by the last Draw
}

// lineVertexSize is the bytes of a render.LineVertex: 3 floats and 4
// bytes.
const lineVertexSize = int(unsafe.Sizeof(render.LineVertex{}))

// NewLineBatch makes a LineBatch, counting its buffer's bytes in mem, the
// context's counter (see MemoryCounter). Init must have been called.
func NewLineBatch(mem *MemoryCounter) (*LineBatch, error) {
	mustBeLoaded("NewLineBatch")
	b := &LineBatch{mem: mem}
	var err error
	if b.prog, err = NewProgram(shaders.FS, "linebatch.vert", "linebatch.frag"); err != nil {
		return nil, err
	}
	u := uniforms{prog: b.prog, files: "linebatch.vert + linebatch.frag"}
	b.loc.viewProj = u.find("uViewProj")
	if u.err != nil {
		b.Delete()
		return nil, u.err
	}
	gl.GenVertexArrays(1, &b.vao)
	gl.GenBuffers(1, &b.vbo)
	gl.BindVertexArray(b.vao)
	gl.BindBuffer(gl.ARRAY_BUFFER, b.vbo)
	gl.EnableVertexAttribArray(attrPos)
	gl.VertexAttribPointerWithOffset(attrPos, 3, gl.FLOAT, false, int32(lineVertexSize), unsafe.Offsetof(render.LineVertex{}.Pos))
	gl.EnableVertexAttribArray(attrColor)
	gl.VertexAttribPointerWithOffset(attrColor, 4, gl.UNSIGNED_BYTE, true, int32(lineVertexSize), unsafe.Offsetof(render.LineVertex{}.Color))
	gl.BindVertexArray(0)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	if err := CheckError(); err != nil {
		b.Delete()
		return nil, fmt.Errorf("gfx: NewLineBatch: %w", err)
	}
	return b, nil
}

// Draw uploads verts (segments: consecutive pairs; an odd last vertex is
// left out) and draws them with cam into the bound framebuffer of width x
// height pixels. It allocates nothing in Go; the GPU buffer grows when
// verts outgrow it.
func (b *LineBatch) Draw(width, height int, cam Camera, verts []render.LineVertex) {
	n := len(verts) &^ 1
	b.drawn = 0
	if width <= 0 || height <= 0 || n == 0 {
		return
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, b.vbo)
	if n > b.capacity {
		c := max(n, 2*b.capacity, 1024)
		b.mem.add((c - b.capacity) * lineVertexSize)
		b.capacity = c
	}
	// Orphan the buffer, then fill it: the driver hands out fresh storage
	// while the GPU may still read the last frame's.
	gl.BufferData(gl.ARRAY_BUFFER, b.capacity*lineVertexSize, nil, gl.STREAM_DRAW)
	gl.BufferSubData(gl.ARRAY_BUFFER, 0, n*lineVertexSize, unsafe.Pointer(unsafe.SliceData(verts)))
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)

	vp := cam.ViewProjection(float32(width) / float32(height))
	gl.Viewport(0, 0, int32(width), int32(height))
	gl.Enable(gl.DEPTH_TEST)
	gl.UseProgram(uint32(b.prog))
	gl.UniformMatrix4fv(b.loc.viewProj, 1, false, &vp[0])
	gl.BindVertexArray(b.vao)
	gl.DrawArrays(gl.LINES, 0, int32(n))
	gl.BindVertexArray(0)
	gl.UseProgram(0)
	b.drawn = n
}

// Segments returns the number of segments the last Draw drew.
func (b *LineBatch) Segments() int { return b.drawn / 2 }

// Delete frees the GL objects. The LineBatch must not be used afterwards.
func (b *LineBatch) Delete() {
	if b.vao != 0 {
		gl.DeleteVertexArrays(1, &b.vao)
		b.vao = 0
	}
	if b.vbo != 0 {
		gl.DeleteBuffers(1, &b.vbo)
		b.vbo = 0
		b.mem.add(-b.capacity * lineVertexSize)
		b.capacity = 0
	}
	b.prog.Delete()
}
