package mix

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/internal/soundtest"
)

// toneAt returns a sound of a sine of freq Hz at amplitude 0.5 with a
// slow ramp added (no two frames alike), frames long at srcRate, in every
// one of channels.
func toneAt(srcRate, channels int, freq float64, frames int) *decode.Sound {
	s := &decode.Sound{Name: "tone", Rate: srcRate, Channels: channels, Samples: make([]float32, frames*channels)}
	for i := range frames {
		v := float32(0.5*math.Sin(2*math.Pi*freq*float64(i)/float64(srcRate)) + 0.3*float64(i)/float64(frames))
		for c := range channels {
			s.Samples[i*channels+c] = v * float32(1-0.2*float64(c))
		}
	}
	return s
}

// writeWAV writes s as a 16-bit WAV file in a temporary folder and
// returns its path and the sound File reads back from it.
func writeWAV(t testing.TB, s *decode.Sound) (string, *decode.Sound) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "music.wav")
	if err := os.WriteFile(p, decode.EncodeWAV(s), 0o644); err != nil {
		t.Fatal(err)
	}
	whole, err := decode.File(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, whole
}

// playStream opens path and plays it with p.
func playStream(t testing.TB, m *Mixer, path string, p Params) Voice {
	t.Helper()
	st, err := decode.OpenStream(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.PlayStream(st, p)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// waitBuffered waits until m's streams are buffered: an event, with a
// deadline only against a hang.
func waitBuffered(t testing.TB, m *Mixer) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !m.Buffered() {
		if time.Now().After(deadline) {
			t.Fatal("the streams never filled their rings")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// renderBuffered mixes seconds of m in pieces of 733 frames, waiting for
// its streams before each: interleaved stereo.
func renderBuffered(t testing.TB, m *Mixer, seconds float64) []float32 {
	t.Helper()
	buf := make([]float32, 2*int(seconds*rate))
	for off := 0; off < len(buf); {
		n := min(2*733, len(buf)-off)
		waitBuffered(t, m)
		m.Mix(buf[off : off+n])
		off += n
	}
	return buf
}

// sameMix fails unless a and b are the same samples, bit for bit, and
// not silence.
func sameMix(t testing.TB, what string, a, b []float32) {
	t.Helper()
	loud := false
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			t.Fatalf("%s: sample %d (frame %d) is %v streamed, %v from the sound", what, i, i/2, a[i], b[i])
		}
		loud = loud || a[i] != 0
	}
	if !loud {
		t.Fatalf("%s: silence", what)
	}
}

// waitStreams waits until no stream is open: every feeder has returned
// and closed its file.
func waitStreams(t testing.TB, m *Mixer) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for m.Stats().Streams != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d streams still open", m.Stats().Streams)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// A streamed WAV file at another rate than the mixer's, pitched, panned
// and fading in, mixes to the samples of the same file decoded whole, bit
// for bit, to its end; then the voice ends and its feeder returns.
func TestStreamMatchesSound(t *testing.T) {
	path, whole := writeWAV(t, toneAt(44100, 2, 440, 13000))
	p := Params{Bus: Music, Volume: 0.9, Pan: 0.2, Pitch: 1.1, FadeIn: 0.01}
	a, b := newMixer(t), newMixer(t)
	v := playStream(t, a, path, p)
	play(t, b, whole, p)
	sameMix(t, "a 44.1 kHz WAV at pitch 1.1", renderBuffered(t, a, 0.5), renderBuffered(t, b, 0.5))
	if a.Playing(v) {
		t.Error("the streamed voice plays on past its end")
	}
	waitStreams(t, a)
	if st := a.Stats(); st.StreamUnderruns != 0 || st.StreamErrors != 0 {
		t.Errorf("Stats %+v; want no underrun or error", st)
	}
}

// A looping stream started part-way plays from there, over its loop's
// seam, as the sound decoded whole does, bit for bit; so does a start past
// its end, which a loop wraps.
func TestStreamStartAndLoop(t *testing.T) {
	path, whole := writeWAV(t, toneAt(rate, 1, 300, 9600)) // 0.2 s
	for _, start := range []float64{0.15, 0.45} {
		p := Params{Volume: 1, Pan: -0.5, Loop: true, Start: start}
		a, b := newMixer(t), newMixer(t)
		v := playStream(t, a, path, p)
		play(t, b, whole, p)
		sameMix(t, "a loop", renderBuffered(t, a, 0.7), renderBuffered(t, b, 0.7))
		if !a.Playing(v) {
			t.Error("the loop ended")
		}
		a.Close()
		if st := a.Stats(); st.Streams != 0 {
			t.Errorf("after Close: %d streams open", st.Streams)
		}
	}
	// Past the end of one that does not loop: nothing, and it ends.
	m := newMixer(t)
	v := playStream(t, m, path, Params{Volume: 1, Start: 1})
	out := renderBuffered(t, m, 0.05)
	if m.Playing(v) || soundtest.Amplitude(out, rate, 300) != 0 {
		t.Error("a start past the end played something")
	}
	waitStreams(t, m)
}

// An Ogg Vorbis file streams to the mix of the same file decoded whole,
// bit for bit.
func TestStreamOgg(t *testing.T) {
	oggenc, err := exec.LookPath("oggenc")
	if err != nil {
		if os.Getenv("NEBULA_REQUIRE_AUDIO") == "1" {
			t.Fatalf("oggenc (Debian's vorbis-tools) is needed: %v", err)
		}
		t.Skipf("no oggenc (Debian's vorbis-tools, which make test installs): %v", err)
	}
	wav, _ := writeWAV(t, toneAt(44100, 2, 1000, 22050))
	ogg := filepath.Join(t.TempDir(), "music.ogg")
	if out, err := exec.Command(oggenc, "-Q", "-q", "6", "-o", ogg, wav).CombinedOutput(); err != nil {
		t.Fatalf("oggenc: %v\n%s", err, out)
	}
	whole, err := decode.File(ogg)
	if err != nil {
		t.Fatal(err)
	}
	a, b := newMixer(t), newMixer(t)
	playStream(t, a, ogg, Params{Volume: 1})
	play(t, b, whole, Params{Volume: 1})
	sameMix(t, "an Ogg file", renderBuffered(t, a, 0.6), renderBuffered(t, b, 0.6))
	waitStreams(t, a)
}

// Stopping a streamed voice fades it out and ends it; its feeder returns
// and closes its file: no goroutine is left.
func TestStreamStopEndsFeeder(t *testing.T) {
	path, _ := writeWAV(t, toneAt(rate, 2, 500, rate))
	before := runtime.NumGoroutine()
	m := newMixer(t)
	var vs []Voice
	for range 3 {
		vs = append(vs, playStream(t, m, path, Params{Volume: 0.3, Loop: true}))
	}
	renderBuffered(t, m, 0.1)
	if st := m.Stats(); st.Streams != 3 || st.Playing != 3 {
		t.Fatalf("Stats %+v; want 3 streams playing", st)
	}
	for _, v := range vs {
		m.Stop(v, 0.05)
	}
	renderBuffered(t, m, 0.1)
	for _, v := range vs {
		if m.Playing(v) {
			t.Fatal("a stopped stream plays on")
		}
	}
	waitStreams(t, m)
	deadline := time.Now().Add(time.Minute)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before the streams", runtime.NumGoroutine(), before)
		}
		runtime.Gosched()
	}
	// Stopped before its first Mix: it ends at once, its feeder too.
	v := playStream(t, m, path, Params{Volume: 1})
	m.Stop(v, 0)
	m.Mix(make([]float32, 2*256))
	if m.Playing(v) {
		t.Error("a stream stopped before it played plays on")
	}
	waitStreams(t, m)
}

// playFeeder starts a voice of a feeder that no goroutine fills: the
// test writes its ring.
func playFeeder(t testing.TB, m *Mixer, f *feeder, p Params) Voice {
	t.Helper()
	slot, err := m.takeSlot("test")
	if err != nil {
		t.Fatal(err)
	}
	v := Voice{slot: uint16(slot), gen: m.gens[slot]}
	m.push(command{op: opPlay, slot: v.slot, gen: v.gen, feed: f, params: p})
	m.used[slot] = true
	return v
}

// A ring that runs dry makes the voice silent, counted once a Mix call,
// without moving on: when samples come again it plays on from where it
// was, and ends at the stream's end.
func TestStreamRingDry(t *testing.T) {
	m := newMixer(t)
	f := &feeder{channels: 1, rate: rate, ring: make([]float32, 1024), size: 1024, exited: make(chan struct{}), m: m}
	for i := range 1000 {
		f.ring[i] = float32(i+1) / 2048
	}
	f.written.Store(1000)
	v := playFeeder(t, m, f, Params{Volume: 1, Pan: -1})
	buf := make([]float32, 2*600)
	m.Mix(buf)
	m.Mix(buf) // frames 600 to 999 of the ring, then dry
	if st := m.Stats(); st.StreamUnderruns != 1 || !m.Playing(v) {
		t.Fatalf("Stats %+v, playing %v; want one underrun, the voice playing", st, m.Playing(v))
	}
	if buf[2*398] == 0 || buf[2*399] != 0 || buf[2*599] != 0 {
		t.Errorf("frames 398, 399, 599 of the second call: %v, %v, %v; want sound, then silence", buf[2*398], buf[2*399], buf[2*599])
	}
	m.Mix(buf)
	if st := m.Stats(); st.StreamUnderruns != 2 {
		t.Errorf("%d underruns after a third dry call, want 2", st.StreamUnderruns)
	}
	if r := f.read.Load(); r != 999 {
		t.Fatalf("the voice is done with %d frames, want 999", r)
	}
	for i := 1000; i < 1100; i++ {
		f.ring[i%1024] = float32(i+1) / 2048
	}
	f.written.Store(1100)
	f.done.Store(true)
	m.Mix(buf)
	if want := float32(1000) / 2048; buf[0] != want {
		t.Errorf("after the dry spell: %v, want frame 999's %v", buf[0], want)
	}
	if buf[2*100] == 0 || buf[2*101] != 0 || m.Playing(v) {
		t.Errorf("frames 100 and 101 after: %v, %v, playing %v; want the last frame, then silence, ended", buf[2*100], buf[2*101], m.Playing(v))
	}
	if !f.quit.Load() {
		t.Error("the ended voice did not tell its feeder to return")
	}
}

// Mix allocates nothing with streamed voices playing.
func TestStreamMixAllocatesNothing(t *testing.T) {
	path, _ := writeWAV(t, toneAt(44100, 2, 500, 44100))
	m := newMixer(t)
	for range 4 {
		playStream(t, m, path, Params{Volume: 0.2, Loop: true, Pitch: 1.3})
	}
	buf := make([]float32, 2*333)
	waitBuffered(t, m)
	if n := testing.AllocsPerRun(100, func() { m.Mix(buf) }); n != 0 {
		t.Errorf("Mix allocates %v times a call", n)
	}
	m.Close()
}
