package physics

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// queryScene is a world of a floor mesh, a box, a ball and a sensor in a
// row along +x, for the query tests.
type queryScene struct {
	tw                      *testWorld
	box, ball, sensor, wall engine.Entity
}

func newQueryScene(t *testing.T) *queryScene {
	tw := newTestWorld(t, DefaultConfig())
	tw.meshFloor(t)
	q := &queryScene{tw: tw}
	q.box = tw.add(NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}}), mgl32.Vec3{2, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	q.ball = tw.sphere(Static, 0.5, mgl32.Vec3{4, 0.5, 0}, mgl32.Vec3{})
	d := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.2, 2, 2}})
	d.Sensor = true
	q.sensor = tw.add(d, mgl32.Vec3{1, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	w := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.1, 2, 2}})
	w.Layer = 2
	q.wall = tw.add(w, mgl32.Vec3{3, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	return q
}

func TestRayCast(t *testing.T) {
	q := newQueryScene(t)
	s := q.tw.s
	near := func(a, b mgl32.Vec3) bool { return a.Sub(b).Len() < 1e-5 }
	for _, c := range []struct {
		name        string
		origin, dir mgl32.Vec3
		max         float32
		f           QueryFilter
		want        engine.Entity
		dist        float32
		normal      mgl32.Vec3
		hit         bool
	}{
		{"the box first", mgl32.Vec3{0, 0.5, 0}, mgl32.Vec3{1, 0, 0}, 10, QueryFilter{}, q.box, 1.5, mgl32.Vec3{-1, 0, 0}, true},
		{"sensors seen", mgl32.Vec3{0, 0.5, 0}, mgl32.Vec3{2, 0, 0}, 10, QueryFilter{Sensors: true}, q.sensor, 0.8, mgl32.Vec3{-1, 0, 0}, true},
		{"box excluded: the wall", mgl32.Vec3{0, 0.5, 0}, mgl32.Vec3{1, 0, 0}, 10, QueryFilter{Exclude: q.box}, q.wall, 2.9, mgl32.Vec3{-1, 0, 0}, true},
		{"layer 1 only: the ball", mgl32.Vec3{2.6, 0.5, 0}, mgl32.Vec3{1, 0, 0}, 10, QueryFilter{Mask: 1}, q.ball, 0.9, mgl32.Vec3{-1, 0, 0}, true},
		{"down onto the mesh", mgl32.Vec3{-3, 5, -2}, mgl32.Vec3{0, -1, 0}, 10, QueryFilter{}, engine.Entity{}, 5, mgl32.Vec3{0, 1, 0}, true},
		{"too short", mgl32.Vec3{0, 0.5, 0}, mgl32.Vec3{1, 0, 0}, 1.4, QueryFilter{}, engine.Entity{}, 0, mgl32.Vec3{}, false},
		{"up into nothing", mgl32.Vec3{0, 0.5, 0}, mgl32.Vec3{0, 1, 0}, 100, QueryFilter{}, engine.Entity{}, 0, mgl32.Vec3{}, false},
		{"inside the box", mgl32.Vec3{2, 0.5, 0}, mgl32.Vec3{1, 0, 0}, 10, QueryFilter{}, q.box, 0, mgl32.Vec3{}, true},
	} {
		h, ok, err := s.RayCast(c.origin, c.dir, c.max, c.f)
		if err != nil || ok != c.hit {
			t.Errorf("%s: hit %v (%v), want %v", c.name, ok, err, c.hit)
			continue
		}
		if !ok {
			continue
		}
		if c.want != (engine.Entity{}) && h.Entity != c.want || abs(h.Distance-c.dist) > 1e-5 || !near(h.Normal, c.normal) {
			t.Errorf("%s: %+v, want %v at %v along %v", c.name, h, c.want, c.dist, c.normal)
		}
	}
	for _, c := range []struct {
		origin, dir mgl32.Vec3
		max         float32
		want        string
	}{
		{mgl32.Vec3{float32(math.NaN()), 0, 0}, mgl32.Vec3{1, 0, 0}, 1, "must be finite"},
		{mgl32.Vec3{}, mgl32.Vec3{}, 1, "nonzero"},
		{mgl32.Vec3{}, mgl32.Vec3{1, 0, 0}, -1, "not negative"},
		{mgl32.Vec3{}, mgl32.Vec3{1, 0, 0}, float32(math.Inf(1)), "finite"},
	} {
		if _, ok, err := s.RayCast(c.origin, c.dir, c.max, QueryFilter{}); ok || err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "physics: RayCast: ") {
			t.Errorf("RayCast(%v, %v, %v): %v, %v; want an error saying %q", c.origin, c.dir, c.max, ok, err, c.want)
		}
	}
}

func TestOverlap(t *testing.T) {
	q := newQueryScene(t)
	s := q.tw.s
	got, err := s.Overlap(Shape{Kind: Sphere, Radius: 0.6}, mgl32.Vec3{3, 1.5, 0}, mgl32.QuatIdent(), QueryFilter{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []engine.Entity{q.wall}; !slices.Equal(got, want) {
		t.Errorf("a ball over the wall overlaps %v, want %v", got, want)
	}
	got, _ = s.Overlap(Shape{Kind: Box, HalfExtents: mgl32.Vec3{1.6, 0.1, 0.1}}, mgl32.Vec3{2.5, 0.5, 0}, mgl32.QuatIdent(), QueryFilter{Sensors: true}, got[:0])
	if want := []engine.Entity{q.box, q.sensor, q.wall, q.ball}; !sameSet(got, want) {
		t.Errorf("a long box through the row overlaps %v, want %v", got, want)
	}
	got, _ = s.Overlap(Shape{Kind: Capsule, Radius: 0.1, HalfHeight: 0.2}, mgl32.Vec3{-3, 0.25, 3}, mgl32.QuatIdent(), QueryFilter{}, got[:0])
	if len(got) != 1 {
		t.Errorf("a capsule standing in the floor overlaps %v, want the floor only", got)
	}
	if _, err := s.Overlap(Shape{Kind: Box}, mgl32.Vec3{}, mgl32.QuatIdent(), QueryFilter{}, nil); err == nil || !strings.HasPrefix(err.Error(), "physics: Overlap: ") {
		t.Errorf("a box of size 0: %v, want an error", err)
	}
	if _, err := s.Overlap(Shape{Kind: Sphere, Radius: 1}, mgl32.Vec3{}, mgl32.Quat{}, QueryFilter{}, nil); err == nil {
		t.Error("a zero rotation: no error")
	}
}

func sameSet(a, b []engine.Entity) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	cmp := func(p, q engine.Entity) int { return p.Index() - q.Index() }
	slices.SortFunc(x, cmp)
	slices.SortFunc(y, cmp)
	return slices.Equal(x, y)
}

func TestSweep(t *testing.T) {
	q := newQueryScene(t)
	s := q.tw.s
	// A ball rolling along the floor (touching it) towards the box: the
	// floor is not a hit, the box is, where the ball's front reaches
	// x = 1.5.
	h, ok, err := s.Sweep(Shape{Kind: Sphere, Radius: 0.25}, mgl32.Vec3{-1, 0.25, 0}, mgl32.QuatIdent(), mgl32.Vec3{4, 0, 0}, QueryFilter{})
	if err != nil || !ok || h.Entity != q.box {
		t.Fatalf("sweep: %+v %v %v, want the box", h, ok, err)
	}
	if front := -1 + 4*h.Fraction + 0.25; abs(front-1.5) > 0.002 || h.Normal.Sub(mgl32.Vec3{1, 0, 0}).Len() > 1e-3 {
		t.Errorf("stopped with its front at %v (normal %v), want 1.5 (+x)", front, h.Normal)
	}
	// Dropped onto the mesh.
	h, ok, _ = s.Sweep(Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}}, mgl32.Vec3{-3, 5, -3}, mgl32.QuatIdent(), mgl32.Vec3{0, -10, 0}, QueryFilter{})
	if !ok || abs(5-10*h.Fraction-0.5) > 0.002 {
		t.Errorf("a box dropped on the floor: %+v %v, want it to stop with its bottom at 0", h, ok)
	}
	if _, _, err := s.Sweep(Shape{Kind: Sphere, Radius: 1}, mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{float32(math.Inf(1)), 0, 0}, QueryFilter{}); err == nil {
		t.Error("an infinite sweep: no error")
	}
}

// FuzzQueries: whatever numbers a game passes, the queries return an
// error or finite results, never a panic.
func FuzzQueries(f *testing.F) {
	f.Add(float32(0), float32(0.5), float32(0), float32(1), float32(0), float32(0), float32(10), float32(0.5))
	f.Add(float32(3), float32(9), float32(-2), float32(0), float32(-1), float32(0), float32(1e30), float32(1e-9))
	f.Fuzz(func(t *testing.T, ox, oy, oz, dx, dy, dz, d, size float32) {
		q := newQueryScene(&testing.T{})
		s := q.tw.s
		o, dir := mgl32.Vec3{ox, oy, oz}, mgl32.Vec3{dx, dy, dz}
		if h, ok, err := s.RayCast(o, dir, d, QueryFilter{}); err == nil && ok && (!finite(h.Distance) || !toVec3(h.Point).finite()) {
			t.Fatalf("ray hit %+v", h)
		}
		for _, sh := range []Shape{{Kind: Sphere, Radius: size}, {Kind: Box, HalfExtents: mgl32.Vec3{size, size, size}}, {Kind: Capsule, Radius: size, HalfHeight: d}} {
			s.Overlap(sh, o, mgl32.QuatIdent(), QueryFilter{}, nil)
			if h, ok, err := s.Sweep(sh, o, mgl32.QuatIdent(), dir, QueryFilter{}); err == nil && ok && !(h.Fraction >= 0 && h.Fraction <= 1) {
				t.Fatalf("sweep hit %+v", h)
			}
		}
	})
}
