package engine

import (
	"fmt"
	"iter"
)

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
// it is plain. UnmarshalBinary must replace the whole value: LoadState
// decodes into the value already in the slot, so that one reusing its
// slices' memory allocates nothing once they have grown. NewComponent panics, with a message that starts "engine:",
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

func mustLayout[T any](kind, name string) layout {
	l, err := layoutOf[T]()
	if err != nil {
		panic(fmt.Sprintf("engine: New%s(%q): %v", kind, name, err))
	}
	return l
}
