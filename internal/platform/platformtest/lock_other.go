//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package platformtest

import "testing"

// LockInput serialises the tests that drive a display's shared input across
// test processes; see lock_flock.go. Elsewhere the window tests drive no
// external tool, and it does nothing.
func LockInput(t testing.TB) {}
