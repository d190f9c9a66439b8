package rollback

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/timing"
)

// Simulation is what a rollback session and a sync test drive: the three
// requests of a rollback library such as GGRS (save the state, load it,
// advance one tick), the tick hook that lets the session say each tick's
// inputs, and what they read between ticks. *engine.Engine implements it;
// a session reaches nothing else of the engine.
type Simulation interface {
	// SaveState saves the whole simulated state into st (GGRS's
	// SaveGameState).
	SaveState(st *engine.State)
	// LoadState returns the simulation to st (GGRS's LoadGameState).
	LoadState(st *engine.State)
	// StepTick runs the next tick, its due time due, through the tick
	// hooks: the session, one of them, gives the tick its players and
	// inputs in BeginTick (GGRS's AdvanceFrame). It reports false after a
	// panic, or when the tick was held.
	StepTick(due time.Duration) (ok bool)
	// AdvanceTick runs the next tick with the players p, calling no tick
	// hook: a sync test's re-simulation.
	AdvanceTick(due time.Duration, p *engine.Players) (ok bool)
	// AddTickHook adds a tick hook (the session) and returns the function
	// that removes it.
	AddTickHook(h engine.TickHook) (remove func(), err error)
	// SetJobMode sets when job results are applied: a session and a sync
	// test need engine.JobsDeterministic.
	SetJobMode(m engine.JobMode)
	// Simulated returns the simulated world: its tick, state hash,
	// players and bodies.
	Simulated() *engine.World
	// TickRate returns the tick rate, in Hz.
	TickRate() int
	// Interpolation returns how the frames are drawn (for easing
	// corrections).
	Interpolation() engine.InterpolationConfig
	// Err returns the panic the simulation recovered, or nil.
	Err() error
}

var _ Simulation = (*engine.Engine)(nil)

// MaxDepth is the most ticks a rollback session predicts past its last
// confirmed tick (Config.MaxPrediction).
const MaxDepth = 64

// Config configures a rollback session: see New.
type Config struct {
	// MaxPrediction is how many ticks past the last confirmed tick the
	// session may simulate on predicted inputs, from 0 to MaxDepth. 0 is lockstep: every tick waits for its confirmed
	// inputs and nothing is ever simulated twice.
	MaxPrediction int
	// Confirmed, if not nil, is called once for every tick, in order,
	// once the tick has been simulated with its confirmed inputs: with the
	// tick, its state hash and its state. The state is valid during the
	// call only (engine.State.CopyFrom keeps it). What must happen once per tick,
	// whatever the predictions did (sending the hash to a server, writing
	// a recording, logging), belongs here. It is called on the loop's
	// goroutine, at the end of a tick or at the start of a frame.
	Confirmed func(tick uint64, hash uint64, st *engine.State)
	// HashEvery says which ticks Confirmed gets the state hash of: the
	// multiples of HashEvery (0 and 1: every tick); the others get 0.
	// Hashing costs a pass over the state after every simulation of a
	// tick, which a client that sends one hash a second can skip.
	HashEvery uint64
	// Smoothing says how a correction that moves what is on screen is
	// shown.
	Smoothing Smoothing
	// FrameBudget is how long a frame may spend re-simulating before it is
	// counted late (Stats.LateFrames); 0 counts none. A windowed
	// game passes its frame interval.
	FrameBudget time.Duration
}

// Smoothing says how corrections are drawn. When a rollback
// moves an entity (the confirmed inputs put it elsewhere than the
// prediction did), the picture would jump. With smoothing on, the entity
// is drawn at its corrected position plus an offset that starts at the
// jump and decays, halving every HalfLife of real time, so it glides to
// where it belongs within a few frames. Only the drawing is eased: the
// simulated state is corrected at once. Teleports still snap: an entity
// teleported (engine.World.Teleport) in the corrected tick, or whose correction
// is longer than MaxDistance, is drawn where it is.
type Smoothing struct {
	// HalfLife is how long the remaining offset takes to halve. 0 turns
	// smoothing off: a correction shows in the next frame.
	HalfLife time.Duration
	// MaxDistance is the longest correction that is eased, in world
	// units; a longer one snaps. 0 means the interpolation's SnapDistance
	// (or no limit, when that is 0).
	MaxDistance float32
}

// DefaultConfig returns a session that predicts up to 8 ticks
// ahead and eases corrections with a 50 ms half-life (a jump is 25% left
// after 100 ms, under 2% after 300 ms).
func DefaultConfig() Config {
	return Config{MaxPrediction: 8, Smoothing: Smoothing{HalfLife: 50 * time.Millisecond}}
}

// A Source supplies a rollback session's ticks: a network client,
// or a test. The session calls its methods on the loop's goroutine.
type Source interface {
	// Sync is called at the start of every frame (Rollback.StartFrame),
	// before the session looks for confirmed ticks. A source may restore a
	// snapshot there (engine.Engine.Restore: a late join's start, a
	// resynchronisation) and report true: the session then takes the
	// engine's tick as confirmed and forgets its predictions.
	Sync() (restored bool)
	// Confirmed reports whether tick's inputs are confirmed and, when they
	// are, applies them to p: p holds the confirmed players of the tick
	// before, and accepts Join, Leave and SetInput as the Players of
	// engine.TickHook.BeginTick do. The session asks for the ticks in order; once
	// Confirmed has reported a tick, it is not asked for it again.
	Confirmed(tick uint64, p *engine.Players) bool
	// Local returns the local player and its input at tick when the source
	// knows it already (the input it sampled for that tick, or its latest
	// when tick is past those); ok is false otherwise, and the local
	// player's input is predicted like everyone else's.
	Local(tick uint64) (id engine.PlayerID, in input.Sample, ok bool)
}

// Stats is what a rollback session counted.
type Stats struct {
	Confirmed      uint64 // the last tick simulated with its confirmed inputs
	Predicted      uint64 // ticks first simulated on predicted inputs
	Rollbacks      uint64 // corrections: states loaded to re-simulate from
	Resimulated    uint64 // ticks simulated again, over all rollbacks
	MaxResimulated int    // the most ticks one rollback simulated again
	// ResimTime is the distribution of the time each rollback took (load
	// and re-simulation).
	ResimTime timing.Durations
	// LateFrames counts the rollbacks that took longer than
	// Config.FrameBudget.
	LateFrames uint64
	// DepthMean is how far, on average, the session was ahead of its
	// last confirmed tick, sampled at the start of every frame.
	DepthMean float64
	// DepthMax is the most it was ahead.
	DepthMax uint64
	// Stalls counts the times a tick could not run because it was beyond
	// the prediction window (or, in lockstep, not confirmed).
	Stalls uint64
	// StallTime is the time from each such refusal to the tick running,
	// summed.
	StallTime time.Duration
	// Smoothed counts entities whose correction was eased, Snapped those
	// whose correction snapped (longer than the limit, or teleported).
	Smoothed, Snapped uint64
}

// Rollback is a prediction and rollback session (as in GGPO): it runs an
// engine's ticks ahead of the confirmed inputs, predicting what it does not
// know yet (every player keeps its last confirmed input; the local player
// has its own), saves the state after every tick, and when a confirmed
// tick differs from what it predicted, loads the state before that tick
// and simulates to the present again, within the frame, before anything
// is drawn.
//
// It drives the engine through the Simulation interface only. It is one
// of the engine's tick hooks (New adds it), the one that steers the
// ticks: an engine.TickGate (no tick runs more than MaxPrediction ticks
// past the last confirmed one), an engine.PlayerOwner (the confirmed
// ticks and the predictions say who plays), and it starts every frame
// (engine.FrameStarter) by taking the confirmed ticks that arrived and
// rolling back when they need it. Other hooks (a recorder) see every
// simulation of a tick, with engine.TickInfo's Predicted, Resimulated and
// Unconfirmed saying which it is.
//
// Which code sees which ticks:
//
//   - A tick's systems see every simulation of a tick: the first one,
//     often on predicted inputs (engine.FixedContext.Predicted), and
//     again after each correction (engine.FixedContext.Resimulated). They
//     must be pure functions of the state and the inputs, which a sync
//     test checks (SyncTest); an effect that must not repeat (a sound)
//     checks the flags or goes into Confirmed.
//   - Config.Confirmed sees every tick exactly once, confirmed; so does a
//     replay.Recorder beside the session, which keeps a tick until it is.
//   - Update and Render systems see the latest simulated tick once per
//     frame, as without rollback, with corrections eased (Smoothing).
type Rollback struct {
	sim    Simulation
	src    Source
	cfg    Config
	remove func() // removes the session from the engine's tick hooks

	// S is the last tick whose state is right (simulated with its
	// confirmed inputs, or predicted and then confirmed as predicted); C
	// the last tick whose confirmed inputs the session holds; end the
	// match's last tick (0: none). The engine is at tick P >= S, and C <=
	// max(P, S+1).
	s, c, end uint64
	ring      []savedTick    // by tick modulo len(ring)
	conf      engine.Players // the confirmed players of tick c
	scratch   engine.Players
	resim     bool // re-simulating: every tick may run

	stalled    bool
	stallStart time.Time

	// Smoothing: per slot, the offset still drawn and the entity it
	// belongs to; active counts the non-zero offsets.
	offset    []mgl32.Vec3
	offEnt    []engine.Entity
	active    int
	before    []mgl32.Vec3 // positions at the present before a rollback
	beforeEnt []engine.Entity

	stats    Stats
	depthSum float64
	depthN   uint64
}

// savedTick is what the session keeps of one tick.
type savedTick struct {
	tick      uint64
	state     engine.State // after the tick
	hash      uint64
	players   engine.Players // the players the tick ran with (or its confirmed ones, once known)
	confirmed bool           // players are the confirmed ones
}

// New makes a rollback session on sim, at sim's current tick (taken as
// confirmed), fed by src, and adds it to sim's tick hooks. It sets sim's
// jobs to engine.JobsDeterministic. It returns an error for a
// configuration out of range, and one wrapping engine.ErrTwoSteeringHooks
// when another hook steers sim's ticks already.
func New(sim Simulation, src Source, cfg Config) (*Rollback, error) {
	switch {
	case cfg.MaxPrediction < 0 || cfg.MaxPrediction > MaxDepth:
		return nil, fmt.Errorf("rollback: max prediction %d: must be from 0 to %d ticks", cfg.MaxPrediction, MaxDepth)
	case cfg.Smoothing.HalfLife < 0:
		return nil, fmt.Errorf("rollback: smoothing half-life %v: must be 0 (off) or more", cfg.Smoothing.HalfLife)
	case !(cfg.Smoothing.MaxDistance >= 0):
		return nil, fmt.Errorf("rollback: smoothing max distance %v: must be 0 (the snap distance) or more", cfg.Smoothing.MaxDistance)
	case src == nil:
		return nil, errors.New("rollback: no source of confirmed ticks")
	}
	r := &Rollback{sim: sim, src: src, cfg: cfg, ring: make([]savedTick, cfg.MaxPrediction+2)}
	remove, err := sim.AddTickHook(r)
	if err != nil {
		return nil, fmt.Errorf("rollback: %w", err)
	}
	r.remove = remove
	sim.SetJobMode(engine.JobsDeterministic)
	r.restart()
	return r, nil
}

// Close removes the session from the engine's tick hooks: the engine's
// ticks then run without it (another session may be added).
func (r *Rollback) Close() {
	r.remove()
}

// restart takes the engine's tick as confirmed and forgets everything
// predicted.
func (r *Rollback) restart() {
	w := r.sim.Simulated()
	t := w.Tick()
	r.s, r.c = t, t
	r.conf.CopyFrom(w.Players())
	r.conf.ClearChanges()
	slot := r.slot(t)
	slot.tick, slot.confirmed = t, true
	r.sim.SaveState(&slot.state)
	slot.hash = w.Hash()
	slot.players.CopyFrom(&r.conf)
	clear(r.offset)
	r.active = 0
	r.stats.Confirmed = t
}

func (r *Rollback) slot(t uint64) *savedTick { return &r.ring[t%uint64(len(r.ring))] }

// EndAt says the match ends with tick: no later tick runs, and a session
// that predicted past it goes back to it once it is confirmed.
func (r *Rollback) EndAt(tick uint64) { r.end = tick }

// Stats returns what the session counted so far.
func (r *Rollback) Stats() Stats {
	st := r.stats
	if r.depthN > 0 {
		st.DepthMean = r.depthSum / float64(r.depthN)
	}
	return st
}

// Confirmed returns the last tick simulated with its confirmed inputs.
func (r *Rollback) Confirmed() uint64 { return r.s }

// Available returns the last tick whose confirmed inputs the session
// holds (it may not have simulated it yet).
func (r *Rollback) Available() uint64 { return r.c }

// StartFrame begins a frame: the source's Sync, then the confirmed ticks
// up to the present. Ticks confirmed as predicted become confirmed; at the
// first that differs, the session loads the state before it and simulates
// up to the present again. The engine calls it at the start of every
// Frame (engine.FrameStarter); a headless driver calls it before it steps
// ticks. A panic in a re-simulated tick is the engine's (Simulation.Err).
func (r *Rollback) StartFrame() {
	if r.sim.Err() != nil {
		return
	}
	if r.src.Sync() {
		r.restart()
		return
	}
	w := r.sim.Simulated()
	p := w.Tick()
	// Take the confirmed ticks up to the present, comparing each with what
	// was simulated.
	wrong := uint64(0)
	for r.c < p {
		k := r.c + 1
		slot := r.slot(k)
		if !r.pull(k) {
			break
		}
		if wrong == 0 && !slot.players.Equal(&r.scratch) {
			wrong = k
		}
		slot.setConfirmed(k, &r.scratch)
	}
	for r.s < min(r.c, p) && (wrong == 0 || r.s+1 < wrong) {
		r.s++
		r.confirm(r.slot(r.s))
	}
	if wrong != 0 {
		r.rollback(wrong, p)
	}
	if r.end != 0 && r.s == r.end && w.Tick() > r.end {
		r.sim.LoadState(&r.slot(r.end).state)
	}
	if d := w.Tick() - r.s; w.Tick() >= r.s {
		r.depthSum += float64(d)
		r.depthN++
		r.stats.DepthMax = max(r.stats.DepthMax, d)
	}
}

// pull asks the source for tick k's confirmed players, into r.scratch,
// starting from the confirmed players of k-1; on success they become
// those, and r.c is k.
func (r *Rollback) pull(k uint64) bool {
	r.scratch.CopyFrom(&r.conf)
	if !r.src.Confirmed(k, &r.scratch) {
		return false
	}
	r.conf.CopyFrom(&r.scratch)
	r.conf.ClearChanges()
	r.c = k
	return true
}

// setConfirmed makes the slot tick's, with the confirmed players p.
func (t *savedTick) setConfirmed(tick uint64, p *engine.Players) {
	t.tick = tick
	t.players.CopyFrom(p)
	t.confirmed = true
}

// confirm reports a tick that has become confirmed.
func (r *Rollback) confirm(t *savedTick) {
	r.stats.Confirmed = t.tick
	if r.cfg.Confirmed != nil {
		r.cfg.Confirmed(t.tick, t.hash, &t.state)
	}
}

// rollback loads the state before tick wrong and simulates again up to
// tick p.
func (r *Rollback) rollback(wrong, p uint64) {
	start := time.Now()
	smooth := r.cfg.Smoothing.HalfLife > 0 && r.sim.Interpolation().Enabled
	if smooth {
		r.keepPositions()
	}
	r.sim.LoadState(&r.slot(wrong - 1).state)
	r.resim = true
	defer func() { r.resim = false }()
	for k := wrong; k <= p; k++ {
		if !r.sim.StepTick(engine.TickTime(k, r.sim.TickRate())) {
			return
		}
	}
	r.resim = false
	d := time.Since(start)
	n := int(p - wrong + 1)
	r.stats.Rollbacks++
	r.stats.Resimulated += uint64(n)
	r.stats.MaxResimulated = max(r.stats.MaxResimulated, n)
	r.stats.ResimTime.Add(d)
	if r.cfg.FrameBudget > 0 && d > r.cfg.FrameBudget {
		r.stats.LateFrames++
	}
	if smooth {
		r.ease()
	}
}

// TickReady implements engine.TickGate: a tick runs when it is at most
// MaxPrediction ticks past the last confirmed one (in lockstep, when it is
// confirmed), and never past the match's end.
func (r *Rollback) TickReady(n uint64) bool {
	if r.resim {
		return true
	}
	if n == r.c+1 && (r.end == 0 || n <= r.end) {
		if r.pull(n) {
			r.slot(n).setConfirmed(n, &r.scratch)
		}
	}
	ok := n <= r.c+uint64(r.cfg.MaxPrediction) && (r.end == 0 || n <= r.end)
	if !ok && !r.stalled {
		r.stalled, r.stallStart = true, time.Now()
		r.stats.Stalls++
	}
	return ok
}

// OwnsPlayers implements engine.PlayerOwner.
func (r *Rollback) OwnsPlayers() bool { return true }

// PreTick implements engine.TickHook.
func (r *Rollback) PreTick() {}

// BeginTick implements engine.TickHook: a confirmed tick gets its
// confirmed players; a predicted one keeps the players of the tick
// before, with the local player's own input when the source knows it.
// TickInfo.Unconfirmed counts the ticks past the last confirmed one as
// this tick ends.
func (r *Rollback) BeginTick(t *engine.TickInfo) {
	if r.stalled && !r.resim {
		r.stalled = false
		r.stats.StallTime += time.Since(r.stallStart)
	}
	t.Resimulated = r.resim
	slot := r.slot(t.Tick)
	if t.Tick <= r.c && slot.confirmed && slot.tick == t.Tick {
		t.Players.Apply(&slot.players)
		if t.Tick != r.s+1 { // otherwise EndTick confirms it
			t.Unconfirmed = t.Tick - r.s
		}
		return
	}
	t.Predicted, t.Unconfirmed = true, t.Tick-r.s
	if !r.resim {
		r.stats.Predicted++
	}
	if id, in, ok := r.src.Local(t.Tick); ok && t.Players.Has(id) {
		_ = t.Players.SetInput(id, in) // id is in the match
	}
}

// JobApplied implements engine.TickHook.
func (r *Rollback) JobApplied(uint64, engine.JobID, []byte) {}

// EndTick implements engine.TickHook: it saves the tick's state, hash and
// players, and reports the tick when it was confirmed.
func (r *Rollback) EndTick(tick uint64, w *engine.World) {
	slot := r.slot(tick)
	confirmed := tick <= r.c && slot.confirmed && slot.tick == tick
	slot.tick = tick
	r.sim.SaveState(&slot.state)
	slot.hash = 0
	if r.cfg.HashEvery <= 1 || tick%r.cfg.HashEvery == 0 {
		slot.hash = w.Hash()
	}
	if !confirmed {
		slot.players.CopyFrom(w.Players())
		slot.confirmed = false
		return
	}
	if tick == r.s+1 {
		r.s = tick
		r.confirm(slot)
	}
}
