//go:build race

package main

// raceEnabled: the tests run under the race detector, which makes the
// simulation about ten times slower.
const raceEnabled = true
