package wire

import (
	"math/rand/v2"
	"testing"
)

func TestNonZeroBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 100000 {
		v := rng.Uint64()
		// Clear some bytes, set some to 0x80 or 0x01, the edge cases.
		for j := range 8 {
			switch rng.IntN(4) {
			case 0:
				v &^= 0xff << (8 * j)
			case 1:
				v = v&^(0xff<<(8*j)) | 0x80<<(8*j)
			case 2:
				v = v&^(0xff<<(8*j)) | 0x01<<(8*j)
			}
		}
		if i < 256 {
			v = uint64(i) * 0x0101010101010101
		}
		var want byte
		for j := range 8 {
			if byte(v>>(8*j)) != 0 {
				want |= 1 << j
			}
		}
		if got := nonZeroBytes(v); got != want {
			t.Fatalf("nonZeroBytes(%#016x) = %08b, want %08b", v, got, want)
		}
	}
}
