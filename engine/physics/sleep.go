package physics

// Sleep: when a body is calm enough to sleep, the sleep events and the
// calls that put a body to sleep or keep it awake.

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// maxExtent returns the distance from sh's centre of mass to its farthest
// point: the lever that turns an angular speed into the speed of the
// body's farthest point (Box2D v3's maxExtent).
func maxExtent(sh *shape) float32 {
	switch sh.kind {
	case Sphere:
		return sh.radius
	case Capsule:
		return sh.halfHeight + sh.radius
	case Box:
		return sh.half.length()
	case Compound:
		c := sh.comp
		if c == nil {
			return 0
		}
		var r float32
		for i := range c.parts {
			p := &c.parts[i]
			r = max(r, p.pose.p.sub(c.com).length()+maxExtent(&p.shape))
		}
		return r
	case Cylinder:
		return sqrt(float32(sh.halfHeight*sh.halfHeight) + float32(sh.radius*sh.radius))
	case ConvexHull:
		if sh.hull == nil {
			return 0
		}
		var r2 float32
		for _, v := range sh.hull.verts { // about the centre of mass
			r2 = max(r2, v.dot(v))
		}
		return sqrt(r2)
	}
	return 0 // meshes and height fields are static
}

// sleepSpeed returns the speed that decides whether a dynamic body is calm
// enough to sleep, as Rapier measures it (RigidBodyActivation::update_energy
// and relative_pose_drift): half the rate at which the body's farthest
// point moved in the step of dt seconds, from its displacement dp and its
// rotation dth over the step (the speed of that point, |v| + |ω|·extent,
// averaged over the substeps, contact corrections included). The velocity
// at the end of the step is not used: in a loaded pile it holds what the
// solver cancels again in the next step, not motion (Rapier's
// test_sleep_allows_pinned_body_with_residual_velocity). Measured at the
// farthest point, a domino toppling slowly over its edge, whose top moves
// several centimetres a second while its angular speed is small, is not
// calm for long; a box resting in a pile is.
func sleepSpeed(dp, dth vec3, extent, dt float32) float32 {
	drift := float32(dp.length()+float32(dth.length()*extent)) / dt
	return float32(0.5 * drift)
}

// SleepEvent is a body falling asleep or waking up in a Step. Systems of
// the Collision stage read the step's events with Space.SleepEvents.
type SleepEvent struct {
	Entity engine.Entity // the body
	// Asleep is true when the body fell asleep in the step, false when
	// it woke (an awake body's contact, the end of a contact that held
	// it, its island waking).
	Asleep bool
}

// SleepEvents returns the sleep and wake events of the last Step: one for
// each body that was asleep at the start of the step and is awake at its
// end, or the other way round, in slot order. A body the game wakes
// between steps (WakeUp, SetVelocity, a force or an impulse, Teleport)
// has no event: the call woke it. The slice is reused by the next Step.
//
//	for _, ev := range space.SleepEvents() {
//		if ev.Asleep {
//			settled[ev.Entity] = true // e.g. stop a sound, count a score
//		}
//	}
func (s *Space) SleepEvents() []SleepEvent { return s.sleeps }

// recordSleepEvents fills s.sleeps with the step's changes of Asleep.
func (s *Space) recordSleepEvents() {
	s.sleeps = s.sleeps[:0]
	sc := &s.sc
	if sc.flips == 0 {
		return
	}
	vals, _ := s.bodies.Slices()
	for k, slot := range s.bodies.Indices() {
		if b := &vals[slot]; b.Asleep != sc.wasAsleep[k] {
			e, _ := s.w.EntityAt(int(slot))
			s.sleeps = append(s.sleeps, SleepEvent{Entity: e, Asleep: b.Asleep})
		}
	}
}

// SetNoSleep sets whether the body e may sleep (BodyDef.NoSleep): a body
// that may not is woken now, and keeps its island awake. It refuses an
// entity that is not a dynamic body.
func (s *Space) SetNoSleep(e engine.Entity, noSleep bool) error {
	b := s.bodies.Ptr(e)
	switch {
	case b == nil:
		return fmt.Errorf("physics: SetNoSleep(%v): the entity is not a body", e)
	case b.Kind != Dynamic:
		return fmt.Errorf("physics: SetNoSleep(%v): the body is %v; only dynamic bodies sleep", e, b.Kind)
	}
	b.NoSleep = noSleep
	if noSleep {
		wake(b)
	}
	return nil
}

// Sleep puts the dynamic body e to sleep now, at rest where it is (its
// velocities, and the forces and torques added for the next Step, are
// dropped). The next Step wakes it again when its island is awake: a
// body resting on it or under it that is awake, an awake body's contact.
// It refuses an entity that is not a dynamic body, and one with NoSleep.
func (s *Space) Sleep(e engine.Entity) error {
	b := s.bodies.Ptr(e)
	switch {
	case b == nil:
		return fmt.Errorf("physics: Sleep(%v): the entity is not a body", e)
	case b.Kind != Dynamic:
		return fmt.Errorf("physics: Sleep(%v): the body is %v; only dynamic bodies sleep", e, b.Kind)
	case b.NoSleep:
		return fmt.Errorf("physics: Sleep(%v): the body may not sleep (NoSleep)", e)
	}
	b.Asleep, b.SleepTime = true, 0 // its contacts are not known (unknownContacts)
	b.Force, b.Torque = mgl32.Vec3{}, mgl32.Vec3{}
	s.w.SetDrawVelocity(e, mgl32.Vec3{}, mgl32.Vec3{})
	return nil
}

// unknownContacts reports whether b sleeps without known contacts: added
// asleep (BodyDef.StartAsleep) or put to sleep by Sleep, it has not been
// through a step's narrow phase since, so the contact cache does not hold
// what it touches (a body that falls asleep in a Step has a SleepTime of
// at least Config.TimeToSleep, and keeps its contacts while it sleeps).
func unknownContacts(b *Body) bool { return b.Kind == Dynamic && b.Asleep && b.SleepTime == 0 }
