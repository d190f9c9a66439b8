package decode

import (
	"bytes"
	"fmt"
	"io"

	"github.com/jfreymuth/oggvorbis"
)

// maxOggBytes is the largest Ogg file Ogg reads (a sound, not music:
// music streams, see OpenStream).
const maxOggBytes = 256 << 20

// Ogg decodes r, a whole Ogg Vorbis file; name is used in messages.
func Ogg(name string, r io.Reader) (s *Sound, err error) {
	// The Vorbis decoder is another package's: whatever a corrupt file
	// does inside it comes back as an error, never a panic.
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, formatError(name, "the Vorbis decoder failed on it: %v", p)
		}
	}()
	data, err := readAllLimited(name, r, maxOggBytes)
	if err != nil {
		return nil, err
	}
	rd, err := oggvorbis.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, formatError(name, "its Ogg Vorbis headers: %v", err)
	}
	channels, rate := rd.Channels(), rd.SampleRate()
	if err := checkShape(name, channels, rate); err != nil {
		return nil, err
	}
	s = &Sound{Name: name, Rate: rate, Channels: channels}
	// The stream says how long it is, but a corrupt one can say anything:
	// grow as the samples come instead of trusting it.
	buf := make([]float32, 4096*channels)
	for {
		n, err := rd.Read(buf)
		for _, v := range buf[:n] {
			s.Samples = append(s.Samples, min(max(v, -1), 1))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, formatError(name, "its audio at frame %d: %v", len(s.Samples)/channels, err)
		}
		if n == 0 {
			return nil, fmt.Errorf("decode: %s: the Vorbis decoder returned no samples and no error", name)
		}
	}
	if len(s.Samples)%channels != 0 {
		return nil, formatError(name, "its audio ends within a frame")
	}
	return s, nil
}
