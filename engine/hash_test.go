package engine

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"testing"

	"github.com/zeebo/xxh3"
)

// Hash covers exactly the bytes its doc comment lists, in that order:
// benchHashedBytes gathers them from the world independently of Hash, and
// BenchmarkHash compares against the same bytes. A field added to the
// hash but not to its doc and to benchHashedBytes (or the reverse) fails
// here, in every `go test`, not only when the benchmark runs.
func TestHashCoversItsBytes(t *testing.T) {
	w := NewWorld(1)
	benchStateWorld(w, 50)
	e, ok := w.EntityAt(7)
	if !ok || !w.Despawn(e) {
		t.Fatal("cannot despawn entity 7")
	}
	w.Spawn(geom.Transform{}, 0) // a generation above 1
	e, _ = w.EntityAt(9)
	w.Despawn(e) // a free-list entry
	b := benchHashedBytes(w, false)
	if got, want := w.Hash(), xxh3.Hash(b); got != want {
		t.Fatalf("Hash = %016x, XXH3 of the %d bytes its doc lists = %016x", got, len(b), want)
	}
	old := benchFNV{h: benchFNVOffset}
	for _, c := range benchHashedBytes(w, true) {
		old.u8(c)
	}
	if got := benchFNVHash(w, false); got != old.h {
		t.Fatalf("benchFNVHash = %016x, FNV-1a of the same bytes in the old order = %016x", got, old.h)
	}
}
