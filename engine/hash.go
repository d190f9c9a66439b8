package engine

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// FNV-1a, 64 bits.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// stateHasher is FNV-1a over the little-endian bytes of the values written.
type stateHasher struct{ h uint64 }

func (s *stateHasher) u8(v uint8) { s.h = (s.h ^ uint64(v)) * fnvPrime }

func (s *stateHasher) u32(v uint32) {
	s.u8(uint8(v))
	s.u8(uint8(v >> 8))
	s.u8(uint8(v >> 16))
	s.u8(uint8(v >> 24))
}

func (s *stateHasher) u64(v uint64) {
	s.u32(uint32(v))
	s.u32(uint32(v >> 32))
}

func (s *stateHasher) f32(v float32) { s.u32(math.Float32bits(v)) }

func (s *stateHasher) vec3s(vs []mgl32.Vec3) {
	for _, v := range vs {
		s.f32(v[0])
		s.f32(v[1])
		s.f32(v[2])
	}
}

func (s *stateHasher) quats(qs []mgl32.Quat) {
	for _, q := range qs {
		s.f32(q.W)
		s.f32(q.V[0])
		s.f32(q.V[1])
		s.f32(q.V[2])
	}
}

// Hash returns the state hash: FNV-1a (64-bit) over the exact bits of
// everything the fixed step determines, in a fixed order: the tick, the
// RNG state, the entity table (every slot's generation, the free list in
// order, the live count), and for every slot the current and previous
// transforms, the velocities, the draw mode, the colour and the teleport
// mark. Two runs that agree on the hash at a tick agree on every simulated
// bit. It does not allocate.
func (w *World) Hash() uint64 {
	s := stateHasher{h: fnvOffset}
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
		if w.snap[i] {
			s.u8(1)
		} else {
			s.u8(0)
		}
	}
	s.vec3s(w.prev.Pos)
	s.quats(w.prev.Rot)
	s.vec3s(w.prev.Scale)
	s.vec3s(w.prev.Vel)
	return s.h
}
