package physics

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU measures the CPU time of the benchmark's own thread, which the
// other work on a shared machine does not inflate as it does wall time.
type threadCPU struct{ start time.Duration }

// startThreadCPU locks the goroutine to its thread and starts measuring.
func startThreadCPU() threadCPU {
	runtime.LockOSThread()
	return threadCPU{threadTime()}
}

// report adds the metric cpu-ns/op and unlocks the thread.
func (c threadCPU) report(b *testing.B) {
	d := threadTime() - c.start
	runtime.UnlockOSThread()
	b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func threadTime() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
