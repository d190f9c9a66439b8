package gfx

import (
	"fmt"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/shaders"
)

// The renderer uploads []engine.Instance to the GPU as is and shaders/cube.vert
// reads it with this layout. These lines stop compiling (constant index out
// of range) if engine.Instance's size or field offsets change.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(engine.Instance{})-44]
	_ = [1]struct{}{}[unsafe.Offsetof(engine.Instance{}.Pos)-0]
	_ = [1]struct{}{}[unsafe.Offsetof(engine.Instance{}.Rot)-12]
	_ = [1]struct{}{}[unsafe.Offsetof(engine.Instance{}.Scale)-28]
	_ = [1]struct{}{}[unsafe.Offsetof(engine.Instance{}.Color)-40]
)

// instanceSize is the stride of the instance buffer: one engine.Instance.
const instanceSize = int(unsafe.Sizeof(engine.Instance{}))

// minInstanceCapacity is the instance buffer's first capacity, in instances;
// it doubles from there when a frame needs more.
const minInstanceCapacity = 256

// Light is the renderer's single directional light plus ambient light. A
// face of colour c facing direction n is drawn c * (Ambient + Diffuse *
// max(n·Dir, 0)), clamped to [0, 1].
type Light struct {
	// Dir points from the scene toward the light; it need not be unit
	// length, but must not be zero.
	Dir mgl32.Vec3
	// Ambient lights every face; Diffuse is added in proportion to the
	// cosine between a face's normal and Dir.
	Ambient, Diffuse float32
}

// DefaultLight returns the light NewRenderer starts with: from above, a
// little to the right and in front (toward +Z), ambient 0.3 and diffuse 0.7,
// so a face turned straight to the light is drawn in its full colour and a
// face turned away at 30%.
func DefaultLight() Light {
	return Light{Dir: mgl32.Vec3{0.3, 0.8, 0.5}, Ambient: 0.3, Diffuse: 0.7}
}

// Stats describes the last frame drawn by Frame or DrawPerInstance.
type Stats struct {
	// Width and Height are the framebuffer size the frame was drawn at.
	Width, Height int
	// Instances is the number of cubes drawn.
	Instances int
	// DrawCalls is the number of draw calls: 1 for Frame with instances,
	// one per instance for DrawPerInstance, 0 when nothing was drawn.
	DrawCalls int
	// GLCalls is the number of OpenGL calls the frame made, draw calls
	// included. For Frame it is the same for any number of instances above
	// zero. The error check of nebuladebug builds is not counted.
	GLCalls int
	// InstanceBufferBytes is the capacity of the GPU buffer the instances
	// are streamed to. It doubles when a frame needs more and never shrinks.
	InstanceBufferBytes int
}

// Renderer draws cubes, one per engine.Instance, lit by one directional
// light, with one instanced draw call per frame.
//
// Every method must be called on the thread where the OpenGL context the
// renderer was made in is current (the main thread), with that context
// current. Delete it when done; it has no finalizer.
type Renderer struct {
	prog   Program // cube.vert + cube.frag: the instanced path
	single Program // cube_single.vert + cube.frag: DrawPerInstance
	mesh   Mesh
	vao    uint32 // the mesh's attributes plus the per-instance ones
	buf    uint32 // the instance buffer
	bufCap int    // its capacity in bytes

	loc struct { // uniform locations in prog
		viewProj, lightDir, ambient, diffuse int32
	}
	singleLoc struct { // uniform locations in single
		viewProj, lightDir, ambient, diffuse int32
		pos, rot, scale, color               int32
	}

	// vp is the current frame's view-projection matrix. It lives here, not
	// on Frame's stack, because its address goes to OpenGL (through cgo),
	// which would move a local to the heap on every frame.
	vp mgl32.Mat4

	gl    glCounter
	stats Stats
}

// NewRenderer builds the renderer's programs (from shaders.FS), the cube
// mesh and the instance buffer. A context must be current and Init must
// have been called. Errors name what failed; shader errors are
// *ShaderError.
func NewRenderer() (*Renderer, error) {
	mustBeLoaded("NewRenderer")
	r := &Renderer{}
	ok := false
	defer func() {
		if !ok {
			r.Delete()
		}
	}()

	var err error
	if r.prog, err = NewProgram(shaders.FS, "cube.vert", "cube.frag"); err != nil {
		return nil, err
	}
	if r.single, err = NewProgram(shaders.FS, "cube_single.vert", "cube.frag"); err != nil {
		return nil, err
	}
	if err := checkAttribs(r.prog, "cube.vert", map[string]int32{
		"aPos": attrPos, "aNormal": attrNormal,
		"iPos": attrIPos, "iRot": attrIRot, "iScale": attrIScale, "iColor": attrIColor,
	}); err != nil {
		return nil, err
	}
	if err := checkAttribs(r.single, "cube_single.vert", map[string]int32{"aPos": attrPos, "aNormal": attrNormal}); err != nil {
		return nil, err
	}
	u := uniforms{prog: r.single, files: "cube_single.vert + cube.frag"}
	r.singleLoc.viewProj = u.find("uViewProj")
	r.singleLoc.lightDir = u.find("uLightDir")
	r.singleLoc.ambient = u.find("uAmbient")
	r.singleLoc.diffuse = u.find("uDiffuse")
	r.singleLoc.pos = u.find("uPos")
	r.singleLoc.rot = u.find("uRot")
	r.singleLoc.scale = u.find("uScale")
	r.singleLoc.color = u.find("uColor")
	if u.err != nil {
		return nil, u.err
	}
	u = uniforms{prog: r.prog, files: "cube.vert + cube.frag"}
	r.loc.viewProj = u.find("uViewProj")
	r.loc.lightDir = u.find("uLightDir")
	r.loc.ambient = u.find("uAmbient")
	r.loc.diffuse = u.find("uDiffuse")
	if u.err != nil {
		return nil, u.err
	}

	if r.mesh, err = NewCubeMesh(); err != nil {
		return nil, err
	}

	// The instanced vertex array: the mesh's vertices and indices, and one
	// engine.Instance per instance from the instance buffer.
	gl.GenVertexArrays(1, &r.vao)
	gl.GenBuffers(1, &r.buf)
	gl.BindVertexArray(r.vao)
	r.mesh.bindVertices()
	gl.BindBuffer(gl.ARRAY_BUFFER, r.buf)
	r.bufCap = minInstanceCapacity * instanceSize
	gl.BufferData(gl.ARRAY_BUFFER, r.bufCap, nil, gl.STREAM_DRAW)
	instanceAttrib(attrIPos, 3, gl.FLOAT, false, unsafe.Offsetof(engine.Instance{}.Pos))
	instanceAttrib(attrIRot, 4, gl.FLOAT, false, unsafe.Offsetof(engine.Instance{}.Rot))
	instanceAttrib(attrIScale, 3, gl.FLOAT, false, unsafe.Offsetof(engine.Instance{}.Scale))
	instanceAttrib(attrIColor, 4, gl.UNSIGNED_BYTE, true, unsafe.Offsetof(engine.Instance{}.Color))
	gl.BindVertexArray(0)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)

	r.SetLight(DefaultLight())
	if err := CheckError(); err != nil {
		return nil, fmt.Errorf("gfx: NewRenderer: %w", err)
	}
	ok = true
	return r, nil
}

// instanceAttrib points attribute loc of the bound vertex array at a field
// of engine.Instance in the bound array buffer, advancing once per instance.
func instanceAttrib(loc uint32, size int32, xtype uint32, normalized bool, offset uintptr) {
	gl.EnableVertexAttribArray(loc)
	gl.VertexAttribPointerWithOffset(loc, size, xtype, normalized, int32(instanceSize), offset)
	gl.VertexAttribDivisor(loc, 1)
}

// checkAttribs checks that the program's attributes sit at the locations
// the Go code binds buffers to.
func checkAttribs(p Program, file string, want map[string]int32) error {
	for name, loc := range want {
		if got := gl.GetAttribLocation(uint32(p), gl.Str(name+"\x00")); got != loc {
			return fmt.Errorf("gfx: %s: attribute %s is at location %d, gfx binds it at %d (see the attr constants in gfx/mesh.go)", file, name, got, loc)
		}
	}
	return nil
}

// uniforms looks up uniform locations, keeping the first failure.
type uniforms struct {
	prog  Program
	files string
	err   error
}

func (u *uniforms) find(name string) int32 {
	loc := gl.GetUniformLocation(uint32(u.prog), gl.Str(name+"\x00"))
	if loc < 0 && u.err == nil {
		u.err = fmt.Errorf("gfx: %s: no active uniform %s (renamed, or unused and optimised away?)", u.files, name)
	}
	return loc
}

// SetLight changes the light for the frames that follow. It panics if
// l.Dir is zero or not finite.
func (r *Renderer) SetLight(l Light) {
	r.mustLive("SetLight")
	n := l.Dir.Len()
	if !(n > 0 && n <= mgl32.MaxValue) {
		panic(fmt.Sprintf("gfx: Renderer.SetLight: the light direction must be a non-zero finite vector, got %v", l.Dir))
	}
	d := l.Dir.Mul(1 / n)
	gl.UseProgram(uint32(r.prog))
	gl.Uniform3f(r.loc.lightDir, d[0], d[1], d[2])
	gl.Uniform1f(r.loc.ambient, l.Ambient)
	gl.Uniform1f(r.loc.diffuse, l.Diffuse)
	gl.UseProgram(uint32(r.single))
	gl.Uniform3f(r.singleLoc.lightDir, d[0], d[1], d[2])
	gl.Uniform1f(r.singleLoc.ambient, l.Ambient)
	gl.Uniform1f(r.singleLoc.diffuse, l.Diffuse)
	gl.UseProgram(0)
}

// Stats returns what the last Frame or DrawPerInstance did.
func (r *Renderer) Stats() Stats { return r.stats }

// Delete frees the renderer's GPU objects. Using the renderer afterwards
// panics; deleting it again does nothing.
func (r *Renderer) Delete() {
	r.prog.Delete()
	r.single.Delete()
	r.mesh.Delete()
	if r.vao != 0 {
		gl.DeleteVertexArrays(1, &r.vao)
		r.vao = 0
	}
	if r.buf != 0 {
		gl.DeleteBuffers(1, &r.buf)
		r.buf = 0
	}
}

func (r *Renderer) mustLive(method string) {
	if r == nil || r.prog == 0 || r.vao == 0 {
		panic("gfx: Renderer." + method + " on a nil, deleted or unfinished Renderer")
	}
}
