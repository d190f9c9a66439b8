package device

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/engine/sound/mix"
	"github.com/nebulaengine/nebula/internal/soundtest"
)

// startPulse starts a real PulseAudio server for the test, in a temporary
// runtime folder, with one null sink, "nebula", the default, and points
// this process at it (ALSA's pulse plugin, which the device goes
// through, finds it by $XDG_RUNTIME_DIR). It skips the test, in one line
// saying why, where no server can start.
func startPulse(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"pulseaudio", "pactl", "parecord"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no audio server: %s is missing (Debian's pulseaudio and pulseaudio-utils, which make test installs)", tool)
		}
	}
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "default.pa")
	if err := os.WriteFile(conf, []byte("load-module module-native-protocol-unix\nload-module module-null-sink sink_name=nebula rate=48000 channels=2\nset-default-sink nebula\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", dir)
	t.Setenv("XDG_RUNTIME_DIR", run)
	var log bytes.Buffer
	srv := exec.Command("pulseaudio", "-n", "-F", conf, "--exit-idle-time=-1", "--daemonize=no", "--use-pid-file=no", "--log-target=stderr")
	srv.Stderr = &log
	if err := srv.Start(); err != nil {
		t.Skipf("no audio server: pulseaudio did not start: %v", err)
	}
	t.Cleanup(func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		_ = srv.Wait()
	})
	// Wait for it to answer (an event, bounded only against a hang).
	deadline := time.Now().Add(20 * time.Second)
	for {
		if exec.Command("pactl", "info").Run() == nil {
			return
		}
		if time.Now().After(deadline) || srv.ProcessState != nil {
			t.Skipf("no audio server: pulseaudio did not answer in 20 s: %s", lastLine(log.String()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lastLine returns s's last non-empty line.
func lastLine(s string) string {
	lines := bytes.Split(bytes.TrimSpace([]byte(s)), []byte("\n"))
	return string(lines[len(lines)-1])
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
// only, and lasting its second (within 50 ms). The device counts the
// frames it took; ALSA's pulse plugin takes about a second to start, so
// the tone is played once the device is taking audio. Then a click
// played reaches the monitor within 400 ms (the figure is logged: 70 to
// 110 ms here, with the device's 40 ms buffer and the recording's own
// 20 ms).
func TestToneThroughAudioServer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the audio server test runs PulseAudio: Linux only")
	}
	startPulse(t)
	m, err := mix.New(48000)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Open(m, DefaultConfig())
	if err != nil {
		t.Skipf("no audio output through the server: %v", err)
	}
	defer d.Close()
	if _, err := Open(m, DefaultConfig()); err == nil {
		t.Error("a second Open succeeded; oto allows one context a process")
	}
	out := filepath.Join(t.TempDir(), "monitor.wav")
	rec := exec.Command("parecord", "--latency-msec=20", "--device=nebula.monitor", "--file-format=wav", "--rate=48000", "--channels=2", "--format=s16le", out)
	var recErr bytes.Buffer
	rec.Stderr = &recErr
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	waitFrames(t, d, 48000) // a second of silence: the device has started
	const rate = 48000
	tone := &decode.Sound{Name: "tone", Rate: rate, Channels: 1, Samples: make([]float32, rate)}
	for i := range tone.Samples {
		tone.Samples[i] = float32(0.5 * math.Sin(2*math.Pi*1000*float64(i)/rate))
	}
	if _, err := m.Play(tone, mix.Params{Volume: 1, Pan: -1}); err != nil {
		t.Fatal(err)
	}
	waitFrames(t, d, 3*rate) // the tone, and two seconds for it to reach the monitor
	_ = rec.Process.Signal(os.Interrupt)
	_ = rec.Wait()
	got, err := decode.File(out)
	if err != nil {
		t.Fatalf("the monitor's recording: %v (parecord: %s)", err, recErr.String())
	}
	if got.Channels != 2 || got.Rate != rate {
		t.Fatalf("the recording is %d channels at %d Hz, want 2 at %d", got.Channels, got.Rate, rate)
	}
	left, right := make([]float32, got.Frames()), make([]float32, got.Frames())
	for i := range left {
		left[i], right[i] = got.Samples[2*i], got.Samples[2*i+1]
	}
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
	if len(loud) == 0 {
		t.Fatalf("no 1 kHz tone in %v of the monitor (peak amplitude %.4f)", got.Duration(), peak)
	}
	first, last := loud[0]*win, (loud[len(loud)-1]+1)*win
	mid := left[first+win : last-win]
	a1000, a1200 := soundtest.Amplitude(mid, rate, 1000), soundtest.Amplitude(mid, rate, 1200)
	db := 20 * math.Log10(a1000/0.5)
	r1000 := soundtest.Amplitude(right[first+win:last-win], rate, 1000)
	length := time.Duration(len(loud)) * 50 * time.Millisecond
	t.Logf("the monitor: %v recorded; the tone at 1 kHz %.4f (%.2f dB from 0.5), at 1.2 kHz %.5f, on the right %.5f, for %v; device %+v",
		got.Duration(), a1000, db, a1200, r1000, length, d.Stats())
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
	// parec streams the monitor to us, each read stamped with the time it
	// came; a click's first sample is dated by the read that held it.
	lat, err := measureLatency(t, m, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("latency, Play to the monitor: %v (device buffer %v)", lat, time.Duration(DefaultConfig().Buffer*float64(time.Second)))
	if lat > 400*time.Millisecond {
		t.Errorf("a sound played reached the monitor %v later, want within 400 ms", lat)
	}
}

// measureLatency plays a click through m and returns how long after Play
// its first sample reached the monitor, as parec delivers it (so the
// figure includes the recording's own latency, 20 ms asked).
func measureLatency(t *testing.T, m *mix.Mixer, d *Device) (time.Duration, error) {
	t.Helper()
	rec := exec.Command("parec", "--latency-msec=20", "--device=nebula.monitor", "--rate=48000", "--channels=2", "--format=s16le", "--raw")
	out, err := rec.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := rec.Start(); err != nil {
		return 0, err
	}
	defer func() {
		_ = rec.Process.Kill()
		_ = rec.Wait()
	}()
	type chunk struct {
		at   time.Time
		data []byte
	}
	chunks := make(chan chunk, 1024)
	go func() {
		defer close(chunks)
		for {
			b := make([]byte, 1920) // 10 ms
			n, err := out.Read(b)
			if n > 0 {
				chunks <- chunk{time.Now(), b[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	// Let the recording settle: half a second of silence arrives.
	got := 0
	for got < 48000*4/2 {
		c, ok := <-chunks
		if !ok {
			return 0, fmt.Errorf("parec ended")
		}
		got += len(c.data)
	}
	click := &decode.Sound{Name: "click", Rate: 48000, Channels: 1, Samples: make([]float32, 4800)}
	for i := range click.Samples {
		click.Samples[i] = 0.5
	}
	played := time.Now()
	if _, err := m.Play(click, mix.Params{Volume: 1, Pan: -1}); err != nil {
		return 0, err
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case c, ok := <-chunks:
			if !ok {
				return 0, fmt.Errorf("parec ended before the click came")
			}
			for i := 0; i+4 <= len(c.data); i += 4 {
				if v := int16(uint16(c.data[i]) | uint16(c.data[i+1])<<8); v > 8000 {
					// The read that held it came at c.at; the click's sample
					// was i/4 frames into it, the rest after.
					rest := time.Duration(len(c.data)-i) / 4 * time.Second / 48000
					return c.at.Sub(played) - rest, nil
				}
			}
		case <-deadline:
			return 0, fmt.Errorf("the click did not reach the monitor in 5 s")
		}
	}
}
