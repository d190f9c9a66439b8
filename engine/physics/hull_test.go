package physics

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// boxPoints returns the 8 corners of a box of half extents h centred on c.
func boxPoints(h, c mgl32.Vec3) []mgl32.Vec3 {
	var out []mgl32.Vec3
	for _, z := range [2]float32{-1, 1} {
		for _, y := range [2]float32{-1, 1} {
			for _, x := range [2]float32{-1, 1} {
				out = append(out, mgl32.Vec3{c[0] + x*h[0], c[1] + y*h[1], c[2] + z*h[2]})
			}
		}
	}
	return out
}

// spherePoints returns n points spread over a sphere of radius r (a
// Fibonacci lattice; tests only: trigonometry).
func spherePoints(n int, r float64) []mgl32.Vec3 {
	out := make([]mgl32.Vec3, n)
	golden := math.Pi * (3 - math.Sqrt(5))
	for i := range n {
		y := 1 - 2*(float64(i)+0.5)/float64(n)
		rr := math.Sqrt(1 - y*y)
		a := golden * float64(i)
		out[i] = mgl32.Vec3{float32(r * rr * math.Cos(a)), float32(r * y), float32(r * rr * math.Sin(a))}
	}
	return out
}

func mustHull(t testing.TB, pts []mgl32.Vec3, maxV int) *Hull {
	t.Helper()
	h, err := NewConvexHull(pts, maxV)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestConvexHullBox: a box's corners with points inside and on its faces
// give 8 vertices, 6 square faces, the box's volume, centre and inertia.
func TestConvexHullBox(t *testing.T) {
	c := mgl32.Vec3{3, -2, 1}
	pts := boxPoints(mgl32.Vec3{1, 0.5, 2}, c)
	pts = append(pts, c, mgl32.Vec3{3, -2, 3}, mgl32.Vec3{3.5, -1.5, 1}, mgl32.Vec3{4, -2.25, 0.5})
	h := mustHull(t, pts, 0)
	if len(h.verts) != 8 || h.Faces() != 6 {
		t.Fatalf("%d vertices, %d faces, want 8 and 6", len(h.verts), h.Faces())
	}
	for i := range h.faces {
		if len(h.face(i)) != 4 {
			t.Errorf("face %d has %d corners, want 4", i, len(h.face(i)))
		}
	}
	if !nearVec(h.CenterOfMass(), c, 1e-5) {
		t.Errorf("centre of mass %v, want %v", h.CenterOfMass(), c)
	}
	if !nearF(float64(h.Volume()), 8, 1e-4) {
		t.Errorf("volume %v, want 8", h.Volume())
	}
	// A box's principal moments at density 1: m(b² + c²)/3 with half
	// extents, along its own axes.
	box := boxS(1, 0.5, 2)
	_, want := box.massProperties(1)
	got := h.moments
	sorted := func(v vec3) [3]float32 {
		a := [3]float32{v.x, v.y, v.z}
		for i := range 3 {
			for j := i + 1; j < 3; j++ {
				if a[j] < a[i] {
					a[i], a[j] = a[j], a[i]
				}
			}
		}
		return a
	}
	g, w := sorted(got), sorted(want)
	for i := range 3 {
		if !nearF(float64(g[i]), float64(w[i]), 1e-4*float64(w[i])) {
			t.Errorf("moments %v, want %v (any order)", got, want)
		}
	}
}

// TestConvexHullTetrahedron checks the mass properties of a corner
// tetrahedron against their closed form: volume abc/6, centre (a, b, c)/4.
func TestConvexHullTetrahedron(t *testing.T) {
	h := mustHull(t, []mgl32.Vec3{{0, 0, 0}, {2, 0, 0}, {0, 3, 0}, {0, 0, 4}}, 0)
	if !nearF(float64(h.Volume()), 4, 1e-5) {
		t.Errorf("volume %v, want 4", h.Volume())
	}
	if !nearVec(h.CenterOfMass(), mgl32.Vec3{0.5, 0.75, 1}, 1e-5) {
		t.Errorf("centre %v, want (0.5, 0.75, 1)", h.CenterOfMass())
	}
	if len(h.verts) != 4 || h.Faces() != 4 {
		t.Errorf("%d vertices, %d faces", len(h.verts), h.Faces())
	}
}

// TestConvexHullSphere: points on a sphere give a hull inside the ball
// whose volume nears the ball's, and the vertex limit holds.
func TestConvexHullSphere(t *testing.T) {
	pts := spherePoints(400, 1)
	full := mustHull(t, pts, MaxHullVertices)
	if len(full.verts) != MaxHullVertices {
		t.Errorf("%d vertices with the limit at %d", len(full.verts), MaxHullVertices)
	}
	ball := 4 * math.Pi / 3
	if v := float64(full.Volume()); v > ball || v < 0.95*ball {
		t.Errorf("volume %v, want a little under %v", v, ball)
	}
	for _, lim := range []int{4, 16, 64} {
		h := mustHull(t, pts, lim)
		if len(h.verts) > lim {
			t.Errorf("limit %d: %d vertices", lim, len(h.verts))
		}
		checkHull(t, h)
	}
}

// checkHull checks that h is convex and closed: every vertex is on or
// inside every face, every face's corners on its plane, and V - E + F = 2.
func checkHull(t testing.TB, h *Hull) {
	t.Helper()
	edges := 0
	for i := range h.faces {
		f := &h.faces[i]
		edges += int(f.count)
		for _, v := range h.verts {
			if d := v.dot(f.normal) - f.offset; d > 1e-3 {
				t.Fatalf("vertex %v is %v outside face %d", v, d, i)
			}
		}
	}
	if edges%2 != 0 {
		t.Fatalf("odd number of face edges %d", edges)
	}
	if v, e, f := len(h.verts), edges/2, len(h.faces); v-e+f != 2 {
		t.Fatalf("V - E + F = %d - %d + %d, want 2", v, e, f)
	}
}

// TestConvexHullErrors: degenerate input gets a clear error.
func TestConvexHullErrors(t *testing.T) {
	nan := float32(math.NaN())
	cases := []struct {
		name string
		pts  []mgl32.Vec3
		maxV int
		want string
	}{
		{"three points", []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, 0, "at least 4 not in one plane"},
		{"flat", []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0.5, 0.5, 0}}, 0, "at least 4 not in one plane"},
		{"line", []mgl32.Vec3{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}}, 0, "at least 4 not in one plane"},
		{"one point", []mgl32.Vec3{{1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, 0, "at least 4 not in one plane"},
		{"NaN", []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, nan}}, 0, "point 3"},
		{"far", []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 2e4}}, 0, "within 10000 m"},
		{"limit low", boxPoints(mgl32.Vec3{1, 1, 1}, mgl32.Vec3{}), 3, "vertex limit"},
		{"limit high", boxPoints(mgl32.Vec3{1, 1, 1}, mgl32.Vec3{}), MaxHullVertices + 1, "vertex limit"},
		{"too many", make([]mgl32.Vec3, MaxHullPoints+1), 0, "at most"},
	}
	for _, c := range cases {
		h, err := NewConvexHull(c.pts, c.maxV)
		if err == nil || h != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, %v; want an error with %q", c.name, h, err, c.want)
		}
	}
	if _, err := NewConvexHull([]mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, 0); !errors.Is(err, ErrFlatHull) {
		t.Errorf("%v is not ErrFlatHull", err)
	}
}

// TestConvexHullDeterministic: the same points give the same bits.
func TestConvexHullDeterministic(t *testing.T) {
	pts := spherePoints(300, 2)
	a, b := mustHull(t, pts, 32), mustHull(t, pts, 32)
	if len(a.verts) != len(b.verts) || len(a.faces) != len(b.faces) || a.volume != b.volume || a.moments != b.moments || a.frame != b.frame {
		t.Fatal("two builds differ")
	}
	for i := range a.verts {
		if a.verts[i] != b.verts[i] {
			t.Fatal("two builds differ")
		}
	}
}

func FuzzConvexHull(f *testing.F) {
	f.Add([]byte{0, 0, 0, 10, 0, 0, 0, 10, 0, 0, 0, 10, 5, 5, 5}, uint8(0))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}, uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, lim uint8) {
		var pts []mgl32.Vec3
		for i := 0; i+3 <= len(data) && len(pts) < 200; i += 3 {
			pts = append(pts, mgl32.Vec3{float32(int8(data[i])) / 8, float32(int8(data[i+1])) / 8, float32(int8(data[i+2])) / 8})
		}
		maxV := int(lim)
		h, err := NewConvexHull(pts, maxV)
		if err != nil {
			if h != nil {
				t.Fatal("a hull with an error")
			}
			return
		}
		if maxV == 0 {
			maxV = DefaultHullVertices
		}
		if len(h.verts) > maxV || !(h.Volume() > 0) {
			t.Fatalf("%d vertices (limit %d), volume %v", len(h.verts), maxV, h.Volume())
		}
		checkHull(t, h)
		if len(h.verts) < maxV {
			// Every point is inside the hull (it was not cut short).
			com := toVec3(h.CenterOfMass())
			for _, p := range pts {
				q := toVec3(p).sub(com)
				for i := range h.faces {
					if d := q.dot(h.faces[i].normal) - h.faces[i].offset; d > 1e-3 {
						t.Fatalf("point %v is %v outside face %d", p, d, i)
					}
				}
			}
		}
	})
}

// hullWorld returns a world with a floor and a hull asset of a box of
// half extents h.
func (tw *testWorld) boxHull(t testing.TB, h mgl32.Vec3) HullID {
	id, err := tw.s.AddConvexHull(mustHull(t, boxPoints(h, mgl32.Vec3{}), 0))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestHullBoxRests: a hull made of a unit box's corners, dropped on the
// floor, rests on its face without jitter, like the box it is, and falls
// asleep.
func TestHullBoxRests(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	id := tw.boxHull(t, mgl32.Vec3{0.5, 0.5, 0.5})
	e := tw.add(NewBodyDef(Dynamic, HullShape(id)), mgl32.Vec3{0, 1, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	tw.steps(60)
	p0 := tw.pos(e)
	tw.steps(120)
	p := tw.pos(e)
	if !nearF(float64(p[1]), 0.5, 0.01) || p.Sub(p0).Len() > 1e-3 {
		t.Errorf("at %v after 3 s (%v after 1 s), want resting at y = 0.5", p, p0)
	}
	if !tw.s.Asleep(e) {
		t.Errorf("not asleep after 3 s; velocity %v", tw.vel(e))
	}
	if m := tw.s.Contacts().Ptr().m; len(m) != 1 || m[0].n != 4 {
		t.Errorf("contacts %d, first with %d points; want one manifold of 4", len(m), m[0].n)
	}
}

// TestHullAgainstEveryShape drops a hull on each kind of shape and
// checks it comes to rest on top of it, at the height where they touch.
func TestHullAgainstEveryShape(t *testing.T) {
	for _, c := range shapeFloors {
		t.Run(c.name, func(t *testing.T) {
			tw := newTestWorld(t, DefaultConfig())
			top := c.add(t, tw)
			id := tw.boxHull(t, mgl32.Vec3{0.3, 0.3, 0.3})
			e := tw.add(NewBodyDef(Dynamic, HullShape(id)), mgl32.Vec3{0, top + 1, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
			tw.steps(240)
			p := tw.pos(e)
			if p[1] < top+c.minRest(0.3) || p[1] > top+0.31 || !(mgl32.Vec3{p[0], 0, p[2]}).ApproxEqualThreshold(mgl32.Vec3{}, 0.5) {
				t.Errorf("at %v, want resting on the top at %v", p, top)
			}
		})
	}
}

// shapeFloor is a static or fixed shape a test drops things on: add
// makes it with its top at the returned height, centred on x = z = 0.
type shapeFloor struct {
	name string
	add  func(t testing.TB, tw *testWorld) float32
	// low is how far below its half size a body may rest (a ball's top
	// is round: a box tips off it; 0 where it rests flat).
	low float32
}

func (f shapeFloor) minRest(half float32) float32 { return half - 0.01 - f.low }

var shapeFloors = []shapeFloor{
	{"box", func(t testing.TB, tw *testWorld) float32 { tw.floor(0.5, 0); return 0 }, 0},
	{"big sphere", func(t testing.TB, tw *testWorld) float32 { tw.ground(0.5, 0); return 0 }, 0},
	{"capsule", func(t testing.TB, tw *testWorld) float32 {
		tw.add(NewBodyDef(Static, Shape{Kind: Capsule, Radius: 0.5, HalfHeight: 3}), mgl32.Vec3{0, -0.5, 0},
			mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1}), mgl32.Vec3{}, mgl32.Vec3{})
		return 0
	}, 0},
	{"cylinder", func(t testing.TB, tw *testWorld) float32 {
		tw.add(NewBodyDef(Static, Shape{Kind: Cylinder, Radius: 5, HalfHeight: 0.5}), mgl32.Vec3{0, -0.5, 0},
			mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		return 0
	}, 0},
	{"hull", func(t testing.TB, tw *testWorld) float32 {
		id := tw.boxHull(t, mgl32.Vec3{5, 0.5, 5})
		tw.add(NewBodyDef(Static, HullShape(id)), mgl32.Vec3{0, -0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		return 0
	}, 0},
	{"mesh", func(t testing.TB, tw *testWorld) float32 {
		m, err := NewTriangleMesh([]mgl32.Vec3{{-5, 0, -5}, {5, 0, -5}, {5, 0, 5}, {-5, 0, 5}}, []uint32{0, 2, 1, 0, 3, 2})
		if err != nil {
			t.Fatal(err)
		}
		id, err := tw.s.AddMesh(m)
		if err != nil {
			t.Fatal(err)
		}
		tw.add(NewBodyDef(Static, Shape{Kind: Mesh, Mesh: id}), mgl32.Vec3{}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		return 0
	}, 0},
	{"height field", func(t testing.TB, tw *testWorld) float32 {
		tw.heightField(t, 11, 11, func(c, r int) float32 { return 0 }, 1, mgl32.Vec3{-5, 0, -5})
		return 0
	}, 0},
	{"compound", func(t testing.TB, tw *testWorld) float32 {
		id, err := tw.s.AddCompound([]Part{
			{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{2.5, 0.5, 5}}, Pos: mgl32.Vec3{-2.5, 0, 0}},
			{Shape: Shape{Kind: Box, HalfExtents: mgl32.Vec3{2.5, 0.5, 5}}, Pos: mgl32.Vec3{2.5, 0, 0}},
		})
		if err != nil {
			t.Fatal(err)
		}
		tw.add(NewBodyDef(Static, CompoundShape(id)), mgl32.Vec3{0, -0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		return 0
	}, 0},
}

// heightField adds a static height field of columns × rows samples cell
// metres apart, heights from h, its corner at origin, and returns it.
func (tw *testWorld) heightField(t testing.TB, columns, rows int, h func(c, r int) float32, cell float32, origin mgl32.Vec3) engine.Entity {
	hs := make([]float32, columns*rows)
	for r := range rows {
		for c := range columns {
			hs[r*columns+c] = h(c, r)
		}
	}
	hf, err := NewHeightField(columns, rows, hs, cell, cell)
	if err != nil {
		t.Fatal(err)
	}
	id, err := tw.s.AddHeightField(hf)
	if err != nil {
		t.Fatal(err)
	}
	return tw.add(NewBodyDef(Static, HeightFieldShape(id)), origin, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
}

// TestHullQueries: a ray, an overlap and a sweep meet a hull body where
// its faces are; a hull is a query shape too.
func TestHullQueries(t *testing.T) {
	tw := newTestWorld(t, zeroG())
	id, err := tw.s.AddConvexHull(mustHull(t, []mgl32.Vec3{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {0, 0, 2}}, 0))
	if err != nil {
		t.Fatal(err)
	}
	h := tw.s.hulls[id-1]
	com := h.CenterOfMass() // (0.5, 0.5, 0.5)
	e := tw.add(NewBodyDef(Static, HullShape(id)), com, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	// Down onto the slanted face x + y + z = 2 from above (0.2, 5, 0.2).
	hit, ok, err := tw.s.RayCast(mgl32.Vec3{0.2, 5, 0.2}, mgl32.Vec3{0, -1, 0}, 10, QueryFilter{})
	if err != nil || !ok || hit.Entity != e {
		t.Fatalf("ray: %+v %v %v", hit, ok, err)
	}
	inv := float32(1 / math.Sqrt(3))
	if !nearF(float64(hit.Distance), 3.4, 1e-4) || !nearVec(hit.Normal, mgl32.Vec3{inv, inv, inv}, 1e-4) {
		t.Errorf("ray hit at %v with normal %v, want 3.4 and (1, 1, 1)/√3", hit.Distance, hit.Normal)
	}
	// From below, onto the face y = 0.
	hit, ok, _ = tw.s.RayCast(mgl32.Vec3{0.5, -3, 0.5}, mgl32.Vec3{0, 1, 0}, 10, QueryFilter{})
	if !ok || !nearF(float64(hit.Distance), 3, 1e-5) || !nearVec(hit.Normal, mgl32.Vec3{0, -1, 0}, 1e-6) {
		t.Errorf("ray from below: %+v %v", hit, ok)
	}
	if _, ok, _ = tw.s.RayCast(mgl32.Vec3{1.5, 5, 1.5}, mgl32.Vec3{0, -1, 0}, 10, QueryFilter{}); ok {
		t.Error("a ray beside the slanted face hit")
	}
	ball := Shape{Kind: Sphere, Radius: 0.25}
	if got, _ := tw.s.Overlap(ball, mgl32.Vec3{0.5, 0.5, 0.5}, mgl32.QuatIdent(), QueryFilter{}, nil); len(got) != 1 {
		t.Errorf("overlap inside: %v", got)
	}
	if got, _ := tw.s.Overlap(ball, mgl32.Vec3{1.5, 1.5, 1.5}, mgl32.QuatIdent(), QueryFilter{}, nil); len(got) != 0 {
		t.Errorf("overlap outside: %v", got)
	}
	sw, ok, err := tw.s.Sweep(ball, mgl32.Vec3{0.5, -2, 0.5}, mgl32.QuatIdent(), mgl32.Vec3{0, 4, 0}, QueryFilter{})
	if err != nil || !ok || !nearF(float64(sw.Fraction), 1.75/4, 2e-3) || !nearVec(sw.Normal, mgl32.Vec3{0, 1, 0}, 1e-3) {
		t.Errorf("sweep: %+v %v %v, want fraction %v normal up", sw, ok, err, 1.75/4)
	}
	// The hull as the query's shape.
	q := HullShape(id)
	if got, _ := tw.s.Overlap(q, mgl32.Vec3{1.2, 0.5, 0.5}, mgl32.QuatIdent(), QueryFilter{}, nil); len(got) != 1 {
		t.Errorf("hull overlap: %v", got)
	}
	if _, err := tw.s.Overlap(HullShape(9), mgl32.Vec3{}, mgl32.QuatIdent(), QueryFilter{}, nil); err == nil {
		t.Error("an unknown hull as a query shape: no error")
	}
}

// TestHullCylinderNoAllocs: a step with hulls and cylinders piled on
// each other and a height field allocates nothing, nor do the queries.
func TestHullCylinderNoAllocs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NoSleep = true
	tw := newTestWorld(t, cfg)
	tw.heightField(t, 9, 9, func(c, r int) float32 { return float32(c%3) * 0.1 }, 1, mgl32.Vec3{-4, 0, -4})
	hid := tw.boxHull(t, mgl32.Vec3{0.3, 0.3, 0.3})
	rock, err := tw.s.AddConvexHull(mustHull(t, spherePoints(40, 0.4), 0))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		x := float32(i%4) - 1.5
		z := float32(i/4) - 1
		var sh Shape
		switch i % 3 {
		case 0:
			sh = HullShape(hid)
		case 1:
			sh = Shape{Kind: Cylinder, Radius: 0.3, HalfHeight: 0.3}
		default:
			sh = HullShape(rock)
		}
		tw.add(NewBodyDef(Dynamic, sh), mgl32.Vec3{x, 1 + float32(i%2), z}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	}
	tw.steps(120)
	if a := testing.AllocsPerRun(20, tw.s.Step); a != 0 {
		t.Errorf("%v allocations per step", a)
	}
	// The queries allocate nothing, with a hull, a cylinder or a box
	// (eachSeen hands each body's shape to its callback by value, so none
	// escapes).
	buf := make([]engine.Entity, 0, 32)
	queries := func(q Shape) float64 {
		return testing.AllocsPerRun(20, func() {
			tw.s.RayCast(mgl32.Vec3{0, 5, 0}, mgl32.Vec3{0, -1, 0}, 10, QueryFilter{})
			tw.s.Sweep(q, mgl32.Vec3{0, 5, 0}, mgl32.QuatIdent(), mgl32.Vec3{0, -5, 0}, QueryFilter{})
			tw.s.Overlap(q, mgl32.Vec3{0, 0.5, 0}, mgl32.QuatIdent(), QueryFilter{}, buf[:0])
		})
	}
	box := Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.3, 0.3, 0.3}}
	cyl := Shape{Kind: Cylinder, Radius: 0.3, HalfHeight: 0.3}
	if a, b, c := queries(HullShape(hid)), queries(cyl), queries(box); a != 0 || b != 0 || c != 0 {
		t.Errorf("%v allocations per hull query, %v per cylinder query, %v per box query", a, b, c)
	}
}

// BenchmarkStepShapes250 measures the step of 250 bodies (hulls of 24
// vertices, box hulls and cylinders, a third each) falling on a height
// field of 33 × 33 samples and piling up, 300 steps from the drop.
func BenchmarkStepShapes250(b *testing.B) {
	b.ReportAllocs()
	var tw *testWorld
	n := 0
	b.StopTimer()
	for range b.N {
		if n%300 == 0 {
			tw = newTestWorld(b, DefaultConfig())
			tw.heightField(b, 33, 33, func(c, r int) float32 { return float32((c*7+r*3)%5) * 0.1 }, 0.5, mgl32.Vec3{-8, 0, -8})
			rock, _ := tw.s.AddConvexHull(mustHull(b, spherePointsConst(), 24))
			crate := tw.boxHull(b, mgl32.Vec3{0.3, 0.2, 0.4})
			for i := range 250 {
				sh := HullShape(rock)
				switch i % 3 {
				case 1:
					sh = Shape{Kind: Cylinder, Radius: 0.3, HalfHeight: 0.25}
				case 2:
					sh = HullShape(crate)
				}
				x, z := float32(i%10)-4.5, float32(i/10%5)-2
				tw.add(NewBodyDef(Dynamic, sh), mgl32.Vec3{x, 1 + float32(i/50)*1.2, z}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
			}
			b.StartTimer()
		}
		tw.s.Step()
		n++
	}
}

// TestHullStack: five hull boxes stacked on the floor stand, as five
// boxes do, and fall asleep.
func TestHullStack(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	tw.floor(0.5, 0)
	id := tw.boxHull(t, mgl32.Vec3{0.5, 0.5, 0.5})
	var es []engine.Entity
	for i := range 5 {
		es = append(es, tw.add(NewBodyDef(Dynamic, HullShape(id)), mgl32.Vec3{0, 0.5 + float32(i), 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{}))
	}
	tw.steps(300)
	for i, e := range es {
		p := tw.pos(e)
		if !nearF(float64(p[1]), 0.5+float64(i), 0.02) || (mgl32.Vec3{p[0], 0, p[2]}).Len() > 0.01 {
			t.Errorf("box %d at %v, want standing at y = %v", i, p, 0.5+float64(i))
		}
		if !tw.s.Asleep(e) {
			t.Errorf("box %d awake after 5 s", i)
		}
	}
}

// TestHullSupportClimb: the support of a hull of many vertices, found by
// climbing along its edges from any vertex, is its farthest vertex along
// the direction (as a scan of all of them finds it), up to the rounding of
// two vertices of one face; and a hull of few vertices has no adjacency
// (its support scans).
func TestHullSupportClimb(t *testing.T) {
	h := mustHull(t, spherePointsConst(), 64)
	if len(h.verts) <= climbMinVertices || len(h.adjStart) != len(h.verts)+1 {
		t.Fatalf("%d vertices, %d adjacency starts: want a climbing hull", len(h.verts), len(h.adjStart))
	}
	for i := range len(h.verts) {
		if h.adjStart[i+1]-h.adjStart[i] < 3 {
			t.Errorf("vertex %d has %d neighbours, want at least 3", i, h.adjStart[i+1]-h.adjStart[i])
		}
	}
	exact := 0
	for k := range 2000 {
		// Directions spread over the sphere, some along the axes.
		a, b := float32(k)*0.7853, float32(k)*0.3137
		d := vec3{float32(math.Cos(float64(a)) * math.Sin(float64(b))), float32(math.Cos(float64(b))), float32(math.Sin(float64(a)) * math.Sin(float64(b)))}
		if k < 6 {
			d = unitAxis(k%3, k >= 3)
		}
		want, wd := 0, h.verts[0].dot(d)
		for i, v := range h.verts {
			if x := v.dot(d); x > wd {
				want, wd = i, x
			}
		}
		got := h.support(d, (k*7)%len(h.verts))
		if got == want {
			exact++
		} else if gd := h.verts[got].dot(d); gd < wd-1e-6 {
			t.Fatalf("direction %v: climb found vertex %d at %v, the farthest is %d at %v", d, got, gd, want, wd)
		}
	}
	if exact < 1990 {
		t.Errorf("climb found the scan's vertex for %d of 2000 directions, want all but a few ties", exact)
	}
	box := mustHull(t, []mgl32.Vec3{{-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {1, 1, -1}, {-1, -1, 1}, {1, -1, 1}, {-1, 1, 1}, {1, 1, 1}}, 0)
	if len(box.adj) != 0 {
		t.Errorf("a box hull has %d adjacency entries, want none (it scans)", len(box.adj))
	}
	// Each edge once (Euler: E = V + F - 2), its ends on a face of it.
	for _, hh := range []*Hull{h, box} {
		if e, want := len(hh.edgeEnds), len(hh.verts)+len(hh.faces)-2; e != want {
			t.Errorf("%d vertices, %d faces: %d edges, want %d", len(hh.verts), len(hh.faces), e, want)
		}
	}
}
