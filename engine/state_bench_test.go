package engine

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"

	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/zeebo/xxh3"
)

// benchSizes are the world sizes the state hash and SaveState/LoadState
// are budgeted for.
var benchSizes = []int{1_000, 10_000}

// benchPadded is a component value with padding: 2 bytes between A and B
// in memory, so its 6 canonical bytes are gathered field by field.
type benchPadded struct {
	A uint16
	B float32
}

// benchComps are the four game components of the benchmark worlds, in
// registration order.
type benchComps struct {
	health *Component[int32]
	aim    *Component[mgl32.Vec3]
	flag   *Component[uint8]
	pad    *Component[benchPadded]
}

// benchStateWorld fills w with three players and n entities with varied
// transforms, velocities, draw modes, colours and meshes from the RNG, and
// the four components set on every entity.
func benchStateWorld(w *World, n int) benchComps {
	c := benchComps{
		health: NewComponent[int32](w, "health"),
		aim:    NewComponent[mgl32.Vec3](w, "aim"),
		flag:   NewComponent[uint8](w, "flag"),
		pad:    NewComponent[benchPadded](w, "padded"),
	}
	w.players.startTick(nil)
	for _, id := range []PlayerID{0, 3, 255} {
		if err := w.players.Join(id); err != nil {
			panic(fmt.Sprintf("benchStateWorld: %v", err))
		}
	}
	w.players.endStart()
	rng := NewRNG(7)
	for range n {
		axis := mgl32.Vec3{rng.Range(-1, 1), rng.Range(-1, 1), rng.Range(-1, 1) + 2}.Normalize()
		s := rng.Range(0.3, 2)
		id := w.Spawn(geom.Transform{
			Pos:   mgl32.Vec3{rng.Range(-100, 100), rng.Range(-100, 100), rng.Range(-100, 100)},
			Rot:   mgl32.QuatRotate(rng.Range(0, 2*math.Pi), axis),
			Scale: mgl32.Vec3{s, s, s},
		}, DrawMode(rng.Intn(3)))
		w.SetDrawVelocity(id,
			mgl32.Vec3{rng.Range(-6, 6), rng.Range(-6, 6), rng.Range(-6, 6)},
			mgl32.Vec3{rng.Range(-3, 3), rng.Range(-3, 3), rng.Range(-3, 3)})
		w.SetColor(id, [4]uint8{uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(rng.Intn(256)), 255})
		w.SetMesh(id, render.MeshID(rng.Intn(1000)))
		c.health.Set(id, int32(rng.Intn(1000)))
		c.aim.Set(id, mgl32.Vec3{rng.Range(-1, 1), rng.Range(-1, 1), rng.Range(-1, 1)})
		c.flag.Set(id, uint8(rng.Intn(256)))
		c.pad.Set(id, benchPadded{A: uint16(rng.Intn(1 << 16)), B: rng.Range(0, 100)})
	}
	return c
}

// benchFNV is the state hash as it was before XXH3 (git show
// 5188fa0~1:engine/hash.go): FNV-1a, 64 bits, fed a byte at a time.
type benchFNV struct{ h uint64 }

const (
	benchFNVOffset = 14695981039346656037
	benchFNVPrime  = 1099511628211
)

func (s *benchFNV) u8(v uint8) { s.h = (s.h ^ uint64(v)) * benchFNVPrime }

func (s *benchFNV) u16(v uint16) {
	s.u8(uint8(v))
	s.u8(uint8(v >> 8))
}

func (s *benchFNV) u32(v uint32) {
	s.u8(uint8(v))
	s.u8(uint8(v >> 8))
	s.u8(uint8(v >> 16))
	s.u8(uint8(v >> 24))
}

func (s *benchFNV) u64(v uint64) {
	s.u32(uint32(v))
	s.u32(uint32(v >> 32))
}

func (s *benchFNV) f32(v float32) { s.u32(math.Float32bits(v)) }

func (s *benchFNV) vec3s(vs []mgl32.Vec3) {
	for _, v := range vs {
		s.f32(v[0])
		s.f32(v[1])
		s.f32(v[2])
	}
}

func (s *benchFNV) quats(qs []mgl32.Quat) {
	for _, q := range qs {
		s.f32(q.W)
		s.f32(q.V[0])
		s.f32(q.V[1])
		s.f32(q.V[2])
	}
}

func (s *benchFNV) bools(bs []bool) {
	for _, b := range bs {
		if b {
			s.u8(1)
		} else {
			s.u8(0)
		}
	}
}

// benchFNVHash is the old Hash, algorithm and order unchanged, extended to
// the data the XXH3 Hash covers: after the draw modes, colours, meshes and
// teleport marks (interleaved per slot, as the old hash had them) come the
// players in the match, the schema's fingerprint and the benchmark's four components, each a
// presence byte per slot then every slot's canonical bytes. With prev it
// also hashes the previous transforms and velocities, as the old hash did
// (before the components); without, it hashes exactly the bytes the XXH3
// Hash does, in the old order.
func benchFNVHash(w *World, prev bool) uint64 {
	s := benchFNV{h: benchFNVOffset}
	s.u64(w.tick)
	state, inc := w.rng.State()
	s.u64(state)
	s.u64(inc)
	s.u64(uint64(len(w.gen)))
	for _, g := range w.gen {
		s.u32(g)
	}
	s.u64(uint64(len(w.free)))
	for _, f := range w.free {
		s.u32(f)
	}
	s.u64(uint64(w.count))
	s.vec3s(w.cur.Pos)
	s.quats(w.cur.Rot)
	s.vec3s(w.cur.Scale)
	s.vec3s(w.cur.Vel)
	s.vec3s(w.cur.AngVel)
	for i := range w.cur.Mode {
		s.u8(uint8(w.cur.Mode[i]))
		c := w.cur.Color[i]
		s.u8(c[0])
		s.u8(c[1])
		s.u8(c[2])
		s.u8(c[3])
		s.u16(uint16(w.cur.Mesh[i]))
		if w.snap[i] {
			s.u8(1)
		} else {
			s.u8(0)
		}
	}
	if prev {
		s.vec3s(w.prev.Pos)
		s.quats(w.prev.Rot)
		s.vec3s(w.prev.Scale)
		s.vec3s(w.prev.Vel)
	}
	s.u64(uint64(len(w.players.ids)))
	for _, id := range w.players.ids {
		s.u16(uint16(id))
	}
	s.u64(w.fingerprint)
	for _, col := range w.cols {
		switch c := col.(type) {
		case *Component[int32]:
			s.bools(c.has)
			for _, v := range c.vals {
				s.u32(uint32(v))
			}
		case *Component[mgl32.Vec3]:
			s.bools(c.has)
			s.vec3s(c.vals)
		case *Component[uint8]:
			s.bools(c.has)
			for _, v := range c.vals {
				s.u8(v)
			}
		case *Component[benchPadded]:
			s.bools(c.has)
			for _, v := range c.vals {
				s.u16(v.A)
				s.f32(v.B)
			}
		default:
			panic(fmt.Sprintf("benchFNVHash: no case for %v", col.schemaEntry()))
		}
	}
	return s.h
}

// benchHashedBytes returns the bytes the XXH3 Hash covers, gathered
// independently of it, as its doc comment lists them: in its order, or with
// the draw modes, colours, meshes and teleport marks interleaved per slot
// (the old order, benchFNVHash's). TestHashCoversItsBytes keeps it in step
// with Hash.
func benchHashedBytes(w *World, oldOrder bool) []byte {
	var b []byte
	st, inc := w.rng.State()
	for _, v := range []uint64{w.tick, st, inc, uint64(len(w.gen))} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	b = append(b, bytesOf(w.gen)...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(w.free)))
	b = append(b, bytesOf(w.free)...)
	b = binary.LittleEndian.AppendUint64(b, uint64(w.count))
	b = appendColumn(b, w.cur.Pos)
	b = appendColumn(b, w.cur.Rot)
	b = appendColumn(b, w.cur.Scale)
	b = appendColumn(b, w.cur.Vel)
	b = appendColumn(b, w.cur.AngVel)
	if oldOrder {
		for i, m := range w.cur.Mode {
			b = append(b, byte(m))
			b = append(b, w.cur.Color[i][:]...)
			b = binary.LittleEndian.AppendUint16(b, uint16(w.cur.Mesh[i]))
			b = append(b, boolByte(w.snap[i]))
		}
	} else {
		for _, m := range w.cur.Mode {
			b = append(b, byte(m))
		}
		for _, c := range w.cur.Color {
			b = append(b, c[:]...)
		}
		for _, m := range w.cur.Mesh {
			b = binary.LittleEndian.AppendUint16(b, uint16(m))
		}
		for _, s := range w.snap {
			b = append(b, boolByte(s))
		}
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(w.players.ids)))
	for _, id := range w.players.ids {
		b = binary.LittleEndian.AppendUint16(b, uint16(id))
	}
	b = binary.LittleEndian.AppendUint64(b, w.fingerprint)
	for _, c := range w.cols {
		b = c.appendSnapshot(b) // presence bytes, then canonical values
	}
	return b
}

var benchHashSink uint64

// BenchmarkHash measures the state hash (XXH3 over whole columns) against
// the old byte-at-a-time FNV-1a over the same bytes, on worlds of 1,000
// and 10,000 entities with four components each (an int32, a Vec3, a
// uint8 and a struct with padding). fnv-prev is the old hash with the
// previous state it also covered.
func BenchmarkHash(b *testing.B) {
	for _, n := range benchSizes {
		w := NewWorld(1)
		benchStateWorld(w, n)
		w.Hash() // grows the scratch buffer for the padded component

		// Both hash the same bytes, each its own way.
		cur, old := benchHashedBytes(w, false), benchHashedBytes(w, true)
		if len(cur) != len(old) {
			b.Fatalf("%d entities: %d bytes in the new order, %d in the old", n, len(cur), len(old))
		}
		if got, want := w.Hash(), xxh3.Hash(cur); got != want {
			b.Fatalf("%d entities: Hash = %016x, XXH3 of the %d hashed bytes = %016x", n, got, len(cur), want)
		}
		f := benchFNV{h: benchFNVOffset}
		for _, c := range old {
			f.u8(c)
		}
		if got := benchFNVHash(w, false); got != f.h {
			b.Fatalf("%d entities: benchFNVHash = %016x, FNV-1a of the %d hashed bytes = %016x", n, got, len(old), f.h)
		}

		b.Run(fmt.Sprintf("xxh3/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(cur)))
			for b.Loop() {
				benchHashSink = w.Hash()
			}
		})
		b.Run(fmt.Sprintf("fnv/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(old)))
			for b.Loop() {
				benchHashSink = benchFNVHash(w, false)
			}
		})
		b.Run(fmt.Sprintf("fnv-prev/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchHashSink = benchFNVHash(w, true)
			}
		})
	}
}

// BenchmarkSaveLoadState measures a rollback's save and load of the whole
// state, SaveState then LoadState, against the portable way, Snapshot then
// Restore, on worlds of 1,000 and 10,000 entities with four components.
func BenchmarkSaveLoadState(b *testing.B) {
	for _, n := range benchSizes {
		e, err := New(DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		c := benchStateWorld(e.World, n)
		e.World.BeginTick(1)

		// A load undoes what happened since the save.
		var st State
		want := e.World.Hash()
		e.SaveState(&st)
		first, _ := e.World.EntityAt(0)
		c.health.Set(first, -1)
		c.pad.Set(first, benchPadded{A: 1})
		e.World.SetTransform(first, geom.NewTransform(mgl32.Vec3{1, 2, 3}))
		e.World.Despawn(first)
		e.LoadState(&st)
		if got := e.World.Hash(); got != want {
			b.Fatalf("%d entities: hash %016x after SaveState, change, LoadState, want %016x", n, got, want)
		}

		b.Run(fmt.Sprintf("saveload/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.SaveState(&st)
				e.LoadState(&st)
			}
		})
		b.Run(fmt.Sprintf("snapshot-restore/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := e.Restore(e.Snapshot()); err != nil {
					b.Fatal(err)
				}
			}
		})
		if got := e.World.Hash(); got != want {
			b.Fatalf("%d entities: hash %016x after the benchmarks, want %016x", n, got, want)
		}
	}
}

var benchFastSink int32

// BenchmarkComponentFastPath measures a fixed system over 100,000
// entities that reads one component and writes another (hp += regen for
// the three in four entities that regenerate): through Slices, the fast
// path, and, for comparison, through Get/Set per entity and through All.
func BenchmarkComponentFastPath(b *testing.B) {
	const n = 100_000
	w := NewWorld(1)
	hp := NewComponent[int32](w, "hp")
	regen := NewComponent[int32](w, "regen")
	ids := make([]Entity, n)
	rng := NewRNG(3)
	for i := range ids {
		ids[i] = w.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0, 0}), Interpolate)
		hp.Set(ids[i], int32(rng.Intn(100)))
		if rng.Intn(4) != 0 {
			regen.Set(ids[i], int32(1+rng.Intn(3)))
		}
	}
	perEntity := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/entity")
	}

	// The three ways compute the same thing.
	sum := func() (s int64) {
		for _, v := range hp.vals {
			s += int64(v)
		}
		return s
	}
	before := sum()
	hpv, _ := hp.Slices()
	rv, has := regen.Slices()
	for i, ok := range has {
		if ok {
			hpv[i] += rv[i]
		}
	}
	for _, id := range ids {
		if r, ok := regen.Get(id); ok {
			h, _ := hp.Get(id)
			hp.Set(id, h+r)
		}
	}
	for id, r := range regen.All() {
		*hp.Ptr(id) += r
	}
	var regenSum int64
	for _, v := range rv {
		regenSum += int64(v)
	}
	if got, want := sum(), before+3*regenSum; got != want {
		b.Fatalf("health sums to %d after one pass of each way, want %d", got, want)
	}

	regenIndices := regen.Indices
	if got := len(regenIndices()); got != regen.Len() {
		b.Fatalf("Indices lists %d slots, Len says %d", got, regen.Len())
	}
	b.Run("slices-100k", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			hp, _ := hp.Slices()
			regen, has := regen.Slices()
			for i, ok := range has {
				if ok {
					hp[i] += regen[i]
				}
			}
		}
		perEntity(b)
	})
	// indices-rebuilt rebuilds the list every time, as in a tick where
	// some entity gained or lost regen.
	for _, rebuild := range []bool{false, true} {
		name := "indices-100k"
		if rebuild {
			name = "indices-rebuilt-100k"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				regen.stale = regen.stale || rebuild
				hp, _ := hp.Slices()
				regen, _ := regen.Slices()
				for _, i := range regenIndices() {
					hp[i] += regen[i]
				}
			}
			perEntity(b)
		})
	}
	b.Run("getset-100k", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, id := range ids {
				if r, ok := regen.Get(id); ok {
					h, _ := hp.Get(id)
					hp.Set(id, h+r)
				}
			}
		}
		perEntity(b)
	})
	b.Run("all-100k", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for id, r := range regen.All() {
				if p := hp.Ptr(id); p != nil {
					*p += r
				}
			}
		}
		perEntity(b)
	})
	benchFastSink = hpv[0]
}
