package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
)

// meshFloor adds a static 20×20 m floor at y = 0 made of a grid of
// triangles (so bodies rest across triangle edges) and returns it.
func (tw *testWorld) meshFloor(t *testing.T) {
	t.Helper()
	m := gridMesh(t, 10, func(x, z int) float32 { return 0 })
	id, err := tw.s.AddMesh(m)
	if err != nil {
		t.Fatal(err)
	}
	// The grid spans [0, 10]² in its frame; scale is not a body's, so
	// place it at (-5, 0, -5).
	tw.add(NewBodyDef(Static, Shape{Kind: Mesh, Mesh: id}), mgl32.Vec3{-5, 0, -5}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
}

// TestBodiesRestOnMesh: a box, a sphere and a capsule dropped on a floor of
// triangles land, come to rest on it within a millimetre of their resting
// height, and fall asleep, with one Begin event each.
func TestBodiesRestOnMesh(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.meshFloor(t)
	box := tw.add(NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}}), mgl32.Vec3{0.3, 2, 0.2}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	ball := tw.sphere(Dynamic, 0.5, mgl32.Vec3{-2, 3, 1.5}, mgl32.Vec3{})
	lying := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1})
	pill := tw.add(NewBodyDef(Dynamic, Shape{Kind: Capsule, Radius: 0.25, HalfHeight: 0.5}), mgl32.Vec3{2, 1, -2}, lying, mgl32.Vec3{}, mgl32.Vec3{})
	begins := map[int]int{}
	for range 600 {
		tw.s.Step()
		for _, ev := range tw.s.Events() {
			if ev.Kind == Begin {
				begins[ev.B.Index()]++
			}
		}
	}
	for _, c := range []struct {
		name string
		e    int
		y    float32
	}{{"box", box.Index(), 0.5}, {"ball", ball.Index(), 0.5}, {"capsule", pill.Index(), 0.25}} {
		p := tw.w.Bodies().Pos[c.e]
		if abs(p[1]-c.y) > 0.005 {
			t.Errorf("%s rests at y %v, want %v", c.name, p[1], c.y)
		}
		if begins[c.e] != 1 {
			t.Errorf("%s: %d Begin events with the floor, want 1", c.name, begins[c.e])
		}
	}
	if !tw.s.Asleep(box) || !tw.s.Asleep(ball) {
		t.Errorf("asleep after 10 s: box %v, ball %v", tw.s.Asleep(box), tw.s.Asleep(ball))
	}
}

// TestMeshCatchesFastBall: a CCD ball at 300 m/s does not pass through a
// floor of triangles.
func TestMeshCatchesFastBall(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.meshFloor(t)
	d := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.1})
	d.CCD = true
	ball := tw.add(d, mgl32.Vec3{0.5, 10, 0.5}, mgl32.QuatIdent(), mgl32.Vec3{0, -300, 0}, mgl32.Vec3{})
	for range 120 {
		tw.s.Step()
		if y := tw.pos(ball)[1]; y < 0 {
			t.Fatalf("the ball passed through the floor: y %v", y)
		}
	}
}

func TestAddBodyRefusesUnknownMesh(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	e := tw.w.Spawn(geom.NewTransform(mgl32.Vec3{}), 0)
	if err := tw.s.AddBody(e, NewBodyDef(Static, Shape{Kind: Mesh, Mesh: 3})); err == nil {
		t.Error("a body of mesh 3 in a Space with none: no error")
	}
}
