package engine

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"

	"encoding/binary"
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/zeebo/xxh3"

	"github.com/nebulaengine/nebula/internal/binread"
)

// Entity names one entity of a World. It pairs a slot index with the
// slot's generation, so an Entity kept after its entity was despawned never
// reaches whatever is spawned into the slot later: the World reports it as
// not alive. The zero Entity is never alive.
type Entity struct {
	index uint32
	gen   uint32
}

// Index returns the entity's slot, the index of its data in the world's
// arrays (see Bodies).
func (e Entity) Index() int { return int(e.index) }

// String formats the entity as index:generation.
func (e Entity) String() string { return fmt.Sprintf("%d:%d", e.index, e.gen) }

// DrawMode says how the renderer places an entity between two ticks. Its
// String is the mode's name: "interpolate", "hermite" or "none".
type DrawMode uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=DrawMode -linecomment

const (
	// Interpolate draws the entity between its previous and current
	// transform: position and scale lerp, rotation slerps.
	Interpolate DrawMode = iota // interpolate
	// Hermite draws the position on the cubic Hermite curve through the
	// previous and current positions with the velocities at both ends;
	// smoother for fast curving motion. Rotation and scale as Interpolate.
	Hermite // hermite
	// NoInterpolation draws the current transform: for UI-like, particle-
	// like or discrete things that must never appear between two states.
	NoInterpolation // none
)

// Bodies holds the simulated state of every slot, struct-of-arrays: index i
// of each slice belongs to the entity in slot i (Entity.Index). Positions,
// rotations and scales are local to the entity's parent when it has one
// (World.SetParent); World.WorldTransform and World.WorldPositions give
// them in world space. Slots whose
// entity was despawned keep stale data; World.SlotAlive tells them apart.
// Fixed systems read and write the current state here; the previous state,
// which interpolation needs, is kept by the World and saved before every
// tick.
type Bodies struct {
	Pos    []mgl32.Vec3    // position
	Rot    []mgl32.Quat    // rotation, a unit quaternion
	Scale  []mgl32.Vec3    // scale along each axis
	Vel    []mgl32.Vec3    // linear velocity, units per second
	AngVel []mgl32.Vec3    // angular velocity, radians per second about each axis
	Mode   []DrawMode      // how the renderer places the entity between ticks
	Color  [][4]uint8      // RGBA, for the renderer
	Mesh   []render.MeshID // what the renderer draws for the entity
	// MeshScale sizes the mesh, along each of its axes, on top of the
	// transform's scale: it is drawn only, never inherited by children
	// nor interpolated (see World.SetMeshScale). One when spawned.
	MeshScale []mgl32.Vec3
	// Emissive is the light the entity's surface gives off, RGB, added to
	// its lit colour (World.SetEmissive). Black when spawned.
	Emissive [][3]uint8
	// Hidden hides the entity and its descendants: none of them is drawn
	// (World.SetVisible). False when spawned.
	Hidden []bool
}

// World holds the entities of a game and their state. Its fixed-step state
// (entity table, bodies, RNG, tick) is exactly what the state hash covers.
// A World is not safe for concurrent use.
type World struct {
	gen   []uint32 // generation of each slot; odd = alive
	free  []uint32 // free slots, reused last-in first-out
	count int

	cur  Bodies
	prev struct {
		Pos   []mgl32.Vec3
		Rot   []mgl32.Quat
		Scale []mgl32.Vec3
		Vel   []mgl32.Vec3 // for Hermite interpolation
	}
	snap []bool // teleported during the current tick: draw without interpolation

	// hier is the transform hierarchy: parents, children and world
	// transforms (hierarchy.go).
	hier hierarchy

	rng  RNG
	tick uint64

	// players is who plays at the current tick (see Players); its
	// membership is simulated state.
	players Players

	// The game's components and resources, in registration order, and
	// their schema.
	cols        []column
	schema      Schema
	fingerprint uint64 // schema.Fingerprint()

	hasher  xxh3.Hasher // Hash's, reused
	scratch []byte      // Hash's buffer for values encoded before hashing

	hiddenScratch []bool // hiddenInTree's, reused

	// epoch counts the ticks begun and the states restored or loaded: a
	// renderer that keeps the last tick's instances (InterpolateOnGPU)
	// makes them again when it changes.
	epoch uint64
}

// NewWorld returns an empty world whose RNG is seeded with seed.
func NewWorld(seed uint64) *World {
	return &World{rng: NewRNG(seed), fingerprint: Schema(nil).Fingerprint(), players: Players{locked: true}}
}

// Players returns who plays at the current tick: the players in the match
// with their inputs, and who joined and left at the tick. Update and Render
// systems may read it (a scoreboard); fixed systems get it as
// FixedContext.Players; a tick hook changes it in BeginTick, and at no
// other time.
func (w *World) Players() *Players { return &w.players }

// Tick returns the number of the last tick the world has begun (0 before the
// first).
func (w *World) Tick() uint64 { return w.tick }

// RNG returns the world's seeded random number generator.
func (w *World) RNG() *RNG { return &w.rng }

// Len returns the number of live entities.
func (w *World) Len() int { return w.count }

// Slots returns the number of slots, live or not: the length of the Bodies
// slices.
func (w *World) Slots() int { return len(w.gen) }

// SlotAlive reports whether slot i holds a live entity.
func (w *World) SlotAlive(i int) bool { return w.gen[i]&1 == 1 }

// EntityAt returns the entity in slot i, and whether it is alive.
func (w *World) EntityAt(i int) (Entity, bool) {
	return Entity{index: uint32(i), gen: w.gen[i]}, w.SlotAlive(i)
}

// Bodies returns the current state of every slot, for systems that work on
// all entities at once. The slices are valid until the next Spawn.
func (w *World) Bodies() *Bodies {
	w.hier.taken = true // it may be written: the tick's end propagates again (endTick)
	return &w.cur
}

// Alive reports whether e names a live entity.
func (w *World) Alive(e Entity) bool {
	return int(e.index) < len(w.gen) && w.gen[e.index] == e.gen && e.gen&1 == 1
}

// Spawn adds an entity with transform t, drawn with mode, at rest, and
// returns it. Its previous state is t too, so it never swoops in from
// wherever its slot's last occupant was, and it has no components. Spawning
// during a tick is fine.
func (w *World) Spawn(t geom.Transform, mode DrawMode) Entity {
	var i uint32
	if n := len(w.free); n > 0 {
		i = w.free[n-1]
		w.free = w.free[:n-1]
		w.gen[i]++ // even (dead) -> odd (alive)
	} else {
		i = uint32(len(w.gen))
		w.gen = append(w.gen, 1)
		w.cur.Pos = append(w.cur.Pos, mgl32.Vec3{})
		w.cur.Rot = append(w.cur.Rot, mgl32.Quat{})
		w.cur.Scale = append(w.cur.Scale, mgl32.Vec3{})
		w.cur.Vel = append(w.cur.Vel, mgl32.Vec3{})
		w.cur.AngVel = append(w.cur.AngVel, mgl32.Vec3{})
		w.cur.Mode = append(w.cur.Mode, 0)
		w.cur.Color = append(w.cur.Color, [4]uint8{})
		w.cur.Mesh = append(w.cur.Mesh, 0)
		w.cur.MeshScale = append(w.cur.MeshScale, unitScale)
		w.cur.Emissive = append(w.cur.Emissive, [3]uint8{})
		w.cur.Hidden = append(w.cur.Hidden, false)
		w.prev.Pos = append(w.prev.Pos, mgl32.Vec3{})
		w.prev.Rot = append(w.prev.Rot, mgl32.Quat{})
		w.prev.Scale = append(w.prev.Scale, mgl32.Vec3{})
		w.prev.Vel = append(w.prev.Vel, mgl32.Vec3{})
		w.snap = append(w.snap, false)
		w.hier.grow()
		for _, c := range w.cols {
			c.grow()
		}
	}
	w.count++
	w.cur.Pos[i], w.cur.Rot[i], w.cur.Scale[i] = t.Pos, t.Rot, t.Scale
	w.prev.Pos[i], w.prev.Rot[i], w.prev.Scale[i] = t.Pos, t.Rot, t.Scale
	w.cur.Vel[i], w.cur.AngVel[i] = mgl32.Vec3{}, mgl32.Vec3{}
	w.prev.Vel[i] = mgl32.Vec3{}
	w.cur.Mode[i] = mode
	w.cur.Color[i] = [4]uint8{255, 255, 255, 255}
	w.cur.Mesh[i] = render.MeshCube
	w.cur.MeshScale[i] = unitScale
	w.cur.Emissive[i] = [3]uint8{}
	w.cur.Hidden[i] = false
	w.snap[i] = false
	w.hier.spawned(int(i), t)
	return Entity{index: i, gen: w.gen[i]}
}

// Despawn removes e, with its components, and reports whether it was
// alive. Its slot may be reused by a later Spawn, under a new generation.
//
// Its children go too: Despawn removes e's descendants with it, whole
// subtrees (as Bevy's despawn_recursive and Godot's freeing of a node do;
// to keep a child, Unparent it first). The slots are freed in a fixed
// order, e's first, then its descendants' depth first, children in slot
// order; the free list reuses the last freed slot first.
func (w *World) Despawn(e Entity) bool {
	if !w.Alive(e) {
		return false
	}
	if w.hier.hasLinks(e.index) {
		w.despawnTree(e.index)
		return true
	}
	w.freeSlot(e.index)
	return true
}

// freeSlot removes the entity in slot i (alive, without links) and its
// components.
func (w *World) freeSlot(i uint32) {
	for _, c := range w.cols {
		c.clearSlot(int(i))
	}
	// A dead slot's draw attributes are the defaults, so that it never
	// puts them in the state (see drawAttrs).
	w.cur.MeshScale[i], w.cur.Emissive[i], w.cur.Hidden[i] = unitScale, [3]uint8{}, false
	w.gen[i]++ // odd -> even
	w.free = append(w.free, i)
	w.count--
}

// Transform returns e's current transform, local to its parent when it
// has one (see SetParent; WorldTransform composes it with its ancestors'),
// or the zero Transform when e is not alive.
func (w *World) Transform(e Entity) geom.Transform {
	if !w.Alive(e) {
		return geom.Transform{}
	}
	i := e.index
	return geom.Transform{Pos: w.cur.Pos[i], Rot: w.cur.Rot[i], Scale: w.cur.Scale[i]}
}

// PrevTransform returns e's transform before the current tick.
func (w *World) PrevTransform(e Entity) geom.Transform {
	if !w.Alive(e) {
		return geom.Transform{}
	}
	i := e.index
	return geom.Transform{Pos: w.prev.Pos[i], Rot: w.prev.Rot[i], Scale: w.prev.Scale[i]}
}

// SetTransform moves e to t (local to its parent, when it has one); it is
// drawn moving there from where it was.
func (w *World) SetTransform(e Entity, t geom.Transform) {
	if w.Alive(e) {
		i := e.index
		w.cur.Pos[i], w.cur.Rot[i], w.cur.Scale[i] = t.Pos, t.Rot, t.Scale
		w.hier.stale = true
	}
}

// Teleport moves e to t and marks the move as a jump: until the next tick
// e is drawn at t, never in between, however short the move.
func (w *World) Teleport(e Entity, t geom.Transform) {
	if w.Alive(e) {
		w.SetTransform(e, t)
		w.snap[e.index] = true
	}
}

// DrawVelocity returns the linear and angular velocity SetDrawVelocity
// last gave e.
func (w *World) DrawVelocity(e Entity) (linear, angular mgl32.Vec3) {
	if !w.Alive(e) {
		return mgl32.Vec3{}, mgl32.Vec3{}
	}
	return w.cur.Vel[e.index], w.cur.AngVel[e.index]
}

// SetDrawVelocity sets e's velocity, the Vel and AngVel of Bodies: linear
// in units per second, angular in radians per second about each axis.
// Drawing between ticks uses the linear one: an entity drawn with Hermite
// (its DrawMode) is drawn on the curve that leaves its previous tick's
// position with its previous velocity and reaches its current position
// with its current one; drawing does not use the angular one.
//
// The engine itself moves nothing by them: a game whose fixed systems move
// e with SetTransform gives here the velocity they moved it at, so that
// what is drawn between ticks follows the simulated path. A physics body
// is moved by them: package physics keeps a body's velocity in these same
// fields, so on a kinematic body, or an awake dynamic one, this sets the
// velocity its next step moves it at, as physics.Space.SetVelocity does
// (which also refuses non-finite values and wakes a sleeping body). Both
// are simulated state (snapshotted, hashed, replayed and rolled back), so
// a fixed system may read them back with DrawVelocity.
func (w *World) SetDrawVelocity(e Entity, linear, angular mgl32.Vec3) {
	if w.Alive(e) {
		w.cur.Vel[e.index], w.cur.AngVel[e.index] = linear, angular
	}
}

// SetColor sets the colour e is drawn with.
func (w *World) SetColor(e Entity, rgba [4]uint8) {
	if w.Alive(e) {
		w.cur.Color[e.index] = rgba
	}
}

// SetMesh sets the mesh e is drawn with (render.MeshCube when spawned). The
// renderer draws what it has registered under id; an id it does not know
// is not drawn (gfx counts such instances).
func (w *World) SetMesh(e Entity, id render.MeshID) {
	if w.Alive(e) {
		w.cur.Mesh[e.index] = id
	}
}

// Mesh returns the mesh e is drawn with (render.MeshCube when e is not alive).
func (w *World) Mesh(e Entity) render.MeshID {
	if !w.Alive(e) {
		return render.MeshCube
	}
	return w.cur.Mesh[e.index]
}

// BeginTick saves every transform as the previous state and clears the
// teleport marks; the engine calls it before the fixed systems of tick n,
// so a frame that runs several ticks interpolates between the last two.
// A game never calls it on an Engine's world; call it only when driving a
// World without an Engine (as ExampleWorld_Interpolate does).
func (w *World) BeginTick(n uint64) {
	w.propagateIfStale()
	w.tick = n
	w.epoch++
	copy(w.prev.Pos, w.cur.Pos)
	copy(w.prev.Rot, w.cur.Rot)
	copy(w.prev.Scale, w.cur.Scale)
	copy(w.prev.Vel, w.cur.Vel)
	clear(w.snap)
	if h := &w.hier; h.linked > 0 {
		copy(h.prv.Pos, h.cur.Pos)
		copy(h.prv.Rot, h.cur.Rot)
		copy(h.prv.Scale, h.cur.Scale)
	}
}

// setTable replaces w's entity table and bodies (not its components and
// resources) with those of from: Restore's commit.
func (w *World) setTable(from *World) {
	w.gen, w.free, w.count = from.gen, from.free, from.count
	w.cur, w.prev, w.snap = from.cur, from.prev, from.snap
	w.hier = from.hier
	w.hier.stale = true // propagating again gives the same bits
	w.epoch++
	w.rng, w.tick = from.rng, from.tick
	w.players.ids, w.players.inputs = from.players.ids, from.players.inputs
	w.players.joined, w.players.left = w.players.joined[:0], w.players.left[:0]
}

// appendState appends the world's part of a snapshot to b: the schema,
// the entity table, the transforms and the marks, every column, then the
// players (see the format in snapshot.go).
func (w *World) appendState(b []byte) []byte {
	b = AppendSchema(b, w.schema)
	b = binary.LittleEndian.AppendUint64(b, w.tick)
	st, inc := w.rng.State()
	b = binary.LittleEndian.AppendUint64(b, st)
	b = binary.LittleEndian.AppendUint64(b, inc)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(w.gen)))
	b = binary.LittleEndian.AppendUint32(b, uint32(w.count))
	b = appendColumn(b, w.gen)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(w.free)))
	b = appendColumn(b, w.free)
	b = appendColumn(b, w.cur.Pos)
	b = appendColumn(b, w.cur.Rot)
	b = appendColumn(b, w.cur.Scale)
	b = appendColumn(b, w.cur.Vel)
	b = appendColumn(b, w.cur.AngVel)
	b = appendColumn(b, w.cur.Mode)
	b = appendColumn(b, w.cur.Color)
	b = appendColumn(b, w.cur.Mesh)
	if w.drawAttrs() {
		b = w.appendDrawAttrs(b)
	}
	b = appendColumn(b, w.prev.Pos)
	b = appendColumn(b, w.prev.Rot)
	b = appendColumn(b, w.prev.Scale)
	b = appendColumn(b, w.prev.Vel)
	for _, s := range w.snap {
		b = append(b, boolByte(s))
	}
	b = w.hier.appendState(b)
	for _, c := range w.cols {
		b = c.appendSnapshot(b)
	}
	return w.players.appendState(b)
}

// readState decodes what appendState wrote, refusing another schema than
// w's, and checks the entity table for consistency (free slots dead and
// distinct, the live count matching the generations). It decodes the
// table into t (a zero World the caller keeps, on its stack) and stages
// every column's values; w itself is unchanged until commitState.
func (w *World) readState(r *binread.Reader, t *World, version uint16) {
	at := r.Offset()
	if schema := readSchema(r, "schema"); r.Err() == nil {
		if err := schema.Compare(w.schema); err != nil {
			r.FailAt(at, "schema", err)
		}
	}

	t.tick = r.U64("world tick")
	st, inc := r.U64("rng state"), r.U64("rng inc")
	t.rng.SetState(st, inc)
	at = r.Offset()
	n := r.Count("slots", MaxSlots, snapshotSlotBytes)
	count := int(r.U32("live count"))
	t.gen = readColumn[uint32](r, "generations", n)
	live := 0
	for _, g := range t.gen {
		live += int(g & 1)
	}
	if r.Err() == nil && live != count {
		r.FailAt(at, "live count", fmt.Errorf("%d live entities, but %d generations are odd (alive)", count, live))
	}
	at = r.Offset()
	nf := r.Count("free list", n, 4)
	t.free = make([]uint32, nf)
	seen := make([]bool, n)
	for i := range t.free {
		f := r.U32("free list")
		if r.Err() == nil && (int(f) >= n || t.gen[f]&1 == 1 || seen[f]) {
			r.Fail("free list", fmt.Errorf("entry %d is slot %d, which is not a distinct dead slot of %d", i, f, n))
		}
		if r.Err() == nil {
			seen[f] = true
		}
		t.free[i] = f
	}
	if r.Err() == nil && nf != n-count {
		r.FailAt(at, "free list", fmt.Errorf("%d free slots, want %d (slots less live entities)", nf, n-count))
	}
	t.count = count
	t.cur.Pos = readColumn[mgl32.Vec3](r, "current positions", n)
	t.cur.Rot = readColumn[mgl32.Quat](r, "current rotations", n)
	t.cur.Scale = readColumn[mgl32.Vec3](r, "current scales", n)
	t.cur.Vel = readColumn[mgl32.Vec3](r, "velocities", n)
	t.cur.AngVel = readColumn[mgl32.Vec3](r, "angular velocities", n)
	at = r.Offset()
	t.cur.Mode = readColumn[DrawMode](r, "draw modes", n)
	for i, m := range t.cur.Mode {
		if r.Err() == nil && m > NoInterpolation {
			r.FailAt(at+i, "draw modes", fmt.Errorf("slot %d has draw mode %d, not a DrawMode", i, m))
		}
	}
	t.cur.Color = readColumn[[4]uint8](r, "colours", n)
	t.cur.Mesh = readColumn[render.MeshID](r, "meshes", n)
	readDrawAttrs(r, t, version, n)
	t.prev.Pos = readColumn[mgl32.Vec3](r, "previous positions", n)
	t.prev.Rot = readColumn[mgl32.Quat](r, "previous rotations", n)
	t.prev.Scale = readColumn[mgl32.Vec3](r, "previous scales", n)
	t.prev.Vel = readColumn[mgl32.Vec3](r, "previous velocities", n)
	t.snap = make([]bool, n)
	for i := range t.snap {
		t.snap[i] = r.U8("teleport marks") != 0
	}
	if hasHierarchy(version) {
		t.hier.readState(r, t.gen)
	}
	for _, c := range w.cols {
		if r.Err() == nil {
			c.decodeSnapshot(r, t.gen)
		}
	}
	t.players.readState(r)
}

// commitState makes the table readState decoded into t, and the columns
// it staged, the world's.
func (w *World) commitState(t *World) {
	w.setTable(t)
	for _, c := range w.cols {
		c.commit()
	}
}

// appendColumn appends the exact bytes of a column of the world's own
// values, all packed plain data (no padding; see layout.go), which on a
// little-endian machine are their canonical bytes.
func appendColumn[T any](b []byte, vs []T) []byte { return append(b, bytesOf(vs)...) }

// readColumn reads n values that appendColumn wrote.
func readColumn[T any](r *binread.Reader, field string, n int) []T {
	vs := make([]T, n)
	mem := bytesOf(vs)
	if src := r.Take(field, len(mem)); src != nil {
		copy(mem, src)
	}
	return vs
}
