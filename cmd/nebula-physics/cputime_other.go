//go:build !unix

package main

import "time"

// cpuTime reports that this platform does not tell the process's CPU time
// (cputime_unix.go does where it can).
func cpuTime() (time.Duration, bool) { return 0, false }
