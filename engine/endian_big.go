//go:build armbe || arm64be || m68k || mips || mips64 || mips64p32 || ppc || ppc64 || s390 || s390x || shbe || sparc || sparc64

package engine

// Nebula hashes and snapshots the simulated state by the bytes of its
// values in memory, which are its canonical little-endian bytes only on a
// little-endian machine (amd64, arm64, 386, arm, riscv64, loong64,
// ppc64le, mips64le, wasm). A big-endian build stops here rather than
// hash differently from every other machine.
var _ = nebulaNeedsALittleEndianMachine
