package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/bits"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/timing"
)

// Replay is a recording checked from end to end by Open.
type Replay struct {
	Header Header // the scene and how it was run
	End    End    // what the end chunk says
	Stats  Stats  // what the recording holds
	data   []byte
	body   int // offset of the first chunk
	stop   int // OpenIncomplete: the offset after the last whole chunk (0 = read to the end chunk)
}

// Records returns the number of recorded ticks.
func (r *Replay) Records() uint64 { return r.End.Records }

// Open parses and checks a whole recording: the header, every chunk's CRC
// and every record. data must stay unchanged while the Replay is used (the
// records point into it).
func Open(data []byte) (*Replay, error) {
	return open(data, 0)
}

// OpenIncomplete opens a recording whose end is missing, as a process that
// was killed leaves it (a recorder writes a chunk at least once per second
// of simulated time, so such a file lacks at most its last second): it
// keeps the records of every whole chunk and drops what follows the last
// one, which End.Missing describes. A file that Open accepts is returned
// as Open returns it. Every other fault (a bad header, a checksum that does
// not match, a bad record) is refused as Open refuses it: only a file that
// is cut short is taken.
func OpenIncomplete(data []byte) (*Replay, error) {
	r, err := Open(data)
	if err == nil || !errors.Is(err, ErrTruncated) {
		return r, err
	}
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Chunk < 0 {
		return nil, err // the header itself is cut short
	}
	// The whole chunks: frames that fit in the file and whose CRC holds.
	d := &decoder{data: data, chunk: -1}
	if herr := d.header(new(Header)); herr != nil {
		return nil, herr
	}
	stop := d.off
	for off := stop; off+5 <= len(data); {
		typ, n := data[off], int(binary.LittleEndian.Uint32(data[off+1:]))
		end := off + 5 + n
		if typ != chunkTicks || n > MaxChunk || end+4 > len(data) ||
			crc32.ChecksumIEEE(data[off:end]) != binary.LittleEndian.Uint32(data[end:]) {
			break
		}
		off = end + 4
		stop = off
	}
	r, oerr := open(data, stop)
	if oerr != nil {
		return nil, oerr
	}
	r.End.Missing = &Missing{Bytes: len(data) - stop, Reason: err}
	return r, nil
}

// open is Open, or with stop above 0, reads only the chunks before byte
// stop and makes up the end from them.
func open(data []byte, stop int) (*Replay, error) {
	r := &Replay{data: data, stop: stop}
	d := &decoder{data: data, chunk: -1}
	if err := d.header(&r.Header); err != nil {
		return nil, err
	}
	r.body = d.off
	d.reset(r)
	var rec Record
	for {
		ok, err := d.next(&rec)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		st := &r.Stats
		if rec.Restore != nil {
			st.Restores++
		}
		if rec.Rate != 0 {
			st.RateChanges++
		}
		if rec.HasHash {
			st.Hashes++
		}
		st.JobResults += len(rec.Jobs)
	}
	r.End = d.end
	if stop > 0 {
		r.End = End{Records: d.records}
		if d.records > 0 {
			r.End.LastTick = d.nextTick - 1
		}
	}
	r.Stats.InputChanges = d.inputChanges
	if r.End.Crash == nil && stop == 0 {
		r.Stats.Hashes++
	}
	return r, nil
}

// decoder walks a file. Between records it sits either at a chunk header
// or inside a ticks chunk's records.
type decoder struct {
	data  []byte
	off   int
	chunk int // index of the current chunk, -1 for the header
	limit int // end of the current chunk's payload (0 = between chunks)

	left     uint64 // records left in the current chunk
	nextTick uint64
	records  uint64
	words    [engine.InputWords]uint64
	input    engine.InputSnapshot
	ended    bool
	end      End
	stop     int // above 0: the records end at this offset, between chunks

	inputChanges int
}

func (d *decoder) reset(r *Replay) {
	*d = decoder{data: r.data, off: r.body, chunk: -1, nextTick: 1, stop: r.stop}
	d.ended = d.stop > 0 && d.off == d.stop // not one whole chunk
}

func (d *decoder) errAt(off int, field string, err error) error {
	return &FormatError{Chunk: d.chunk, Offset: off, Field: field, Err: err}
}

// need checks that n bytes are left in the current bound (the chunk's
// payload, or the file).
func (d *decoder) need(field string, n int) error {
	lim := len(d.data)
	if d.limit > 0 {
		lim = d.limit
	}
	if n < 0 || lim-d.off < n {
		what := "the file ends"
		if d.limit > 0 {
			what = "the chunk ends"
		}
		return d.errAt(d.off, field, fmt.Errorf("%w: %s after %d of %d bytes", ErrTruncated, what, lim-d.off, n))
	}
	return nil
}

func (d *decoder) u8(field string) (uint8, error) {
	if err := d.need(field, 1); err != nil {
		return 0, err
	}
	d.off++
	return d.data[d.off-1], nil
}

func (d *decoder) u16(field string) (uint16, error) {
	if err := d.need(field, 2); err != nil {
		return 0, err
	}
	d.off += 2
	return binary.LittleEndian.Uint16(d.data[d.off-2:]), nil
}

func (d *decoder) u32(field string) (uint32, error) {
	if err := d.need(field, 4); err != nil {
		return 0, err
	}
	d.off += 4
	return binary.LittleEndian.Uint32(d.data[d.off-4:]), nil
}

func (d *decoder) u64(field string) (uint64, error) {
	if err := d.need(field, 8); err != nil {
		return 0, err
	}
	d.off += 8
	return binary.LittleEndian.Uint64(d.data[d.off-8:]), nil
}

func (d *decoder) uvarint(field string) (uint64, error) {
	lim := len(d.data)
	if d.limit > 0 {
		lim = d.limit
	}
	v, n := binary.Uvarint(d.data[d.off:lim])
	switch {
	case n == 0:
		return 0, d.errAt(d.off, field, fmt.Errorf("%w: the chunk ends inside a varint", ErrTruncated))
	case n < 0:
		return 0, d.errAt(d.off, field, fmt.Errorf("%w: varint overflows 64 bits", ErrInvalid))
	}
	d.off += n
	return v, nil
}

// bytes reads a uvarint length (at most max) and that many bytes.
func (d *decoder) bytes(field string, max int) ([]byte, error) {
	at := d.off
	n, err := d.uvarint(field + " length")
	if err != nil {
		return nil, err
	}
	if n > uint64(max) {
		return nil, d.errAt(at, field+" length", fmt.Errorf("%w: %d bytes, at most %d", ErrInvalid, n, max))
	}
	if err := d.need(field, int(n)); err != nil {
		return nil, err
	}
	d.off += int(n)
	return d.data[d.off-int(n) : d.off : d.off], nil
}

func (d *decoder) header(h *Header) error {
	if err := d.need("magic", 8); err != nil {
		return err
	}
	if m := string(d.data[:8]); m != Magic {
		return d.errAt(0, "magic", fmt.Errorf("%w: magic %q, want %q", ErrMagic, m, Magic))
	}
	d.off = 8
	v, err := d.u16("version")
	if err != nil {
		return err
	}
	if v > Version {
		return d.errAt(8, "version", fmt.Errorf("%w: version %d is newer than this build reads (%d); replay it with a newer nebula", ErrVersion, v, Version))
	}
	if v != Version {
		return d.errAt(8, "version", fmt.Errorf("%w: version %d, written by an older build of Nebula (before components and resources); this build reads version %d only", ErrVersion, v, Version))
	}
	h.Version = int(v)
	n, err := d.u32("header length")
	if err != nil {
		return err
	}
	if n < fieldsMin+2 || n > fieldsMin+MaxScene+MaxSchema {
		return d.errAt(10, "header length", fmt.Errorf("%w: %d bytes, want %d to %d", ErrInvalid, n, fieldsMin+2, fieldsMin+MaxScene+MaxSchema))
	}
	if err := d.need("header", int(n)+4); err != nil {
		return err
	}
	end := headerFixed + int(n)
	if got, want := crc32.ChecksumIEEE(d.data[:end]), binary.LittleEndian.Uint32(d.data[end:]); got != want {
		return d.errAt(end, "header CRC", fmt.Errorf("%w: stored %08x, computed %08x", ErrChecksum, want, got))
	}
	le := binary.LittleEndian
	b := d.data[headerFixed:end]
	h.TickRate = int(le.Uint32(b[0:]))
	h.Seed = le.Uint64(b[4:])
	h.Entities = int(le.Uint32(b[12:]))
	h.HashEvery = int(le.Uint32(b[16:]))
	h.SceneFlags = le.Uint64(b[20:])
	h.PanicAtTick = le.Uint64(b[28:])
	h.JobMode = engine.JobMode(b[36])
	sl := int(b[37])
	if sl > MaxScene || sl > len(b)-fieldsMin-2 {
		return d.errAt(headerFixed+37, "scene length", fmt.Errorf("%w: %d bytes, but the header has room for %d", ErrInvalid, sl, min(MaxScene, len(b)-fieldsMin-2)))
	}
	h.Scene = string(b[fieldsMin : fieldsMin+sl])
	schema, sn, err := engine.ParseSchema(b[fieldsMin+sl:])
	switch {
	case err != nil:
		return d.errAt(headerFixed+fieldsMin+sl, "schema", fmt.Errorf("%w: %v", ErrInvalid, err))
	case fieldsMin+sl+sn != len(b):
		return d.errAt(headerFixed+fieldsMin+sl+sn, "header length", fmt.Errorf("%w: %d bytes after the schema", ErrInvalid, len(b)-fieldsMin-sl-sn))
	}
	h.Schema = schema
	offsets := []struct {
		off   int
		field string
	}{{0, "tick rate"}, {12, "entities"}, {16, "hash every"}, {37, "scene length"}, {36, "job mode"}}
	if err := h.Validate(); err != nil {
		field := "header"
		at := headerFixed
		switch {
		case timing.ValidateTickRate(h.TickRate) != nil:
			field, at = offsets[0].field, headerFixed+offsets[0].off
		case h.Entities < 0 || h.Entities > 1<<31-1:
			field, at = offsets[1].field, headerFixed+offsets[1].off
		case h.HashEvery < 1:
			field, at = offsets[2].field, headerFixed+offsets[2].off
		case h.JobMode > engine.JobsReplay:
			field, at = offsets[4].field, headerFixed+offsets[4].off
		}
		return d.errAt(at, field, fmt.Errorf("%w: %v", ErrInvalid, err))
	}
	d.off = end + 4
	return nil
}

// nextChunk reads the next chunk's frame, checks its CRC and enters it.
func (d *decoder) nextChunk() error {
	d.chunk++
	d.limit = 0
	at := d.off
	if d.off == len(d.data) {
		return d.errAt(at, "chunk type", fmt.Errorf("%w: the file ends after %d records without an end chunk (the recording was cut short)", ErrTruncated, d.records))
	}
	typ, err := d.u8("chunk type")
	if err != nil {
		return err
	}
	if typ != chunkTicks && typ != chunkEnd {
		return d.errAt(at, "chunk type", fmt.Errorf("%w: type 0x%02x, want 'T' or 'E'", ErrInvalid, typ))
	}
	n, err := d.u32("chunk length")
	if err != nil {
		return err
	}
	if n > MaxChunk {
		return d.errAt(at+1, "chunk length", fmt.Errorf("%w: %d bytes, at most %d", ErrInvalid, n, MaxChunk))
	}
	if err := d.need("chunk payload", int(n)+4); err != nil {
		return err
	}
	end := d.off + int(n)
	if got, want := crc32.ChecksumIEEE(d.data[at:end]), binary.LittleEndian.Uint32(d.data[end:]); got != want {
		return d.errAt(end, "chunk CRC", fmt.Errorf("%w: stored %08x, computed %08x over bytes %d to %d", ErrChecksum, want, got, at, end))
	}
	d.limit = end
	if typ == chunkEnd {
		return d.endChunk()
	}
	at = d.off
	first, err := d.uvarint("first tick")
	if err != nil {
		return err
	}
	if d.records == 0 && first > 0 {
		d.nextTick = first // a recording may start after tick 1
	}
	if first != d.nextTick {
		return d.errAt(at, "first tick", fmt.Errorf("%w: %d, want %d (the tick after the previous chunk's last)", ErrInvalid, first, d.nextTick))
	}
	at = d.off
	if d.left, err = d.uvarint("record count"); err != nil {
		return err
	}
	if d.left == 0 || d.left > MaxTicksPerChunk || d.left > uint64(d.limit-d.off) {
		return d.errAt(at, "record count", fmt.Errorf("%w: %d records, want 1 to %d and at most one per payload byte", ErrInvalid, d.left, MaxTicksPerChunk))
	}
	return nil
}

func (d *decoder) endChunk() error {
	var err error
	at := d.off
	if d.end.Records, err = d.uvarint("record count"); err != nil {
		return err
	}
	if d.end.Records != d.records {
		return d.errAt(at, "record count", fmt.Errorf("%w: the end chunk counts %d records, the file has %d", ErrInvalid, d.end.Records, d.records))
	}
	at = d.off
	if d.end.LastTick, err = d.uvarint("last tick"); err != nil {
		return err
	}
	if d.records > 0 && d.end.LastTick != d.nextTick-1 || d.records == 0 && d.end.LastTick != 0 {
		return d.errAt(at, "last tick", fmt.Errorf("%w: the end chunk says %d, the last record is tick %d", ErrInvalid, d.end.LastTick, d.nextTick-1))
	}
	at = d.off
	status, err := d.u8("status")
	if err != nil {
		return err
	}
	if status > 1 {
		return d.errAt(at, "status", fmt.Errorf("%w: status %d, want 0 (ended) or 1 (crashed)", ErrInvalid, status))
	}
	if d.end.Hash, err = d.u64("final hash"); err != nil {
		return err
	}
	if status == 1 {
		c := &CrashInfo{}
		if c.Tick, err = d.uvarint("crash tick"); err != nil {
			return err
		}
		var b []byte
		if b, err = d.bytes("crash phase", MaxPhase); err != nil {
			return err
		}
		c.Phase = string(b)
		if b, err = d.bytes("crash system", MaxSystem); err != nil {
			return err
		}
		c.System = string(b)
		if b, err = d.bytes("crash message", MaxMessage); err != nil {
			return err
		}
		c.Message = string(b)
		d.end.Crash = c
	}
	if d.off != d.limit {
		return d.errAt(d.off, "end chunk", fmt.Errorf("%w: %d unread bytes in the end chunk", ErrInvalid, d.limit-d.off))
	}
	d.off = d.limit + 4
	if d.off != len(d.data) {
		return d.errAt(d.off, "after the end chunk", fmt.Errorf("%w: %d bytes follow the end chunk", ErrInvalid, len(d.data)-d.off))
	}
	d.ended = true
	return nil
}

// next decodes the next record into rec and reports whether there was one.
// rec's slices point into the file (Jobs is reused).
func (d *decoder) next(rec *Record) (bool, error) {
	for d.left == 0 {
		if d.ended {
			return false, nil
		}
		if d.limit > 0 {
			// The records of a ticks chunk are done: it must end here.
			if d.off != d.limit {
				return false, d.errAt(d.off, "ticks chunk", fmt.Errorf("%w: %d bytes after the chunk's last record", ErrInvalid, d.limit-d.off))
			}
			d.off += 4
			if d.stop > 0 && d.off == d.stop {
				d.ended = true
				return false, nil
			}
		}
		if err := d.nextChunk(); err != nil {
			return false, err
		}
	}
	d.left--
	at := d.off
	op, err := d.u8("record op")
	if err != nil {
		return false, err
	}
	if op&^opAll != 0 {
		return false, d.errAt(at, "record op", fmt.Errorf("%w: op 0x%02x has unknown bits 0x%02x (record of tick %d)", ErrInvalid, op, op&^opAll, d.nextTick))
	}
	rec.Restore, rec.Rate, rec.HasHash, rec.Hash = nil, 0, false, 0
	rec.Jobs = rec.Jobs[:0]
	if op&opRestore != 0 {
		at := d.off
		t, err := d.uvarint("restore tick")
		if err != nil {
			return false, err
		}
		if t == 0 {
			return false, d.errAt(at, "restore tick", fmt.Errorf("%w: tick 0", ErrInvalid))
		}
		if rec.Restore, err = d.bytes("restore snapshot", MaxChunk); err != nil {
			return false, err
		}
		d.nextTick = t
	}
	rec.Tick = d.nextTick
	if op&opRate != 0 {
		at := d.off
		v, err := d.uvarint("tick rate")
		if err != nil {
			return false, err
		}
		if v > timing.MaxTickRate || timing.ValidateTickRate(int(v)) != nil {
			return false, d.errAt(at, "tick rate", fmt.Errorf("%w: %d Hz out of range [%d, %d]", ErrInvalid, v, timing.MinTickRate, timing.MaxTickRate))
		}
		rec.Rate = int(v)
	}
	if op&opInput != 0 {
		at := d.off
		mask, err := d.uvarint("input mask")
		if err != nil {
			return false, err
		}
		if mask == 0 || mask>>engine.InputWords != 0 {
			return false, d.errAt(at, "input mask", fmt.Errorf("%w: mask %#x, want 1 to %d bits", ErrInvalid, mask, engine.InputWords))
		}
		if err := d.need("input words", 8*bits.OnesCount64(mask)); err != nil {
			return false, err
		}
		words := d.words
		at = d.off
		for i := range engine.InputWords {
			if mask&(1<<i) != 0 {
				words[i], _ = d.u64("input words")
			}
		}
		if err := d.input.SetWords(&words); err != nil {
			return false, d.errAt(at, "input words", fmt.Errorf("%w: %v", ErrInvalid, err))
		}
		d.words = words
		d.inputChanges++
	}
	rec.Input = d.input
	if op&opJobs != 0 {
		at := d.off
		n, err := d.uvarint("job count")
		if err != nil {
			return false, err
		}
		if n == 0 || n > MaxJobsPerTick {
			return false, d.errAt(at, "job count", fmt.Errorf("%w: %d results, want 1 to %d", ErrInvalid, n, MaxJobsPerTick))
		}
		var last uint64
		for i := range int(n) {
			at := d.off
			id, err := d.uvarint("job id")
			if err != nil {
				return false, err
			}
			if id == 0 || i > 0 && id <= last {
				return false, d.errAt(at, "job id", fmt.Errorf("%w: job id %d after %d (ids are applied in increasing order, from 1)", ErrInvalid, id, last))
			}
			last = id
			res, err := d.bytes("job result", engine.MaxJobResult)
			if err != nil {
				return false, err
			}
			rec.Jobs = append(rec.Jobs, JobResult{ID: engine.JobID(id), Result: res})
		}
	}
	if op&opHash != 0 {
		if rec.Hash, err = d.u64("hash"); err != nil {
			return false, err
		}
		rec.HasHash = true
	}
	d.nextTick++
	d.records++
	return true, nil
}
