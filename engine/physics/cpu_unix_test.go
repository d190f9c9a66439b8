//go:build unix

package physics

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user and system CPU time so far, for
// benchmarks that report CPU time beside wall time on a shared machine
// (where other processes inflate the wall time).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
