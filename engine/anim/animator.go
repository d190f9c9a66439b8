package anim

import (
	"github.com/nebulaengine/nebula/engine/render"

	"fmt"
	"math"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/model"
)

// Animator is one entity's animation player, the value of the "animator"
// component: simulated state, so the world's hash, snapshots, replays and
// rollback cover it. It holds the clip and its time at the end of the
// current tick and at the end of the previous one; a frame draws the pose
// between the two. Change it through Play and Stop; Advance moves it on.
//
// The layout is 24 bytes without padding (hashed and copied as one
// block).
type Animator struct {
	// Clip is the index of the clip in the model's Clips, or NoClip for
	// the rest pose.
	Clip uint16
	// Loop makes the clip wrap at its end; otherwise it holds its last
	// keys.
	Loop bool
	// PrevLoop is Loop at the end of the previous tick.
	PrevLoop bool
	// PrevClip is Clip at the end of the previous tick.
	PrevClip uint16
	// _ keeps Time at offset 8 with no padding before it.
	_ [2]uint8
	// Time is how long the clip has played at the end of the current
	// tick, in nanoseconds, counted from Play (or Stop) in whole ticks.
	Time uint64
	// PrevTime is Time at the end of the previous tick.
	PrevTime uint64
}

// NoClip is Animator.Clip for the rest pose: no clip playing.
const NoClip = 0xFFFF

// ComponentName is the name the animator component is registered under.
const ComponentName = "animator"

// Animations plays models' clips on entities: it owns the "animator"
// component, knows which model each mesh id animates, advances the
// animators in the tick (Advance) and writes each frame's poses into
// the render buffer (Pose). Like the World, it is not safe for concurrent
// use.
type Animations struct {
	w    *engine.World
	comp *engine.Component[Animator]
	rigs []*rig // by MeshID; nil: no model

	// Render-side derived data, never read by fixed code: the sampled
	// poses per slot, and scratch for a frame.
	cache   []slotCache
	globals []render.Bone // its nodes' global transforms
	samples uint64        // clip samples taken, for tests
}

// New registers the "animator" component with w and returns the player.
// Call it where the world's other components are registered, in the same
// order in every run (the schema of snapshots and replays includes it).
func New(w *engine.World) *Animations {
	return &Animations{w: w, comp: engine.NewComponent[Animator](w, ComponentName)}
}

// Component returns the animator component, for reading animators in
// fixed code or in a state dump.
func (a *Animations) Component() *engine.Component[Animator] { return a.comp }

// SetModel makes entities drawn with mesh id (World.SetMesh) play m's
// clips; nil forgets the model of id (its entities are then skipped). It
// panics, with Check's message, when m is not a model anim can play.
// SetModel is set-up, not simulation: the model is not part of the world's
// state, so call it the same way in every run (before the first tick).
// Animations keeps m and what it derives from it: do not change m
// afterwards (call SetModel again with the changed model).
func (a *Animations) SetModel(id render.MeshID, m *model.Model) {
	if m == nil {
		if int(id) < len(a.rigs) {
			a.rigs[id] = nil
		}
		return
	}
	if err := Check(m); err != nil {
		panic(err.Error())
	}
	if int(id) >= len(a.rigs) {
		a.rigs = append(a.rigs, make([]*rig, int(id)+1-len(a.rigs))...)
	}
	r := newRig(m)
	a.rigs[id] = r
	if n := len(m.Nodes); n > len(a.globals) {
		a.globals = make([]render.Bone, n)
	}
}

// Model returns the model of mesh id, or nil.
func (a *Animations) Model(id render.MeshID) *model.Model {
	if r := a.rig(id); r != nil {
		return r.m
	}
	return nil
}

func (a *Animations) rig(id render.MeshID) *rig {
	if int(id) < len(a.rigs) {
		return a.rigs[id]
	}
	return nil
}

// Play starts clip on e from time 0, looping or not, replacing what e
// played; it gives e the animator component when it has none (with the
// previous tick's state the same, so that a new entity is not drawn
// coming from its rest pose). Call it in fixed code or at set-up, never
// in Update or Render systems (that would change simulated state outside
// a tick). A dead or stale e is left alone. Play panics when clip is
// negative or NoClip or above, or when e's mesh has a model without that
// clip.
func (a *Animations) Play(e engine.Entity, clip int, loop bool) {
	if clip < 0 || clip >= NoClip {
		panic(fmt.Sprintf("anim: Play(%v, %d): clip out of range (Stop plays the rest pose)", e, clip))
	}
	if r := a.rig(a.w.Mesh(e)); r != nil && a.w.Alive(e) && clip >= len(r.m.Clips) {
		panic(fmt.Sprintf("anim: Play(%v, %d): model %q has %d clips", e, clip, r.m.Name, len(r.m.Clips)))
	}
	a.set(e, uint16(clip), loop)
}

// Stop puts e back in its rest pose (Clip NoClip, Time 0); from the next
// frame it is drawn moving there over the tick like any other change. Like
// Play, it gives e the component when it has none, and leaves a dead e
// alone.
func (a *Animations) Stop(e engine.Entity) { a.set(e, NoClip, false) }

func (a *Animations) set(e engine.Entity, clip uint16, loop bool) {
	v := a.comp.Ptr(e)
	if v == nil {
		a.comp.Set(e, Animator{Clip: clip, Loop: loop, PrevClip: clip, PrevLoop: loop})
		return
	}
	v.Clip, v.Loop, v.Time = clip, loop, 0
}

// Advance is the fixed system that moves every animator on by one tick:
// the current state becomes the previous one (PrevClip, PrevLoop,
// PrevTime), then Time grows by the tick's duration. The duration is
// c.DT in whole nanoseconds, math.Round(float64(c.DT)*1e9): 16,666,668
// ns at 60 Hz (DT is float32(1/60)), the same integer on every build, so
// clip time is exact integer arithmetic from there on (at 60 Hz it runs 80
// ns a second ahead of the ticks' 1/60 s, 4.8 µs a minute). Time stops at the largest uint64 instead of
// wrapping, after 584 years.
//
// Add it first, to engine.StageScripts, the first stage with systems
// that may call Play (e.AddSystem(engine.StageScripts, "anim", a.Advance)
// before the game's systems): then a system that calls Play or Stop later in the tick
// starts the clip at this tick, with the previous tick's state kept as the
// previous state, so the frames after it are drawn from the old pose to
// the new one. Added after such a system, Advance would move the new clip
// on by one tick at once and lose the old pose.
func (a *Animations) Advance(c *engine.FixedContext) {
	if c.World != a.w {
		panic("anim: Advance: the tick's world is not the one New registered the animators with")
	}
	ns := uint64(math.Round(float64(c.DT) * 1e9))
	vals, _ := a.comp.Slices()
	for _, i := range a.comp.Indices() {
		v := &vals[i]
		v.PrevClip, v.PrevLoop, v.PrevTime = v.Clip, v.Loop, v.Time
		if v.Time > math.MaxUint64-ns {
			v.Time = math.MaxUint64
		} else {
			v.Time += ns
		}
	}
}
