package decode

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/internal/soundtest"
)

// wavFile builds a WAV file of one fmt chunk (tag, channels, rate, bits)
// and one data chunk, with a LIST chunk between to be skipped.
func wavFile(tag, channels, rate, bits int, data []byte) []byte {
	le := binary.LittleEndian
	var b []byte
	b = append(b, "RIFF\x00\x00\x00\x00WAVEfmt \x10\x00\x00\x00"...)
	b = le.AppendUint16(b, uint16(tag))
	b = le.AppendUint16(b, uint16(channels))
	b = le.AppendUint32(b, uint32(rate))
	b = le.AppendUint32(b, uint32(rate*channels*bits/8))
	b = le.AppendUint16(b, uint16(channels*bits/8))
	b = le.AppendUint16(b, uint16(bits))
	b = append(b, "LIST\x03\x00\x00\x00abc\x00"...) // odd: padded
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(len(data)))
	b = append(b, data...)
	le.PutUint32(b[4:], uint32(len(b)-8))
	return b
}

// Every sample format reads to its value: the extremes, zero and a
// value between, per format.
func TestWAVFormats(t *testing.T) {
	le := binary.LittleEndian
	cases := []struct {
		name      string
		tag, bits int
		data      []byte
		want      []float32
	}{
		{"8-bit", wavPCM, 8, []byte{0, 128, 255, 192}, []float32{-1, 0, 127.0 / 128, 0.5}},
		{"16-bit", wavPCM, 16, le.AppendUint16(le.AppendUint16(le.AppendUint16(nil, 0x8000), 0), 0x4000), []float32{-1, 0, 0.5}},
		{"24-bit", wavPCM, 24, []byte{0, 0, 0x80, 0, 0, 0, 0, 0, 0x40, 0xff, 0xff, 0xff}, []float32{-1, 0, 0.5, -1.0 / (1 << 23)}},
		{"32-bit", wavPCM, 32, le.AppendUint32(le.AppendUint32(nil, 0x80000000), 0x40000000), []float32{-1, 0.5}},
		{"32-bit float", wavFloat, 32, le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, math.Float32bits(0.25)), math.Float32bits(-2)), math.Float32bits(1)), []float32{0.25, -1, 1}},
		{"64-bit float", wavFloat, 64, le.AppendUint64(le.AppendUint64(nil, math.Float64bits(-0.75)), math.Float64bits(3)), []float32{-0.75, 1}},
	}
	for _, tc := range cases {
		s, err := WAV(tc.name+".wav", wavFile(tc.tag, 1, 22050, tc.bits, tc.data))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if s.Rate != 22050 || s.Channels != 1 || len(s.Samples) != len(tc.want) {
			t.Errorf("%s: %d Hz, %d channels, %d samples; want 22050, 1, %d", tc.name, s.Rate, s.Channels, len(s.Samples), len(tc.want))
			continue
		}
		for i, v := range tc.want {
			if s.Samples[i] != v {
				t.Errorf("%s: sample %d is %v, want %v", tc.name, i, s.Samples[i], v)
			}
		}
	}
}

// A stereo tone written by EncodeWAV reads back within half a 16-bit step,
// with its rate, channels and duration; an extensible fmt chunk (as
// written by many tools for more than two channels) reads too.
func TestEncodeWAVRoundTrip(t *testing.T) {
	in := tone(48000, 2, 440, 0.5, 4800)
	out, err := Bytes("tone.wav", EncodeWAV(in))
	if err != nil {
		t.Fatal(err)
	}
	if out.Rate != 48000 || out.Channels != 2 || out.Frames() != 4800 || out.Duration().Milliseconds() != 100 {
		t.Fatalf("%d Hz, %d channels, %d frames, %v; want 48000, 2, 4800, 100ms", out.Rate, out.Channels, out.Frames(), out.Duration())
	}
	for i, v := range in.Samples {
		if d := math.Abs(float64(out.Samples[i] - v)); d > 0.5/32768+1e-7 {
			t.Fatalf("sample %d: %v, want %v", i, out.Samples[i], v)
		}
	}
	ext := wavFile(wavExtensible, 1, 8000, 16, []byte{0, 0x40})
	// Grow the fmt chunk to 40 bytes: cbSize 22, valid bits, channel mask,
	// then the sub-format GUID, whose first field is the PCM tag.
	fmtExt := append(append([]byte{}, ext[20:36]...), 22, 0, 16, 0, 4, 0, 0, 0, wavPCM, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71)
	b := append(append(append([]byte{}, ext[:16]...), 40, 0, 0, 0), fmtExt...)
	b = append(b, ext[36:]...)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
	s, err := WAV("ext.wav", b)
	if err != nil || len(s.Samples) != 1 || s.Samples[0] != 0.5 {
		t.Fatalf("extensible: %v, %v; want one sample of 0.5", s, err)
	}
}

// Bad files give an error naming the file, what is wrong and what is
// accepted, wrapping ErrFormat; never a panic.
func TestBadFiles(t *testing.T) {
	good := wavFile(wavPCM, 1, 8000, 16, []byte{1, 2, 3, 4})
	nan := wavFile(wavFloat, 1, 8000, 32, binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(math.NaN()))))
	cases := []struct {
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
		{"4 kHz", wavFile(wavPCM, 1, 4000, 16, nil), "a rate of 4000"},
		{"12-bit", wavFile(wavPCM, 1, 8000, 12, nil), "format tag 1 with 12 bits"},
		{"mu-law", wavFile(7, 1, 8000, 8, nil), "format tag 7"},
		{"half a frame", wavFile(wavPCM, 2, 8000, 16, []byte{1, 2}), "ends within a frame"},
		{"NaN", nan, "not a finite number"},
		{"not Vorbis", []byte("OggS\x00\x02garbage that is not a page"), "Ogg Vorbis headers"},
	}
	for _, tc := range cases {
		_, err := Bytes(tc.name+".wav", tc.data)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		msg := err.Error()
		if !errors.Is(err, ErrFormat) || !strings.Contains(msg, tc.name+".wav") || !strings.Contains(msg, tc.says) || !strings.Contains(msg, "Ogg Vorbis; 1 to 8 channels") {
			t.Errorf("%s: %q; want the file's name, %q and what is accepted, wrapping ErrFormat", tc.name, msg, tc.says)
		}
	}
	if _, err := File(filepath.Join(t.TempDir(), "missing.wav")); err == nil || errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "missing.wav") {
		t.Errorf("a missing file: %v; want a read error naming it", err)
	}
}

// An Ogg Vorbis file made by oggenc from a 1 kHz tone at half scale
// decodes to that tone: its rate and channels, its length within the
// encoder's padding, its frequency (the strongest of 900, 1000 and
// 1100 Hz by far) and its level within 0.5 dB (Vorbis at quality 6 keeps
// a pure tone's level).
func TestOggTone(t *testing.T) {
	oggenc := needOggenc(t)
	ogg := encodeOgg(t, oggenc, tone(44100, 2, 1000, 0.5, 44100))
	s, err := File(ogg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rate != 44100 || s.Channels != 2 || s.Frames() < 44100 || s.Frames() > 44100+2048 {
		t.Fatalf("%d Hz, %d channels, %d frames; want 44100, 2, about 44100", s.Rate, s.Channels, s.Frames())
	}
	mid := s.Samples[2*11025 : 2*33075]
	left := make([]float32, len(mid)/2)
	for i := range left {
		left[i] = mid[2*i]
	}
	at := func(f float64) float64 { return soundtest.Amplitude(left, 44100, f) }
	a900, a1000, a1100 := at(900), at(1000), at(1100)
	db := 20 * math.Log10(a1000/0.5)
	t.Logf("amplitude at 900, 1000, 1100 Hz: %.4f, %.4f, %.4f (%.2f dB from 0.5)", a900, a1000, a1100, db)
	if a1000 < 20*a900 || a1000 < 20*a1100 || math.Abs(db) > 0.5 {
		t.Errorf("the tone decodes to amplitude %.4f at 1 kHz (%.2f dB from 0.5), %.4f and %.4f beside it", a1000, db, a900, a1100)
	}
}

// tone returns frames of a sine of freq Hz and amplitude amp in every
// channel.
func tone(rate, channels int, freq, amp float64, frames int) *Sound {
	s := &Sound{Name: "tone", Rate: rate, Channels: channels, Samples: make([]float32, frames*channels)}
	for i := range frames {
		v := float32(amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
		for c := range channels {
			s.Samples[i*channels+c] = v
		}
	}
	return s
}

// needOggenc returns oggenc's path, or skips saying why (make test
// installs it, and NEBULA_REQUIRE_AUDIO=1 makes its absence a failure).
func needOggenc(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("oggenc")
	if err != nil {
		if os.Getenv("NEBULA_REQUIRE_AUDIO") == "1" {
			t.Fatalf("oggenc (Debian's vorbis-tools) is needed: %v", err)
		}
		t.Skipf("no oggenc (Debian's vorbis-tools, which make test installs): %v", err)
	}
	return p
}

// encodeOgg writes s as a WAV file and encodes it with oggenc at quality
// 6, returning the Ogg file's path.
func encodeOgg(t testing.TB, oggenc string, s *Sound) string {
	t.Helper()
	dir := t.TempDir()
	wav, ogg := filepath.Join(dir, "in.wav"), filepath.Join(dir, "out.ogg")
	if err := os.WriteFile(wav, EncodeWAV(s), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(oggenc, "-Q", "-q", "6", "-o", ogg, wav).CombinedOutput(); err != nil {
		t.Fatalf("oggenc: %v\n%s", err, out)
	}
	return ogg
}
