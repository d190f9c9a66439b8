package engine

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/render"
)

// RenderBuffer receives one frame of interpolated instances from
// World.Interpolate. Keep one and pass it to every call: its slices are
// reused, so a frame allocates only when the world has grown beyond every
// earlier frame.
type RenderBuffer struct {
	// Frame is what the renderer draws: Instances holds one entry per
	// entity drawn (live, visible with its ancestors, and of a mesh other
	// than render.MeshNone), in slot order; Poses holds the skinning matrices and
	// blend weights of the animated instances (Interpolate empties it;
	// Render systems fill it).
	render.Frame
	// Entities[k] is the entity drawn by Instances[k].
	Entities []Entity
	// Alpha is the fraction of the way from the previous tick to the
	// current one the instances were drawn at: Interpolate's alpha, or 1
	// when interpolation is off. Entities drawn at their current state
	// (AtCurrent) are at 1 whatever Alpha says.
	Alpha float32
	// Snaps counts the entities of this frame drawn at their current state
	// instead of interpolated because they were teleported (World.Teleport)
	// or moved or turned beyond the configured thresholds during the last
	// tick. Entities drawn with NoInterpolation are not snaps.
	Snaps int
	// TotalSnaps counts snaps over every frame interpolated into this
	// buffer, each once: an entity that snaps is drawn snapped on every
	// frame until the next tick, but only the first of those frames adds it
	// here. It is the number of teleports and threshold jumps shown.
	TotalSnaps uint64

	hermite     []int32 // scratch for Interpolate: the instances drawn with Hermite
	current     []int32 // the instances drawn at their current state although interpolation is on, in order
	countedTick uint64  // the world tick whose snaps TotalSnaps holds
	counted     bool    // whether countedTick is set

	// Ticks holds, after World.InterpolateOnGPU, every slot's state over
	// the last tick, for a renderer that places the entities itself
	// (gfx.Renderer.DrawTicks). Interpolate leaves it alone.
	Ticks render.Ticks
	// OnGPU says the last frame was made by World.InterpolateOnGPU:
	// Instances is empty and Ticks is what is drawn.
	OnGPU bool
	// NewTicks says World.InterpolateOnGPU made Ticks again this frame.
	// Render systems that pose entities on the GPU path (package anim's,
	// package ragdoll's) add their poses to Poses then, two per slot (at
	// the start of the tick, then at its end), and set the slot's pose
	// with Ticks.SetPose; Poses is kept until Ticks is made again.
	NewTicks bool

	// What the last Interpolate drew with, for World.DrawTransform.
	cfg          InterpolationConfig
	tickDT       float32
	interpolated bool
	ticksEpoch   uint64              // the world's epoch Ticks was made at, plus one
	ticksCfg     InterpolationConfig // the configuration Ticks was made with
	changed      []uint64            // Ticks.Changed's memory
	tickSnaps    int                 // the snaps of the ticks made
}

// Find returns the index in Instances of e's instance, and whether e was
// drawn this frame.
func (rb *RenderBuffer) Find(e Entity) (int, bool) {
	k, ok := slices.BinarySearchFunc(rb.Entities, e.index, func(x Entity, i uint32) int { return cmp.Compare(x.index, i) })
	return k, ok && rb.Entities[k] == e
}

// AtCurrent reports whether Instances[k] was drawn at its entity's current
// state, not between two ticks: it snapped (a teleport or a jump beyond
// the thresholds), it is drawn with NoInterpolation, or interpolation is
// off. Whatever is drawn with the entity (an animated model's bones)
// should then be drawn at the current tick too, never in between.
func (rb *RenderBuffer) AtCurrent(k int) bool {
	if rb.Alpha == 1 {
		return true
	}
	_, found := slices.BinarySearch(rb.current, int32(k))
	return found
}

// InterpolationConfig says how World.Interpolate draws entities between two
// ticks. Its defaults live in DefaultInterpolationConfig.
type InterpolationConfig struct {
	// Enabled turns interpolation on. When it is off every entity is drawn
	// at its current state (the state after the last tick), which shows the
	// raw tick rate: useful to compare, and what the demo's "I" key toggles.
	Enabled bool
	// SnapDistance, in world units: an entity whose position moved farther
	// than this during the last tick is drawn at its current state instead
	// of swooping across the scene from where it was; it is counted as a
	// snap. 0 turns the distance check off.
	SnapDistance float32
	// SnapAngle, in radians: an entity whose rotation turned by more than
	// this during the last tick is drawn at its current state; it is counted
	// as a snap. The angle is that of the shortest arc between the two
	// rotations (q and -q are the same rotation), so it lies in [0, pi];
	// 0, or pi and above, turns the angle check off.
	SnapAngle float32
}

// DefaultInterpolationConfig returns interpolation on, snapping moves longer
// than 10 units and turns larger than a quarter turn (pi/2 radians) in one
// tick.
//
// A body that turns more than a quarter turn in one tick (15 turns a second
// at 60 Hz) is either being reset (a teleport, a respawn) or spinning so
// fast that the shortest arc between two ticks no longer says which way it
// actually turned: a slerp between them would show a slow, possibly
// backwards rotation that never happened. Drawing the current state is the
// honest choice for both. (The angle compared is the shortest-arc angle
// between the two rotations, so q and -q count as no turn at all.)
func DefaultInterpolationConfig() InterpolationConfig {
	return InterpolationConfig{
		Enabled:      true,
		SnapDistance: 10,
		SnapAngle:    math.Pi / 2,
	}
}

// Validate reports whether c is usable: its thresholds must not be negative
// or NaN.
func (c InterpolationConfig) Validate() error {
	if !(c.SnapDistance >= 0) {
		return fmt.Errorf("engine: interpolation SnapDistance must be >= 0 (0 = no distance snap), got %v", c.SnapDistance)
	}
	if !(c.SnapAngle >= 0) {
		return fmt.Errorf("engine: interpolation SnapAngle must be >= 0 radians (0 = no angle snap), got %v", c.SnapAngle)
	}
	return nil
}

// nlerpMinDot is the |cosine| of the half angle between two rotations above
// which the rotation is interpolated by normalised lerp instead of slerp:
// up to a turn of about 3.6 degrees per tick, where nlerp departs from the
// constant-speed slerp path by at most about 1e-6 radians, a thousandth of
// a pixel's width at usual fields of view. mgl32.QuatSlerp uses the same
// bound.
const nlerpMinDot = 0.9995

// Interpolate writes into dst what the renderer should draw this frame: every
// live entity that is drawn, in slot order, placed at fraction alpha of the way from its
// state before the last tick to its current state. alpha is the loop's
// leftover time as a fraction of a tick, in [0, 1]; tickDT is the fixed tick
// duration in seconds, which Hermite needs to turn velocities into tangents.
//
// How an entity is placed depends on its DrawMode:
//
//   - Interpolate: position and scale lerp; rotation slerps along the
//     shortest arc (nlerp when the turn is small, where it is
//     indistinguishable and cheaper). Between the ends the rotation is
//     normalised to unit length.
//   - Hermite: position on the cubic Hermite curve through the previous and
//     current positions with tangents prevVel*tickDT and curVel*tickDT;
//     rotation and scale as Interpolate.
//   - NoInterpolation: the current state.
//
// An entity is drawn unless it or an ancestor is hidden (World.SetVisible)
// or its mesh is render.MeshNone (a pivot): those are left out of dst,
// and cost no more than the test. Each instance is drawn at its
// interpolated scale times its mesh scale (World.SetMeshScale), with its
// emissive colour (World.SetEmissive).
//
// Entities are drawn in world space: when some entity has a parent, from
// their world transforms at the end of the last tick and at the end of the
// one before, so a child of a moving parent is drawn where its parent is
// drawn, without lag, and the thresholds below apply to world-space moves.
// What is drawn at alpha 1 is the world as the last tick left it,
// whatever stage moved it, and whether or not anything hashed it; a
// change made since through the World's methods (at set-up, between
// ticks) is propagated first. An entity with a parent
// drawn with Hermite is drawn as with Interpolate: its draw velocity is in
// its parent's space, not the world's.
//
// An entity is also drawn at its current state, and counted in dst.Snaps,
// when it (or an ancestor) was teleported during the last tick or moved or turned beyond the
// thresholds of cfg. When cfg.Enabled is false every entity is drawn at its
// current state and nothing is counted.
//
// alpha 0 draws the previous state exactly and alpha 1 the current state
// exactly. Colours and meshes are always the current ones. Interpolate
// empties dst.Poses and sets every instance's Pose to 0, for the Render
// systems to fill (package anim's does it for animated models); it records
// alpha in dst.Alpha and which instances it drew at their current state
// (dst.AtCurrent).
//
// Interpolate panics if alpha is outside [0, 1] or NaN, if tickDT is not a
// positive finite number, or if cfg is not valid (see Validate). It does not
// allocate unless dst is too small for the world's live entities.
func (w *World) Interpolate(alpha, tickDT float32, cfg InterpolationConfig, dst *RenderBuffer) {
	mustInterpolate(alpha, tickDT, cfg)
	w.propagateIfStale() // what Hash would propagate: drawing never depends on whether something hashed

	// This runs every frame for up to ~100,000 entities, so the loops below
	// are written for speed (measured by BenchmarkInterpolate):
	//   - outputs are sized once and written in place, field by field;
	//     building render.Instance values and appending them is several times
	//     slower (the values take a detour through the stack);
	//   - every slice is resliced to the slot count, so indexing with i
	//     from ranging over gen needs no bounds checks;
	//   - Hermite positions are done in a second pass (see below), which
	//     keeps the main loop small enough to live in registers;
	//   - the quaternion sign flip is branch-free.
	live := w.count
	insts := slices.Grow(dst.Instances[:0], live)[:live]
	ents := slices.Grow(dst.Entities[:0], live)[:live]
	dst.Instances, dst.Entities, dst.Snaps = insts, ents, 0
	dst.Poses.Reset()
	dst.Lights = dst.Lights[:0]
	dst.current = dst.current[:0]
	dst.Alpha = alpha
	dst.cfg, dst.tickDT, dst.interpolated = cfg, tickDT, true
	dst.OnGPU, dst.NewTicks = false, false
	dst.ticksEpoch = 0 // Poses no longer holds the ticks' poses

	gen := w.gen
	n := len(gen)
	curPos, curRot, curScale := w.cur.Pos[:n], w.cur.Rot[:n], w.cur.Scale[:n]
	modes, colors, meshes, meshScales := w.cur.Mode[:n], w.cur.Color[:n], w.cur.Mesh[:n], w.cur.MeshScale[:n]
	emissive := w.cur.Emissive[:n]
	// Hidden entities (and their descendants) and pivots are left out;
	// hidden is nil when no entity is hidden.
	hidden := w.hiddenInTree()
	someHidden := hidden != nil
	if someHidden {
		hidden = hidden[:n]
	}
	prevPos, prevRot, prevScale := w.prev.Pos[:n], w.prev.Rot[:n], w.prev.Scale[:n]
	snap := w.snap[:n]
	var parent []uint32 // with a hierarchy: the world transforms, and who has a parent
	if h := &w.hier; h.linked > 0 {
		curPos, curRot, curScale = h.cur.Pos[:n], h.cur.Rot[:n], h.cur.Scale[:n]
		prevPos, prevRot, prevScale = h.prv.Pos[:n], h.prv.Rot[:n], h.prv.Scale[:n]
		parent = h.parent[:n]
	}

	if !cfg.Enabled {
		dst.Alpha = 1
		k := 0
		for i, g := range gen {
			if g&1 == 0 || meshes[i] == render.MeshNone || someHidden && hidden[i] {
				continue
			}
			in := &insts[k]
			in.Pos = curPos[i]
			in.Rot = curRot[i]
			in.Scale = scaled(curScale[i], &meshScales[i])
			in.Color = colors[i]
			in.Mesh, in.Pose = meshes[i], 0
			in.Emissive = emissive[i]
			ents[k] = Entity{index: uint32(i), gen: g}
			k++
		}
		dst.Instances, dst.Entities = insts[:k], ents[:k]
		return
	}

	// Thresholds, once per call: squared distance, and the cosine of half
	// the angle, which is what the quaternion dot product measures.
	maxDist2, minDot := cfg.snapLimits()

	// Lerp as s*a + t*b, which is exact at t = 0 and at t = 1 (a + t*(b-a)
	// is not exact at 1).
	t := alpha
	s := 1 - t

	snaps := 0
	hermite := dst.hermite[:0]
	current := dst.current[:0]
	k := 0
	for i, g := range gen {
		if g&1 == 0 || meshes[i] == render.MeshNone || someHidden && hidden[i] {
			continue
		}
		in := &insts[k]
		ents[k] = Entity{index: uint32(i), gen: g}
		k++
		in.Color = colors[i]
		in.Mesh, in.Pose = meshes[i], 0
		in.Emissive = emissive[i]

		cp, cr, cs := &curPos[i], &curRot[i], &curScale[i]
		mode := modes[i]
		if mode == NoInterpolation {
			current = append(current, int32(k-1))
			in.Pos = *cp
			in.Rot = *cr
			in.Scale = scaled(*cs, &meshScales[i])
			continue
		}
		pp, pr, ps := &prevPos[i], &prevRot[i], &prevScale[i]
		dx, dy, dz := cp[0]-pp[0], cp[1]-pp[1], cp[2]-pp[2]
		dot := pr.W*cr.W + pr.V[0]*cr.V[0] + pr.V[1]*cr.V[1] + pr.V[2]*cr.V[2]
		const signBit = 1 << 31
		adot := math.Float32frombits(math.Float32bits(dot) &^ signBit) // |dot|
		if snap[i] || dx*dx+dy*dy+dz*dz > maxDist2 || adot < minDot {
			snaps++
			current = append(current, int32(k-1))
			in.Pos = *cp
			in.Rot = *cr
			in.Scale = scaled(*cs, &meshScales[i])
			continue
		}

		if mode == Hermite && (parent == nil || parent[i] == 0) {
			hermite = append(hermite, int32(k-1)) // the lerp below is overwritten
		}
		in.Pos[0] = s*pp[0] + t*cp[0]
		in.Pos[1] = s*pp[1] + t*cp[1]
		in.Pos[2] = s*pp[2] + t*cp[2]
		ms := &meshScales[i]
		in.Scale[0] = (s*ps[0] + t*cs[0]) * ms[0]
		in.Scale[1] = (s*ps[1] + t*cs[1]) * ms[1]
		in.Scale[2] = (s*ps[2] + t*cs[2]) * ms[2]

		// Rotation: both ends exactly; in between, the weights of pr and cr
		// (nlerp's or slerp's), with cr negated when dot < 0 so that the
		// path takes the shortest arc (cr and -cr are the same rotation).
		if t == 0 {
			in.Rot = *pr
			continue
		}
		if t == 1 {
			in.Rot = *cr
			continue
		}
		w0, w1 := s, t
		if adot < nlerpMinDot {
			w0, w1 = slerpWeights(adot, t)
		}
		w1 = math.Float32frombits(math.Float32bits(w1) ^ math.Float32bits(dot)&signBit)
		qw := w0*pr.W + w1*cr.W
		qx := w0*pr.V[0] + w1*cr.V[0]
		qy := w0*pr.V[1] + w1*cr.V[1]
		qz := w0*pr.V[2] + w1*cr.V[2]
		inv := invSqrtNearOne(qw*qw + qx*qx + qy*qy + qz*qz)
		in.Rot.W = qw * inv
		in.Rot.V[0] = qx * inv
		in.Rot.V[1] = qy * inv
		in.Rot.V[2] = qz * inv
	}
	dst.hermite, dst.current = hermite, current
	dst.Instances, dst.Entities = insts[:k], ents[:k]
	dst.Snaps = snaps
	if !dst.counted || dst.countedTick != w.tick {
		dst.TotalSnaps += uint64(snaps)
		dst.countedTick, dst.counted = w.tick, true
	}

	// Hermite positions: p = h00*p0 + h10*m0 + h01*p1 + h11*m1 with the
	// tangents m = vel*tickDT, tickDT folded into the weights. The weights
	// are exact at t = 0 and t = 1, so both ends are exact.
	t2 := t * t
	t3 := t2 * t
	h00 := 2*t3 - 3*t2 + 1
	h01 := 3*t2 - 2*t3
	h10 := (t3 - 2*t2 + t) * tickDT
	h11 := (t3 - t2) * tickDT
	for _, k := range hermite {
		i := ents[k].index
		pp, pv, cp, cv := &prevPos[i], &w.prev.Vel[i], &curPos[i], &w.cur.Vel[i]
		in := &insts[k]
		in.Pos[0] = h00*pp[0] + h10*pv[0] + h01*cp[0] + h11*cv[0]
		in.Pos[1] = h00*pp[1] + h10*pv[1] + h01*cp[1] + h11*cv[1]
		in.Pos[2] = h00*pp[2] + h10*pv[2] + h01*cp[2] + h11*cv[2]
	}
}

// scaled returns the drawn scale of an entity of scale v and mesh scale
// m: v times m, axis by axis (v exactly when m is one).
func scaled(v mgl32.Vec3, m *mgl32.Vec3) mgl32.Vec3 {
	return mgl32.Vec3{v[0] * m[0], v[1] * m[1], v[2] * m[2]}
}

// snapLimits returns cfg's thresholds as they are compared: the squared
// snap distance (+Inf: no distance snap), and the cosine of half the snap
// angle, which the absolute quaternion dot product is compared with (-1:
// |dot| is never below it, no angle snap).
func (cfg InterpolationConfig) snapLimits() (maxDist2, minDot float32) {
	maxDist2, minDot = float32(math.Inf(1)), -1
	if cfg.SnapDistance > 0 {
		maxDist2 = cfg.SnapDistance * cfg.SnapDistance
	}
	if cfg.SnapAngle > 0 && float64(cfg.SnapAngle) < math.Pi {
		minDot = float32(math.Cos(float64(cfg.SnapAngle) / 2))
	}
	return maxDist2, minDot
}

// mustInterpolate panics, with a message that says what is wrong, when
// Interpolate's or InterpolateOnGPU's arguments are out of range.
func mustInterpolate(alpha, tickDT float32, cfg InterpolationConfig) {
	if !(alpha >= 0 && alpha <= 1) {
		panic(fmt.Sprintf("engine: interpolation alpha must be in [0, 1], got %v", alpha))
	}
	if !(tickDT > 0 && tickDT <= math.MaxFloat32) {
		panic(fmt.Sprintf("engine: interpolation tick duration must be a positive number of seconds, got %v", tickDT))
	}
	if err := cfg.Validate(); err != nil {
		panic(err.Error())
	}
}

// invSqrtNearOne returns 1/sqrt(x), or 1 when x is not positive. The
// interpolated quaternions it normalises have x within 3e-4 of 1 (nlerp of
// unit quaternions at most 3.6 degrees apart; slerp keeps unit length), and
// there one Newton step from 1, 1.5 - x/2, is within 9e-8 of 1/sqrt(x): as
// precise as float32 allows, without the sqrt and the division.
func invSqrtNearOne(x float32) float32 {
	const near = 1.0 / 2048 // |x-1| below this: error <= 3/8*near^2 < 9e-8
	if x > 1-near && x < 1+near {
		return 1.5 - 0.5*x
	}
	if x > 0 {
		return 1 / float32(math.Sqrt(float64(x)))
	}
	return 1
}

// slerpSeriesMinDot is the smallest |cosine| of the half angle (turns up to
// about 106 degrees) for which slerpWeights uses its series; below it,
// reachable only when SnapAngle is raised or turned off, it uses acos and
// sincos.
const slerpSeriesMinDot = 0.6

// slerpSeries holds the coefficients of the series in slerpWeights, with
// bi = (b - a*u*u) * y: for i = 1..8, a = 1/(i*(2i+1)) and b = i/(2i+1).
var slerpSeries = [8]struct{ a, b float64 }{
	{1.0 / 3, 1.0 / 3},
	{1.0 / 10, 2.0 / 5},
	{1.0 / 21, 3.0 / 7},
	{1.0 / 36, 4.0 / 9},
	{1.0 / 55, 5.0 / 11},
	{1.0 / 78, 6.0 / 13},
	{1.0 / 105, 7.0 / 15},
	{1.0 / 136, 8.0 / 17},
}

// slerpWeights returns the weights of the two end rotations in the slerp at
// t between unit quaternions whose dot product is c (in [0, 1)):
// f(1-t) and f(t), where f(u) = sin(uθ)/sin θ and θ = acos(c).
//
// For c >= slerpSeriesMinDot it sums the first terms of the series of f in
// y = 1-c (D. Eberly, "A Fast and Accurate Algorithm for Computing SLERP",
// Journal of Graphics, GPU, and Game Tools 15(3), 2011):
//
//	f(u) = u * (1 + b1*(1 + b2*(1 + ... ))),  bi = (i*i - u*u)/(i*(2i+1)) * y
//
// With 8 terms and y <= 0.4 the sum is within 6e-8 of the exact weights
// (checked against the trigonometric form in TestSlerpWeights), and the
// cost is a few dozen multiply-adds instead of acos and sincos.
func slerpWeights(c, t float32) (w0, w1 float32) {
	u1 := float64(t)
	u0 := 1 - u1
	if c >= slerpSeriesMinDot {
		y := 1 - float64(c)
		sq0, sq1 := u0*u0, u1*u1
		f0, f1 := 1.0, 1.0
		for i := len(slerpSeries) - 1; i >= 0; i-- {
			k := &slerpSeries[i]
			f0 = 1 + (k.b-k.a*sq0)*y*f0
			f1 = 1 + (k.b-k.a*sq1)*y*f1
		}
		return float32(u0 * f0), float32(u1 * f1)
	}
	theta := math.Acos(float64(c))
	sinT, cosT := math.Sincos(u1 * theta)
	b := sinT / math.Sqrt(1-float64(c)*float64(c))
	// sin((1-t)θ) = sin θ cos tθ - cos θ sin tθ
	return float32(cosT - float64(c)*b), float32(b)
}
