package ragdoll

import (
	"errors"
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/anim"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/render"
)

// Phase is where a character is between its animation and its ragdoll.
type Phase uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Phase -linecomment -output=phase_string.go

// The phases of a character.
const (
	// Animated: its animation poses it; with hitboxes, kinematic bodies
	// follow the pose.
	Animated Phase = iota // animated
	// Falling: its bodies are dynamic and jointed, and its skin follows
	// them.
	Falling // falling
	// Blending: it blends from the pose its ragdoll had when it stood up
	// back to its animation.
	Blending // blending
)

// Ragdoll is a character's ragdoll state, the value of the "ragdoll"
// component: plain data, so snapshots, the state hash, replays and
// rollback carry it. Change it through Ragdolls' methods.
type Ragdoll struct {
	// Phase is where the character is.
	Phase Phase
	_     [3]uint8
	// Ticks counts the ticks since the phase began (Update adds one a
	// tick while Falling or Blending).
	Ticks uint32
	// BlendTicks is the length of the blend back to the animation.
	BlendTicks uint32
	// Count is the number of bodies (the Def's parts).
	Count uint32
	// Bodies are the bodies' entities, in the Def's part order: zero
	// while the character has none (Animated without hitboxes).
	Bodies [MaxParts]engine.Entity
	// Joints are the joints' entities while Falling (Joints[i] joins
	// Bodies[i] to its parent's; zero for the root).
	Joints [MaxParts]engine.Entity
	// From is the pose the ragdoll had when it stood up: each body's
	// frame in the character's, in model units.
	From [MaxParts]PartPose
}

// PartPose is a body's place in its character's frame, in model units.
type PartPose struct {
	Pos mgl32.Vec3 // the position
	Rot mgl32.Quat // the rotation
}

// PartOf is the value of the "ragdoll part" component of the entities a
// ragdoll owns: its bodies (Index i for Bodies[i]) and joints (Index
// MaxParts+i for Joints[i]).
type PartOf struct {
	Owner engine.Entity // the character
	Index uint32        // which of its bodies or joints
}

// The names the components are registered under.
const (
	ComponentName     = "ragdoll"
	PartComponentName = "ragdoll part"
)

// Options are how a character's bodies are made. Start from
// DefaultOptions.
type Options struct {
	// Density is the bodies' density, kg/m³ (1000: a body of water).
	Density float32
	// Friction and the dampings are every body's (0.6, 0.05, 0.5).
	Friction, LinearDamping, AngularDamping float32
	// Layer and Mask are the bodies' collision layers (1, all).
	Layer, Mask uint32
	// Hitboxes keeps the bodies while the character is animated, as
	// kinematic bodies that follow its pose (so shots hit it and it
	// pushes what it walks into); without, the bodies exist only while
	// it is Falling.
	Hitboxes bool
}

// DefaultOptions returns the default options: no hitboxes.
func DefaultOptions() Options {
	return Options{Density: 1000, Friction: 0.6, LinearDamping: 0.05, AngularDamping: 0.5, Layer: 1, Mask: ^uint32(0)}
}

// Ragdolls switches characters between their animation and their
// ragdoll. It owns the "ragdoll" and "ragdoll part" components; which Def
// each mesh id has (SetDef) is set-up, not state. Like the World it is not
// safe for concurrent use.
type Ragdolls struct {
	space *physics.Space
	anims *anim.Animations
	w     *engine.World
	comp  *engine.Component[Ragdoll]
	parts *engine.Component[PartOf]
	defs  []rigDef // by MeshID

	// Scratch, never state.
	sc      poser
	cur     [MaxParts]geom.Transform
	prev    [MaxParts]geom.Transform
	orphans []engine.Entity
}

type rigDef struct {
	d *Def
	o Options
}

// New registers the "ragdoll" and "ragdoll part" components with the
// space's world and returns the switcher. anims is the world's animation
// player: a character's pose is its animator's (Clip, Time, Loop). Call it
// where the world's components are registered, in the same order in every
// run.
func New(space *physics.Space, anims *anim.Animations) *Ragdolls {
	w := space.World()
	return &Ragdolls{
		space: space, anims: anims, w: w,
		comp:  engine.NewComponent[Ragdoll](w, ComponentName),
		parts: engine.NewComponent[PartOf](w, PartComponentName),
	}
}

// Component returns the "ragdoll" component.
func (r *Ragdolls) Component() *engine.Component[Ragdoll] { return r.comp }

// Parts returns the "ragdoll part" component: which character a body or
// joint belongs to.
func (r *Ragdolls) Parts() *engine.Component[PartOf] { return r.parts }

// SetDef makes the characters drawn with mesh id use the ragdoll d, its
// bodies made with o. Call it at set-up, the same way in every run. It
// returns an error when o is out of range (a density that is not
// positive, a negative friction or damping).
func (r *Ragdolls) SetDef(id render.MeshID, d *Def, o Options) error {
	switch {
	case d == nil || len(d.Parts) == 0:
		return fmt.Errorf("ragdoll: SetDef(%d): no ragdoll", id)
	case !(o.Density > 0) || !(o.Friction >= 0) || !(o.LinearDamping >= 0) || !(o.AngularDamping >= 0):
		return fmt.Errorf("ragdoll: SetDef(%d): want a positive density and friction and dampings not below 0, got %+v", id, o)
	}
	if int(id) >= len(r.defs) {
		r.defs = append(r.defs, make([]rigDef, int(id)+1-len(r.defs))...)
	}
	r.defs[id] = rigDef{d, o}
	return nil
}

// Def returns the ragdoll of mesh id and its options, or nil.
func (r *Ragdolls) Def(id render.MeshID) (*Def, Options) {
	if int(id) < len(r.defs) {
		return r.defs[id].d, r.defs[id].o
	}
	return nil, Options{}
}

// character returns e's ragdoll state and Def, or an error for call.
func (r *Ragdolls) character(call string, e engine.Entity) (*Ragdoll, rigDef, error) {
	rd := r.comp.Ptr(e)
	if rd == nil {
		return nil, rigDef{}, fmt.Errorf("ragdoll: %s(%v): the entity has no ragdoll (Add)", call, e)
	}
	d, o := r.Def(r.w.Mesh(e))
	if d == nil || int(rd.Count) != len(d.Parts) {
		return nil, rigDef{}, fmt.Errorf("ragdoll: %s(%v): the entity's mesh %d has no ragdoll of %d bodies (SetDef)", call, e, r.w.Mesh(e), rd.Count)
	}
	return rd, rigDef{d, o}, nil
}

// Add gives the live root entity e, drawn with a mesh that has a ragdoll
// (SetDef) at a uniform scale, the "ragdoll" component, Animated; with
// Options.Hitboxes it spawns its kinematic bodies at its pose. Call it in
// fixed code or at set-up.
func (r *Ragdolls) Add(e engine.Entity) error {
	w := r.w
	switch {
	case !w.Alive(e):
		return fmt.Errorf("ragdoll: Add(%v): the entity is not alive", e)
	case r.comp.Has(e):
		return fmt.Errorf("ragdoll: Add(%v): the entity has a ragdoll already", e)
	}
	if _, ok := w.Parent(e); ok {
		return fmt.Errorf("ragdoll: Add(%v): the entity has a parent; a character with a ragdoll is a root entity", e)
	}
	d, o := r.Def(w.Mesh(e))
	if d == nil {
		return fmt.Errorf("ragdoll: Add(%v): the entity's mesh %d has no ragdoll (SetDef)", e, w.Mesh(e))
	}
	if s := w.Transform(e).Scale; !(s[0] > 0) || s[1] != s[0] || s[2] != s[0] {
		return fmt.Errorf("ragdoll: Add(%v): the scale %v is not uniform and positive", e, s)
	}
	r.comp.Set(e, Ragdoll{Phase: Animated, Count: uint32(len(d.Parts))})
	if !o.Hitboxes {
		return nil
	}
	// Spawning grows the world's slots and with them the component's
	// storage: work on a copy, set at the end.
	rd, _ := r.comp.Get(e)
	r.pose(d, &rd, e, r.cur[:len(d.Parts)], false)
	for i := range d.Parts {
		b, err := r.spawnBody(e, d, o, i, physics.Kinematic, r.cur[i], mgl32.Vec3{}, mgl32.Vec3{})
		if err != nil {
			r.comp.Set(e, rd)
			r.Remove(e)
			return fmt.Errorf("ragdoll: Add(%v): %w", e, err)
		}
		rd.Bodies[i] = b
	}
	r.comp.Set(e, rd)
	return nil
}

// spawnBody spawns part i's body of kind k at t (a world transform whose
// scale is the character's) with velocities v and av.
//
//srccheck:wrapped by Add and Start, as "ragdoll: Add(<entity>): ..."
func (r *Ragdolls) spawnBody(owner engine.Entity, d *Def, o Options, i int, k physics.Kind, t geom.Transform, v, av mgl32.Vec3) (engine.Entity, error) {
	w := r.w
	b := w.Spawn(geom.Transform{Pos: t.Pos, Rot: t.Rot, Scale: mgl32.Vec3{1, 1, 1}}, engine.Interpolate)
	w.SetMesh(b, render.MeshNone) // a pivot: the skin is drawn, not the body
	w.SetDrawVelocity(b, v, av)
	def := physics.NewBodyDef(k, scaledShape(d.Parts[i].Shape, t.Scale[0]))
	def.Density, def.Friction = o.Density, o.Friction
	def.LinearDamping, def.AngularDamping = o.LinearDamping, o.AngularDamping
	def.Layer, def.Mask = o.Layer, o.Mask
	if err := r.space.AddBody(b, def); err != nil {
		w.Despawn(b)
		return engine.Entity{}, err
	}
	r.parts.Set(b, PartOf{Owner: owner, Index: uint32(i)})
	return b, nil
}

// scaledShape returns sh, in model units, at scale s.
func scaledShape(sh physics.Shape, s float32) physics.Shape {
	sh.Radius = float32(sh.Radius * s)
	sh.HalfHeight = float32(sh.HalfHeight * s)
	sh.HalfExtents = scale(sh.HalfExtents, s)
	return sh
}

// Remove takes e's ragdoll away: it despawns its bodies and joints and
// removes the component. It reports whether e had one.
func (r *Ragdolls) Remove(e engine.Entity) bool {
	rd, ok := r.comp.Get(e)
	if !ok {
		return false
	}
	for i := range rd.Count {
		r.w.Despawn(rd.Joints[i])
		r.w.Despawn(rd.Bodies[i])
	}
	return r.comp.Remove(e)
}

// Phase returns e's phase, and whether e has a ragdoll.
func (r *Ragdolls) Phase(e engine.Entity) (Phase, bool) {
	rd, ok := r.comp.Get(e)
	return rd.Phase, ok
}

// Owner returns the character whose body or joint e is, and which of its
// bodies (or, from MaxParts on, joints); ok is false when e is none.
func (r *Ragdolls) Owner(e engine.Entity) (owner engine.Entity, index int, ok bool) {
	p, ok := r.parts.Get(e)
	if !ok || !r.comp.Has(p.Owner) {
		return engine.Entity{}, 0, false
	}
	return p.Owner, int(p.Index), true
}

// Start makes e fall as a ragdoll from the pose its animation has at the
// end of this tick: each body at its bone's world transform, with the
// bone's velocity (linear and angular) between the end of the previous
// tick and this one's (the animator's previous and current clip times,
// the entity's previous and current transforms), so the ragdoll takes
// over where the animation left off. A character that was blending back
// falls from its blended pose. Bodies that exist (hitboxes) are made
// dynamic and moved; others are spawned. Call it in fixed code, after
// the animation's Advance (and after anything that moves e this tick). It
// returns an error when e has no ragdoll, is Falling already, or a body
// or joint is refused.
func (r *Ragdolls) Start(e engine.Entity) error {
	ptr, rg, err := r.character("Start", e)
	if err != nil {
		return err
	}
	// Spawning grows the component's storage: work on a copy, set at the
	// end (and on an error, so that what was spawned is the character's).
	rd := new(Ragdoll)
	*rd = *ptr
	defer func() { r.comp.Set(e, *rd) }()
	if rd.Phase == Falling {
		return fmt.Errorf("ragdoll: Start(%v): the character is falling already", e)
	}
	d, o := rg.d, rg.o
	n := len(d.Parts)
	cur, prev := r.cur[:n], r.prev[:n]
	r.pose(d, rd, e, cur, false)
	r.pose(d, rd, e, prev, true)
	rate := float32(r.space.Config().TickRate)
	dt := 1 / rate
	for i := range d.Parts {
		v := scale(sub(cur[i].Pos, prev[i].Pos), rate)
		av := angularVelocity(prev[i].Rot, cur[i].Rot, dt)
		b := rd.Bodies[i]
		if r.space.Bodies().Has(b) {
			err = errors.Join(
				r.space.SetKind(b, physics.Dynamic, o.Density),
				r.space.Teleport(b, cur[i].Pos, cur[i].Rot),
				r.space.SetVelocity(b, v, av))
		} else {
			rd.Bodies[i], err = r.spawnBody(e, d, o, i, physics.Dynamic, cur[i], v, av)
		}
		if err != nil {
			return fmt.Errorf("ragdoll: Start(%v): body %d (%s): %w", e, i, d.Parts[i].Name, err)
		}
	}
	s := cur[0].Scale[0]
	for i := 1; i < n; i++ {
		p := &d.Parts[i]
		jd := p.Joint
		jd.A, jd.B = rd.Bodies[p.Parent], rd.Bodies[i]
		jd.AnchorA, jd.AnchorB = scale(jd.AnchorA, s), scale(jd.AnchorB, s)
		j := r.w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.NoInterpolation)
		r.w.SetMesh(j, render.MeshNone) // a pivot: not drawn
		if err := r.space.AddJoint(j, jd); err != nil {
			r.w.Despawn(j)
			return fmt.Errorf("ragdoll: Start(%v): joint %d (%s): %w", e, i, p.Name, err)
		}
		r.parts.Set(j, PartOf{Owner: e, Index: uint32(MaxParts + i)})
		rd.Joints[i] = j
	}
	rd.Phase, rd.Ticks, rd.BlendTicks = Falling, 0, 0
	return nil
}

// StandUp starts e's blend from its ragdoll back to its animation, over
// ticks ticks (at least 1): the pose its bodies have now, seen from e's
// transform now, is kept (Ragdoll.From) and blended towards the
// animation's pose, bone by bone, over the ticks that follow. Move e
// where it should stand before calling StandUp (under its root body, say:
// Ragdoll.Bodies[0]). Its joints are despawned; its bodies too, or, with
// hitboxes, made kinematic again, following the blended pose. It returns
// an error when e has no ragdoll or is not Falling.
func (r *Ragdolls) StandUp(e engine.Entity, ticks uint32) error {
	rd, rg, err := r.character("StandUp", e)
	if err != nil {
		return err
	}
	switch {
	case rd.Phase != Falling:
		return fmt.Errorf("ragdoll: StandUp(%v): the character is %v, not falling", e, rd.Phase)
	case ticks == 0:
		return fmt.Errorf("ragdoll: StandUp(%v, 0): the blend takes at least one tick", e)
	}
	w := r.w
	et := w.Transform(e)
	for i := range rd.Count {
		bt := w.Transform(rd.Bodies[i])
		m := et.Relative(geom.Transform{Pos: bt.Pos, Rot: bt.Rot, Scale: et.Scale})
		rd.From[i] = PartPose{Pos: m.Pos, Rot: m.Rot}
		w.Despawn(rd.Joints[i])
		rd.Joints[i] = engine.Entity{}
		if rg.o.Hitboxes {
			err = errors.Join(
				r.space.SetKind(rd.Bodies[i], physics.Kinematic, rg.o.Density),
				r.space.SetVelocity(rd.Bodies[i], mgl32.Vec3{}, mgl32.Vec3{}))
			if err != nil {
				return fmt.Errorf("ragdoll: StandUp(%v): %w", e, err)
			}
		} else {
			w.Despawn(rd.Bodies[i])
			rd.Bodies[i] = engine.Entity{}
		}
	}
	rd.Phase, rd.Ticks, rd.BlendTicks = Blending, 0, ticks
	return nil
}

// Update is the fixed system that moves the characters on by a tick: it
// counts the ticks of the Falling and Blending phases, ends a blend after
// its last tick (the character is Animated again), moves the hitboxes of
// Animated and Blending characters to their pose at the end of this tick
// (MoveKinematic: the physics step takes them there, pushing what is in
// the way), and despawns the bodies and joints of characters that are
// gone. Add it after the animation's Advance and before the physics step
// (a stage before engine.StagePhysics).
func (r *Ragdolls) Update(c *engine.FixedContext) {
	if c.World != r.w {
		panic("ragdoll: Update: the tick's world is not the one New registered the ragdolls with")
	}
	r.collect()
	vals, _ := r.comp.Slices()
	for _, i := range r.comp.Indices() {
		rd := &vals[i]
		e, _ := r.w.EntityAt(int(i))
		if rd.Phase != Animated && rd.Ticks < ^uint32(0) {
			rd.Ticks++
		}
		if rd.Phase == Blending && rd.Ticks > rd.BlendTicks {
			rd.Phase, rd.Ticks, rd.BlendTicks = Animated, 0, 0
		}
		d, o := r.Def(r.w.Mesh(e))
		if rd.Phase == Falling || !o.Hitboxes || d == nil || int(rd.Count) != len(d.Parts) {
			continue
		}
		cur := r.cur[:len(d.Parts)]
		r.pose(d, rd, e, cur, false)
		for k := range d.Parts {
			if r.space.Bodies().Has(rd.Bodies[k]) {
				// The pose is finite and the body kinematic: no error.
				_ = r.space.MoveKinematic(rd.Bodies[k], cur[k].Pos, cur[k].Rot)
			}
		}
	}
}

// collect despawns the bodies and joints whose character is gone or no
// longer lists them.
func (r *Ragdolls) collect() {
	r.orphans = r.orphans[:0]
	vals, _ := r.parts.Slices()
	for _, i := range r.parts.Indices() {
		e, _ := r.w.EntityAt(int(i))
		p := vals[i]
		rd := r.comp.Ptr(p.Owner)
		switch {
		case rd == nil:
		case p.Index < MaxParts && rd.Bodies[p.Index] == e:
			continue
		case p.Index >= MaxParts && p.Index < 2*MaxParts && rd.Joints[p.Index-MaxParts] == e:
			continue
		}
		r.orphans = append(r.orphans, e)
	}
	for _, e := range r.orphans {
		r.w.Despawn(e)
	}
}
