package engine

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"
)

// Component and resource types of the tests.

// padStruct has padding: 7 bytes of fields in 12 of memory (on 64- and
// 32-bit machines alike).
type padStruct struct {
	A uint8
	B uint32
	C uint16
}

// status has padding and a bool field.
type status struct {
	Alive  bool
	Level  uint8
	Energy float32
	Ticks  uint16
}

// tally has padding, and an 8-byte field aligned differently on 386.
type tally struct {
	Kills uint16
	Total uint64
}

// blankField has a blank field.
type blankField struct {
	A uint16
	_ [2]byte
	B uint32
}

// tag is a zero-size marker.
type tag struct{}

// nested nests arrays and structs, with padding and bools inside.
type nested struct {
	P   padStruct
	V   mgl32.Vec3
	Arr [2]status
	C   complex64
}

type level int32 // a named sized integer

// path is a waypoint route: variable-size, encoded by itself.
type path struct{ pts []mgl32.Vec3 }

func (p path) AppendBinary(b []byte) ([]byte, error) {
	for _, v := range p.pts {
		for _, f := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
	}
	return b, nil
}

func (p *path) UnmarshalBinary(b []byte) error {
	if len(b)%12 != 0 {
		return fmt.Errorf("%d bytes, not a whole number of 12-byte points", len(b))
	}
	p.pts = make([]mgl32.Vec3, len(b)/12)
	for i := range p.pts {
		for a := range 3 {
			p.pts[i][a] = math.Float32frombits(binary.LittleEndian.Uint32(b[12*i+4*a:]))
		}
	}
	return nil
}

// appendOnly encodes itself but cannot decode itself.
type appendOnly []byte

func (a appendOnly) AppendBinary(b []byte) ([]byte, error) { return append(b, a...), nil }

type withString struct {
	HP   int32
	Name string
}

type withPointer struct {
	HP   int32
	Next *withPointer
}

type withNestedSlice struct {
	HP    int32
	Inner struct{ Path []int32 }
}

// panicOf runs f and returns what it panicked with.
func panicOf(f func()) (msg string, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			msg, panicked = fmt.Sprint(v), true
		}
	}()
	f()
	return "", false
}

func newEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestComponentSetGetHasRemovePtrLen(t *testing.T) {
	w := NewWorld(1)
	a := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate) // slot 0, like the zero Entity
	b := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	c := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	hp := NewComponent[int32](w, "health")

	if hp.Name() != "health" || hp.Len() != 0 || hp.Has(a) || hp.Ptr(a) != nil {
		t.Fatalf("new component: name %q len %d has %v ptr %v; want health, 0, false, nil", hp.Name(), hp.Len(), hp.Has(a), hp.Ptr(a))
	}
	if v, ok := hp.Get(a); ok || v != 0 {
		t.Errorf("Get before Set = %d, %v; want 0, false", v, ok)
	}
	if !hp.Set(a, 10) || !hp.Set(c, 30) {
		t.Fatal("Set on a live entity returned false")
	}
	if !hp.Set(a, 11) { // replaces
		t.Fatal("Set replacing a value returned false")
	}
	if hp.Len() != 2 {
		t.Errorf("Len = %d after setting 2 entities (one twice), want 2", hp.Len())
	}
	for _, tc := range []struct {
		e    Entity
		want int32
		has  bool
	}{{a, 11, true}, {b, 0, false}, {c, 30, true}} {
		if v, ok := hp.Get(tc.e); v != tc.want || ok != tc.has || hp.Has(tc.e) != tc.has {
			t.Errorf("entity %v: Get = %d, %v, Has = %v; want %d, %v", tc.e, v, ok, hp.Has(tc.e), tc.want, tc.has)
		}
	}
	p := hp.Ptr(a)
	if p == nil {
		t.Fatal("Ptr of an entity with the component is nil")
	}
	*p = 12
	if v, _ := hp.Get(a); v != 12 {
		t.Errorf("Get after writing 12 through Ptr = %d", v)
	}
	if hp.Ptr(b) != nil {
		t.Error("Ptr of an entity without the component is not nil")
	}

	if !hp.Remove(a) {
		t.Error("Remove of a present component returned false")
	}
	if hp.Remove(a) || hp.Remove(b) {
		t.Error("Remove of an absent component returned true")
	}
	if v, ok := hp.Get(a); ok || v != 0 || hp.Has(a) || hp.Ptr(a) != nil || hp.Len() != 1 {
		t.Errorf("after Remove: Get = %d, %v, Has %v, Ptr %v, Len %d; want 0, false, false, nil, 1", v, ok, hp.Has(a), hp.Ptr(a), hp.Len())
	}
	if vals, has := hp.Slices(); vals[a.Index()] != 0 || has[a.Index()] {
		t.Errorf("after Remove the storage holds %d, %v; want 0, false", vals[a.Index()], has[a.Index()])
	}

	// The zero Entity (slot 0, generation 0) is never alive, though slot 0
	// holds a live entity.
	hp.Set(a, 5)
	var zero Entity
	if hp.Set(zero, 99) || hp.Has(zero) || hp.Ptr(zero) != nil || hp.Remove(zero) {
		t.Error("Set, Has, Ptr or Remove accepted the zero Entity")
	}
	if v, ok := hp.Get(zero); ok || v != 0 {
		t.Errorf("Get(zero Entity) = %d, %v; want 0, false", v, ok)
	}
	if v, _ := hp.Get(a); v != 5 || hp.Len() != 2 {
		t.Errorf("the zero Entity reached slot 0: its value %d (want 5), Len %d (want 2)", v, hp.Len())
	}
}

// All yields the live entities that have the component, in slot order,
// with their generations; breaking out of the loop stops it.
func TestComponentAllInSlotOrder(t *testing.T) {
	w := NewWorld(1)
	hp := NewComponent[int32](w, "health")
	var ents []Entity
	for range 8 {
		ents = append(ents, w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate))
	}
	// Set out of slot order; give slot 1 the component and then despawn it;
	// reuse slot 3 (despawned with the component) for a new entity.
	for _, i := range []int{6, 1, 3, 0, 4} {
		hp.Set(ents[i], int32(100+i))
	}
	w.Despawn(ents[1])
	w.Despawn(ents[3])
	reused := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	if reused.Index() != 3 {
		t.Fatalf("the new entity took slot %d, want 3", reused.Index())
	}
	hp.Set(reused, 7)

	type pair struct {
		e Entity
		v int32
	}
	var got []pair
	for e, v := range hp.All() {
		got = append(got, pair{e, v})
	}
	want := []pair{{ents[0], 100}, {reused, 7}, {ents[4], 104}, {ents[6], 106}}
	if !slices.Equal(got, want) {
		t.Errorf("All yielded %v, want %v", got, want)
	}
	n := 0
	for range hp.All() {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("breaking out of All after 2 gave %d iterations", n)
	}
	if vals, has := hp.Slices(); len(vals) != w.Slots() || len(has) != w.Slots() {
		t.Errorf("Slices have %d and %d elements, want World.Slots() = %d", len(vals), len(has), w.Slots())
	}
}

func TestComponentIterationDoesNotAllocate(t *testing.T) {
	w := NewWorld(1)
	hp := NewComponent[int32](w, "health")
	st := NewComponent[status](w, "status")
	for i := range 100 {
		e := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
		if i%3 != 0 {
			hp.Set(e, int32(i))
			st.Set(e, status{Alive: true, Level: uint8(i)})
		}
	}
	var sum int64
	all := func() {
		for e, v := range hp.All() {
			sum += int64(v) + int64(e.Index())
		}
		for _, v := range st.All() {
			sum += int64(v.Level)
		}
	}
	if a := testing.AllocsPerRun(100, all); a != 0 {
		t.Errorf("ranging over All allocates %v times per run, want 0", a)
	}
	slicesLoop := func() {
		vals, has := hp.Slices()
		for i, ok := range has {
			if ok {
				sum += int64(vals[i])
			}
		}
		svals, shas := st.Slices()
		for i, ok := range shas {
			if ok {
				svals[i].Ticks++
			}
		}
	}
	if a := testing.AllocsPerRun(100, slicesLoop); a != 0 {
		t.Errorf("iterating over Slices allocates %v times per run, want 0", a)
	}
	if sum == 0 {
		t.Error("the loops saw no value")
	}
}

// Despawn takes an entity's components; a stale Entity never reaches the
// entity that reused its slot, which starts with no components.
func TestComponentEntityLife(t *testing.T) {
	w := NewWorld(1)
	others := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	hp := NewComponent[int32](w, "health")
	st := NewComponent[status](w, "status")
	route := NewComponent[path](w, "route")
	old := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	hp.Set(old, 40)
	st.Set(old, status{Alive: true, Level: 3, Energy: 1.5, Ticks: 9})
	route.Set(old, path{pts: []mgl32.Vec3{{1, 2, 3}}})
	hp.Set(others, 1)

	w.Despawn(old)
	if hp.Len() != 1 || st.Len() != 0 || route.Len() != 0 {
		t.Errorf("after despawn Len = %d, %d, %d; want 1, 0, 0", hp.Len(), st.Len(), route.Len())
	}
	if _, ok := hp.Get(old); ok {
		t.Error("Get of a despawned entity succeeded")
	}
	i := old.Index()
	if vals, has := hp.Slices(); vals[i] != 0 || has[i] {
		t.Errorf("despawned slot holds health %d, %v; want 0, false", vals[i], has[i])
	}
	if vals, has := st.Slices(); vals[i] != (status{}) || has[i] {
		t.Errorf("despawned slot holds status %+v, %v; want zero, false", vals[i], has[i])
	}
	if vals, has := route.Slices(); vals[i].pts != nil || has[i] {
		t.Errorf("despawned slot holds route %v, %v; want nil, false", vals[i].pts, has[i])
	}

	reused := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	if reused.Index() != old.Index() {
		t.Fatalf("slot not reused: old %v new %v", old, reused)
	}
	if hp.Has(reused) || st.Has(reused) || route.Has(reused) {
		t.Error("an entity in a reused slot starts with components")
	}
	if hp.Set(old, 666) || st.Set(old, status{Level: 6}) || route.Set(old, path{}) {
		t.Error("Set with a stale Entity returned true")
	}
	if hp.Has(reused) || st.Has(reused) || route.Has(reused) || hp.Len() != 1 {
		t.Error("Set with a stale Entity gave the new entity a component")
	}
	hp.Set(reused, 7)
	st.Set(reused, status{Level: 1})
	if hp.Set(old, 666) || hp.Remove(old) || hp.Ptr(old) != nil || hp.Has(old) {
		t.Error("Set, Remove, Ptr or Has accepted a stale Entity")
	}
	if v, ok := hp.Get(old); ok || v != 0 {
		t.Errorf("Get with a stale Entity = %d, %v; want 0, false (the new entity has 7)", v, ok)
	}
	if v, ok := hp.Get(reused); v != 7 || !ok {
		t.Errorf("a stale Entity changed the new entity's health to %d, %v; want 7", v, ok)
	}
	if v, _ := st.Get(reused); v != (status{Level: 1}) {
		t.Errorf("the new entity's status is %+v, want {Level: 1}", v)
	}

	// A component registered after entities were spawned (and one
	// despawned) works for them, and for entities spawned later.
	dead := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	w.Despawn(dead)
	late := NewComponent[padStruct](w, "late")
	if vals, has := late.Slices(); len(vals) != w.Slots() || len(has) != w.Slots() {
		t.Fatalf("a late component has %d slots, the world %d", len(vals), w.Slots())
	}
	if !late.Set(others, padStruct{1, 2, 3}) || !late.Set(reused, padStruct{A: 4}) || late.Set(dead, padStruct{A: 9}) {
		t.Error("Set on a late component: wrong result for a live or a dead entity")
	}
	newer := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate) // reuses dead's slot
	more := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)  // a new slot
	if late.Has(newer) || late.Has(more) {
		t.Error("entities spawned after a late component start with it")
	}
	late.Set(more, padStruct{C: 5})
	if v, ok := late.Get(others); v != (padStruct{1, 2, 3}) || !ok {
		t.Errorf("late component of an early entity = %+v, %v", v, ok)
	}
	if v, ok := late.Get(more); v != (padStruct{C: 5}) || !ok || late.Len() != 3 {
		t.Errorf("late component of a new entity = %+v, %v, Len %d; want {C: 5}, true, 3", v, ok, late.Len())
	}
}

// Every type a component or resource may not hold is refused with a
// message that starts "engine:", names the type and says what is
// accepted; so are empty and duplicate names. A refused registration
// leaves the world's schema as it was.
func TestRegistrationRefusals(t *testing.T) {
	const acceptedText = "fixed-size plain data"
	for _, tc := range []struct {
		name     string
		register func(w *World)
		want     []string
	}{
		{"pointer", func(w *World) { NewComponent[*int32](w, "x") }, []string{`NewComponent("x")`, "*int32", acceptedText}},
		{"map", func(w *World) { NewComponent[map[int32]int32](w, "x") }, []string{"map[int32]int32", acceptedText}},
		{"string", func(w *World) { NewComponent[string](w, "x") }, []string{"type string", acceptedText}},
		{"slice", func(w *World) { NewComponent[[]int32](w, "x") }, []string{"[]int32", acceptedText}},
		{"chan", func(w *World) { NewComponent[chan int32](w, "x") }, []string{"chan int32", acceptedText}},
		{"func", func(w *World) { NewComponent[func()](w, "x") }, []string{"func()", acceptedText}},
		{"any", func(w *World) { NewComponent[any](w, "x") }, []string{"interface {}", acceptedText}},
		{"error", func(w *World) { NewComponent[error](w, "x") }, []string{"type error", acceptedText}},
		{"int", func(w *World) { NewComponent[int](w, "x") }, []string{"type int ", "sized integers"}},
		{"uint", func(w *World) { NewComponent[uint](w, "x") }, []string{"type uint ", "sized integers"}},
		{"uintptr", func(w *World) { NewComponent[uintptr](w, "x") }, []string{"type uintptr ", acceptedText}},
		{"struct with a string", func(w *World) { NewComponent[withString](w, "x") }, []string{"engine.withString", "Name", acceptedText}},
		{"struct with a pointer", func(w *World) { NewComponent[withPointer](w, "x") }, []string{"engine.withPointer", "Next", acceptedText}},
		{"struct with a slice deep inside", func(w *World) { NewComponent[withNestedSlice](w, "x") }, []string{"engine.withNestedSlice", "Inner", acceptedText}},
		{"array of strings", func(w *World) { NewComponent[[2]string](w, "x") }, []string{"[2]string", acceptedText}},
		{"BinaryAppender only", func(w *World) { NewComponent[appendOnly](w, "x") }, []string{"engine.appendOnly", "encoding.BinaryUnmarshaler", acceptedText}},
		{"resource string", func(w *World) { NewResource(w, "x", "") }, []string{`NewResource("x")`, "type string", acceptedText}},
		{"resource pointer", func(w *World) { NewResource[*tally](w, "x", nil) }, []string{`NewResource("x")`, "*engine.tally", acceptedText}},
		{"resource BinaryAppender only", func(w *World) { NewResource(w, "x", appendOnly{}) }, []string{"engine.appendOnly", acceptedText}},
		{"duplicate component", func(w *World) { NewComponent[float32](w, "health") }, []string{`NewComponent("health")`, `already registered, as component "health" int32`}},
		{"component named as a resource", func(w *World) { NewComponent[int64](w, "score") }, []string{`NewComponent("score")`, `already registered, as resource "score" int64`}},
		{"resource named as a component", func(w *World) { NewResource[int32](w, "health", 0) }, []string{`NewResource("health")`, `already registered, as component "health" int32`}},
		{"duplicate resource", func(w *World) { NewResource[int64](w, "score", 0) }, []string{`NewResource("score")`, `already registered, as resource "score" int64`}},
		{"empty component name", func(w *World) { NewComponent[int32](w, "") }, []string{"NewComponent", "name is empty"}},
		{"empty resource name", func(w *World) { NewResource[int32](w, "", 0) }, []string{"NewResource", "name is empty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := NewWorld(1)
			w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
			NewComponent[int32](w, "health")
			NewResource[int64](w, "score", 0)
			before := w.Schema()
			msg, panicked := panicOf(func() { tc.register(w) })
			if !panicked {
				t.Fatal("registered, want a panic")
			}
			if !strings.HasPrefix(msg, "engine: ") {
				t.Errorf("panic %q does not start with \"engine: \"", msg)
			}
			for _, s := range tc.want {
				if !strings.Contains(msg, s) {
					t.Errorf("panic %q does not contain %q", msg, s)
				}
			}
			if got := w.Schema(); !slices.Equal(got, before) {
				t.Errorf("a refused registration changed the schema to %v", got)
			}
		})
	}
}

// acceptedType registers a component and a resource of one accepted type,
// and sets and reads them through any.
type acceptedType struct {
	name  string
	value any // what the test stores
	size  int // the schema's size of the type
	reg   func(w *World, set bool) (setC func(Entity), getC func(Entity) (any, bool), getR func() any)
}

func accept[T any](name string, v T, size int) acceptedType {
	return acceptedType{name, v, size, func(w *World, set bool) (func(Entity), func(Entity) (any, bool), func() any) {
		c := NewComponent[T](w, name)
		var init T
		if set {
			init = v
		}
		r := NewResource(w, "r:"+name, init)
		return func(e Entity) { c.Set(e, v) },
			func(e Entity) (any, bool) { x, ok := c.Get(e); return x, ok },
			func() any { return r.Get() }
	}}
}

// Every kind of accepted type registers, with the size its canonical
// encoding has, and its values survive a snapshot into a fresh engine.
func TestRegistrationAccepts(t *testing.T) {
	types := []acceptedType{
		accept("bool", true, 1),
		accept("int8", int8(-3), 1),
		accept("int16", int16(-300), 2),
		accept("int32", int32(-70000), 4),
		accept("int64", int64(math.MinInt64), 8),
		accept("uint8", uint8(200), 1),
		accept("uint16", uint16(65000), 2),
		accept("uint32", uint32(1<<31+5), 4),
		accept("uint64", uint64(math.MaxUint64-1), 8),
		accept("float32", float32(-1.5e-40), 4),
		accept("float64", math.Inf(-1), 8),
		accept("complex64", complex64(complex(1, -2)), 8),
		accept("complex128", complex(3, 4e300), 16),
		accept("named int32", level(-9), 4),
		accept("array", [3]uint16{1, 2, 3}, 6),
		accept("array of bools", [3]bool{true, false, true}, 3),
		accept("nested", nested{P: padStruct{1, 2, 3}, V: mgl32.Vec3{4, 5, 6}, Arr: [2]status{{Alive: true, Level: 7, Energy: 8, Ticks: 9}, {Energy: -1}}, C: complex(10, 11)}, 7+12+2*8+8),
		accept("padded", padStruct{A: 0xff, B: 0xdeadbeef, C: 0xabcd}, 7),
		accept("array of padded", [2]padStruct{{A: 1}, {B: 2}}, 14),
		accept("padded with bool", status{Alive: true, Level: 2, Energy: 3, Ticks: 4}, 8),
		accept("tally", tally{Kills: 1, Total: 1 << 40}, 10),
		accept("blank field", blankField{A: 1, B: 2}, 8),
		accept("tag", tag{}, 0),
		accept("vec3", mgl32.Vec3{1, 2, 3}, 12),
		accept("quat", mgl32.Quat{W: 1, V: mgl32.Vec3{0, 0, 0}}, 16),
		accept("path", path{pts: []mgl32.Vec3{{1, 2, 3}, {4, 5, 6}}}, -1),
		accept("empty path", path{pts: []mgl32.Vec3{}}, -1),
	}
	build := func(set bool) (*Engine, Entity, Entity, []func(Entity), []func(Entity) (any, bool), []func() any) {
		e := newEngine(t)
		a := e.World.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
		b := e.World.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
		var sets []func(Entity)
		var gets []func(Entity) (any, bool)
		var res []func() any
		for _, ty := range types {
			var s func(Entity)
			var g func(Entity) (any, bool)
			var r func() any
			if msg, panicked := panicOf(func() { s, g, r = ty.reg(e.World, set) }); panicked {
				t.Fatalf("%s refused: %s", ty.name, msg)
			}
			sets, gets, res = append(sets, s), append(gets, g), append(res, r)
		}
		return e, a, b, sets, gets, res
	}
	src, a, b, sets, _, _ := build(true)
	for _, s := range sets {
		s(a)
	}
	schema := src.World.Schema()
	for i, ty := range types {
		for _, e := range schema[2*i : 2*i+2] {
			if e.Size != ty.size {
				t.Errorf("%s: schema entry %v has size %d, want %d", ty.name, e, e.Size, ty.size)
			}
		}
		if ty.size >= 0 {
			if got := binary.Size(ty.value); got != ty.size {
				t.Errorf("%s: encoding/binary.Size = %d, the test wants %d", ty.name, got, ty.size)
			}
		}
	}
	snap := src.Snapshot()

	dst, _, _, _, gets, res := build(false)
	if err := dst.Restore(snap); err != nil {
		t.Fatal(err)
	}
	for i, ty := range types {
		if v, ok := gets[i](a); !ok || !reflect.DeepEqual(v, ty.value) {
			t.Errorf("%s: restored component %#v, %v; want %#v", ty.name, v, ok, ty.value)
		}
		if v, ok := gets[i](b); ok {
			t.Errorf("%s: restored an entity without it to %#v", ty.name, v)
		}
		if v := res[i](); !reflect.DeepEqual(v, ty.value) {
			t.Errorf("%s: restored resource %#v, want %#v", ty.name, v, ty.value)
		}
	}
	if dst.World.Hash() != src.World.Hash() {
		t.Error("the restored world hashes differently from the original")
	}
	if again := dst.Snapshot(); string(again) != string(snap) {
		t.Error("the restored engine's snapshot differs from the one restored")
	}
}

// hashWorld is a world with a packed, a padded and a variable-size
// component, and a resource of each kind.
type hashWorld struct {
	e       *Engine
	ents    []Entity
	hp      *Component[int32]
	pad     *Component[padStruct]
	route   *Component[path]
	score   *Resource[int64]
	padRes  *Resource[padStruct]
	pathRes *Resource[path]
}

func buildHashWorld(t testing.TB) *hashWorld {
	h := &hashWorld{e: newEngine(t)}
	w := h.e.World
	for i := range 5 {
		h.ents = append(h.ents, w.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0, 0}), Interpolate))
	}
	h.hp = NewComponent[int32](w, "health")
	h.pad = NewComponent[padStruct](w, "pad")
	h.route = NewComponent[path](w, "route")
	h.score = NewResource(w, "score", int64(1000))
	h.padRes = NewResource(w, "padres", padStruct{A: 1, B: 2, C: 3})
	h.pathRes = NewResource(w, "pathres", path{pts: []mgl32.Vec3{{7, 8, 9}}})
	// ents[0] has everything, ents[1] health 0 (present), ents[2] nothing,
	// ents[3] is despawned, ents[4] has a padded value of zero.
	h.hp.Set(h.ents[0], 100)
	h.hp.Set(h.ents[1], 0)
	h.pad.Set(h.ents[0], padStruct{A: 0x12, B: 0x3456789a, C: 0xbcde})
	h.pad.Set(h.ents[4], padStruct{})
	h.route.Set(h.ents[0], path{pts: []mgl32.Vec3{{1, 2, 3}, {4, 5, 6}}})
	h.route.Set(h.ents[1], path{pts: []mgl32.Vec3{}})
	w.Despawn(h.ents[3])
	return h
}

func flipBit(f *float32, bit uint) { *f = math.Float32frombits(math.Float32bits(*f) ^ 1<<bit) }

// padBytes returns the offsets of padStruct's padding bytes.
func padBytes() []uintptr {
	var v padStruct
	field := make([]bool, unsafe.Sizeof(v))
	for _, f := range [][2]uintptr{
		{unsafe.Offsetof(v.A), unsafe.Sizeof(v.A)},
		{unsafe.Offsetof(v.B), unsafe.Sizeof(v.B)},
		{unsafe.Offsetof(v.C), unsafe.Sizeof(v.C)},
	} {
		for i := f[0]; i < f[0]+f[1]; i++ {
			field[i] = true
		}
	}
	var pad []uintptr
	for i, ok := range field {
		if !ok {
			pad = append(pad, uintptr(i))
		}
	}
	return pad
}

// scribble writes garbage into the padding of *v.
func scribble(v *padStruct, pad []uintptr) {
	mem := unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v))
	for _, off := range pad {
		mem[off] = 0xa5 ^ byte(off)
	}
}

// The state hash covers every bit of every component and resource value
// and the presence of components, and nothing of the padding.
func TestComponentHashCoversEveryBit(t *testing.T) {
	h0 := buildHashWorld(t).e.World.Hash()
	if again := buildHashWorld(t).e.World.Hash(); again != h0 {
		t.Fatalf("the same world built twice hashes %016x and %016x", h0, again)
	}
	// The hash is the same on every machine: this golden value was computed
	// on amd64 and holds on 386 (GOARCH=386 go test), where padStruct's and
	// the world's memory layout differ.
	const golden = 0x4a369c7fc444ee72 // with the players (player 0) and the meshes
	if h0 != golden {
		t.Errorf("hash %016x, golden %016x", h0, uint64(golden))
	}

	changes := map[string]func(h *hashWorld){
		"packed value, bit 0":                    func(h *hashWorld) { *h.hp.Ptr(h.ents[0]) ^= 1 },
		"packed value, bit 31":                   func(h *hashWorld) { *h.hp.Ptr(h.ents[0]) ^= -1 << 31 },
		"padded field A":                         func(h *hashWorld) { h.pad.Ptr(h.ents[0]).A ^= 1 << 7 },
		"padded field B":                         func(h *hashWorld) { h.pad.Ptr(h.ents[0]).B ^= 1 },
		"padded field B high":                    func(h *hashWorld) { h.pad.Ptr(h.ents[0]).B ^= 1 << 31 },
		"padded field C":                         func(h *hashWorld) { h.pad.Ptr(h.ents[4]).C ^= 1 << 15 },
		"marshalled value":                       func(h *hashWorld) { flipBit(&h.route.Ptr(h.ents[0]).pts[1][2], 0) },
		"marshalled sign":                        func(h *hashWorld) { flipBit(&h.route.Ptr(h.ents[0]).pts[0][0], 31) },
		"marshalled length":                      func(h *hashWorld) { p := h.route.Ptr(h.ents[0]); p.pts = p.pts[:1] },
		"packed presence added (zero value)":     func(h *hashWorld) { h.hp.Set(h.ents[2], 0) },
		"packed presence removed (zero value)":   func(h *hashWorld) { h.hp.Remove(h.ents[1]) },
		"padded presence added (zero value)":     func(h *hashWorld) { h.pad.Set(h.ents[2], padStruct{}) },
		"padded presence removed (zero value)":   func(h *hashWorld) { h.pad.Remove(h.ents[4]) },
		"marshalled presence added (empty path)": func(h *hashWorld) { h.route.Set(h.ents[2], path{}) },
		"marshalled presence removed (empty)":    func(h *hashWorld) { h.route.Remove(h.ents[1]) },
		"packed resource":                        func(h *hashWorld) { h.score.Set(h.score.Get() ^ 1<<62) },
		"padded resource field C":                func(h *hashWorld) { h.padRes.Ptr().C ^= 1 },
		"marshalled resource":                    func(h *hashWorld) { flipBit(&h.pathRes.Ptr().pts[0][1], 22) },
		"marshalled resource length": func(h *hashWorld) {
			h.pathRes.Set(path{pts: append(h.pathRes.Get().pts, mgl32.Vec3{})})
		},
		"despawn of an entity with components": func(h *hashWorld) { h.e.World.Despawn(h.ents[0]) },
	}
	for name, change := range changes {
		h := buildHashWorld(t)
		change(h)
		if h.e.World.Hash() == h0 {
			t.Errorf("changing the %s did not change the hash", name)
		}
	}

	// Garbage in the padding changes neither the hash nor the snapshot.
	pad := padBytes()
	if len(pad) == 0 {
		t.Fatal("padStruct has no padding on this machine; the test needs some")
	}
	h := buildHashWorld(t)
	snap := h.e.Snapshot()
	vals, _ := h.pad.Slices()
	for i := range vals {
		scribble(&vals[i], pad)
	}
	scribble(h.padRes.Ptr(), pad)
	if got := h.e.World.Hash(); got != h0 {
		t.Errorf("garbage in the padding changed the hash from %016x to %016x", h0, got)
	}
	if got := h.e.Snapshot(); string(got) != string(snap) {
		t.Error("garbage in the padding changed the snapshot")
	}
	// The control: the scribbled bytes are in the values hashed.
	h.pad.Ptr(h.ents[0]).C ^= 1
	if h.e.World.Hash() == h0 {
		t.Error("a field change after the garbage did not change the hash")
	}

	// The same components and values, registered in another order.
	build := func(swap bool) uint64 {
		w := NewWorld(1)
		e := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
		var hp *Component[int32]
		var pd *Component[padStruct]
		if swap {
			pd = NewComponent[padStruct](w, "pad")
			hp = NewComponent[int32](w, "health")
		} else {
			hp = NewComponent[int32](w, "health")
			pd = NewComponent[padStruct](w, "pad")
		}
		hp.Set(e, 5)
		pd.Set(e, padStruct{A: 1})
		return w.Hash()
	}
	first, again, swapped := build(false), build(false), build(true)
	if first != again {
		t.Error("the same world hashes differently")
	}
	if first == swapped {
		t.Error("registering the same components in another order did not change the hash")
	}
}

// compGame is snapScene with game components and resources in use by a
// fixed system: a packed health, a padded status with a bool field, a
// variable-size route, a padded tally and a variable-size resource. The
// system reads and writes them, spawns and despawns, and spawns a wave of
// 40, 80, 120... entities at ticks 50, 150, 250... (each of which grows
// the slot count).
type compGame struct {
	*Engine
	health *Component[int32]
	status *Component[status]
	route  *Component[path]
	tally  *Resource[tally]
	last   *Resource[path]
}

func compScene(t testing.TB) *compGame {
	t.Helper()
	return withComponents(snapScene(t, JobsDeterministic))
}

// withComponents registers compGame's components, resources and system
// with e.
func withComponents(e *Engine) *compGame {
	g := &compGame{Engine: e}
	w := g.World
	g.health = NewComponent[int32](w, "health")
	g.status = NewComponent[status](w, "status")
	g.route = NewComponent[path](w, "route")
	g.tally = NewResource(w, "tally", tally{Kills: 1})
	g.last = NewResource(w, "last", path{})
	for i := range w.Slots() {
		if e, ok := w.EntityAt(i); ok && i%2 == 0 {
			g.health.Set(e, int32(60+i))
		}
	}
	g.AddSystem(StageScripts, "game", g.system)
	return g
}

// fuzzScene is a small engine of compScene's schema and job kind, for
// FuzzRestore: its snapshots are a few kilobytes, so the fuzzer mutates
// and minimizes them quickly. Its own system spawns and despawns, and
// submits jobs with latencies of 1 to 6 ticks.
func fuzzScene(t testing.TB) *compGame {
	t.Helper()
	e := newEngine(t)
	kind := e.Jobs.Register("nudge", func(in []byte, live bool) []byte {
		return binary.LittleEndian.AppendUint32(nil, uint32(len(in)))
	}, func(c *FixedContext, in, out []byte) {
		if ent, ok := c.World.EntityAt(len(out) % c.World.Slots()); ok {
			c.World.SetDrawVelocity(ent, mgl32.Vec3{float32(len(in)), 0, 1}, mgl32.Vec3{})
		}
	})
	for i := range 4 {
		e.World.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0, 0}), DrawMode(i%3))
	}
	e.AddSystem(StageScripts, "life", func(c *FixedContext) {
		w, r := c.World, c.World.RNG()
		if c.Tick%4 == 0 {
			w.Spawn(geom.NewTransform(mgl32.Vec3{r.Range(-3, 3), 0, 0}), Hermite)
		}
		if c.Tick%5 == 0 {
			if ent, ok := w.EntityAt(r.Intn(w.Slots())); ok {
				w.Despawn(ent)
			}
		}
		if c.Tick%7 == 0 {
			if ent, ok := w.EntityAt(0); ok {
				w.Teleport(ent, geom.NewTransform(mgl32.Vec3{0, 1, 0}))
			}
		}
		if c.Tick%3 == 0 {
			c.Jobs.Submit(kind, binary.LittleEndian.AppendUint64(nil, r.Uint64()), uint32(1+r.Intn(6)))
		}
	})
	return withComponents(e)
}

// lens returns the Len of each component.
func (g *compGame) lens() [3]int { return [3]int{g.health.Len(), g.status.Len(), g.route.Len()} }

func (g *compGame) system(c *FixedContext) {
	w, r := c.World, c.World.RNG()
	if c.Tick%100 == 50 {
		for range 40 * (1 + c.Tick/100) {
			w.Spawn(geom.NewTransform(mgl32.Vec3{r.Range(-5, 5), 0, 0}), Interpolate)
		}
	}
	b := w.Bodies()
	// Newcomers get health, a status and a route.
	for i := range w.Slots() {
		e, ok := w.EntityAt(i)
		if !ok || g.health.Has(e) {
			continue
		}
		g.health.Set(e, int32(40+r.Intn(120)))
		g.status.Set(e, status{Alive: true, Level: uint8(c.Tick % 7), Energy: b.Pos[i][0]})
		g.route.Set(e, path{pts: []mgl32.Vec3{b.Pos[i]}})
	}
	// Status changes with velocity, and flips every 10 ticks of its life.
	sv, sh := g.status.Slices()
	for i, ok := range sh {
		if !ok {
			continue
		}
		s := &sv[i]
		s.Ticks++
		s.Energy = float32(b.Vel[i][0]*c.DT) + s.Energy
		if s.Ticks%10 == 0 {
			s.Alive = !s.Alive
			s.Level = (s.Level + 1) % 9
		}
	}
	// Damage: 1, plus the level when the status says alive; the dead are
	// despawned.
	t := g.tally.Ptr()
	hp, hh := g.health.Slices()
	for i, ok := range hh {
		if !ok {
			continue
		}
		d := int32(1)
		e, _ := w.EntityAt(i)
		if s, ok := g.status.Get(e); ok && s.Alive {
			d += int32(s.Level)
		}
		if hp[i] -= d; hp[i] <= 0 {
			w.Despawn(e)
			t.Kills++
		}
	}
	// Every 6 ticks a random slot loses its status.
	if c.Tick%6 == 0 {
		if e, ok := w.EntityAt(r.Intn(w.Slots())); ok {
			g.status.Remove(e)
		}
	}
	// Routes grow every 4 ticks, keeping the last 5 waypoints.
	for e := range g.route.All() {
		p := g.route.Ptr(e)
		t.Total += uint64(len(p.pts))
		if c.Tick%4 == 0 {
			keep := p.pts[max(0, len(p.pts)-4):]
			np := make([]mgl32.Vec3, 0, len(keep)+1)
			p.pts = append(append(np, keep...), b.Pos[e.Index()])
		}
	}
	// Health steers: the weak go up, and the last resource holds the
	// places of up to 3 of the strongest (the first in slot order).
	var top []mgl32.Vec3
	for e, v := range g.health.All() {
		if v < 20 {
			lin, ang := w.DrawVelocity(e)
			lin[1] = float32(v) * 0.05
			w.SetDrawVelocity(e, lin, ang)
		}
		if v > 100 && len(top) < 3 {
			top = append(top, w.Transform(e).Pos)
		}
	}
	g.last.Set(path{pts: top})
}

// Snapshot at tick k, run on to N, restore, run to N again: every hash
// after the restore is the uninterrupted run's; a fresh engine restoring
// the snapshot ends the same too.
func TestComponentsSnapshotRestoreContinue(t *testing.T) {
	const total = 320
	want := map[uint64]uint64{}
	ref := compScene(t)
	stepN(t, ref.Engine, total, want)
	if ref.tally.Get().Kills < 50 || ref.route.Len() == 0 || ref.status.Len() == 0 {
		t.Fatalf("the scene does not use its components: tally %+v, %d routes, %d statuses", ref.tally.Get(), ref.route.Len(), ref.status.Len())
	}
	sawLast := false

	for _, k := range []int{0, 1, 37, 50, 149, 250, 319} {
		g := compScene(t)
		stepN(t, g.Engine, k, nil)
		snap := g.Snapshot()
		lens := g.lens()
		sawLast = sawLast || len(g.last.Get().pts) > 0
		stepN(t, g.Engine, total-k, nil)
		if g.World.Hash() != want[total] {
			t.Fatalf("k=%d: the run with a snapshot taken differs from the reference run", k)
		}
		if err := g.Restore(snap); err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		if g.World.Tick() != uint64(k) || k > 0 && g.World.Hash() != want[uint64(k)] {
			t.Fatalf("k=%d: restored to tick %d, hash %016x; want %d, %016x", k, g.World.Tick(), g.World.Hash(), k, want[uint64(k)])
		}
		if g.lens() != lens {
			t.Fatalf("k=%d: restored component Len %v, want %v", k, g.lens(), lens)
		}
		got := map[uint64]uint64{}
		stepN(t, g.Engine, total-k, got)
		for tick := uint64(k + 1); tick <= total; tick++ {
			if got[tick] != want[tick] {
				t.Fatalf("k=%d: tick %d hash %016x, uninterrupted %016x", k, tick, got[tick], want[tick])
			}
		}

		f := compScene(t)
		if err := f.Restore(snap); err != nil {
			t.Fatal(err)
		}
		stepN(t, f.Engine, total-k, nil)
		if f.World.Hash() != want[total] {
			t.Errorf("k=%d: a fresh engine restored and run on ends with %016x, want %016x", k, f.World.Hash(), want[total])
		}
	}
	if !sawLast {
		t.Error("no snapshot holds a variable-size resource with a value; the test wants one")
	}
}

// schemaEngine returns an engine whose world registers what reg does, with
// three entities (the middle one despawned) and a few ticks run.
func schemaEngine(t *testing.T, reg func(w *World, a, c Entity)) *Engine {
	t.Helper()
	e := newEngine(t)
	w := e.World
	a := w.Spawn(geom.NewTransform(mgl32.Vec3{1, 0, 0}), Interpolate)
	b := w.Spawn(geom.NewTransform(mgl32.Vec3{2, 0, 0}), Interpolate)
	c := w.Spawn(geom.NewTransform(mgl32.Vec3{3, 0, 0}), Interpolate)
	w.Despawn(b)
	reg(w, a, c)
	stepN(t, e, 3, nil)
	return e
}

// A snapshot made with another schema is refused with its first
// difference, leaving the engine as it was.
func TestRestoreRefusesOtherSchema(t *testing.T) {
	healthInt := func(w *World, a, c Entity) {
		NewComponent[int32](w, "health").Set(a, 7)
		NewComponent[path](w, "route").Set(c, path{pts: []mgl32.Vec3{{1, 1, 1}}})
		NewResource(w, "score", int32(3))
	}
	snap := schemaEngine(t, healthInt).Snapshot()
	if err := schemaEngine(t, healthInt).Restore(snap); err != nil {
		t.Fatalf("the same schema: %v", err)
	}
	for _, tc := range []struct {
		name string
		reg  func(w *World, a, c Entity)
		want string
	}{
		{"other type", func(w *World, a, c Entity) {
			NewComponent[float32](w, "health")
			NewComponent[path](w, "route")
			NewResource(w, "score", int32(3))
		}, `recorded with component "health" int32, this program has "health" float32`},
		{"other name", func(w *World, a, c Entity) {
			NewComponent[int32](w, "hp")
			NewComponent[path](w, "route")
			NewResource(w, "score", int32(3))
		}, `recorded with component "health" int32, this program has "hp" int32`},
		{"other order", func(w *World, a, c Entity) {
			NewComponent[path](w, "route")
			NewComponent[int32](w, "health")
			NewResource(w, "score", int32(3))
		}, `recorded with component "health" int32, this program has "route" engine.path (variable size)`},
		{"missing component", func(w *World, a, c Entity) {
			NewComponent[int32](w, "health")
			NewResource(w, "score", int32(3))
		}, `recorded with component "route" engine.path (variable size), this program has resource "score" int32`},
		{"missing resource", func(w *World, a, c Entity) {
			NewComponent[int32](w, "health")
			NewComponent[path](w, "route")
		}, `recorded with resource "score" int32, which this program does not register`},
		{"extra component", func(w *World, a, c Entity) {
			NewComponent[int32](w, "health")
			NewComponent[path](w, "route")
			NewResource(w, "score", int32(3))
			NewComponent[int32](w, "mana")
		}, `this program registers component "mana" int32, which the recording does not have`},
		{"resource for component", func(w *World, a, c Entity) {
			NewResource(w, "health", int32(0))
			NewComponent[path](w, "route")
			NewResource(w, "score", int32(3))
		}, `recorded with component "health" int32, this program has resource "health" int32`},
		{"component for resource", func(w *World, a, c Entity) {
			NewComponent[int32](w, "health")
			NewComponent[path](w, "route")
			NewComponent[int32](w, "score")
		}, `recorded with resource "score" int32, this program has component "score" int32`},
		{"no schema", func(w *World, a, c Entity) {}, `recorded with component "health" int32, which this program does not register`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := schemaEngine(t, tc.reg)
			before, beforeHash := e.Snapshot(), e.World.Hash()
			err := e.Restore(snap)
			var se *SnapshotError
			switch {
			case !errors.As(err, &se):
				t.Fatalf("Restore: %v, want a *SnapshotError", err)
			case se.Field != "schema" || !strings.Contains(err.Error(), tc.want):
				t.Errorf("Restore: %v\nwant field schema and %q", err, tc.want)
			}
			if e.World.Hash() != beforeHash || string(e.Snapshot()) != string(before) {
				t.Error("a refused restore changed the engine")
			}
		})
	}

	// Same type name and kind, other size: two types named engine.hp.
	sized := func(big bool) *Engine {
		return schemaEngine(t, func(w *World, a, c Entity) {
			if big {
				type hp struct{ V int64 }
				NewComponent[hp](w, "health")
			} else {
				type hp struct{ V int32 }
				NewComponent[hp](w, "health")
			}
		})
	}
	err := sized(true).Restore(sized(false).Snapshot())
	if err == nil || !strings.Contains(err.Error(), `recorded with component "health" engine.hp of 4 bytes, this program has "health" engine.hp of 8 bytes`) {
		t.Errorf("same type name, other size: %v", err)
	}
}

// Snapshots of versions 1 (before components), 2 (before players) and 3
// (before meshes) are refused as written by an older build. (Version 4,
// with the input's clock times, is read: TestRestoreReadsVersion4.)
func TestRestoreRefusesOlderVersions(t *testing.T) {
	e := schemaEngine(t, func(w *World, a, c Entity) { NewComponent[int32](w, "health") })
	snap := e.Snapshot()
	if v := binary.LittleEndian.Uint16(snap[8:]); v != 7 || SnapshotVersion != 10 || OldestSnapshotVersion != 4 {
		t.Fatalf("snapshot version %d, SnapshotVersion %d, OldestSnapshotVersion %d; the test knows versions 4 to 10 (7 for a world without parents or mesh scales)", v, SnapshotVersion, OldestSnapshotVersion)
	}
	for _, v := range []uint16{1, 2, 3} {
		old := slices.Clone(snap)
		binary.LittleEndian.PutUint16(old[8:], v)
		before := e.World.Hash()
		err := e.Restore(old)
		var se *SnapshotError
		want := fmt.Sprintf("version %d, written by an older build of Nebula; this build reads versions 4 to 10", v)
		if !errors.As(err, &se) || se.Field != "version" || se.Offset != 8 || !strings.Contains(err.Error(), want) {
			t.Errorf("Restore of a version %d snapshot: %v; want field version at byte 8, %q", v, err, want)
		}
		if e.World.Hash() != before {
			t.Error("a refused restore changed the world")
		}
	}
}

// Presence bytes other than 0 and 1, presence for a dead slot, and bool
// fields other than 0 and 1 are refused (an error, not a panic), leaving
// the engine as it was.
func TestRestoreRefusesBadComponentBytes(t *testing.T) {
	var a, c Entity
	var st *Component[status]
	var flags *Resource[status]
	reg := func(w *World, ea, ec Entity) {
		a, c = ea, ec
		hp := NewComponent[int32](w, "health")
		st = NewComponent[status](w, "status")
		flags = NewResource(w, "flags", status{Alive: true})
		hp.Set(a, 7)
		hp.Set(c, 9)
		st.Set(a, status{Alive: true, Level: 2, Energy: 3, Ticks: 4})
	}
	e := schemaEngine(t, reg)
	snap := e.Snapshot()
	w := e.World
	n, nf := w.Slots(), len(w.free)
	if n != 3 || nf != 1 || a.Index() != 0 || c.Index() != 2 {
		t.Fatalf("the test wants slots 0 and 2 alive and 1 free; got %d slots, %d free, %v, %v", n, nf, a, c)
	}
	// Where the component sections start (see the format in snapshot.go).
	health := len(snapshotMagic) + 2 + 4 + len(AppendSchema(nil, w.Schema())) +
		8 + 16 + 4 + 4 + 4*n + 4 + 4*nf + (snapshotSlotBytes-4)*n
	statusAt := health + n + 4*n
	flagsAt := statusAt + n + 8*n
	if !(snap[health] == 1 && snap[health+1] == 0 && snap[health+2] == 1 &&
		binary.LittleEndian.Uint32(snap[health+n:]) == 7 && snap[statusAt] == 1 && snap[statusAt+2] == 0 &&
		snap[statusAt+n] == 1 && snap[statusAt+n+1] == 2 && snap[flagsAt] == 1) {
		t.Fatal("the component sections are not where the test expects them")
	}
	// The control: a valid change at those offsets restores.
	ok := slices.Clone(snap)
	ok[statusAt+n] = 0 // a's status: Alive false
	ok[flagsAt] = 0
	if err := schemaEngine(t, reg).Restore(ok); err != nil {
		t.Fatalf("a valid change: %v", err)
	}
	if v, _ := st.Get(a); v != (status{Alive: false, Level: 2, Energy: 3, Ticks: 4}) || flags.Get() != (status{}) {
		t.Fatalf("a valid change restored status %+v and flags %+v; the test expects Alive false in both", v, flags.Get())
	}

	for _, tc := range []struct {
		name  string
		off   int
		b     byte
		field string
		want  string
	}{
		{"presence 2", health, 2, `component "health"`, "slot 0 has presence byte 2"},
		{"presence 255", statusAt + 2, 255, `component "status"`, "slot 2 has presence byte 255"},
		{"presence for a dead slot", health + 1, 1, `component "health"`, "slot 1 has presence byte 1"},
		{"status presence for a dead slot", statusAt + 1, 1, `component "status"`, "slot 1 has presence byte 1"},
		{"bool field 2", statusAt + n, 2, `component "status"`, "bool field of byte 2"},
		{"bool field 128 in an absent value", statusAt + n + 2*8, 128, `component "status"`, "bool field of byte 128"},
		{"resource bool field 2", flagsAt, 2, `resource "flags"`, "bool field of byte 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := slices.Clone(snap)
			bad[tc.off] = tc.b
			g := schemaEngine(t, reg)
			before, beforeHash := g.Snapshot(), g.World.Hash()
			var err error
			if msg, panicked := panicOf(func() { err = g.Restore(bad) }); panicked {
				t.Fatalf("Restore panicked: %s", msg)
			}
			var se *SnapshotError
			if !errors.As(err, &se) || se.Field != tc.field || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Restore: %v\nwant a *SnapshotError in field %s saying %q", err, tc.field, tc.want)
			}
			if g.World.Hash() != beforeHash || string(g.Snapshot()) != string(before) {
				t.Error("a refused restore changed the engine")
			}
		})
	}
}

// Two types that print the same (the same name in two scopes) and have the
// same size but fields of other types are told apart by their shape: a
// snapshot of one is refused by a world of the other, and a State of one
// is not loaded into the other.
func TestSchemaTellsSameNamedTypesApart(t *testing.T) {
	intCell := func(w *World, a, c Entity) {
		type cell struct{ V int32 }
		NewComponent[cell](w, "cell").Set(a, cell{7})
	}
	floatCell := func(w *World, a, c Entity) {
		type cell struct{ V float32 }
		NewComponent[cell](w, "cell").Set(a, cell{7})
	}
	ei, ef := schemaEngine(t, intCell), schemaEngine(t, floatCell)
	si, sf := ei.World.Schema(), ef.World.Schema()
	if si[0].Type != sf[0].Type || si[0].Size != sf[0].Size || si[0].Shape == sf[0].Shape {
		t.Fatalf("schemas %v and %v: want the same type name and size, other shapes", si, sf)
	}
	before := ef.World.Hash()
	err := ef.Restore(ei.Snapshot())
	if err == nil || !strings.Contains(err.Error(), `recorded with component "cell" engine.cell, this program has "cell" engine.cell whose fields have other types`) {
		t.Errorf("Restore of the other shape: %v", err)
	}
	if ef.World.Hash() != before {
		t.Error("a refused Restore changed the world")
	}
	var st State
	ei.SaveState(&st)
	func() {
		defer func() {
			if v := recover(); v == nil || !strings.HasPrefix(fmt.Sprint(v), "engine: LoadState") {
				t.Errorf("LoadState of the other shape: panic %v, want one starting \"engine: LoadState\"", v)
			}
		}()
		ef.LoadState(&st)
	}()
}

// A schema whose names or types hold control characters, or whose sizes
// are below -1, is refused by Restore and ParseSchema, never echoed raw.
func TestRestoreRefusesBadSchemaText(t *testing.T) {
	e := schemaEngine(t, func(w *World, a, c Entity) { NewComponent[int32](w, "health") })
	snap := e.Snapshot()
	// magic 8, version 2, tick rate 4, entries 2, kind 1, name length 1
	const name = 8 + 2 + 4 + 2 + 1 + 1
	if string(snap[name:name+6]) != "health" {
		t.Fatalf("the name is not at byte %d: %q", name, snap[name:name+6])
	}
	ctl := bytes.Clone(snap)
	ctl[name] = 0x1b // ESC
	size := bytes.Clone(snap)
	at := name + 6 + 1 + len("int32")
	binary.LittleEndian.PutUint32(size[at:], uint32(0xfffffff0)) // -16
	for what, bad := range map[string][]byte{"control character": ctl, "negative size": size} {
		err := e.Restore(bad)
		var se *SnapshotError
		if !errors.As(err, &se) || se.Field != "schema" || strings.ContainsRune(err.Error(), 0x1b) {
			t.Errorf("%s: %v, want a schema error without the raw byte", what, err)
		}
		if _, _, err := ParseSchema(bad[8+2+4:]); err == nil {
			t.Errorf("%s: ParseSchema accepted it", what)
		}
	}
}

// Indices lists the slots that have the component, in order, through
// every change (Set, Remove, Despawn, Restore, LoadState), and does not
// allocate while nothing changes.
func TestComponentIndices(t *testing.T) {
	e := newEngine(t)
	w := e.World
	c := NewComponent[int32](w, "c")
	if got := c.Indices(); len(got) != 0 {
		t.Fatalf("Indices of an unused component: %v", got)
	}
	var ids []Entity
	for i := range 10 {
		ids = append(ids, w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate))
		if i%3 != 1 {
			c.Set(ids[i], int32(i))
		}
	}
	want := func() []int32 {
		var s []int32
		for ent := range c.All() {
			s = append(s, int32(ent.Index()))
		}
		return s
	}
	check := func(when string) {
		t.Helper()
		if got, w := c.Indices(), want(); !slices.Equal(got, w) {
			t.Errorf("%s: Indices %v, want %v", when, got, w)
		}
	}
	check("after Set")
	snap := e.Snapshot()
	var st State
	e.SaveState(&st)
	c.Remove(ids[0])
	check("after Remove")
	w.Despawn(ids[5])
	check("after Despawn")
	c.Set(ids[1], 7)
	c.Set(w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate), 1) // reuses slot 5
	check("after Set and a spawn into a reused slot")
	e.LoadState(&st)
	check("after LoadState")
	c.Remove(ids[2])
	if err := e.Restore(snap); err != nil {
		t.Fatal(err)
	}
	check("after Restore")
	if got := c.Indices(); !slices.Equal(got, []int32{0, 2, 3, 5, 6, 8, 9}) {
		t.Errorf("Indices %v after restoring the first state", got)
	}
	if a := testing.AllocsPerRun(100, func() { _ = c.Indices() }); a != 0 {
		t.Errorf("Indices allocates %v times while nothing changes", a)
	}
}
