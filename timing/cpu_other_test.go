//go:build !unix

package timing

import "time"

// processCPU is not measured on this system.
func processCPU() time.Duration { return -1 }
