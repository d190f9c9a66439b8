package gfx

import (
	"github.com/nebulaengine/nebula/engine/render"

	"fmt"
	"image"
	"math"
	"slices"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
)

// modelVertex is one vertex of a model's part as it is stored on the GPU:
// 60 bytes, read by shaders/mesh.vert at the attribute locations below.
type modelVertex struct {
	pos     mgl32.Vec3 // position at rest, model space
	normal  mgl32.Vec3 // normal, unit length (or zero: lit by the ambient light only)
	uv      mgl32.Vec2 // texture coordinates
	color   [4]uint8   // RGBA, normalised
	joints  [4]uint16  // palette entries
	weights [4]float32 // their weights
}

// The attribute locations of mesh.vert beyond attrPos and attrNormal.
const (
	attrUV      = 2 // vec2
	attrColor   = 3 // vec4 from 4 normalised bytes
	attrJoints  = 4 // uvec4 from 4 uint16
	attrWeights = 5 // vec4
)

// The texture units of mesh.vert and mesh.frag. Unit 0 holds the instance
// buffer (instanceTextureUnit) for both programs; unit 1 is the
// overlay's.
const (
	poseTextureUnit     = 2 // the frame's poses, RGBA32F
	poseWordTextureUnit = 3 // the same buffer as 32-bit words, for the references
	targetTextureUnit   = 4 // the part's morph target deltas
	colorTextureUnit    = 5 // the part's base colour texture
)

// Model is a model.Model on the GPU, ready to be registered with a
// Renderer (Renderer.Register) and drawn for every instance whose Mesh is
// its number. It holds, per part, a vertex array (position, normal,
// texture coordinates, colour, four joints and their weights per vertex),
// an index buffer (16-bit when the part has at most 65,536 vertices), the
// morph targets' deltas in a buffer texture and the base colour texture
// with its mipmaps (a 1×1 white texture for a part without one); and the
// model's rest palette and rest weights (kept in memory: a frame that
// draws the model uploads them with its poses), which instances without a
// pose are drawn with.
//
// A Model may be registered with several renderers of the same context
// and under several numbers; the renderers do not own it. Delete it when
// done: it has no finalizer. A deleted Model that is still registered
// draws nothing (its instances count as Stats.Unknown).
type Model struct {
	name  string
	parts []modelPart
	// restBones and restWeights are the rest palette (each joint's node's
	// global rest transform times its inverse bind matrix) and the rest
	// weights: a frame that draws the model appends them to its poses, for
	// the instances drawn at rest.
	restBones   []render.Bone
	restWeights []float32
	white       uint32 // the 1×1 white texture, 0 if every part has one
	// bytes is the storage its buffers and textures hold, counted in mem,
	// the context's counter.
	bytes int
	mem   *MemoryCounter
	// shadings has bit 1<<sh set for each shading sh of its parts.
	shadings uint8
	// radius bounds the model at rest: no vertex, skinned by the rest
	// palette and moved by any morph targets at weights up to 1, is
	// farther from the model's origin (frustum culling's bound).
	radius float32

	// pulled marks the renderer's built-in cube and sphere, drawn by
	// cube.vert and sphere.vert from the instances alone: they have no
	// GPU objects of their own.
	pulled pulledShape
}

// pulledShape says which of the renderer's vertex-pulling programs draws
// a built-in mesh, if one does.
type pulledShape uint8

const (
	notPulled    pulledShape = iota // a model: mesh.vert, per part
	pulledCube                      // cube.vert: three faces per instance
	pulledSphere                    // sphere.vert: a ray-cast quad per instance
)

// modelPart is one part of a Model on the GPU.
type modelPart struct {
	vao, vbo, ebo uint32
	indices       int32  // the number of indices
	indexType     uint32 // gl.UNSIGNED_SHORT or gl.UNSIGNED_INT
	// targets holds the morph target deltas, read through targetTex: for
	// vertex v and target t, the position delta at texel
	// 2(v·numTargets+t) and the normal delta after it (RGB32F). Both are
	// 0 without targets.
	targets, targetTex uint32
	// numTargets, influences and firstWeight are mesh.vert's uPart
	// without its first component (set per draw): the number of targets,
	// the joints that move a vertex (1 to 4: the last weight slot any
	// vertex uses), the part's first weight in the model's weights.
	numTargets, influences, firstWeight int32
	baseColor                           [4]float32
	texture                             uint32 // base colour, or the model's white texture
	ownTexture                          bool   // texture is the part's own, not white
	shading                             shading
}

// shading is how a part's pixels are coloured, which picks the program
// that draws it (Renderer.meshProgs): the three draw the same picture,
// the cheaper ones doing less per pixel where the part allows it.
type shading uint8

const (
	// shadeTextured: mesh.frag, the base colour texture fetched and the
	// light worked out per pixel.
	shadeTextured shading = iota
	// shadePlain: mesh_plain.frag, a part without a texture: the light per
	// pixel.
	shadePlain
	// shadeFaceted: mesh_faceted.frag, a part without a texture or morph
	// targets whose every triangle has one normal, joints and weights at
	// its three corners: the light is the same across each triangle, so
	// mesh.vert works it out per vertex.
	shadeFaceted
	numShadings
)

// shadingOf returns the cheapest shading that draws src as mesh.frag
// would.
func shadingOf(src *model.Part) shading {
	if src.Material.Texture != nil {
		return shadeTextured
	}
	if len(src.Targets) > 0 {
		return shadePlain
	}
	ix := src.Indices
	for t := 0; t+2 < len(ix); t += 3 {
		a := ix[t]
		for _, b := range ix[t+1 : t+3] {
			if src.Normals != nil && src.Normals[a] != src.Normals[b] ||
				src.Joints != nil && src.Joints[a] != src.Joints[b] ||
				src.Weights != nil && src.Weights[a] != src.Weights[b] {
				return shadePlain
			}
		}
	}
	return shadeFaceted
}

// Name returns the name of the model it was made from.
func (m *Model) Name() string { return m.name }

// Parts returns the number of parts, each drawn with one draw call a frame
// while any instance shows the model: 0 for a renderer's built-in cube and
// sphere (Renderer.Mesh(render.MeshCube), Renderer.Mesh(render.MeshSphere)),
// whose instances share one draw call of their own.
func (m *Model) Parts() int { return len(m.parts) }

// live reports whether the model can be drawn.
func (m *Model) live() bool { return m.pulled != notPulled || m.parts != nil }

// NewModel checks m and uploads it to the GPU, counting the bytes of its
// buffers and textures in mem, the context's counter (see MemoryCounter;
// Renderer.Memory returns the renderer's). A context must be current and
// Init must have been called. m is not kept: it may change afterwards.
//
// The error names the model and the part: a part without vertices or
// triangles, per-vertex data of the wrong length, an index past the
// vertices, a joint past the palette, more than model.MaxPalette palette
// entries, model.MaxTargets targets a part or model.MaxWeights weights,
// targets past the rest weights, a node whose parent does not come before
// it, or morph targets beyond the driver's buffer textures. Missing
// per-vertex data takes defaults: normals zero (lit by the ambient light
// only), colours white, texture coordinates (0, 0), joints 0 with weights
// (1, 0, 0, 0).
func NewModel(mem *MemoryCounter, m *model.Model) (*Model, error) {
	mustBeLoaded("NewModel")
	if m == nil {
		return nil, fmt.Errorf("gfx: NewModel: nil model")
	}
	if err := checkModel(m); err != nil {
		return nil, fmt.Errorf("gfx: NewModel %s: %w", m.Name, err)
	}
	var maxTexels int32
	gl.GetIntegerv(gl.MAX_TEXTURE_BUFFER_SIZE, &maxTexels)
	for i := range m.Parts {
		p := &m.Parts[i]
		if texels := 2 * len(p.Targets) * len(p.Positions); texels > int(maxTexels) {
			return nil, fmt.Errorf("gfx: NewModel %s: %s: %d morph targets of %d vertices need %d texels, the driver's buffer textures hold %d",
				m.Name, p.Name, len(p.Targets), len(p.Positions), texels, maxTexels)
		}
	}

	g := &Model{mem: mem, name: m.Name, restBones: restPalette(m), restWeights: slices.Clone(m.RestWeights)}
	g.radius = restRadius(m, g.restBones)
	g.parts = make([]modelPart, len(m.Parts))
	for i := range m.Parts {
		g.uploadPart(&g.parts[i], &m.Parts[i])
		g.shadings |= 1 << g.parts[i].shading
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	if err := CheckError(); err != nil {
		g.Delete()
		return nil, fmt.Errorf("gfx: NewModel %s: %w", m.Name, err)
	}
	return g, nil
}

// checkModel checks what the GPU code relies on.
//
//srccheck:wrapped by NewModel, as "gfx: NewModel <name>: ..."
func checkModel(m *model.Model) error {
	if len(m.Parts) == 0 {
		return fmt.Errorf("no parts")
	}
	if len(m.Palette) == 0 || len(m.Palette) > model.MaxPalette {
		return fmt.Errorf("%d palette entries, want 1 to %d", len(m.Palette), model.MaxPalette)
	}
	if len(m.RestWeights) > model.MaxWeights {
		return fmt.Errorf("%d blend-shape weights, at most %d", len(m.RestWeights), model.MaxWeights)
	}
	for i, n := range m.Nodes {
		if n.Parent < -1 || n.Parent >= i {
			return fmt.Errorf("node %d (%s): parent %d, want -1 or a node before it", i, n.Name, n.Parent)
		}
	}
	for i, j := range m.Palette {
		if j.Node < 0 || j.Node >= len(m.Nodes) {
			return fmt.Errorf("palette entry %d: node %d, there are %d nodes", i, j.Node, len(m.Nodes))
		}
	}
	for i := range m.Parts {
		if err := checkPart(m, &m.Parts[i]); err != nil {
			name := m.Parts[i].Name
			if name == "" {
				name = fmt.Sprintf("part %d", i)
			}
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// checkPart checks one part of m.
//
//srccheck:wrapped by checkModel, as "gfx: NewModel <name>: <part>: ..."
func checkPart(m *model.Model, p *model.Part) error {
	n := len(p.Positions)
	if n == 0 || len(p.Indices) == 0 || len(p.Indices)%3 != 0 {
		return fmt.Errorf("%d vertices and %d indices, want some vertices and a whole number of triangles", n, len(p.Indices))
	}
	for _, s := range []struct {
		what string
		len  int
	}{{"normals", len(p.Normals)}, {"colours", len(p.Colors)}, {"texture coordinates", len(p.UVs)}, {"joints", len(p.Joints)}, {"weights", len(p.Weights)}} {
		if s.len != 0 && s.len != n {
			return fmt.Errorf("%d %s for %d vertices", s.len, s.what, n)
		}
	}
	for i, ix := range p.Indices {
		if int64(ix) >= int64(n) {
			return fmt.Errorf("index %d is %d, there are %d vertices", i, ix, n)
		}
	}
	for v, js := range p.Joints {
		for _, j := range js {
			if int(j) >= len(m.Palette) {
				return fmt.Errorf("vertex %d: joint %d, the palette has %d entries", v, j, len(m.Palette))
			}
		}
	}
	if len(p.Targets) > model.MaxTargets {
		return fmt.Errorf("%d morph targets, at most %d", len(p.Targets), model.MaxTargets)
	}
	if len(p.Targets) > 0 && (p.FirstWeight < 0 || p.FirstWeight+len(p.Targets) > len(m.RestWeights)) {
		return fmt.Errorf("morph targets use weights %d to %d, the model has %d", p.FirstWeight, p.FirstWeight+len(p.Targets)-1, len(m.RestWeights))
	}
	for t, tg := range p.Targets {
		if len(tg.Positions) != n || tg.Normals != nil && len(tg.Normals) != n {
			return fmt.Errorf("morph target %d: %d position and %d normal deltas for %d vertices", t, len(tg.Positions), len(tg.Normals), n)
		}
	}
	if tex := p.Material.Texture; tex != nil && tex.Rect.Empty() {
		return fmt.Errorf("empty base colour texture")
	}
	return nil
}

// uploadPart builds p's GPU objects from src, which checkPart accepted.
func (m *Model) uploadPart(p *modelPart, src *model.Part) {
	n := len(src.Positions)
	vs := make([]modelVertex, n)
	for i := range vs {
		v := &vs[i]
		v.pos = src.Positions[i]
		if src.Normals != nil {
			v.normal = src.Normals[i]
		}
		if src.UVs != nil {
			v.uv = src.UVs[i]
		}
		v.color = [4]uint8{255, 255, 255, 255}
		if src.Colors != nil {
			v.color = src.Colors[i]
		}
		if src.Joints != nil {
			v.joints = src.Joints[i]
		}
		v.weights = [4]float32{1, 0, 0, 0}
		if src.Weights != nil {
			v.weights = src.Weights[i]
		}
	}
	p.numTargets = int32(len(src.Targets))
	p.influences = 1
	for _, w := range src.Weights {
		for j := 3; j >= int(p.influences); j-- {
			if w[j] != 0 {
				p.influences = int32(j + 1)
			}
		}
	}
	p.firstWeight = int32(src.FirstWeight)
	p.baseColor = src.Material.BaseColor
	p.indices = int32(len(src.Indices))
	p.shading = shadingOf(src)

	gl.GenVertexArrays(1, &p.vao)
	gl.GenBuffers(1, &p.vbo)
	gl.GenBuffers(1, &p.ebo)
	gl.BindVertexArray(p.vao)
	gl.BindBuffer(gl.ARRAY_BUFFER, p.vbo)
	gl.BufferData(gl.ARRAY_BUFFER, n*int(unsafe.Sizeof(modelVertex{})), unsafe.Pointer(unsafe.SliceData(vs)), gl.STATIC_DRAW)
	m.track(n * int(unsafe.Sizeof(modelVertex{})))
	stride := int32(unsafe.Sizeof(modelVertex{}))
	float := func(loc uint32, size int32, typ uint32, normalized bool, offset uintptr) {
		gl.EnableVertexAttribArray(loc)
		gl.VertexAttribPointerWithOffset(loc, size, typ, normalized, stride, offset)
	}
	float(attrPos, 3, gl.FLOAT, false, unsafe.Offsetof(modelVertex{}.pos))
	float(attrNormal, 3, gl.FLOAT, false, unsafe.Offsetof(modelVertex{}.normal))
	float(attrUV, 2, gl.FLOAT, false, unsafe.Offsetof(modelVertex{}.uv))
	float(attrColor, 4, gl.UNSIGNED_BYTE, true, unsafe.Offsetof(modelVertex{}.color))
	float(attrWeights, 4, gl.FLOAT, false, unsafe.Offsetof(modelVertex{}.weights))
	gl.EnableVertexAttribArray(attrJoints)
	gl.VertexAttribIPointerWithOffset(attrJoints, 4, gl.UNSIGNED_SHORT, stride, unsafe.Offsetof(modelVertex{}.joints))

	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, p.ebo)
	if n <= 1<<16 {
		ix := make([]uint16, len(src.Indices))
		for i, v := range src.Indices {
			ix[i] = uint16(v)
		}
		gl.BufferData(gl.ELEMENT_ARRAY_BUFFER, 2*len(ix), unsafe.Pointer(unsafe.SliceData(ix)), gl.STATIC_DRAW)
		m.track(2 * len(ix))
		p.indexType = gl.UNSIGNED_SHORT
	} else {
		gl.BufferData(gl.ELEMENT_ARRAY_BUFFER, 4*len(src.Indices), unsafe.Pointer(unsafe.SliceData(src.Indices)), gl.STATIC_DRAW)
		m.track(4 * len(src.Indices))
		p.indexType = gl.UNSIGNED_INT
	}
	gl.BindVertexArray(0)

	if len(src.Targets) > 0 {
		nt := len(src.Targets)
		deltas := make([]mgl32.Vec3, 2*nt*n)
		for t, tg := range src.Targets {
			for v := range n {
				deltas[2*(v*nt+t)] = tg.Positions[v]
				if tg.Normals != nil {
					deltas[2*(v*nt+t)+1] = tg.Normals[v]
				}
			}
		}
		p.targets, p.targetTex = newBufferTexture(gl.RGB32F, 12*len(deltas), unsafe.Pointer(unsafe.SliceData(deltas)), gl.STATIC_DRAW)
		m.track(12 * len(deltas))
	}

	if tex := src.Material.Texture; tex != nil {
		p.texture = newColorTexture(tex)
		p.ownTexture = true
		m.track(rgba8Bytes(tex.Rect.Dx(), tex.Rect.Dy(), true))
	} else {
		if m.white == 0 {
			m.white = newColorTexture(&image.RGBA{Pix: []uint8{255, 255, 255, 255}, Stride: 4, Rect: image.Rect(0, 0, 1, 1)})
			m.track(rgba8Bytes(1, 1, true))
		}
		p.texture = m.white
	}
}

// restPalette returns m's palette at rest: each joint's node's global
// rest transform times the joint's inverse bind matrix.
func restPalette(m *model.Model) []render.Bone {
	global := make([]mgl32.Mat4, len(m.Nodes))
	for i, n := range m.Nodes {
		r := n.Rest
		local := mgl32.Translate3D(r.Pos[0], r.Pos[1], r.Pos[2]).Mul4(r.Rot.Normalize().Mat4()).Mul4(mgl32.Scale3D(r.Scale[0], r.Scale[1], r.Scale[2]))
		if n.Parent >= 0 {
			local = global[n.Parent].Mul4(local)
		}
		global[i] = local
	}
	bones := make([]render.Bone, len(m.Palette))
	for i, j := range m.Palette {
		bones[i] = boneOf(global[j.Node].Mul4(j.InverseBind))
	}
	return bones
}

// restRadius returns the largest distance from the origin of m's
// vertices skinned by its rest palette bones, plus the largest offset
// every morph target could add (each at weight 1), rounded up a little:
// a sphere that holds the model drawn at rest.
func restRadius(m *model.Model, bones []render.Bone) float32 {
	var far float64
	for i := range m.Parts {
		p := &m.Parts[i]
		var grow float64 // the morph targets' reach
		for _, t := range p.Targets {
			var most float64
			for _, d := range t.Positions {
				most = max(most, float64(d.Len()))
			}
			grow += most
		}
		for v, pos := range p.Positions {
			var x [3]float64
			weights, joints := [4]float32{1}, [4]uint16{} // no skin: the first palette entry's
			if v < len(p.Weights) && v < len(p.Joints) {
				weights, joints = p.Weights[v], p.Joints[v]
			}
			for k := range 4 {
				w := float64(weights[k])
				if w == 0 || int(joints[k]) >= len(bones) {
					continue
				}
				b := &bones[joints[k]]
				for r := range 3 {
					x[r] += w * (float64(b[4*r])*float64(pos[0]) + float64(b[4*r+1])*float64(pos[1]) + float64(b[4*r+2])*float64(pos[2]) + float64(b[4*r+3]))
				}
			}
			far = max(far, math.Sqrt(x[0]*x[0]+x[1]*x[1]+x[2]*x[2])+grow)
		}
	}
	return float32(far * (1 + 1e-5))
}

// boneOf returns the top three rows of the affine matrix a, as a pose
// holds it.
func boneOf(a mgl32.Mat4) render.Bone {
	// mgl32 matrices are column-major: a[c*4+r] is row r, column c.
	var b render.Bone
	for r := range 3 {
		for c := range 4 {
			b[4*r+c] = a[4*c+r]
		}
	}
	return b
}

// newBufferTexture makes a buffer of size bytes from data (nil: left
// undefined) with the given usage, and a buffer texture of the given format
// over it, leaving both unbound.
func newBufferTexture(format uint32, size int, data unsafe.Pointer, usage uint32) (buf, tex uint32) {
	gl.GenBuffers(1, &buf)
	gl.BindBuffer(gl.TEXTURE_BUFFER, buf)
	gl.BufferData(gl.TEXTURE_BUFFER, size, data, usage)
	gl.BindBuffer(gl.TEXTURE_BUFFER, 0)
	gl.GenTextures(1, &tex)
	gl.BindTexture(gl.TEXTURE_BUFFER, tex)
	gl.TexBuffer(gl.TEXTURE_BUFFER, format, buf)
	gl.BindTexture(gl.TEXTURE_BUFFER, 0)
	return buf, tex
}

// newColorTexture uploads img as an RGBA8 texture with mipmaps, row 0 of
// the image at texture coordinate v = 0 (glTF's convention), repeating,
// filtered linearly between texels and mipmap levels.
func newColorTexture(img *image.RGBA) uint32 {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	pix := img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y):]
	if img.Stride != 4*w {
		pix = make([]uint8, 4*w*h)
		for y := range h {
			copy(pix[4*w*y:4*w*(y+1)], img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y+y):])
		}
	}
	var tex uint32
	gl.GenTextures(1, &tex)
	gl.BindTexture(gl.TEXTURE_2D, tex)
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, int32(w), int32(h), 0, gl.RGBA, gl.UNSIGNED_BYTE, unsafe.Pointer(&pix[0]))
	gl.GenerateMipmap(gl.TEXTURE_2D)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.REPEAT)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.REPEAT)
	gl.BindTexture(gl.TEXTURE_2D, 0)
	return tex
}

// Delete frees the model's GPU objects. Unregister it first: a deleted
// model that is still registered draws nothing. Deleting it again, or
// deleting a renderer's built-in cube or sphere, does nothing.
func (m *Model) Delete() {
	if m == nil {
		return
	}
	for i := range m.parts {
		p := &m.parts[i]
		deleteVertexArray(&p.vao)
		deleteBuffer(&p.vbo)
		deleteBuffer(&p.ebo)
		deleteBuffer(&p.targets)
		deleteTexture(&p.targetTex)
		if p.ownTexture {
			deleteTexture(&p.texture)
		}
	}
	m.parts = nil
	deleteTexture(&m.white)
	m.track(-m.bytes)
}

// track counts n more bytes of storage in m's buffers and textures (less
// when n is negative), in m and in its counter.
func (m *Model) track(n int) {
	m.bytes += n
	m.mem.add(n)
}

func deleteVertexArray(id *uint32) {
	if *id != 0 {
		gl.DeleteVertexArrays(1, id)
		*id = 0
	}
}

func deleteBuffer(id *uint32) {
	if *id != 0 {
		gl.DeleteBuffers(1, id)
		*id = 0
	}
}

func deleteTexture(id *uint32) {
	if *id != 0 {
		gl.DeleteTextures(1, id)
		*id = 0
	}
}
