//go:build !unix

package physics

import "time"

func cpuTime() time.Duration { return 0 }
