package decode

import (
	"encoding/binary"
	"math"
)

// WAV format tags (the fmt chunk's first field).
const (
	wavPCM        = 1
	wavFloat      = 3
	wavExtensible = 0xFFFE
)

// WAV decodes data, a whole RIFF WAVE file; name is used in messages. Its
// fmt chunk must come before its data chunk; other chunks (LIST, fact,
// cue) are skipped.
func WAV(name string, data []byte) (*Sound, error) {
	if len(data) < 12 || string(data[:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		return nil, formatError(name, "it starts with %s, not a WAV file's RIFF....WAVE", quoteStart(data))
	}
	var (
		haveFmt              bool
		tag, channels, align int
		rate, bits           int
	)
	rest := data[12:]
	for {
		if len(rest) == 0 {
			if !haveFmt {
				return nil, formatError(name, "it has no fmt chunk")
			}
			return nil, formatError(name, "it has no data chunk")
		}
		if len(rest) < 8 {
			return nil, formatError(name, "it ends within a chunk's header (%d bytes of 8)", len(rest))
		}
		id, size := string(rest[:4]), binary.LittleEndian.Uint32(rest[4:8])
		body := rest[8:]
		if uint64(size) > uint64(len(body)) {
			return nil, formatError(name, "the %q chunk is cut short: it says %d bytes, %d are there", id, size, len(body))
		}
		body = body[:size]
		switch id {
		case "fmt ":
			f, err := wavFormat(name, body)
			if err != nil {
				return nil, err
			}
			tag, channels, rate, bits, align = f.tag, f.channels, f.rate, f.bits, f.align
			haveFmt = true
		case "data":
			if !haveFmt {
				return nil, formatError(name, "its data chunk comes before its fmt chunk")
			}
			if len(body)%align != 0 {
				return nil, formatError(name, "its data (%d bytes) ends within a frame of %d bytes", len(body), align)
			}
			s := &Sound{Name: name, Rate: rate, Channels: channels, Samples: make([]float32, len(body)/(bits/8))}
			if err := wavSamples(name, s.Samples, body, tag, bits, 0); err != nil {
				return nil, err
			}
			return s, nil
		}
		// Chunks are padded to an even size.
		next := 8 + int(size) + int(size&1)
		if next > len(rest) {
			next = len(rest)
		}
		rest = rest[next:]
	}
}

// wavFmt is what a WAV file's fmt chunk says.
type wavFmt struct {
	tag, channels, rate, bits, align int
}

// wavFormat reads and checks body, a fmt chunk's.
func wavFormat(name string, body []byte) (wavFmt, error) {
	if len(body) < 16 {
		return wavFmt{}, formatError(name, "the fmt chunk has %d bytes, fewer than 16", len(body))
	}
	f := wavFmt{
		tag:      int(binary.LittleEndian.Uint16(body[0:])),
		channels: int(binary.LittleEndian.Uint16(body[2:])),
		rate:     int(binary.LittleEndian.Uint32(body[4:])),
		align:    int(binary.LittleEndian.Uint16(body[12:])),
		bits:     int(binary.LittleEndian.Uint16(body[14:])),
	}
	if f.tag == wavExtensible {
		if len(body) < 40 {
			return wavFmt{}, formatError(name, "the extensible fmt chunk has %d bytes, fewer than 40", len(body))
		}
		f.tag = int(binary.LittleEndian.Uint16(body[24:])) // the sub-format GUID's first field
	}
	if err := checkShape(name, f.channels, f.rate); err != nil {
		return wavFmt{}, err
	}
	switch {
	case f.tag == wavPCM && (f.bits == 8 || f.bits == 16 || f.bits == 24 || f.bits == 32):
	case f.tag == wavFloat && (f.bits == 32 || f.bits == 64):
	default:
		return wavFmt{}, formatError(name, "format tag %d with %d bits a sample", f.tag, f.bits)
	}
	if f.align != f.channels*f.bits/8 {
		return wavFmt{}, formatError(name, "a block of %d bytes for %d channels of %d bits", f.align, f.channels, f.bits)
	}
	return f, nil
}

// wavSamples converts body's samples into out, in [-1, 1]; first is the
// number of the first sample in the file, for messages.
func wavSamples(name string, out []float32, body []byte, tag, bits, first int) error {
	le := binary.LittleEndian
	switch {
	case tag == wavPCM && bits == 8: // unsigned, 128 is silence
		for i, b := range body {
			out[i] = float32(int(b)-128) / 128
		}
	case tag == wavPCM && bits == 16:
		for i := range out {
			out[i] = float32(int16(le.Uint16(body[2*i:]))) / (1 << 15)
		}
	case tag == wavPCM && bits == 24:
		for i := range out {
			b := body[3*i:]
			v := int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24) >> 8
			out[i] = float32(v) / (1 << 23)
		}
	case tag == wavPCM && bits == 32:
		for i := range out {
			out[i] = float32(float64(int32(le.Uint32(body[4*i:]))) / (1 << 31))
		}
	case bits == 32:
		for i := range out {
			v := math.Float32frombits(le.Uint32(body[4*i:]))
			if v != v || v > math.MaxFloat32 || v < -math.MaxFloat32 {
				return formatError(name, "sample %d is %v, not a finite number", first+i, v)
			}
			out[i] = min(max(v, -1), 1)
		}
	default: // 64-bit float
		for i := range out {
			v := math.Float64frombits(le.Uint64(body[8*i:]))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return formatError(name, "sample %d is %v, not a finite number", first+i, v)
			}
			out[i] = float32(min(max(v, -1), 1))
		}
	}
	return nil
}

// EncodeWAV returns s as a WAV file of 16-bit PCM (PCM16): what a mix
// rendered to a file is written as.
func EncodeWAV(s *Sound) []byte {
	n := len(s.Samples) * 2
	out := make([]byte, 44+n)
	le := binary.LittleEndian
	copy(out, "RIFF")
	le.PutUint32(out[4:], uint32(36+n))
	copy(out[8:], "WAVEfmt ")
	le.PutUint32(out[16:], 16)
	le.PutUint16(out[20:], wavPCM)
	le.PutUint16(out[22:], uint16(s.Channels))
	le.PutUint32(out[24:], uint32(s.Rate))
	le.PutUint32(out[28:], uint32(s.Rate*s.Channels*2))
	le.PutUint16(out[32:], uint16(s.Channels*2))
	le.PutUint16(out[34:], 16)
	copy(out[36:], "data")
	le.PutUint32(out[40:], uint32(n))
	for i, v := range s.Samples {
		le.PutUint16(out[44+2*i:], uint16(PCM16(v)))
	}
	return out
}

// PCM16 returns v as a 16-bit sample, the inverse of how WAV reads one:
// v times 32,768, rounded to the nearest integer, clamped to [-32768,
// 32767] (so 1 gives 32767).
func PCM16(v float32) int16 {
	return int16(min(max(math.RoundToEven(float64(v)*32768), -32768), 32767))
}
