// Package device plays a mixer's stream through the machine's audio
// output (ebitengine/oto: ALSA on Linux, which reaches PulseAudio or
// PipeWire through their ALSA plugins; Core Audio, WASAPI elsewhere).
//
// The device's goroutine pulls samples from the mixer (mix.Mixer.Mix),
// which takes no lock and allocates nothing; the game's side never waits
// for it. A process opens one Device (oto allows one context).
package device

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
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
	// a gap.
	Late uint64
}

// Device plays a mixer through the audio output. Make one with Open.
type Device struct {
	ctx    *oto.Context
	player *oto.Player
	src    *source
}

// opened says a device was opened: oto allows one context a process.
var opened atomic.Bool

// ErrOpened is Open's error when the process opened a device already.
var ErrOpened = errors.New("device: a device is open already (one a process)")

// Open starts playing m through the default audio output at m's rate,
// in stereo. It returns an error when there is no audio output (no
// server, no driver) or a device is open already.
func Open(m *mix.Mixer, cfg Config) (*Device, error) {
	if !(cfg.Buffer >= 0 && cfg.Buffer <= 1) {
		return nil, fmt.Errorf("device: a buffer of %v s, want 0 to 1", cfg.Buffer)
	}
	if !opened.CompareAndSwap(false, true) {
		return nil, ErrOpened
	}
	ctx, ready, err := oto.NewContext(&oto.NewContextOptions{
		SampleRate:   m.Rate(),
		ChannelCount: 2,
		Format:       oto.FormatFloat32LE,
		BufferSize:   time.Duration(cfg.Buffer * float64(time.Second)),
	})
	if err != nil {
		return nil, fmt.Errorf("device: no audio output: %w", err)
	}
	<-ready
	src := &source{m: m, rate: m.Rate(), buffer: time.Duration(cfg.Buffer * float64(time.Second))}
	p := ctx.NewPlayer(src)
	p.SetBufferSize(int(cfg.Buffer * float64(m.Rate()) * 8))
	p.Play()
	return &Device{ctx: ctx, player: p, src: src}, nil
}

// Stats returns the device's counters.
func (d *Device) Stats() Stats {
	return Stats{Reads: d.src.reads.Load(), Frames: d.src.frames.Load(), Late: d.src.late.Load()}
}

// Close stops playing. The process cannot open another device.
func (d *Device) Close() error {
	d.player.Pause()
	if err := d.ctx.Suspend(); err != nil {
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
	if !s.last.IsZero() && now.Sub(s.last) > s.given+s.buffer {
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
