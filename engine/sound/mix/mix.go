// Package mix mixes many sounds into one stereo stream: voices with
// their own volume, pan, pitch and looping, fading in and out without
// clicks, on buses (effects, music, the interface) with volumes of their
// own.
//
// A Mixer has two sides. The game's side (Play, Stop, Set, SetBus, the
// main thread's) queues commands; the audio side (Mix, called by the audio
// device's callback, or by a headless run to render a file) takes the
// commands queued before it and fills a buffer. The two meet only through
// a queue of fixed size and a few atomic counters: Mix takes no lock and
// allocates nothing, and the game's side never waits for it.
//
// Music too long to hold decoded streams from its file (PlayStream): a
// goroutine of the voice's own reads the file ahead into a ring of
// samples, and the audio side reads the ring, still without a lock, an
// allocation or a file read; a ring that runs dry is silence, counted
// (Stats.StreamUnderruns), never a wait. The voice ending ends the
// goroutine and closes the file.
//
// Mixing is exact arithmetic in a fixed order: the same commands given
// before the same Mix calls make the same samples, bit for bit, on every
// run (a rendered mix can be checked like a hash); a stream mixes as the
// same file decoded whole does, when Mix waits for Buffered.
//
//	m := mix.New(48000)
//	v, err := m.Play(hit, mix.Params{Bus: mix.Effects, Volume: 0.8, Pitch: 1})
//	...
//	m.Mix(buf) // on the audio side: interleaved stereo float32
package mix

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/nebulaengine/nebula/engine/sound/decode"
)

// MaxVoices is the number of voices a Mixer plays at once.
const MaxVoices = 128

// Bus is what a voice is mixed through, with a volume of its own. Its
// String is "effects", "music" or "interface".
type Bus uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Bus -linecomment

// The buses.
const (
	Effects   Bus = iota // effects
	Music                // music
	Interface            // interface
)

// NumBuses is the number of buses.
const NumBuses = 3

// Params says how a voice plays.
type Params struct {
	// Bus is the bus it is mixed through.
	Bus Bus
	// Volume is its gain, 0 (silent) to 4; 1 plays the sound as recorded.
	Volume float32
	// Pan places it from -1 (left) through 0 (centre) to 1 (right),
	// with constant power.
	Pan float32
	// Pitch is its speed, 1/16 to 16: 2 plays it an octave up and in
	// half the time. 0 means 1.
	Pitch float32
	// Loop plays it again from its start when it ends, until stopped.
	Loop bool
	// Start is how far into the sound it starts, in seconds (a sound
	// started late, after a rollback, starts part-way): at least 0; past
	// the end of a sound that does not loop, nothing is played.
	Start float64
	// FadeIn is the time, seconds, it takes to rise from silence to its
	// volume; 0 starts it at once (a few samples' ramp still avoids a
	// click).
	FadeIn float64
}

// Validate reports whether p is usable, saying what is wrong and what is
// accepted.
func (p Params) Validate() error {
	switch {
	case p.Bus >= NumBuses:
		return fmt.Errorf("mix: bus %d, want Effects, Music or Interface", p.Bus)
	case !(p.Volume >= 0 && p.Volume <= 4):
		return fmt.Errorf("mix: volume %v, want 0 to 4", p.Volume)
	case !(p.Pan >= -1 && p.Pan <= 1):
		return fmt.Errorf("mix: pan %v, want -1 (left) to 1 (right)", p.Pan)
	case p.Pitch != 0 && !(p.Pitch >= 1.0/16 && p.Pitch <= 16):
		return fmt.Errorf("mix: pitch %v, want 1/16 to 16 (or 0 for 1)", p.Pitch)
	case !(p.Start >= 0) || math.IsInf(p.Start, 0):
		return fmt.Errorf("mix: start %v s, want 0 or later", p.Start)
	case !(p.FadeIn >= 0 && p.FadeIn <= 60):
		return fmt.Errorf("mix: fade-in %v s, want 0 to 60", p.FadeIn)
	}
	return nil
}

// Voice names a playing voice: its slot and the generation of that slot,
// so that a voice that ended and whose slot was reused is not touched.
// The zero Voice is none.
type Voice struct {
	slot uint16
	gen  uint32
}

// Stats are the mixer's counters, read from the game's side.
type Stats struct {
	// Frames is the number of frames Mix has produced.
	Frames uint64
	// Playing is the number of voices playing after the last Mix.
	Playing int
	// Dropped counts commands the queue had no room for (the game queued
	// more than QueueSize between two Mix calls) and voices refused for
	// want of a free one.
	Dropped uint64
	// Clipped counts output samples beyond [-1, 1], clamped.
	Clipped uint64
	// Streams is the number of streams open (PlayStream): each has a
	// goroutine reading its file ahead of the voice, until the voice ends
	// or Close.
	Streams int
	// StreamUnderruns counts the Mix calls in which a streamed voice found
	// its ring of decoded samples dry (its file read too slowly) and was
	// silent, once a voice and call.
	StreamUnderruns uint64
	// StreamErrors counts streams that ended on an error reading their
	// file (a file changed or cut short while played).
	StreamErrors uint64
}

// QueueSize is the number of commands the game can queue between two Mix
// calls.
const QueueSize = 1024

// Mixer mixes voices into a stereo stream at a fixed rate. Make one with
// New.
type Mixer struct {
	rate int

	// The game's side.
	used   [MaxVoices]bool    // the slots the game has handed out and not seen end
	feeds  [MaxVoices]*feeder // the streams the game has started, by slot, until seen to end
	gens   [MaxVoices]uint32  // each slot's current generation
	busVol [NumBuses]float32  // what SetBus last set

	// The queue, game to audio: the game writes cmds[tail%QueueSize] then
	// advances tail; the audio side reads from head.
	cmds       [QueueSize]command
	head, tail atomic.Uint64

	// The audio side.
	voices  [MaxVoices]voice
	buses   [NumBuses]ramp
	busGain [NumBuses][blockFrames]float32 // the buses' gains over a block
	ended   [MaxVoices]atomic.Uint32       // the generation of the slot's voice that ended (audio to game)
	frames  atomic.Uint64
	playing atomic.Int32
	dropped atomic.Uint64
	clipped atomic.Uint64
	calls   uint64 // Mix calls
	// The streams' counters.
	streams      atomic.Int32 // feeders running
	underruns    atomic.Uint64
	streamErrors atomic.Uint64
}

// New returns a mixer that makes rate frames a second (8,000 to 192,000),
// every bus at volume 1.
func New(rate int) (*Mixer, error) {
	if rate < decode.MinRate || rate > decode.MaxRate {
		return nil, fmt.Errorf("mix: a rate of %d frames a second, want %d to %d", rate, decode.MinRate, decode.MaxRate)
	}
	m := &Mixer{rate: rate}
	for b := range m.buses {
		m.busVol[b] = 1
		m.buses[b] = ramp{cur: 1, target: 1}
	}
	return m, nil
}

// Rate returns the frames a second the mixer makes.
func (m *Mixer) Rate() int { return m.rate }

// Stats returns the mixer's counters.
func (m *Mixer) Stats() Stats {
	return Stats{Frames: m.frames.Load(), Playing: int(m.playing.Load()), Dropped: m.dropped.Load(), Clipped: m.clipped.Load(),
		Streams: int(m.streams.Load()), StreamUnderruns: m.underruns.Load(), StreamErrors: m.streamErrors.Load()}
}
