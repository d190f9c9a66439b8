// Package decode reads sound files into samples a mixer can play: WAV
// (PCM of 8, 16, 24 or 32-bit integers, or 32 or 64-bit floats) and Ogg
// Vorbis, one to eight channels, at any rate from 8,000 to 192,000
// samples a second.
//
// A file that is not one of these, or that is cut short or corrupt, gives
// an error that names the file and says what is wrong and what is
// accepted; nothing in it makes the decoder panic or allocate more than
// the file's own size calls for (FuzzBytes). A game goes on without that
// sound.
//
// Music, too long to hold decoded, streams instead: OpenStream reads a
// file's headers and Stream.Read decodes it a piece at a time, with
// Stream.Seek to start part-way or loop; its samples are File's, bit for
// bit (FuzzStream for WAV).
//
//	s, err := decode.File("sounds/hit.wav")
//	if err != nil {
//		log.Print(err) // decode: sounds/hit.wav: the data chunk is cut short: ...
//	}
package decode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Sound is a decoded sound: its samples, interleaved by channel, in
// [-1, 1].
type Sound struct {
	// Name is where the sound came from (a file's path), for messages.
	Name string
	// Rate is the number of samples a second of each channel.
	Rate int
	// Channels is the number of channels, 1 to MaxChannels: 1 is mono,
	// 2 stereo (left, then right).
	Channels int
	// Samples holds the samples, a frame (one sample per channel) after
	// another.
	Samples []float32
}

// Frames returns the number of frames: samples per channel.
func (s *Sound) Frames() int { return len(s.Samples) / s.Channels }

// Duration returns how long the sound plays at its rate.
func (s *Sound) Duration() time.Duration {
	return time.Duration(s.Frames()) * time.Second / time.Duration(s.Rate)
}

// The limits of what is decoded.
const (
	// MaxChannels is the most channels a sound may have.
	MaxChannels = 8
	// MinRate and MaxRate bound a sound's rate, samples a second.
	MinRate, MaxRate = 8000, 192000
)

// ErrFormat is wrapped by every error about what a file holds (as
// opposed to an error reading it).
var ErrFormat = errors.New("not a sound this decoder reads")

// File reads and decodes the sound at path, WAV or Ogg Vorbis by its
// contents (not its name).
func File(path string) (*Sound, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return Bytes(path, data)
}

// Bytes decodes data, a whole WAV or Ogg Vorbis file, by its first bytes;
// name is used in messages.
func Bytes(name string, data []byte) (*Sound, error) {
	switch {
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WAVE":
		return WAV(name, data)
	case len(data) >= 4 && string(data[:4]) == "OggS":
		return Ogg(name, bytes.NewReader(data))
	}
	return nil, formatError(name, "it starts with %s, neither a WAV file (RIFF....WAVE) nor an Ogg one (OggS)", quoteStart(data))
}

// formatError returns an error about name's contents, wrapping ErrFormat.
func formatError(name, format string, args ...any) error {
	return fmt.Errorf("decode: %s: %s (%w: WAV, 8 to 32-bit integer or 32 or 64-bit float PCM, or Ogg Vorbis; 1 to %d channels at %d to %d Hz)",
		name, fmt.Sprintf(format, args...), ErrFormat, MaxChannels, MinRate, MaxRate)
}

// quoteStart quotes the first bytes of data.
func quoteStart(data []byte) string {
	if len(data) == 0 {
		return "nothing (the file is empty)"
	}
	return fmt.Sprintf("%q", data[:min(len(data), 12)])
}

// checkShape checks a sound's channels and rate.
func checkShape(name string, channels, rate int) error {
	if channels < 1 || channels > MaxChannels {
		return formatError(name, "%d channels", channels)
	}
	if rate < MinRate || rate > MaxRate {
		return formatError(name, "a rate of %d samples a second", rate)
	}
	return nil
}

// readAllLimited reads r to its end, refusing more than limit bytes.
func readAllLimited(name string, r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("decode: %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, formatError(name, "it is larger than %d bytes", limit)
	}
	return data, nil
}
