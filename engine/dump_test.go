package engine

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// dumpWorld is buildHashWorld's world (a packed, a padded and a
// variable-size component, a resource of each kind, a dead slot) with
// players 0 and 2 in the match, player 2 with an input, at tick 5, and a
// NaN in the position of ents[2].
func dumpWorld(t testing.TB) *hashWorld {
	h := buildHashWorld(t)
	w := h.e.World
	w.BeginTick(5)
	w.SetDrawVelocity(h.ents[1], mgl32.Vec3{1, -2, 0.5}, mgl32.Vec3{0, 0, 3})
	w.SetColor(h.ents[2], [4]uint8{10, 20, 30, 40})
	w.cur.Pos[2][1] = math.Float32frombits(0x7fc00000)
	w.players.startTick(nil)
	must(t, w.players.Join(0))
	must(t, w.players.Join(2))
	must(t, w.players.SetInput(2, cursor(12.5)))
	w.players.endStart()
	return h
}

// dumpOf returns w's dump, failing the test on an error.
func dumpOf(t testing.TB, w *World) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := w.WriteDump(&buf); err != nil {
		t.Fatalf("WriteDump: %v", err)
	}
	return buf.Bytes()
}

// withoutHash returns the dump's lines less its hash line, which changes
// with every hashed value.
func withoutHash(dump []byte) []string {
	lines := strings.Split(string(dump), "\n")
	return slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, "hash = ") })
}

func TestWriteDumpIsDeterministic(t *testing.T) {
	a := dumpOf(t, dumpWorld(t).e.World)
	h := dumpWorld(t)
	b := dumpOf(t, h.e.World)
	if !bytes.Equal(a, b) {
		t.Fatalf("two worlds built alike dump differently:\n%s", strings.Join(DiffDumps(a, b, 20), "\n"))
	}
	if again := dumpOf(t, h.e.World); !bytes.Equal(again, b) {
		t.Error("dumping a world twice gave two dumps")
	}
	if !bytes.HasPrefix(a, []byte("nebula state dump 1\n")) || !bytes.HasSuffix(a, []byte("\nend\n")) {
		t.Errorf("the dump does not start with its header and end with \"end\":\n%s", a)
	}
	want := fmt.Sprintf("hash = %016x\n", h.e.World.Hash())
	if !bytes.Contains(a, []byte("\n"+want)) {
		t.Errorf("the dump has no line %q", want)
	}
}

// Every line but the first and the last is a key, " = " and a value, and
// no two lines have the same key: what DiffDumps relies on.
func TestWriteDumpKeysAreUnique(t *testing.T) {
	lines := dumpLines(dumpOf(t, dumpWorld(t).e.World))
	seen := make(map[string]int)
	for i, l := range lines {
		k := dumpKey(l)
		if i > 0 && i < len(lines)-1 && k == string(l) {
			t.Errorf("line %d has no key: %s", i+1, l)
		}
		if j, dup := seen[k]; dup {
			t.Errorf("lines %d and %d have the same key %q", j+1, i+1, k)
		}
		seen[k] = i
	}
}

// A snapshot restored into another world dumps as the original: the dump
// is a function of the state alone.
func TestWriteDumpOfARestoredWorld(t *testing.T) {
	src := dumpWorld(t)
	snap := src.e.Snapshot()
	dst := buildHashWorld(t)
	dst.e.World.RNG().Uint64()
	dst.hp.Set(dst.ents[2], 9)
	dst.e.World.Spawn(geom.NewTransform(mgl32.Vec3{4, 4, 4}), Hermite)
	if err := dst.e.Restore(snap); err != nil {
		t.Fatal(err)
	}
	a, b := dumpOf(t, src.e.World), dumpOf(t, dst.e.World)
	if !bytes.Equal(a, b) {
		t.Errorf("the restored world dumps differently:\n%s", strings.Join(DiffDumps(a, b, 20), "\n"))
	}
}

// Changing one component value of one entity changes the line of that
// value, and the hash's, and no other.
func TestWriteDumpOneComponentValueIsOneLine(t *testing.T) {
	before := dumpWorld(t)
	after := dumpWorld(t)
	after.hp.Set(after.ents[1], 7)
	a, b := dumpOf(t, before.e.World), dumpOf(t, after.e.World)

	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	if len(la) != len(lb) {
		t.Fatalf("the dumps have %d and %d lines", len(la), len(lb))
	}
	var changed []string
	for i := range la {
		if la[i] != lb[i] {
			changed = append(changed, lb[i])
		}
	}
	wantChanged := []string{
		fmt.Sprintf("hash = %016x", after.e.World.Hash()),
		`component "health" 1:1 = 7 [07000000]`,
	}
	if !slices.Equal(changed, wantChanged) {
		t.Errorf("changed lines\n%s\nwant\n%s", strings.Join(changed, "\n"), strings.Join(wantChanged, "\n"))
	}

	got := DiffDumps(a, b, 10)
	want := []string{
		fmt.Sprintf("- hash = %016x", before.e.World.Hash()),
		fmt.Sprintf("+ hash = %016x", after.e.World.Hash()),
		`- component "health" 1:1 = 0 [00000000]`,
		`+ component "health" 1:1 = 7 [07000000]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("DiffDumps gave\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Every kind of change to the state changes the dump, in a line whose key
// names what changed: every change that changes the state hash (the dump
// less its hash line changes too), and the previous transforms and the
// players' inputs, which the hash leaves out.
func TestWriteDumpShowsEveryChange(t *testing.T) {
	nudge := func(f float32) float32 { return math.Float32frombits(math.Float32bits(f) + 1) }
	type change struct {
		name   string
		do     func(h *hashWorld, w *World, e Entity)
		key    string // the key of a line that must differ (a prefix)
		hashed bool   // the hash covers it
	}
	changes := []change{
		{"tick", func(h *hashWorld, w *World, e Entity) { w.tick++ }, "tick", true},
		{"rng draw", func(h *hashWorld, w *World, e Entity) { w.RNG().Uint32() }, "rng state", true},
		{"rng stream", func(h *hashWorld, w *World, e Entity) { w.rng.inc += 2 }, "rng inc", true},
		{"position", func(h *hashWorld, w *World, e Entity) { w.cur.Pos[e.index][2] = nudge(w.cur.Pos[e.index][2]) }, "entity 0:1 pos", true},
		{"position NaN payload", func(h *hashWorld, w *World, e Entity) {
			w.cur.Pos[2][1] = math.Float32frombits(0x7fc00001)
		}, "entity 2:1 pos", true},
		{"rotation", func(h *hashWorld, w *World, e Entity) { w.cur.Rot[e.index].V[1] = 1e-30 }, "entity 0:1 rot", true},
		{"rotation W", func(h *hashWorld, w *World, e Entity) { w.cur.Rot[e.index].W = nudge(1) }, "entity 0:1 rot", true},
		{"scale", func(h *hashWorld, w *World, e Entity) { w.cur.Scale[e.index][1] = nudge(1) }, "entity 0:1 scale", true},
		{"velocity subnormal", func(h *hashWorld, w *World, e Entity) { w.cur.Vel[e.index][0] = 1e-40 }, "entity 0:1 vel", true},
		{"angular velocity -0", func(h *hashWorld, w *World, e Entity) { w.cur.AngVel[e.index][0] = float32(negZero()) }, "entity 0:1 angvel", true},
		{"mode", func(h *hashWorld, w *World, e Entity) { w.cur.Mode[e.index] = NoInterpolation }, "entity 0:1 mode", true},
		{"mode out of range", func(h *hashWorld, w *World, e Entity) { w.cur.Mode[e.index] = 9 }, "entity 0:1 mode", true},
		{"colour", func(h *hashWorld, w *World, e Entity) { w.SetColor(e, [4]uint8{255, 255, 255, 254}) }, "entity 0:1 colour", true},
		{"teleport", func(h *hashWorld, w *World, e Entity) { w.Teleport(e, w.Transform(e)) }, "entity 0:1 teleport", true},
		{"despawn", func(h *hashWorld, w *World, e Entity) { w.Despawn(e) }, "entity 0:1 = alive", true},
		{"despawn shows the dead slot", func(h *hashWorld, w *World, e Entity) { w.Despawn(e) }, "entity 0:2 = dead", true},
		{"despawn takes the components", func(h *hashWorld, w *World, e Entity) { w.Despawn(e) }, `component "health" 0:1`, true},
		{"spawn into a free slot", func(h *hashWorld, w *World, e Entity) {
			w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
		}, "entity 3:3 = alive", true},
		{"spawn into a new slot", func(h *hashWorld, w *World, e Entity) {
			w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
			w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
		}, "entity 5:1 = alive", true},
		{"free list order", func(h *hashWorld, w *World, e Entity) {
			w.Despawn(h.ents[2])
			w.free[0], w.free[1] = w.free[1], w.free[0]
		}, "free 0", true},
		{"a dead slot's stale value", func(h *hashWorld, w *World, e Entity) { w.cur.Pos[3][0] = 42 }, "entity 3:2 pos", true},
		{"player joins", func(h *hashWorld, w *World, e Entity) {
			w.players.startTick(nil)
			must(t, w.players.Join(7))
			w.players.endStart()
		}, "player 7 = in match", true},
		{"player leaves", func(h *hashWorld, w *World, e Entity) {
			w.players.startTick(nil)
			must(t, w.players.Leave(2))
			w.players.endStart()
		}, "player 2 = in match", true},
		{"packed component", func(h *hashWorld, w *World, e Entity) { *h.hp.Ptr(e) ^= -1 << 31 }, `component "health" 0:1`, true},
		{"packed presence (zero value)", func(h *hashWorld, w *World, e Entity) { h.hp.Set(h.ents[2], 0) }, `component "health" 2:1`, true},
		{"packed value in a slot without it", func(h *hashWorld, w *World, e Entity) {
			vals, _ := h.hp.Slices()
			vals[2] = 5
		}, `component "health" 2:1 absent`, true},
		{"padded component field", func(h *hashWorld, w *World, e Entity) { h.pad.Ptr(h.ents[4]).C ^= 1 << 15 }, `component "pad" 4:1`, true},
		{"padded presence removed", func(h *hashWorld, w *World, e Entity) { h.pad.Remove(h.ents[4]) }, `component "pad" 4:1`, true},
		{"marshalled component value", func(h *hashWorld, w *World, e Entity) { flipBit(&h.route.Ptr(e).pts[1][2], 0) }, `component "route" 0:1`, true},
		{"marshalled component length", func(h *hashWorld, w *World, e Entity) {
			p := h.route.Ptr(e)
			p.pts = p.pts[:1]
		}, `component "route" 0:1`, true},
		{"marshalled presence (empty)", func(h *hashWorld, w *World, e Entity) { h.route.Remove(h.ents[1]) }, `component "route" 1:1`, true},
		{"packed resource", func(h *hashWorld, w *World, e Entity) { h.score.Set(h.score.Get() + 1) }, `resource "score"`, true},
		{"padded resource", func(h *hashWorld, w *World, e Entity) { h.padRes.Ptr().A ^= 1 }, `resource "padres"`, true},
		{"marshalled resource", func(h *hashWorld, w *World, e Entity) { flipBit(&h.pathRes.Ptr().pts[0][1], 22) }, `resource "pathres"`, true},
		{"another component registered", func(h *hashWorld, w *World, e Entity) { NewComponent[uint8](w, "extra") }, "schema fingerprint", true},
		{"previous position", func(h *hashWorld, w *World, e Entity) {
			w.prev.Pos[e.index][0] = nudge(w.prev.Pos[e.index][0])
		}, "entity 0:1 prev pos (not hashed)", false},
		{"previous rotation", func(h *hashWorld, w *World, e Entity) { w.prev.Rot[e.index].V[2] = 0.5 }, "entity 0:1 prev rot (not hashed)", false},
		{"previous scale", func(h *hashWorld, w *World, e Entity) { w.prev.Scale[e.index][2] = 2 }, "entity 0:1 prev scale (not hashed)", false},
		{"previous velocity", func(h *hashWorld, w *World, e Entity) { w.prev.Vel[e.index][1] = 7 }, "entity 0:1 prev vel (not hashed)", false},
		{"player input", func(h *hashWorld, w *World, e Entity) {
			w.players.startTick(nil)
			must(t, w.players.SetInput(2, cursor(13)))
			w.players.endStart()
		}, "player 2 input (not hashed)", false},
	}
	base := dumpWorld(t)
	h0, d0 := base.e.World.Hash(), dumpOf(t, base.e.World)
	for _, c := range changes {
		h := dumpWorld(t)
		c.do(h, h.e.World, h.ents[0])
		d := dumpOf(t, h.e.World)
		if hashed := h.e.World.Hash() != h0; hashed != c.hashed {
			t.Errorf("%s: the hash changed: %v, want %v", c.name, hashed, c.hashed)
		}
		if slices.Equal(withoutHash(d), withoutHash(d0)) {
			t.Errorf("%s: the dump, less its hash line, did not change", c.name)
			continue
		}
		diff := DiffDumps(d0, d, 0)
		named := slices.ContainsFunc(diff, func(l string) bool { return strings.HasPrefix(l[2:], c.key) })
		if !named {
			t.Errorf("%s: no differing line starts %q:\n%s", c.name, c.key, strings.Join(diff, "\n"))
		}
	}
}

func TestDiffDumps(t *testing.T) {
	a := []byte("v 1\ntick = 1\nx = 1\ny = 2\nc \"a = b\" = 3\nend\n")
	tests := []struct {
		name string
		b    string
		max  int
		want []string
	}{
		{"same", string(a), 10, nil},
		{"value", "v 1\ntick = 2\nx = 1\ny = 2\nc \"a = b\" = 3\nend\n", 10,
			[]string{"- tick = 1", "+ tick = 2"}},
		{"value after a quoted \" = \"", "v 1\ntick = 1\nx = 1\ny = 2\nc \"a = b\" = 4\nend\n", 10,
			[]string{`- c "a = b" = 3`, `+ c "a = b" = 4`}},
		{"line removed", "v 1\ntick = 1\ny = 2\nc \"a = b\" = 3\nend\n", 10,
			[]string{"- x = 1"}},
		{"line added", "v 1\ntick = 1\nx = 1\nw = 0\ny = 2\nc \"a = b\" = 3\nend\n", 10,
			[]string{"+ w = 0"}},
		{"lines added at the end", "v 1\ntick = 1\nx = 1\ny = 2\nc \"a = b\" = 3\nend\nmore\n", 10,
			[]string{"+ more"}},
		{"cut short", "v 1\ntick = 1\nx = 1\n", 10,
			[]string{"- y = 2", `- c "a = b" = 3`, "- end"}},
		{"lines swapped", "v 1\ntick = 1\ny = 2\nx = 1\nc \"a = b\" = 3\nend\n", 10,
			[]string{"- x = 1", "+ y = 2", "- y = 2", "+ x = 1"}},
		{"no trailing newline", "v 1\ntick = 1\nx = 1\ny = 2\nc \"a = b\" = 3\nend", 10, nil},
		{"max", "v 2\ntick = 2\nx = 2\ny = 2\nc \"a = b\" = 3\nend\n", 3,
			[]string{"- v 1", "+ v 2", "- tick = 1"}},
		{"max 0 is no limit", "v 2\ntick = 2\nx = 2\ny = 2\nc \"a = b\" = 3\nend\n", 0,
			[]string{"- v 1", "+ v 2", "- tick = 1", "+ tick = 2", "- x = 1", "+ x = 2"}},
		{"empty", "", 10,
			[]string{"- v 1", "- tick = 1", "- x = 1", "- y = 2", `- c "a = b" = 3`, "- end"}},
		{"not a dump", "\"\n\"unterminated = 1\n = \n\n", 0,
			[]string{"- v 1", "- tick = 1", "- x = 1", "- y = 2", `- c "a = b" = 3`, "- end",
				`+ "`, `+ "unterminated = 1`, "+  = ", "+ "}},
	}
	for _, tt := range tests {
		if got := DiffDumps(a, []byte(tt.b), tt.max); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
	if got := DiffDumps(nil, nil, 5); got != nil {
		t.Errorf("two empty dumps differ: %q", got)
	}
}

// badValue is a variable-size value whose AppendBinary fails when told
// to.
type badValue struct{ fail bool }

func (v badValue) AppendBinary(b []byte) ([]byte, error) {
	if v.fail {
		return b, errors.New("cannot encode\nthis value")
	}
	return append(b, 1), nil
}

func (v *badValue) UnmarshalBinary(b []byte) error { return nil }

// multiline is a fixed-size value whose String spans lines.
type multiline int32

func (m multiline) String() string { return fmt.Sprintf("line %d\nnext line", int32(m)) }

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteDumpErrors(t *testing.T) {
	w := NewWorld(1)
	if err := w.WriteDump(nil); err == nil {
		t.Error("WriteDump(nil) returned no error")
	}
	if err := w.WriteDump(errWriter{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("WriteDump to a failing writer: %v", err)
	}

	// A value that cannot be encoded makes an error, and a line saying so;
	// the rest of the dump is written.
	bad := NewComponent[badValue](w, "bad")
	ml := NewComponent[multiline](w, "multiline")
	e := w.Spawn(geom.NewTransform(mgl32.Vec3{}), Interpolate)
	bad.Set(e, badValue{fail: true})
	ml.Set(e, 3)
	var buf bytes.Buffer
	err := w.WriteDump(&buf)
	if err == nil || !strings.Contains(err.Error(), `component "bad" of entity 0:1`) || !strings.Contains(err.Error(), "cannot encode") {
		t.Errorf("WriteDump of a value that cannot be encoded: %v", err)
	}
	for _, want := range []string{
		`hash = unavailable: "engine.badValue.AppendBinary: cannot encode\nthis value"`,
		`component "bad" 0:1 = error: "cannot encode\nthis value"`,
		`component "multiline" 0:1 = "line 3\nnext line" [03000000]`,
		"end",
	} {
		if !slices.Contains(strings.Split(buf.String(), "\n"), want) {
			t.Errorf("the dump has no line %s:\n%s", want, buf.String())
		}
	}
}

// BenchmarkWriteDump dumps a world of 1,000 entities with two small
// components and a resource.
func BenchmarkWriteDump(b *testing.B) {
	w := NewWorld(1)
	hp := NewComponent[int32](w, "health")
	pad := NewComponent[padStruct](w, "pad")
	NewResource(w, "score", int64(1000))
	for i := range 1000 {
		e := w.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0.5, -1}), Interpolate)
		w.SetDrawVelocity(e, mgl32.Vec3{1, 2, 3}, mgl32.Vec3{0, 0.25, 0})
		hp.Set(e, int32(i))
		if i%2 == 0 {
			pad.Set(e, padStruct{A: 1, B: uint32(i), C: 3})
		}
	}
	var n countWriter
	if err := w.WriteDump(&n); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.WriteDump(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// countWriter counts the bytes written to it.
type countWriter int

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
