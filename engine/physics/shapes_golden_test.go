package physics

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// shapesGoldenHash pins the state after shapesScene's steps: the hull
// builder's bits, the general convex contact's, the height field's and a
// live SetShape, SetKind and SetLayers. scripts/crossarch.sh and the
// GOARCH=386 / GOAMD64=v3 runs must give the same.
const shapesGoldenHash uint64 = 0xa496765b82f43b5e

const shapesGoldenSteps = 240

// shapesScene builds terrain with hills, and hulls, cylinders and boxes
// falling on it and on each other.
func shapesScene(t testing.TB, tw *testWorld) {
	tw.heightField(t, 13, 13, func(c, r int) float32 {
		return float32((c*7+r*3)%5) * 0.125
	}, 1, mgl32.Vec3{-6, 0, -6})
	rock, err := tw.s.AddConvexHull(mustHull(t, spherePointsConst(), 24))
	if err != nil {
		t.Fatal(err)
	}
	crate := tw.boxHull(t, mgl32.Vec3{0.3, 0.2, 0.4})
	for i := range 18 {
		x := float32(i%6) - 2.5
		z := float32(i/6) - 1
		var sh Shape
		switch i % 3 {
		case 0:
			sh = HullShape(rock)
		case 1:
			sh = Shape{Kind: Cylinder, Radius: 0.3, HalfHeight: 0.25}
		default:
			sh = HullShape(crate)
		}
		rot := mgl32.Quat{W: 0.9238795, V: mgl32.Vec3{0.38268343 * float32(i%2), 0, 0.38268343 * float32(1-i%2)}}
		tw.add(NewBodyDef(Dynamic, sh), mgl32.Vec3{x, 2 + float32(i%4)*0.7, z}, rot, mgl32.Vec3{0.5, 0, -0.25}, mgl32.Vec3{0, 1, 0})
	}
}

// spherePointsConst returns 40 points on a ball without trigonometry (the
// corners of a cube, an octahedron and their mid-edges, scaled), so the
// hull's input is the same bits everywhere.
func spherePointsConst() []mgl32.Vec3 {
	var pts []mgl32.Vec3
	for _, s := range [][3]float32{{1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {1, -1, -1}, {-1, 1, 1}, {-1, 1, -1}, {-1, -1, 1}, {-1, -1, -1}} {
		pts = append(pts, mgl32.Vec3{s[0] * 0.23, s[1] * 0.23, s[2] * 0.23})
	}
	for _, v := range [][3]float32{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}} {
		pts = append(pts, mgl32.Vec3{v[0] * 0.4, v[1] * 0.36, v[2] * 0.42})
	}
	for _, v := range [][3]float32{{1, 1, 0}, {1, -1, 0}, {-1, 1, 0}, {-1, -1, 0}, {1, 0, 1}, {1, 0, -1}, {-1, 0, 1}, {-1, 0, -1}, {0, 1, 1}, {0, 1, -1}, {0, -1, 1}, {0, -1, -1}} {
		pts = append(pts, mgl32.Vec3{v[0] * 0.29, v[1] * 0.27, v[2] * 0.3})
	}
	return pts
}

// TestShapesGoldenHash steps shapesScene, changing two bodies on the way,
// and compares the world's hash with shapesGoldenHash.
func TestShapesGoldenHash(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	shapesScene(t, tw)
	vals, _ := tw.s.bodies.Slices()
	_ = vals
	idx := tw.s.bodies.Indices()
	first, _ := tw.w.EntityAt(int(idx[1]))
	second, _ := tw.w.EntityAt(int(idx[2]))
	evh := uint64(0xcbf29ce484222325)
	for step := 1; step <= shapesGoldenSteps; step++ {
		switch step {
		case 60:
			if err := tw.s.SetShape(first, Shape{Kind: Cylinder, Radius: 0.25, HalfHeight: 0.4}, 2); err != nil {
				t.Fatal(err)
			}
		case 90:
			if err := tw.s.SetKind(second, Static, 0); err != nil {
				t.Fatal(err)
			}
		case 150:
			if err := tw.s.SetKind(second, Dynamic, 1); err != nil {
				t.Fatal(err)
			}
			if err := tw.s.SetLayers(first, 2, ^uint32(0)); err != nil {
				t.Fatal(err)
			}
		}
		tw.s.Step()
		evh = eventsHash(evh, tw.s.Events())
	}
	got := tw.w.Hash() ^ evh
	t.Logf("after %d steps: hash %016x, stats %+v", shapesGoldenSteps, got, tw.s.Stats())
	if got != shapesGoldenHash {
		t.Errorf("state hash after %d steps %016x, want %016x: if the step's results were meant to change, "+
			"pin the new hash once scripts/crossarch.sh shows it is the same on every architecture", shapesGoldenSteps, got, shapesGoldenHash)
	}
}
