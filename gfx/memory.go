package gfx

import (
	"sync/atomic"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// MemoryCounter counts the bytes of GPU storage that the buffers and
// textures made with it hold: the renderer's instance and pose buffers (at
// their capacity, which grows by doubling), every Model's vertex, index and
// morph-target buffers and textures (RGBA8 with their mipmap chain), Lines,
// Mesh, the Overlay's panel and Text's atlas and glyph buffer. It counts
// what was asked of the driver, not what the driver spends on alignment,
// padding or the old storage of an orphaned buffer still in use by the
// GPU; framebuffers, shaders and query objects are not counted.
//
// Give one counter to every object made in one GL context (NewRenderer,
// NewText, NewOverlay, NewLines, NewMesh, NewModel, NewMemoryMeter): it is
// then that context's count, and a second window, or a test running beside
// another, counts in its own. Renderer.Memory returns the renderer's, for
// the objects a drawer makes beside it. Objects add their bytes when they
// are made and grown and subtract them when deleted; objects of a context
// destroyed without deleting them stay counted.
//
// The zero value counts from 0; a nil *MemoryCounter counts nothing (its
// Bytes is 0). Bytes may be read from any goroutine.
type MemoryCounter struct {
	n atomic.Int64
}

// add counts n more bytes (less when n is negative); on a nil counter it
// does nothing.
func (c *MemoryCounter) add(n int) {
	if c != nil {
		c.n.Add(int64(n))
	}
}

// Bytes returns the bytes held now by the buffers and textures counted
// with c.
func (c *MemoryCounter) Bytes() int64 {
	if c == nil {
		return 0
	}
	return c.n.Load()
}

// rgba8Bytes is the storage of a w×h RGBA8 texture, with its whole mipmap
// chain (down to 1×1) when mipmaps is set.
func rgba8Bytes(w, h int, mipmaps bool) int {
	n := 4 * w * h
	for mipmaps && (w > 1 || h > 1) {
		w, h = max(w/2, 1), max(h/2, 1)
		n += 4 * w * h
	}
	return n
}

// MemorySource says where a Memory's figures come from. Its String is
// "own buffers", "GL_NVX_gpu_memory_info" or "GL_ATI_meminfo".
type MemorySource uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=MemorySource -linecomment

// The sources of Memory's figures. A driver offers at most one of the two
// extensions in practice; where it offers both, NVX is read.
const (
	// MemoryOwn: the driver offers no memory extension; only Memory.Own
	// is known (Mesa's llvmpipe, most Intel drivers).
	MemoryOwn MemorySource = iota // own buffers
	// MemoryNVX: GL_NVX_gpu_memory_info (NVIDIA's driver, Mesa's
	// radeonsi). Memory.Used, Free and Total are known.
	MemoryNVX // GL_NVX_gpu_memory_info
	// MemoryATI: GL_ATI_meminfo (AMD's drivers, Mesa's radeonsi). Only
	// Memory.Free is known (the free memory of the texture pool).
	MemoryATI // GL_ATI_meminfo
)

// Memory is a reading of the GPU memory in use, in bytes.
type Memory struct {
	// Source says which of the figures below are known: Own always;
	// Used, Free and Total with MemoryNVX; Free with MemoryATI. Unknown
	// figures are 0.
	Source MemorySource
	// Own is the meter's MemoryCounter's Bytes: what the buffers and
	// textures of its context made by this package hold.
	Own int64
	// Used is the driver's figure of the video memory in use, by every
	// program on the GPU: Total less the memory currently available
	// (GL_GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX less
	// GL_GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX).
	Used int64
	// Free is the driver's figure of the video memory free: NVX's current
	// available memory, or ATI's free texture memory
	// (GL_TEXTURE_FREE_MEMORY_ATI).
	Free int64
	// Total is the video memory the driver makes available
	// (GL_GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX).
	Total int64
}

// InUse returns the figure that best answers "how much GPU memory is in
// use": the driver's Used where it is known (MemoryNVX), Own otherwise,
// and whether it is the driver's.
func (m Memory) InUse() (bytes int64, driver bool) {
	if m.Source == MemoryNVX {
		return m.Used, true
	}
	return m.Own, false
}

// The extensions' enums, which go-gl's core profile package lacks. The
// values are in KiB.
const (
	gpuMemoryTotalAvailableNVX   = 0x9048 // GL_GPU_MEMORY_INFO_TOTAL_AVAILABLE_MEMORY_NVX
	gpuMemoryCurrentAvailableNVX = 0x9049 // GL_GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX
	textureFreeMemoryATI         = 0x87FC // GL_TEXTURE_FREE_MEMORY_ATI: 4 values, the first the pool's free total
)

// MemoryMeter reads the GPU memory in use each frame (Read). NewMemoryMeter
// looks at the driver's extension list once and picks the source; Read
// then makes no GL call at all (MemoryOwn) or one or two glGetIntegerv
// (the extensions), and does not allocate.
type MemoryMeter struct {
	source MemorySource
	mem    *MemoryCounter
	// v receives the driver's values: GL_TEXTURE_FREE_MEMORY_ATI's four,
	// or NVX's total in v[0] and available memory in v[1]. It lives here,
	// not on Read's stack, because its address goes to OpenGL (through
	// cgo), which would move a local to the heap on every call.
	v [4]int32
}

// NewMemoryMeter returns a meter for the current context, reading
// GL_NVX_gpu_memory_info or GL_ATI_meminfo where the driver offers one
// (see MemorySource), and mem, the context's counter, for Memory.Own. A
// context must be current and Init must have been called.
func NewMemoryMeter(mem *MemoryCounter) *MemoryMeter {
	mustBeLoaded("NewMemoryMeter")
	var n int32
	gl.GetIntegerv(gl.NUM_EXTENSIONS, &n)
	exts := make([]string, 0, n)
	for i := range uint32(max(n, 0)) {
		exts = append(exts, gl.GoStr(gl.GetStringi(gl.EXTENSIONS, i)))
	}
	return &MemoryMeter{source: memorySource(exts), mem: mem}
}

// memorySource picks the source from the driver's extensions.
func memorySource(exts []string) MemorySource {
	src := MemoryOwn
	for _, e := range exts {
		switch e {
		case "GL_NVX_gpu_memory_info":
			return MemoryNVX
		case "GL_ATI_meminfo":
			src = MemoryATI
		}
	}
	return src
}

// Source returns where the meter's figures beside Own come from.
func (m *MemoryMeter) Source() MemorySource { return m.source }

// Read returns the memory in use now. Call it with the meter's context
// current, on its thread.
func (m *MemoryMeter) Read() Memory {
	mem := Memory{Source: m.source, Own: m.mem.Bytes()}
	switch m.source {
	case MemoryNVX:
		gl.GetIntegerv(gpuMemoryTotalAvailableNVX, &m.v[0])
		gl.GetIntegerv(gpuMemoryCurrentAvailableNVX, &m.v[1])
		mem.Total, mem.Free = int64(m.v[0])<<10, int64(m.v[1])<<10
		mem.Used = max(mem.Total-mem.Free, 0)
	case MemoryATI:
		gl.GetIntegerv(textureFreeMemoryATI, &m.v[0])
		mem.Free = int64(m.v[0]) << 10
	}
	return mem
}
