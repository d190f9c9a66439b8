package desktop_test

import (
	"math"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/engine/sound/mix"
	"github.com/nebulaengine/nebula/internal/soundtest"
	"github.com/nebulaengine/nebula/timing"
)

// A runner given a mixer plays it through the machine's audio output: a
// real PulseAudio server's null sink, recorded at its monitor. A 1 kHz
// tone played from a frame is heard at its level, within 400 ms of that
// frame, and the figures say a device plays. Where no server can start,
// the test says so in one line (make test requires it).
func TestRunnerPlaysThroughTheAudioServer(t *testing.T) {
	pulse := soundtest.PulseForTest(t)
	rec, err := soundtest.Record(soundtest.Monitor)
	if err != nil {
		soundtest.NoAudio(t, "cannot record the monitor: %v", err)
	}
	t.Cleanup(func() { _ = rec.Stop() })
	const rate = soundtest.Rate
	m, err := mix.New(rate)
	if err != nil {
		t.Fatal(err)
	}
	tone := &decode.Sound{Name: "tone", Rate: rate, Channels: 1, Samples: make([]float32, rate*3/10)}
	for i := range tone.Samples {
		tone.Samples[i] = float32(0.5 * math.Sin(2*math.Pi*1000*float64(i)/rate))
	}
	cfg := testConfig()
	cfg.Sound = m
	var (
		r      *desktop.Runner
		from   int       // the monitor's frames when the tone was played
		played time.Time // when
	)
	cfg.OnFrame = func(timing.Stats) {
		switch {
		case played.IsZero() && m.Stats().Frames >= rate: // ALSA's pulse plugin takes a second to start taking audio
			if _, err := m.Play(tone, mix.Params{Volume: 1, Pan: -1}); err != nil {
				t.Error(err)
				r.Quit()
			}
			from, played = rec.Frames(), time.Now()
		case !played.IsZero() && rec.Frames() >= from+rate*3/2:
			r.Quit()
		}
	}
	r = newRunner(t, newScene(t, 3), cfg)
	if _, err := run(r); err != nil {
		t.Fatal(err)
	}
	f := r.Figures().Sound
	if !f.On || !f.Device {
		t.Fatalf("figures' Sound %+v: want a device playing", f)
	}
	if played.IsZero() {
		t.Fatalf("the device took %d frames in the runner's 30 s, not the second it takes to start", m.Stats().Frames)
	}
	left, _ := rec.Channels(from)
	const win = rate / 100 // 10 ms
	for k := 0; k+win <= len(left); k += win {
		if soundtest.Amplitude(left[k:k+win], rate, 1000) > 0.25 {
			latency := rec.At(from + k).Sub(played)
			// The level, in the tone's middle.
			mid := left[k+rate/10 : k+rate/5]
			a := soundtest.Amplitude(mid, rate, 1000)
			t.Logf("the tone played from a frame is heard %v later (at most a 10 ms window early), at %.4f; underruns %d", latency, a, f.Underruns)
			if latency > 400*time.Millisecond {
				t.Errorf("the tone was heard %v after its frame, want within 400 ms", latency)
			}
			if math.Abs(20*math.Log10(a/0.5)) > 0.5 {
				t.Errorf("the tone comes back at %.4f, want 0.5 within 0.5 dB", a)
			}
			return
		}
	}
	all, _ := rec.Channels(0)
	peak := float32(0)
	for _, v := range all {
		peak = max(peak, v, -v)
	}
	t.Fatalf("no 1 kHz tone in the %d frames recorded after it was played (from frame %d; the whole recording's peak %v; mixer %+v); server log: %s", len(left), from, peak, m.Stats(), pulse.Log())
}
