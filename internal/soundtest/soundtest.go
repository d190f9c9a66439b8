// Package soundtest holds what the sound packages' tests share: the
// amplitude of one frequency in a signal (the Goertzel algorithm), which
// is how a test hears a tone; a real PulseAudio server with a null sink,
// started in a temporary runtime folder (StartPulse, PulseForTest), and
// a recording of its monitor with each frame dated as it came (Record);
// and NoAudio, which skips a test in one line where there is no audio
// server, or fails it when NEBULA_REQUIRE_AUDIO=1.
package soundtest

import "math"

// Amplitude returns the amplitude of x's freq Hz component, x sampled at
// rate Hz: a sine of amplitude a at freq gives a (over whole periods).
func Amplitude(x []float32, rate, freq float64) float64 {
	if len(x) == 0 {
		return 0
	}
	w := 2 * math.Pi * freq / rate
	c := 2 * math.Cos(w)
	var s1, s2 float64
	for _, v := range x {
		s0 := float64(v) + c*s1 - s2
		s2, s1 = s1, s0
	}
	re, im := s1-s2*math.Cos(w), s2*math.Sin(w)
	return 2 * math.Sqrt(re*re+im*im) / float64(len(x))
}
