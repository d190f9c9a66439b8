//go:build !linux

package physics

import "testing"

// threadCPU is a no-op where the thread's CPU time is not at hand: the
// benchmarks then report wall time only.
type threadCPU struct{}

func startThreadCPU() threadCPU { return threadCPU{} }

func (threadCPU) report(*testing.B) {}
