package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
)

// Recorder records a run: add it to the engine's tick hooks
// (Engine.AddTickHook), beside whatever steers the players (a server, a
// rollback session, nothing). It writes a chunk to its writer at least
// once per second of simulated time (and on Flush, Close and Crash), so a
// killed process loses at most the last second. In steady state it does
// not allocate: the chunk buffers grow to their largest size once and are
// reused.
//
// It records what each tick's fixed systems saw of the players: who joined
// and left, and every player's input that changed since its previous
// recorded one; it reads the players when the tick ends, so it may come
// before or after the hook that sets them. It is an engine.RestoreHook:
// a snapshot the engine restores is in the recording, and its replay
// restores it at the same point.
//
// It records each tick once, as it finally ran. On an engine whose ticks
// may run again (a rollback session's predictions, engine.TickInfo's
// Unconfirmed), it keeps the ticks not yet final, replaces one that runs
// again, and writes them once a later tick says they are final, or when a
// snapshot is restored, or at Close (up to the world's tick) or Crash:
// the recording is always a chain of ticks each of which ran from the one
// before, so it replays to the same hashes.
//
// A write error is kept (Err) and ends the writing; the run goes on.
type Recorder struct {
	w   io.Writer
	hdr Header
	err error

	recs    []byte // the records of the chunk being built
	frame   []byte // the chunk as written
	first   uint64 // tick of the chunk's first record
	count   uint64 // records in the chunk
	simTime time.Duration
	records uint64
	last    uint64 // tick of the last record

	// The tick in progress, between BeginTick and EndTick.
	inTick bool
	cur    tickRecord
	info   *engine.TickInfo // of the tick in progress
	// pending are the ticks that ran and are not final yet, ascending, in
	// pending[:npending] (the rest are kept for their memory); world is
	// the world they ran in.
	pending  []tickRecord
	npending int
	world    *engine.World

	op        byte // opRestore, when a restore waits for the next record
	restore   []byte
	restoreAt uint64
	// restoreFrom is the state hash of the world the restore replaced:
	// the end hash of a run that ends before the restored world ticks.
	restoreFrom uint64
	// snap and snapHash are the checkpoint (opSnap) that waits for the
	// next record.
	snap     []byte
	snapHash uint64
	rate     int // the rate last recorded
	closed   bool

	// prev is every player's last recorded input; others holds the
	// changed inputs of the players other than 0 while a record is made.
	prev   [engine.MaxPlayers][input.SampleWords]uint64
	others []byte
}

// NewRecorder writes h (with h.Version set to Version) to w and returns a
// recorder for the ticks.
func NewRecorder(w io.Writer, h Header) (*Recorder, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	h.Version = Version
	r := &Recorder{w: w, hdr: h, rate: h.TickRate, recs: make([]byte, 0, 4096), frame: make([]byte, 0, 4096), others: make([]byte, 0, 256)}
	r.cur.jobs = make([]byte, 0, 256)
	if _, err := w.Write(appendHeader(nil, &h)); err != nil {
		return nil, fmt.Errorf("replay: writing the header: %w", err)
	}
	return r, nil
}

// ContinueRecorder returns a recorder that continues r, a recording whose
// end is missing (OpenIncomplete: a process was killed while recording):
// it writes to w the chunks that follow r's last whole chunk, without a
// header, so w must be positioned there (a file cut to its whole chunks,
// len(data) - r.End.Missing.Bytes bytes). The first tick it records must
// be the one after r's last (End.LastTick), run by an engine in the state
// r's records end with (as a player of r leaves it: NewPlayerFromSnapshot).
// The recording so continued replays from its first tick to its new end
// as one run. Only a recording of this format version continues.
func ContinueRecorder(w io.Writer, r *Replay) (*Recorder, error) {
	switch {
	case r.End.Missing == nil:
		return nil, errors.New("replay: the recording has its end chunk: it does not continue")
	case r.Header.Version != Version:
		return nil, fmt.Errorf("replay: a recording of format version %d does not continue (this build writes version %d)", r.Header.Version, Version)
	}
	rec := &Recorder{w: w, hdr: r.Header, rate: r.Header.TickRate, recs: make([]byte, 0, 4096), frame: make([]byte, 0, 4096), others: make([]byte, 0, 256)}
	rec.cur.jobs = make([]byte, 0, 256)
	var d decoder
	d.reset(r)
	var one Record
	for {
		ok, err := d.next(&one)
		if err != nil {
			return nil, fmt.Errorf("replay: reading the recording again: %w", err) // Open read it: a bug
		}
		if !ok {
			break
		}
		if one.Rate != 0 {
			rec.rate = one.Rate
		}
	}
	rec.prev = d.words
	rec.records, rec.last = d.records, r.End.LastTick
	return rec, nil
}

// Header returns the recording's header.
func (r *Recorder) Header() Header { return r.hdr }

// Err returns the first write error, or nil.
func (r *Recorder) Err() error { return r.err }

// Records returns the number of ticks recorded.
func (r *Recorder) Records() uint64 { return r.records }

// Restored implements engine.RestoreHook: it records that snap (from
// Engine.Snapshot) was restored between ticks, into w; before is the state
// hash of the world it replaced. The engine calls it from Engine.Restore.
// The replay restores the snapshot before the same tick. The ticks not
// final yet are written first: they ran up to the world the snapshot
// replaced. A restore that no tick follows (the run
// ends first) is not in the recording, which then ends with the world it
// replaced, whose hash is before.
//
// A snapshot too large for a chunk (MaxChunk) cannot be recorded: the
// recording fails with an error (Err, and Close's).
func (r *Recorder) Restored(snap []byte, w *engine.World, before uint64) {
	if len(snap) > MaxChunk-1024 {
		if r.err == nil {
			r.err = fmt.Errorf("replay: a restored snapshot of %d bytes is too large to record (a chunk holds at most %d)", len(snap), MaxChunk)
		}
		return
	}
	r.commitPending(math.MaxUint64)
	if r.op&opRestore == 0 {
		r.restoreFrom = before // the world the first of several restores replaced
	}
	r.restore = append(r.restore[:0], snap...)
	r.restoreAt = w.Tick() + 1
	r.op |= opRestore
}

// Checkpoint records snap, a snapshot of the engine between two ticks
// (engine.Engine.Snapshot, after the last tick run and before the next),
// whose world's state hash is hash: it goes into the next tick's record
// (Record.Snapshot), and a recovery may start from it instead of from the
// first tick (NewPlayerFromSnapshot). A replay does not restore it: it
// checks that its own world's hash before that tick is hash. The ticks
// not final yet are written first, as for a restore; a checkpoint is
// meant for an engine whose ticks are final when they run (a server's).
// A checkpoint no tick follows (the run ends first) is not recorded. A
// snapshot too large for a chunk (MaxChunk) fails the recording, as in
// Restored.
func (r *Recorder) Checkpoint(snap []byte, hash uint64) {
	if len(snap) > MaxChunk-1024 {
		if r.err == nil {
			r.err = fmt.Errorf("replay: a checkpoint snapshot of %d bytes is too large to record (a chunk holds at most %d)", len(snap), MaxChunk)
		}
		return
	}
	r.commitPending(math.MaxUint64)
	r.snap = append(r.snap[:0], snap...)
	r.snapHash = hash
	r.op |= opSnap
}

// PreTick implements engine.TickHook.
func (r *Recorder) PreTick() {}

// BeginTick implements engine.TickHook: it notes the tick's number, rate
// and players (read when the tick ends).
func (r *Recorder) BeginTick(t *engine.TickInfo) {
	r.inTick, r.info = true, t
	c := &r.cur
	c.tick, c.rate = t.Tick, t.Rate
	c.jobs, c.njobs, c.hasHash, c.hash = c.jobs[:0], 0, false, 0
}

// JobApplied implements engine.TickHook: it notes the result.
func (r *Recorder) JobApplied(tick uint64, id engine.JobID, result []byte) {
	c := &r.cur
	c.njobs++
	c.jobs = binary.AppendUvarint(c.jobs, uint64(id))
	c.jobs = binary.AppendUvarint(c.jobs, uint64(len(result)))
	c.jobs = append(c.jobs, result...)
}

// EndTick implements engine.TickHook: it writes the tick's record, with
// the state hash when the tick is a multiple of HashEvery, and writes the
// chunk once it spans a second of simulated time. A tick not final yet
// (engine.TickInfo.Unconfirmed) waits, with the ticks before it that are
// not final either, until a later tick says they are.
func (r *Recorder) EndTick(tick uint64, w *engine.World) {
	c := &r.cur
	if tick%uint64(r.hdr.HashEvery) == 0 {
		c.hasHash, c.hash = true, w.Hash()
	}
	players, unconfirmed := r.info.Players, r.info.Unconfirmed
	r.inTick, r.world, r.info = false, w, nil
	if unconfirmed == 0 && r.npending == 0 {
		r.write(c, players) // final at once: no copy of the players
		return
	}
	c.setPlayers(players)
	// A tick that runs again replaces its earlier run and those after it.
	k := r.npending
	for k > 0 && r.pending[k-1].tick >= tick {
		k--
	}
	if k == len(r.pending) {
		r.pending = append(r.pending, tickRecord{})
	}
	r.pending[k].copyFrom(c)
	r.npending = k + 1
	r.commitPending(tick - min(unconfirmed, tick))
}

// commitPending writes the pending ticks up to tick final, in order.
func (r *Recorder) commitPending(final uint64) {
	n := 0
	for n < r.npending && r.pending[n].tick <= final {
		r.write(&r.pending[n], &r.pending[n])
		n++
	}
	if n == 0 {
		return
	}
	// Keep the rest at the front, their memory swapped with the written.
	for i := n; i < r.npending; i++ {
		r.pending[i-n], r.pending[i] = r.pending[i], r.pending[i-n]
	}
	r.npending -= n
}

// write appends the record of tick t, whose players are p, to the chunk,
// and writes the chunk once it spans a second of simulated time.
func (r *Recorder) write(t *tickRecord, p playerList) {
	r.commit(t, p)
	// Rounded up, so that a second of ticks reaches a second at any rate.
	r.simTime += (time.Second + time.Duration(t.rate) - 1) / time.Duration(t.rate)
	if r.simTime >= time.Second {
		r.Flush()
	}
}

// tickRecord is what a recording keeps of one tick: its number and rate,
// what its systems saw of the players, the job results applied in it and
// its state hash.
type tickRecord struct {
	tick    uint64
	rate    int
	ids     []engine.PlayerID
	inputs  []input.Sample
	joined  []engine.PlayerID
	left    []engine.PlayerID
	jobs    []byte // per result: uvarint id, uvarint length, the bytes
	njobs   int
	hash    uint64
	hasHash bool
}

// playerList is what a record reads of a tick's players: an
// *engine.Players, or a tickRecord's copy.
type playerList interface {
	Len() int
	At(i int) (engine.PlayerID, *input.Sample)
	Joined() []engine.PlayerID
	Left() []engine.PlayerID
}

// Len, At, Joined and Left make a tickRecord a playerList.
func (t *tickRecord) Len() int                                  { return len(t.ids) }
func (t *tickRecord) At(i int) (engine.PlayerID, *input.Sample) { return t.ids[i], &t.inputs[i] }
func (t *tickRecord) Joined() []engine.PlayerID                 { return t.joined }
func (t *tickRecord) Left() []engine.PlayerID                   { return t.left }

// setPlayers copies p into t.
func (t *tickRecord) setPlayers(p *engine.Players) {
	t.ids, t.inputs = t.ids[:0], t.inputs[:0]
	t.joined = append(t.joined[:0], p.Joined()...)
	t.left = append(t.left[:0], p.Left()...)
	for i := range p.Len() {
		id, in := p.At(i)
		t.ids = append(t.ids, id)
		t.inputs = append(t.inputs, *in)
	}
}

// copyFrom makes t a copy of src, reusing t's memory.
func (t *tickRecord) copyFrom(src *tickRecord) {
	t.tick, t.rate, t.njobs, t.hash, t.hasHash = src.tick, src.rate, src.njobs, src.hash, src.hasHash
	t.ids = append(t.ids[:0], src.ids...)
	t.inputs = append(t.inputs[:0], src.inputs...)
	t.joined = append(t.joined[:0], src.joined...)
	t.left = append(t.left[:0], src.left...)
	t.jobs = append(t.jobs[:0], src.jobs...)
}

// commit appends the record of tick t, whose players are p, to the chunk.
func (r *Recorder) commit(t *tickRecord, p playerList) {
	if t.rate != r.rate {
		r.op |= opRate
		r.rate = t.rate
	}
	if t.njobs > 0 {
		r.op |= opJobs
	}
	if t.hasHash {
		r.op |= opHash
	}
	if r.count == 0 {
		r.first = t.tick
		if r.op&opRestore != 0 {
			r.first = r.last + 1 // the chunk's first tick is the one before the restore
			if r.records == 0 {
				r.first = 1
			}
		}
	}
	// The players: joins and leaves, and the inputs that changed (player
	// 0's apart, the others gathered in r.others).
	var in0 [input.SampleWords]uint64
	var mask0 uint64
	nothers := 0
	r.others = r.others[:0]
	{
		if len(p.Joined()) > 0 || len(p.Left()) > 0 {
			r.op |= opPlayers
		}
		for i := range p.Len() {
			id, in := p.At(i)
			var cur [input.SampleWords]uint64
			in.Words(&cur)
			mask := inputMask(&cur, &r.prev[id])
			switch {
			case mask == 0:
			case id == 0:
				r.op |= opInput
				in0, mask0 = cur, mask
			default:
				r.op |= opInputs
				nothers++
				r.others = binary.AppendUvarint(r.others, uint64(id))
				r.others = appendInput(r.others, mask, &cur)
			}
			r.prev[id] = cur
		}
	}

	b := append(r.recs, r.op)
	if r.op&opRestore != 0 {
		b = binary.AppendUvarint(b, r.restoreAt)
		b = binary.AppendUvarint(b, uint64(len(r.restore)))
		b = append(b, r.restore...)
	}
	if r.op&opRate != 0 {
		b = binary.AppendUvarint(b, uint64(r.rate))
	}
	if r.op&opPlayers != 0 {
		b = appendPlayerList(b, p.Joined())
		b = appendPlayerList(b, p.Left())
	}
	if r.op&opInput != 0 {
		b = appendInput(b, mask0, &in0)
	}
	if r.op&opInputs != 0 {
		b = binary.AppendUvarint(b, uint64(nothers))
		b = append(b, r.others...)
	}
	if r.op&opJobs != 0 {
		b = binary.AppendUvarint(b, uint64(t.njobs))
		b = append(b, t.jobs...)
	}
	if r.op&opHash != 0 {
		b = binary.LittleEndian.AppendUint64(b, t.hash)
	}
	if r.op&opSnap != 0 {
		b = binary.LittleEndian.AppendUint64(b, r.snapHash)
		b = binary.AppendUvarint(b, uint64(len(r.snap)))
		b = append(b, r.snap...)
		if cap(r.snap) > 1<<20 {
			r.snap = nil
		} else {
			r.snap = r.snap[:0]
		}
	}
	r.recs = b
	r.count++
	r.records++
	r.last = t.tick
	r.op = 0
	if cap(r.restore) > 1<<20 {
		r.restore = nil
	} else {
		r.restore = r.restore[:0]
	}
}

// inputMask returns the mask of the words of cur that differ from prev.
func inputMask(cur, prev *[input.SampleWords]uint64) uint64 {
	if *cur == *prev { // most ticks: one memory compare
		return 0
	}
	var mask uint64
	for i := range cur {
		var d uint64
		if cur[i] != prev[i] {
			d = 1
		}
		mask |= d << i
	}
	return mask
}

// appendInput appends an input change: the uvarint mask, then the words
// of w it selects.
func appendInput(b []byte, mask uint64, w *[input.SampleWords]uint64) []byte {
	b = binary.AppendUvarint(b, mask)
	for i := range w {
		if mask&(1<<i) != 0 {
			b = binary.LittleEndian.AppendUint64(b, w[i])
		}
	}
	return b
}

// appendPlayerList appends a uvarint count and the uvarint IDs.
func appendPlayerList(b []byte, ids []engine.PlayerID) []byte {
	b = binary.AppendUvarint(b, uint64(len(ids)))
	for _, id := range ids {
		b = binary.AppendUvarint(b, uint64(id))
	}
	return b
}

// Flush writes the chunk being built, if it has records.
func (r *Recorder) Flush() {
	r.simTime = 0
	if r.count == 0 {
		return
	}
	f := append(r.frame[:0], chunkTicks, 0, 0, 0, 0)
	f = binary.AppendUvarint(f, r.first)
	f = binary.AppendUvarint(f, r.count)
	f = append(f, r.recs...)
	r.frame = r.writeChunk(f)
	r.recs, r.count = r.recs[:0], 0
}

// writeChunk fills in the length of the chunk in f, appends its CRC and
// writes it.
func (r *Recorder) writeChunk(f []byte) []byte {
	binary.LittleEndian.PutUint32(f[1:], uint32(len(f)-5))
	f = binary.LittleEndian.AppendUint32(f, crc32.ChecksumIEEE(f))
	if r.err == nil {
		if _, err := r.w.Write(f); err != nil {
			r.err = fmt.Errorf("replay: writing the recording: %w", err)
		}
	}
	return f
}

// Close writes the last records and the end chunk of a run that ended
// normally; hash is the world's state hash at the end. The ticks not
// final yet are written up to the world's tick (a rollback session that
// predicted past the end of a match goes back to its last tick). It
// returns the first write error.
func (r *Recorder) Close(hash uint64) error {
	if r.world != nil {
		r.commitPending(r.world.Tick())
	}
	return r.finish(hash, nil)
}

// Crash writes the records so far, including the tick in progress when the
// panic came (without its hash), and an end chunk that says where the run
// crashed, so that a replay reproduces the panic.
func (r *Recorder) Crash(p *engine.PanicError) error {
	if r.inTick {
		r.commitPending(r.cur.tick - 1)
		r.cur.hasHash = false
		r.commit(&r.cur, r.info.Players)
	} else if r.world != nil {
		r.commitPending(r.world.Tick())
	}
	return r.finish(0, &CrashInfo{Tick: p.Tick, Phase: p.Phase, System: p.System, Message: fmt.Sprint(p.Value)})
}

var errClosed = errors.New("replay: recorder already closed")

func (r *Recorder) finish(hash uint64, c *CrashInfo) error {
	if r.closed {
		return errClosed
	}
	r.closed = true
	if r.op&opRestore != 0 && !r.inTick {
		// A restore no tick followed: the recording ends before it.
		hash, r.op = r.restoreFrom, r.op&^opRestore
	}
	r.Flush()
	f := append(r.frame[:0], chunkEnd, 0, 0, 0, 0)
	f = binary.AppendUvarint(f, r.records)
	f = binary.AppendUvarint(f, r.last)
	if c != nil {
		f = append(f, 1)
		f = binary.LittleEndian.AppendUint64(f, 0)
		f = binary.AppendUvarint(f, c.Tick)
		f = appendString(f, c.Phase, MaxPhase)
		f = appendString(f, c.System, MaxSystem)
		f = appendString(f, c.Message, MaxMessage)
	} else {
		f = append(f, 0)
		f = binary.LittleEndian.AppendUint64(f, hash)
	}
	r.frame = r.writeChunk(f)
	return r.err
}

func appendString(b []byte, s string, max int) []byte {
	if len(s) > max {
		s = s[:max]
	}
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
