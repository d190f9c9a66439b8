package physics

import (
	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// ContactEventKind says whether a contact began or ended.
type ContactEventKind uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=ContactEventKind -linecomment

// The kinds of contact event.
const (
	// Begin: the two shapes started touching (a sensor: overlapping).
	Begin ContactEventKind = iota + 1 // begin
	// End: they stopped, or one of the bodies went away (removed or
	// despawned).
	End // end
)

// ContactEvent is a change in what touches what, found by a Step.
// Systems of the Collision stage read the step's events with
// Space.Events.
type ContactEvent struct {
	Kind ContactEventKind // Begin or End
	// A and B are the two bodies' entities, A in the lower slot. In an
	// End event one of them may no longer be alive.
	A, B engine.Entity
	// Sensor is true when one of the two is a sensor.
	Sensor bool
	// Point is a contact point and Normal the contact normal, from A to
	// B: those of the step's contact for Begin, the last known ones for
	// End.
	Point, Normal mgl32.Vec3
	// Impulse is the normal impulse, in N·s, the solver applied between
	// the two in the step of a Begin event (summed over the contact's
	// points and, for a mesh or compound, its manifolds): how hard they
	// hit. Divided by the step's length it is the mean force. It is 0 for
	// End events and sensors.
	Impulse float32
}

// Contact is one of a body's current contacts (Space.ContactsOf).
type Contact struct {
	// Other is the body touched.
	Other engine.Entity
	// Sensor is true when one of the two is a sensor.
	Sensor bool
	// Point is the deepest contact point, Normal the contact normal from
	// the body towards Other, Separation the point's separation (<= 0
	// when overlapping), all as the last Step's narrow phase found them.
	Point, Normal mgl32.Vec3
	Separation    float32 // the deepest point's separation, m
	// Impulse is the normal impulse, in N·s, the solver applied in the
	// last Step (summed over the points); divided by the step's length it
	// is the mean force. 0 when the pair was not solved in that step (a
	// sensor, a sleeping pair, a contact the hook disabled).
	Impulse float32
}

// ContactsOf appends the contacts of e that touch (the shapes within
// Config.TouchDistance, or a sensor's overlap) to dst and returns it:
// one per manifold, so a body on a mesh or a compound may list the same
// Other more than once (one per triangle or part). They come in the
// cache's order (by slots). It allocates only when dst is too short, and
// looks at every cached manifold: call it for a few bodies a step.
func (s *Space) ContactsOf(e engine.Entity, dst []Contact) []Contact {
	ms := s.contacts.Ptr().m
	for i := range ms {
		m := &ms[i]
		if !m.touching || m.a != e && m.b != e {
			continue
		}
		ev := event(Begin, m)
		c := Contact{Other: m.b, Sensor: m.sensor, Point: ev.Point, Normal: ev.Normal, Impulse: manifoldImpulse(m)}
		c.Separation = deepest(m).sep
		if m.b == e {
			c.Other, c.Normal = m.a, fromVec3(m.normal.neg())
		}
		dst = append(dst, c)
	}
	return dst
}

// manifoldImpulse returns the sum of m's points' normal impulses in the
// step.
func manifoldImpulse(m *cachedManifold) float32 {
	var sum float32
	for j := range int(m.n) {
		sum += m.pts[j].impulse
	}
	return sum
}

// deepest returns m's deepest point (m.n > 0).
func deepest(m *cachedManifold) *cachedPoint {
	best := 0
	for j := 1; j < int(m.n); j++ {
		if m.pts[j].sep < m.pts[best].sep {
			best = j
		}
	}
	return &m.pts[best]
}

// eventImpulses fills the Impulse of the step's Begin events from the new
// cache (both sorted by their pair's slots).
func (s *Space) eventImpulses() {
	ms := s.sc.next
	mi := 0
	for i := range s.events {
		ev := &s.events[i]
		if ev.Kind != Begin || ev.Sensor {
			continue
		}
		key := uint64(ev.A.Index())<<32 | uint64(ev.B.Index())
		for mi < len(ms) && ms[mi].key() < key {
			mi++
		}
		for j := mi; j < len(ms) && ms[j].key() == key; j++ {
			ev.Impulse += manifoldImpulse(&ms[j])
		}
	}
}

// event returns the event of kind k for the cached manifold m.
func event(k ContactEventKind, m *cachedManifold) ContactEvent {
	ev := ContactEvent{Kind: k, A: m.a, B: m.b, Sensor: m.sensor, Normal: fromVec3(m.normal)}
	if m.n > 0 {
		ev.Point = fromVec3(deepest(m).p)
	}
	return ev
}
