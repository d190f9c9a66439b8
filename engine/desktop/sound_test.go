package desktop_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/engine/sound/mix"
	"github.com/nebulaengine/nebula/timing"
)

// tone returns d seconds of a quiet 440 Hz tone at 48 kHz, mono.
func tone(d float64) *decode.Sound {
	n := int(d * 48000)
	s := &decode.Sound{Name: "tone", Rate: 48000, Channels: 1, Samples: make([]float32, n)}
	for i := range s.Samples {
		if i%109 < 55 {
			s.Samples[i] = 0.1
		} else {
			s.Samples[i] = -0.1
		}
	}
	return s
}

// runSound plays a 0.2 s sound through a runner with the mixer and runs
// until the sound has ended (Quit from OnFrame), returning the runner and
// the log.
func runSound(t *testing.T, useDevice bool) (*desktop.Runner, *mix.Mixer, string) {
	t.Helper()
	m, err := mix.New(48000)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	l := logrus.New()
	l.SetOutput(&log)
	v, err := m.Play(tone(0.2), mix.Params{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.Sound, cfg.SoundDevice, cfg.Logger = m, useDevice, l
	var r *desktop.Runner
	cfg.OnFrame = func(s timing.Stats) {
		if s.Frames > 2 && !m.Playing(v) {
			r.Quit()
		}
	}
	r = newRunner(t, newScene(t, 3), cfg)
	start := time.Now()
	if _, err := run(r); err != nil {
		t.Fatal(err)
	}
	if m.Playing(v) {
		t.Fatalf("the 0.2 s sound still plays after %v (the runner's 30 s limit)", time.Since(start))
	}
	return r, m, log.String()
}

// Without an audio device the runner mixes silently in time with its
// frames: a 0.2 s sound ends after 0.2 s of frames or more, never before,
// and the figures say there is a mixer but no device.
func TestSoundRunsSilentlyWithoutADevice(t *testing.T) {
	start := time.Now()
	r, m, _ := runSound(t, false)
	took := time.Since(start)
	mixed := time.Duration(m.Stats().Frames) * time.Second / 48000
	if mixed < 200*time.Millisecond || mixed > took+50*time.Millisecond {
		t.Errorf("the silent mix ran %v of audio in %v of run; want at least the sound's 200 ms, and no more than the run", mixed, took)
	}
	f := r.Figures().Sound
	if !f.On || f.Device || f.Voices != 0 || f.Underruns != 0 {
		t.Errorf("figures' Sound %+v, want On, no Device, 0 voices, 0 underruns", f)
	}
}

// With the device asked for, the runner plays through it where an audio
// output opens and otherwise says why in its log and mixes silently:
// either way the sound ends and the figures say which.
func TestSoundDeviceOrItsAbsenceIsLogged(t *testing.T) {
	r, _, log := runSound(t, true)
	f := r.Figures().Sound
	warned := strings.Contains(log, "no sound: the mix runs silently")
	if !f.On || f.Device == warned {
		t.Errorf("figures' Sound %+v with the log %q: want On, and Device exactly when no warning", f, log)
	}
	t.Logf("device %v", f.Device)
}
