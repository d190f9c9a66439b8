package soundtest

import (
	"math"
	"testing"
)

// A sine of amplitude 0.3 at 1 kHz reads 0.3 there and nearly nothing a
// 100 Hz away; silence reads 0.
func TestAmplitude(t *testing.T) {
	x := make([]float32, 48000)
	for i := range x {
		x[i] = float32(0.3 * math.Sin(2*math.Pi*1000*float64(i)/48000))
	}
	if a := Amplitude(x, 48000, 1000); math.Abs(a-0.3) > 1e-4 {
		t.Errorf("at 1 kHz: %v, want 0.3", a)
	}
	if a := Amplitude(x, 48000, 1100); a > 1e-4 {
		t.Errorf("at 1.1 kHz: %v, want nothing", a)
	}
	if a := Amplitude(make([]float32, 100), 48000, 1000); a != 0 || Amplitude(nil, 48000, 1000) != 0 {
		t.Errorf("silence: %v", a)
	}
}
