package physics

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/nebulaengine/nebula/engine"
)

// restingCube is a cube resting turned on the floor, awake (sleep off),
// after 60 steps.
func restingCube(t *testing.T) (*testWorld, engine.Entity) {
	cfg := DefaultConfig()
	cfg.NoSleep = true
	tw := newTestWorld(t, cfg)
	tw.floor(0.5, 0)
	rot := mgl32.QuatRotate(0.3, mgl32.Vec3{0, 1, 0})
	box := tw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{0.2, 0.5, -0.1}, rot, mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(60)
	return tw, box
}

// onlyManifold returns the cache's one manifold.
func onlyManifold(t *testing.T, tw *testWorld) *cachedManifold {
	t.Helper()
	m := tw.s.Contacts().Ptr().m
	if len(m) != 1 {
		t.Fatalf("%d manifolds, want 1", len(m))
	}
	return &m[0]
}

// TestRestingBoxReusesManifold: a cube resting on the floor keeps the
// points found when it came to rest (the pose they were found at stays
// that of an earlier step), and they agree with what the separating-axis
// test finds now: the same ids, positions and separations within the
// reuse thresholds' reach.
func TestRestingBoxReusesManifold(t *testing.T) {
	tw, _ := restingCube(t)
	m0 := onlyManifold(t, tw)
	if !m0.reusable || m0.n != 4 {
		t.Fatalf("reusable %v, %d points; want a reusable manifold of 4", m0.reusable, m0.n)
	}
	found := m0.reuse
	tw.steps(30)
	m1 := onlyManifold(t, tw)
	if m1.reuse != found {
		t.Errorf("the resting cube's manifold was found again: its pose went from %v to %v", found.relP, m1.reuse.relP)
	}
	sc := &tw.s.sc
	var fresh manifold
	collide(&sc.shapes[0], sc.poses[0], &sc.shapes[1], sc.poses[1], tw.s.cfg.SpeculativeDistance, &fresh)
	var reused manifold
	if !reuseBoxes(m1, &sc.shapes[0], sc.poses[0], &sc.shapes[1], sc.poses[1], &reused) {
		t.Fatal("the resting cube's manifold may not be reused")
	}
	if fresh.n != reused.n || fresh.normal.sub(reused.normal).length() > 1e-4 {
		t.Fatalf("fresh %d points normal %v, reused %d normal %v", fresh.n, fresh.normal, reused.n, reused.normal)
	}
	for k := range fresh.n {
		f, r := &fresh.pts[k], &reused.pts[k]
		if f.id != r.id || f.p.sub(r.p).length() > 2e-3 || abs(f.sep-r.sep) > 2e-3 {
			t.Errorf("point %d: fresh %+v, reused %+v", k, *f, *r)
		}
	}
}

// TestReuseEndsWithShapeOrMove: a cube given another shape, or turned by
// more than the threshold, gets new points.
func TestReuseEndsWithShapeOrMove(t *testing.T) {
	tw, box := restingCube(t)
	found := onlyManifold(t, tw).reuse
	sc := &tw.s.sc
	m := onlyManifold(t, tw)
	var out manifold
	turned := sc.poses[1]
	turned.q = turned.q.mul(axisAngle(vec3{0, 1, 0}, 0.5))
	if reuseBoxes(m, &sc.shapes[0], sc.poses[0], &sc.shapes[1], turned, &out) {
		t.Error("reused after a turn of 0.5°")
	}
	moved := sc.poses[1]
	moved.p = moved.p.add(vec3{0.002, 0, 0})
	if reuseBoxes(m, &sc.shapes[0], sc.poses[0], &sc.shapes[1], moved, &out) {
		t.Error("reused after a move of 2 mm")
	}
	if err := tw.s.SetShape(box, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.6}}, 1000); err != nil {
		t.Fatal(err)
	}
	tw.steps(1)
	m = onlyManifold(t, tw)
	if m.reuse == found || m.reuse.hb != (vec3{0.5, 0.5, 0.6}) {
		t.Errorf("after SetShape the manifold was reused (half extents %v)", m.reuse.hb)
	}
}

// TestReuseRolledBack: the reuse data is part of the contact cache, so
// steps after LoadState give the same cache, bit for bit, as the steps
// after SaveState did, and a cache of version 2 (no reuse data) is still
// read, its manifolds then found afresh.
func TestReuseRolledBack(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	pile(tw, 3, 3, 3, 3, false)
	tw.steps(120)
	var st engine.State
	tw.e.SaveState(&st)
	tw.steps(8)
	want, _ := tw.s.Contacts().Get().AppendBinary(nil)
	n := 0
	for _, m := range tw.s.Contacts().Ptr().m {
		if m.reusable {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no reusable manifolds: nothing to test")
	}
	tw.e.LoadState(&st)
	tw.steps(8)
	if got, _ := tw.s.Contacts().Get().AppendBinary(nil); !bytes.Equal(got, want) {
		t.Error("the cache after a rollback differs")
	}

	c := tw.s.Contacts().Get()
	for i := range c.m {
		c.m[i].reusable, c.m[i].reuse = false, boxReuse{}
	}
	b, _ := c.AppendBinary(nil)
	b[0] = 2
	var d Contacts
	if err := d.UnmarshalBinary(b); err != nil || !reflect.DeepEqual(d.m, c.m) {
		t.Errorf("version 2: %v, equal %v", err, reflect.DeepEqual(d.m, c.m))
	}
	one := Contacts{m: c.m[len(c.m)-1:]}
	b, _ = one.AppendBinary(nil)
	b[5+32] |= 4 // the manifold's flags: reusable, but no data follows
	if err := d.UnmarshalBinary(b); err == nil {
		t.Error("a reusable manifold without its data was accepted")
	}
}
