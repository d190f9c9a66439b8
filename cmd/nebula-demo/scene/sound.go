package scene

import (
	"fmt"
	"sync"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/sound"
	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/engine/sound/mix"
	"github.com/nebulaengine/nebula/engine/sound/synth"
)

// The scene's sound, in one place.
const (
	// SoundRate is the rate of the scene's sounds, and of the demo's
	// mixer.
	SoundRate = 48000
	// BounceImpulse is the contact impulse, N·s, below which a bounce is
	// silent, and LoudImpulse the impulse of a bounce at full volume.
	BounceImpulse, LoudImpulse = 0.5, 8
	// MaxBounceSounds is the most bounces a tick sounds (the first, in
	// the step's event order): a pile settling does not take every voice.
	MaxBounceSounds = 6
	// MaxPointSounds is the most points a tick of the scripted mode
	// sounds.
	MaxPointSounds = 2
	// FanfareTicks is how long the goal's fanfare plays before the
	// music comes back, at 60 Hz.
	FanfareTicks = 240
	// musicFade is the ticks of the cross-fade between tracks.
	musicFade = 45
)

// SoundIDs are the scene's sounds, registered in this order by every
// peer of a match.
type SoundIDs struct {
	// Bounce is a body hitting another (physics mode), Shot a shot
	// fired, Goal a shot entering the goal, Point a cube coming to touch
	// a player (the scripted mode).
	Bounce, Shot, Goal, Point sound.ID
	// Music is the music's track, Fanfare the track a goal plays.
	Music, Fanfare sound.ID
}

// sounds are the scene's sounds, made from code once a process: they are
// the same every time.
var sounds = sync.OnceValue(func() [6]*decode.Sound {
	note := func(w synth.Wave, start, length, freq, slide float64, vol float32, decay float64) synth.Note {
		return synth.Note{Wave: w, Start: start, Length: length, Freq: freq, Slide: slide, Volume: vol, Release: 0.005, Decay: decay}
	}
	var out [6]*decode.Sound
	out[0] = synth.MustRender("bounce", SoundRate, []synth.Note{
		note(synth.Sine, 0, 0.18, 190, 70, 0.45, 0.05),
		note(synth.Noise, 0, 0.04, 3000, 0, 0.12, 0.01),
	})
	out[1] = synth.MustRender("shot", SoundRate, []synth.Note{
		note(synth.Square, 0, 0.16, 880, 220, 0.35, 0.06),
		note(synth.Noise, 0, 0.08, 6000, 0, 0.2, 0.03),
	})
	var goal []synth.Note
	for i, f := range []float64{523.25, 659.25, 783.99, 1046.5} { // C5 E5 G5 C6
		goal = append(goal, note(synth.Triangle, 0.09*float64(i), 0.6, f, 0, 0.35, 0.25))
	}
	out[2] = synth.MustRender("goal", SoundRate, goal)
	out[3] = synth.MustRender("point", SoundRate, []synth.Note{note(synth.Sine, 0, 0.1, 1318.5, 1760, 0.3, 0.04)})
	out[4] = synth.MustRender("music", SoundRate, song([4][3]float64{
		{220, 261.63, 329.63}, {174.61, 220, 261.63}, {130.81, 164.81, 196}, {196, 246.94, 293.66}, // Am F C G
	}, 0.5))
	out[5] = synth.MustRender("fanfare", SoundRate, song([4][3]float64{
		{261.63, 329.63, 392}, {349.23, 440, 523.25}, {392, 493.88, 587.33}, {261.63, 329.63, 392}, // C F G C
	}, 0.3))
	return out
})

// song returns four bars of chords, a bass note on every beat and the
// chord arpeggiated in eighths, beat seconds a beat: a loop.
func song(chords [4][3]float64, beat float64) []synth.Note {
	var notes []synth.Note
	for bar, ch := range chords {
		for b := range 4 {
			t := float64(bar*4+b) * beat
			notes = append(notes, synth.Note{Wave: synth.Triangle, Start: t, Length: beat * 0.9, Freq: ch[0] / 2, Volume: 0.3, Release: 0.02, Decay: beat})
			for k := range 2 {
				notes = append(notes, synth.Note{Wave: synth.Sine, Start: t + float64(k)*beat/2, Length: beat / 2, Freq: ch[(2*b+k)%3] * 2,
					Volume: 0.12, Attack: 0.01, Release: 0.03, Decay: beat / 3})
			}
		}
	}
	return notes
}

// setupSound gives the scene its sound: the events its fixed systems
// emit, and the music, world state. Nothing plays until the game gives
// it an output (sound.Sounds.SetOutput): a server reconciles and counts
// the same events, silently.
func (s *Scene) setupSound(e *engine.Engine) error {
	snd, err := sound.New(e, nil, sound.DefaultConfig())
	if err != nil {
		return fmt.Errorf("scene: %w", err)
	}
	s.Sounds = snd
	all := sounds()
	ids := []*sound.ID{&s.Sound.Bounce, &s.Sound.Shot, &s.Sound.Goal, &s.Sound.Point, &s.Sound.Music, &s.Sound.Fanfare}
	for i, id := range ids {
		*id = snd.Register(all[i])
	}
	snd.Music().Set(sound.Music{Track: s.Sound.Music, Volume: 0.8})
	if err := e.AddSystem(engine.StageScripts, "music", s.music); err != nil {
		return fmt.Errorf("scene: %w", err)
	}
	return nil
}

// music brings the music back after a goal's fanfare.
func (s *Scene) music(c *engine.FixedContext) {
	m := s.Sounds.Music().Get()
	if m.Track == s.Sound.Fanfare && c.Tick >= m.Start+FanfareTicks {
		s.Sounds.Music().Set(sound.Music{Track: s.Sound.Music, Start: c.Tick, Fade: musicFade, Volume: 0.8})
	}
}

// goalSound sounds a goal and plays the fanfare.
func (s *Scene) goalSound(c *engine.FixedContext) {
	s.Sounds.Emit(c, sound.Event{Sound: s.Sound.Goal, Bus: mix.Interface, Volume: 0.9})
	s.Sounds.Music().Set(sound.Music{Track: s.Sound.Fanfare, Start: c.Tick, Fade: musicFade / 3, Volume: 0.8})
}

// bounceSounds sounds the step's hardest new contacts: the first
// MaxBounceSounds Begin events (not sensors) with an impulse of at least
// BounceImpulse, each at its contact point, following the body that is
// not static, louder the harder the hit, pitched by the body.
func (s *Scene) bounceSounds(c *engine.FixedContext) {
	n := 0
	for _, ev := range s.Space.Events() {
		if ev.Kind != physics.Begin || ev.Sensor || ev.Impulse < BounceImpulse {
			continue
		}
		body := ev.A
		if b, ok := s.Space.Body(body); ok && b.Kind == physics.Static {
			body = ev.B
		}
		s.Sounds.Emit(c, sound.Event{Sound: s.Sound.Bounce, Entity: body, Spatial: true, Pos: ev.Point,
			Volume: min(ev.Impulse/LoudImpulse, 1), Pitch: 0.85 + 0.06*float32(body.Index()%6)})
		if n++; n == MaxBounceSounds {
			return
		}
	}
}
