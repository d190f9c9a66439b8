package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
)

// Recorder records a run: install it with Engine.SetTickHook. It writes a
// chunk to its writer at least once per second of simulated time (and on
// Flush, Close and Crash), so a killed process loses at most the last
// second. In steady state it does not allocate: the chunk buffers grow to
// their largest size once and are reused.
//
// It records what each tick's fixed systems saw of the players: who joined
// and left, and every player's input that changed since its previous
// recorded one. A hook that steers the players (a lockstep client)
// records by embedding a Recorder and calling its methods from its own
// (PreTick, BeginTick, JobApplied, EndTick), in any order within each:
// the Recorder reads the players when the tick ends.
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
	inTick    bool
	tick      uint64
	op        byte
	restore   []byte
	restoreAt uint64
	// restoreFrom is the state hash of the world the restore replaced:
	// the end hash of a run that ends before the restored world ticks.
	restoreFrom uint64
	rate        int             // the rate last recorded
	tickRate    int             // the rate of the tick in progress
	players     *engine.Players // of the tick in progress
	jobs        []byte
	njobs       int
	closed      bool

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
	r := &Recorder{w: w, hdr: h, rate: h.TickRate, recs: make([]byte, 0, 4096), frame: make([]byte, 0, 4096), jobs: make([]byte, 0, 256), others: make([]byte, 0, 256)}
	if _, err := w.Write(appendHeader(nil, &h)); err != nil {
		return nil, fmt.Errorf("replay: writing the header: %w", err)
	}
	return r, nil
}

// Header returns the recording's header.
func (r *Recorder) Header() Header { return r.hdr }

// Err returns the first write error, or nil.
func (r *Recorder) Err() error { return r.err }

// Records returns the number of ticks recorded.
func (r *Recorder) Records() uint64 { return r.records }

// Restored records that snap (from Engine.Snapshot) was restored between
// ticks, into w; before is the state hash of the world it replaced
// (World.Hash, taken just before Engine.Restore). The replay restores the
// snapshot before the same tick. A restore that no tick follows (the run
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
	if r.op&opRestore == 0 {
		r.restoreFrom = before // the world the first of several restores replaced
	}
	r.restore = append(r.restore[:0], snap...)
	r.restoreAt = w.Tick() + 1
	r.op |= opRestore
}

// PreTick implements engine.TickHook.
func (r *Recorder) PreTick() {}

// BeginTick implements engine.TickHook: it notes the tick's number, rate
// and players (read when the tick ends).
func (r *Recorder) BeginTick(t *engine.TickInfo) {
	r.inTick, r.tick = true, t.Tick
	if t.Rate != r.rate {
		r.op |= opRate
		r.rate = t.Rate
	}
	r.tickRate = t.Rate
	r.players = t.Players
}

// JobApplied implements engine.TickHook: it notes the result.
func (r *Recorder) JobApplied(tick uint64, id engine.JobID, result []byte) {
	r.op |= opJobs
	r.njobs++
	r.jobs = binary.AppendUvarint(r.jobs, uint64(id))
	r.jobs = binary.AppendUvarint(r.jobs, uint64(len(result)))
	r.jobs = append(r.jobs, result...)
}

// EndTick implements engine.TickHook: it writes the tick's record, with
// the state hash when the tick is a multiple of HashEvery, and writes the
// chunk once it spans a second of simulated time.
func (r *Recorder) EndTick(tick uint64, w *engine.World) {
	var hash uint64
	if tick%uint64(r.hdr.HashEvery) == 0 {
		r.op |= opHash
		hash = w.Hash()
	}
	r.commit(hash)
	// Rounded up, so that a second of ticks reaches a second at any rate.
	r.simTime += (time.Second + time.Duration(r.tickRate) - 1) / time.Duration(r.tickRate)
	if r.simTime >= time.Second {
		r.Flush()
	}
}

// commit appends the tick in progress to the chunk.
func (r *Recorder) commit(hash uint64) {
	if r.count == 0 {
		r.first = r.tick
		if r.op&opRestore != 0 {
			r.first = r.last + 1 // the chunk's first tick is the one before the restore
			if r.records == 0 {
				r.first = 1
			}
		}
	}
	// The players: joins and leaves, and the inputs that changed (player
	// 0's apart, the others gathered in r.others).
	p := r.players
	var in0 [input.SampleWords]uint64
	var mask0 uint64
	nothers := 0
	r.others = r.others[:0]
	if p != nil {
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
		b = binary.AppendUvarint(b, uint64(r.njobs))
		b = append(b, r.jobs...)
	}
	if r.op&opHash != 0 {
		b = binary.LittleEndian.AppendUint64(b, hash)
	}
	r.recs = b
	r.count++
	r.records++
	r.last = r.tick
	r.op, r.njobs, r.jobs, r.inTick, r.players = 0, 0, r.jobs[:0], false, nil
	if cap(r.restore) > 1<<20 {
		r.restore = nil
	} else {
		r.restore = r.restore[:0]
	}
}

// inputMask returns the mask of the words of cur that differ from prev.
func inputMask(cur, prev *[input.SampleWords]uint64) uint64 {
	var mask uint64
	for i := range cur {
		if cur[i] != prev[i] {
			mask |= 1 << i
		}
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
// normally; hash is the world's state hash at the end. It returns the
// first write error.
func (r *Recorder) Close(hash uint64) error {
	return r.finish(hash, nil)
}

// Crash writes the records so far, including the tick in progress when the
// panic came (without its hash), and an end chunk that says where the run
// crashed, so that a replay reproduces the panic.
func (r *Recorder) Crash(p *engine.PanicError) error {
	if r.inTick {
		r.commit(0)
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
