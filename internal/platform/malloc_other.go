//go:build !(linux && cgo)

package platform

// tuneCAllocator does nothing outside Linux: only glibc's thresholds are
// known to make software-rendered frames page-fault (see malloc_linux.go).
func tuneCAllocator() {}
