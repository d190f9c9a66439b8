package sound

import (
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/sound/mix"
)

// Loop is a looping sound an entity makes for as long as it has the
// component (Sounds.Loops): an engine's hum, a fire's crackle. It is
// world state, hashed, saved and rolled back, so a restore or a rollback
// puts back what was playing, from where it was: every frame the loops
// the world holds are compared with those playing.
type Loop struct {
	// Start is the tick the loop started at: it plays as far into its
	// sound as the time since.
	Start uint64
	// Volume is the gain, 0 to 4; 0 means 1.
	Volume float32
	// Sound is what loops.
	Sound ID
	// Bus is the mixer bus it plays on.
	Bus mix.Bus
	// Spatial places it where the entity is drawn (see Event.Spatial).
	Spatial bool
}

// Music is what the music plays (Sounds.Music): world state like Loop, so
// a rollback across a change of track puts the right music back. A track
// loops, on the Music bus. A track registered with RegisterStream streams
// from its file: during a cross-fade both tracks stream, and a restore
// that puts an earlier Music back seeks its file to the time since its
// Start.
type Music struct {
	// Start is the tick the track started at.
	Start uint64
	// Volume is the gain, 0 to 4; 0 means 1.
	Volume float32
	// Fade is the ticks the cross-fade from the track before takes.
	Fade uint32
	// Track is what plays; 0 is silence.
	Track ID
}

// playingLoop is a loop started for an entity.
type playingLoop struct {
	entity engine.Entity
	loop   Loop
	voice  mix.Voice
}

// Loops returns the Loop component, registered by New as "sound.loop".
func (s *Sounds) Loops() *engine.Component[Loop] { return s.loops }

// Music returns the Music resource, registered by New as "sound.music".
func (s *Sounds) Music() *engine.Resource[Music] { return s.music }

// reconcileState makes what plays match the loops and the music the world
// holds at the frame: a loop or a track that is gone or changed fades
// out; one that is new starts as far in as the time since its Start.
func (s *Sounds) reconcileState(c *engine.FrameContext) {
	if s.out == nil {
		return
	}
	w := c.World
	now := w.Tick()
	dt := 1 / float64(s.e.TickRate())
	// Loops: keep those the world still holds, fade the others.
	kept := s.playingLoops[:0]
	for _, p := range s.playingLoops {
		if l, ok := s.loops.Get(p.entity); ok && l == p.loop && s.out.Playing(p.voice) {
			kept = append(kept, p)
			continue
		}
		s.out.Stop(p.voice, s.cfg.FadeOut)
		s.stats.LoopsStopped++
	}
	s.playingLoops = kept
	vals, _ := s.loops.Slices()
	for _, i := range s.loops.Indices() {
		e, _ := w.EntityAt(int(i))
		l := vals[i]
		if s.loopPlaying(e, l) {
			continue
		}
		vol, gain, pan := orOne(l.Volume), float32(1), float32(0)
		if l.Spatial {
			gain, pan = s.place(e, [3]float32{}, w, c.Render)
		}
		v, ok, err := s.playID(l.Sound, mix.Params{Bus: l.Bus, Volume: min(vol*gain, 4), Pan: pan, Loop: true,
			Start: float64(now-min(now, l.Start)) * dt})
		if !ok {
			continue
		}
		if err != nil {
			s.stats.Failed++
			continue
		}
		s.playingLoops = append(s.playingLoops, playingLoop{entity: e, loop: l, voice: v})
		if l.Spatial {
			s.spatial = append(s.spatial, spatialVoice{voice: v, entity: e, volume: vol})
		}
		s.stats.LoopsStarted++
	}
	// The music.
	m := s.music.Get()
	if m == s.playingMusic && (m.Track == 0 || s.out.Playing(s.musicVoice)) {
		return
	}
	fade := float64(m.Fade) * dt
	if s.playingMusic.Track != 0 {
		s.out.Stop(s.musicVoice, max(fade, s.cfg.FadeOut))
	}
	s.playingMusic, s.musicVoice = m, mix.Voice{}
	since := float64(now-min(now, m.Start)) * dt
	v, ok, err := s.playID(m.Track, mix.Params{Bus: mix.Music, Volume: orOne(m.Volume), Loop: true, Start: since, FadeIn: max(fade-since, 0)})
	if !ok {
		return
	}
	if err != nil {
		s.stats.Failed++
		return
	}
	s.musicVoice = v
	s.stats.TracksStarted++
}

// loopPlaying reports whether e's loop l is playing.
func (s *Sounds) loopPlaying(e engine.Entity, l Loop) bool {
	for _, p := range s.playingLoops {
		if p.entity == e && p.loop == l {
			return true
		}
	}
	return false
}

// orOne returns v, or 1 for 0.
func orOne(v float32) float32 {
	if v == 0 {
		return 1
	}
	return v
}
