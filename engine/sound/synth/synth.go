// Package synth makes sounds from code: notes of simple waves with a
// pitch slide and an envelope, rendered to a decode.Sound. A game (the
// demo, the template) makes its bounces, shots, chimes and music with it
// and ships no sound files.
//
//	hit := synth.Render("hit", 48000, []synth.Note{
//		{Wave: synth.Sine, Freq: 180, Slide: 60, Length: 0.15, Volume: 0.8, Decay: 0.04},
//		{Wave: synth.Noise, Freq: 2000, Length: 0.03, Volume: 0.3, Decay: 0.01},
//	})
//
// Rendering is deterministic: the same notes give the same samples, bit
// for bit (the noise comes from a fixed generator).
package synth

import (
	"fmt"
	"math"

	"github.com/nebulaengine/nebula/engine/sound/decode"
)

// Wave is the shape of a note's wave. Its String is "sine", "square",
// "triangle", "saw" or "noise".
type Wave uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Wave -linecomment

// The waves.
const (
	Sine     Wave = iota // sine
	Square               // square
	Triangle             // triangle
	Saw                  // saw
	// Noise is white noise, held for a sample of Freq: higher is
	// brighter.
	Noise // noise
)

// Note is one sound of a Render: a wave from Start for Length seconds.
type Note struct {
	// Wave is the wave's shape.
	Wave Wave
	// Start is when the note begins, seconds into the sound, and Length
	// how long it lasts.
	Start, Length float64
	// Freq is the pitch at the start, Hz, and Slide the pitch at the end
	// (0: no slide), the pitch moving between them exponentially.
	Freq, Slide float64
	// Volume is the peak amplitude, 0 to 1.
	Volume float32
	// Attack and Release are the seconds of the linear fade in at the
	// start and out at the end (at least a millisecond each, against
	// clicks).
	Attack, Release float64
	// Decay, when above 0, makes the note fall exponentially after the
	// attack, by 1/e every Decay seconds: a struck sound.
	Decay float64
}

// minFade is the shortest Attack and Release: a millisecond, which keeps
// a note's ends from clicking.
const minFade = 0.001

// Validate reports what is wrong with n, saying what is accepted.
func (n Note) Validate() error {
	switch {
	case n.Wave > Noise:
		return fmt.Errorf("synth: wave %d, want Sine to Noise", n.Wave)
	case !(n.Start >= 0 && n.Start <= 600) || !(n.Length > 0 && n.Length <= 600):
		return fmt.Errorf("synth: a note at %v s for %v s, want a start from 0 and a length above 0, both at most 600 s", n.Start, n.Length)
	case !(n.Freq >= 1 && n.Freq <= 24000) || !(n.Slide == 0 || (n.Slide >= 1 && n.Slide <= 24000)):
		return fmt.Errorf("synth: a pitch of %v Hz sliding to %v Hz, want 1 to 24,000 Hz (a slide of 0: none)", n.Freq, n.Slide)
	case !(n.Volume >= 0 && n.Volume <= 1):
		return fmt.Errorf("synth: a volume of %v, want 0 to 1", n.Volume)
	case !(n.Attack >= 0 && n.Release >= 0 && n.Decay >= 0 && n.Attack+n.Release <= n.Length+2*minFade):
		return fmt.Errorf("synth: attack %v s, release %v s and decay %v s, want none below 0 and the attack and release within the note's %v s", n.Attack, n.Release, n.Decay, n.Length)
	}
	return nil
}

// Render returns notes mixed into one mono sound at rate, named name, as
// long as its last note. Samples past [-1, 1] are clipped. It returns an
// error for a rate outside decode's limits or a note that does not
// Validate.
func Render(name string, rate int, notes []Note) (*decode.Sound, error) {
	if rate < decode.MinRate || rate > decode.MaxRate {
		return nil, fmt.Errorf("synth: %s: a rate of %d Hz, want %d to %d", name, rate, decode.MinRate, decode.MaxRate)
	}
	end := 0.0
	for i, n := range notes {
		if err := n.Validate(); err != nil {
			return nil, fmt.Errorf("synth: %s: note %d: %w", name, i, err)
		}
		end = max(end, n.Start+n.Length)
	}
	out := make([]float32, int(math.Ceil(end*float64(rate))))
	for i, n := range notes {
		render(out, rate, n, uint32(i)+1)
	}
	for i, v := range out {
		out[i] = max(-1, min(1, v))
	}
	return &decode.Sound{Name: name, Rate: rate, Channels: 1, Samples: out}, nil
}

// MustRender is Render for notes written in the program: it panics on an
// error, which is a bug there.
func MustRender(name string, rate int, notes []Note) *decode.Sound {
	s, err := Render(name, rate, notes)
	if err != nil {
		panic(err)
	}
	return s
}

// render adds note n to out; seed starts its noise.
func render(out []float32, rate int, n Note, seed uint32) {
	first := int(math.Round(n.Start * float64(rate)))
	count := int(math.Round(n.Length * float64(rate)))
	attack := max(n.Attack, minFade)
	release := max(n.Release, minFade)
	slide := n.Slide
	if slide == 0 {
		slide = n.Freq
	}
	ratio := math.Log(slide / n.Freq)
	phase, noise, held := 0.0, seed*2654435761+1, float32(0)
	dt := 1 / float64(rate)
	for k := range count {
		i := first + k
		if i >= len(out) {
			break
		}
		t := float64(k) * dt
		f := n.Freq * math.Exp(ratio*t/n.Length)
		env := 1.0
		if t < attack {
			env = t / attack
		}
		if left := n.Length - t; left < release {
			env = min(env, left/release)
		}
		if n.Decay > 0 && t > attack {
			env *= math.Exp(-(t - attack) / n.Decay)
		}
		var v float64
		switch n.Wave {
		case Sine:
			v = math.Sin(2 * math.Pi * phase)
		case Square:
			v = 1
			if phase >= 0.5 {
				v = -1
			}
		case Triangle:
			v = 4*math.Abs(phase-0.5) - 1
		case Saw:
			v = 2*phase - 1
		case Noise:
			if k == 0 || phase+f*dt >= 1 {
				noise = noise*1664525 + 1013904223
				held = float32(int32(noise)) / (1 << 31)
			}
			v = float64(held)
		}
		out[i] += n.Volume * float32(v*env)
		phase += f * dt
		phase -= math.Floor(phase)
	}
}
