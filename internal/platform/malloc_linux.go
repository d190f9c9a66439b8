//go:build linux && cgo

package platform

/*
#include <malloc.h>

// tuneMalloc keeps glibc's allocator from returning freed memory to the
// kernel after every frame. Mesa's drivers (llvmpipe above all) allocate
// megabytes of vertex and bin storage for each draw and free them when the
// frame is done. With glibc's defaults, blocks that large are mmap'ed and
// unmapped, or the heap's top is trimmed back with brk, and the next frame
// takes a page fault and a zeroed page for every 4 KiB it touches again:
// 35% of the frame in the kernel in BenchmarkRenderer at 10,000 cubes.
// Keeping up to 64 MiB of free heap and serving blocks below 32 MiB from it
// made that benchmark 1.5 times as fast. Go's own heap does not use malloc,
// so this affects C code only. Elsewhere than glibc it does nothing.
static void tuneMalloc(void) {
#ifdef __GLIBC__
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}
*/
import "C"

// tuneCAllocator tunes the C allocator for per-frame driver allocations
// (see tuneMalloc above); Open calls it before the first window is made.
func tuneCAllocator() { C.tuneMalloc() }
