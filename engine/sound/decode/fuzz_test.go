package decode

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// FuzzBytes: whatever the bytes, Bytes returns a sound whose shape is
// within the limits and whose samples are in [-1, 1], or an error about
// the format; never a panic.
func FuzzBytes(f *testing.F) {
	f.Add(wavFile(wavPCM, 2, 44100, 16, []byte{1, 2, 3, 4, 5, 6, 7, 8}))
	f.Add(wavFile(wavFloat, 1, 8000, 32, []byte{0, 0, 0x80, 0x3f}))
	f.Add(wavFile(wavPCM, 1, 8000, 24, []byte{1, 2, 3}))
	f.Add([]byte("OggS"))
	if p, err := exec.LookPath("oggenc"); err == nil {
		if data, err := os.ReadFile(encodeOgg(f, p, tone(8000, 1, 440, 0.5, 800))); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Bytes("fuzz.wav", data)
		if err != nil {
			if s != nil {
				t.Fatal("a sound with an error")
			}
			var pe *os.PathError
			if !errors.Is(err, ErrFormat) && !errors.As(err, &pe) {
				t.Logf("an error not about the format: %v", err) // the decoder's own oddities
			}
			return
		}
		if s.Channels < 1 || s.Channels > MaxChannels || s.Rate < MinRate || s.Rate > MaxRate || len(s.Samples)%s.Channels != 0 {
			t.Fatalf("a sound of %d channels at %d Hz with %d samples", s.Channels, s.Rate, len(s.Samples))
		}
		for i, v := range s.Samples {
			if !(v >= -1 && v <= 1) {
				t.Fatalf("sample %d is %v", i, v)
			}
		}
	})
}
