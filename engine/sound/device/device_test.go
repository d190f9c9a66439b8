package device

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/engine/sound/mix"
	"github.com/nebulaengine/nebula/internal/soundtest"
)

// The test binary's one device (oto allows one a process), through a
// PulseAudio server that lives as long as the binary: every test that
// plays through the server shares them (sharedDevice).
var shared struct {
	once  sync.Once
	pulse *soundtest.Pulse
	m     *mix.Mixer
	d     *Device
	why   string // why there is none
	fail  string // the device did not start taking audio
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.d != nil {
		_ = shared.d.Close()
	}
	if shared.pulse != nil {
		_ = shared.pulse.Close()
	}
	os.Exit(code)
}

// sharedDevice returns the binary's mixer (48 kHz) and the device playing
// it through a real PulseAudio server's null sink, started by the first
// call (soundtest.StartPulse), once the device is taking audio: ALSA's
// pulse plugin takes about a second to start, so the first call waits
// for the device to take a second of silence. Where there is no server
// or no output through it, it ends the test in one line saying why
// (soundtest.NoAudio: a failure with NEBULA_REQUIRE_AUDIO=1).
func sharedDevice(t *testing.T) (*mix.Mixer, *Device) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the audio server tests run PulseAudio: Linux only")
	}
	shared.once.Do(func() {
		p, err := soundtest.StartPulse()
		if err != nil {
			shared.why = fmt.Sprintf("no audio server: %v", err)
			return
		}
		shared.pulse = p
		m, err := mix.New(soundtest.Rate)
		if err != nil {
			shared.why = err.Error()
			return
		}
		d, err := Open(m, DefaultConfig())
		if err != nil {
			shared.why = fmt.Sprintf("no audio output through the server: %v", err)
			return
		}
		shared.m, shared.d = m, d
		want := d.Stats().Frames + soundtest.Rate // a second of silence: the device has started
		deadline := time.Now().Add(30 * time.Second)
		for d.Stats().Frames < want {
			if time.Now().After(deadline) {
				shared.fail = fmt.Sprintf("the device took %d frames in 30 s, want %d", d.Stats().Frames, want)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	if shared.why != "" {
		soundtest.NoAudio(t, "%s", shared.why)
	}
	if shared.fail != "" {
		t.Fatal(shared.fail)
	}
	return shared.m, shared.d
}

// record starts recording the null sink's monitor for t, and waits for
// half a second of it to come (the recording has settled).
func record(t *testing.T) *soundtest.Recorder {
	t.Helper()
	rec, err := soundtest.Record(soundtest.Monitor)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rec.Stop() })
	if err := rec.WaitFrames(soundtest.Rate/2, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	return rec
}

// waitFrames waits until the device has taken n more frames than now: an
// event (the device's own progress), not a time.
func waitFrames(t *testing.T, d *Device, n uint64) {
	t.Helper()
	want := d.Stats().Frames + n
	deadline := time.Now().Add(30 * time.Second)
	for d.Stats().Frames < want {
		if time.Now().After(deadline) {
			t.Fatalf("the device took %d frames in 30 s, want %d", d.Stats().Frames, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Through a real PulseAudio server: a 1 kHz tone at amplitude 0.5, played
// on the left through the device, comes back from the null sink's monitor
// at 1 kHz (nothing at 1.2 kHz), at its level within 0.5 dB, on the left
// only, and lasting its second (within 50 ms; the medians of its windows
// of 50 ms, so that a few milliseconds an underrun drops on a busy machine
// fail nothing). The device counts the
// frames it took. Then a click played reaches the monitor within 400 ms
// (the figure is logged: 70 to 110 ms here, with the device's 40 ms
// buffer and the recording's own 20 ms). A second Open fails.
func TestToneThroughAudioServer(t *testing.T) {
	m, d := sharedDevice(t)
	if _, err := Open(m, DefaultConfig()); err == nil {
		t.Error("a second Open succeeded; oto allows one context a process")
	}
	rec := record(t)
	from := rec.Frames()
	const rate = soundtest.Rate
	tone := &decode.Sound{Name: "tone", Rate: rate, Channels: 1, Samples: make([]float32, rate)}
	for i := range tone.Samples {
		tone.Samples[i] = float32(0.5 * math.Sin(2*math.Pi*1000*float64(i)/rate))
	}
	if _, err := m.Play(tone, mix.Params{Volume: 1, Pan: -1}); err != nil {
		t.Fatal(err)
	}
	waitFrames(t, d, 3*rate) // the tone, and two seconds for it to reach the monitor
	if err := rec.WaitFrames(from+3*rate, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	left, right := rec.Channels(from)
	// The tone's windows of 50 ms.
	const win = rate / 20
	var loud []int
	peak := 0.0
	for k := 0; k+win <= len(left); k += win {
		a := soundtest.Amplitude(left[k:k+win], rate, 1000)
		if a > 0.25 {
			loud = append(loud, k/win)
		}
		peak = max(peak, a)
	}
	recorded := time.Duration(len(left)) * time.Second / rate
	if len(loud) == 0 {
		t.Fatalf("no 1 kHz tone in %v of the monitor (peak amplitude %.4f)", recorded, peak)
	}
	first, last := loud[0]*win, (loud[len(loud)-1]+1)*win
	// The medians over the tone's inner windows: a busy machine can drop
	// a few milliseconds on the way (an underrun), a step in the tone's
	// phase that leaks into one window, not the median.
	var w1000, w1200, wRight []float64
	for k := first + win; k+win <= last-win; k += win {
		w1000 = append(w1000, soundtest.Amplitude(left[k:k+win], rate, 1000))
		w1200 = append(w1200, soundtest.Amplitude(left[k:k+win], rate, 1200))
		wRight = append(wRight, soundtest.Amplitude(right[k:k+win], rate, 1000))
	}
	a1000, a1200, r1000 := median(w1000), median(w1200), median(wRight)
	db := 20 * math.Log10(a1000/0.5)
	length := time.Duration(len(loud)) * 50 * time.Millisecond
	t.Logf("the monitor: %v recorded; the tone at 1 kHz %.4f (%.2f dB from 0.5), at 1.2 kHz %.5f, on the right %.5f, for %v; device %+v",
		recorded, a1000, db, a1200, r1000, length, d.Stats())
	if math.Abs(db) > 0.5 || a1200 > 0.005 || r1000 > 0.005 {
		t.Errorf("the tone comes back at %.4f (%.2f dB), %.5f at 1.2 kHz, %.5f on the right: want 0.5 within 0.5 dB, on the left, at 1 kHz alone", a1000, db, a1200, r1000)
	}
	if length < 950*time.Millisecond || length > 1100*time.Millisecond {
		t.Errorf("the tone lasts %v in the monitor, want its second", length)
	}
	if d.Stats().Reads == 0 {
		t.Error("the device made no read")
	}

	// The latency, from Play to the first sample at the sink's monitor:
	// the recorder dates each frame by the read that held it.
	click := &decode.Sound{Name: "click", Rate: rate, Channels: 1, Samples: make([]float32, rate/10)}
	for i := range click.Samples {
		click.Samples[i] = 0.5
	}
	from = rec.Frames()
	played := time.Now()
	if _, err := m.Play(click, mix.Params{Volume: 1, Pan: -1}); err != nil {
		t.Fatal(err)
	}
	at, ok := heard(rec, from, 0.25, 5*time.Second)
	if !ok {
		t.Fatal("the click did not reach the monitor in 5 s")
	}
	lat := rec.At(at).Sub(played)
	t.Logf("latency, Play to the monitor: %v (device buffer %v)", lat, time.Duration(DefaultConfig().Buffer*float64(time.Second)))
	if lat > 400*time.Millisecond {
		t.Errorf("a sound played reached the monitor %v later, want within 400 ms", lat)
	}
}

// heard waits for the recording to hold, from frame from on, a sample
// above level (on either channel), and returns its frame; false when
// none came in timeout (a bound against a hang only).
func heard(rec *soundtest.Recorder, from int, level float32, timeout time.Duration) (int, bool) {
	deadline := time.Now().Add(timeout)
	for {
		l, r := rec.Channels(from)
		for i := range l {
			if l[i] > level || l[i] < -level || r[i] > level || r[i] < -level {
				return from + i, true
			}
		}
		from += len(l)
		if time.Now().After(deadline) {
			return 0, false
		}
		time.Sleep(5 * time.Millisecond)
	}
}
