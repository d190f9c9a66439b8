package physics

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// Move and slide, for Space.MoveCharacter. The character sweeps its
// capsule along the move, stops Offset short of what it meets, and goes on
// with what is left: along walkable ground (keeping its heading, so it
// climbs and descends slopes at its walking speed), up a step when a low
// wall has a top to stand on, or along a wall or a steep slope (never up
// one). Everything is computed from the world as it is before the Step,
// with the same queries every run, so rollback and replay re-simulate it
// exactly.

// charIterations bounds the sweeps of one move's slide.
const charIterations = 5

// charMove is one MoveCharacter call's working state.
type charMove struct {
	s     *Space
	c     *Character
	e     engine.Entity
	up    vec3
	rot   mgl32.Quat
	shape Shape
	sh    shape // the capsule as the queries read it
	f     QueryFilter
	dt    float32
	vel   vec3    // the wanted velocity (the move over the step), for pushing
	rise  float32 // how far the ground it rides carries it up this tick
}

// MoveCharacter moves the character e by want (m, world frame) in the next
// Step, as far as the world lets it: it slides along walls and steep
// slopes, climbs walkable slopes and steps, follows the ground down, rides
// the body it stands on (its velocity is added), pushes the dynamic bodies
// it walks into (CharacterDef.Mass), and comes out of anything it was
// pushed into. It returns the displacement it will make (Character.Moved),
// and sets its Grounded, Ground, GroundNormal and GroundVelocity for where
// it ends. Call it once a tick from a fixed system before the Physics
// stage, with want = velocity × tick length (gravity and jumps are the
// game's: add them to the velocity). It returns an error, and moves
// nothing, when e is not a character or want is not finite.
//
//	vel = vel.Add(gravity.Mul(dt))
//	if ch, _ := space.Character(player); ch.Grounded {
//		vel[1] = 0
//		if jump {
//			vel[1] = 5
//		}
//	}
//	if _, err := space.MoveCharacter(player, walk.Add(mgl32.Vec3{0, vel[1], 0}).Mul(dt)); err != nil {
//		return err
//	}
func (s *Space) MoveCharacter(e engine.Entity, want mgl32.Vec3) (mgl32.Vec3, error) {
	c := s.chars.Ptr(e)
	if c == nil || !s.bodies.Has(e) {
		return mgl32.Vec3{}, fmt.Errorf("physics: MoveCharacter(%v): %w", e, errNotCharacter)
	}
	d := toVec3(want)
	if !d.finite() {
		return mgl32.Vec3{}, fmt.Errorf("physics: MoveCharacter(%v): the move %v is not finite", e, want)
	}
	up := toVec3(c.Up)
	dt := 1 / float32(s.cfg.TickRate)
	m := charMove{
		s: s, c: c, e: e, up: up, rot: fromQuat(upRotation(up)),
		shape: Shape{Kind: Capsule, Radius: c.Radius, HalfHeight: c.HalfHeight},
		f:     QueryFilter{Mask: c.Mask, Exclude: e}, dt: dt, vel: d.scale(1 / dt),
	}
	m.sh = s.bodyShape(m.shape)
	start := toVec3(s.w.Bodies().Pos[e.Index()])
	// Ride the ground: its motion under the character is added.
	wasGrounded := c.Grounded
	c.OnCeiling = false
	if wasGrounded {
		ride := m.rideDisplacement(start)
		d = d.add(ride)
		// The ground is measured where it was at the start of the tick:
		// riding up with it leaves that much more gap under the feet.
		m.rise = max(0, ride.dot(up))
	}
	pos := m.depenetrate(start)
	pos, grounded := m.slide(pos, d, wasGrounded)
	if wasGrounded && !grounded && d.dot(up) <= 0 {
		pos = m.snap(pos)
	}
	m.probe(pos)
	if err := s.MoveKinematic(e, fromVec3(pos), m.rot); err != nil {
		return mgl32.Vec3{}, fmt.Errorf("physics: MoveCharacter: %w", err)
	}
	c.Moved = fromVec3(pos.sub(start))
	return c.Moved, nil
}

// sweep sweeps the capsule from pos along delta; it returns the fraction
// of delta at which it comes within half its Offset of a body, the normal
// there from that body to the character, the body, and whether it met
// one. (A body already that near at the start is not met: depenetrate
// keeps the character farther than that from everything.)
func (m *charMove) sweep(pos, delta vec3) (float32, vec3, engine.Entity, bool) {
	s := m.s
	target := float32(0.5 * m.c.Offset)
	p := pose{pos, toQuat(m.rot)}
	a := convexOf(&m.sh, p)
	swept := sweptBox(&m.sh, p, delta).grow(target)
	var best SweepHit
	found := false
	s.eachSeen(m.f, func(e engine.Entity, bs shape, bp pose) {
		if h, ok := s.sweepBody(&a, delta, swept, e, &bs, bp, target); ok && (!found || h.Fraction < best.Fraction) {
			best, found = h, true
		}
	})
	hits := 0
	if found {
		hits = 1
	}
	s.logSweep(m.shape, fromVec3(pos), m.rot, fromVec3(delta), hits, best) // the debug view's record
	if !found {
		return 1, vec3{}, engine.Entity{}, false
	}
	n, _ := direction(toVec3(best.Normal).neg(), m.up)
	return best.Fraction, n, best.Entity, true
}

// stopShort returns how far, of the l metres along dir that the sweep
// went before meeting a surface of normal n at fraction frac, the
// character moves: up to where its gap to the surface is Offset again
// (the sweep stopped at half of it), never backwards.
func (m *charMove) stopShort(frac, l float32, dir, n vec3) float32 {
	reach := float32(frac * l)
	along := max(abs(dir.dot(n)), 0.1)
	return max(0, reach-float32(0.5*m.c.Offset)/along)
}

// walkable reports whether ground with normal n (from the ground to the
// character) is no steeper than MaxSlope.
func (m *charMove) walkable(n vec3) bool {
	return n.dot(m.up) >= cosf(m.c.MaxSlope)
}

// horizontal returns v without its part along up.
func (m *charMove) horizontal(v vec3) vec3 { return v.sub(m.up.scale(v.dot(m.up))) }

// slide moves the character from pos along d, sliding, climbing and
// stepping, and returns where it ends and whether it met walkable ground.
func (m *charMove) slide(pos, d vec3, wasGrounded bool) (vec3, bool) {
	grounded := false
	rem := d
	for range charIterations {
		l := rem.length()
		if l < 1e-6 {
			break
		}
		frac, n, hit, ok := m.sweep(pos, rem)
		if !ok {
			pos = pos.add(rem)
			break
		}
		travel := m.stopShort(frac, l, rem.scale(1/l), n)
		pos = pos.addScaled(rem, travel/l)
		left := rem.scale(1 - travel/l)
		m.push(hit, n)
		if m.walkable(n) {
			grounded = true
			// Along the ground in the same heading: the horizontal part of
			// what is left, tilted into the ground's plane; a move up (a
			// jump) goes on up, one down stops on the ground.
			h := m.horizontal(left)
			rem = h.sub(m.up.scale(h.dot(n) / n.dot(m.up)))
			if v := left.dot(m.up); v > 0 {
				rem = rem.addScaled(m.up, v)
			}
			continue
		}
		if wasGrounded || grounded {
			if p, ok := m.step(pos, left); ok {
				pos, grounded = p, true
				break
			}
		}
		if n.dot(m.up) < -0.5 && left.dot(m.up) > 0 {
			m.c.OnCeiling = true // a head against a ceiling: the jump ends
		}
		// Along the wall or the steep slope, never up it: a move down
		// slides down the slope, a move into it loses the part into it.
		rem = left.sub(n.scale(left.dot(n)))
		if left.dot(m.up) <= 0 && rem.dot(m.up) > 0 {
			rem = rem.sub(m.up.scale(rem.dot(m.up)))
		}
	}
	return pos, grounded
}

// step tries to walk up a step from pos, the horizontal part of left
// being the walk: up by StepHeight (less under a ceiling), forward with
// room for StepWidth more, and down onto walkable ground above where it
// started. It returns where the character stands on the step and true,
// or false when there is no step to stand on.
func (m *charMove) step(pos, left vec3) (vec3, bool) {
	h := m.horizontal(left)
	hl := h.length()
	if m.c.StepHeight == 0 || hl < 1e-6 {
		return pos, false
	}
	rise := m.c.StepHeight
	if frac, n, _, ok := m.sweep(pos, m.up.scale(rise)); ok {
		rise = m.stopShort(frac, rise, m.up, n)
	}
	if rise <= m.c.Offset {
		return pos, false
	}
	p := pos.addScaled(m.up, rise)
	// Forward, with room for the step's depth beyond the walk.
	reach := hl + m.c.StepWidth
	if frac, _, _, ok := m.sweep(p, h.scale(reach/hl)); ok && float32(frac*reach) < reach-float32(0.5*m.c.StepWidth) {
		return pos, false
	}
	p = p.add(h)
	drop := rise + m.c.Offset
	frac, n, _, ok := m.sweep(p, m.up.scale(-drop))
	if !ok {
		return pos, false
	}
	p = p.addScaled(m.up, -m.stopShort(frac, drop, m.up.neg(), n))
	if p.sub(pos).dot(m.up) <= float32(0.5*m.c.Offset) {
		return pos, false // no higher than where it was: a wall, not a step
	}
	held, _, _, at := m.ground(p)
	if !held {
		return pos, false
	}
	// The step's top must be StepWidth deep beyond where the character
	// stands on it: a fence as high as a step is not one.
	ahead := at.addScaled(h, m.c.StepWidth/hl).addScaled(m.up, 0.05)
	depth := float32(0.05) + float32(2*m.c.Offset) + 0.01
	top, ok, err := m.s.RayCast(fromVec3(ahead), fromVec3(m.up.neg()), depth, m.f)
	if err != nil || !ok || !m.walkable(toVec3(top.Normal)) {
		return pos, false
	}
	return p, true
}

// snap moves the character from pos down onto walkable ground within
// SnapDistance, if there is some.
func (m *charMove) snap(pos vec3) vec3 {
	dist := m.c.SnapDistance
	if dist == 0 {
		return pos
	}
	frac, n, _, ok := m.sweep(pos, m.up.scale(-dist))
	if !ok || !m.walkable(n) {
		return pos
	}
	return pos.addScaled(m.up, -m.stopShort(frac, dist, m.up.neg(), n))
}

// probe records in the Character the ground under the character at pos
// (ground).
func (m *charMove) probe(pos vec3) {
	c := m.c
	c.Grounded, c.Ground, c.GroundNormal, c.GroundVelocity = false, engine.Entity{}, mgl32.Vec3{}, mgl32.Vec3{}
	ok, e, n, _ := m.ground(pos)
	if !ok {
		return
	}
	c.Grounded, c.Ground, c.GroundNormal = true, e, fromVec3(n)
	c.GroundVelocity = fromVec3(m.groundVelocity(pos))
}

// ground returns the ground that holds the character up at pos: of its
// contacts within twice Offset (and what the ground it rides lifts it),
// the one whose normal is most nearly up among those that hold it
// (supports), the body, that normal and the contact's point.
func (m *charMove) ground(pos vec3) (found bool, e engine.Entity, n, point vec3) {
	best := float32(-1)
	margin := float32(2*m.c.Offset) + m.rise
	m.s.charContacts(&m.sh, pose{pos, toQuat(m.rot)}, m.f, margin, func(be engine.Entity, bn vec3, sep float32, at vec3) {
		up := bn.neg() // from the body to the character
		if sep > margin || !m.supports(up, at) {
			return
		}
		if d := up.dot(m.up); d > best {
			best, found, e, n, point = d, true, be, up, at
		}
	})
	return found, e, n, point
}

// supports reports whether a contact at point at with normal n (from the
// body to the character) holds the character up: walkable ground, or the
// edge of a walkable top (a step's: the capsule's round bottom meets the
// edge at a steep normal), which a short ray down just inside the edge
// finds.
func (m *charMove) supports(n, at vec3) bool {
	if m.walkable(n) {
		return true
	}
	if n.dot(m.up) <= 0 {
		return false
	}
	in, l := direction(m.horizontal(n.neg()), vec3{})
	if l == 0 {
		return false
	}
	origin := at.addScaled(in, 0.02).addScaled(m.up, 0.02)
	h, ok, err := m.s.RayCast(fromVec3(origin), fromVec3(m.up.neg()), 0.04, m.f)
	return err == nil && ok && m.walkable(toVec3(h.Normal))
}

// groundMotion returns the velocity and angular velocity of the
// character's ground body and the arm from its centre of mass to the
// point under the character at pos, or false for no ground or a static
// one.
func (m *charMove) groundMotion(pos vec3) (v, w, arm vec3, ok bool) {
	c := m.c
	b := m.s.bodies.Ptr(c.Ground)
	if b == nil || b.Kind == Static {
		return vec3{}, vec3{}, vec3{}, false
	}
	wb := m.s.w.Bodies()
	i := c.Ground.Index()
	foot := pos.sub(m.up.scale(c.HalfHeight + c.Radius))
	sh := m.s.bodyShape(b.Shape)
	com := centreOfMass(&sh, pose{toVec3(wb.Pos[i]), toQuat(wb.Rot[i])})
	return toVec3(wb.Vel[i]), toVec3(wb.AngVel[i]), foot.sub(com), true
}

// rideDisplacement returns how far the ground body carries the point
// under the character at pos in one tick: its rigid motion (a turn about
// its centre of mass by its angular velocity, then its velocity), not a
// straight step along the point's velocity, which would carry a
// character on a turntable outwards.
func (m *charMove) rideDisplacement(pos vec3) vec3 {
	v, w, arm, ok := m.groundMotion(pos)
	if !ok {
		return vec3{}
	}
	turned := identity.integrate(w, m.dt).rotate(arm)
	return turned.sub(arm).addScaled(v, m.dt)
}

// groundVelocity returns the velocity of the character's ground body at
// the point under pos (0 for none, or a static body).
func (m *charMove) groundVelocity(pos vec3) vec3 {
	v, w, arm, _ := m.groundMotion(pos)
	return v.add(w.cross(arm))
}

// push gives the dynamic body hit, met with normal n (from it to the
// character), the impulse of a body of the character's mass walking into
// it at the wanted velocity: an inelastic hit along n, the body's own speed
// along it counted.
func (m *charMove) push(hit engine.Entity, n vec3) {
	b := m.s.bodies.Ptr(hit)
	if b == nil || b.Kind != Dynamic || m.c.Mass == 0 || b.InvMass == 0 {
		return
	}
	dir := n.neg()
	closing := m.vel.sub(toVec3(m.s.w.Bodies().Vel[hit.Index()])).dot(dir)
	if closing <= 0 {
		return
	}
	mb := b.Mass
	meff := float32(m.c.Mass*mb) / (m.c.Mass + mb)
	_ = m.s.ApplyImpulse(hit, fromVec3(dir.scale(float32(meff*closing))))
}

// depenetrate moves the character out of the bodies it is nearer to than
// three quarters of its Offset (a platform that rose into it, a body
// teleported onto it, or a sweep that ended nearer than it aimed), the
// nearest first, to Offset from each, so its sweeps (which aim at half of
// it) see them all.
func (m *charMove) depenetrate(pos vec3) vec3 {
	s := m.s
	q := toQuat(m.rot)
	for range 4 {
		worst := float32(0.75 * m.c.Offset)
		var out vec3
		found := false
		s.charContacts(&m.sh, pose{pos, q}, m.f, m.c.Offset, func(_ engine.Entity, n vec3, sep float32, _ vec3) {
			if sep < worst {
				worst, out, found = sep, n.neg(), true
			}
		})
		if !found {
			break
		}
		pos = pos.addScaled(out, m.c.Offset-worst)
	}
	return pos
}

// charContacts calls fn with the body, the normal (from the character to
// the body), the least separation and its point of each contact the
// character's shape sh at p has within margin with a body f sees.
func (s *Space) charContacts(sh *shape, p pose, f QueryFilter, margin float32, fn func(e engine.Entity, n vec3, sep float32, at vec3)) {
	box := sh.aabb(p).grow(margin)
	s.eachSeen(f, func(e engine.Entity, bs shape, bp pose) {
		if !bs.aabb(bp).overlaps(box) {
			return
		}
		report := func(mf *manifold) {
			if mf.n == 0 {
				return
			}
			k0 := 0
			for k := 1; k < mf.n; k++ {
				if mf.pts[k].sep < mf.pts[k0].sep {
					k0 = k
				}
			}
			fn(e, mf.normal, mf.pts[k0].sep, mf.pts[k0].p)
		}
		if bs.kind.hasParts() {
			s.sc.meshOut = s.collideParts(sh, p, &bs, bp, margin, s.sc.meshOut[:0])
			for i := range s.sc.meshOut {
				report(&s.sc.meshOut[i])
			}
			return
		}
		var mf manifold
		if sh.kind <= bs.kind {
			collideWith(sh, p, &bs, bp, margin, &s.mq.gen, &mf)
		} else {
			collideWith(&bs, bp, sh, p, margin, &s.mq.gen, &mf)
			mf.normal = mf.normal.neg()
		}
		report(&mf)
	})
}

// cosf returns cos x for x in [0, π/2], from sinCosHalf's series: the
// same bits on every platform.
func cosf(x float32) float32 {
	_, c := sinCosHalf(float32(x * x))
	return c
}
