package gfx

import (
	"github.com/nebulaengine/nebula/engine/render"

	"fmt"
	"io/fs"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/shaders"
)

// The renderer uploads []render.Instance to the GPU as is and shaders/cube.vert
// reads it with this layout, 16 32-bit words per instance. These lines stop
// compiling (constant index out of range) if render.Instance's size or field
// offsets change.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(render.Instance{})-64]
	_ = [1]struct{}{}[unsafe.Offsetof(render.Instance{}.Pos)-0]
	_ = [1]struct{}{}[unsafe.Offsetof(render.Instance{}.Rot)-12]
	_ = [1]struct{}{}[unsafe.Offsetof(render.Instance{}.Scale)-28]
	_ = [1]struct{}{}[unsafe.Offsetof(render.Instance{}.Color)-40]
	_ = [1]struct{}{}[unsafe.Offsetof(render.Instance{}.Mesh)-44]
	_ = [1]struct{}{}[unsafe.Offsetof(render.Instance{}.Pose)-46]
	_ = [1]struct{}{}[unsafe.Offsetof(render.Instance{}.Emissive)-48]
)

// The renderer uploads render.Poses' slices as they are too.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(render.Bone{})-boneSize]
	_ = [1]struct{}{}[unsafe.Sizeof(render.PoseRef{})-poseRefSize]
)

// boneSize and poseRefSize are the sizes of an render.Bone (3 RGBA32F
// texels) and an render.PoseRef (2 words) in the pose buffer.
const (
	boneSize    = 48
	poseRefSize = 8
)

// instanceSize is the size of one render.Instance in the instance buffer.
const instanceSize = int(unsafe.Sizeof(render.Instance{}))

// instanceTexels is instanceSize in the texels (four 32-bit words each) of
// the buffer texture the shaders read the instances through.
const instanceTexels = instanceSize / 16

// verticesPerCube is how many vertices cube.vert makes of each instance:
// three faces, two triangles each.
const verticesPerCube = 18

// verticesPerSphere is how many vertices sphere.vert makes of each
// instance: one quad, two triangles.
const verticesPerSphere = 6

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
	// Instances is the number of instances drawn, opaque and
	// transparent.
	Instances int
	// Unknown is the number of instances not drawn because their Mesh is
	// not registered (or is a deleted Model).
	Unknown int
	// Culled is the number of instances not drawn because they are out
	// of view (frustum culling, see Renderer.SetCulling) or wholly
	// transparent (alpha 0).
	Culled int
	// Transparent is the number of instances drawn transparent (alpha 1
	// to 254): after the opaque ones, back to front, blended.
	Transparent int
	// ShadowDrawCalls is the number of the frame's draw calls that drew
	// the shadow map (counted in DrawCalls too); 0 without shadows.
	ShadowDrawCalls int
	// Lights is the number of point and spot lights the frame was drawn
	// with, and LightsLeftOut the number of those given (SetLights) it
	// left out: out of view, or beyond MaxLights.
	Lights, LightsLeftOut int
	// Dropped is the number of instances Draw was given beyond
	// Renderer.MaxInstances, which it did not draw. It is 0 unless a
	// frame asks for more instances than the driver's buffer textures can
	// hold.
	Dropped int
	// Meshes is the number of meshes in use: registered meshes with at
	// least one instance drawn.
	Meshes int
	// Poses is the number of poses drawn from: those of the Poses given
	// to Draw or DrawTicks, when a model (not the built-in cube or
	// sphere) is in use. DrawTicks uploads them only with a new tick.
	Poses int
	// SlotsUploaded is the number of entity slots DrawTicks uploaded this
	// frame: on the GPU path, only on the frame after a tick, and only the
	// slots that changed (render.Ticks.Changed) when the renderer holds
	// the slots they changed from; 0 on other frames and on the CPU path.
	SlotsUploaded int
	// ListKept says DrawTicks kept the previous tick's draw list, no slot
	// having changed its mesh, visibility or transparency (and none being
	// transparent): the tick was uploaded without sorting.
	ListKept bool
	// DrawCalls is the number of draw calls: one for the cubes, one for
	// the spheres, one per part of every model in use (and as many again
	// for the opaque ones in the shadow pass, with shadows on), one per
	// run of one mesh among the transparent instances.
	DrawCalls int
	// Triangles is the number of triangles the frame's own draw calls
	// submitted (the shadow pass's are not counted): 6 per cube (the three
	// faces turned to the camera), 2 per sphere (its impostor's quad), and
	// each model part's triangles per instance of the model.
	Triangles int
	// GLCalls is the number of OpenGL calls the frame made, draw calls
	// included. For Draw it depends on the meshes in use and their parts
	// only, not on the number of instances or poses. The error check of
	// nebuladebug builds is not counted.
	GLCalls int
	// InstanceBufferBytes is the capacity of the GPU buffer the instances
	// are streamed to. It doubles when a frame needs more and never shrinks.
	InstanceBufferBytes int
	// PoseBufferBytes is the capacity of the GPU buffer the poses are
	// streamed to, likewise.
	PoseBufferBytes int
}

// Renderer draws one render.Instance at a time as the mesh its Mesh names,
// lit by one directional light, with one draw call per mesh (per part of a
// model) in use.
//
// Meshes are registered by number (Register): NewRenderer registers the
// built-in render.MeshCube, render.MeshSphere and render.MeshPlane, and a
// game registers its own Models from render.MeshFirstGame on.
//
// Every frame the instances are sorted by mesh and streamed into one
// buffer, which the vertex shaders read as a buffer texture. The cubes are
// drawn by one glDrawArrays that makes every cube's vertices from
// gl_VertexID (see shaders/cube.vert): instancing done in the shader
// ("vertex pulling") rather than with an instanced draw. The GPU work is
// the same on hardware, but software rasterisers such as Mesa's llvmpipe
// run their whole vertex pipeline once per instance of an instanced draw,
// and one large draw is much cheaper there. The spheres likewise, each a
// ray-cast impostor of two triangles (see shaders/sphere.vert and the
// package doc). Every part of every other model in use is drawn with one
// glDrawElementsInstanced (see shaders/mesh.vert), skinned and morphed by
// the instance's pose, by the cheapest of three fragment shaders that
// draws it (textured, untextured, faceted: see the package doc).
//
// Every method must be called on the thread where the OpenGL context the
// renderer was made in is current (the main thread), with that context
// current. Delete it when done; it has no finalizer.
type Renderer struct {
	// programs are the CPU path's programs (Draw); gpu the GPU path's
	// (DrawTicks), built at its first frame. DrawTicks swaps them while
	// it draws, so the drawing code reads the path's through the same
	// fields.
	programs
	gpu *programs

	vao    uint32 // an empty vertex array: cube.vert has no attributes
	buf    uint32 // the instance buffer
	tex    uint32 // the buffer texture over buf that both programs read
	bufCap int    // buf's capacity in bytes

	poseBuf     uint32 // the frame's poses: bones, weights, references
	poseTex     uint32 // poseBuf as RGBA32F texels
	poseWordTex uint32 // poseBuf as 32-bit words
	poseCap     int    // poseBuf's capacity in bytes

	mem *MemoryCounter // the context's counter, for buf and poseBuf

	// maxInstances is how many instances one buffer texture can address
	// (GL_MAX_TEXTURE_BUFFER_SIZE words); maxTexels is that size.
	maxInstances, maxTexels int

	// The registry: meshes[slot[id]] is the model registered as id, for
	// the ids with slot[id] >= 0. Slots are kept in increasing id order.
	slot   []int32
	meshes []*Model
	ids    []render.MeshID // ids[s] is the id of meshes[s]
	owned  []*Model        // the built-in models, deleted with the renderer

	// Per frame: instances per slot, then where each slot's run starts
	// in staging, and the instances sorted by mesh; where each model's
	// rest palette and weights are in the pose buffer.
	counts  []int32 // opaque instances per slot
	used    []int32 // opaque and transparent instances per slot
	starts  []int32
	next    []int32 // the next free index of each slot's run, while sorting
	which   []int32 // each instance's slot, while sorting
	staging []render.Instance
	back    []depthRef // the transparent instances, to sort back to front
	runs    []meshRun  // the transparent instances' runs of one mesh
	rest    []restRef

	// tk is the GPU path's tick (ticks.go).
	tk tickState
	// registered counts the calls of Register that changed a mesh: the
	// GPU path's draw list is sorted again after one.
	registered uint64

	// noCulling turns frustum culling off (SetCulling).
	noCulling bool

	// The point and spot lights (lights.go): their uniform buffer and its
	// std140 bytes, the lights SetLights gave, and the ones a frame keeps.
	lightBuf   uint32
	lightBytes []byte
	lights     []render.Light
	pickLights []depthRef

	// The directional light's shadows (shadow.go).
	shadow shadowState
	// frame is mesh.vert's uFrame of the frame (beginModels), for the
	// shadow pass's models.
	frame [3]int32

	// vp is the current frame's view-projection matrix. It lives here, not
	// on Draw's stack, because its address goes to OpenGL (through cgo),
	// which would move a local to the heap on every frame.
	vp mgl32.Mat4
	// invVP is vp's inverse, for sphere.vert, likewise.
	invVP mgl32.Mat4

	light Light // as SetLight set it, Dir normalised

	gl    glCounter
	stats Stats
}

// minPoseCapacity is the pose buffer's first capacity in bytes.
const minPoseCapacity = 16 << 10

// NewRenderer builds the renderer's programs (from shaders.FS), the
// instance and pose buffers and the built-in meshes: the cube and the
// sphere (drawn by vertex pulling, the sphere as a ray-cast impostor) and
// model.Plane. Their bytes, and those of the instance and pose buffers as
// they grow, are counted in mem, the context's counter (see
// MemoryCounter; Memory returns it). A context must be current and Init
// must have been called. Errors name what failed; shader errors are
// *ShaderError.
func NewRenderer(mem *MemoryCounter) (*Renderer, error) {
	mustBeLoaded("NewRenderer")
	r := &Renderer{mem: mem}
	ok := false
	defer func() {
		if !ok {
			r.Delete()
		}
	}()

	var err error
	if err := r.buildPrograms(shaders.FS, &r.programs); err != nil {
		return nil, err
	}

	var maxTexels int32
	gl.GetIntegerv(gl.MAX_TEXTURE_BUFFER_SIZE, &maxTexels)
	r.maxTexels = int(maxTexels)
	r.maxInstances = int(maxTexels) / instanceTexels

	// The instance buffer, read through a buffer texture of four 32-bit
	// words a texel on texture unit 0; the vertex array stays empty (cube.vert has no
	// attributes) but the core profile needs one bound to draw.
	gl.GenVertexArrays(1, &r.vao)
	r.bufCap = minInstanceCapacity * instanceSize
	r.buf, r.tex = newStreamTexture(gl.RGBA32UI, r.bufCap)
	// The pose buffer, read as RGBA32F texels (bones, weights) and as
	// 32-bit words (references).
	r.poseCap = minPoseCapacity
	r.poseBuf, r.poseTex = newStreamTexture(gl.RGBA32F, r.poseCap)
	r.mem.add(r.bufCap + r.poseCap)
	gl.GenTextures(1, &r.poseWordTex)
	gl.BindTexture(gl.TEXTURE_BUFFER, r.poseWordTex)
	gl.TexBuffer(gl.TEXTURE_BUFFER, gl.R32UI, r.poseBuf)
	gl.BindTexture(gl.TEXTURE_BUFFER, 0)

	r.newLightBlock()
	r.SetLight(DefaultLight())
	if err := CheckError(); err != nil {
		return nil, fmt.Errorf("gfx: NewRenderer: %w", err)
	}

	r.Register(render.MeshCube, &Model{name: "cube", pulled: pulledCube})
	r.Register(render.MeshSphere, &Model{name: "sphere", pulled: pulledSphere})
	plane, err := NewModel(mem, model.Plane())
	if err != nil {
		return nil, fmt.Errorf("gfx: NewRenderer: built-in %w", err)
	}
	r.owned = append(r.owned, plane)
	r.Register(render.MeshPlane, plane)
	ok = true
	return r, nil
}

// newStreamTexture makes a buffer of size bytes for streaming and a
// buffer texture of the given format over it, leaving both unbound.
func newStreamTexture(format uint32, size int) (buf, tex uint32) {
	return newBufferTexture(format, size, nil, gl.STREAM_DRAW)
}

// Register makes the renderer draw m for every instance whose Mesh is id,
// from the next Draw on, replacing what was registered as id; a nil m
// unregisters id (its instances are then counted in Stats.Unknown and
// not drawn). The renderer does not own m: delete it after unregistering
// it, or after deleting the renderer. Registering a model as
// render.MeshCube or render.MeshSphere replaces the built-in cube's or
// sphere's vertex-pulling path; Mesh returns what is registered, to put
// it back later. It panics if m has
// been deleted.
func (r *Renderer) Register(id render.MeshID, m *Model) {
	r.mustLive("Register")
	if m != nil && !m.live() {
		panic(fmt.Sprintf("gfx: Renderer.Register(%d, %s): the model has been deleted", id, m.name))
	}
	s := int32(-1)
	if int(id) < len(r.slot) {
		s = r.slot[id]
	}
	switch {
	case s >= 0 && m != nil:
		r.meshes[s] = m
		r.registered++
		return
	case s >= 0: // unregister: remove the slot, keeping the others in id order
		r.meshes = append(r.meshes[:s], r.meshes[s+1:]...)
		r.ids = append(r.ids[:s], r.ids[s+1:]...)
	case m != nil: // a new slot, in id order
		for int(id) >= len(r.slot) {
			r.slot = append(r.slot, -1)
		}
		s = int32(len(r.ids))
		for s > 0 && r.ids[s-1] > id {
			s--
		}
		r.ids = append(r.ids[:s], append([]render.MeshID{id}, r.ids[s:]...)...)
		r.meshes = append(r.meshes[:s], append([]*Model{m}, r.meshes[s:]...)...)
	default:
		return
	}
	r.registered++
	for i := range r.slot {
		r.slot[i] = -1
	}
	for s, id := range r.ids {
		r.slot[id] = int32(s)
	}
	r.counts = make([]int32, len(r.ids))
	r.used = make([]int32, len(r.ids))
	r.starts = make([]int32, len(r.ids))
	r.next = make([]int32, len(r.ids))
	r.rest = make([]restRef, len(r.ids))
}

// restRef locates a model's rest palette and weights in a frame's pose
// buffer: its first bone and its first weight.
type restRef struct{ bone, weight int32 }

// Mesh returns the model registered as id, or nil. For render.MeshCube
// and render.MeshSphere it is at first the built-in cube or sphere, a
// Model without GPU objects of its own (and no parts) that stands for its
// vertex-pulling path.
func (r *Renderer) Mesh(id render.MeshID) *Model {
	r.mustLive("Mesh")
	if int(id) < len(r.slot) && r.slot[id] >= 0 {
		return r.meshes[r.slot[id]]
	}
	return nil
}

// meshProgram is mesh.vert linked with one part shading's fragment
// shader, and its uniform locations.
type meshProgram struct {
	prog Program
	loc  struct {
		viewProj, lightDir, ambient, diffuse int32
		frame, part, rest, baseColor         int32
		instances, poses, poseWords, targets int32
		tex                                  int32 // -1 but for shadeTextured
	}
}

// meshFragments are the fragment shaders of the part shadings.
var meshFragments = [numShadings]string{
	shadeTextured: "mesh.frag",
	shadePlain:    "mesh_plain.frag",
	shadeFaceted:  "mesh_faceted.frag",
}

// build compiles and links mesh.vert with the fragment shader of sh,
// checks its attributes, finds its uniforms and points its samplers at
// their texture units. It leaves the program in use.
func (mp *meshProgram) build(fsys fs.FS, sh shading) error {
	frag := meshFragments[sh]
	var err error
	if mp.prog, err = NewProgram(fsys, "mesh.vert", frag); err != nil {
		return err
	}
	// Every program has mesh.vert's attribute locations (its layout
	// qualifiers); the untextured ones leave aUV inactive, so the check
	// is made on the textured one, which uses them all.
	if sh == shadeTextured {
		if err := checkAttribs(mp.prog, "mesh.vert", map[string]int32{
			"aPos": attrPos, "aNormal": attrNormal, "aUV": attrUV, "aColor": attrColor, "aJoints": attrJoints, "aWeights": attrWeights,
		}); err != nil {
			return err
		}
	}
	u := uniforms{prog: mp.prog, files: "mesh.vert + " + frag}
	l := &mp.loc
	l.viewProj = u.find("uViewProj")
	l.lightDir = u.find("uLightDir")
	l.ambient = u.find("uAmbient")
	l.diffuse = u.find("uDiffuse")
	l.frame = u.find("uFrame")
	l.part = u.find("uPart")
	l.rest = u.find("uRest")
	l.baseColor = u.find("uBaseColor")
	l.instances = u.find("uInstances")
	l.poses = u.find("uPoses")
	l.poseWords = u.find("uPoseWords")
	l.targets = u.find("uTargets")
	l.tex = -1
	if sh == shadeTextured {
		l.tex = u.find("uTexture")
	}
	if u.err != nil {
		return u.err
	}
	gl.UseProgram(uint32(mp.prog))
	gl.Uniform1i(l.instances, instanceTextureUnit)
	gl.Uniform1i(l.poses, poseTextureUnit)
	gl.Uniform1i(l.poseWords, poseWordTextureUnit)
	gl.Uniform1i(l.targets, targetTextureUnit)
	if l.tex >= 0 {
		gl.Uniform1i(l.tex, colorTextureUnit)
	}
	return nil
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
	r.programs.setLight(d, l)
	if r.gpu != nil {
		r.gpu.setLight(d, l)
	}
	r.light = Light{Dir: d, Ambient: l.Ambient, Diffuse: l.Diffuse}
}

// SetCulling turns frustum culling on (the default) or off. With it on,
// Draw leaves out every instance whose bounding sphere (about its
// position: the cube's and the sphere's, or a model's at rest, scaled by
// the largest of its scales) is wholly outside the camera's view, and
// counts it in Stats.Culled; an instance of a model drawn with a pose is
// never culled, as its pose can take it anywhere.
func (r *Renderer) SetCulling(on bool) { r.mustLive("SetCulling"); r.noCulling = !on }

// MaxInstances is the most instances one Draw draws: the driver's
// GL_MAX_TEXTURE_BUFFER_SIZE divided by the 4 texels (of four 32-bit
// words) of an instance. OpenGL 4.1 guarantees only 16,384, but desktop
// drivers offer millions (llvmpipe: 33,554,432).
func (r *Renderer) MaxInstances() int { r.mustLive("MaxInstances"); return r.maxInstances }

// Memory returns the counter NewRenderer was given: the one to give the
// objects made beside the renderer in its context (NewModel, NewLines,
// NewMesh), so that they are counted with it.
func (r *Renderer) Memory() *MemoryCounter { return r.mem }

// Stats returns what the last Draw did.
func (r *Renderer) Stats() Stats { return r.stats }

// Delete frees the renderer's GPU objects and its built-in models (not the
// models a game registered). Using the renderer afterwards panics;
// deleting it again does nothing.
func (r *Renderer) Delete() {
	r.programs.delete()
	if r.gpu != nil {
		r.gpu.delete()
		r.gpu = nil
	}
	r.deleteShadowMap()
	r.deleteTickBuffers()
	deleteVertexArray(&r.vao)
	if r.buf != 0 {
		r.mem.add(-r.bufCap - r.poseCap)
	}
	deleteTexture(&r.tex)
	deleteBuffer(&r.buf)
	deleteTexture(&r.poseTex)
	deleteTexture(&r.poseWordTex)
	deleteBuffer(&r.poseBuf)
	if r.lightBuf != 0 {
		r.mem.add(-lightBlockSize)
	}
	deleteBuffer(&r.lightBuf)
	for _, m := range r.owned {
		m.Delete()
	}
	r.owned = nil
	r.slot, r.meshes, r.ids = nil, nil, nil
}

func (r *Renderer) mustLive(method string) {
	if r == nil || r.prog == 0 || r.vao == 0 {
		panic("gfx: Renderer." + method + " on a nil, deleted or unfinished Renderer")
	}
}
