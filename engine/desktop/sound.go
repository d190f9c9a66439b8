package desktop

import (
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/diag"
	"github.com/nebulaengine/nebula/engine/sound/device"
	"github.com/nebulaengine/nebula/engine/sound/mix"
)

// maxSilentMix is the most audio, seconds, a frame mixes silently: after
// a longer frame (a suspend, a debugger) the silent mix skips ahead, as a
// device that ran dry would.
const maxSilentMix = 0.25

// soundOut plays a game's mixer (Config.Sound): through the audio device
// when one opened, or silently, in time with the frames, when none did
// (no audio output, or Config.SoundDevice off), so that voices still end
// and the mixer's queue still drains.
type soundOut struct {
	m   *mix.Mixer
	dev *device.Device // nil: silent

	// The silent mix: frames mixed since start, into scratch.
	start   time.Duration
	started bool
	mixed   uint64
	scratch []float32
}

// openSound plays m through the audio output, or silently when asked to
// or when no output opens (logged as a warning, once: the game goes on
// without sound).
func openSound(m *mix.Mixer, useDevice bool, log logrus.FieldLogger) *soundOut {
	s := &soundOut{m: m}
	if useDevice {
		dev, err := device.Open(m, device.DefaultConfig())
		if err != nil {
			log.WithError(err).Warn("no sound: the mix runs silently")
		} else {
			s.dev = dev
			log.WithField("rate", m.Rate()).Info("sound open")
		}
	}
	if s.dev == nil {
		s.scratch = make([]float32, 2*int(maxSilentMix*float64(m.Rate())))
	}
	return s
}

// frame runs the silent mix up to now; with a device it does nothing.
func (s *soundOut) frame(now time.Duration) {
	if s.dev != nil {
		return
	}
	if !s.started {
		s.start, s.started = now, true
	}
	// The frames due by now, in whole seconds and the rest, which does
	// not overflow however long the game runs.
	since, rate := now-s.start, uint64(s.m.Rate())
	want := uint64(since/time.Second)*rate + uint64(since%time.Second)*rate/uint64(time.Second)
	if want <= s.mixed {
		return
	}
	n := want - s.mixed
	if limit := uint64(len(s.scratch) / 2); n > limit {
		n = limit
	}
	s.m.Mix(s.scratch[:2*n])
	s.mixed = want
}

// figures returns the sound's figures.
func (s *soundOut) figures() diag.Sound {
	st := s.m.Stats()
	f := diag.Sound{On: true, Device: s.dev != nil, Voices: st.Playing, Underruns: st.StreamUnderruns}
	if s.dev != nil {
		f.Underruns += s.dev.Stats().Late
	}
	return f
}

// close closes the device.
func (s *soundOut) close(log logrus.FieldLogger) {
	if s.dev == nil {
		return
	}
	if err := s.dev.Close(); err != nil {
		log.WithError(err).Warn("closing the sound device")
	}
	s.dev = nil
}
