package replay

import (
	"errors"
	"fmt"

	"github.com/nebulaengine/nebula/engine"
)

// DivergenceError says where a replay stopped agreeing with its recording:
// the first tick whose state hash differs (Want is the recorded hash, Got
// the replay's), or another disagreement (Reason).
type DivergenceError struct {
	Tick      uint64 // the first tick that disagrees
	Want, Got uint64 // the recorded and the replayed state hash
	Reason    string // another disagreement, or ""
}

// Error names the tick and the disagreement.
func (e *DivergenceError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("replay diverged at tick %d: %s", e.Tick, e.Reason)
	}
	return fmt.Sprintf("replay diverged at tick %d: recorded hash %016x, replayed hash %016x", e.Tick, e.Want, e.Got)
}

// ReproducedPanic is what Verify returns when a recording that ended in a
// crash is replayed and the replay panics at the same tick in the same
// system: the recorded crash and the replay's panic.
type ReproducedPanic struct {
	Recorded CrashInfo          // the crash the recording ends with
	Panic    *engine.PanicError // the replay's panic
}

// Error describes the replay's panic.
func (e *ReproducedPanic) Error() string {
	return fmt.Sprintf("replay reproduced the recorded panic: %v", e.Panic)
}

// FramePanicError is what Verify returns for a recording that ended in a
// panic in a frame phase (Update or Render systems, interpolation), once
// every recorded tick has agreed with the replay: Verify runs ticks only,
// so it cannot reproduce the panic. A windowed replay runs frames.
type FramePanicError struct {
	Recorded CrashInfo // the crash the recording ends with
	Ticks    uint64    // the ticks that agreed
}

// Error says what was verified and why the panic was not reproduced.
func (e *FramePanicError) Error() string {
	return fmt.Sprintf("all %d ticks agree with the recording, but it ended in a panic in the %s phase (system %q: %s), which a headless verification does not run (it runs no frames): replay it in the window",
		e.Ticks, e.Recorded.Phase, e.Recorded.System, e.Recorded.Message)
}

// Unwrap returns Panic.
func (e *ReproducedPanic) Unwrap() error { return e.Panic }

// SchemaError is a recording made by a world with other components or
// resources than the world asked to play it.
type SchemaError struct {
	Err error // the first difference (engine.Schema.Compare)
}

// Error names the first difference: "replay: recorded with component
// "health" int32, this program has "health" float32".
func (e *SchemaError) Error() string { return "replay: " + e.Err.Error() }

// Unwrap returns Err.
func (e *SchemaError) Unwrap() error { return e.Err }

// Player feeds a recording to an engine, one record per tick: it is one of the
// engine's tick hooks, the PlayerOwner: each tick's players join, leave
// and get their inputs as recorded, and the local input is ignored. The
// engine must be set up as the recording's was (same scene, seed and
// entity count: see Header), with no input script; NewPlayer sets its tick
// rate and puts its jobs in replay mode. It stops the loop after the last
// record (Done), or at the first disagreement (Err).
type Player struct {
	e      *engine.Engine
	r      *Replay
	d      decoder
	rec    Record
	err    error
	done   bool
	ticks  uint64
	hashes int
	onEnd  func()
	remove func() // removes the player from the engine's tick hooks
}

// NewPlayer returns a player of r for e and adds it to e's tick hooks
// (Close removes it). It returns a *SchemaError when e's world registers
// other components or resources than the recorded world did
// (Header.Schema), and an error wrapping engine.ErrTwoSteeringHooks when
// another of e's hooks steers the ticks (a player decides who plays).
func NewPlayer(e *engine.Engine, r *Replay) (*Player, error) {
	if err := r.Header.Schema.Compare(e.World.Schema()); err != nil {
		return nil, &SchemaError{Err: err}
	}
	if err := e.Loop.SetTickRate(r.Header.TickRate); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	p := &Player{e: e, r: r}
	remove, err := e.AddTickHook(p)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	p.remove = remove
	p.d.reset(r)
	p.done = r.End.Records == 0
	e.Jobs.SetMode(engine.JobsReplay)
	return p, nil
}

// NewPlayerFromSnapshot is NewPlayer, starting from r's last checkpoint
// (Record.Snapshot) instead of its first record: it restores the
// checkpoint's snapshot into e, checks that the restored world's state
// hash is the recorded one, and returns a player of the records from the
// one that holds the checkpoint, with the tick of the snapshot (the tick
// before that record). Without a checkpoint in r it is NewPlayer, and the
// tick is 0. A recovery replays the tail of a match log this way
// (package matchlog); Player.Ticks counts the records skipped.
func NewPlayerFromSnapshot(e *engine.Engine, r *Replay) (*Player, uint64, error) {
	// Find the last record with a checkpoint.
	var d decoder
	d.reset(r)
	var rec Record
	last, n := uint64(0), uint64(0)
	var snap []byte
	var snapHash, snapTick uint64
	for {
		ok, err := d.next(&rec)
		if err != nil {
			return nil, 0, fmt.Errorf("replay: reading the recording again: %w", err) // Open read it: a bug
		}
		if !ok {
			break
		}
		if rec.Snapshot != nil {
			last, snap, snapHash, snapTick = n, rec.Snapshot, rec.SnapshotHash, rec.Tick-1
		}
		n++
	}
	p, err := NewPlayer(e, r)
	if err != nil || snap == nil {
		return p, 0, err
	}
	if err := e.Restore(snap); err != nil {
		p.Close()
		return nil, 0, fmt.Errorf("replay: the checkpoint of tick %d does not restore: %w", snapTick, err)
	}
	if got := e.World.Hash(); got != snapHash || e.World.Tick() != snapTick {
		p.Close()
		return nil, 0, fmt.Errorf("replay: the checkpoint of tick %d restores to tick %d, hash %016x; its recorded hash is %016x", snapTick, e.World.Tick(), got, snapHash)
	}
	for range last {
		if ok, err := p.d.next(&p.rec); !ok || err != nil {
			p.Close()
			return nil, 0, fmt.Errorf("replay: reading the recording again: %v", err)
		}
	}
	p.ticks = last
	return p, snapTick, nil
}

// Close removes the player from the engine's tick hooks.
func (p *Player) Close() { p.remove() }

// OnEnd sets a function called once, from the tick that plays the last
// record (the windowed demo quits there).
func (p *Player) OnEnd(f func()) { p.onEnd = f }

// Done reports whether every record has been played.
func (p *Player) Done() bool { return p.done }

// Err returns the first disagreement with the recording, or nil.
func (p *Player) Err() error { return p.err }

// Ticks returns the number of records played.
func (p *Player) Ticks() uint64 { return p.ticks }

// Hashes returns the number of stored hashes compared.
func (p *Player) Hashes() int { return p.hashes }

func (p *Player) fail(err error) {
	if p.err == nil {
		p.err = err
	}
	p.e.Loop.Pause()
}

// PreTick implements engine.TickHook: it reads the tick's record and
// restores its snapshot, if it has one.
func (p *Player) PreTick() {
	if p.done || p.err != nil {
		p.fail(&DivergenceError{Tick: p.e.World.Tick() + 1, Reason: "the replay ran past the end of the recording"})
		return
	}
	ok, err := p.d.next(&p.rec)
	if err != nil || !ok { // Open has read the whole file: a bug
		p.fail(fmt.Errorf("replay: reading record %d again: %v", p.ticks+1, err))
		return
	}
	rec := &p.rec
	if rec.Restore != nil {
		if err := p.e.Restore(rec.Restore); err != nil {
			p.fail(&DivergenceError{Tick: rec.Tick, Reason: fmt.Sprintf("the recorded snapshot does not restore: %v", err)})
			return
		}
	}
	if got := p.e.World.Tick() + 1; got != rec.Tick {
		p.fail(&DivergenceError{Tick: got, Reason: fmt.Sprintf("the recording's next tick is %d", rec.Tick)})
		return
	}
	if rec.Snapshot != nil {
		// A checkpoint: the world before the tick is the recorded one.
		p.hashes++
		if got := p.e.World.Hash(); got != rec.SnapshotHash {
			p.fail(&DivergenceError{Tick: rec.Tick - 1, Want: rec.SnapshotHash, Got: got})
			return
		}
	}
	if rec.Rate != 0 {
		_ = p.e.Loop.SetTickRate(rec.Rate) // Open checked it
	}
}

// OwnsPlayers implements engine.PlayerOwner: the recording says who plays.
func (p *Player) OwnsPlayers() bool { return true }

// BeginTick implements engine.TickHook: the tick sees the recorded joins,
// leaves and inputs, and the recorded job results.
func (p *Player) BeginTick(t *engine.TickInfo) {
	if p.err != nil {
		return
	}
	ps := t.Players
	for _, id := range p.rec.Left {
		if err := ps.Leave(id); err != nil {
			p.fail(&DivergenceError{Tick: t.Tick, Reason: fmt.Sprintf("the recording has player %d leave: %v", id, err)})
			return
		}
	}
	for _, id := range p.rec.Joined {
		if err := ps.Join(id); err != nil {
			p.fail(&DivergenceError{Tick: t.Tick, Reason: fmt.Sprintf("the recording has player %d join: %v", id, err)})
			return
		}
	}
	for i := range ps.Len() {
		id, _ := ps.At(i)
		_ = ps.SetInput(id, p.d.inputs[id]) // id is in the match
	}
	for _, j := range p.rec.Jobs {
		if err := p.e.Jobs.Deliver(j.ID, j.Result); err != nil {
			p.fail(&DivergenceError{Tick: t.Tick, Reason: fmt.Sprintf("the recording applies a result of job %d: %v", j.ID, err)})
			return
		}
	}
}

// JobApplied implements engine.TickHook.
func (p *Player) JobApplied(uint64, engine.JobID, []byte) {}

// EndTick implements engine.TickHook: it compares the stored hash.
func (p *Player) EndTick(tick uint64, w *engine.World) {
	if p.err != nil {
		return
	}
	p.ticks++
	if p.rec.HasHash {
		p.hashes++
		if got := w.Hash(); got != p.rec.Hash {
			p.fail(&DivergenceError{Tick: tick, Want: p.rec.Hash, Got: got})
			return
		}
	}
	if p.ticks == p.r.End.Records {
		p.done = true
		if p.r.End.Crash == nil && p.r.End.Missing == nil {
			p.hashes++
			if got := w.Hash(); got != p.r.End.Hash {
				p.fail(&DivergenceError{Tick: tick, Want: p.r.End.Hash, Got: got})
				return
			}
		}
		p.e.Loop.Pause()
		if p.onEnd != nil {
			p.onEnd()
		}
	}
}

// Result is the outcome of a verification that agreed with the recording.
type Result struct {
	Ticks  uint64 // records replayed
	Hashes int    // stored hashes compared
}

// Verify replays r on e as fast as the CPU allows (no frames: one
// Engine.StepTick per record) and compares every stored hash. e must be set
// up as the recording's engine was. It returns a *DivergenceError at the
// first disagreement; for a recording that ended in a crash in a fixed
// system (or a job's Apply) it returns a *ReproducedPanic when the replay
// panics at the same tick in the same system, and a *DivergenceError
// otherwise; for a crash in a frame phase, a *FramePanicError once every
// tick agreed. A panic where the recording
// has none is a *DivergenceError wrapping the *engine.PanicError.
func Verify(e *engine.Engine, r *Replay) (Result, error) {
	p, err := NewPlayer(e, r)
	if err != nil {
		return Result{}, err
	}
	defer p.Close()
	for !p.done && p.err == nil {
		if !e.StepTick(0) {
			break
		}
	}
	res := Result{Ticks: p.ticks, Hashes: p.hashes}
	crash := r.End.Crash
	var perr *engine.PanicError
	if errors.As(e.Err(), &perr) {
		if crash != nil && crash.Tick == perr.Tick && crash.System == perr.System {
			return res, &ReproducedPanic{Recorded: *crash, Panic: perr}
		}
		return res, &panicDivergence{DivergenceError{Tick: perr.Tick, Reason: fmt.Sprintf("%v, where the recording has no panic", perr)}, perr}
	}
	if p.err != nil {
		return res, p.err
	}
	if crash != nil && crash.Phase != engine.PhaseFixed {
		return res, &FramePanicError{Recorded: *crash, Ticks: res.Ticks}
	}
	if crash != nil {
		return res, &DivergenceError{Tick: crash.Tick, Reason: fmt.Sprintf("the recording crashed here (system %q: %s), the replay did not", crash.System, crash.Message)}
	}
	return res, nil
}

type panicDivergence struct {
	DivergenceError
	p *engine.PanicError
}

func (d *panicDivergence) Unwrap() []error { return []error{&d.DivergenceError, d.p} }
