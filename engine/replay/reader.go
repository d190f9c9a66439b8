package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/bits"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/internal/binread"
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
// of simulated time, so such a file lacks at most its last second; a
// match log, package matchlog, writes one every tick): it keeps the
// records of every whole chunk and drops what follows the last one, which
// End.Missing describes. What follows may be a chunk cut short, or a torn
// tail: the last frame of the file, whose bytes did not all reach the
// disk (its checksum does not match, or it is not a frame at all, such as
// the zeros a file system may leave after a power cut), with no whole
// chunk after it. A file that Open accepts is returned as Open returns
// it. Every other fault (a bad header, a checksum that does not match in
// a chunk that a whole chunk follows, a bad record in a whole chunk) is
// refused as Open refuses it: only a file whose tail is cut short or torn
// is taken.
func OpenIncomplete(data []byte) (*Replay, error) {
	r, err := Open(data)
	if err == nil {
		return r, nil
	}
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Chunk < 0 {
		return nil, err // the header itself is cut short or bad
	}
	// The whole chunks: frames that fit in the file and whose CRC holds.
	d := newDecoder(data)
	if herr := d.header(new(Header)); herr != nil {
		return nil, herr
	}
	stop := d.r.Offset()
	for {
		end, typ, ok := wholeFrame(data, stop)
		if !ok || typ != chunkTicks {
			break
		}
		stop = end
	}
	if !errors.Is(err, ErrTruncated) && (fe.Offset < stop || !tornTail(data, stop)) {
		return nil, err
	}
	r, oerr := open(data, stop)
	if oerr != nil {
		return nil, oerr
	}
	r.End.Missing = &Missing{Bytes: len(data) - stop, Reason: err}
	return r, nil
}

// wholeFrame reports whether a whole chunk frame starts at byte off of
// data: its length within MaxChunk and the file, its CRC matching; and
// returns the offset after it and its type.
func wholeFrame(data []byte, off int) (end int, typ byte, ok bool) {
	if off < 0 || off+chunkFrame > len(data) {
		return 0, 0, false
	}
	n := int(binary.LittleEndian.Uint32(data[off+1:]))
	if n > MaxChunk || off+chunkFrame+n > len(data) {
		return 0, 0, false
	}
	pay := off + 5 + n
	if crc32.ChecksumIEEE(data[off:pay]) != binary.LittleEndian.Uint32(data[pay:]) {
		return 0, 0, false
	}
	return pay + 4, data[off], true
}

// tornTail reports whether the bytes of data from off, where no whole
// chunk starts, are a torn tail: no whole chunk follows the frame that
// starts there (a frame whose length field is itself damaged or runs past
// the file's end cannot be stepped over, and is a tail).
func tornTail(data []byte, off int) bool {
	if _, _, ok := wholeFrame(data, off); ok {
		return false
	}
	if off+chunkFrame > len(data) {
		return true
	}
	n := int(binary.LittleEndian.Uint32(data[off+1:]))
	next := off + chunkFrame + n
	if n > MaxChunk || next >= len(data) {
		return true
	}
	_, _, ok := wholeFrame(data, next)
	return !ok
}

// open is Open, or with stop above 0, reads only the chunks before byte
// stop and makes up the end from them.
func open(data []byte, stop int) (*Replay, error) {
	r := &Replay{data: data, stop: stop}
	d := newDecoder(data)
	if err := d.header(&r.Header); err != nil {
		return nil, err
	}
	r.body = d.r.Offset()
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
		if rec.Snapshot != nil {
			st.Snapshots++
		}
		st.JobResults += len(rec.Jobs)
		st.Joins += len(rec.Joined)
		st.Leaves += len(rec.Left)
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
// or inside a ticks chunk's records, which bound its reader. Every fault
// is kept by the reader (the first one) and returned by header and next
// as a *FormatError.
type decoder struct {
	r       binread.Reader
	data    []byte
	chunk   int  // index of the current chunk, -1 for the header
	inChunk bool // the reader is bounded by the current chunk's payload

	left     uint64 // records left in the current chunk
	nextTick uint64
	records  uint64
	// Every player's last recorded input, as words and as a snapshot.
	words  [engine.MaxPlayers][input.SampleWords]uint64
	inputs [engine.MaxPlayers]input.Sample
	ended  bool
	end    End
	stop   int // above 0: the records end at this offset, between chunks

	inputChanges int
	// inputWords is the number of words of an input in this file's
	// version: input.SampleWords, or input.KeyMouseWords before version 5.
	inputWords int
	// ops are the record op bits this file's version has.
	ops byte
}

func newDecoder(data []byte) *decoder {
	return &decoder{r: binread.New(data), data: data, chunk: -1, inputWords: input.SampleWords, ops: opAll}
}

func (d *decoder) reset(r *Replay) {
	*d = decoder{r: binread.New(r.data), data: r.data, chunk: -1, nextTick: 1, stop: r.stop, inputWords: input.SampleWords, ops: opAll}
	if r.Header.Version < 5 {
		d.inputWords = input.KeyMouseWords
	}
	if r.Header.Version < snapshotVersion {
		d.ops = opAll &^ opSnap
	}
	d.r.Take("header", r.body)               // checked by Open
	d.ended = d.stop > 0 && r.body == d.stop // not one whole chunk
}

// err returns the reader's first fault as a *FormatError, or nil. The
// reader's own faults (the file or the chunk ends, a varint overflows)
// are worded as this package words them.
func (d *decoder) err() error {
	e := d.r.Err()
	if e == nil {
		return nil
	}
	err := e.Err
	var short *binread.ShortError
	if errors.As(err, &short) {
		what := "the file ends"
		if short.Limited {
			what = "the chunk ends"
		}
		err = fmt.Errorf("%w: %s after %d of %d bytes", ErrTruncated, what, short.Left, short.Need)
		if short.Varint {
			err = fmt.Errorf("%w: the chunk ends inside a varint", ErrTruncated)
		}
	} else if errors.Is(err, binread.ErrOverflow) {
		err = fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return &FormatError{Chunk: d.chunk, Offset: e.Offset, Field: e.Field, Err: err}
}

// bytes reads a uvarint length (at most max, a fault of lenField) and
// that many bytes.
func (d *decoder) bytes(lenField, field string, max int) []byte {
	at := d.r.Offset()
	n := d.r.Uvarint(lenField)
	if n > uint64(max) {
		d.r.FailAt(at, lenField, fmt.Errorf("%w: %d bytes, at most %d", ErrInvalid, n, max))
		return nil
	}
	return d.r.Take(field, int(n))
}

func (d *decoder) header(h *Header) error {
	r := &d.r
	if m := r.Take("magic", 8); m != nil && string(m) != Magic {
		r.FailAt(0, "magic", fmt.Errorf("%w: magic %q, want %q", ErrMagic, m, Magic))
	}
	switch v := r.U16("version"); {
	case r.Err() != nil:
	case v > Version:
		r.FailAt(8, "version", fmt.Errorf("%w: version %d is newer than this build reads (%d); replay it with a newer nebula", ErrVersion, v, Version))
	case v < OldestVersion:
		before := "game parameters"
		switch {
		case v < 2:
			before = "components and resources"
		case v < 3:
			before = "players"
		}
		r.FailAt(8, "version", fmt.Errorf("%w: version %d, written by an older build of Nebula (before %s); this build reads versions %d to %d", ErrVersion, v, before, OldestVersion, Version))
	default:
		h.Version = int(v)
		d.inputWords = input.SampleWords
		if v < 5 {
			d.inputWords = input.KeyMouseWords
		}
		if v < snapshotVersion {
			d.ops = opAll &^ opSnap
		}
	}
	length := r.U32("header length")
	if r.Err() == nil && (length < headerMin || length > headerMax) {
		r.FailAt(10, "header length", fmt.Errorf("%w: %d bytes, want %d to %d", ErrInvalid, length, headerMin, headerMax))
	}
	n := int(length)
	fields := r.Take("header", n+4) // and the CRC
	end := headerFixed + n
	if fields == nil {
		return d.err()
	}
	if got, want := crc32.ChecksumIEEE(d.data[:end]), binary.LittleEndian.Uint32(fields[n:]); got != want {
		r.FailAt(end, "header CRC", fmt.Errorf("%w: stored %08x, computed %08x", ErrChecksum, want, got))
		return d.err()
	}
	le := binary.LittleEndian
	b := fields[:n]
	h.TickRate = int(le.Uint32(b[0:]))
	h.Seed = le.Uint64(b[4:])
	h.HashEvery = int(le.Uint32(b[12:]))
	h.JobMode = engine.JobMode(b[16])
	sl := int(b[17])
	if sl > MaxScene || sl > len(b)-headerMin {
		r.FailAt(headerFixed+17, "scene length", fmt.Errorf("%w: %d bytes, but the header has room for %d", ErrInvalid, sl, min(MaxScene, len(b)-headerMin)))
		return d.err()
	}
	h.Scene = string(b[fieldsMin : fieldsMin+sl])
	at := fieldsMin + sl
	pl, pn := binary.Uvarint(b[at:])
	if pn <= 0 || pl > MaxParams || pl > uint64(len(b)-at-pn) {
		r.FailAt(headerFixed+at, "params length", fmt.Errorf("%w: %d bytes of game parameters, at most %d and the %d the header has room for", ErrInvalid, pl, MaxParams, max(len(b)-at-max(pn, 1), 0)))
		return d.err()
	}
	at += pn
	if pl > 0 {
		h.Params = bytes.Clone(b[at : at+int(pl)])
	}
	at += int(pl)
	schema, sn, err := engine.ParseSchema(b[at:])
	switch {
	case err != nil:
		r.FailAt(headerFixed+at, "schema", fmt.Errorf("%w: %v", ErrInvalid, err))
	case at+sn != len(b):
		r.FailAt(headerFixed+at+sn, "header length", fmt.Errorf("%w: %d bytes after the schema", ErrInvalid, len(b)-at-sn))
	}
	h.Schema = schema
	if err := h.validate(); err != nil {
		field, at := "header", 0
		switch {
		case timing.ValidateTickRate(h.TickRate) != nil:
			field, at = "tick rate", 0
		case h.HashEvery < 1:
			field, at = "hash every", 12
		case h.JobMode > engine.JobsReplay:
			field, at = "job mode", 16
		}
		r.FailAt(headerFixed+at, field, fmt.Errorf("%w: %v", ErrInvalid, err))
	}
	return d.err()
}

// enter bounds the reader by a chunk's payload, which ends at byte end.
func (d *decoder) enter(end int) {
	d.r.Limit(end)
	d.inChunk = true
}

// leave lifts the bound and steps over the chunk's CRC, checked on entry.
func (d *decoder) leave() {
	d.r.Unlimit()
	d.r.Take("chunk CRC", 4)
	d.inChunk = false
}

// nextChunk reads the next chunk's frame, checks its CRC and enters it.
func (d *decoder) nextChunk() {
	r := &d.r
	d.chunk++
	at := r.Offset()
	if r.Left() == 0 {
		r.Fail("chunk type", fmt.Errorf("%w: the file ends after %d records without an end chunk (the recording was cut short)", ErrTruncated, d.records))
		return
	}
	typ := r.U8("chunk type")
	if typ != chunkTicks && typ != chunkEnd {
		r.FailAt(at, "chunk type", fmt.Errorf("%w: type 0x%02x, want 'T' or 'E'", ErrInvalid, typ))
	}
	n := r.U32("chunk length")
	if r.Err() == nil && n > MaxChunk {
		r.FailAt(at+1, "chunk length", fmt.Errorf("%w: %d bytes, at most %d", ErrInvalid, n, MaxChunk))
	}
	frame := r.Peek("chunk payload", int(n)+4) // and the CRC
	end := r.Offset() + int(n)
	if frame == nil {
		return
	}
	if got, want := crc32.ChecksumIEEE(d.data[at:end]), binary.LittleEndian.Uint32(frame[n:]); got != want {
		r.FailAt(end, "chunk CRC", fmt.Errorf("%w: stored %08x, computed %08x over bytes %d to %d", ErrChecksum, want, got, at, end))
		return
	}
	d.enter(end)
	if typ == chunkEnd {
		d.endChunk()
		return
	}
	at = r.Offset()
	first := r.Uvarint("first tick")
	if d.records == 0 && first > 0 {
		d.nextTick = first // a recording may start after tick 1
	}
	if r.Err() == nil && first != d.nextTick {
		r.FailAt(at, "first tick", fmt.Errorf("%w: %d, want %d (the tick after the previous chunk's last)", ErrInvalid, first, d.nextTick))
	}
	at = r.Offset()
	d.left = r.Uvarint("record count")
	if r.Err() == nil && (d.left == 0 || d.left > MaxTicksPerChunk || d.left > uint64(r.Left())) {
		r.FailAt(at, "record count", fmt.Errorf("%w: %d records, want 1 to %d and at most one per payload byte", ErrInvalid, d.left, MaxTicksPerChunk))
	}
}

func (d *decoder) endChunk() {
	r := &d.r
	at := r.Offset()
	d.end.Records = r.Uvarint("record count")
	if r.Err() == nil && d.end.Records != d.records {
		r.FailAt(at, "record count", fmt.Errorf("%w: the end chunk counts %d records, the file has %d", ErrInvalid, d.end.Records, d.records))
	}
	at = r.Offset()
	d.end.LastTick = r.Uvarint("last tick")
	if r.Err() == nil && (d.records > 0 && d.end.LastTick != d.nextTick-1 || d.records == 0 && d.end.LastTick != 0) {
		r.FailAt(at, "last tick", fmt.Errorf("%w: the end chunk says %d, the last record is tick %d", ErrInvalid, d.end.LastTick, d.nextTick-1))
	}
	at = r.Offset()
	status := r.U8("status")
	if status > 1 {
		r.FailAt(at, "status", fmt.Errorf("%w: status %d, want 0 (ended) or 1 (crashed)", ErrInvalid, status))
	}
	d.end.Hash = r.U64("final hash")
	if status == 1 {
		d.end.Crash = &CrashInfo{
			Tick:    r.Uvarint("crash tick"),
			Phase:   string(d.bytes("crash phase length", "crash phase", MaxPhase)),
			System:  string(d.bytes("crash system length", "crash system", MaxSystem)),
			Message: string(d.bytes("crash message length", "crash message", MaxMessage)),
		}
	}
	if r.Err() == nil && r.Left() != 0 {
		r.Fail("end chunk", fmt.Errorf("%w: %d unread bytes in the end chunk", ErrInvalid, r.Left()))
	}
	d.leave()
	if r.Err() == nil && r.Left() != 0 {
		r.Fail("after the end chunk", fmt.Errorf("%w: %d bytes follow the end chunk", ErrInvalid, r.Left()))
	}
	d.ended = true
}

// playerList reads a uvarint count and that many player IDs, below
// MaxPlayers and ascending, into ids[:0].
func (d *decoder) playerList(field string, ids []engine.PlayerID) []engine.PlayerID {
	r := &d.r
	ids = ids[:0]
	at := r.Offset()
	n := r.Uvarint(field)
	if r.Err() == nil && n > engine.MaxPlayers {
		r.FailAt(at, field, fmt.Errorf("%w: %d players, at most %d", ErrInvalid, n, engine.MaxPlayers))
	}
	for i := 0; uint64(i) < n && r.Err() == nil; i++ {
		at := r.Offset()
		id := r.Uvarint(field)
		if r.Err() == nil && (id >= engine.MaxPlayers || i > 0 && id <= uint64(ids[i-1])) {
			r.FailAt(at, field, fmt.Errorf("%w: player %d (players are below %d, ascending)", ErrInvalid, id, engine.MaxPlayers))
		}
		ids = append(ids, engine.PlayerID(id))
	}
	return ids
}

// input reads an input change of player id (a uvarint mask and the words
// it selects), applies it to the player's last recorded input, and
// appends the result to ins.
func (d *decoder) input(id engine.PlayerID, ins []PlayerInput) []PlayerInput {
	r := &d.r
	at := r.Offset()
	mask := r.Uvarint("input mask")
	if r.Err() == nil && (mask == 0 || mask>>d.inputWords != 0) {
		r.FailAt(at, "input mask", fmt.Errorf("%w: mask %#x, want 1 to %d bits", ErrInvalid, mask, d.inputWords))
	}
	r.Peek("input words", 8*bits.OnesCount64(mask))
	words := d.words[id]
	at = r.Offset()
	for i := range input.SampleWords {
		if mask&(1<<i) != 0 {
			words[i] = r.U64("input words")
		}
	}
	if r.Err() != nil {
		return ins
	}
	if err := d.inputs[id].SetWords(&words); err != nil {
		r.FailAt(at, "input words", fmt.Errorf("%w: player %d: %v", ErrInvalid, id, err))
		return ins
	}
	d.words[id] = words
	d.inputChanges++
	return append(ins, PlayerInput{Player: id, Input: d.inputs[id]})
}

// next decodes the next record into rec and reports whether there was one.
// rec's slices point into the file (Joined, Left, Inputs and Jobs are
// reused).
func (d *decoder) next(rec *Record) (bool, error) {
	r := &d.r
	for d.left == 0 {
		if d.ended {
			return false, nil
		}
		if d.inChunk {
			// The records of a ticks chunk are done: it must end here.
			if r.Left() != 0 {
				r.Fail("ticks chunk", fmt.Errorf("%w: %d bytes after the chunk's last record", ErrInvalid, r.Left()))
				return false, d.err()
			}
			d.leave()
			if d.stop > 0 && r.Offset() == d.stop {
				d.ended = true
				return false, nil
			}
		}
		if d.nextChunk(); r.Err() != nil {
			return false, d.err()
		}
	}
	d.left--
	at := r.Offset()
	op := r.U8("record op")
	if op&^d.ops != 0 {
		r.FailAt(at, "record op", fmt.Errorf("%w: op 0x%02x has unknown bits 0x%02x (record of tick %d)", ErrInvalid, op, op&^d.ops, d.nextTick))
	}
	rec.Restore, rec.Rate, rec.HasHash, rec.Hash = nil, 0, false, 0
	rec.Snapshot, rec.SnapshotHash = nil, 0
	rec.Joined, rec.Left, rec.Inputs, rec.Jobs = rec.Joined[:0], rec.Left[:0], rec.Inputs[:0], rec.Jobs[:0]
	if op&opRestore != 0 {
		at := r.Offset()
		t := r.Uvarint("restore tick")
		if r.Err() == nil && t == 0 {
			r.FailAt(at, "restore tick", fmt.Errorf("%w: tick 0", ErrInvalid))
		}
		rec.Restore = d.bytes("restore snapshot length", "restore snapshot", MaxChunk)
		d.nextTick = t
	}
	rec.Tick = d.nextTick
	if op&opRate != 0 {
		at := r.Offset()
		v := r.Uvarint("tick rate")
		if r.Err() == nil && (v > timing.MaxTickRate || timing.ValidateTickRate(int(v)) != nil) {
			r.FailAt(at, "tick rate", fmt.Errorf("%w: %d Hz out of range [%d, %d]", ErrInvalid, v, timing.MinTickRate, timing.MaxTickRate))
		}
		rec.Rate = int(v)
	}
	if op&opPlayers != 0 {
		at := r.Offset()
		rec.Joined = d.playerList("joined", rec.Joined)
		rec.Left = d.playerList("left", rec.Left)
		if r.Err() == nil && len(rec.Joined)+len(rec.Left) == 0 {
			r.FailAt(at, "joined", fmt.Errorf("%w: no player joined or left (record of tick %d)", ErrInvalid, rec.Tick))
		}
		var joined [engine.MaxPlayers / 64]uint64
		for _, id := range rec.Joined {
			joined[id/64] |= 1 << (id % 64)
		}
		for _, id := range rec.Left {
			if r.Err() == nil && joined[id/64]&(1<<(id%64)) != 0 {
				r.FailAt(at, "left", fmt.Errorf("%w: player %d joins and leaves at tick %d", ErrInvalid, id, rec.Tick))
			}
		}
	}
	if op&opInput != 0 {
		rec.Inputs = d.input(0, rec.Inputs)
	}
	if op&opInputs != 0 {
		at := r.Offset()
		n := r.Uvarint("input count")
		if r.Err() == nil && (n == 0 || n >= engine.MaxPlayers) {
			r.FailAt(at, "input count", fmt.Errorf("%w: %d players, want 1 to %d", ErrInvalid, n, engine.MaxPlayers-1))
		}
		var last uint64
		for i := 0; uint64(i) < n && r.Err() == nil; i++ {
			at := r.Offset()
			id := r.Uvarint("input player")
			if r.Err() == nil && (id == 0 || id >= engine.MaxPlayers || id <= last) {
				r.FailAt(at, "input player", fmt.Errorf("%w: player %d after %d (the players other than 0, below %d, ascending)", ErrInvalid, id, last, engine.MaxPlayers))
			}
			last = id
			if r.Err() == nil {
				rec.Inputs = d.input(engine.PlayerID(id), rec.Inputs)
			}
		}
	}
	if op&opJobs != 0 {
		at := r.Offset()
		n := r.Uvarint("job count")
		if r.Err() == nil && (n == 0 || n > MaxJobsPerTick) {
			r.FailAt(at, "job count", fmt.Errorf("%w: %d results, want 1 to %d", ErrInvalid, n, MaxJobsPerTick))
		}
		var last uint64
		for i := 0; uint64(i) < n && r.Err() == nil; i++ {
			at := r.Offset()
			id := r.Uvarint("job id")
			if r.Err() == nil && (id == 0 || i > 0 && id <= last) {
				r.FailAt(at, "job id", fmt.Errorf("%w: job id %d after %d (ids are applied in increasing order, from 1)", ErrInvalid, id, last))
			}
			last = id
			res := d.bytes("job result length", "job result", engine.MaxJobResult)
			rec.Jobs = append(rec.Jobs, JobResult{ID: engine.JobID(id), Result: res})
		}
	}
	if op&opHash != 0 {
		rec.Hash = r.U64("hash")
		rec.HasHash = true
	}
	if op&opSnap != 0 {
		rec.SnapshotHash = r.U64("snapshot hash")
		at := r.Offset()
		rec.Snapshot = d.bytes("snapshot length", "snapshot", MaxChunk)
		if r.Err() == nil && len(rec.Snapshot) == 0 {
			r.FailAt(at, "snapshot length", fmt.Errorf("%w: an empty snapshot (record of tick %d)", ErrInvalid, rec.Tick))
		}
	}
	if r.Err() != nil {
		return false, d.err()
	}
	d.nextTick++
	d.records++
	return true, nil
}
