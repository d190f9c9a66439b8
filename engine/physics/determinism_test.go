package physics

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// mixedPile fills tw with a floor, walls and a small pile of boxes,
// spheres and capsules with rotations exact in float32.
func mixedPile(tw *testWorld, nx, ny, nz int) {
	tw.floor(0.5, 0.1)
	rots := []mgl32.Quat{
		{W: 0.8, V: mgl32.Vec3{0.6, 0, 0}},
		{W: 0.6, V: mgl32.Vec3{0, 0.8, 0}},
		{W: 0.5, V: mgl32.Vec3{0.5, 0.5, 0.5}},
		{W: 0.8, V: mgl32.Vec3{0, 0, -0.6}},
	}
	shapes := []Shape{
		unitBox,
		{Kind: Sphere, Radius: 0.5},
		{Kind: Capsule, Radius: 0.3, HalfHeight: 0.4},
		{Kind: Box, HalfExtents: mgl32.Vec3{0.75, 0.25, 0.5}},
	}
	i := 0
	for y := range ny {
		for z := range nz {
			for x := range nx {
				d := NewBodyDef(Dynamic, shapes[i%len(shapes)])
				d.Restitution = 0.1
				pos := mgl32.Vec3{(float32(x) - float32(nx-1)/2) * 1.5, 2 + float32(y)*1.5, (float32(z) - float32(nz-1)/2) * 1.5}
				tw.add(d, pos, rots[(i/len(shapes))%len(rots)], mgl32.Vec3{}, mgl32.Vec3{0, float32(i%3) - 1, 0})
				i++
			}
		}
	}
}

// TestStepIsPureFunctionOfWorld: stepping after LoadState, and stepping a
// new Space on a world restored from a snapshot, give the bits stepping on
// gave, events included.
func TestStepIsPureFunctionOfWorld(t *testing.T) {
	const warm, more = 90, 60
	tw := newTestWorld(t, DefaultConfig())
	mixedPile(tw, 4, 3, 4)
	tw.steps(warm)
	var st engine.State
	tw.e.SaveState(&st)
	snap := tw.e.Snapshot()

	run := func(tw *testWorld) (uint64, []ContactEvent) {
		var evs []ContactEvent
		for range more {
			tw.s.Step()
			evs = append(evs, tw.s.Events()...)
		}
		return tw.w.Hash(), evs
	}
	h1, ev1 := run(tw)
	if len(ev1) == 0 || tw.s.Contacts().Ptr().Len() == 0 {
		t.Fatalf("the scene has %d events and %d manifolds: nothing to test", len(ev1), tw.s.Contacts().Ptr().Len())
	}

	tw.e.LoadState(&st)
	h2, ev2 := run(tw)
	if h2 != h1 || !reflect.DeepEqual(ev1, ev2) {
		t.Errorf("after LoadState: hash %x, want %x (events equal: %v)", h2, h1, reflect.DeepEqual(ev1, ev2))
	}

	fresh := newTestWorld(t, DefaultConfig())
	if err := fresh.e.Restore(snap); err != nil {
		t.Fatal(err)
	}
	h3, ev3 := run(fresh)
	if h3 != h1 || !reflect.DeepEqual(ev1, ev3) {
		t.Errorf("a new Space on a restored world: hash %x, want %x (events equal: %v)", h3, h1, reflect.DeepEqual(ev1, ev3))
	}

	// Twice from scratch in one process.
	again := newTestWorld(t, DefaultConfig())
	mixedPile(again, 4, 3, 4)
	again.steps(warm)
	if h4, _ := run(again); h4 != h1 {
		t.Errorf("a second run: hash %x, want %x", h4, h1)
	}
}

// TestContactsEncoding: the cache survives AppendBinary and
// UnmarshalBinary unchanged, and broken encodings are refused.
func TestContactsEncoding(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	mixedPile(tw, 3, 2, 3)
	tw.steps(100)
	c := tw.s.Contacts().Get()
	if c.Len() == 0 {
		t.Fatal("no contacts")
	}
	b, err := c.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	var d Contacts
	if err := d.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.m, d.m) {
		t.Errorf("decoded cache differs")
	}
	b2, _ := d.AppendBinary(nil)
	if !bytes.Equal(b, b2) {
		t.Errorf("re-encoding differs")
	}
	for _, n := range []int{0, 3, 5, 40, len(b) - 1} {
		if err := d.UnmarshalBinary(b[:n]); err == nil {
			t.Errorf("a cache cut to %d bytes was accepted", n)
		}
	}
	bad := append([]byte(nil), b...)
	bad[0] = 9
	if err := d.UnmarshalBinary(bad); err == nil {
		t.Errorf("version 9 accepted")
	}
}

// FuzzContactsUnmarshal: any bytes are refused or decode to a cache that
// encodes back to the same bytes; never a panic.
func FuzzContactsUnmarshal(f *testing.F) {
	tw := newTestWorld(f, DefaultConfig())
	mixedPile(tw, 2, 2, 2)
	tw.steps(100)
	c := tw.s.Contacts().Get()
	b, _ := c.AppendBinary(nil)
	f.Add(b)
	f.Add([]byte{1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Contacts
		if d.UnmarshalBinary(b) != nil {
			return
		}
		b2, _ := d.AppendBinary(nil)
		if b[0] == 1 || b[0] == 2 {
			// Versions 1 (no step impulses) and 2 (no reuse data) are
			// read and written as the current version: that must decode
			// to the same cache.
			var d2 Contacts
			if err := d2.UnmarshalBinary(b2); err != nil || !reflect.DeepEqual(d, d2) {
				t.Errorf("version %d re-encoded: %v, equal %v", b[0], err, reflect.DeepEqual(d, d2))
			}
			return
		}
		if !bytes.Equal(b, b2) {
			t.Errorf("round trip differs")
		}
	})
}
