package timing

import (
	"syscall"
	"time"
)

// sleep blocks the calling thread in nanosleep(2) for d. On Linux it wakes
// closer to the deadline than time.Sleep, whose runtime timers overshoot a
// 5 ms sleep by about 0.3 ms at the median and 0.5 ms at the 90th percentile
// on our machines, against about 0.17 and 0.22 ms for nanosleep; that is the
// margin a Pacer must spin, so it is CPU saved every frame. The thread is
// blocked for the duration (the Go scheduler hands its P to other
// goroutines), which is what a frame loop on the locked main thread wants.
func sleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var rem syscall.Timespec
		err := syscall.Nanosleep(&ts, &rem)
		if err != syscall.EINTR { // interrupted by a signal (Go's preemption uses SIGURG): sleep the rest
			return
		}
		ts = rem
	}
}
