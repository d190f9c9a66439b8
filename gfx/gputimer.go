package gfx

import (
	"fmt"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// gpuTimerQueries is the size of a GPUTimer's ring of queries: how many
// measured frames may be in flight at once. A result is typically ready two
// or three frames after it was measured.
const gpuTimerQueries = 4

// GPUTimer measures how long the GPU takes to carry out the commands of a
// frame, with GL_TIME_ELAPSED queries.
//
// The GPU runs behind the CPU, so a measurement is not ready when End
// returns: the timer keeps a ring of queries, one per measured frame, and
// collects each result once the driver says it is available, a few frames
// later. It never asks for a result that is not available, so it never
// waits for the GPU. When every query of the ring is still waiting for its
// result (the GPU is more than four frames behind), Begin skips the frame:
// it is not measured.
//
// Only one GL_TIME_ELAPSED query can be active at a time, so timers do not
// nest and two timers cannot measure overlapping spans. Every method must be
// called with the OpenGL context current, on its thread. Delete it when
// done; it has no finalizer.
type GPUTimer struct {
	queries [gpuTimerQueries]uint32
	// The queries from oldest to newest whose results are not collected
	// yet are queries[oldest], queries[oldest+1], ... (mod the ring's
	// size), pending of them; the next Begin uses the one after those.
	oldest, pending int
	began           bool // between Begin and End
	active          bool // between Begin and End, and Begin started a query

	// available and result receive the driver's answers. They live here
	// rather than on the stack because their addresses go to OpenGL
	// (through cgo), which would move locals to the heap on every call.
	available int32
	result    uint64

	latest   time.Duration
	measured bool // latest holds a measurement
	skipped  int  // frames Begin did not measure
}

// NewGPUTimer creates a timer and its queries. A context must be current
// and Init must have been called. It fails when the driver's timer counter
// has no bits (the driver cannot measure time).
func NewGPUTimer() (*GPUTimer, error) {
	mustBeLoaded("NewGPUTimer")
	var bits int32
	gl.GetQueryiv(gl.TIME_ELAPSED, gl.QUERY_COUNTER_BITS, &bits)
	if err := CheckError(); err != nil {
		return nil, fmt.Errorf("gfx: NewGPUTimer: query GL_TIME_ELAPSED's counter bits: %w", err)
	}
	if bits == 0 {
		return nil, fmt.Errorf("gfx: NewGPUTimer: the driver's GL_TIME_ELAPSED counter has 0 bits: it cannot measure GPU time (%s)", RendererName())
	}
	t := &GPUTimer{}
	gl.GenQueries(gpuTimerQueries, &t.queries[0])
	if err := CheckError(); err != nil {
		t.Delete()
		return nil, fmt.Errorf("gfx: NewGPUTimer: create %d queries: %w", gpuTimerQueries, err)
	}
	return t, nil
}

// Begin starts measuring: the GPU time of the OpenGL commands issued until
// End is measured. It first collects the results that have become
// available. It panics if Begin was already called without End.
func (t *GPUTimer) Begin() {
	t.mustLive("Begin")
	if t.began {
		panic("gfx: GPUTimer.Begin called twice without End")
	}
	t.began = true
	t.collect()
	if t.pending == gpuTimerQueries {
		t.skipped++ // every query is in flight: this frame is not measured
		return
	}
	gl.BeginQuery(gl.TIME_ELAPSED, t.queries[(t.oldest+t.pending)%gpuTimerQueries])
	t.active = true
}

// End stops measuring. The measurement is ready a few frames later (see
// Latest). It panics if Begin was not called first.
func (t *GPUTimer) End() {
	t.mustLive("End")
	if !t.began {
		panic("gfx: GPUTimer.End called without Begin")
	}
	t.began = false
	if t.active {
		gl.EndQuery(gl.TIME_ELAPSED)
		t.active = false
		t.pending++
	}
}

// Latest collects the results that have become available, without
// waiting, and returns the newest measurement: the GPU time between a Begin
// and its End, typically two or three frames ago. ok is false until the
// first measurement is ready.
func (t *GPUTimer) Latest() (d time.Duration, ok bool) {
	t.mustLive("Latest")
	t.collect()
	return t.latest, t.measured
}

// Skipped returns how many frames Begin has not measured because the
// results of all its queries were still outstanding: the GPU was more than
// four measured frames behind.
func (t *GPUTimer) Skipped() int { return t.skipped }

// collect reads the results of the ended queries that are available,
// oldest first, and stops at the first that is not: queries complete in
// the order they were issued.
func (t *GPUTimer) collect() {
	for t.pending > 0 {
		q := t.queries[t.oldest]
		gl.GetQueryObjectiv(q, gl.QUERY_RESULT_AVAILABLE, &t.available)
		if t.available == gl.FALSE {
			return
		}
		// Available: reading the result does not wait.
		gl.GetQueryObjectui64v(q, gl.QUERY_RESULT, &t.result)
		t.latest = time.Duration(min(t.result, uint64(1<<63-1)))
		t.measured = true
		t.oldest = (t.oldest + 1) % gpuTimerQueries
		t.pending--
	}
}

// Delete frees the timer's queries, ending a measurement in progress.
// Using the timer afterwards panics; deleting it again does nothing.
func (t *GPUTimer) Delete() {
	if t.queries[0] == 0 {
		return
	}
	if t.active {
		gl.EndQuery(gl.TIME_ELAPSED)
	}
	gl.DeleteQueries(gpuTimerQueries, &t.queries[0])
	*t = GPUTimer{}
}

func (t *GPUTimer) mustLive(method string) {
	if t == nil || t.queries[0] == 0 {
		panic("gfx: GPUTimer." + method + " on a nil or deleted GPUTimer")
	}
}
