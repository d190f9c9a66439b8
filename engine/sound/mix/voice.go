package mix

import (
	"fmt"
	"math"

	"github.com/nebulaengine/nebula/engine/sound/decode"
)

// The commands the game's side queues for the audio side.
type opcode uint8

const (
	opPlay opcode = iota + 1
	opStop
	opSet
	opPitch
	opBus
)

// command is one queued change.
type command struct {
	op     opcode
	slot   uint16
	gen    uint32
	bus    Bus
	sound  *decode.Sound
	feed   *feeder // opPlay of a stream
	params Params
	vol    float32 // opSet, opBus
	pan    float32 // opSet
	pitch  float32 // opPitch
	fade   int     // frames: opStop, opBus; opPlay's fade-in
	start  float64 // opPlay: frames into the sound (a stream's: past the frame its feeder seeks to)
}

// ramp is a value that moves linearly to a target over a number of frames.
type ramp struct {
	cur, target, step float32
	left              int
}

// to sets the ramp's target, reached in frames frames (at once for 0).
func (r *ramp) to(target float32, frames int) {
	r.target = target
	if frames <= 0 {
		r.cur, r.left = target, 0
		return
	}
	r.step = float32(target-r.cur) / float32(frames)
	r.left = frames
}

// next returns the ramp's value at this frame and moves it on.
func (r *ramp) next() float32 {
	v := r.cur
	if r.left > 0 {
		r.left--
		r.cur = float32(r.cur + r.step)
		if r.left == 0 {
			r.cur = r.target
		}
	}
	return v
}

// declick is the shortest ramp of a voice's gain, frames at 48 kHz (about
// 2.7 ms): a voice that starts, stops or changes volume at once would
// click.
const declickSeconds = 128.0 / 48000

// voice is one playing sound on the audio side.
type voice struct {
	active   bool
	stopping bool // fading out, then ends
	gen      uint32
	sound    *decode.Sound // nil for a stream
	feed     *feeder       // a stream's, or nil
	primed   bool          // a stream's ring has filled enough to start
	dryCall  uint64        // the Mix call that last counted the stream's ring dry
	channels int           // the sound's or the stream's
	rate     int           // the sound's or the stream's, frames a second
	bus      Bus
	loop     bool
	pos      float64 // frames into the sound (a stream's: into its ring, from the first frame fed)
	step     float64 // frames of the sound a frame of the mix
	left     ramp    // the gain of the left output
	right    ramp    // the gain of the right output
	volume   float32 // what the gains are made from
	pan      float32
}

// panGains returns the left and right gains of volume at pan, constant
// power: cos and sin of (pan + 1)·π/4.
func panGains(volume, pan float32) (l, r float32) {
	a := float64(pan+1) * math.Pi / 4
	return float32(float64(volume) * math.Cos(a)), float32(float64(volume) * math.Sin(a))
}

// frames returns seconds as frames at rate, rounded.
func frames(seconds float64, rate int) int {
	return int(math.Round(seconds * float64(rate)))
}

// Play starts s with p and returns its voice; p.Start past the end of a
// sound that does not loop plays nothing (a voice that has ended). It
// returns an error for bad parameters, a sound that is nil or empty, or
// when every voice is taken (counted in Stats.Dropped).
func (m *Mixer) Play(s *decode.Sound, p Params) (Voice, error) {
	if err := p.Validate(); err != nil {
		return Voice{}, err
	}
	if s == nil || s.Frames() == 0 || s.Channels < 1 {
		return Voice{}, fmt.Errorf("mix: Play: no sound (nil, or no samples)")
	}
	slot, err := m.takeSlot(s.Name)
	if err != nil {
		return Voice{}, err
	}
	v := Voice{slot: uint16(slot), gen: m.gens[slot]}
	if !m.push(command{op: opPlay, slot: v.slot, gen: v.gen, sound: s, params: p,
		fade: frames(p.FadeIn, m.rate), start: p.Start * float64(s.Rate)}) {
		return Voice{}, fmt.Errorf("mix: Play %s: the command queue is full (%d commands since the last Mix)", s.Name, QueueSize)
	}
	m.used[slot] = true
	return v, nil
}

// takeSlot finds a free slot and moves its generation on, for a voice of
// name.
func (m *Mixer) takeSlot(name string) (int, error) {
	slot := -1
	for i := range m.used {
		if m.used[i] && m.ended[i].Load() == m.gens[i] {
			m.used[i] = false // it ended on the audio side
			m.feeds[i] = nil
		}
		if !m.used[i] && slot < 0 {
			slot = i
		}
	}
	if slot < 0 {
		m.dropped.Add(1)
		return -1, fmt.Errorf("mix: Play %s: all %d voices are playing", name, MaxVoices)
	}
	m.gens[slot]++
	if m.gens[slot] == 0 {
		m.gens[slot] = 1 // 0 is no voice
	}
	return slot, nil
}

// Stop fades v out over fade seconds (0: at once, with a few samples'
// ramp) and ends it. A voice that has ended is left alone.
func (m *Mixer) Stop(v Voice, fade float64) {
	if !m.mine(v) || !(fade >= 0) {
		return
	}
	m.push(command{op: opStop, slot: v.slot, gen: v.gen, fade: frames(fade, m.rate)})
}

// Set changes v's volume and pan (see Params), reached within a few
// milliseconds: what a 3D sound's listener changes every frame.
func (m *Mixer) Set(v Voice, volume, pan float32) error {
	if !m.mine(v) {
		return nil
	}
	if err := (Params{Volume: volume, Pan: pan}).Validate(); err != nil {
		return err
	}
	m.push(command{op: opSet, slot: v.slot, gen: v.gen, vol: volume, pan: pan})
	return nil
}

// SetPitch changes v's pitch (see Params).
func (m *Mixer) SetPitch(v Voice, pitch float32) error {
	if !m.mine(v) {
		return nil
	}
	if err := (Params{Pitch: pitch}).Validate(); err != nil {
		return err
	}
	m.push(command{op: opPitch, slot: v.slot, gen: v.gen, pitch: pitch})
	return nil
}

// SetBus moves bus b's volume (0 to 4) to volume over fade seconds.
func (m *Mixer) SetBus(b Bus, volume float32, fade float64) error {
	if err := (Params{Bus: b, Volume: volume, FadeIn: fade}).Validate(); err != nil {
		return err
	}
	m.busVol[b] = volume
	m.push(command{op: opBus, bus: b, vol: volume, fade: frames(fade, m.rate)})
	return nil
}

// BusVolume returns what SetBus last set for b.
func (m *Mixer) BusVolume(b Bus) float32 { return m.busVol[b] }

// Playing reports whether v has not ended (as far as the last Mix knows:
// a voice just played is playing).
func (m *Mixer) Playing(v Voice) bool {
	return m.mine(v) && m.ended[v.slot].Load() != v.gen
}

// mine reports whether v is the current voice of its slot.
func (m *Mixer) mine(v Voice) bool {
	return v.gen != 0 && int(v.slot) < MaxVoices && m.used[v.slot] && m.gens[v.slot] == v.gen
}

// push queues c, reporting false (and counting it dropped) when the queue
// is full.
func (m *Mixer) push(c command) bool {
	t := m.tail.Load()
	if t-m.head.Load() >= QueueSize {
		m.dropped.Add(1)
		return false
	}
	m.cmds[t%QueueSize] = c
	m.tail.Store(t + 1)
	return true
}
