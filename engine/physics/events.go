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
}

// event returns the event of kind k for the cached manifold m.
func event(k ContactEventKind, m *cachedManifold) ContactEvent {
	ev := ContactEvent{Kind: k, A: m.a, B: m.b, Sensor: m.sensor, Normal: fromVec3(m.normal)}
	if m.n > 0 {
		// The deepest point.
		best := 0
		for j := 1; j < int(m.n); j++ {
			if m.pts[j].sep < m.pts[best].sep {
				best = j
			}
		}
		ev.Point = fromVec3(m.pts[best].p)
	}
	return ev
}
