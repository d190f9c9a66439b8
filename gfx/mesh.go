package gfx

import (
	"fmt"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
)

// Vertex is one vertex of a Mesh as it is stored on the GPU: 24 bytes,
// position then normal.
type Vertex struct {
	Pos    mgl32.Vec3 // position
	Normal mgl32.Vec3 // normal, unit length
}

// Vertex attribute locations, shared by every program that draws a Mesh
// (the layout(location = N) qualifiers of shaders/cube_single.vert).
// NewRenderer checks the shader agrees.
const (
	attrPos    = 0 // vec3, per vertex
	attrNormal = 1 // vec3, per vertex
)

// instanceTextureUnit is the texture unit the renderer binds its instance
// buffer texture to (cube.vert's uInstances).
const instanceTextureUnit = 0

// Mesh is indexed triangle geometry on the GPU: a vertex array object with
// a vertex buffer (Vertex: position at attribute 0, normal at 1) and a
// 16-bit index buffer. Delete it when done; it has no finalizer.
type Mesh struct {
	vao, vbo, ebo uint32
	indices       int32
	bytes         int            // the storage of vbo and ebo, counted in mem
	mem           *MemoryCounter // the context's counter
}

// Indices returns the number of indices, three per triangle.
func (m *Mesh) Indices() int { return int(m.indices) }

// Delete deletes the mesh's vertex array and buffers and zeroes m. Deleting
// a deleted or zero Mesh does nothing.
func (m *Mesh) Delete() {
	if m.vao != 0 {
		gl.DeleteVertexArrays(1, &m.vao)
	}
	if m.vbo != 0 {
		gl.DeleteBuffers(1, &m.vbo)
		m.mem.add(-m.bytes)
	}
	if m.ebo != 0 {
		gl.DeleteBuffers(1, &m.ebo)
	}
	*m = Mesh{}
}

// NewMesh uploads triangles (counter-clockwise seen from the front, which
// is the side back-face culling keeps) to the GPU. Every index must name a
// vertex. Its bytes are counted in mem, the context's counter (see
// MemoryCounter). Init must have been called.
func NewMesh(mem *MemoryCounter, vertices []Vertex, indices []uint16) (Mesh, error) {
	mustBeLoaded("NewMesh")
	if len(vertices) == 0 || len(indices) == 0 || len(indices)%3 != 0 {
		return Mesh{}, fmt.Errorf("gfx: NewMesh: %d vertices and %d indices, want some vertices and a whole number of triangles", len(vertices), len(indices))
	}
	for i, ix := range indices {
		if int(ix) >= len(vertices) {
			return Mesh{}, fmt.Errorf("gfx: NewMesh: index %d is %d, there are %d vertices", i, ix, len(vertices))
		}
	}
	m := Mesh{mem: mem}
	m.indices = int32(len(indices))
	gl.GenVertexArrays(1, &m.vao)
	gl.GenBuffers(1, &m.vbo)
	gl.GenBuffers(1, &m.ebo)
	// The element-array binding is state of the vertex array: bind the
	// vertex array first.
	gl.BindVertexArray(m.vao)
	gl.BindBuffer(gl.ARRAY_BUFFER, m.vbo)
	gl.BufferData(gl.ARRAY_BUFFER, len(vertices)*int(unsafe.Sizeof(Vertex{})), unsafe.Pointer(unsafe.SliceData(vertices)), gl.STATIC_DRAW)
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, m.ebo)
	gl.BufferData(gl.ELEMENT_ARRAY_BUFFER, len(indices)*2, unsafe.Pointer(unsafe.SliceData(indices)), gl.STATIC_DRAW)
	m.bytes = len(vertices)*int(unsafe.Sizeof(Vertex{})) + len(indices)*2
	m.mem.add(m.bytes)
	m.bindVertices()
	gl.BindVertexArray(0)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	if err := CheckError(); err != nil {
		m.Delete()
		return Mesh{}, fmt.Errorf("gfx: NewMesh: %w", err)
	}
	return m, nil
}

// bindVertices points the bound vertex array's attributes 0 and 1 at the
// mesh's vertex buffer and binds the mesh's index buffer to it.
func (m *Mesh) bindVertices() {
	stride := int32(unsafe.Sizeof(Vertex{}))
	gl.BindBuffer(gl.ARRAY_BUFFER, m.vbo)
	gl.EnableVertexAttribArray(attrPos)
	gl.VertexAttribPointerWithOffset(attrPos, 3, gl.FLOAT, false, stride, unsafe.Offsetof(Vertex{}.Pos))
	gl.EnableVertexAttribArray(attrNormal)
	gl.VertexAttribPointerWithOffset(attrNormal, 3, gl.FLOAT, false, stride, unsafe.Offsetof(Vertex{}.Normal))
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, m.ebo)
}

// NewCubeMesh uploads the unit cube centred at the origin (see
// CubeGeometry), counted in mem like NewMesh.
func NewCubeMesh(mem *MemoryCounter) (Mesh, error) {
	v, ix := CubeGeometry()
	m, err := NewMesh(mem, v, ix)
	if err != nil {
		return Mesh{}, fmt.Errorf("gfx: cube mesh: %w", err)
	}
	return m, nil
}

// CubeGeometry returns the unit cube centred at the origin (corners at
// ±0.5): 24 vertices, four per face so that each face has its own outward
// normal, and 36 indices, two counter-clockwise triangles per face seen
// from outside. It allocates new slices on every call.
func CubeGeometry() ([]Vertex, []uint16) {
	// Each face: its normal n and two edge directions u, v with u × v = n,
	// so the corners -u-v, +u-v, +u+v, -u+v run counter-clockwise seen
	// from outside.
	faces := [6][3]mgl32.Vec3{
		{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},  // +X
		{{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}}, // -X
		{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}},  // +Y
		{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}, // -Y
		{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},  // +Z
		{{0, 0, -1}, {0, 1, 0}, {1, 0, 0}}, // -Z
	}
	vertices := make([]Vertex, 0, 24)
	indices := make([]uint16, 0, 36)
	for _, f := range faces {
		n, u, v := f[0], f[1], f[2]
		base := uint16(len(vertices))
		for _, c := range [4][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			p := n.Add(u.Mul(c[0])).Add(v.Mul(c[1])).Mul(0.5)
			vertices = append(vertices, Vertex{Pos: p, Normal: n})
		}
		indices = append(indices, base, base+1, base+2, base, base+2, base+3)
	}
	return vertices, indices
}
