package physics

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/model"
)

// floorMesh is a square of side 2·half at y = 0 made of two triangles
// (0: x+z- ... split along the diagonal from (-half, -half) to (half, half)).
func floorMesh(t *testing.T, half float32) *TriangleMesh {
	t.Helper()
	m, err := NewTriangleMesh([]mgl32.Vec3{
		{-half, 0, -half}, {half, 0, -half}, {half, 0, half}, {-half, 0, half},
	}, []uint32{0, 2, 1, 0, 3, 2})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// gridMesh is an n×n grid of unit squares at y = 0, two triangles each,
// with heights from h.
func gridMesh(t testing.TB, n int, h func(x, z int) float32) *TriangleMesh {
	var pos []mgl32.Vec3
	for z := 0; z <= n; z++ {
		for x := 0; x <= n; x++ {
			pos = append(pos, mgl32.Vec3{float32(x), h(x, z), float32(z)})
		}
	}
	var idx []uint32
	for z := range n {
		for x := range n {
			i := uint32(z*(n+1) + x)
			idx = append(idx, i, i+uint32(n)+1, i+1, i+1, i+uint32(n)+1, i+uint32(n)+2)
		}
	}
	m, err := NewTriangleMesh(pos, idx)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewTriangleMeshRefusesBadInput(t *testing.T) {
	p := []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}
	nan := float32(math.NaN())
	for _, c := range []struct {
		name string
		pos  []mgl32.Vec3
		idx  []uint32
		want string
	}{
		{"count", p, []uint32{0, 1}, "multiple of 3, got 2"},
		{"range", p, []uint32{0, 1, 3}, "triangle 0 uses vertex 3 of 3"},
		{"nan", []mgl32.Vec3{{0, 0, 0}, {nan, 0, 0}, {0, 0, 1}}, []uint32{0, 1, 2}, "position 1 is not finite"},
		{"line", []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, []uint32{0, 1, 2}, "no triangle with an area"},
		{"none", p, nil, "no triangle with an area"},
	} {
		_, err := NewTriangleMesh(c.pos, c.idx)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "physics: ") {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
	if _, err := NewTriangleMesh(p, []uint32{0, 1, 1}); !errors.Is(err, ErrEmptyMesh) {
		t.Errorf("a mesh of one degenerate triangle: %v, want ErrEmptyMesh", err)
	}
	m, err := NewTriangleMesh(p, []uint32{0, 1, 1, 0, 2, 1})
	if err != nil || m.Triangles() != 1 {
		t.Errorf("a degenerate triangle beside a good one: %v, %d triangles, want 1", err, m.Triangles())
	}
}

// TestMeshOverlappingMatchesBruteForce: the hierarchy finds exactly the
// triangles whose bounds overlap a box, in ascending order.
func TestMeshOverlappingMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m := gridMesh(t, 20, func(x, z int) float32 { return float32((x*7+z*3)%5) * 0.25 })
	var got, stack []uint32
	for range 500 {
		c := vec3{r.Float32()*24 - 2, r.Float32()*2 - 0.5, r.Float32()*24 - 2}
		e := vec3{r.Float32() * 3, r.Float32() * 2, r.Float32() * 3}
		box := aabb{c.sub(e), c.add(e)}
		got, stack = m.overlapping(box, got[:0], stack)
		var want []uint32
		for i := range m.tris {
			a, b, cc := m.triangle(uint32(i))
			if (aabb{a.min(b).min(cc), a.max(b).max(cc)}).overlaps(box) {
				want = append(want, uint32(i))
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("box %v: got %v, want %v", box, got, want)
		}
	}
}

func TestSphereOnMesh(t *testing.T) {
	m := floorMesh(t, 5)
	var q meshQuery
	s := shape{kind: Sphere, radius: 0.5}
	out := collideMesh(&s, pose{vec3{1, 0.49, -2}, identity}, m, pose{q: identity}, 0.02, &q, nil)
	if len(out) != 1 {
		t.Fatalf("got %d manifolds, want 1: %+v", len(out), out)
	}
	g := out[0]
	if g.normal != (vec3{0, -1, 0}) || g.n != 1 || abs(g.pts[0].sep+0.01) > 1e-6 {
		t.Errorf("got %+v, want normal down (sphere to mesh), one point 1 cm deep", g)
	}
	if p := g.pts[0].p; abs(p.x-1) > 1e-6 || abs(p.y+0.005) > 1e-6 || abs(p.z+2) > 1e-6 {
		t.Errorf("point %v, want midway between the surfaces at (1, -0.005, -2)", p)
	}
	// Out of reach: nothing.
	if out := collideMesh(&s, pose{vec3{1, 0.53, -2}, identity}, m, pose{q: identity}, 0.02, &q, nil); len(out) != 0 {
		t.Errorf("a sphere 3 cm above: %+v, want none", out)
	}
	// From below, two-sided: pushed down, the normal from the sphere up to the mesh.
	out = collideMesh(&s, pose{vec3{1, -0.49, -2}, identity}, m, pose{q: identity}, 0.02, &q, nil)
	if len(out) != 1 || out[0].normal != (vec3{0, 1, 0}) {
		t.Errorf("a sphere under the floor: %+v, want one manifold with the normal up", out)
	}
}

// TestBoxOnMesh: a box resting on a floor of two triangles touches with
// its four bottom corners, split between the triangles, and keeps its ids
// when it moves a little.
func TestBoxOnMesh(t *testing.T) {
	m := floorMesh(t, 5)
	var q meshQuery
	s := shape{kind: Box, half: vec3{0.5, 0.5, 0.5}}
	collect := func(p vec3) ([]manifold, []vec3, map[[2]uint32]bool) {
		out := collideMesh(&s, pose{p, identity}, m, pose{q: identity}, 0.02, &q, nil)
		var pts []vec3
		ids := map[[2]uint32]bool{}
		for _, g := range out {
			if g.normal != (vec3{0, -1, 0}) {
				t.Errorf("normal %v, want down", g.normal)
			}
			for _, c := range g.pts[:g.n] {
				if abs(c.sep+0.001) > 1e-5 {
					t.Errorf("separation %v, want -0.001", c.sep)
				}
				pts = append(pts, c.p)
				ids[[2]uint32{g.sub, c.id}] = true
			}
		}
		return out, pts, ids
	}
	out, pts, ids := collect(vec3{0.3, 0.499, 0.2})
	if len(out) != 2 {
		t.Fatalf("got %d manifolds, want 2 (the box straddles the diagonal)", len(out))
	}
	for _, corner := range []vec3{{-0.2, 0, -0.3}, {0.8, 0, -0.3}, {0.8, 0, 0.7}, {-0.2, 0, 0.7}} {
		found := false
		for _, p := range pts {
			if abs(p.x-corner.x) < 1e-5 && abs(p.z-corner.z) < 1e-5 {
				found = true
			}
		}
		if !found {
			t.Errorf("corner %v missing from %v", corner, pts)
		}
	}
	_, _, ids2 := collect(vec3{0.301, 0.499, 0.2005})
	for id := range ids {
		if !ids2[id] {
			t.Errorf("id %v lost after a small move: %v then %v", id, ids, ids2)
		}
	}
}

// TestBoxInCrease: a box in the corner of a floor and a wall is pushed out
// of both, along two normals.
func TestBoxInCrease(t *testing.T) {
	mesh, err := NewTriangleMesh([]mgl32.Vec3{
		{-5, 0, -5}, {5, 0, -5}, {5, 0, 5}, {-5, 0, 5}, // floor
		{-5, 0, -1}, {5, 0, -1}, {5, 10, -1}, {-5, 10, -1}, // wall at z = -1
	}, []uint32{0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7})
	if err != nil {
		t.Fatal(err)
	}
	var q meshQuery
	s := shape{kind: Box, half: vec3{0.5, 0.5, 0.5}}
	out := collideMesh(&s, pose{vec3{0, 0.49, -0.51}, identity}, mesh, pose{q: identity}, 0.02, &q, nil)
	normals := map[vec3]bool{}
	for _, g := range out {
		normals[g.normal] = true
	}
	if !normals[vec3{0, -1, 0}] || !normals[vec3{0, 0, -1}] {
		t.Errorf("normals %v, want down (floor) and -z (wall)", normals)
	}
}

func TestCapsuleOnMesh(t *testing.T) {
	m := floorMesh(t, 5)
	var q meshQuery
	s := shape{kind: Capsule, radius: 0.25, halfHeight: 1}
	lying := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1})
	out := collideMesh(&s, pose{vec3{-2, 0.24, 3}, toQuat(lying)}, m, pose{q: identity}, 0.02, &q, nil)
	n := 0
	for _, g := range out {
		if g.normal.sub(vec3{0, -1, 0}).length() > 1e-5 {
			t.Errorf("normal %v, want down", g.normal)
		}
		for _, c := range g.pts[:g.n] {
			if abs(c.sep+0.01) > 1e-4 {
				t.Errorf("separation %v, want -0.01", c.sep)
			}
			n++
		}
	}
	if n != 2 {
		t.Errorf("a capsule lying on the floor: %d points, want 2 (its ends): %+v", n, out)
	}
	// Standing on its end: one point.
	out = collideMesh(&s, pose{vec3{-2, 1.24, -3}, identity}, m, pose{q: identity}, 0.02, &q, nil)
	if len(out) != 1 || out[0].n != 1 {
		t.Errorf("a standing capsule: %+v, want one point", out)
	}
}

// TestMeshFromModel: a model's parts become one mesh, posed at rest.
func TestMeshFromModel(t *testing.T) {
	m := &model.Model{
		Name:    "ramp",
		Nodes:   []model.Node{{Parent: -1, Rest: geom.NewTransform(mgl32.Vec3{0, 2, 0})}},
		Palette: []model.Joint{{Node: 0, InverseBind: mgl32.Ident4()}},
		Parts: []model.Part{{
			Name:      "p",
			Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}},
			Joints:    [][4]uint16{{0}, {0}, {0}},
			Weights:   [][4]float32{{1}, {1}, {1}},
			Indices:   []uint32{0, 2, 1},
		}, {
			Name:      "q",
			Positions: []mgl32.Vec3{{5, 0, 0}, {6, 0, 0}, {5, 0, 1}},
			Indices:   []uint32{0, 2, 1},
		}},
	}
	mesh, err := NewTriangleMeshFromModel(m)
	if err != nil {
		t.Fatal(err)
	}
	if mesh.Triangles() != 2 {
		t.Fatalf("%d triangles, want 2", mesh.Triangles())
	}
	a, _, _ := mesh.triangle(0)
	d, _, _ := mesh.triangle(1)
	if a != (vec3{0, 2, 0}) || d != (vec3{5, 0, 0}) {
		t.Errorf("first corners %v and %v, want (0, 2, 0) (skinned, lifted by its joint) and (5, 0, 0)", a, d)
	}
}

// FuzzCollideMesh: whatever the pose and size of a shape near a mesh, the
// manifolds hold at most maxPoints finite points each, with unit normals,
// within the margin.
func FuzzCollideMesh(f *testing.F) {
	f.Add(uint8(2), float32(0.5), float32(0.3), float32(0.1), float32(0.4), float32(0.2), float32(0.3), float32(0.1), float32(0.9))
	f.Add(uint8(1), float32(0.25), float32(1), float32(0), float32(0.2), float32(0), float32(0), float32(0.7), float32(0.7))
	f.Add(uint8(0), float32(1), float32(0), float32(0), float32(0), float32(0), float32(0), float32(0), float32(1))
	mesh := gridMesh(f, 4, func(x, z int) float32 { return float32((x+z)%3) * 0.5 })
	f.Fuzz(func(t *testing.T, kind uint8, size, x, y, z, qx, qy, qz, qw float32) {
		for _, v := range []float32{size, x, y, z, qx, qy, qz, qw} {
			if !finite(v) || abs(v) > 1e3 {
				return
			}
		}
		size = 0.05 + abs(size)
		q := quat{qx, qy, qz, qw}
		if q.lengthSq() < 1e-6 {
			return
		}
		q = q.normalize()
		s := shape{kind: ShapeKind(kind%3) + Sphere, half: vec3{size, size * 0.5, size * 2}, radius: size, halfHeight: size}
		var mq meshQuery
		for _, g := range collideMesh(&s, pose{vec3{x, y, z}, q}, mesh, pose{q: identity}, 0.02, &mq, nil) {
			if g.n < 1 || g.n > maxPoints {
				t.Fatalf("%d points", g.n)
			}
			if l := g.normal.length(); !(abs(l-1) < 1e-3) {
				t.Fatalf("normal %v of length %v", g.normal, l)
			}
			for _, c := range g.pts[:g.n] {
				if !c.p.finite() || !finite(c.sep) || c.sep > 0.02+1e-4 {
					t.Fatalf("point %+v", c)
				}
			}
		}
	})
}

// TestActiveEdges: the diagonal of a flat square and the seams between
// squares are inactive, the boundary is active, and so is the fold of a
// ridge; corners shared by position count as shared even when the
// triangles do not share vertex indices.
func TestActiveEdges(t *testing.T) {
	m := floorMesh(t, 1)
	for i, a := range m.active {
		// Triangle 0 is (0, 2, 1): its edge 0 (corner 0 to 2) is the
		// diagonal; triangle 1 is (0, 3, 2): its edge 2 (2 to 0).
		diag := map[int]uint8{0: 1 << 0, 1: 1 << 2}[i]
		if a != 7&^diag {
			t.Errorf("triangle %d: active edges %03b, want %03b", i, a, 7&^diag)
		}
	}
	// Two triangles apart in the index list, meeting at a ridge.
	ridge, err := NewTriangleMesh([]mgl32.Vec3{
		{0, 0, 0}, {0, 0, 1}, {1, 1, 0}, // up to the ridge at x = 1
		{1, 1, 0}, {0, 0, 1}, {1, 1, 1},
		{1, 1, 0}, {1, 1, 1}, {2, 0, 0}, // and down
	}, []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8})
	if err != nil {
		t.Fatal(err)
	}
	// Triangles 0 and 1 are coplanar (their shared edge inactive),
	// triangles 1 and 2 share the ridge (active).
	if ridge.active[0]&(1<<1) != 0 {
		t.Errorf("the seam between coplanar triangles 0 and 1 is active: %03b", ridge.active[0])
	}
	if ridge.active[2]&(1<<0) == 0 {
		t.Errorf("the ridge is inactive: %03b", ridge.active[2])
	}
}

// TestBallSlidesOverSeams: a ball rolling fast across a flat floor of
// triangles never leaves it (no bump at a seam throws it up).
func TestBallRollsOverSeams(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.meshFloor(t)
	ball := tw.sphere(Dynamic, 0.25, mgl32.Vec3{-4, 0.25, -3.7}, mgl32.Vec3{8, 0, 6})
	for range 50 {
		tw.s.Step()
		if p := tw.pos(ball); abs(p[1]-0.25) > 0.003 {
			t.Fatalf("the ball at height %v, want 0.25: bumped by a seam", p[1])
		}
	}
}
