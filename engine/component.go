package engine

import (
	"encoding"
	"encoding/binary"
	"fmt"
	"iter"
	"slices"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/zeebo/xxh3"

	"github.com/nebulaengine/nebula/internal/binread"
)

// A column is a game's registered state in a World: a component (a value
// per entity) or a resource (one value). The World keeps them in
// registration order and has each hash, snapshot, save and load itself.
type column interface {
	schemaEntry() SchemaEntry
	// grow adds a slot at the end (components only).
	grow()
	// clearSlot removes slot i's value (despawn; components only).
	clearSlot(i int)
	// hash writes the column's canonical bytes to h; scratch is a buffer
	// to reuse.
	hash(h *xxh3.Hasher, scratch []byte) []byte
	// dump writes the column's lines of a state dump (see WriteDump).
	dump(d *dumper)
	// appendSnapshot appends the column's portable bytes to b.
	appendSnapshot(b []byte) []byte
	// stageSnapshot decodes the column from r for a world of the given
	// slots (and their generations), keeping the result aside until
	// commit.
	stageSnapshot(r *binread.Reader, gen []uint32)
	// commit makes the staged column current.
	commit()
	// save copies the column into *dst (made on first use) for LoadState.
	save(dst *any)
	// canLoad reports whether src was saved from a column of this type.
	canLoad(src any) bool
	// load copies a saved column back.
	load(src any)
}

// SchemaEntry describes one registered component or resource.
type SchemaEntry struct {
	Kind string // "component" or "resource"
	Name string // the name it was registered under
	Type string // its Go type
	// Size is the number of bytes of one value's exact bits, or -1 for a
	// variable-size type that encodes itself (encoding.BinaryAppender).
	Size int
	// Shape is a hash of the type's fields' types, in order (not their
	// names): two types of the same name and size whose values encode
	// differently have different shapes.
	Shape uint64
}

// String formats the entry as in messages: component "health" int32.
func (s SchemaEntry) String() string {
	if s.Size < 0 {
		return fmt.Sprintf("%s %q %s (variable size)", s.Kind, s.Name, s.Type)
	}
	return fmt.Sprintf("%s %q %s", s.Kind, s.Name, s.Type)
}

// Schema lists a world's components and resources in registration order.
// A snapshot or a replay records the schema of the world it was made from,
// and is refused by a world with another one.
type Schema []SchemaEntry

// Fingerprint returns a hash of the schema: two schemas with the same
// entries in the same order have the same fingerprint.
func (s Schema) Fingerprint() uint64 {
	var b []byte
	for _, e := range s {
		b = appendSchemaEntry(b, e)
	}
	return xxh3.Hash(b)
}

// Compare returns nil when s and other are the same, or an error naming
// their first difference, with s as the recorded schema and other as this
// program's: "recorded with component "health" int32, this program has
// "health" float32".
func (s Schema) Compare(other Schema) error {
	for i := range max(len(s), len(other)) {
		switch {
		case i >= len(s):
			return fmt.Errorf("this program registers %v, which the recording does not have (it has %d components and resources, this program %d)", other[i], len(s), len(other))
		case i >= len(other):
			return fmt.Errorf("recorded with %v, which this program does not register (it has %d components and resources, the recording %d)", s[i], len(other), len(s))
		case s[i] == other[i]:
			continue
		}
		rec, cur := s[i], other[i]
		what := fmt.Sprintf("%q %s", cur.Name, cur.Type)
		if cur.Kind != rec.Kind {
			what = cur.Kind + " " + what
		}
		if cur.Type == rec.Type && cur.Size != rec.Size {
			return fmt.Errorf("recorded with %v of %d bytes, this program has %s of %d bytes", rec, rec.Size, what, cur.Size)
		}
		if cur.Type == rec.Type && cur.Kind == rec.Kind && cur.Name == rec.Name {
			return fmt.Errorf("recorded with %v, this program has %s whose fields have other types (shape %016x, recorded %016x)", rec, what, cur.Shape, rec.Shape)
		}
		if cur.Size < 0 {
			what += " (variable size)"
		}
		return fmt.Errorf("recorded with %v, this program has %s (entry %d of the schema)", rec, what, i+1)
	}
	return nil
}

// Limits of a schema, so that a snapshot or replay header stays bounded.
const (
	MaxColumns    = 1024 // components and resources in one world
	MaxColumnName = 64   // bytes of a component's or resource's name
	maxTypeName   = 255  // bytes of a type's name in a schema
)

// register adds c to w's columns, refusing a duplicate name.
func (w *World) register(kind, name string, c column) {
	switch {
	case name == "":
		panic(fmt.Sprintf("engine: New%s: the name is empty", kind))
	case len(name) > MaxColumnName:
		panic(fmt.Sprintf("engine: New%s: the name %q is %d bytes, at most %d", kind, name, len(name), MaxColumnName))
	case len(w.cols) >= MaxColumns:
		panic(fmt.Sprintf("engine: New%s(%q): a world holds at most %d components and resources", kind, name, MaxColumns))
	}
	for _, o := range w.cols {
		if e := o.schemaEntry(); e.Name == name {
			panic(fmt.Sprintf("engine: New%s(%q): the name is already registered, as %v", kind, name, e))
		}
	}
	if e := c.schemaEntry(); len(e.Type) > maxTypeName {
		panic(fmt.Sprintf("engine: New%s(%q): the type's name %s is %d bytes, at most %d", kind, name, e.Type, len(e.Type), maxTypeName))
	}
	w.cols = append(w.cols, c)
	w.schema = append(w.schema, c.schemaEntry())
	w.fingerprint = w.schema.Fingerprint()
}

// Schema returns the world's components and resources in registration
// order.
func (w *World) Schema() Schema { return slices.Clone(w.schema) }

func mustLayout[T any](kind, name string) layout {
	l, err := layoutOf[T]()
	if err != nil {
		panic(fmt.Sprintf("engine: New%s(%q): %v", kind, name, err))
	}
	return l
}

// Component is per-entity data of a game's own, registered with a World:
// health, a score, a timer, an AI's plan. Its values live in the world
// beside the transforms, in a slice indexed by slot (struct-of-arrays), so
// snapshots, the state hash, replays and rollback cover them with no code
// from the game. Get, Set, Has and Remove take an Entity and check that it
// is alive: a stale Entity never reads or writes the data of an entity
// that reused its slot. A new entity has no components; Despawn removes
// them all.
//
// For hot loops, Slices gives the storage itself and Indices the slots
// that have the component. Like the World, a
// Component is not safe for concurrent use.
type Component[T any] struct {
	w    *World
	name string
	l    layout
	vals []T
	has  []bool
	n    int // entities that have it

	// idx lists the slots that have the component, in order, when
	// !stale (Indices).
	idx   []int32
	stale bool

	// A snapshot decoded but not yet committed (Restore).
	stVals []T
	stHas  []bool
	stN    int
}

// NewComponent registers a component named name, holding values of type T,
// with w, and returns it. Register a world's components and resources
// before its first tick, in the same order in every run: snapshots and
// replays are refused by a world whose schema (names, types and order)
// differs.
//
// T is fixed-size plain data: bools, sized integers (int32, not int),
// floats, complex numbers, and arrays and structs of them, exactly what
// encoding/binary.Size accepts. Such values are stored, hashed and
// snapshotted by their exact bits. Or T implements encoding.BinaryAppender
// and *T encoding.BinaryUnmarshaler, for variable-size data (a path of
// waypoints); those values are hashed and snapshotted as AppendBinary
// encodes them, and a type implementing both is encoded by them even when
// it is plain. NewComponent panics, with a message that starts "engine:",
// for any other T (pointers, maps, strings, slices, channels, funcs,
// interfaces, int), and for a name already registered in w.
func NewComponent[T any](w *World, name string) *Component[T] {
	c := &Component[T]{w: w, name: name, l: mustLayout[T]("Component", name)}
	n := len(w.gen)
	c.vals = make([]T, n, cap(w.gen))
	c.has = make([]bool, n, cap(w.gen))
	w.register("Component", name, c)
	return c
}

// Name returns the name the component was registered under.
func (c *Component[T]) Name() string { return c.name }

// Len returns the number of live entities that have the component.
func (c *Component[T]) Len() int { return c.n }

// Has reports whether e is alive and has the component.
func (c *Component[T]) Has(e Entity) bool { return c.w.Alive(e) && c.has[e.index] }

// Get returns e's value and true, or the zero value and false when e is
// not alive or does not have the component.
func (c *Component[T]) Get(e Entity) (T, bool) {
	if !c.Has(e) {
		var zero T
		return zero, false
	}
	return c.vals[e.index], true
}

// Ptr returns a pointer to e's value, for changing it in place, or nil
// when e is not alive or does not have the component. The pointer is
// valid until the next Spawn, Restore or LoadState.
func (c *Component[T]) Ptr(e Entity) *T {
	if !c.Has(e) {
		return nil
	}
	return &c.vals[e.index]
}

// Set gives e the component with value v (or replaces its value) and
// reports whether e is alive; a dead or stale Entity is left alone.
func (c *Component[T]) Set(e Entity, v T) bool {
	if !c.w.Alive(e) {
		return false
	}
	if !c.has[e.index] {
		c.has[e.index] = true
		c.n++
		c.stale = true
	}
	c.vals[e.index] = v
	return true
}

// Remove takes the component from e and reports whether e had it.
func (c *Component[T]) Remove(e Entity) bool {
	if !c.Has(e) {
		return false
	}
	c.clearSlot(int(e.index))
	return true
}

// All iterates over the live entities that have the component and their
// values, in slot order, without allocating:
//
//	for ent, hp := range health.All() { ... }
//
// Changing the component's values during the loop is fine; adding or
// removing it, or spawning, changes what the rest of the loop sees.
func (c *Component[T]) All() iter.Seq2[Entity, T] {
	return func(yield func(Entity, T) bool) {
		for i, ok := range c.has {
			if ok && !yield(Entity{index: uint32(i), gen: c.w.gen[i]}, c.vals[i]) {
				return
			}
		}
	}
}

// Slices returns the component's storage, the fast path for systems over
// many entities: vals[i] is the value of the entity in slot i
// (Entity.Index) and has[i] says whether that entity has the component
// (has[i] is never true for a dead slot). Both have World.Slots elements
// and stay valid until the next Spawn, Restore or LoadState. Read and
// write values in place where has[i] is true; use Set and Remove to add
// and take the component. Values where has[i] is false are zero; keep them
// so, since the state hash covers them.
//
//	hp, alive := health.Slices()
//	regen, _ := regeneration.Slices()
//	for i, ok := range alive {
//		if ok {
//			hp[i] += regen[i]
//		}
//	}
func (c *Component[T]) Slices() (vals []T, has []bool) { return c.vals, c.has }

// Indices returns the slots of the live entities that have the component,
// in slot order: the fast path for a component that few or a random part
// of the entities have, where a loop over Slices' has would stall on
// branches it cannot predict.
//
//	hp, _ := health.Slices()
//	rg, _ := regen.Slices()
//	for _, i := range regen.Indices() {
//		hp[i] += rg[i] // every entity with regen has health, in this game
//	}
//
// The list is rebuilt, in one pass over the slots, on the first call after
// the component was added to or taken from an entity; it is valid until
// then (and until Restore or LoadState). Do not change it.
func (c *Component[T]) Indices() []int32 {
	if !c.stale {
		return c.idx
	}
	buf := c.idx[:cap(c.idx)]
	if len(buf) < len(c.has) {
		buf = make([]int32, len(c.has), cap(c.has))
	}
	k := 0
	for i, b := range bytesOf(c.has) {
		buf[k] = int32(i) // kept only when the slot has it: no branch
		k += int(b)
	}
	c.idx, c.stale = buf[:k], false
	return c.idx
}

func (c *Component[T]) schemaEntry() SchemaEntry {
	return SchemaEntry{Kind: "component", Name: c.name, Type: c.l.typ, Size: c.l.size, Shape: c.l.shape}
}

func (c *Component[T]) grow() {
	var zero T
	c.vals = append(c.vals, zero)
	c.has = append(c.has, false)
}

func (c *Component[T]) clearSlot(i int) {
	if c.has[i] {
		c.has[i] = false
		c.n--
		c.stale = true
	}
	var zero T
	c.vals[i] = zero
}

func (c *Component[T]) hash(h *xxh3.Hasher, scratch []byte) []byte {
	h.Write(bytesOf(c.has))
	switch c.l.kind {
	case packed:
		h.Write(bytesOf(c.vals))
	case padded:
		scratch = appendCanonical(scratch[:0], &c.l, c.vals)
		h.Write(scratch)
	case marshalled:
		scratch = scratch[:0]
		for i, ok := range c.has {
			if ok {
				scratch = appendMarshalled(scratch, c.vals[i])
			}
		}
		h.Write(scratch)
	}
	return scratch
}

// appendMarshalled appends v's AppendBinary bytes with a uint32 length
// before them.
func appendMarshalled[T any](b []byte, v T) []byte {
	at := len(b)
	b = append(b, 0, 0, 0, 0)
	b, err := any(v).(encoding.BinaryAppender).AppendBinary(b)
	if err != nil {
		panic(fmt.Sprintf("engine: %T.AppendBinary: %v", v, err))
	}
	n := len(b) - at - 4
	b[at], b[at+1], b[at+2], b[at+3] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
	return b
}

func (c *Component[T]) appendSnapshot(b []byte) []byte {
	for _, ok := range c.has {
		b = append(b, boolByte(ok))
	}
	if c.l.kind != marshalled {
		return appendCanonical(b, &c.l, c.vals)
	}
	for i, ok := range c.has {
		if ok {
			b = appendMarshalled(b, c.vals[i])
		}
	}
	return b
}

func (c *Component[T]) stageSnapshot(r *binread.Reader, gen []uint32) {
	field := fmt.Sprintf("component %q", c.name)
	n := len(gen)
	c.stHas = make([]bool, n)
	c.stVals = make([]T, n)
	c.stN = 0
	for i, b := range r.Take(field, n) {
		if b > 1 || b == 1 && gen[i]&1 == 0 {
			r.Fail(field, fmt.Errorf("slot %d has presence byte %d (0, or 1 for a live slot)", i, b))
			return
		}
		c.stHas[i] = b == 1
		c.stN += int(b)
	}
	if c.l.kind != marshalled {
		at := r.Offset()
		if src := r.Take(field, n*c.l.size); src != nil {
			if err := readCanonical(c.stVals, &c.l, src); err != nil {
				r.FailAt(at, field, err)
			}
		}
		return
	}
	for i, ok := range c.stHas {
		if ok {
			readMarshalled(r, field, i, &c.stVals[i])
		}
	}
}

// readMarshalled decodes one length-prefixed value into v.
func readMarshalled[T any](r *binread.Reader, field string, slot int, v *T) {
	at := r.Offset()
	b := r.Take(field, r.Count(field, MaxValueBytes, 1))
	if r.Err() != nil {
		return
	}
	if err := any(v).(encoding.BinaryUnmarshaler).UnmarshalBinary(b); err != nil {
		if slot >= 0 {
			err = fmt.Errorf("slot %d: %T.UnmarshalBinary: %w", slot, *v, err)
		} else {
			err = fmt.Errorf("%T.UnmarshalBinary: %w", *v, err)
		}
		r.FailAt(at, field, err)
	}
}

// MaxValueBytes caps the encoding of one variable-size value in a
// snapshot.
const MaxValueBytes = 1 << 24

func (c *Component[T]) commit() {
	c.vals, c.has, c.n = c.stVals, c.stHas, c.stN
	c.stale = true
	c.stVals, c.stHas = nil, nil
}

// componentState is a component saved by SaveState: a copy of its values
// (or of their encodings, for a marshalled type) and of its presence.
type componentState[T any] struct {
	vals []T
	has  []bool
	n    int
	enc  []byte
}

func (c *Component[T]) save(dst *any) {
	s, _ := (*dst).(*componentState[T])
	if s == nil {
		s = new(componentState[T])
		*dst = s
	}
	s.has = append(s.has[:0], c.has...)
	s.n = c.n
	if c.l.kind != marshalled {
		s.vals = append(s.vals[:0], c.vals...)
		return
	}
	s.enc = s.enc[:0]
	for i, ok := range c.has {
		if ok {
			s.enc = appendMarshalled(s.enc, c.vals[i])
		}
	}
}

// copyTo makes *dst (made on first use) a copy of s, for State.CopyFrom.
func (s *componentState[T]) copyTo(dst *any) {
	d, _ := (*dst).(*componentState[T])
	if d == nil {
		d = new(componentState[T])
		*dst = d
	}
	d.vals = append(d.vals[:0], s.vals...)
	d.has = append(d.has[:0], s.has...)
	d.n = s.n
	d.enc = append(d.enc[:0], s.enc...)
}

func (c *Component[T]) canLoad(src any) bool {
	_, ok := src.(*componentState[T])
	return ok
}

func (c *Component[T]) load(src any) {
	s := src.(*componentState[T]) // checked by canLoad
	c.has = append(c.has[:0], s.has...)
	c.n = s.n
	c.stale = true
	if c.l.kind != marshalled {
		c.vals = append(c.vals[:0], s.vals...)
		return
	}
	var zero T
	c.vals = slices.Grow(c.vals[:0], len(s.has))[:len(s.has)]
	enc := s.enc
	for i, ok := range c.has {
		c.vals[i] = zero
		if !ok {
			continue
		}
		n := int(enc[0]) | int(enc[1])<<8 | int(enc[2])<<16 | int(enc[3])<<24
		if err := any(&c.vals[i]).(encoding.BinaryUnmarshaler).UnmarshalBinary(enc[4 : 4+n]); err != nil {
			panic(fmt.Sprintf("engine: LoadState: %T.UnmarshalBinary of what its AppendBinary wrote: %v", zero, err))
		}
		enc = enc[4+n:]
	}
}

// Resource is one value of a game's own per World: a score, a match
// timer, the state of a level. Like a component it lives in the world, so
// snapshots, the state hash, replays and rollback cover it; what it may
// hold is what a component may (see NewComponent).
type Resource[T any] struct {
	name string
	l    layout
	v    T
	st   T // a snapshot decoded but not yet committed
}

// NewResource registers a resource named name with w, holding init, and
// returns it. It panics like NewComponent.
func NewResource[T any](w *World, name string, init T) *Resource[T] {
	r := &Resource[T]{name: name, l: mustLayout[T]("Resource", name), v: init}
	w.register("Resource", name, r)
	return r
}

// Name returns the name the resource was registered under.
func (r *Resource[T]) Name() string { return r.name }

// Get returns the value.
func (r *Resource[T]) Get() T { return r.v }

// Set replaces the value.
func (r *Resource[T]) Set(v T) { r.v = v }

// Ptr returns a pointer to the value, for changing it in place. It stays
// valid for the resource's life (Restore and LoadState write through it).
func (r *Resource[T]) Ptr() *T { return &r.v }

func (r *Resource[T]) schemaEntry() SchemaEntry {
	return SchemaEntry{Kind: "resource", Name: r.name, Type: r.l.typ, Size: r.l.size, Shape: r.l.shape}
}

func (r *Resource[T]) grow()         {}
func (r *Resource[T]) clearSlot(int) {}

func (r *Resource[T]) one() []T { return unsafe.Slice(&r.v, 1) }

func (r *Resource[T]) hash(h *xxh3.Hasher, scratch []byte) []byte {
	switch r.l.kind {
	case packed:
		h.Write(bytesOf(r.one()))
		return scratch
	case padded:
		scratch = appendCanonical(scratch[:0], &r.l, r.one())
	case marshalled:
		scratch = appendMarshalled(scratch[:0], r.v)
	}
	h.Write(scratch)
	return scratch
}

func (r *Resource[T]) appendSnapshot(b []byte) []byte {
	if r.l.kind == marshalled {
		return appendMarshalled(b, r.v)
	}
	return appendCanonical(b, &r.l, r.one())
}

func (r *Resource[T]) stageSnapshot(sr *binread.Reader, _ []uint32) {
	field := fmt.Sprintf("resource %q", r.name)
	var zero T
	r.st = zero
	if r.l.kind == marshalled {
		readMarshalled(sr, field, -1, &r.st)
		return
	}
	at := sr.Offset()
	if src := sr.Take(field, r.l.size); src != nil {
		if err := readCanonical(unsafe.Slice(&r.st, 1), &r.l, src); err != nil {
			sr.FailAt(at, field, err)
		}
	}
}

func (r *Resource[T]) commit() {
	var zero T
	r.v, r.st = r.st, zero
}

// resourceState is a resource saved by SaveState.
type resourceState[T any] struct {
	v   T
	enc []byte
}

func (r *Resource[T]) save(dst *any) {
	s, _ := (*dst).(*resourceState[T])
	if s == nil {
		s = new(resourceState[T])
		*dst = s
	}
	if r.l.kind == marshalled {
		s.enc = appendMarshalled(s.enc[:0], r.v)
		return
	}
	s.v = r.v
}

// copyTo makes *dst (made on first use) a copy of s, for State.CopyFrom.
func (s *resourceState[T]) copyTo(dst *any) {
	d, _ := (*dst).(*resourceState[T])
	if d == nil {
		d = new(resourceState[T])
		*dst = d
	}
	d.v = s.v
	d.enc = append(d.enc[:0], s.enc...)
}

func (r *Resource[T]) canLoad(src any) bool {
	_, ok := src.(*resourceState[T])
	return ok
}

func (r *Resource[T]) load(src any) {
	s := src.(*resourceState[T]) // checked by canLoad
	if r.l.kind != marshalled {
		r.v = s.v
		return
	}
	var zero T
	r.v = zero
	if err := any(&r.v).(encoding.BinaryUnmarshaler).UnmarshalBinary(s.enc[4:]); err != nil {
		panic(fmt.Sprintf("engine: LoadState: %T.UnmarshalBinary of what its AppendBinary wrote: %v", zero, err))
	}
}

// appendSchemaEntry appends e's portable encoding (snapshots, replays):
// kind byte (0 component, 1 resource), name and type as a length byte and
// bytes, size as int32, shape as uint64.
func appendSchemaEntry(b []byte, e SchemaEntry) []byte {
	k := byte(0)
	if e.Kind == "resource" {
		k = 1
	}
	b = append(b, k, byte(len(e.Name)))
	b = append(b, e.Name...)
	b = append(b, byte(len(e.Type)))
	b = append(b, e.Type...)
	b = binary.LittleEndian.AppendUint32(b, uint32(int32(e.Size)))
	return binary.LittleEndian.AppendUint64(b, e.Shape)
}

// AppendSchema appends the portable encoding of s to b: the number of
// entries (uint16), then for each its kind (uint8: 0 component, 1
// resource), name and type (a length byte and the bytes), size (int32,
// -1 for variable-size values) and shape (uint64). Snapshots and replay headers carry it.
func AppendSchema(b []byte, s Schema) []byte {
	b = append(b, byte(len(s)), byte(len(s)>>8))
	for _, e := range s {
		b = appendSchemaEntry(b, e)
	}
	return b
}

// ParseSchema reads a schema AppendSchema wrote at the start of b and
// returns it with the number of bytes it took.
func ParseSchema(b []byte) (Schema, int, error) {
	r := binread.New(b)
	s := readSchema(&r, "schema")
	if err := r.Err(); err != nil {
		return nil, 0, fmt.Errorf("byte %d: %w", err.Offset, err.Err)
	}
	return s, r.Offset(), nil
}

// readSchema reads a schema (see AppendSchema), checking every entry.
func readSchema(r *binread.Reader, field string) Schema {
	n := int(r.U16(field))
	if r.Err() != nil {
		return nil
	}
	if n > MaxColumns {
		r.Fail(field, fmt.Errorf("%d entries, at most %d allowed", n, MaxColumns))
		return nil
	}
	s := make(Schema, 0, min(n, r.Left()/7))
	for range n {
		var e SchemaEntry
		switch k := r.U8(field); {
		case r.Err() != nil:
			return nil
		case k > 1:
			r.Fail(field, fmt.Errorf("entry %d has kind %d (0 component, 1 resource)", len(s), k))
			return nil
		case k == 0:
			e.Kind = "component"
		default:
			e.Kind = "resource"
		}
		at := r.Offset()
		e.Name = string(r.Take(field, int(r.U8(field))))
		e.Type = string(r.Take(field, int(r.U8(field))))
		e.Size = int(int32(r.U32(field)))
		e.Shape = r.U64(field)
		switch {
		case r.Err() != nil:
			return nil
		case !printable(e.Name) || !printable(e.Type) || e.Name == "" || e.Type == "":
			r.FailAt(at, field, fmt.Errorf("entry %d has name %q and type %q (non-empty printable text wanted)", len(s), e.Name, e.Type))
			return nil
		case e.Size < -1:
			r.FailAt(at, field, fmt.Errorf("entry %d (%q) has size %d (-1 or more wanted)", len(s), e.Name, e.Size))
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
