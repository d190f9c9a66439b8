// Package replay records a run of an engine.Engine tick by tick and plays
// it back bit for bit: a Recorder (one of the engine's tick hooks) writes,
// for every tick, the players who joined and left and every player's input, the job
// results applied in it, tick-rate changes, restored snapshots, checkpoints
// (Recorder.Checkpoint) and, every HashEvery ticks, the world's state
// hash; a Player feeds a recording back to an engine (the players
// included), and Verify replays one as fast as the CPU allows and compares
// every stored hash. A recording cut short by a crash recovers from its
// last checkpoint (NewPlayerFromSnapshot) and continues in the same file
// (ContinueRecorder): package matchlog keeps a match server's log so.
//
//	rec, err := replay.NewRecorder(f, replay.Header{Scene: "my-game", TickRate: 60, Seed: 1, HashEvery: 60})
//	remove, err := e.AddTickHook(rec) // beside a server or a rollback session, if any
//	... run ...
//	err = rec.Close(e.World.Hash())
//
//	r, err := replay.Open(data) // checks the whole file first
//	res, err := replay.Verify(e, r)
//
// # Format (version 6)
//
// All integers are little-endian; "uvarint" is encoding/binary's unsigned
// varint. A file is a header followed by chunks, the last of which is the
// end chunk; nothing may follow it.
//
// Header:
//
//	offset 0   magic        8 bytes  "NEBREPLY"
//	offset 8   version      uint16   6 (4 and 5 are read too; another version is refused, not guessed at)
//	offset 10  length       uint32   bytes of header fields that follow (21..21+64+2+MaxParams+MaxSchema)
//	offset 14  tick rate    uint32   Hz of the first tick
//	offset 18  seed         uint64   world RNG seed
//	offset 26  hash every   uint32   a state hash is stored every this many ticks (>= 1)
//	offset 30  job mode     uint8    how the recorded run applied job results (engine.JobMode)
//	offset 31  scene        uint8 length + that many bytes: the scene's identifier (<= 64)
//	then       params       uvarint length (<= MaxParams) + that many bytes: the game's
//	                        own parameters, opaque to the format (Header.Params)
//	then       schema       the world's components and resources (engine.AppendSchema):
//	                        uint16 count, then per entry kind uint8, name and type as
//	                        uint8 length + bytes, size int32 (-1: variable), shape uint64
//	then       CRC          uint32   CRC-32 (IEEE) of every header byte before it
//
// Chunk:
//
//	type     uint8   'T' (ticks) or 'E' (end)
//	length   uint32  payload bytes (<= MaxChunk)
//	payload
//	CRC      uint32  CRC-32 (IEEE) of type, length and payload
//
// A ticks chunk holds whole tick records: uvarint first tick number, uvarint
// record count (1..MaxTicksPerChunk), then the records. Each record starts
// with an op byte whose bits say which parts follow, in this order:
//
//	0x01 restore  uvarint tick, uvarint length + an engine snapshot, restored
//	              before the tick (the tick's number is then the snapshot's
//	              tick + 1)
//	0x02 rate     uvarint tick rate in Hz, from this tick on
//	0x04 players  who joined, then who left at the tick: each a uvarint count
//	              and that many uvarint player IDs (< engine.MaxPlayers),
//	              ascending; at least one in all, no player in both
//	0x08 input    player 0's input changed: an input change (below)
//	0x10 inputs   other players' inputs changed: uvarint count
//	              (1..engine.MaxPlayers-1), then per player, ascending, uvarint
//	              ID (1..engine.MaxPlayers-1) and an input change
//	0x20 jobs     uvarint count (1..MaxJobsPerTick), then per result uvarint
//	              job id, uvarint length (<= engine.MaxJobResult) and the bytes,
//	              in the order they were applied (job id order)
//	0x40 hash     uint64 the world's state hash at the end of the tick
//	0x80 snapshot a checkpoint (version 6): uint64 the state hash of the
//	              world before the tick, uvarint length (>= 1) + an engine
//	              snapshot of that world (Record.Snapshot); a replay checks
//	              the hash and does not restore the snapshot, a recovery
//	              restores the last one and replays the records from it
//
// An input change is a uvarint mask of the input.SampleWords words of the
// player's input (input.Sample.Words) that differ from its previous
// recorded input (zero before the first), then each changed word as
// uint64, lowest index first. Version 4, before gamepads and actions, is
// the same format with input.KeyMouseWords words per input: Open reads it,
// and its inputs have no gamepad connected and every action up. A player
// who uses no gamepad and no actions changes only those first words, so
// such a recording costs the same in either version. A player's input is recorded when it changes, whether it joined,
// left or stayed: a player whose input did not change costs nothing, and a
// tick in which nobody's input changed and that has nothing else costs one
// byte (op 0). Player 0, the single player of most recordings, has its own
// op bit, so a single-player recording is as compact as one without
// players. The players and their inputs are those the tick's fixed systems
// saw. Tick numbers go up by one per record, except after a restore.
//
// The end chunk: uvarint record count, uvarint last tick, status uint8 (0
// the run ended, 1 it crashed), uint64 state hash at the end (0 after a
// crash), and after a crash: uvarint tick, then phase, system and message
// as uvarint length + bytes (<= 16, 256 and 4096 bytes).
//
// Version 5 is version 6 without the snapshot op. A recorder writes a
// chunk at least once per second of simulated time (a match log, every
// tick), so a killed process loses at most the last second. Open refuses
// a file without its end chunk as truncated; OpenIncomplete takes such a
// file and keeps the records of its whole chunks (End.Missing says what it
// dropped), cutting a last chunk that is short or torn (its checksum
// fails and no whole chunk follows it), and refuses every other fault as
// Open does. A recording continued after a crash (ContinueRecorder) goes
// on from its last whole chunk: its chunks follow as if the run had never
// stopped.
//
// # Errors
//
// Open checks the whole file before anything is replayed: every CRC, every
// field, every limit. Its errors are *FormatError values naming the chunk
// (or the header), the byte offset in the file and the field, and wrapping
// ErrTruncated, ErrChecksum, ErrMagic, ErrVersion or ErrInvalid. Lengths
// are checked against their limits and against the bytes left before
// anything is allocated, so a hostile file cannot make Open allocate more
// than a small multiple of its own size. Nothing in this package panics on
// bad input.
package replay
