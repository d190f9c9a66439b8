// Package timing is Nebula's clock and fixed-timestep loop, in pure Go.
//
// A game's simulation advances in whole fixed ticks (60 per second by
// default) while frames are rendered at whatever rate the display and the
// Pacer allow. Each frame, Loop.Tick measures the real time since the
// previous frame, clamps it to MaxFrameTime (250 ms), adds it to an
// accumulator, runs the fixed-step callback once per whole tick the
// accumulator holds (at most MaxStepsPerFrame, 5), and renders once with
// alpha, the fraction of a tick left over, so the renderer can draw every
// entity between its state before and after the last tick.
//
// Time is integer nanoseconds throughout. The accumulator counts
// nanoseconds times the tick rate, so one tick is exactly 1e9 units at every
// integer rate and nothing is rounded away: at 60 Hz, 24 hours of frames give
// exactly 5,184,000 ticks. The simulation time of tick n is n/rate, computed
// from n.
//
// Loop code takes the time as a value (Tick(now, ...)); a Clock supplies it.
// MonotonicClock is the real one; ManualClock moves only when told to and is
// what tests and the headless runner use. Pacer starts frames on absolute
// deadlines at a target rate, independent of vsync.
//
// Nothing here allocates per frame, imports cgo or touches a window.
package timing
