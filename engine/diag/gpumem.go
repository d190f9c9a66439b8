package diag

import "strconv"

// GPUMemorySource says where a frame's GPU memory figures come from (see
// GPUMemory). Its String is the -stats CSV's gpu_mem_source column: ""
// (GPUMemoryNone), "own", "nvx" or "ati".
type GPUMemorySource uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=GPUMemorySource -linecomment

// The sources of GPUMemory.
const (
	// GPUMemoryNone: not measured (a headless run, or the diagnostics
	// off); every figure is 0. Its String is empty (the empty line
	// comment).
	GPUMemoryNone GPUMemorySource = iota //
	// GPUMemoryOwn: the driver offers no memory extension (Mesa's
	// llvmpipe, most Intel drivers): only Own is known.
	GPUMemoryOwn // own
	// GPUMemoryNVX: GL_NVX_gpu_memory_info (NVIDIA, Mesa's radeonsi):
	// Used and Free are the driver's.
	GPUMemoryNVX // nvx
	// GPUMemoryATI: GL_ATI_meminfo (AMD): Free is the driver's (its
	// texture pool), Used is unknown.
	GPUMemoryATI // ati
)

// GPUMemory is a frame's GPU memory figures, in bytes.
type GPUMemory struct {
	// Source says which figures are known; unknown ones are 0.
	Source GPUMemorySource
	// Own is what the engine's own buffers and textures hold, counted by
	// gfx where it allocates, grows and deletes them (the window's
	// gfx.MemoryCounter): known
	// whenever Source is not GPUMemoryNone.
	Own uint64
	// Used is the driver's figure of the video memory in use by every
	// program on the GPU (GPUMemoryNVX only).
	Used uint64
	// Free is the driver's figure of the free video memory (GPUMemoryNVX
	// and GPUMemoryATI).
	Free uint64
}

// InUse returns the figure that best answers "how much GPU memory is in
// use", and its label: the driver's Used, labelled "driver", where the
// driver says (GPUMemoryNVX); otherwise Own, labelled "own buffers"; and
// 0, "" when nothing was measured.
func (g GPUMemory) InUse() (bytes uint64, label string) {
	switch g.Source {
	case GPUMemoryNone:
		return 0, ""
	case GPUMemoryNVX:
		return g.Used, "driver"
	}
	return g.Own, "own buffers"
}

// appendGPUMemory appends the overlay's GPU memory line for g:
// "gpu-mem 12.3 MiB (own buffers)", "gpu-mem 812.0 MiB (driver)  own
// 12.3 MiB", "gpu-mem 12.3 MiB (own)  free 2048.0 MiB" or "gpu-mem -".
func appendGPUMemory(b []byte, g *GPUMemory) []byte {
	b = append(b, "gpu-mem "...)
	switch g.Source {
	case GPUMemoryNone:
		return append(b, '-')
	case GPUMemoryNVX:
		b = appendMiB(b, g.Used)
		b = append(b, " (driver)  own "...)
		return appendMiB(b, g.Own)
	case GPUMemoryATI:
		b = appendMiB(b, g.Own)
		b = append(b, " (own)  free "...)
		return appendMiB(b, g.Free)
	}
	b = appendMiB(b, g.Own)
	return append(b, " (own buffers)"...)
}

// appendMiB appends n bytes as MiB with one decimal and " MiB".
func appendMiB(b []byte, n uint64) []byte {
	b = strconv.AppendFloat(b, float64(n)/(1<<20), 'f', 1, 64)
	return append(b, " MiB"...)
}
