package decode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/jfreymuth/oggvorbis"
)

// Stream reads a sound file a piece at a time instead of whole: music,
// too long to hold decoded. Make one with OpenStream. A Stream is used by
// one goroutine at a time.
type Stream struct {
	name     string
	rate     int
	channels int
	frames   int // as the file says; an Ogg file's is its last page's
	pos      int // the next frame Read gives
	r        io.ReadSeeker
	c        io.Closer // nil when r is not a file

	// WAV.
	wav     wavFmt
	dataOff int64
	raw     []byte // Read's bytes

	// Ogg Vorbis.
	ogg *oggvorbis.Reader
}

// OpenStream opens the sound file at path, WAV or Ogg Vorbis by its
// contents, and reads its headers (a WAV file's chunks up to its data, an
// Ogg file's Vorbis headers and its last page, for its length), ready to
// Read from its first frame. Close it when done.
func OpenStream(path string) (*Stream, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("decode: %w", err)
	}
	s, err := newStream(path, f, fi.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	s.c = f
	return s, nil
}

// newStream reads r's headers, r being size bytes long; name is used in
// messages.
func newStream(name string, r io.ReadSeeker, size int64) (s *Stream, err error) {
	var head [12]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("decode: %s: %w", name, err)
	}
	data := head[:n]
	s = &Stream{name: name, r: r}
	switch {
	case n == 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WAVE":
		if err := s.openWAV(size); err != nil {
			return nil, err
		}
		return s, nil
	case n >= 4 && string(data[:4]) == "OggS":
		if err := s.openOgg(); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, formatError(name, "it starts with %s, neither a WAV file (RIFF....WAVE) nor an Ogg one (OggS)", quoteStart(data))
}

// openWAV reads the chunks after the RIFF header up to the data chunk,
// as WAV does, leaving r at the data's start.
func (s *Stream) openWAV(size int64) error {
	name := s.name
	pos := int64(12)
	haveFmt := false
	var hdr [8]byte
	for {
		rest := size - pos
		if rest <= 0 {
			if !haveFmt {
				return formatError(name, "it has no fmt chunk")
			}
			return formatError(name, "it has no data chunk")
		}
		if rest < 8 {
			return formatError(name, "it ends within a chunk's header (%d bytes of 8)", rest)
		}
		if err := s.readAt(hdr[:], pos); err != nil {
			return err
		}
		id, n := string(hdr[:4]), int64(binary.LittleEndian.Uint32(hdr[4:]))
		if n > rest-8 {
			return formatError(name, "the %q chunk is cut short: it says %d bytes, %d are there", id, n, rest-8)
		}
		switch id {
		case "fmt ":
			body := make([]byte, min(n, 40)) // all wavFormat reads
			if err := s.readAt(body, pos+8); err != nil {
				return err
			}
			f, err := wavFormat(name, body)
			if err != nil {
				return err
			}
			s.wav, s.rate, s.channels, haveFmt = f, f.rate, f.channels, true
		case "data":
			if !haveFmt {
				return formatError(name, "its data chunk comes before its fmt chunk")
			}
			if n%int64(s.wav.align) != 0 {
				return formatError(name, "its data (%d bytes) ends within a frame of %d bytes", n, s.wav.align)
			}
			s.dataOff, s.frames = pos+8, int(n/int64(s.wav.align))
			return s.Seek(0)
		}
		pos = min(pos+8+n+n&1, size) // chunks are padded to an even size
	}
}

// readAt reads len(b) bytes at off.
func (s *Stream) readAt(b []byte, off int64) error {
	if _, err := s.r.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("decode: %s: %w", s.name, err)
	}
	if _, err := io.ReadFull(s.r, b); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return formatError(s.name, "it is cut short at byte %d (was it changed while read?)", off+int64(len(b)))
		}
		return fmt.Errorf("decode: %s: %w", s.name, err)
	}
	return nil
}

// openOgg reads the Vorbis headers from r's start.
func (s *Stream) openOgg() (err error) {
	defer s.recoverOgg(&err)
	if _, err := s.r.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("decode: %s: %w", s.name, err)
	}
	rd, err := oggvorbis.NewReader(s.r)
	if err != nil {
		return formatError(s.name, "its Ogg Vorbis headers: %v", err)
	}
	if err := checkShape(s.name, rd.Channels(), rd.SampleRate()); err != nil {
		return err
	}
	s.ogg, s.rate, s.channels, s.frames, s.pos = rd, rd.SampleRate(), rd.Channels(), int(max(rd.Length(), 0)), 0
	return nil
}

// recoverOgg turns a panic of the Vorbis decoder (another package's, on a
// corrupt file) into *err.
func (s *Stream) recoverOgg(err *error) {
	if p := recover(); p != nil {
		*err = formatError(s.name, "the Vorbis decoder failed on it at frame %d: %v", s.pos, p)
	}
}

// Name returns the file's path, as given to OpenStream.
func (s *Stream) Name() string { return s.name }

// Rate returns the number of frames a second.
func (s *Stream) Rate() int { return s.rate }

// Channels returns the number of channels, 1 to MaxChannels.
func (s *Stream) Channels() int { return s.channels }

// Frames returns the stream's length in frames, as its headers say (a
// WAV file's data chunk; an Ogg file's last page, which a corrupt file
// may get wrong: Read's io.EOF is the end).
func (s *Stream) Frames() int { return s.frames }

// Duration returns how long the stream plays at its rate, as Frames says.
func (s *Stream) Duration() time.Duration {
	return time.Duration(s.frames) * time.Second / time.Duration(s.rate)
}

// Read decodes the next frames into dst, interleaved by channel as a
// Sound's samples, in [-1, 1]: as many whole frames as dst holds, or
// fewer. It returns the number of frames read, and io.EOF (with 0) after
// the last; another error names the file and says what is wrong.
func (s *Stream) Read(dst []float32) (n int, err error) {
	want := len(dst) / s.channels
	if want == 0 {
		return 0, nil
	}
	if s.ogg != nil {
		defer s.recoverOgg(&err)
		k, err := s.ogg.Read(dst[:want*s.channels])
		k /= s.channels
		s.pos += k
		switch {
		case k > 0 || err == nil:
			return k, nil // an error comes back with the next call
		case err == io.EOF:
			return 0, io.EOF
		}
		return 0, formatError(s.name, "its audio at frame %d: %v", s.pos, err)
	}
	want = min(want, s.frames-s.pos)
	if want <= 0 {
		return 0, io.EOF
	}
	f := s.wav
	need := want * f.align
	if cap(s.raw) < need {
		s.raw = make([]byte, need)
	}
	raw := s.raw[:need]
	if _, err := io.ReadFull(s.r, raw); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, formatError(s.name, "its data is cut short at frame %d of %d (was it changed while read?)", s.pos, s.frames)
		}
		return 0, fmt.Errorf("decode: %s: %w", s.name, err)
	}
	if err := wavSamples(s.name, dst[:want*f.channels], raw, f.tag, f.bits, s.pos*f.channels); err != nil {
		return 0, err
	}
	s.pos += want
	return want, nil
}

// Seek makes frame the next Read gives, from 0 to Frames (Frames: the
// end). Seek(0) reads again exactly as from OpenStream.
func (s *Stream) Seek(frame int) (err error) {
	if frame < 0 || frame > s.frames {
		return fmt.Errorf("decode: %s: Seek to frame %d, want 0 to %d", s.name, frame, s.frames)
	}
	if s.ogg == nil {
		if _, err := s.r.Seek(s.dataOff+int64(frame)*int64(s.wav.align), io.SeekStart); err != nil {
			return fmt.Errorf("decode: %s: %w", s.name, err)
		}
		s.pos = frame
		return nil
	}
	if frame == 0 {
		// The Vorbis headers again: the first frames come out as the
		// first time (SetPosition(0) may start a page earlier).
		return s.openOgg()
	}
	defer s.recoverOgg(&err)
	if err := s.ogg.SetPosition(int64(frame)); err != nil {
		return formatError(s.name, "seeking to frame %d: %v", frame, err)
	}
	s.pos = frame
	return nil
}

// Close closes the file. Calling it again does nothing.
func (s *Stream) Close() error {
	c := s.c
	s.c = nil
	if c == nil {
		return nil
	}
	if err := c.Close(); err != nil {
		return fmt.Errorf("decode: %s: %w", s.name, err)
	}
	return nil
}
