//go:build !linux

package timing

import "time"

// sleep is time.Sleep where no better primitive is wired in.
func sleep(d time.Duration) { time.Sleep(d) }
