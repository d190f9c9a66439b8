package engine

import (
	"github.com/nebulaengine/nebula/engine/input"

	"encoding/binary"
	"fmt"

	"github.com/nebulaengine/nebula/internal/binread"
	"github.com/nebulaengine/nebula/timing"
)

// Snapshot format. A snapshot is the whole state a continuation depends
// on, little-endian throughout:
//
//	magic      8 bytes  "NEBSNAP1"
//	version    uint16   SnapshotVersion
//	tick rate  uint32   the loop's tick rate
//	schema:    entries uint16, then per entry kind uint8 (0 component,
//	           1 resource), name length uint8 + bytes, type length uint8
//	           + bytes, size int32 (-1: variable), shape uint64
//	world:
//	  tick uint64, rng state uint64, rng inc uint64
//	  slots uint32 (n), live count uint32
//	  generations n x uint32
//	  free list: length uint32, then that many uint32 slots, in order
//	  current pos, rot, scale, vel, angvel (n x 3, 4, 3, 3, 3 float32 bits)
//	  modes n x uint8, colours n x 4 bytes, meshes n x uint16
//	  draw attributes, in versions 9 and 10, only when some entity's are
//	  not the defaults (otherwise written as 7 or 8): mesh scales n x 3
//	  float32 bits, emissive colours n x 3 bytes, hidden flags n x uint8
//	  (0 or 1)
//	  previous pos, rot, scale, vel (n x 3, 4, 3, 3 float32 bits)
//	  teleport marks n x uint8 (0 or 1)
//	  hierarchy, in versions 6, 8 and 10, only when some entity has a parent
//	  (a world without parents is written as version 5, 7 or 9): entities with a parent uint32 (m > 0),
//	  every slot's parent n x uint32 (its slot plus one, 0 for none), the
//	  world pos, rot, scale at the last propagation and at the start of
//	  the tick (n x 3, 4, 3 float32 bits each)
//	components and resources, in the schema's order:
//	  component: presence n x uint8 (0 or 1), then for a fixed-size type
//	  every slot's value (size bytes each, its exact bits without
//	  padding), for a variable-size one a uint32 length + AppendBinary
//	  bytes for each slot that has it
//	  resource: its value, size bytes or uint32 length + bytes
//	players: count uint16 (<= MaxPlayers), then per player, ascending by
//	  ID: id uint16, its latest input input.SampleWords x uint64
//	  (input.Sample.Words)
//	input:
//	  snapshot input.SampleWords x uint64 (input.Sample.Words)
//	  keys pushed len(keySet) x uint64, buttons pushed uint8
//	  queue (the events no tick has seen): length uint32, then per event
//	  kind, key, button, pad, pad button, axis uint8, x, y float64 bits
//	jobs:
//	  next id uint64, pending uint32, then per job: id uint64, kind uint16,
//	  due tick uint64, input length uint32 + bytes, result known uint8,
//	  and when known result length uint32 + bytes
//
// No clock time is in a snapshot: the restoring engine's clock may start
// anywhere (a new process starts at 0). Version 4 held the clock times of
// the latest input event and of each queued event; Restore reads a
// version 4 snapshot and drops them (see Restore).
//
// Restore checks every length against what is left before allocating, and
// the entity table for consistency (free slots dead and distinct, the live
// count matching the generations).
const (
	snapshotMagic = "NEBSNAP1"
	// SnapshotVersion is the version of the snapshot format written.
	// Version 2 added components and resources, version 3 the players,
	// version 4 the meshes; version 5 dropped the input's clock times;
	// version 6 added the transform hierarchy; version 7 gamepads and
	// actions in the inputs (versions 4 to 6 hold input.KeyMouseWords words
	// per input, and their queued events no gamepad fields: they read with
	// no gamepad and every action up). A world in which no entity has a
	// parent has no hierarchy section: it is written as version 7, one
	// with parents as version 8 (7 and 8 are 5 and 6 with the inputs'
	// gamepads and actions).
	// Version 9 is 7 with the draw attributes (mesh scales, emissive
	// colours, hidden flags), and 10 is 8 with them: a world whose draw
	// attributes are all the defaults is written as version 7 or 8.
	// Restore reads versions OldestSnapshotVersion to SnapshotVersion.
	SnapshotVersion = 10
	// hierarchySnapshotVersion is the first version with the hierarchy
	// section; flatSnapshotVersion, the one before, is written for a
	// world in which no entity has a parent (the same bytes as before).
	hierarchySnapshotVersion = 6
	flatSnapshotVersion      = hierarchySnapshotVersion - 1
	// padSnapshotVersion is the first version whose inputs have gamepads
	// and actions: it is flatSnapshotVersion with them, and
	// padSnapshotVersion+1 is hierarchySnapshotVersion with them.
	padSnapshotVersion = 7
	// drawSnapshotVersion is the first version with the draw attributes
	// (World.SetMeshScale, SetEmissive, SetVisible): padSnapshotVersion
	// with them, and drawSnapshotVersion+1 is padSnapshotVersion+1 with
	// them.
	drawSnapshotVersion = 9
	// OldestSnapshotVersion is the oldest snapshot version Restore reads.
	OldestSnapshotVersion = 4
	// MaxSlots caps the entity slots a snapshot may hold.
	MaxSlots = 1 << 24
)

// Sizes of a slot's data in a snapshot: current (pos 12, rot 16, scale 12,
// vel 12, angvel 12, mode 1, colour 4, mesh 2), previous (pos 12, rot 16, scale 12,
// vel 12), generation 4, teleport mark 1.
const snapshotSlotBytes = 12 + 16 + 12 + 12 + 12 + 1 + 4 + 2 + 12 + 16 + 12 + 12 + 4 + 1

// Snapshot returns the engine's state at the tick boundary: the world
// (entity table with its id allocator, current and previous transforms,
// velocities, modes, colours, meshes, teleport marks, RNG, tick, components and
// resources, the players in the match and their latest inputs), the input
// state, the loop's tick rate and the jobs in flight
// (with their results when they are known). Call it between frames.
// Restore returns to it.
func (e *Engine) Snapshot() []byte {
	w := e.World
	b := make([]byte, 0, 64+len(w.gen)*snapshotSlotBytes+len(w.free)*4+w.players.Len()*(2+8*input.SampleWords)+256)
	b = append(b, snapshotMagic...)
	version := uint16(padSnapshotVersion)
	if w.drawAttrs() {
		version = drawSnapshotVersion
	}
	if w.hier.linked > 0 {
		version++
	}
	b = binary.LittleEndian.AppendUint16(b, version)
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Loop.TickRate()))
	b = w.appendState(b)
	b = e.Input.AppendState(b)
	return e.Jobs.appendState(b)
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// SnapshotError is a snapshot that cannot be restored: the byte offset and
// the field where decoding stopped, and why.
type SnapshotError struct {
	Offset int    // byte offset in the snapshot where decoding stopped
	Field  string // the field being decoded
	Err    error  // why, such as ErrSnapshotTruncated
}

// Error says where decoding stopped and why.
func (e *SnapshotError) Error() string {
	return fmt.Sprintf("snapshot: byte %d, field %s: %v", e.Offset, e.Field, e.Err)
}

// Unwrap returns Err.
func (e *SnapshotError) Unwrap() error { return e.Err }

// ErrSnapshotTruncated is wrapped by a SnapshotError for a snapshot that
// ends early.
var ErrSnapshotTruncated = binread.ErrTruncated

// Restore returns the engine to a state Snapshot returned: the world, the
// input state, the tick rate and the jobs in flight (whose work is started
// again unless its result was saved; jobs are pure functions of their
// input, so the continuation is the same). After Restore the next tick is
// the snapshot's tick plus one, and the run continues with exactly the
// hashes it had from there, given the same input per tick, in this engine
// or in another whatever its clock: the input events queued at the
// snapshot (pushed before it, not yet seen by a tick) are seen by the
// ticks right after the restore, and the events pushed after it keep
// their times (no clamp to the saving run's clock). Restore checks the whole snapshot before it
// changes anything; on error the engine is as it was. Jobs still running
// from before are abandoned. Call it between ticks (between frames, or
// from TickHook.PreTick). The tick hooks that are RestoreHooks are told
// (a recorder notes the snapshot).
func (e *Engine) Restore(snap []byte) error {
	var before uint64
	if len(e.hooks.restorers) > 0 {
		before = e.World.Hash()
	}
	r := binread.New(snap)
	version, rate := readSnapshotHeader(&r)
	var table World
	table.players.oldInputs = version < padSnapshotVersion
	e.World.readState(&r, &table, version)
	in := input.Queue{}
	in.SetActions(e.Input.Actions()) // bindings are local, not restored
	in.ReadState(&r, inputLayout(version))
	jobs := e.Jobs.readState(&r)
	if r.Err() == nil && r.Left() != 0 {
		r.Fail("end", fmt.Errorf("%d bytes after the end of the snapshot", r.Left()))
	}
	if err := r.Err(); err != nil {
		return &SnapshotError{Offset: err.Offset, Field: err.Field, Err: err.Err}
	}

	_ = e.Loop.SetTickRate(rate) // checked above
	e.World.commitState(&table)
	*e.Input = in
	e.Jobs.commitState(jobs)
	for _, h := range e.hooks.restorers {
		h.Restored(snap, e.World, before)
	}
	return nil
}

// inputLayout returns the layout of the input queue in a snapshot of
// version v.
func inputLayout(v uint16) input.StateLayout {
	switch {
	case v == 4:
		return input.StateWithTimes
	case v < padSnapshotVersion:
		return input.StateKeyMouse
	}
	return input.StateCurrent
}

// hasHierarchy reports whether a snapshot of version v has the hierarchy
// section: versions 6, 8 and 10.
func hasHierarchy(v uint16) bool {
	return v == hierarchySnapshotVersion || v == padSnapshotVersion+1 || v == drawSnapshotVersion+1
}

// hasDrawAttrs reports whether a snapshot of version v has the draw
// attributes: versions 9 and 10.
func hasDrawAttrs(v uint16) bool { return v >= drawSnapshotVersion }

// readSnapshotHeader reads and checks the magic and the version, and
// returns the version and the tick rate.
func readSnapshotHeader(r *binread.Reader) (uint16, int) {
	if m := r.Take("magic", len(snapshotMagic)); m != nil && string(m) != snapshotMagic {
		r.FailAt(0, "magic", fmt.Errorf("got %q, want %q", m, snapshotMagic))
	}
	at := r.Offset()
	v := r.U16("version")
	if r.Err() == nil && (v < OldestSnapshotVersion || v > SnapshotVersion) {
		which := "a newer"
		if v < SnapshotVersion {
			which = "an older"
		}
		r.FailAt(at, "version", fmt.Errorf("version %d, written by %s build of Nebula; this build reads versions %d to %d", v, which, OldestSnapshotVersion, SnapshotVersion))
	}
	at = r.Offset()
	rate := int(r.U32("tick rate"))
	if r.Err() == nil && timing.ValidateTickRate(rate) != nil {
		r.FailAt(at, "tick rate", fmt.Errorf("%d Hz is out of range", rate))
	}
	return v, rate
}
