package mix

import (
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/nebulaengine/nebula/engine/sound/decode"
	"github.com/nebulaengine/nebula/internal/soundtest"
)

const rate = 48000

// sine returns a sound of a sine of freq Hz, amplitude amp, seconds long,
// in every one of channels.
func sine(channels int, freq, amp, seconds float64) *decode.Sound {
	n := int(seconds * rate)
	s := &decode.Sound{Name: "sine", Rate: rate, Channels: channels, Samples: make([]float32, n*channels)}
	for i := range n {
		v := float32(amp * math.Sin(2*math.Pi*freq*float64(i)/rate))
		for c := range channels {
			s.Samples[i*channels+c] = v
		}
	}
	return s
}

// render mixes seconds of m, returning its left and right channels.
func render(m *Mixer, seconds float64) (l, r []float32) {
	buf := make([]float32, 2*int(seconds*rate))
	// In uneven pieces, as a device asks.
	for off := 0; off < len(buf); {
		n := min(2*733, len(buf)-off)
		m.Mix(buf[off : off+n])
		off += n
	}
	for i := 0; i < len(buf); i += 2 {
		l, r = append(l, buf[i]), append(r, buf[i+1])
	}
	return l, r
}

func newMixer(t testing.TB) *Mixer {
	t.Helper()
	m, err := New(rate)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func play(t testing.TB, m *Mixer, s *decode.Sound, p Params) Voice {
	t.Helper()
	v, err := m.Play(s, p)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A mono tone comes out at its frequency and at the level its pan says:
// constant power, 0.707 a side at the centre, all of it on one side at
// -1 or 1; a stereo one is balanced (full level a side at the centre).
// The amplitudes are the exact gains within 0.1 %.
func TestLevelsAndPan(t *testing.T) {
	for _, tc := range []struct {
		channels int
		pan      float32
		l, r     float64
	}{
		{1, 0, math.Sqrt2 / 2, math.Sqrt2 / 2},
		{1, -1, 1, 0},
		{1, 1, 0, 1},
		{1, 0.5, math.Cos(3 * math.Pi / 8), math.Sin(3 * math.Pi / 8)},
		{2, 0, 1, 1},
		{2, 0.5, 0.5, 1},
	} {
		m := newMixer(t)
		play(t, m, sine(tc.channels, 1000, 0.5, 1), Params{Volume: 1, Pan: tc.pan})
		l, r := render(m, 1)
		al, ar := soundtest.Amplitude(l[4800:], rate, 1000), soundtest.Amplitude(r[4800:], rate, 1000)
		if math.Abs(al-0.5*tc.l) > 5e-4 || math.Abs(ar-0.5*tc.r) > 5e-4 {
			t.Errorf("%d channels at pan %v: amplitudes %.4f, %.4f; want %.4f, %.4f", tc.channels, tc.pan, al, ar, 0.5*tc.l, 0.5*tc.r)
		}
		if a := soundtest.Amplitude(l[4800:], rate, 1100); a > 1e-3 {
			t.Errorf("%d channels at pan %v: %.4f at 1100 Hz, want nothing", tc.channels, tc.pan, a)
		}
	}
}

// Pitch 2 plays a 1 kHz tone of 0.5 s at 2 kHz, and it ends at 0.25 s.
func TestPitch(t *testing.T) {
	m := newMixer(t)
	v := play(t, m, sine(1, 1000, 0.5, 0.5), Params{Volume: 1, Pan: -1, Pitch: 2})
	l, _ := render(m, 0.5)
	if a2, a1 := soundtest.Amplitude(l[1000:11000], rate, 2000), soundtest.Amplitude(l[1000:11000], rate, 1000); a2 < 0.49 || a1 > 0.01 {
		t.Errorf("at pitch 2: %.4f at 2 kHz, %.4f at 1 kHz; want 0.5 and nothing", a2, a1)
	}
	last := 0
	for i, x := range l {
		if x != 0 {
			last = i
		}
	}
	if last < 11990 || last > 12010 || m.Playing(v) {
		t.Errorf("the voice sounds until frame %d (playing %v); want it to end at frame 12000", last, m.Playing(v))
	}
}

// A looping voice plays on past its sound's end; one that does not loop
// ends there, and its slot is reused by the next Play with a new
// generation, so the old Voice touches nothing.
func TestLoopAndEnd(t *testing.T) {
	m := newMixer(t)
	short := sine(1, 1000, 0.5, 0.1)
	once := play(t, m, short, Params{Volume: 1})
	loop := play(t, m, short, Params{Volume: 1, Loop: true})
	l, _ := render(m, 0.5)
	if m.Playing(once) || !m.Playing(loop) {
		t.Fatalf("after 0.5 s: the one-shot playing %v, the loop %v; want false, true", m.Playing(once), m.Playing(loop))
	}
	if a := soundtest.Amplitude(l[12000:], rate, 1000); math.Abs(a-0.5*math.Sqrt2/2) > 1e-3 {
		t.Errorf("the loop after its first pass: amplitude %.4f, want %.4f", a, 0.5*math.Sqrt2/2)
	}
	again := play(t, m, short, Params{Volume: 1})
	if again.slot != once.slot || again.gen == once.gen {
		t.Errorf("the next Play took slot %d gen %d; want the ended slot %d with a new generation", again.slot, again.gen, once.slot)
	}
	m.Stop(once, 0) // the old voice: nothing happens to the new one
	render(m, 0.01)
	if !m.Playing(again) {
		t.Error("stopping an ended voice stopped the slot's new one")
	}
}

// Start plays a sound part-way: started 0.25 s in, a ramp of a quarter
// second's frames... its samples are the sound's from that point (after
// the de-click ramp).
func TestStartPartWay(t *testing.T) {
	s := &decode.Sound{Name: "ramp", Rate: rate, Channels: 1, Samples: make([]float32, rate)}
	for i := range s.Samples {
		s.Samples[i] = float32(i) / rate
	}
	m := newMixer(t)
	play(t, m, s, Params{Volume: 1, Pan: -1, Start: 0.25})
	l, _ := render(m, 1)
	for _, i := range []int{200, 1000, 30000} {
		if want := float32(i+12000) / rate; math.Abs(float64(l[i]-want)) > 1e-6 {
			t.Errorf("frame %d: %v, want the sound's frame %d, %v", i, l[i], i+12000, want)
		}
	}
	if l[36000] != 0 {
		t.Errorf("frame 36000: %v; want silence after the sound's last 36000 frames", l[36000])
	}
	// Past the end of a sound that does not loop: nothing.
	v := play(t, m, s, Params{Volume: 1, Start: 2})
	l, _ = render(m, 0.1)
	if m.Playing(v) || soundtest.Amplitude(l, rate, 1000) != 0 {
		t.Error("a start past the end played something")
	}
}

// Stop fades a voice out linearly over its fade time, with no step larger
// than the tone's own (no click), and ends it; a fade-in rises likewise.
func TestFades(t *testing.T) {
	m := newMixer(t)
	v := play(t, m, sine(1, 200, 0.5, 2), Params{Volume: 1, Pan: -1, FadeIn: 0.1})
	l, _ := render(m, 0.5)
	// A linear rise: on average a quarter of the way over its first half,
	// three quarters over its second.
	if a, b := soundtest.Amplitude(l[0:2400], rate, 200), soundtest.Amplitude(l[2400:4800], rate, 200); math.Abs(a-0.125) > 0.01 || math.Abs(b-0.375) > 0.01 {
		t.Errorf("the halves of a 100 ms fade-in: amplitudes %.3f and %.3f, want 0.125 and 0.375", a, b)
	}
	m.Stop(v, 0.2)
	l, _ = render(m, 0.3)
	maxStep := 2 * math.Pi * 200 / rate * 0.5
	for i := 1; i < len(l); i++ {
		if d := math.Abs(float64(l[i] - l[i-1])); d > maxStep*1.01 {
			t.Fatalf("frame %d: a step of %v, more than the tone's own %v: a click", i, d, maxStep)
		}
	}
	if a := soundtest.Amplitude(l[4800-480:4800+480], rate, 200); math.Abs(a-0.25) > 0.02 {
		t.Errorf("halfway through the fade-out: amplitude %.3f, want 0.25", a)
	}
	if m.Playing(v) || l[9700] != 0 {
		t.Error("the voice still sounds after its fade-out")
	}
}

// A bus's volume scales its voices and no others.
func TestBuses(t *testing.T) {
	m := newMixer(t)
	play(t, m, sine(1, 1000, 0.5, 1), Params{Bus: Music, Volume: 1, Pan: -1})
	play(t, m, sine(1, 1500, 0.5, 1), Params{Bus: Interface, Volume: 1, Pan: -1})
	if err := m.SetBus(Music, 0.5, 0); err != nil {
		t.Fatal(err)
	}
	l, _ := render(m, 1)
	if a := soundtest.Amplitude(l[4800:], rate, 1000); math.Abs(a-0.25) > 1e-3 {
		t.Errorf("the music at bus volume 0.5: %.4f, want 0.25", a)
	}
	if a := soundtest.Amplitude(l[4800:], rate, 1500); math.Abs(a-0.5) > 1e-3 {
		t.Errorf("the interface: %.4f, want 0.5", a)
	}
	if err := m.SetBus(NumBuses, 1, 0); err == nil {
		t.Error("SetBus accepted a bus that does not exist")
	}
}

// All MaxVoices voices play at once, summed; one more is refused and
// counted.
func TestManyVoices(t *testing.T) {
	m := newMixer(t)
	s := sine(1, 1000, 1.0/MaxVoices, 1)
	for range MaxVoices {
		play(t, m, s, Params{Volume: 1, Pan: -1})
	}
	if _, err := m.Play(s, Params{Volume: 1}); err == nil {
		t.Fatal("a voice beyond MaxVoices was accepted")
	}
	l, _ := render(m, 0.2)
	if a := soundtest.Amplitude(l[2400:], rate, 1000); math.Abs(a-1) > 2e-3 {
		t.Errorf("%d voices of 1/%d: amplitude %.4f, want 1", MaxVoices, MaxVoices, a)
	}
	if st := m.Stats(); st.Playing != MaxVoices || st.Dropped != 1 || st.Frames != 9600 {
		t.Errorf("Stats %+v; want %d playing, 1 dropped, 9600 frames", st, MaxVoices)
	}
}

// The same commands before the same Mix calls give the same samples, bit
// for bit.
func TestDeterministic(t *testing.T) {
	run := func() []float32 {
		m := newMixer(t)
		a := play(t, m, sine(2, 440, 0.3, 1), Params{Volume: 0.8, Pan: 0.3, Pitch: 1.1, Loop: true})
		play(t, m, sine(1, 660, 0.3, 1), Params{Volume: 0.5, Start: 0.1, FadeIn: 0.05})
		var out []float32
		buf := make([]float32, 2*512)
		for k := range 60 {
			if k == 20 {
				m.Stop(a, 0.1)
			}
			if k == 10 {
				if err := m.Set(a, 0.4, -0.5); err != nil {
					t.Fatal(err)
				}
			}
			m.Mix(buf)
			out = append(out, buf...)
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			t.Fatalf("sample %d: %v then %v", i, a[i], b[i])
		}
	}
}

// Bad parameters are refused, saying what is accepted.
func TestParamsRefused(t *testing.T) {
	m := newMixer(t)
	s := sine(1, 440, 0.5, 0.1)
	for _, p := range []Params{{Volume: -1}, {Volume: 5}, {Volume: 1, Pan: 2}, {Volume: 1, Pitch: 100}, {Volume: 1, Start: -1}, {Volume: 1, Bus: 9}, {Volume: float32(math.NaN())}} {
		if _, err := m.Play(s, p); err == nil {
			t.Errorf("Play accepted %+v", p)
		}
	}
	if _, err := m.Play(nil, Params{Volume: 1}); err == nil {
		t.Error("Play accepted no sound")
	}
	if _, err := New(1000); err == nil {
		t.Error("New accepted 1000 Hz")
	}
}

// A full queue drops commands, counted, and says so.
func TestQueueFull(t *testing.T) {
	m := newMixer(t)
	s := sine(1, 440, 0.5, 0.1)
	v := play(t, m, s, Params{Volume: 1})
	for range QueueSize - 1 {
		if err := m.Set(v, 0.5, 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Play(s, Params{Volume: 1}); err == nil {
		t.Error("Play with a full queue did not fail")
	}
	if st := m.Stats(); st.Dropped != 1 {
		t.Errorf("Dropped %d, want 1", st.Dropped)
	}
	render(m, 0.01)
	play(t, m, s, Params{Volume: 1})
}

// Mix allocates nothing.
func TestMixAllocatesNothing(t *testing.T) {
	m := newMixer(t)
	for k := range 64 {
		play(t, m, sine(1+k%2, 200+float64(k), 0.01, 1), Params{Volume: 1, Loop: true, Pitch: 1 + float32(k)/100})
	}
	buf := make([]float32, 2*333)
	if n := testing.AllocsPerRun(50, func() { m.Mix(buf) }); n != 0 {
		t.Errorf("Mix allocates %v times a call", n)
	}
}

// The game's side and the audio side run on their own goroutines, as with
// a device: no data race (go test -race), and every voice played ends.
func TestTwoSides(t *testing.T) {
	m := newMixer(t)
	s := sine(1, 440, 0.1, 0.01)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		buf := make([]float32, 2*256)
		for {
			select {
			case <-stop:
				return
			default:
				m.Mix(buf)
			}
		}
	})
	played := 0
	for played < 2000 {
		if v, err := m.Play(s, Params{Volume: 1, Pitch: 4}); err == nil {
			played++
			_ = m.Set(v, 0.5, 0.1)
		}
	}
	// Wait for the audio side to take the last commands and finish every
	// voice (an event, not a time: each plays 2.5 ms).
	after := m.Stats().Frames + 2*256
	for st := m.Stats(); st.Frames < after || st.Playing != 0; st = m.Stats() {
		runtime.Gosched()
	}
	for i := range m.used {
		if m.used[i] && m.ended[i].Load() != m.gens[i] {
			t.Errorf("slot %d's voice never ended", i)
		}
	}
	close(stop)
	wg.Wait()
}

// BenchmarkMix64Voices measures the mixer's CPU cost per frame at 64
// voices (half of them stereo, pitched, looping): a frame at 144 Hz mixes
// 333 frames at 48 kHz.
func BenchmarkMix64Voices(b *testing.B) {
	m := newMixer(b)
	for k := range 64 {
		play(b, m, sine(1+k%2, 200+float64(k), 0.01, 1), Params{Volume: 1, Loop: true, Pitch: 1 + float32(k)/100, Pan: float32(k%3-1) / 2})
	}
	buf := make([]float32, 2*333)
	for b.Loop() {
		m.Mix(buf)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/frame")
}
