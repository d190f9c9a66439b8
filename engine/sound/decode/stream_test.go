package decode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readStream reads s to its end in pieces of piece frames.
func readStream(t testing.TB, s *Stream, piece int) []float32 {
	t.Helper()
	var out []float32
	buf := make([]float32, piece*s.Channels())
	for {
		n, err := s.Read(buf)
		out = append(out, buf[:n*s.Channels()]...)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatal("Read gave no frames and no error")
		}
	}
}

// sameBits fails unless got and want hold the same samples, bit for bit.
func sameBits(t testing.TB, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d samples, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: sample %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// writeTemp writes data to a file named name in a temporary folder.
func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every WAV format streams to the samples File decodes, bit for bit, read
// in pieces of any size; a Seek part-way reads on from that frame, and
// Seek(0) from the start again.
func TestStreamWAVMatchesFile(t *testing.T) {
	raw := make([]byte, 8*3*1000) // 1,000 stereo frames of 64 bits, random-ish
	for i := range raw {
		raw[i] = byte(i*7919 + i/3)
	}
	for i := 0; i+8 <= len(raw); i += 8 { // finite floats: small values
		binary.LittleEndian.PutUint64(raw[i:], math.Float64bits(math.Sin(float64(i))))
	}
	for _, f := range []struct{ tag, bits int }{{wavPCM, 8}, {wavPCM, 16}, {wavPCM, 24}, {wavPCM, 32}, {wavFloat, 64}} {
		frames := 997
		data := raw[:frames*2*f.bits/8]
		p := writeTemp(t, "x.wav", wavFile(f.tag, 2, 44100, f.bits, data))
		whole, err := File(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := OpenStream(p)
		if err != nil {
			t.Fatal(err)
		}
		if s.Rate() != 44100 || s.Channels() != 2 || s.Frames() != frames || s.Name() != p {
			t.Fatalf("%d bits: %d Hz, %d channels, %d frames, %q; want 44100, 2, %d, the path", f.bits, s.Rate(), s.Channels(), s.Frames(), s.Name(), frames)
		}
		for _, piece := range []int{1, 100, 4096} {
			if err := s.Seek(0); err != nil {
				t.Fatal(err)
			}
			sameBits(t, "read whole", readStream(t, s, piece), whole.Samples)
		}
		if err := s.Seek(333); err != nil {
			t.Fatal(err)
		}
		sameBits(t, "after Seek(333)", readStream(t, s, 64), whole.Samples[2*333:])
		if err := s.Seek(frames + 1); err == nil {
			t.Error("Seek past the end: no error")
		}
		if err := s.Close(); err != nil || s.Close() != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

// An Ogg Vorbis file streams to the samples File decodes, bit for bit,
// and again after Seek(0); after a Seek part-way its samples are File's
// from there (within the decoder's rounding).
func TestStreamOggMatchesFile(t *testing.T) {
	p := encodeOgg(t, needOggenc(t), tone(44100, 2, 1000, 0.5, 44100))
	whole, err := File(p)
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenStream(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Rate() != 44100 || s.Channels() != 2 || s.Frames() != whole.Frames() {
		t.Fatalf("%d Hz, %d channels, %d frames; want 44100, 2, %d", s.Rate(), s.Channels(), s.Frames(), whole.Frames())
	}
	sameBits(t, "read whole", readStream(t, s, 1000), whole.Samples)
	if err := s.Seek(0); err != nil {
		t.Fatal(err)
	}
	sameBits(t, "after Seek(0)", readStream(t, s, 333), whole.Samples)
	const at = 20000
	if err := s.Seek(at); err != nil {
		t.Fatal(err)
	}
	got := readStream(t, s, 512)
	want := whole.Samples[2*at:]
	if len(got) != len(want) {
		t.Fatalf("after Seek(%d): %d samples, want %d", at, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i] - want[i])); d > 1e-5 {
			t.Fatalf("after Seek(%d): sample %d is %v, want %v", at, i, got[i], want[i])
		}
	}
}

// A file that is not a sound, or whose headers are cut short or wrong,
// gives an error naming the file and what is wrong; one whose samples are
// bad opens, and its Read says so; a missing file gives a read error.
func TestStreamBadFiles(t *testing.T) {
	good := wavFile(wavPCM, 1, 8000, 16, []byte{1, 2, 3, 4})
	nan := wavFile(wavFloat, 1, 8000, 32, binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(math.NaN()))))
	for _, tc := range []struct {
		name string
		data []byte
		says string
	}{
		{"empty", nil, "the file is empty"},
		{"text", []byte("hello, world"), "neither a WAV file"},
		{"cut data", good[:len(good)-1], `"data" chunk is cut short`},
		{"cut header", good[:len(good)-8], "ends within a chunk's header"},
		{"no data", good[:36], "has no data chunk"},
		{"no fmt", append([]byte("RIFF\x00\x00\x00\x00WAVE"), good[48:]...), "data chunk comes before its fmt chunk"},
		{"nine channels", wavFile(wavPCM, 9, 8000, 16, nil), "9 channels"},
		{"12-bit", wavFile(wavPCM, 1, 8000, 12, nil), "format tag 1 with 12 bits"},
		{"half a frame", wavFile(wavPCM, 2, 8000, 16, []byte{1, 2}), "ends within a frame"},
		{"not Vorbis", []byte("OggS\x00\x02garbage that is not a page"), "Ogg Vorbis headers"},
	} {
		p := writeTemp(t, tc.name+".wav", tc.data)
		_, err := OpenStream(p)
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.says) || !strings.HasPrefix(err.Error(), "decode: ") {
			t.Errorf("%s: %v; want an error naming %s and saying %q", tc.name, err, p, tc.says)
		}
	}
	p := writeTemp(t, "nan.wav", nan)
	s, err := OpenStream(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Read(make([]float32, 8)); err == nil || !strings.Contains(err.Error(), "nan.wav: sample 0 is NaN") {
		t.Errorf("reading a NaN: %v; want an error naming the file and the sample", err)
	}
	if _, err := OpenStream(filepath.Join(t.TempDir(), "missing.ogg")); err == nil || errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "missing.ogg") {
		t.Errorf("a missing file: %v; want a read error naming it", err)
	}
}

// streamBytes streams data as a file would be, to its end.
func streamBytes(data []byte) (*Stream, []float32, error) {
	s, err := newStream("fuzz.wav", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, err
	}
	var out []float32
	buf := make([]float32, 1000*s.Channels())
	for range 1 << 16 {
		n, err := s.Read(buf)
		out = append(out, buf[:n*s.Channels()]...)
		if err == io.EOF {
			return s, out, nil
		}
		if err != nil {
			return s, nil, err
		}
	}
	return s, out, nil
}

// FuzzStream: whatever the bytes, streaming them never panics; a WAV
// file streams exactly when Bytes decodes it, to the same samples, bit
// for bit, and each error names the file.
func FuzzStream(f *testing.F) {
	f.Add(wavFile(wavPCM, 2, 44100, 16, []byte{1, 2, 3, 4, 5, 6, 7, 8}))
	f.Add(wavFile(wavFloat, 1, 8000, 32, []byte{0, 0, 0x80, 0x3f}))
	f.Add(wavFile(wavPCM, 1, 8000, 24, []byte{1, 2, 3}))
	f.Add([]byte("OggS"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, got, err := streamBytes(data)
		if err != nil && !strings.Contains(err.Error(), "fuzz.wav") {
			t.Fatalf("an error not naming the file: %v", err)
		}
		if len(data) < 4 || string(data[:4]) != "RIFF" {
			return // Ogg: no panic is all
		}
		whole, werr := Bytes("fuzz.wav", data)
		if (err == nil) != (werr == nil) {
			t.Fatalf("streamed: %v; whole: %v", err, werr)
		}
		if err != nil {
			return
		}
		if s.Frames() != whole.Frames() {
			t.Fatalf("%d frames streamed, %d whole", s.Frames(), whole.Frames())
		}
		sameBits(t, "streamed", got, whole.Samples)
	})
}
