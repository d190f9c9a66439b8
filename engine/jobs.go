package engine

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/nebulaengine/nebula/internal/binread"
)

// JobID numbers the jobs of an engine in the order they were submitted,
// from 1. Results are applied in JobID order.
type JobID uint64

// JobKind names a kind of job registered with Jobs.Register.
type JobKind uint16

// JobMode says when a job's result is applied. Its String is the mode's
// name: "deterministic", "live" or "replay".
type JobMode uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=JobMode -linecomment

const (
	// JobsDeterministic applies each result exactly at its job's due tick
	// (the submitting tick plus the latency it declared), waiting for the
	// job there if it is not done: the run stays a pure function of its
	// inputs. The default; headless runs use it.
	JobsDeterministic JobMode = iota // deterministic
	// JobsLive applies each result at the first tick that starts after
	// the job is done; the loop never waits. Windowed runs use it; record
	// them to reproduce them.
	JobsLive // live
	// JobsReplay runs no job: a replayer delivers each recorded result
	// (Deliver) at the tick it was applied in the recording.
	JobsReplay // replay
)

// JobRun is a job's work, run on its own goroutine. It gets the job's input
// and returns its result; it must be a pure function of the input (it may
// not touch the world, which the loop owns), so that a restored snapshot
// can run it again with the same result. live is true in JobsLive mode: a
// job that only pretends to be slow (the demo's planner) sleeps only then.
type JobRun func(input []byte, live bool) []byte

// JobApply applies a job's result to the world, inside a tick, before the
// fixed systems. input and result are valid only during the call.
type JobApply func(c *FixedContext, input, result []byte)

type jobKind struct {
	name  string
	sys   string // "job:" + name, the system name of its Apply
	run   JobRun
	apply JobApply
}

type job struct {
	id      JobID
	kind    JobKind
	input   []byte
	due     uint64 // JobsDeterministic: the tick its result is applied in
	done    chan struct{}
	result  []byte // valid once done is closed (or delivered is set)
	panicV  any    // the job's run panicked with this
	ready   bool   // result known on the loop's side (snapshot, delivery)
	deliver bool   // JobsReplay: delivered for the current tick
}

// Jobs runs slow work off the loop: a fixed system submits a job (a kind,
// input bytes and a latency in ticks); the job runs on a goroutine; its
// result is applied to the world inside a tick, at its start, never between
// ticks, in job id order. When it lands depends on the mode (JobMode): at
// the due tick (deterministic), at the first tick after it is ready (live),
// or where a recording says (replay). The loop does not wait for a job
// except in JobsDeterministic mode at its due tick.
//
// Results are bytes so that a recording can store them and a snapshot can
// hold the jobs in flight. Jobs is used from the loop's goroutine only.
type Jobs struct {
	e       *Engine
	mode    JobMode
	kinds   []jobKind
	nextID  JobID
	pending []*job // by id
}

func newJobs(e *Engine) *Jobs { return &Jobs{e: e, nextID: 1} }

// Limits of a job, so that a recording or snapshot stays bounded.
const (
	MaxJobInput     = 1 << 20
	MaxJobResult    = 1 << 20
	MaxJobsInFlight = 4096
)

// SetMode sets when results are applied. Set it before the first tick,
// or between ticks to take over a replayed run (a recovery replays the
// tail of a match log, then runs the match on): leaving JobsReplay starts
// the pending jobs, which a replay does not run (their results were to be
// delivered), so that their results are there when due.
func (j *Jobs) SetMode(m JobMode) {
	from := j.mode
	j.mode = m
	if from == JobsReplay && m != JobsReplay {
		for _, jb := range j.pending {
			if !jb.ready {
				j.start(jb)
			}
		}
	}
}

// Mode returns the mode.
func (j *Jobs) Mode() JobMode { return j.mode }

// Register adds a kind of job and returns its JobKind. Register the same
// kinds in the same order in a run and in its replay.
func (j *Jobs) Register(name string, run JobRun, apply JobApply) JobKind {
	if run == nil || apply == nil {
		panic("engine: Jobs.Register needs run and apply functions")
	}
	j.kinds = append(j.kinds, jobKind{name, "job:" + name, run, apply})
	return JobKind(len(j.kinds) - 1)
}

// Submit starts a job of kind with input (copied), from a fixed system of
// the current tick, and returns its id. latency (at least 1) is the number
// of ticks after this one at which JobsDeterministic applies the result:
// draw it from the world's RNG if it should vary. It panics on an unknown
// kind, a zero latency, an input over MaxJobInput or too many jobs in
// flight: bugs in the caller.
func (j *Jobs) Submit(kind JobKind, input []byte, latency uint32) JobID {
	switch {
	case int(kind) >= len(j.kinds):
		panic(fmt.Sprintf("engine: Jobs.Submit: unknown job kind %d", kind))
	case latency == 0:
		panic("engine: Jobs.Submit: latency must be at least 1 tick")
	case len(input) > MaxJobInput:
		panic(fmt.Sprintf("engine: Jobs.Submit: input of %d bytes, over %d", len(input), MaxJobInput))
	case len(j.pending) >= MaxJobsInFlight:
		panic(fmt.Sprintf("engine: Jobs.Submit: %d jobs in flight already", len(j.pending)))
	}
	jb := &job{id: j.nextID, kind: kind, input: slices.Clone(input), due: j.e.World.Tick() + uint64(latency)}
	j.nextID++
	j.pending = append(j.pending, jb)
	j.start(jb)
	return jb.id
}

// start runs jb on a goroutine unless the mode is replay or its result is
// known.
func (j *Jobs) start(jb *job) {
	jb.done = make(chan struct{})
	if j.mode == JobsReplay || jb.ready {
		close(jb.done)
		return
	}
	run := j.kinds[jb.kind].run
	live := j.mode == JobsLive
	go func() {
		defer close(jb.done)
		defer func() {
			if v := recover(); v != nil {
				jb.panicV = v
			}
		}()
		jb.result = run(jb.input, live)
	}()
}

// Pending returns the number of jobs submitted and not applied yet.
func (j *Jobs) Pending() int { return len(j.pending) }

// Deliver marks job id's result as ready for the current tick, in
// JobsReplay mode: a replayer calls it from TickHook.BeginTick with a
// recorded result (which must stay valid until the tick ends). It returns
// an error when no such job is pending.
func (j *Jobs) Deliver(id JobID, result []byte) error {
	for _, jb := range j.pending {
		if jb.id == id {
			if jb.deliver {
				return fmt.Errorf("engine: job %d delivered twice in one tick", id)
			}
			jb.result, jb.ready, jb.deliver = result, true, true
			return nil
		}
	}
	return fmt.Errorf("engine: no job %d is pending (the next id is %d)", id, j.nextID)
}

// applyDue applies the results due in this tick, in id order, and drops
// their jobs.
func (j *Jobs) applyDue(c *FixedContext) {
	if len(j.pending) == 0 {
		return
	}
	kept := j.pending[:0]
	for _, jb := range j.pending {
		if !j.due(jb, c.Tick) {
			kept = append(kept, jb)
			continue
		}
		k := &j.kinds[jb.kind]
		j.e.curSystem = k.sys
		if jb.panicV != nil {
			// A replay runs no job, so it cannot reproduce this one.
			panic(fmt.Sprintf("job %d (%s) panicked: %v", jb.id, k.name, jb.panicV))
		}
		// The hook hears of the result before it is applied, so that a
		// recording has it even when Apply panics, and its replay
		// delivers it and panics in the same place.
		j.e.hooks.jobApplied(c.Tick, jb.id, jb.result)
		k.apply(c, jb.input, jb.result)
	}
	clear(j.pending[len(kept):])
	j.pending = kept
	j.e.curSystem = "engine"
}

// due reports whether jb's result is applied in tick, waiting for it in
// deterministic mode.
func (j *Jobs) due(jb *job, tick uint64) bool {
	switch j.mode {
	case JobsReplay:
		return jb.deliver
	case JobsLive:
		if jb.ready {
			return true
		}
		select {
		case <-jb.done:
			jb.ready = true
			return true
		default:
			return false
		}
	default:
		if jb.due > tick {
			return false
		}
		if !jb.ready {
			<-jb.done
			jb.ready = true
		}
		return true
	}
}

// appendState appends the jobs' part of a snapshot to b: the next id and
// every pending job, with its result when it is known (see the format in
// snapshot.go).
func (j *Jobs) appendState(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(j.nextID))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(j.pending)))
	for _, jb := range j.pending {
		b = binary.LittleEndian.AppendUint64(b, uint64(jb.id))
		b = binary.LittleEndian.AppendUint16(b, uint16(jb.kind))
		b = binary.LittleEndian.AppendUint64(b, jb.due)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(jb.input)))
		b = append(b, jb.input...)
		ready := jb.ready && j.mode != JobsReplay
		if !ready && j.mode != JobsReplay {
			select {
			case <-jb.done:
				ready = jb.panicV == nil
			default:
			}
		}
		b = append(b, boolByte(ready))
		if ready {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(jb.result)))
			b = append(b, jb.result...)
		}
	}
	return b
}

// jobsState is what Jobs.readState decoded, not yet in effect.
type jobsState struct {
	nextID  JobID
	pending []*job
}

// readState decodes what appendState wrote, checking the ids' order and
// the kinds against those registered; j is unchanged until commitState.
func (j *Jobs) readState(r *binread.Reader) jobsState {
	s := jobsState{nextID: JobID(r.U64("next job id"))}
	nj := r.Count("jobs", MaxJobsInFlight, 8+2+8+4+1)
	s.pending = make([]*job, 0, nj)
	for i := range nj {
		jb := &job{}
		at := r.Offset()
		jb.id = JobID(r.U64("job id"))
		if r.Err() == nil && (jb.id >= s.nextID || i > 0 && jb.id <= s.pending[i-1].id) {
			r.FailAt(at, "job id", fmt.Errorf("job %d has id %d, not increasing or not below the next id %d", i, jb.id, s.nextID))
		}
		at = r.Offset()
		jb.kind = JobKind(r.U16("job kind"))
		if r.Err() == nil && int(jb.kind) >= len(j.kinds) {
			r.FailAt(at, "job kind", fmt.Errorf("job %d has kind %d, but %d kinds are registered", jb.id, jb.kind, len(j.kinds)))
		}
		jb.due = r.U64("job due tick")
		jb.input = slices.Clone(r.Take("job input", r.Count("job input", MaxJobInput, 1)))
		if r.U8("job result known") != 0 {
			jb.result = slices.Clone(r.Take("job result", r.Count("job result", MaxJobResult, 1)))
			jb.ready = true
		}
		s.pending = append(s.pending, jb)
	}
	return s
}

// commitState puts what readState decoded in effect, starting the work of
// every job whose result is not known.
func (j *Jobs) commitState(s jobsState) {
	j.nextID = s.nextID
	j.pending = s.pending
	for _, jb := range s.pending {
		j.start(jb)
	}
}
