package gfx

import (
	"fmt"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/shaders"
)

// Lines draws fixed line segments in world space, in one colour, over what
// is drawn already and hidden by it where it is nearer (depth tested): the
// edges of a level's box, debug shapes. Its GL objects are freed by
// Delete.
type Lines struct {
	prog     Program
	vao, vbo uint32
	points   int32
	loc      struct{ viewProj, color int32 }
	mem      *MemoryCounter // the context's counter, for vbo
}

// NewLines uploads segments, two points each (a, b, a, b, ...), to the GPU,
// counting their buffer's bytes in mem, the context's counter (see
// MemoryCounter). Init must have been called.
func NewLines(mem *MemoryCounter, points []mgl32.Vec3) (*Lines, error) {
	mustBeLoaded("NewLines")
	if len(points) == 0 || len(points)%2 != 0 {
		return nil, fmt.Errorf("gfx: NewLines: %d points, want two per segment", len(points))
	}
	l := &Lines{points: int32(len(points)), mem: mem}
	var err error
	if l.prog, err = NewProgram(shaders.FS, "lines.vert", "lines.frag"); err != nil {
		return nil, err
	}
	u := uniforms{prog: l.prog, files: "lines.vert + lines.frag"}
	l.loc.viewProj, l.loc.color = u.find("uViewProj"), u.find("uColor")
	if u.err != nil {
		l.Delete()
		return nil, u.err
	}
	gl.GenVertexArrays(1, &l.vao)
	gl.GenBuffers(1, &l.vbo)
	gl.BindVertexArray(l.vao)
	gl.BindBuffer(gl.ARRAY_BUFFER, l.vbo)
	gl.BufferData(gl.ARRAY_BUFFER, len(points)*int(unsafe.Sizeof(mgl32.Vec3{})), unsafe.Pointer(unsafe.SliceData(points)), gl.STATIC_DRAW)
	l.mem.add(l.bytes())
	gl.EnableVertexAttribArray(attrPos)
	gl.VertexAttribPointerWithOffset(attrPos, 3, gl.FLOAT, false, int32(unsafe.Sizeof(mgl32.Vec3{})), 0)
	gl.BindVertexArray(0)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	if err := CheckError(); err != nil {
		l.Delete()
		return nil, fmt.Errorf("gfx: NewLines: %w", err)
	}
	return l, nil
}

// BoxEdges returns the 12 edges of the axis-aligned box from -half to half,
// as NewLines takes them.
func BoxEdges(half mgl32.Vec3) []mgl32.Vec3 {
	corner := func(i int) mgl32.Vec3 {
		c := half
		for a := range 3 {
			if i&(1<<a) == 0 {
				c[a] = -c[a]
			}
		}
		return c
	}
	var pts []mgl32.Vec3
	for i := range 8 {
		for a := range 3 {
			if j := i | 1<<a; j != i {
				pts = append(pts, corner(i), corner(j))
			}
		}
	}
	return pts
}

// Draw draws the segments with cam into the bound framebuffer of width x
// height pixels, in rgba (components in [0, 1]). It does not allocate.
func (l *Lines) Draw(width, height int, cam Camera, rgba [4]float32) {
	if width <= 0 || height <= 0 {
		return
	}
	vp := cam.ViewProjection(float32(width) / float32(height))
	gl.Viewport(0, 0, int32(width), int32(height))
	gl.Enable(gl.DEPTH_TEST)
	gl.UseProgram(uint32(l.prog))
	gl.UniformMatrix4fv(l.loc.viewProj, 1, false, &vp[0])
	gl.Uniform4f(l.loc.color, rgba[0], rgba[1], rgba[2], rgba[3])
	gl.BindVertexArray(l.vao)
	gl.DrawArrays(gl.LINES, 0, l.points)
	gl.BindVertexArray(0)
	gl.UseProgram(0)
}

// Delete frees the GL objects. The Lines must not be used afterwards.
func (l *Lines) Delete() {
	if l.vao != 0 {
		gl.DeleteVertexArrays(1, &l.vao)
		l.vao = 0
	}
	if l.vbo != 0 {
		gl.DeleteBuffers(1, &l.vbo)
		l.vbo = 0
		l.mem.add(-l.bytes())
	}
	l.prog.Delete()
}

// bytes is the storage of l's vertex buffer.
func (l *Lines) bytes() int { return int(l.points) * int(unsafe.Sizeof(mgl32.Vec3{})) }
