package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-gl/mathgl/mgl32"

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
//	  modes n x uint8, colours n x 4 bytes
//	  previous pos, rot, scale, vel (n x 3, 4, 3, 3 float32 bits)
//	  teleport marks n x uint8 (0 or 1)
//	components and resources, in the schema's order:
//	  component: presence n x uint8 (0 or 1), then for a fixed-size type
//	  every slot's value (size bytes each, its exact bits without
//	  padding), for a variable-size one a uint32 length + AppendBinary
//	  bytes for each slot that has it
//	  resource: its value, size bytes or uint32 length + bytes
//	input:
//	  snapshot InputWords x uint64 (InputSnapshot.Words)
//	  keys pushed len(keySet) x uint64, buttons pushed uint8
//	  latest event time int64, an event pushed uint8
//	  queue: length uint32, then per event time int64, kind, key, button
//	  uint8, x, y float64 bits
//	jobs:
//	  next id uint64, pending uint32, then per job: id uint64, kind uint16,
//	  due tick uint64, input length uint32 + bytes, result known uint8,
//	  and when known result length uint32 + bytes
//
// Restore checks every length against what is left before allocating, and
// the entity table for consistency (free slots dead and distinct, the live
// count matching the generations).
const (
	snapshotMagic = "NEBSNAP1"
	// SnapshotVersion is the version of the snapshot format written and
	// read. Version 2 added components and resources.
	SnapshotVersion = 2
	// MaxSlots caps the entity slots a snapshot may hold.
	MaxSlots = 1 << 24
	// MaxInputQueue caps the queued input events a snapshot may hold.
	MaxInputQueue = 1 << 16
)

// Sizes of a slot's data in a snapshot: current (pos 12, rot 16, scale 12,
// vel 12, angvel 12, mode 1, colour 4), previous (pos 12, rot 16, scale 12,
// vel 12), generation 4, teleport mark 1.
const snapshotSlotBytes = 12 + 16 + 12 + 12 + 12 + 1 + 4 + 12 + 16 + 12 + 12 + 4 + 1

// Snapshot returns the engine's state at the tick boundary: the world
// (entity table with its id allocator, current and previous transforms,
// velocities, modes, colours, teleport marks, RNG, tick), the input state,
// the loop's tick rate and the jobs in flight (with their results when
// they are known). Call it between frames. Restore returns to it.
func (e *Engine) Snapshot() []byte {
	w := e.World
	n := len(w.gen)
	b := make([]byte, 0, 64+n*snapshotSlotBytes+len(w.free)*4+256)
	b = append(b, snapshotMagic...)
	b = binary.LittleEndian.AppendUint16(b, SnapshotVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Loop.TickRate()))
	b = AppendSchema(b, w.schema)

	b = binary.LittleEndian.AppendUint64(b, w.tick)
	st, inc := w.rng.State()
	b = binary.LittleEndian.AppendUint64(b, st)
	b = binary.LittleEndian.AppendUint64(b, inc)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = binary.LittleEndian.AppendUint32(b, uint32(w.count))
	for _, g := range w.gen {
		b = binary.LittleEndian.AppendUint32(b, g)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(w.free)))
	for _, f := range w.free {
		b = binary.LittleEndian.AppendUint32(b, f)
	}
	b = appendVec3s(b, w.cur.Pos)
	b = appendQuats(b, w.cur.Rot)
	b = appendVec3s(b, w.cur.Scale)
	b = appendVec3s(b, w.cur.Vel)
	b = appendVec3s(b, w.cur.AngVel)
	for _, m := range w.cur.Mode {
		b = append(b, uint8(m))
	}
	for _, c := range w.cur.Color {
		b = append(b, c[:]...)
	}
	b = appendVec3s(b, w.prev.Pos)
	b = appendQuats(b, w.prev.Rot)
	b = appendVec3s(b, w.prev.Scale)
	b = appendVec3s(b, w.prev.Vel)
	for _, s := range w.snap {
		b = append(b, boolByte(s))
	}
	for _, c := range w.cols {
		b = c.appendSnapshot(b)
	}

	in := e.Input
	var words [InputWords]uint64
	in.state.Words(&words)
	for _, v := range words {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	for _, v := range in.pushedKeys {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	b = append(b, uint8(in.pushedButtons))
	b = binary.LittleEndian.AppendUint64(b, uint64(in.last))
	b = append(b, boolByte(in.havePush))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(in.queue)))
	for _, ev := range in.queue {
		b = binary.LittleEndian.AppendUint64(b, uint64(ev.Time))
		b = append(b, uint8(ev.Kind), uint8(ev.Key), uint8(ev.Button))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ev.X))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ev.Y))
	}

	j := e.Jobs
	b = binary.LittleEndian.AppendUint64(b, uint64(j.nextID))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(j.pending)))
	for _, jb := range j.pending {
		b = binary.LittleEndian.AppendUint64(b, uint64(jb.id))
		b = binary.LittleEndian.AppendUint16(b, uint16(jb.kind))
		b = binary.LittleEndian.AppendUint64(b, jb.due)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(jb.input)))
		b = append(b, jb.input...)
		ready := jb.ready && j.mode != JobsReplay
		if !ready && j.mode != JobsReplay {
			select {
			case <-jb.done:
				ready = jb.panicV == nil
			default:
			}
		}
		b = append(b, boolByte(ready))
		if ready {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(jb.result)))
			b = append(b, jb.result...)
		}
	}
	return b
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func appendVec3s(b []byte, vs []mgl32.Vec3) []byte {
	for _, v := range vs {
		for _, f := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
	}
	return b
}

func appendQuats(b []byte, qs []mgl32.Quat) []byte {
	for _, q := range qs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(q.W))
		for _, f := range q.V {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
	}
	return b
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
var ErrSnapshotTruncated = errors.New("truncated")

// snapReader reads a snapshot, remembering the first error.
type snapReader struct {
	b   []byte
	off int
	err *SnapshotError
}

func (r *snapReader) fail(field string, err error) {
	if r.err == nil {
		r.err = &SnapshotError{Offset: r.off, Field: field, Err: err}
	}
}

func (r *snapReader) take(field string, n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b)-r.off < n {
		r.fail(field, fmt.Errorf("%w: needs %d bytes, %d left", ErrSnapshotTruncated, n, len(r.b)-r.off))
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *snapReader) u8(field string) uint8 {
	if s := r.take(field, 1); s != nil {
		return s[0]
	}
	return 0
}

func (r *snapReader) u16(field string) uint16 {
	if s := r.take(field, 2); s != nil {
		return binary.LittleEndian.Uint16(s)
	}
	return 0
}

func (r *snapReader) u32(field string) uint32 {
	if s := r.take(field, 4); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (r *snapReader) u64(field string) uint64 {
	if s := r.take(field, 8); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

func (r *snapReader) f32(field string) float32 { return math.Float32frombits(r.u32(field)) }

// schema reads a schema (see AppendSchema).
func (r *snapReader) schema(field string) Schema {
	n := int(r.u16(field))
	if r.err != nil {
		return nil
	}
	if n > MaxColumns {
		r.fail(field, fmt.Errorf("%d entries, at most %d allowed", n, MaxColumns))
		return nil
	}
	s := make(Schema, 0, min(n, len(r.b)/7))
	for range n {
		var e SchemaEntry
		switch k := r.u8(field); {
		case r.err != nil:
			return nil
		case k > 1:
			r.fail(field, fmt.Errorf("entry %d has kind %d (0 component, 1 resource)", len(s), k))
			return nil
		case k == 0:
			e.Kind = "component"
		default:
			e.Kind = "resource"
		}
		at := r.off
		e.Name = string(r.take(field, int(r.u8(field))))
		e.Type = string(r.take(field, int(r.u8(field))))
		e.Size = int(int32(r.u32(field)))
		e.Shape = r.u64(field)
		switch {
		case r.err != nil:
			return nil
		case !printable(e.Name) || !printable(e.Type) || e.Name == "" || e.Type == "":
			r.off = at
			r.fail(field, fmt.Errorf("entry %d has name %q and type %q (non-empty printable text wanted)", len(s), e.Name, e.Type))
			return nil
		case e.Size < -1:
			r.off = at
			r.fail(field, fmt.Errorf("entry %d (%q) has size %d (-1 or more wanted)", len(s), e.Name, e.Size))
			return nil
		}
		s = append(s, e)
	}
	return s
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if !unicode.IsPrint(c) {
			return false
		}
	}
	return true
}

// count reads a uint32 length of items of size bytes each, checking it
// against max and against the bytes left.
func (r *snapReader) count(field string, size, max int) int {
	at := r.off
	n := int(r.u32(field))
	if r.err != nil {
		return 0
	}
	if n > max {
		r.off = at
		r.fail(field, fmt.Errorf("%d entries, at most %d allowed", n, max))
		return 0
	}
	if n*size > len(r.b)-r.off {
		r.off = at
		r.fail(field, fmt.Errorf("%w: %d entries of %d bytes, %d bytes left", ErrSnapshotTruncated, n, size, len(r.b)-r.off-4))
		return 0
	}
	return n
}

func (r *snapReader) vec3s(field string, n int) []mgl32.Vec3 {
	vs := make([]mgl32.Vec3, n)
	for i := range vs {
		vs[i] = mgl32.Vec3{r.f32(field), r.f32(field), r.f32(field)}
	}
	return vs
}

func (r *snapReader) quats(field string, n int) []mgl32.Quat {
	qs := make([]mgl32.Quat, n)
	for i := range qs {
		qs[i].W = r.f32(field)
		qs[i].V = mgl32.Vec3{r.f32(field), r.f32(field), r.f32(field)}
	}
	return qs
}

// Restore returns the engine to a state Snapshot returned: the world, the
// input state, the tick rate and the jobs in flight (whose work is started
// again unless its result was saved; jobs are pure functions of their
// input, so the continuation is the same). After Restore the next tick is
// the snapshot's tick plus one, and the run continues with exactly the
// hashes it had from there. Restore checks the whole snapshot before it
// changes anything; on error the engine is as it was. Jobs still running
// from before are abandoned. Call it between ticks (between frames, or
// from TickHook.PreTick).
func (e *Engine) Restore(snap []byte) error {
	r := &snapReader{b: snap}
	if m := r.take("magic", len(snapshotMagic)); m != nil && string(m) != snapshotMagic {
		r.off = 0
		r.fail("magic", fmt.Errorf("got %q, want %q", m, snapshotMagic))
	}
	at := r.off
	if v := r.u16("version"); r.err == nil && v != SnapshotVersion {
		r.off = at
		which := "a newer"
		if v < SnapshotVersion {
			which = "an older"
		}
		r.fail("version", fmt.Errorf("version %d, written by %s build of Nebula; this build reads version %d only", v, which, SnapshotVersion))
	}
	at = r.off
	rate := int(r.u32("tick rate"))
	if r.err == nil && timing.ValidateTickRate(rate) != nil {
		r.off = at
		r.fail("tick rate", fmt.Errorf("%d Hz is out of range", rate))
	}
	at = r.off
	if schema := r.schema("schema"); r.err == nil {
		if err := schema.Compare(e.World.schema); err != nil {
			r.off = at
			r.fail("schema", err)
		}
	}

	w := &World{}
	w.tick = r.u64("world tick")
	st, inc := r.u64("rng state"), r.u64("rng inc")
	w.rng.SetState(st, inc)
	at = r.off
	n := r.count("slots", snapshotSlotBytes, MaxSlots)
	count := int(r.u32("live count"))
	w.gen = make([]uint32, n)
	live := 0
	for i := range w.gen {
		w.gen[i] = r.u32("generations")
		live += int(w.gen[i] & 1)
	}
	if r.err == nil && live != count {
		r.off = at
		r.fail("live count", fmt.Errorf("%d live entities, but %d generations are odd (alive)", count, live))
	}
	at = r.off
	nf := r.count("free list", 4, n)
	w.free = make([]uint32, nf)
	seen := make([]bool, n)
	for i := range w.free {
		f := r.u32("free list")
		if r.err == nil && (int(f) >= n || w.gen[f]&1 == 1 || seen[f]) {
			r.fail("free list", fmt.Errorf("entry %d is slot %d, which is not a distinct dead slot of %d", i, f, n))
		}
		if r.err == nil {
			seen[f] = true
		}
		w.free[i] = f
	}
	if r.err == nil && nf != n-count {
		r.off = at
		r.fail("free list", fmt.Errorf("%d free slots, want %d (slots less live entities)", nf, n-count))
	}
	w.count = count
	w.cur.Pos = r.vec3s("current positions", n)
	w.cur.Rot = r.quats("current rotations", n)
	w.cur.Scale = r.vec3s("current scales", n)
	w.cur.Vel = r.vec3s("velocities", n)
	w.cur.AngVel = r.vec3s("angular velocities", n)
	w.cur.Mode = make([]DrawMode, n)
	for i := range w.cur.Mode {
		at := r.off
		m := DrawMode(r.u8("draw modes"))
		if r.err == nil && m > NoInterpolation {
			r.off = at
			r.fail("draw modes", fmt.Errorf("slot %d has draw mode %d, not a DrawMode", i, m))
		}
		w.cur.Mode[i] = m
	}
	w.cur.Color = make([][4]uint8, n)
	for i := range w.cur.Color {
		if c := r.take("colours", 4); c != nil {
			w.cur.Color[i] = [4]uint8(c)
		}
	}
	w.prev.Pos = r.vec3s("previous positions", n)
	w.prev.Rot = r.quats("previous rotations", n)
	w.prev.Scale = r.vec3s("previous scales", n)
	w.prev.Vel = r.vec3s("previous velocities", n)
	w.snap = make([]bool, n)
	for i := range w.snap {
		w.snap[i] = r.u8("teleport marks") != 0
	}
	for _, c := range e.World.cols {
		if r.err == nil {
			c.stageSnapshot(r, w.gen)
		}
	}

	var in Input
	var words [InputWords]uint64
	for i := range words {
		words[i] = r.u64("input snapshot")
	}
	if r.err == nil {
		if err := in.state.SetWords(&words); err != nil {
			r.fail("input snapshot", err)
		}
	}
	var pushed [len(keySet{})]uint64
	for i := range pushed {
		pushed[i] = r.u64("keys pushed")
	}
	if r.err == nil {
		for i, v := range pushed {
			if v&^keyWordMask(i) != 0 {
				r.fail("keys pushed", fmt.Errorf("bits for keys beyond the last key"))
			}
		}
	}
	in.pushedKeys = keySet(pushed)
	in.pushedButtons = buttonSet(r.u8("buttons pushed"))
	in.last = time.Duration(r.u64("latest event time"))
	in.havePush = r.u8("an event pushed") != 0
	nq := r.count("input queue", 27, MaxInputQueue)
	in.queue = make([]InputEvent, nq)
	for i := range in.queue {
		ev := &in.queue[i]
		ev.Time = time.Duration(r.u64("input queue"))
		at := r.off
		ev.Kind, ev.Key, ev.Button = EventKind(r.u8("input queue")), Key(r.u8("input queue")), MouseButton(r.u8("input queue"))
		if r.err == nil && (ev.Kind < KeyDown || ev.Kind > Scroll || ev.Key >= KeyCount || ev.Button >= MouseButtonCount) {
			r.off = at
			r.fail("input queue", fmt.Errorf("event %d is not a valid event (kind %d, key %d, button %d)", i, ev.Kind, ev.Key, ev.Button))
		}
		ev.X = math.Float64frombits(r.u64("input queue"))
		ev.Y = math.Float64frombits(r.u64("input queue"))
	}

	nextID := JobID(r.u64("next job id"))
	nj := r.count("jobs", 8+2+8+4+1, MaxJobsInFlight)
	jobs := make([]*job, 0, nj)
	for i := range nj {
		jb := &job{}
		at := r.off
		jb.id = JobID(r.u64("job id"))
		if r.err == nil && (jb.id >= nextID || i > 0 && jb.id <= jobs[i-1].id) {
			r.off = at
			r.fail("job id", fmt.Errorf("job %d has id %d, not increasing or not below the next id %d", i, jb.id, nextID))
		}
		at = r.off
		jb.kind = JobKind(r.u16("job kind"))
		if r.err == nil && int(jb.kind) >= len(e.Jobs.kinds) {
			r.off = at
			r.fail("job kind", fmt.Errorf("job %d has kind %d, but %d kinds are registered", jb.id, jb.kind, len(e.Jobs.kinds)))
		}
		jb.due = r.u64("job due tick")
		jb.input = slices.Clone(r.take("job input", r.count("job input", 1, MaxJobInput)))
		if r.u8("job result known") != 0 {
			jb.result = slices.Clone(r.take("job result", r.count("job result", 1, MaxJobResult)))
			jb.ready = true
		}
		jobs = append(jobs, jb)
	}
	if r.err == nil && r.off != len(snap) {
		r.fail("end", fmt.Errorf("%d bytes after the end of the snapshot", len(snap)-r.off))
	}
	if r.err != nil {
		return r.err
	}

	_ = e.Loop.SetTickRate(rate) // checked above
	e.World.setTable(w)
	for _, c := range e.World.cols {
		c.commit()
	}
	*e.Input = in
	j := e.Jobs
	j.nextID = nextID
	j.pending = jobs
	for _, jb := range jobs {
		j.start(jb)
	}
	return nil
}
