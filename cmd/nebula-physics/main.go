// Command nebula-physics runs a rigid-body scene file on Nebula's physics
// (engine/physics) and prints the result, as the reference engines'
// runners do for Rapier and Jolt, so that the three can be compared on the
// same files:
//
//	nebula-physics SCENE.json [--trace ID[,ID...]|all] [--every K] [--cpuprofile FILE]
//
// SCENE.json is a nebula-scene/2 or nebula-scene/1 file (see package
// engine/physics/scene; a /1 file's "joints" are ignored, with a line on
// stderr). The runner builds an engine world and a physics Space from it
// (gravity and tick rate from the file, one entity per body in file order,
// then one per joint in file order), runs the file's steps, timing each
// Space.Step call, and prints one JSON object on stdout: the engine and
// scene, the step times' mean, p50, p95 and max in ms, the time to build
// the world, the final state of every dynamic body, for a scene with
// joints the final record of every joint and the summary of their errors
// (max and mean after the last step, the peak over every step, measured
// after each step outside its timing), the sha256 of the engine's snapshot
// after the last step
// (the same for two runs of one build on any machine) and the physics
// configuration, with cpu_ms_per_step: the process's CPU time over the
// steps (less the joints' measuring) divided by their number, which a busy machine does not inflate as
// it does the wall-clock step_ms, and allocs_while_stepping: the heap
// allocations made during the steps (buffers growing in the first steps;
// none in steady state). --trace adds the state of the named dynamic bodies (all:
// every one) before the first step and after every K-th (--every, 1).
// --cpuprofile writes a CPU profile of the steps alone (go tool pprof
// FILE), the runner's own option beside the format's.
//
// Exit status: 0 on success; 2 for a bad command line or scene file (an
// unknown option, a malformed or out-of-range scene, a traced id that is
// not a dynamic body, an hz that is not a whole number of ticks per second
// from 1 to 1000, which Nebula's fixed-step loop needs), with one line
// "nebula-physics: <what is wrong>" on stderr; 1 when the result cannot be
// written.
//
// make bench-physics builds it into bin/ and compares it with Rapier and
// Jolt on the benchmark scenes.
package main

import "os"

// main is thin: run returns the exit status, so that its deferred
// clean-up (the profile's file) runs before the process exits.
func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
