// Package device plays a mixer's stream through the machine's audio
// output (ebitengine/oto: ALSA on Linux, which reaches PulseAudio or
// PipeWire through their ALSA plugins; Core Audio, WASAPI elsewhere).
//
// The device's goroutine pulls samples from the mixer (mix.Mixer.Mix),
// which takes no lock and allocates nothing; the game's side never waits
// for it. A process has one Device open at a time: oto allows one audio
// context a process, which the first Open makes and later ones, after a
// Close, play through again (at the same rate).
package device

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ebitengine/oto/v3"

	"github.com/nebulaengine/nebula/engine/sound/mix"
)

// Config says how the device is opened.
type Config struct {
	// Buffer is the device's buffer, seconds: the latency from a
	// mixer command to its sound, and the margin against underruns.
	// 0 lets the driver choose.
	Buffer float64
}

// DefaultConfig returns a buffer of 40 ms.
func DefaultConfig() Config { return Config{Buffer: 0.04} }

// Stats are a device's counters.
type Stats struct {
	// Reads counts the device's requests for samples, and Frames the
	// frames they took.
	Reads, Frames uint64
	// Late counts requests that came later than the audio already given
	// lasts (plus the buffer): the device ran dry, an underrun heard as
	// a gap. The device's first second of audio is not counted: a device
	// starting up may wait before it asks again.
	Late uint64
}

// Device plays a mixer through the audio output. Make one with Open.
type Device struct {
	player *oto.Player
	src    *source
}

// output is the process's oto context: oto allows one, for the life of
// the process, at one rate.
var output struct {
	sync.Mutex
	ctx  *oto.Context
	err  error // why the context could not be made, for every later Open
	rate int
	open bool // a Device plays through it
}

// ErrOpened is Open's error when a device is open already.
var ErrOpened = errors.New("device: a device is open already (one at a time a process)")

// Open starts playing m through the default audio output at m's rate,
// in stereo. It returns an error when there is no audio output (no
// server, no driver), when a device is open already, or when m's rate is
// not the rate of the process's first device.
func Open(m *mix.Mixer, cfg Config) (*Device, error) {
	if !(cfg.Buffer >= 0 && cfg.Buffer <= 1) {
		return nil, fmt.Errorf("device: a buffer of %v s, want 0 to 1", cfg.Buffer)
	}
	output.Lock()
	defer output.Unlock()
	if output.open {
		return nil, ErrOpened
	}
	if output.err != nil {
		return nil, output.err
	}
	// Looked for at every Open: a server may start, or go away, between
	// two.
	if err := findOutput(); err != nil {
		return nil, err
	}
	if output.ctx == nil {
		ctx, ready, err := oto.NewContext(&oto.NewContextOptions{
			SampleRate:   m.Rate(),
			ChannelCount: 2,
			Format:       oto.FormatFloat32LE,
			BufferSize:   time.Duration(cfg.Buffer * float64(time.Second)),
		})
		if err == nil {
			<-ready
			err = ctx.Err() // ALSA could not open a device
		}
		if err != nil {
			output.err = fmt.Errorf("device: no audio output: %w", err)
			return nil, output.err
		}
		output.ctx, output.rate = ctx, m.Rate()
	} else {
		if output.rate != m.Rate() {
			return nil, fmt.Errorf("device: a mixer at %d Hz, but the process's audio output runs at %d Hz (its first device's rate)", m.Rate(), output.rate)
		}
		if err := output.ctx.Resume(); err != nil {
			return nil, fmt.Errorf("device: %w", err)
		}
	}
	src := &source{m: m, rate: m.Rate(), buffer: time.Duration(cfg.Buffer * float64(time.Second))}
	p := output.ctx.NewPlayer(src)
	p.SetBufferSize(int(cfg.Buffer * float64(m.Rate()) * 8))
	p.Play()
	output.open = true
	return &Device{player: p, src: src}, nil
}

// Stats returns the device's counters.
func (d *Device) Stats() Stats {
	return Stats{Reads: d.src.reads.Load(), Frames: d.src.frames.Load(), Late: d.src.late.Load()}
}

// Close stops playing; the mixer is no longer pulled. Another device
// can then be opened. Closing twice does nothing.
func (d *Device) Close() error {
	output.Lock()
	defer output.Unlock()
	if d.player == nil {
		return nil
	}
	d.player.Pause()
	d.player = nil
	output.open = false
	if err := output.ctx.Suspend(); err != nil {
		return fmt.Errorf("device: %w", err)
	}
	return nil
}

// source is the io.Reader oto pulls from.
type source struct {
	m      *mix.Mixer
	rate   int
	buffer time.Duration

	buf                 []float32     // the mixed samples, before they become bytes
	last                time.Time     // when the last read returned
	given               time.Duration // how long the audio it gave lasts
	reads, frames, late atomic.Uint64
}

// Read fills p with whole stereo float32 frames from the mixer.
func (s *source) Read(p []byte) (int, error) {
	n := len(p) / 8 * 8
	if n == 0 {
		return 0, nil
	}
	now := time.Now()
	// A device starting up may take a while to ask again (ALSA's pulse
	// plugin fills its buffer, then waits about a second): lateness counts
	// from its second second of audio on.
	if !s.last.IsZero() && now.Sub(s.last) > s.given+s.buffer && s.frames.Load() >= uint64(s.rate) {
		s.late.Add(1)
	}
	if cap(s.buf) < n/4 {
		s.buf = make([]float32, n/4) // once, as the device settles on its size
	}
	buf := s.buf[:n/4]
	s.m.Mix(buf)
	for i, v := range buf {
		binary.LittleEndian.PutUint32(p[4*i:], math.Float32bits(v))
	}
	s.reads.Add(1)
	s.frames.Add(uint64(n / 8))
	s.last = time.Now()
	s.given = time.Duration(n/8) * time.Second / time.Duration(s.rate)
	return n, nil
}
