package synth

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/internal/soundtest"
)

const rate = 48000

// window returns the samples of s from t seconds for d seconds.
func window(s []float32, t, d float64) []float32 {
	return s[int(t*rate):int((t+d)*rate)]
}

// A sine note is heard at its pitch and volume, nowhere else, and only
// between its start and its end.
func TestSineNoteIsItsPitchAndVolume(t *testing.T) {
	s, err := Render("a", rate, []Note{{Wave: Sine, Start: 0.1, Length: 0.5, Freq: 1000, Volume: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Frames(), int(0.6*rate); got != want {
		t.Errorf("%d frames, want %d (the note's end)", got, want)
	}
	mid := window(s.Samples, 0.2, 0.1)
	if a := soundtest.Amplitude(mid, rate, 1000); math.Abs(a-0.5) > 0.001 {
		t.Errorf("1 kHz at %.4f, want 0.5", a)
	}
	if a := soundtest.Amplitude(mid, rate, 1200); a > 0.001 {
		t.Errorf("1.2 kHz at %.4f, want 0", a)
	}
	for i, v := range window(s.Samples, 0, 0.1) {
		if v != 0 {
			t.Fatalf("sample %d before the note's start is %v", i, v)
		}
	}
}

// A slide moves the pitch from Freq to Slide: the first tenth is near
// 400 Hz, the last near 800.
func TestSlideMovesThePitch(t *testing.T) {
	s := MustRender("slide", rate, []Note{{Wave: Sine, Length: 1, Freq: 400, Slide: 800, Volume: 0.5}})
	first, last := window(s.Samples, 0, 0.05), window(s.Samples, 0.95, 0.05)
	if soundtest.Amplitude(first, rate, 410) < 0.3 || soundtest.Amplitude(last, rate, 790) < 0.3 {
		t.Errorf("410 Hz at the start %.3f, 790 Hz at the end %.3f; want both near 0.5",
			soundtest.Amplitude(first, rate, 410), soundtest.Amplitude(last, rate, 790))
	}
	if soundtest.Amplitude(last, rate, 410) > 0.05 {
		t.Errorf("410 Hz still at the end: %.3f", soundtest.Amplitude(last, rate, 410))
	}
}

// A decaying note falls by 1/e every Decay seconds.
func TestDecayFallsExponentially(t *testing.T) {
	s := MustRender("hit", rate, []Note{{Wave: Square, Length: 1, Freq: 100, Volume: 1, Decay: 0.1}})
	at := func(t float64) float64 {
		var peak float32
		for _, v := range window(s.Samples, t, 0.01) {
			peak = max(peak, v, -v)
		}
		return float64(peak)
	}
	if r := at(0.3) / at(0.2); math.Abs(r-math.Exp(-1)) > 0.05 {
		t.Errorf("the peak fell by %.3f in 0.1 s, want 1/e = 0.368", r)
	}
}

// Every wave stays within its volume, rendering twice gives the same
// samples, and notes mix: two notes of 0.7 clip at 1.
func TestWavesAreBoundedAndDeterministic(t *testing.T) {
	for w := Sine; w <= Noise; w++ {
		notes := []Note{{Wave: w, Length: 0.2, Freq: 300, Slide: 900, Volume: 0.6, Decay: 0.1}}
		a, b := MustRender("a", rate, notes), MustRender("b", rate, notes)
		if !slices.Equal(a.Samples, b.Samples) {
			t.Errorf("%v: two renders differ", w)
		}
		var peak float32
		for _, v := range a.Samples {
			peak = max(peak, v, -v)
		}
		if peak > 0.6 || peak < 0.2 {
			t.Errorf("%v: peak %v, want at most the volume 0.6 and well above 0", w, peak)
		}
	}
	s := MustRender("loud", rate, []Note{{Wave: Square, Length: 0.1, Freq: 50, Volume: 0.7}, {Wave: Square, Length: 0.1, Freq: 50, Volume: 0.7}})
	if v := s.Samples[len(s.Samples)/2]; v != 1 && v != -1 {
		t.Errorf("two squares of 0.7 in phase give %v, want clipped to ±1", v)
	}
}

// Bad notes and rates are refused, saying what is accepted.
func TestRenderRefusesBadNotes(t *testing.T) {
	good := Note{Wave: Sine, Length: 0.1, Freq: 440, Volume: 0.5}
	for _, c := range []struct {
		rate int
		n    func(*Note)
		want string
	}{
		{rate: 100, want: "want 8000 to 192000"},
		{rate: rate, n: func(n *Note) { n.Wave = 9 }, want: "want Sine to Noise"},
		{rate: rate, n: func(n *Note) { n.Length = 0 }, want: "length above 0"},
		{rate: rate, n: func(n *Note) { n.Freq = math.NaN() }, want: "want 1 to 24,000 Hz"},
		{rate: rate, n: func(n *Note) { n.Volume = 2 }, want: "want 0 to 1"},
		{rate: rate, n: func(n *Note) { n.Attack = 1 }, want: "within the note's"},
	} {
		n := good
		if c.n != nil {
			c.n(&n)
		}
		_, err := Render("bad", c.rate, []Note{n})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "synth: bad: ") {
			t.Errorf("Render(%+v at %d Hz): %v, want an error with %q", n, c.rate, err, c.want)
		}
	}
}
