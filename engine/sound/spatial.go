package sound

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/sound/mix"
)

// Listener is where the sounds are heard from: usually the camera, as it
// is drawn in the frame (interpolated like everything drawn).
type Listener struct {
	// Pos is the listener's position.
	Pos mgl32.Vec3
	// Forward and Up are the directions it faces and its up; the right ear
	// is toward Forward × Up. Neither may be zero or the two parallel.
	Forward, Up mgl32.Vec3
}

// Rolloff says how a spatial sound fades with distance: OpenAL's "inverse
// distance clamped" model with a rolloff factor of 1. Within Near the
// sound plays at its volume; beyond, its gain is Near / d, until Far,
// beyond which it stays at Near / Far.
type Rolloff struct {
	// Near is the distance within which there is no attenuation, above 0.
	Near float32
	// Far is the distance beyond which the gain stops falling, at least
	// Near.
	Far float32
}

// DefaultRolloff returns Near 2 m and Far 60 m.
func DefaultRolloff() Rolloff { return Rolloff{Near: 2, Far: 60} }

// Validate reports whether r is usable.
func (r Rolloff) Validate() error {
	if !(r.Near > 0) || !(r.Far >= r.Near) || math.IsInf(float64(r.Far), 0) {
		return fmt.Errorf("sound: rolloff near %v m, far %v m: want 0 < near <= far, finite", r.Near, r.Far)
	}
	return nil
}

// Spatial returns the gain and pan of a sound at pos heard by l: the gain
// from the distance (r), the pan the sine of the angle between the
// listener's forward and the sound, toward its right ear (1: fully right;
// 0 straight ahead, behind, above, or at the listener).
func Spatial(l Listener, r Rolloff, pos mgl32.Vec3) (gain, pan float32) {
	d := pos.Sub(l.Pos)
	dist := d.Len()
	clamped := min(max(dist, r.Near), r.Far)
	gain = r.Near / clamped
	right := l.Forward.Cross(l.Up)
	if rl := right.Len(); rl > 0 && dist > 0 {
		pan = min(max(d.Dot(right)/(rl*dist), -1), 1)
	}
	return gain, pan
}

// spatialVoice is a playing spatial sound, placed again every frame.
type spatialVoice struct {
	voice  mix.Voice
	entity engine.Entity
	pos    mgl32.Vec3
	volume float32
}

// SetListener sets where the sounds are heard from, for this frame's
// Reconcile on: call it each frame before the Render systems run (an
// Update system), with the camera's place in the frame.
func (s *Sounds) SetListener(l Listener) { s.listener, s.haveListener = l, true }

// place returns the gain and pan of a spatial event, where its entity is
// drawn in rb (or at pos, when it has none or is gone).
func (s *Sounds) place(entity engine.Entity, pos mgl32.Vec3, w *engine.World, rb *engine.RenderBuffer) (gain, pan float32) {
	if !s.haveListener {
		return 1, 0
	}
	if entity != (engine.Entity{}) && rb != nil {
		if tr, ok := w.DrawTransform(entity, rb); ok {
			pos = tr.Pos
		}
	}
	return Spatial(s.listener, s.cfg.Rolloff, pos)
}

// placeVoices sets the gain and pan of every spatial voice still playing
// from where its sound is in this frame, and forgets the ended ones.
func (s *Sounds) placeVoices(w *engine.World, rb *engine.RenderBuffer) {
	kept := s.spatial[:0]
	for _, v := range s.spatial {
		if !s.out.Playing(v.voice) {
			continue
		}
		g, p := s.place(v.entity, v.pos, w, rb)
		_ = s.out.Set(v.voice, min(v.volume*g, 4), p)
		kept = append(kept, v)
	}
	s.spatial = kept
}
