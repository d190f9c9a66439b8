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
// reads it with this layout, 12 32-bit words per instance. These lines stop
// compiling (constant index out of range) if engine.Instance's size or field
// offsets change.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(engine.Instance{})-48]
	_ = [1]struct{}{}[unsafe.Offsetof(engine.Instance{}.Pos)-0]
	_ = [1]struct{}{}[unsafe.Offsetof(engine.Instance{}.Rot)-12]
	_ = [1]struct{}{}[unsafe.Offsetof(engine.Instance{}.Scale)-28]
	_ = [1]struct{}{}[unsafe.Offsetof(engine.Instance{}.Color)-40]
	_ = [1]struct{}{}[unsafe.Offsetof(engine.Instance{}.Mesh)-44]
	_ = [1]struct{}{}[unsafe.Offsetof(engine.Instance{}.Pose)-46]
)

// instanceSize is the size of one engine.Instance in the instance buffer.
const instanceSize = int(unsafe.Sizeof(engine.Instance{}))

// instanceWords is instanceSize in the 32-bit texels of the buffer texture
// cube.vert reads the instances through.
const instanceWords = instanceSize / 4

// verticesPerCube is how many vertices cube.vert makes of each instance:
// three faces, two triangles each.
const verticesPerCube = 18

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

// Stats describes the last frame the Renderer drew.
type Stats struct {
	// Width and Height are the framebuffer size the frame was drawn at.
	Width, Height int
	// Instances is the number of cubes drawn.
	Instances int
	// Dropped is the number of instances Draw was given beyond
	// Renderer.MaxInstances, which it did not draw. It is 0 unless a
	// frame asks for more cubes than the driver's buffer textures can hold.
	Dropped int
	// DrawCalls is the number of draw calls: 1 for a frame with
	// instances, 0 when nothing was drawn.
	DrawCalls int
	// GLCalls is the number of OpenGL calls the frame made, draw calls
	// included. For Draw it is the same for any number of instances above
	// zero. The error check of nebuladebug builds is not counted.
	GLCalls int
	// InstanceBufferBytes is the capacity of the GPU buffer the instances
	// are streamed to. It doubles when a frame needs more and never shrinks.
	InstanceBufferBytes int
}

// Renderer draws cubes, one per engine.Instance, lit by one directional
// light, with one draw call per frame.
//
// The instances are streamed every frame into a buffer that the vertex
// shader reads as a buffer texture, and one glDrawArrays makes every cube's
// vertices from gl_VertexID (see shaders/cube.vert). This is instancing
// done in the shader ("vertex pulling") rather than with attribute
// divisors: the GPU work is the same on hardware, but software rasterisers
// such as Mesa's llvmpipe run their whole vertex pipeline once per instance
// of an instanced draw, and one large draw is much cheaper there.
//
// Every method must be called on the thread where the OpenGL context the
// renderer was made in is current (the main thread), with that context
// current. Delete it when done; it has no finalizer.
type Renderer struct {
	prog   Program // cube.vert + cube.frag
	vao    uint32  // an empty vertex array: cube.vert has no attributes
	buf    uint32  // the instance buffer
	tex    uint32  // the buffer texture over buf that cube.vert reads
	bufCap int     // buf's capacity in bytes

	// maxInstances is how many instances one buffer texture can address
	// (GL_MAX_TEXTURE_BUFFER_SIZE words).
	maxInstances int

	loc struct { // uniform locations in prog
		viewProj, eye, lightDir, ambient, diffuse, instances int32
	}

	// vp is the current frame's view-projection matrix. It lives here, not
	// on Draw's stack, because its address goes to OpenGL (through cgo),
	// which would move a local to the heap on every frame.
	vp mgl32.Mat4

	light Light // as SetLight set it, Dir normalised

	gl    glCounter
	stats Stats
}

// NewRenderer builds the renderer's program (from shaders.FS), the empty
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
	u := uniforms{prog: r.prog, files: "cube.vert + cube.frag"}
	r.loc.viewProj = u.find("uViewProj")
	r.loc.eye = u.find("uEye")
	r.loc.lightDir = u.find("uLightDir")
	r.loc.ambient = u.find("uAmbient")
	r.loc.diffuse = u.find("uDiffuse")
	r.loc.instances = u.find("uInstances")
	if u.err != nil {
		return nil, u.err
	}

	var maxTexels int32
	gl.GetIntegerv(gl.MAX_TEXTURE_BUFFER_SIZE, &maxTexels)
	r.maxInstances = int(maxTexels) / instanceWords

	// The instance buffer, read through a buffer texture of 32-bit words
	// on texture unit 0; the vertex array stays empty (cube.vert has no
	// attributes) but the core profile needs one bound to draw.
	gl.GenVertexArrays(1, &r.vao)
	gl.GenBuffers(1, &r.buf)
	gl.GenTextures(1, &r.tex)
	gl.BindBuffer(gl.TEXTURE_BUFFER, r.buf)
	r.bufCap = minInstanceCapacity * instanceSize
	gl.BufferData(gl.TEXTURE_BUFFER, r.bufCap, nil, gl.STREAM_DRAW)
	gl.BindBuffer(gl.TEXTURE_BUFFER, 0)
	gl.BindTexture(gl.TEXTURE_BUFFER, r.tex)
	gl.TexBuffer(gl.TEXTURE_BUFFER, gl.R32UI, r.buf)
	gl.BindTexture(gl.TEXTURE_BUFFER, 0)
	gl.UseProgram(uint32(r.prog))
	gl.Uniform1i(r.loc.instances, instanceTextureUnit)
	gl.UseProgram(0)

	r.SetLight(DefaultLight())
	if err := CheckError(); err != nil {
		return nil, fmt.Errorf("gfx: NewRenderer: %w", err)
	}
	ok = true
	return r, nil
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
	gl.UseProgram(0)
	r.light = Light{Dir: d, Ambient: l.Ambient, Diffuse: l.Diffuse}
}

// MaxInstances is the most instances one Draw draws: the driver's
// GL_MAX_TEXTURE_BUFFER_SIZE divided by the 12 words of an instance.
// OpenGL 4.1 guarantees only 5,461, but desktop drivers offer millions
// (llvmpipe: 11,184,810).
func (r *Renderer) MaxInstances() int { r.mustLive("MaxInstances"); return r.maxInstances }

// Stats returns what the last Draw did.
func (r *Renderer) Stats() Stats { return r.stats }

// Delete frees the renderer's GPU objects. Using the renderer afterwards
// panics; deleting it again does nothing.
func (r *Renderer) Delete() {
	r.prog.Delete()
	if r.vao != 0 {
		gl.DeleteVertexArrays(1, &r.vao)
		r.vao = 0
	}
	if r.tex != 0 {
		gl.DeleteTextures(1, &r.tex)
		r.tex = 0
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
