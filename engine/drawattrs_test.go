package engine

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/render"
)

// A mesh scale sizes the entity's own drawing only: its instance is drawn
// at the transform's scale times the mesh scale, while a child is placed
// and sized by the transform alone. With the same size given as the
// transform's scale instead, the child is stretched and moved with it.
func TestMeshScaleIsDrawnNotInherited(t *testing.T) {
	draw := func(useMeshScale bool) (parent, child mgl32.Vec3, childPos mgl32.Vec3) {
		w := NewWorld(1)
		size := mgl32.Vec3{2, 3, 4}
		pt := geom.NewTransform(mgl32.Vec3{10, 0, 0})
		if !useMeshScale {
			pt.Scale = size
		}
		p := w.Spawn(pt, Interpolate)
		if useMeshScale {
			w.SetMeshScale(p, size)
		}
		c := w.Spawn(geom.NewTransform(mgl32.Vec3{1, 1, 0}), Interpolate)
		if err := w.SetParent(c, p, KeepLocal); err != nil {
			t.Fatal(err)
		}
		w.BeginTick(1)
		var rb RenderBuffer
		w.Interpolate(0.5, 1.0/60, DefaultInterpolationConfig(), &rb)
		pi, _ := rb.Find(p)
		ci, _ := rb.Find(c)
		return rb.Instances[pi].Scale, rb.Instances[ci].Scale, rb.Instances[ci].Pos
	}
	ps, cs, cp := draw(true)
	if ps != (mgl32.Vec3{2, 3, 4}) || cs != (mgl32.Vec3{1, 1, 1}) || cp != (mgl32.Vec3{11, 1, 0}) {
		t.Errorf("mesh scale: parent drawn at scale %v, child at scale %v and %v; want {2 3 4}, {1 1 1} and {11 1 0}", ps, cs, cp)
	}
	ps, cs, cp = draw(false)
	if ps != (mgl32.Vec3{2, 3, 4}) || cs != (mgl32.Vec3{2, 3, 4}) || cp != (mgl32.Vec3{12, 3, 0}) {
		t.Errorf("transform scale (the control): parent drawn at scale %v, child at scale %v and %v; want {2 3 4}, {2 3 4} and {12 3 0}", ps, cs, cp)
	}
}

// A mesh scale is drawn with interpolation on and off, at every alpha, and
// through a teleport, without being interpolated itself.
func TestMeshScaleDrawnInEveryPath(t *testing.T) {
	w := NewWorld(1)
	e := w.Spawn(geom.Transform{Pos: mgl32.Vec3{}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1, 1, 1}}, Interpolate)
	w.BeginTick(1)
	w.SetTransform(e, geom.Transform{Pos: mgl32.Vec3{1, 0, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{3, 1, 1}})
	w.SetMeshScale(e, mgl32.Vec3{2, 2, 2})
	var rb RenderBuffer
	for _, tc := range []struct {
		name  string
		alpha float32
		cfg   InterpolationConfig
		want  mgl32.Vec3
	}{
		{"alpha 0", 0, DefaultInterpolationConfig(), mgl32.Vec3{2, 2, 2}},
		{"alpha 0.5", 0.5, DefaultInterpolationConfig(), mgl32.Vec3{4, 2, 2}},
		{"alpha 1", 1, DefaultInterpolationConfig(), mgl32.Vec3{6, 2, 2}},
		{"interpolation off", 0.5, InterpolationConfig{}, mgl32.Vec3{6, 2, 2}},
	} {
		w.Interpolate(tc.alpha, 1.0/60, tc.cfg, &rb)
		if got := rb.Instances[0].Scale; got != tc.want {
			t.Errorf("%s: drawn scale %v, want %v", tc.name, got, tc.want)
		}
	}
	w.Teleport(e, geom.Transform{Pos: mgl32.Vec3{5, 0, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1, 1, 1}})
	w.Interpolate(0.5, 1.0/60, DefaultInterpolationConfig(), &rb)
	if got := rb.Instances[0].Scale; got != (mgl32.Vec3{2, 2, 2}) {
		t.Errorf("teleported: drawn scale %v, want {2 2 2}", got)
	}
	w.SetMeshScale(e, mgl32.Vec3{1, 1, 1})
	if w.drawAttrs() {
		t.Error("every mesh scale is one again, but the world reports mesh scales")
	}
}

// Mesh scales are state: a world whose every mesh scale is one hashes and
// saves exactly as before mesh scales existed (version 7, or 8 with
// parents), one with a mesh scale hashes differently and saves as version
// 9 (10 with parents), and Restore, LoadState and a despawn bring the
// scales back exactly.
func TestMeshScaleIsState(t *testing.T) {
	mk := func() (*Engine, Entity) {
		e := newEngine(t)
		a := e.World.Spawn(geom.NewTransform(mgl32.Vec3{1, 0, 0}), Interpolate)
		e.World.Spawn(geom.NewTransform(mgl32.Vec3{2, 0, 0}), Interpolate)
		stepN(t, e, 2, nil)
		return e, a
	}
	version := func(snap []byte) uint16 { return binary.LittleEndian.Uint16(snap[8:]) }

	plain, _ := mk()
	ones, a := mk()
	ones.World.SetMeshScale(a, mgl32.Vec3{1, 1, 1})
	if ones.World.Hash() != plain.World.Hash() || !bytes.Equal(ones.Snapshot(), plain.Snapshot()) || version(plain.Snapshot()) != 7 {
		t.Fatalf("a mesh scale of one changed the hash or the snapshot (version %d)", version(plain.Snapshot()))
	}

	e, a := mk()
	before := e.World.Hash()
	e.World.SetMeshScale(a, mgl32.Vec3{0.5, 2, 1})
	if e.World.Hash() == before {
		t.Fatal("a mesh scale does not change the hash")
	}
	scaledHash := e.World.Hash()
	snap := e.Snapshot()
	if v := version(snap); v != 9 {
		t.Fatalf("snapshot version %d with a mesh scale, want 9", v)
	}
	var st State
	e.SaveState(&st)

	// Restore into a world without the scale, and into one with another.
	other, b := mk()
	other.World.SetMeshScale(b, mgl32.Vec3{7, 7, 7})
	if err := other.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if got := other.World.MeshScale(b); got != (mgl32.Vec3{0.5, 2, 1}) || other.World.Hash() != scaledHash {
		t.Errorf("restored mesh scale %v (hash equal %v), want {0.5 2 1}", got, other.World.Hash() == scaledHash)
	}
	// A version 7 snapshot puts every mesh scale back to one.
	if err := other.Restore(plain.Snapshot()); err != nil {
		t.Fatal(err)
	}
	if got := other.World.MeshScale(b); got != (mgl32.Vec3{1, 1, 1}) || other.World.Hash() != plain.World.Hash() {
		t.Errorf("after restoring a snapshot without mesh scales: %v, want {1 1 1} and the plain hash", got)
	}

	// LoadState after a change.
	e.World.SetMeshScale(a, mgl32.Vec3{3, 3, 3})
	e.LoadState(&st)
	if got := e.World.MeshScale(a); got != (mgl32.Vec3{0.5, 2, 1}) || e.World.Hash() != scaledHash {
		t.Errorf("after LoadState: %v, want {0.5 2 1} and the saved hash", got)
	}

	// With a parent: version 10, and it restores.
	c := e.World.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), Interpolate)
	if err := e.World.SetParent(c, a, KeepLocal); err != nil {
		t.Fatal(err)
	}
	snap = e.Snapshot()
	if v := version(snap); v != 10 {
		t.Fatalf("snapshot version %d with a mesh scale and a parent, want 10", v)
	}
	h := e.World.Hash()
	e.World.SetMeshScale(a, mgl32.Vec3{1, 1, 1})
	if err := e.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if e.World.Hash() != h || e.World.MeshScale(a) != (mgl32.Vec3{0.5, 2, 1}) {
		t.Error("a version 10 snapshot did not restore its mesh scale")
	}

	// The dump lists mesh scales when there are some.
	var dump strings.Builder
	if err := e.World.WriteDump(&dump); err != nil {
		t.Fatal(err)
	}
	if want := "entity 0:1 mesh scale = 0.5 2 1 [3f000000 40000000 3f800000]\n"; !strings.Contains(dump.String(), want) {
		t.Errorf("the dump has no line %q", want)
	}

	// Despawning the scaled entity leaves no mesh scale behind.
	e.World.Despawn(a)
	if v := version(e.Snapshot()); v != 7 {
		t.Errorf("snapshot version %d after the scaled entity and its child were despawned, want 7", v)
	}
}

// A hidden entity and its descendants, and an entity of render.MeshNone
// (a pivot), are left out of the frame; its children with meshes are
// drawn, placed by it. Showing the entity again draws it and its
// descendants. The emissive colour reaches the instance.
func TestHiddenAndPivotsAreNotDrawn(t *testing.T) {
	w := NewWorld(1)
	pivot := w.Spawn(geom.NewTransform(mgl32.Vec3{5, 0, 0}), Interpolate)
	w.SetMesh(pivot, render.MeshNone)
	arm := w.Spawn(geom.NewTransform(mgl32.Vec3{1, 0, 0}), Interpolate)
	hand := w.Spawn(geom.NewTransform(mgl32.Vec3{1, 0, 0}), Interpolate)
	lamp := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 2, 0}), Interpolate)
	w.SetEmissive(lamp, [3]uint8{255, 200, 80})
	for _, l := range [][2]Entity{{arm, pivot}, {hand, arm}} {
		if err := w.SetParent(l[0], l[1], KeepLocal); err != nil {
			t.Fatal(err)
		}
	}
	var rb RenderBuffer
	drawn := func() []Entity {
		w.Interpolate(1, 1.0/60, DefaultInterpolationConfig(), &rb)
		return slices.Clone(rb.Entities)
	}
	if got := drawn(); !slices.Equal(got, []Entity{arm, hand, lamp}) {
		t.Errorf("with a pivot: drawn %v, want the arm, the hand and the lamp %v", got, []Entity{arm, hand, lamp})
	}
	if k, ok := rb.Find(hand); !ok || rb.Instances[k].Pos != (mgl32.Vec3{7, 0, 0}) {
		t.Errorf("the hand is drawn at %v, want (7, 0, 0) under the pivot", rb.Instances[k].Pos)
	}
	if k, _ := rb.Find(lamp); rb.Instances[k].Emissive != [3]uint8{255, 200, 80} {
		t.Errorf("the lamp's instance is emissive %v, want (255, 200, 80)", rb.Instances[k].Emissive)
	}
	w.SetVisible(arm, false)
	if got := drawn(); !slices.Equal(got, []Entity{lamp}) || w.Visible(hand) == false || w.VisibleInTree(hand) || w.VisibleInTree(arm) {
		t.Errorf("arm hidden: drawn %v (hand visible %v, in tree %v), want only the lamp, the hand visible itself but not in the tree", got, w.Visible(hand), w.VisibleInTree(hand))
	}
	w.Interpolate(0.5, 1.0/60, InterpolationConfig{}, &rb) // interpolation off takes the same path
	if !slices.Equal(rb.Entities, []Entity{lamp}) {
		t.Errorf("arm hidden, interpolation off: drawn %v, want only the lamp", rb.Entities)
	}
	w.SetVisible(arm, true)
	if got := drawn(); !slices.Equal(got, []Entity{arm, hand, lamp}) || !w.VisibleInTree(hand) {
		t.Errorf("arm shown again: drawn %v, want %v", got, []Entity{arm, hand, lamp})
	}
}

// Emissive colours and hidden flags are state like mesh scales: each
// changes the hash and is saved, restored and loaded.
func TestEmissiveAndHiddenAreState(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(w *World, e Entity)
		same func(w *World, e Entity) bool
	}{
		{"emissive", func(w *World, e Entity) { w.SetEmissive(e, [3]uint8{1, 2, 3}) }, func(w *World, e Entity) bool { return w.Emissive(e) == [3]uint8{1, 2, 3} }},
		{"hidden", func(w *World, e Entity) { w.SetVisible(e, false) }, func(w *World, e Entity) bool { return !w.Visible(e) }},
	} {
		e := newEngine(t)
		a := e.World.Spawn(geom.NewTransform(mgl32.Vec3{1, 0, 0}), Interpolate)
		stepN(t, e, 1, nil)
		plain := e.World.Hash()
		plainSnap := e.Snapshot()
		tc.set(e.World, a)
		if e.World.Hash() == plain {
			t.Errorf("%s: the hash did not change", tc.name)
		}
		h := e.World.Hash()
		snap := e.Snapshot()
		if v := binary.LittleEndian.Uint16(snap[8:]); v != 9 {
			t.Errorf("%s: snapshot version %d, want 9", tc.name, v)
		}
		var st State
		e.SaveState(&st)
		if err := e.Restore(plainSnap); err != nil {
			t.Fatal(err)
		}
		if tc.same(e.World, a) || e.World.Hash() != plain {
			t.Errorf("%s: restoring the snapshot from before did not undo it", tc.name)
		}
		if err := e.Restore(snap); err != nil {
			t.Fatal(err)
		}
		if !tc.same(e.World, a) || e.World.Hash() != h {
			t.Errorf("%s: the snapshot did not restore it", tc.name)
		}
		if err := e.Restore(plainSnap); err != nil {
			t.Fatal(err)
		}
		e.LoadState(&st)
		if !tc.same(e.World, a) || e.World.Hash() != h {
			t.Errorf("%s: LoadState did not restore it", tc.name)
		}
	}
}
