package engine

import "math/bits"

// RNG is the world's random number generator: PCG-XSH-RR 64/32, small,
// fast and fully determined by its two words of state, which Snapshot and
// the state hash include. Fixed systems take their randomness from here and
// nowhere else.
type RNG struct {
	state, inc uint64
}

const pcgMultiplier = 6364136223846793005

// NewRNG returns a generator seeded with seed (stream 0).
func NewRNG(seed uint64) RNG {
	var r RNG
	r.Seed(seed)
	return r
}

// Seed resets the generator to the sequence of seed.
func (r *RNG) Seed(seed uint64) {
	r.inc = 1442695040888963407 // PCG's default stream (odd)
	r.state = 0
	r.Uint32()
	r.state += seed
	r.Uint32()
}

// Uint32 returns the next 32 random bits.
func (r *RNG) Uint32() uint32 {
	old := r.state
	r.state = old*pcgMultiplier + r.inc
	xorshifted := uint32(((old >> 18) ^ old) >> 27)
	return bits.RotateLeft32(xorshifted, -int(old>>59))
}

// Uint64 returns 64 random bits.
func (r *RNG) Uint64() uint64 { return uint64(r.Uint32())<<32 | uint64(r.Uint32()) }

// Intn returns a uniform integer in [0, n); n must be positive.
func (r *RNG) Intn(n int) int {
	if n <= 0 {
		panic("engine: RNG.Intn needs a positive bound")
	}
	// Lemire's nearly divisionless method on 32 bits, exact for n < 2^32.
	bound := uint32(n)
	m := uint64(r.Uint32()) * uint64(bound)
	if low := uint32(m); low < bound {
		threshold := -bound % bound
		for low < threshold {
			m = uint64(r.Uint32()) * uint64(bound)
			low = uint32(m)
		}
	}
	return int(m >> 32)
}

// Float32 returns a uniform float32 in [0, 1) with 24 random bits: exact,
// no rounding that could differ between builds.
func (r *RNG) Float32() float32 { return float32(r.Uint32()>>8) / (1 << 24) }

// Range returns a uniform float32 in [lo, hi).
func (r *RNG) Range(lo, hi float32) float32 { return lo + float32((hi-lo)*r.Float32()) }

// State returns the generator's state, to save it.
func (r *RNG) State() (state, inc uint64) { return r.state, r.inc }

// SetState restores a state returned by State.
func (r *RNG) SetState(state, inc uint64) { r.state, r.inc = state, inc|1 }
