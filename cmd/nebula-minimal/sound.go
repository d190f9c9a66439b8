package main

import (
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/sound"
	"github.com/nebulaengine/nebula/engine/sound/mix"
	"github.com/nebulaengine/nebula/engine/sound/synth"
)

// The game's sound: fixed systems emit events (sound.Sounds.Emit) when
// something happens, a jump, a landing, the dummy knocked down, and never
// touch the audio device; the sounds are made from code (package synth),
// where a game of your own might load files (decode.File("jump.wav")).
const (
	// soundRate is the mixer's rate, frames a second.
	soundRate = 48000
	// The notes, Hz: the jump's two (a rising fifth), the landing thud's
	// and the knocked-down dummy's, each falling as it sounds.
	jumpLow, jumpHigh, thudTone, knockTone = 523, 784, 150, 220
	// landSpeed is the speed, m/s, a fall must hit the ground at to thud
	// (standing still, the character falls g·dt a tick: 0.16 m/s).
	landSpeed = 1
)

// sfx holds the IDs of the game's sounds.
type sfx struct{ jump, land, knock sound.ID }

// addSounds gives the world its sound, heard through no output until
// hear gives it one (a headless run, like a server, plays nothing), and
// registers the game's sounds.
func (g *world) addSounds() error {
	cfg := sound.DefaultConfig()
	// The camera is about 25 m from the scene: a spatial sound there
	// plays at full volume, and fades only farther away.
	cfg.Rolloff = sound.Rolloff{Near: 25, Far: 100}
	var err error
	if g.sounds, err = sound.New(g.e, nil, cfg); err != nil {
		return err
	}
	g.sfx = sfx{
		jump: g.sounds.Register(synth.MustRender("jump", soundRate, []synth.Note{
			{Wave: synth.Square, Freq: jumpLow, Length: 0.06, Volume: 0.2},
			{Wave: synth.Square, Freq: jumpHigh, Start: 0.06, Length: 0.1, Volume: 0.2, Decay: 0.05},
		})),
		land: g.sounds.Register(synth.MustRender("land", soundRate, []synth.Note{
			{Wave: synth.Sine, Freq: thudTone, Slide: 60, Length: 0.2, Volume: 0.8, Decay: 0.06},
			{Wave: synth.Noise, Freq: 3000, Length: 0.04, Volume: 0.2, Decay: 0.01},
		})),
		knock: g.sounds.Register(synth.MustRender("knock", soundRate, []synth.Note{
			{Wave: synth.Triangle, Freq: knockTone, Slide: 110, Length: 0.4, Volume: 0.7, Decay: 0.12},
			{Wave: synth.Noise, Freq: 6000, Length: 0.08, Volume: 0.3, Decay: 0.02},
		})),
	}
	return nil
}

// hear plays the sounds through a mixer that cfg's runner plays (through
// the audio output, or silently where none opens), heard from cfg's
// camera: a game whose camera moves calls SetListener every frame, in an
// Update system.
func (g *world) hear(cfg *desktop.Config) error {
	m, err := mix.New(soundRate)
	if err != nil {
		return err
	}
	g.sounds.SetOutput(m)
	cam := cfg.Camera
	g.sounds.SetListener(sound.Listener{Pos: cam.Eye, Forward: cam.Target.Sub(cam.Eye), Up: cam.Up})
	cfg.Sound = m
	return nil
}
