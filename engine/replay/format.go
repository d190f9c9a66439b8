package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/timing"
)

// Format constants and limits.
const (
	Magic = "NEBREPLY"
	// Version is the format version written and read. Version 2 added
	// the schema of the world's components and resources to the header
	// (and the header's length became a uint32); version 3 the players:
	// per tick, who joined and left, and every player's input; version 4
	// the game's own parameters (Header.Params) in place of the demo's
	// entity count, scene flags and injected panic; version 5 gamepads and
	// actions: an input has input.SampleWords words instead of
	// input.KeyMouseWords; version 6 snapshots in the stream (a record's
	// Snapshot: a checkpoint a replay checks and a recovery starts from).
	// Open reads versions OldestVersion to Version.
	Version = 6
	// OldestVersion is the oldest format version Open reads. A version 4
	// file's inputs read with no gamepad connected and every action up.
	OldestVersion = 4

	MaxScene = 64
	// MaxParams caps the bytes of a game's own parameters in a header.
	MaxParams = 4096
	// MaxSchema caps the bytes of the schema in a header: MaxColumns
	// entries of the longest name and type.
	MaxSchema        = 2 + engine.MaxColumns*(1+1+engine.MaxColumnName+1+255+4+8)
	MaxChunk         = 64 << 20
	MaxTicksPerChunk = 1 << 20
	MaxJobsPerTick   = engine.MaxJobsInFlight
	MaxPhase         = 16
	MaxSystem        = 256
	MaxMessage       = 4096
	// MaxFile is the largest file the demo reads.
	MaxFile = 1 << 30

	// DefaultHashEvery stores a hash once a second at 60 Hz.
	DefaultHashEvery = 60
)

const (
	chunkTicks = 'T'
	chunkEnd   = 'E'

	opRestore = 0x01
	opRate    = 0x02
	opPlayers = 0x04 // joins and leaves
	opInput   = 0x08 // player 0's input
	opInputs  = 0x10 // the other players' inputs
	opJobs    = 0x20
	opHash    = 0x40
	opSnap    = 0x80 // a checkpoint: the world's snapshot before the tick (version 6)
	opAll     = opRestore | opRate | opPlayers | opInput | opInputs | opJobs | opHash | opSnap
	// snapshotVersion is the first format version with opSnap.
	snapshotVersion = 6

	headerFixed = 14                // magic, version, length
	fieldsMin   = 4 + 8 + 4 + 1 + 1 // tick rate, seed, hash every, job mode, scene length
	chunkFrame  = 1 + 4 + 4         // type, length, CRC
	// headerMin and headerMax bound the header's fields: no scene, no
	// parameters and an empty schema; and every field at its largest.
	headerMin = fieldsMin + 1 + 2
	headerMax = fieldsMin + MaxScene + 2 + MaxParams + MaxSchema
)

// Header is what a replay needs besides the ticks: the scene and how it
// was set up.
type Header struct {
	// Version is the format version (set by Open; the Recorder writes
	// Version).
	Version int
	// TickRate is the tick rate of the first tick, in Hz.
	TickRate int
	Seed     uint64 // the world's RNG seed
	// HashEvery: the state hash is stored at every tick that is a multiple
	// of it.
	HashEvery int
	// Scene identifies the scene (at most MaxScene bytes); a replay of
	// another scene is refused.
	Scene string
	// Params are the game's own parameters, the options its simulation
	// was set up with (an entity count, a level), at most MaxParams
	// bytes: opaque to the format, the game defines them (package
	// internal/app writes the values of the game's recorded flags, in a
	// versioned encoding of its own). A replay sets the game up from them.
	Params []byte
	// JobMode is how the recorded run applied job results.
	JobMode engine.JobMode
	// Schema is the recorded world's components and resources
	// (engine.World.Schema, once the scene has registered them): a world
	// with another schema cannot play the recording.
	Schema engine.Schema
}

// Validate reports the first field out of range.
func (h *Header) Validate() error {
	if err := h.validate(); err != nil {
		return fmt.Errorf("replay: header: %w", err)
	}
	return nil
}

// validate is Validate's checks.
//
//srccheck:wrapped by Validate ("replay: header: ...") and by the reader, in a FormatError
func (h *Header) validate() error {
	switch {
	case timing.ValidateTickRate(h.TickRate) != nil:
		return fmt.Errorf("tick rate %d Hz out of range [%d, %d]", h.TickRate, timing.MinTickRate, timing.MaxTickRate)
	case h.HashEvery < 1 || h.HashEvery > 1<<31-1:
		return fmt.Errorf("hash interval %d out of range (at least 1 tick)", h.HashEvery)
	case len(h.Scene) > MaxScene:
		return fmt.Errorf("scene name of %d bytes, at most %d", len(h.Scene), MaxScene)
	case len(h.Params) > MaxParams:
		return fmt.Errorf("game parameters of %d bytes, at most %d", len(h.Params), MaxParams)
	case h.JobMode > engine.JobsReplay:
		return fmt.Errorf("job mode %d is not a mode", h.JobMode)
	case len(h.Schema) > engine.MaxColumns:
		return fmt.Errorf("schema of %d entries, at most %d", len(h.Schema), engine.MaxColumns)
	}
	return nil
}

func appendHeader(b []byte, h *Header) []byte {
	start := len(b)
	b = append(b, Magic...)
	b = binary.LittleEndian.AppendUint16(b, Version)
	at := len(b)
	b = binary.LittleEndian.AppendUint32(b, 0) // the length, set below
	b = binary.LittleEndian.AppendUint32(b, uint32(h.TickRate))
	b = binary.LittleEndian.AppendUint64(b, h.Seed)
	b = binary.LittleEndian.AppendUint32(b, uint32(h.HashEvery))
	b = append(b, uint8(h.JobMode), uint8(len(h.Scene)))
	b = append(b, h.Scene...)
	b = binary.AppendUvarint(b, uint64(len(h.Params)))
	b = append(b, h.Params...)
	b = engine.AppendSchema(b, h.Schema)
	binary.LittleEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// Errors a FormatError wraps.
var (
	ErrTruncated = errors.New("truncated")
	ErrChecksum  = errors.New("checksum mismatch")
	ErrMagic     = errors.New("not a Nebula replay")
	ErrVersion   = errors.New("unsupported format version")
	ErrInvalid   = errors.New("invalid value")
)

// FormatError is a replay file that cannot be read: where (the chunk, -1
// for the header, and the byte offset in the file) and which field.
type FormatError struct {
	Chunk  int    // the chunk's number, -1 for the header
	Offset int    // byte offset in the file
	Field  string // the field being read
	Err    error  // why: ErrTruncated, ErrChecksum and the like
}

// Error says where reading stopped and why.
func (e *FormatError) Error() string {
	where := "header"
	if e.Chunk >= 0 {
		where = fmt.Sprintf("chunk %d", e.Chunk)
	}
	return fmt.Sprintf("%s, byte %d, field %s: %v", where, e.Offset, e.Field, e.Err)
}

// Unwrap returns Err.
func (e *FormatError) Unwrap() error { return e.Err }

// CrashInfo describes the panic that ended a recorded run.
type CrashInfo struct {
	Tick    uint64 // engine.PanicError.Tick
	Phase   string // engine.PanicError.Phase
	System  string // engine.PanicError.System
	Message string // the panic's value, formatted
}

// End is what the end chunk says.
type End struct {
	Records  uint64     // tick records in the file
	LastTick uint64     // the last recorded tick
	Hash     uint64     // state hash at the end; 0 after a crash or when Missing
	Crash    *CrashInfo // the panic that ended the run, or nil
	// Missing is set by OpenIncomplete when the recording has no end
	// chunk: the records of its whole chunks are kept, the rest dropped.
	Missing *Missing
}

// Missing describes what OpenIncomplete dropped from a recording whose end
// is missing: the run was killed, or the file was cut short.
type Missing struct {
	// Bytes is how many bytes after the last whole chunk were dropped.
	Bytes int
	// Reason is why Open refused the file (a *FormatError wrapping
	// ErrTruncated).
	Reason error
}

// Stats counts what a recording holds, for logs and tests.
type Stats struct {
	// InputChanges counts the recorded input changes: a tick counts once
	// for every player whose input differs from its previous recorded
	// input.
	InputChanges int
	Joins        int // players joining, over all ticks
	Leaves       int // players leaving, over all ticks
	JobResults   int // job results applied
	Restores     int // snapshots restored
	RateChanges  int // tick rate changes
	Hashes       int // stored hashes, the end chunk's included
	Snapshots    int // checkpoints (Record.Snapshot)
}

// JobResult is a job result applied in a recorded tick.
type JobResult struct {
	ID     engine.JobID // the job
	Result []byte       // its result, as JobRun returned it
}

// PlayerInput is a player's input at a recorded tick.
type PlayerInput struct {
	Player engine.PlayerID // the player
	Input  input.Sample    // its input
}

// Record is one recorded tick.
type Record struct {
	Tick    uint64            // the tick's number
	Restore []byte            // snapshot restored before the tick, or nil
	Rate    int               // tick rate from this tick on, or 0 when unchanged
	Joined  []engine.PlayerID // players who joined at the tick, ascending
	Left    []engine.PlayerID // players who left at the tick, ascending
	// Inputs are the inputs of the players whose input differs from
	// their previous recorded input, ascending by player. A player's
	// input at a tick is the last one recorded for it (zero before any).
	Inputs  []PlayerInput
	Jobs    []JobResult // job results applied in the tick, in order
	HasHash bool        // whether Hash holds a stored state hash
	Hash    uint64      // the state hash at the end of the tick
	// Snapshot, when not nil, is a checkpoint (Recorder.Checkpoint): an
	// engine snapshot of the world before the tick, at the end of the
	// tick before, whose state hash is SnapshotHash. A replay does not
	// restore it: it checks that its world's hash before the tick is
	// SnapshotHash. A recovery restores the last one and replays the
	// records from it (NewPlayerFromSnapshot).
	Snapshot     []byte
	SnapshotHash uint64 // the state hash of the world Snapshot holds
}
