package engine

import (
	"github.com/nebulaengine/nebula/engine/input"

	"fmt"
	"math"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/timing"
)

// MaxRollbackDepth is the most ticks a rollback session predicts past its
// last confirmed tick (RollbackConfig.MaxPrediction).
const MaxRollbackDepth = 64

// RollbackConfig configures a rollback session: see NewRollback.
type RollbackConfig struct {
	// MaxPrediction is how many ticks past the last confirmed tick the
	// session may simulate on predicted inputs, from 0 to
	// MaxRollbackDepth. 0 is lockstep: every tick waits for its confirmed
	// inputs and nothing is ever simulated twice.
	MaxPrediction int
	// Confirmed, if not nil, is called once for every tick, in order,
	// once the tick has been simulated with its confirmed inputs: with the
	// tick, its state hash and its state. The state is valid during the
	// call only (State.CopyFrom keeps it). What must happen once per tick,
	// whatever the predictions did (sending the hash to a server, writing
	// a recording, logging), belongs here. It is called on the loop's
	// goroutine, at the end of a tick or at the start of a frame.
	Confirmed func(tick uint64, hash uint64, st *State)
	// HashEvery says which ticks Confirmed gets the state hash of: the
	// multiples of HashEvery (0 and 1: every tick); the others get 0.
	// Hashing costs a pass over the state after every simulation of a
	// tick, which a client that sends one hash a second can skip.
	HashEvery uint64
	// Smoothing says how a correction that moves what is on screen is
	// shown.
	Smoothing CorrectionSmoothing
	// FrameBudget is how long a frame may spend re-simulating before it is
	// counted late (RollbackStats.LateFrames); 0 counts none. A windowed
	// game passes its frame interval.
	FrameBudget time.Duration
}

// CorrectionSmoothing says how corrections are drawn. When a rollback
// moves an entity (the confirmed inputs put it elsewhere than the
// prediction did), the picture would jump. With smoothing on, the entity
// is drawn at its corrected position plus an offset that starts at the
// jump and decays, halving every HalfLife of real time, so it glides to
// where it belongs within a few frames. Only the drawing is eased: the
// simulated state is corrected at once. Teleports still snap: an entity
// teleported (World.Teleport) in the corrected tick, or whose correction
// is longer than MaxDistance, is drawn where it is.
type CorrectionSmoothing struct {
	// HalfLife is how long the remaining offset takes to halve. 0 turns
	// smoothing off: a correction shows in the next frame.
	HalfLife time.Duration
	// MaxDistance is the longest correction that is eased, in world
	// units; a longer one snaps. 0 means the interpolation's SnapDistance
	// (or no limit, when that is 0).
	MaxDistance float32
}

// DefaultRollbackConfig returns a session that predicts up to 8 ticks
// ahead and eases corrections with a 50 ms half-life (a jump is 25% left
// after 100 ms, under 2% after 300 ms).
func DefaultRollbackConfig() RollbackConfig {
	return RollbackConfig{MaxPrediction: 8, Smoothing: CorrectionSmoothing{HalfLife: 50 * time.Millisecond}}
}

// A RollbackSource supplies a rollback session's ticks: a network client,
// or a test. The session calls its methods on the loop's goroutine.
type RollbackSource interface {
	// Sync is called at the start of every frame (Rollback.StartFrame),
	// before the session looks for confirmed ticks. A source may restore a
	// snapshot there (Engine.Restore: a late join's start, a
	// resynchronisation) and report true: the session then takes the
	// engine's tick as confirmed and forgets its predictions.
	Sync(e *Engine) (restored bool)
	// Confirmed reports whether tick's inputs are confirmed and, when they
	// are, applies them to p: p holds the confirmed players of the tick
	// before, and accepts Join, Leave and SetInput as the Players of
	// TickHook.BeginTick do. The session asks for the ticks in order; once
	// Confirmed has reported a tick, it is not asked for it again.
	Confirmed(tick uint64, p *Players) bool
	// Local returns the local player and its input at tick when the source
	// knows it already (the input it sampled for that tick, or its latest
	// when tick is past those); ok is false otherwise, and the local
	// player's input is predicted like everyone else's.
	Local(tick uint64) (id PlayerID, in input.Sample, ok bool)
}

// RollbackStats is what a rollback session counted.
type RollbackStats struct {
	Confirmed      uint64 // the last tick simulated with its confirmed inputs
	Predicted      uint64 // ticks first simulated on predicted inputs
	Rollbacks      uint64 // corrections: states loaded to re-simulate from
	Resimulated    uint64 // ticks simulated again, over all rollbacks
	MaxResimulated int    // the most ticks one rollback simulated again
	// ResimTime is the distribution of the time each rollback took (load
	// and re-simulation).
	ResimTime timing.Durations
	// LateFrames counts the rollbacks that took longer than
	// RollbackConfig.FrameBudget.
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
// Installed as the engine's tick hook (NewRollback does it), it is a
// TickGate (no tick runs more than MaxPrediction ticks past the last
// confirmed one), a PlayerOwner (the confirmed ticks and the predictions
// say who plays), and it starts every frame (FrameStarter) by taking the
// confirmed ticks that arrived and rolling back when they need it.
//
// Which code sees which ticks:
//
//   - FixedUpdate systems see every simulation of a tick: the first one,
//     often on predicted inputs (FixedContext.Predicted), and again after
//     each correction (FixedContext.Resimulated). They must be pure
//     functions of the state and the inputs, which a sync test checks
//     (SyncTest); an effect that must not repeat (a sound) checks the
//     flags or goes into Confirmed.
//   - RollbackConfig.Confirmed sees every tick exactly once, confirmed.
//   - Update and Render systems see the latest simulated tick once per
//     frame, as without rollback, with corrections eased (Smoothing).
type Rollback struct {
	e   *Engine
	src RollbackSource
	cfg RollbackConfig

	// S is the last tick whose state is right (simulated with its
	// confirmed inputs, or predicted and then confirmed as predicted); C
	// the last tick whose confirmed inputs the session holds; end the
	// match's last tick (0: none). The engine is at tick P >= S, and C <=
	// max(P, S+1).
	s, c, end uint64
	ring      []rollbackTick // by tick modulo len(ring)
	conf      Players        // the confirmed players of tick c
	scratch   Players
	resim     bool // re-simulating: every tick may run

	stalled    bool
	stallStart time.Time

	// Smoothing: per slot, the offset still drawn and the generation of
	// the entity it belongs to; active counts the non-zero offsets.
	offset    []mgl32.Vec3
	offGen    []uint32
	active    int
	before    []mgl32.Vec3 // positions at the present before a rollback
	beforeGen []uint32

	stats    RollbackStats
	depthSum float64
	depthN   uint64
}

// rollbackTick is what the session keeps of one tick.
type rollbackTick struct {
	tick      uint64
	state     State // after the tick
	hash      uint64
	players   Players // the players the tick ran with (or its confirmed ones, once known)
	confirmed bool    // players are the confirmed ones
}

// NewRollback makes a rollback session on e, at e's current tick (taken as
// confirmed), fed by src, and installs it as e's tick hook. It sets e's
// jobs to JobsDeterministic. It returns an error for a configuration out
// of range.
func NewRollback(e *Engine, src RollbackSource, cfg RollbackConfig) (*Rollback, error) {
	switch {
	case cfg.MaxPrediction < 0 || cfg.MaxPrediction > MaxRollbackDepth:
		return nil, fmt.Errorf("engine: rollback: max prediction %d: must be from 0 to %d ticks", cfg.MaxPrediction, MaxRollbackDepth)
	case cfg.Smoothing.HalfLife < 0:
		return nil, fmt.Errorf("engine: rollback: smoothing half-life %v: must be 0 (off) or more", cfg.Smoothing.HalfLife)
	case !(cfg.Smoothing.MaxDistance >= 0):
		return nil, fmt.Errorf("engine: rollback: smoothing max distance %v: must be 0 (the snap distance) or more", cfg.Smoothing.MaxDistance)
	case src == nil:
		return nil, fmt.Errorf("engine: rollback: no source of confirmed ticks")
	}
	r := &Rollback{e: e, src: src, cfg: cfg, ring: make([]rollbackTick, cfg.MaxPrediction+2)}
	e.Jobs.SetMode(JobsDeterministic)
	r.restart()
	e.SetTickHook(r)
	return r, nil
}

// restart takes the engine's tick as confirmed and forgets everything
// predicted.
func (r *Rollback) restart() {
	e := r.e
	t := e.World.Tick()
	r.s, r.c = t, t
	copyPlayers(&r.conf, &e.World.players)
	slot := r.slot(t)
	slot.tick, slot.confirmed = t, true
	e.SaveState(&slot.state)
	slot.hash = e.World.Hash()
	copyPlayers(&slot.players, &e.World.players)
	clear(r.offset)
	r.active = 0
	r.stats.Confirmed = t
}

func (r *Rollback) slot(t uint64) *rollbackTick { return &r.ring[t%uint64(len(r.ring))] }

// EndAt says the match ends with tick: no later tick runs, and a session
// that predicted past it goes back to it once it is confirmed.
func (r *Rollback) EndAt(tick uint64) { r.end = tick }

// Stats returns what the session counted so far.
func (r *Rollback) Stats() RollbackStats {
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
// Frame; a headless driver calls it before it steps ticks. A panic in a
// re-simulated tick is the engine's (Engine.Err).
func (r *Rollback) StartFrame() {
	e := r.e
	if e.crash != nil {
		return
	}
	if r.src.Sync(e) {
		r.restart()
		return
	}
	p := e.World.Tick()
	// Take the confirmed ticks up to the present, comparing each with what
	// was simulated.
	wrong := uint64(0)
	for r.c < p {
		k := r.c + 1
		slot := r.slot(k)
		if !r.pull(k) {
			break
		}
		if wrong == 0 && !samePlayers(&slot.players, &r.scratch) {
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
	if r.end != 0 && r.s == r.end && e.World.Tick() > r.end {
		e.LoadState(&r.slot(r.end).state)
	}
	if d := e.World.Tick() - r.s; e.World.Tick() >= r.s {
		r.depthSum += float64(d)
		r.depthN++
		r.stats.DepthMax = max(r.stats.DepthMax, d)
	}
}

// pull asks the source for tick k's confirmed players, into r.scratch,
// starting from the confirmed players of k-1; on success they become
// those, and r.c is k.
func (r *Rollback) pull(k uint64) bool {
	copyPlayers(&r.scratch, &r.conf)
	r.scratch.startTick(nil)
	if !r.src.Confirmed(k, &r.scratch) {
		return false
	}
	r.scratch.locked = false
	copyPlayers(&r.conf, &r.scratch)
	r.c = k
	return true
}

// setConfirmed makes the slot tick's, with the confirmed players p.
func (t *rollbackTick) setConfirmed(tick uint64, p *Players) {
	t.tick = tick
	copyPlayers(&t.players, p)
	copyInto(&t.players.joined, p.joined)
	copyInto(&t.players.left, p.left)
	t.confirmed = true
}

// confirm reports a tick that has become confirmed.
func (r *Rollback) confirm(t *rollbackTick) {
	r.stats.Confirmed = t.tick
	if r.cfg.Confirmed != nil {
		r.cfg.Confirmed(t.tick, t.hash, &t.state)
	}
}

// rollback loads the state before tick wrong and simulates again up to
// tick p.
func (r *Rollback) rollback(wrong, p uint64) {
	e := r.e
	start := time.Now()
	smooth := r.cfg.Smoothing.HalfLife > 0 && e.interp.Enabled
	if smooth {
		r.before = append(r.before[:0], e.World.cur.Pos...)
		r.beforeGen = append(r.beforeGen[:0], e.World.gen...)
	}
	e.LoadState(&r.slot(wrong - 1).state)
	r.resim = true
	defer func() { r.resim = false }()
	for k := wrong; k <= p; k++ {
		if !e.StepTick(TickTime(k, e.Loop.TickRate())) {
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

// TickReady implements TickGate: a tick runs when it is at most
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

// OwnsPlayers implements PlayerOwner.
func (r *Rollback) OwnsPlayers() bool { return true }

// PreTick implements TickHook.
func (r *Rollback) PreTick() {}

// BeginTick implements TickHook: a confirmed tick gets its confirmed
// players; a predicted one keeps the players of the tick before, with the
// local player's own input when the source knows it.
func (r *Rollback) BeginTick(t *TickInfo) {
	if r.stalled && !r.resim {
		r.stalled = false
		r.stats.StallTime += time.Since(r.stallStart)
	}
	t.Resimulated = r.resim
	slot := r.slot(t.Tick)
	if t.Tick <= r.c && slot.confirmed && slot.tick == t.Tick {
		applyPlayers(t.Players, &slot.players)
		return
	}
	t.Predicted = true
	if !r.resim {
		r.stats.Predicted++
	}
	if id, in, ok := r.src.Local(t.Tick); ok && t.Players.Has(id) {
		_ = t.Players.SetInput(id, in) // id is in the match
	}
}

// applyPlayers makes the tick's players p (the previous tick's) those of
// want: who left and joined, and every input.
func applyPlayers(p, want *Players) {
	for _, id := range want.left {
		_ = p.Leave(id) // it was in the match: the source checked
	}
	for _, id := range want.joined {
		_ = p.Join(id)
	}
	for i, id := range want.ids {
		_ = p.SetInput(id, want.inputs[i])
	}
}

// JobApplied implements TickHook.
func (r *Rollback) JobApplied(uint64, JobID, []byte) {}

// EndTick implements TickHook: it saves the tick's state, hash and
// players, and reports the tick when it was confirmed.
func (r *Rollback) EndTick(tick uint64, w *World) {
	slot := r.slot(tick)
	confirmed := tick <= r.c && slot.confirmed && slot.tick == tick
	slot.tick = tick
	r.e.SaveState(&slot.state)
	slot.hash = 0
	if r.cfg.HashEvery <= 1 || tick%r.cfg.HashEvery == 0 {
		slot.hash = w.Hash()
	}
	if !confirmed {
		copyPlayers(&slot.players, &w.players)
		copyInto(&slot.players.joined, w.players.joined)
		copyInto(&slot.players.left, w.players.left)
		slot.confirmed = false
		return
	}
	if tick == r.s+1 {
		r.s = tick
		r.confirm(slot)
	}
}

// samePlayers reports whether a and b have the same players, inputs,
// joins and leaves.
func samePlayers(a, b *Players) bool {
	return slices.Equal(a.ids, b.ids) && slices.Equal(a.inputs, b.inputs) &&
		slices.Equal(a.joined, b.joined) && slices.Equal(a.left, b.left)
}

// ease turns what a rollback moved into offsets to draw: the current
// position before the rollback minus the one after, for every entity that
// lived through it and was not teleported.
func (r *Rollback) ease() {
	w := r.e.World
	n := len(w.gen)
	if len(r.offset) < n {
		r.offset = slices.Grow(r.offset, n-len(r.offset))[:n]
		r.offGen = slices.Grow(r.offGen, n-len(r.offGen))[:n]
	}
	limit := r.cfg.Smoothing.MaxDistance
	if limit == 0 {
		limit = r.e.interp.SnapDistance
	}
	limit2 := limit * limit
	if limit == 0 {
		limit2 = float32(math.Inf(1))
	}
	m := min(n, len(r.before))
	for i := range m {
		g := w.gen[i]
		if g&1 == 0 || r.beforeGen[i] != g {
			continue
		}
		d := r.before[i].Sub(w.cur.Pos[i])
		if d == (mgl32.Vec3{}) {
			continue
		}
		if r.offGen[i] != g {
			r.offset[i], r.offGen[i] = mgl32.Vec3{}, g
		}
		was := r.offset[i] != (mgl32.Vec3{})
		o := r.offset[i].Add(d)
		if w.snap[i] || o.Dot(o) > limit2 {
			o = mgl32.Vec3{}
			r.stats.Snapped++
		} else {
			r.stats.Smoothed++
		}
		r.offset[i] = o
		switch now := o != (mgl32.Vec3{}); {
		case now && !was:
			r.active++
		case !now && was:
			r.active--
		}
	}
}

// CorrectRender implements RenderCorrector: it adds the eased corrections
// to the frame's instances and decays them by the frame's time.
func (r *Rollback) CorrectRender(dt float64, dst *RenderBuffer) {
	if r.active == 0 {
		return
	}
	w := r.e.World
	hl := r.cfg.Smoothing.HalfLife.Seconds()
	keep := float32(1)
	if hl > 0 {
		keep = float32(math.Exp2(-dt / hl))
	}
	// Every live entity is drawn, so the offsets still to draw are those
	// counted here; an entity despawned meanwhile drops out.
	active := 0
	for k, ent := range dst.Entities {
		i := int(ent.index)
		if i >= len(r.offset) || r.offGen[i] != ent.gen || r.offset[i] == (mgl32.Vec3{}) {
			continue
		}
		o := r.offset[i]
		if w.snap[i] { // teleported since: snap
			o = mgl32.Vec3{}
		}
		dst.Instances[k].Pos = dst.Instances[k].Pos.Add(o)
		o = o.Mul(keep)
		if o.Dot(o) < 1e-8 {
			o = mgl32.Vec3{}
		}
		r.offset[i] = o
		if o != (mgl32.Vec3{}) {
			active++
		}
	}
	r.active = active
}
