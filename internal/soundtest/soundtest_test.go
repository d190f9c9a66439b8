package soundtest

import (
	"math"
	"runtime"
	"testing"
	"time"
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

// A server started for the test records its monitor: silence, in stereo
// frames dated in order, no later than now.
func TestPulseRecordsSilence(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("PulseAudio: Linux only")
	}
	PulseForTest(t)
	rec, err := Record(Monitor)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.WaitFrames(Rate/5, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	l, r := rec.Channels(0)
	if len(l) < Rate/5 || len(r) != len(l) {
		t.Fatalf("%d and %d frames, want %d or more of each", len(l), len(r), Rate/5)
	}
	for i := range l {
		if l[i] != 0 || r[i] != 0 {
			t.Fatalf("frame %d is %v, %v: want silence", i, l[i], r[i])
		}
	}
	if a, b := rec.At(0), rec.At(len(l)-1); a.IsZero() || b.Before(a) || b.After(time.Now()) {
		t.Errorf("the first frame came at %v, the last at %v: want them in order, before now", a, b)
	}
	if !rec.At(len(l)).IsZero() {
		t.Error("a frame not recorded has a time")
	}
}
