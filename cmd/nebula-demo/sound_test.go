package main

import (
	"bytes"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/engine/sound/mix"
	"github.com/nebulaengine/nebula/internal/soundtest"
)

// A headless run renders its sound to -sound-wav: 15 s for 900 ticks,
// the music heard in it, and the same bytes whatever the simulated
// display (two ticks a frame or one), as its state hash is; the run's
// recording, replayed, renders the same bytes again.
func TestSoundWAVIsTheSameEveryRun(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "run.rep")
	var wavs [][]byte
	for i, args := range [][]string{
		{"-physics", "-entities", "200", "-ticks", "900", "-display-hz", "144", "-record", rec},
		{"-physics", "-entities", "200", "-ticks", "900", "-display-hz", "30"},
		{"-replay", rec, "-verify"},
	} {
		path := filepath.Join(dir, "run"+strconv.Itoa(i)+".wav")
		out, err := exec.Command(demoBinary(t), append(args, "-headless", "-sound-wav", path, "-log-level", "error")...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		wavs = append(wavs, b)
	}
	if !bytes.Equal(wavs[0], wavs[1]) {
		t.Error("the WAV files of two runs at 144 and 30 Hz differ")
	}
	if !bytes.Equal(wavs[0], wavs[2]) {
		t.Error("the WAV file of the run's replay differs from the run's")
	}
	s, err := decode.WAV("run0.wav", wavs[0])
	if err != nil {
		t.Fatal(err)
	}
	if s.Channels != 2 || s.Rate != 48000 || s.Frames() != 900*48000/60 {
		t.Fatalf("%d channels at %d Hz, %d frames; want stereo at 48 kHz, %d frames (900 ticks)", s.Channels, s.Rate, s.Frames(), 900*48000/60)
	}
	// The music's first bass note, A2 at 110 Hz, in the first half
	// second, on the left.
	left := make([]float32, 24000)
	for i := range left {
		left[i] = s.Samples[2*i]
	}
	if a := soundtest.Amplitude(left, 48000, 110); a < 0.02 {
		t.Errorf("110 Hz at %.4f in the first half second, want the music's bass", a)
	}
}

// soundField returns the value of field in the "sound" line a headless
// run logs as it ends.
func soundField(t *testing.T, name, out, field string) uint64 {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "msg=sound ") {
			continue
		}
		m := regexp.MustCompile(` ` + field + `=(\d+)`).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("%s: no %s in its sound line %q", name, field, line)
		}
		n, _ := strconv.ParseUint(m[1], 10, 64)
		return n
	}
	t.Fatalf("%s logged no sound line:\n%s", name, out)
	return 0
}

// In a match of the physics mode with rollbacks, no sound doubles or goes
// missing: two predicting players, one behind 100 ms +/- 20 ms, reconcile
// their re-simulations' sounds (keeping, fading out, starting late), and
// end with exactly as many events sounding as the player in lockstep,
// which never rolls back, started.
func TestRolledBackMatchSoundsEveryEventOnce(t *testing.T) {
	dir := t.TempDir()
	srv, addr := startServer(t, "-players", "3", "-ticks", "900", "-physics", "-entities", "200", "-print-hash")
	wav := filepath.Join(dir, "b.wav")
	clients := []*proc{
		startProc(t, "player A", os.Environ(), "-physics", "-connect", addr, "-headless", "-print-hash", "-predict", "8"),
		startProc(t, "player B (100 ms)", os.Environ(), "-physics", "-connect", addr, "-headless", "-print-hash", "-predict", "8",
			"-net-delay", "100ms", "-net-jitter", "20ms", "-sound-wav", wav),
		startProc(t, "player C (lockstep)", os.Environ(), "-physics", "-connect", addr, "-headless", "-print-hash", "-predict", "0"),
	}
	matchHash(t, srv, clients, 900)
	_, lockstep := clients[2].out()
	want := soundField(t, clients[2].name, lockstep, "started")
	if r := soundField(t, clients[2].name, lockstep, "kept") + soundField(t, clients[2].name, lockstep, "faded") +
		soundField(t, clients[2].name, lockstep, "late"); r != 0 || want == 0 {
		t.Fatalf("the lockstep player started %d events and reconciled %d; want some started and none reconciled", want, r)
	}
	for _, c := range clients[:2] {
		_, out := c.out()
		events, kept, faded, late := soundField(t, c.name, out, "events"), soundField(t, c.name, out, "kept"),
			soundField(t, c.name, out, "faded"), soundField(t, c.name, out, "late")
		t.Logf("%s: %d events sounding (lockstep %d): %d kept, %d faded, %d started late, %d missed over its rollbacks",
			c.name, events, want, kept, faded, late, soundField(t, c.name, out, "missed"))
		if events != want {
			t.Errorf("%s: %d events sounding at the end, the lockstep player %d", c.name, events, want)
		}
		if kept == 0 {
			t.Errorf("%s: no event kept across a rollback: did it roll back?", c.name)
		}
	}
	s, err := decode.File(wav)
	if err != nil {
		t.Fatal(err)
	}
	// What B heard, frame after frame: the 900 ticks, and the ticks it
	// predicted past the match's end (at most 8), whose sounds faded.
	if n := s.Frames(); n < 900*800 || n > 908*800 {
		t.Errorf("player B's -sound-wav holds %d frames, want 900 to 908 ticks' worth (800 a tick)", n)
	}
}

// -music streams a file as the music: its 330 Hz tone is heard in the
// mix in place of the demo's own track (its 110 Hz bass), the same bytes
// every run; a file that is not music is named in a warning, and the
// game goes on with its own music.
func TestMusicFlagStreamsTheFile(t *testing.T) {
	dir := t.TempDir()
	tone := &decode.Sound{Name: "tone", Rate: 44100, Channels: 1, Samples: make([]float32, 3*44100)}
	for i := range tone.Samples {
		tone.Samples[i] = float32(0.25 * math.Sin(2*math.Pi*330*float64(i)/44100))
	}
	music := filepath.Join(dir, "tone.wav")
	if err := os.WriteFile(music, decode.EncodeWAV(tone), 0o644); err != nil {
		t.Fatal(err)
	}
	var wavs [][]byte
	for i := range 2 {
		path := filepath.Join(dir, "run"+strconv.Itoa(i)+".wav")
		out, err := exec.Command(demoBinary(t), "-headless", "-entities", "0", "-ticks", "120", "-music", music,
			"-sound-wav", path, "-log-level", "error").CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		wavs = append(wavs, b)
	}
	if !bytes.Equal(wavs[0], wavs[1]) {
		t.Error("two runs streaming the same music wrote different WAV files")
	}
	s, err := decode.WAV("run0.wav", wavs[0])
	if err != nil {
		t.Fatal(err)
	}
	left := make([]float32, 48000)
	for i := range left {
		left[i] = s.Samples[2*(24000+i)]
	}
	if a, bass := soundtest.Amplitude(left, 48000, 330), soundtest.Amplitude(left, 48000, 110); a < 0.1 || bass > 0.005 {
		t.Errorf("330 Hz at %.4f and 110 Hz at %.4f in the second half second on: want the file's tone, not the demo's bass", a, bass)
	}
	bad := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(bad, []byte("la la la"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(demoBinary(t), "-headless", "-ticks", "5", "-music", bad, "-print-hash").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "decode: "+bad) || !strings.Contains(string(out), "playing the demo's own music") ||
		!strings.Contains(string(out), "state-hash 5 ") || strings.Contains(string(out), "goroutine") {
		t.Errorf("-music with a text file: %v\n%s\nwant a warning naming the file, and the run going on", err, out)
	}
}

// The sound keys: M mutes and unmutes every bus, - and = step the volume
// by 10% within 0 to 100%; the overlay's line says so, with the voices
// and the events reconciled.
func TestSoundKeysAndOverlayLine(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	sc := scene.Setup(e, 0)
	d, err := newDemoSound(sc, false, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	check := func(step, line string, vol float32) {
		t.Helper()
		if got := string(d.overlayLine(nil)); got != line {
			t.Errorf("%s: overlay line %q, want %q", step, got, line)
		}
		for b := range mix.Bus(mix.NumBuses) {
			if v := d.m.BusVolume(b); v != vol {
				t.Errorf("%s: bus %v at %v, want %v", step, b, v, vol)
			}
		}
	}
	check("at the start", "sound 100% 0v  reconciled 0 (0 faded, 0 late)", 1)
	d.key(keyVolumeUp)
	check("= at 100%", "sound 100% 0v  reconciled 0 (0 faded, 0 late)", 1)
	d.key(keyVolumeDown)
	d.key(keyVolumeDown)
	check("- twice", "sound 80% 0v  reconciled 0 (0 faded, 0 late)", 0.8)
	d.key(keyMute)
	check("M", "sound muted 0v  reconciled 0 (0 faded, 0 late)", 0)
	d.key(keyMute)
	check("M again", "sound 80% 0v  reconciled 0 (0 faded, 0 late)", 0.8)
	if d.key(input.KeyA) {
		t.Error("A was taken for a sound key")
	}
	muted, err := newDemoSound(scene.Setup(mustEngine(t), 0), true, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	if got := string(muted.overlayLine(nil)); !strings.HasPrefix(got, "sound muted") || muted.m.BusVolume(mix.Music) != 0 {
		t.Errorf("-mute: overlay line %q, music bus %v; want muted", got, muted.m.BusVolume(mix.Music))
	}
}

func mustEngine(t *testing.T) *engine.Engine {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func quietLog() *logrus.Logger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return l
}

// The demo in a window plays through a real PulseAudio server: its log
// says the sound opened, its statistics count the voices playing and the
// underruns, and the music's bass (A2, 110 Hz, and the progression's
// other roots an octave down) is heard at the server's monitor.
func TestDemoIsHeardThroughTheAudioServer(t *testing.T) {
	needDisplay(t)
	bin := demoBinary(t) // built before the recording starts
	soundtest.PulseForTest(t)
	rec, err := soundtest.Record(soundtest.Monitor)
	if err != nil {
		soundtest.NoAudio(t, "cannot record the monitor: %v", err)
	}
	t.Cleanup(func() { _ = rec.Stop() })
	stats := filepath.Join(t.TempDir(), "stats.csv")
	out, err := exec.Command(bin, "-duration", "4s", "-width", "320", "-height", "240", "-stats", stats,
		"-hitch", "0", "-log-level", "info").CombinedOutput() // the environment names the test's server
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "msg=\"sound open\"") {
		t.Fatalf("the demo did not open its sound:\n%s", out)
	}
	left, _ := rec.Channels(0)
	const win = soundtest.Rate / 5 // 200 ms
	best := 0.0
	for k := 0; k+win <= len(left); k += win / 2 {
		a := 0.0
		for _, f := range []float64{110, 87.31, 65.41, 98} { // A2 F2 C2 G2
			a = max(a, soundtest.Amplitude(left[k:k+win], soundtest.Rate, f))
		}
		best = max(best, a)
	}
	t.Logf("the music's bass heard at up to %.4f in %d frames of the monitor", best, len(left))
	if best < 0.02 {
		t.Errorf("the music's bass at %.4f at most in the monitor, want it heard (above 0.02)", best)
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := strings.Split(lines[len(lines)-1], ",")
	// The last two columns count the voices and the underruns: a number
	// each, whatever a busy machine made of the device's reads.
	voices, err1 := strconv.Atoi(last[len(last)-2])
	under, err2 := strconv.Atoi(last[len(last)-1])
	if err1 != nil || err2 != nil || voices < 1 {
		t.Errorf("the statistics' last row %q: want the voices playing (the music at least) and the underruns", lines[len(lines)-1])
	}
	t.Logf("the last frame: %d voices, %d underruns", voices, under)
}
