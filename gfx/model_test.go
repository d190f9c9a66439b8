package gfx_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"

	"image"
	"image/color"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/gfx"
)

// framePosed draws one frame with poses on the main thread, checks for GL
// errors and reads it back with the frame's statistics.
func framePosed(t testing.TB, r *gfx.Renderer, w, h int, cam gfx.Camera, insts []render.Instance, poses *render.Poses) (*image.RGBA, gfx.Stats) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var glErr, readErr error
	var s gfx.Stats
	onMain(func() {
		r.Draw(w, h, black, cam, insts, poses)
		s = r.Stats()
		glErr = gfx.CheckError()
		readErr = r.ReadRGBA(img)
	})
	if glErr != nil {
		t.Fatalf("after Draw with %d instances: %v", len(insts), glErr)
	}
	if readErr != nil {
		t.Fatalf("ReadRGBA: %v", readErr)
	}
	return img, s
}

// newModel uploads m on the main thread, deleted when the test ends.
func newModel(t testing.TB, m *model.Model) *gfx.Model {
	t.Helper()
	var g *gfx.Model
	var err error
	onMain(func() { g, err = gfx.NewModel(new(gfx.MemoryCounter), m) })
	if err != nil {
		t.Fatalf("NewModel(%s): %v", m.Name, err)
	}
	t.Cleanup(func() { onMain(g.Delete) })
	return g
}

// register registers m as id on the main thread.
func register(r *gfx.Renderer, id render.MeshID, m *gfx.Model) {
	onMain(func() { r.Register(id, m) })
}

// instance is an instance of mesh at pos, uniformly scaled, turned by
// rot, white unless coloured.
func instance(mesh render.MeshID, pos mgl32.Vec3, scale float32, rot mgl32.Quat) render.Instance {
	return render.Instance{Pos: pos, Rot: rot, Scale: mgl32.Vec3{scale, scale, scale}, Color: [4]uint8{255, 255, 255, 255}, Mesh: mesh}
}

// facingCamera turns the plane (facing +Y, texture top toward -Z) to face
// the test camera (+Z), its texture upright.
var facingCamera = mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{1, 0, 0})

// lit is what the default light makes of colour c on a face whose normal
// is +Z (toward the test camera).
func lit(c [3]float64) color.RGBA { return litFacing(c, mgl32.Vec3{0, 0, 1}) }

// litFacing is what the default light makes of colour c on a face whose
// unit normal is n.
func litFacing(c [3]float64, n mgl32.Vec3) color.RGBA {
	l := gfx.DefaultLight()
	k := float64(l.Ambient + l.Diffuse*max(0, l.Dir.Normalize().Dot(n)))
	return color.RGBA{uint8(math.Round(255 * c[0] * k)), uint8(math.Round(255 * c[1] * k)), uint8(math.Round(255 * c[2] * k)), 255}
}

// near reports whether a and b differ by at most tol in every channel.
func near(a, b color.RGBA, tol int) bool {
	return absDiff(a.R, b.R) <= tol && absDiff(a.G, b.G) <= tol && absDiff(a.B, b.B) <= tol && a.A == b.A
}

// at returns the pixel where cam draws world point p.
func at(img *image.RGBA, cam gfx.Camera, p mgl32.Vec3) color.RGBA {
	x, y := project(cam, img.Rect.Dx(), img.Rect.Dy(), p)
	return img.RGBAAt(int(x), int(y))
}

// Each built-in mesh is drawn where its transform says, at the size
// engine/mesh.go gives it: the blob's centroid within a pixel of the
// projected centre, its bounds within a pixel of the projected extent, its
// centre lit white, and its shape its own (a sphere leaves its bounding
// square's corners empty; a cube and a plane facing the camera fill
// theirs). A translated, scaled instance moves and grows accordingly.
func TestBuiltinMeshesDrawnWhereTheirTransformSays(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	bg := rgba(black)
	white := lit([3]float64{1, 1, 1})
	for _, mesh := range []struct {
		id    render.MeshID
		name  string
		rot   mgl32.Quat
		round bool
	}{
		{render.MeshCube, "cube", mgl32.QuatIdent(), false},
		{render.MeshSphere, "sphere", mgl32.QuatIdent(), true},
		{render.MeshPlane, "plane", facingCamera, false},
	} {
		for _, place := range []struct {
			pos   mgl32.Vec3
			scale float32
		}{{mgl32.Vec3{}, 3}, {mgl32.Vec3{-2, 1.5, 0}, 2}, {mgl32.Vec3{2.5, -1, 0}, 4}} {
			in := instance(mesh.id, place.pos, place.scale, mesh.rot)
			img, s := framePosed(t, r, w, h, testCamera, []render.Instance{in}, nil)
			b := findBlob(img, bg)
			// The front face (z = +scale/2) projects its corners here; the
			// sphere's silhouette is a little larger than its equator's
			// projection, by well under a pixel at this distance.
			half := place.scale / 2
			x0, y0 := project(testCamera, w, h, place.pos.Add(mgl32.Vec3{-half, half, half}))
			x1, y1 := project(testCamera, w, h, place.pos.Add(mgl32.Vec3{half, -half, half}))
			if mesh.round || mesh.id == render.MeshPlane {
				x0, y0 = project(testCamera, w, h, place.pos.Add(mgl32.Vec3{-half, half, 0}))
				x1, y1 = project(testCamera, w, h, place.pos.Add(mgl32.Vec3{half, -half, 0}))
			}
			cx, cy := project(testCamera, w, h, place.pos)
			if !mesh.round && mesh.id == render.MeshCube {
				cx, cy = project(testCamera, w, h, place.pos.Add(mgl32.Vec3{0, 0, half})) // the front face's centre
			}
			t.Logf("%s at %v scale %v: %d pixels, bounds %v, centroid (%.2f, %.2f), projected (%.2f, %.2f)-(%.2f, %.2f)",
				mesh.name, place.pos, place.scale, b.n, b.bounds, b.cx, b.cy, x0, y0, x1, y1)
			if s.DrawCalls != 1 || s.Instances != 1 || s.Meshes != 1 || s.Unknown != 0 {
				t.Errorf("%s: Stats %+v, want one draw call, instance and mesh", mesh.name, s)
			}
			if b.n == 0 {
				t.Fatalf("%s at %v: nothing drawn", mesh.name, place.pos)
			}
			if math.Abs(b.cx-cx) > 1 || math.Abs(b.cy-cy) > 1 {
				t.Errorf("%s at %v: centroid (%.2f, %.2f), want within a pixel of (%.2f, %.2f)", mesh.name, place.pos, b.cx, b.cy, cx, cy)
			}
			for _, e := range [][2]float64{{float64(b.bounds.Min.X), x0}, {float64(b.bounds.Max.X), x1}, {float64(b.bounds.Min.Y), y0}, {float64(b.bounds.Max.Y), y1}} {
				if math.Abs(e[0]-e[1]) > 1 {
					t.Errorf("%s at %v: bounds %v, want edges within a pixel of (%.1f, %.1f)-(%.1f, %.1f)", mesh.name, place.pos, b.bounds, x0, y0, x1, y1)
					break
				}
			}
			if c := img.RGBAAt(int(cx), int(cy)); !near(c, white, 3) {
				t.Errorf("%s at %v: centre pixel %v, want white lit facing the camera, %v", mesh.name, place.pos, c, white)
			}
			inset := b.bounds.Inset(1)
			corners := 0
			for _, p := range []image.Point{inset.Min, {inset.Max.X - 1, inset.Min.Y}, {inset.Min.X, inset.Max.Y - 1}, inset.Max.Sub(image.Pt(1, 1))} {
				if img.RGBAAt(p.X, p.Y) != bg {
					corners++
				}
			}
			if mesh.round && corners != 0 || !mesh.round && corners != 4 {
				t.Errorf("%s: %d of the 4 corners of its bounds are drawn, want %d", mesh.name, corners, map[bool]int{true: 0, false: 4}[mesh.round])
			}
		}
	}
}

// One frame of three meshes: each is drawn at its own place as its own
// shape, with one draw call per mesh.
func TestThreeMeshesInOneFrame(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	insts := []render.Instance{
		instance(render.MeshSphere, mgl32.Vec3{0, 2, 0}, 2.5, mgl32.QuatIdent()),
		instance(render.MeshPlane, mgl32.Vec3{2.5, -2, 0}, 2.5, facingCamera),
		instance(render.MeshCube, mgl32.Vec3{-2.5, -2, 0}, 2.5, mgl32.QuatIdent()),
		instance(render.MeshSphere, mgl32.Vec3{-3, 3, 0}, 1, mgl32.QuatIdent()),
	}
	img, s := framePosed(t, r, w, h, testCamera, insts, nil)
	if s.DrawCalls != 3 || s.Meshes != 3 || s.Instances != 4 {
		t.Errorf("Stats %+v, want 3 draw calls for 3 meshes and 4 instances", s)
	}
	// Two sphere impostors of 2 triangles, a cube's 6 (the faces turned
	// to the camera) and the plane's own.
	if want := 2*2 + 6 + len(model.Plane().Parts[0].Indices)/3; s.Triangles != want {
		t.Errorf("Stats.Triangles %d, want %d", s.Triangles, want)
	}
	bg := rgba(black)
	for _, in := range insts {
		half := in.Scale[0] / 2 * 0.9
		if got := at(img, testCamera, in.Pos); got == bg {
			t.Errorf("mesh %d at %v: centre not drawn", in.Mesh, in.Pos)
		}
		// The corner of the bounding square: drawn for a cube or a plane,
		// not for a sphere.
		got := at(img, testCamera, in.Pos.Add(mgl32.Vec3{half, half, 0}))
		if round := in.Mesh == render.MeshSphere; round != (got == bg) {
			t.Errorf("mesh %d at %v: the corner of its bounding square is %v, want it drawn only for a cube or a plane", in.Mesh, in.Pos, got)
		}
	}
	if got := at(img, testCamera, mgl32.Vec3{0, -2, 0}); got != bg {
		t.Errorf("between the meshes: %v, want the background", got)
	}
}

// The cube drawn as a regular model (model.Cube through mesh.vert) covers
// the same pixels as the vertex-pulling path, in the same colours to
// within one step: the comparison the benchmark makes is like for like.
func TestCubeAsModelMatchesVertexPulling(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	cube := newModel(t, model.Cube())
	insts := gridInstances(49, 7)
	for _, eye := range []mgl32.Vec3{{0, 0, 50}, {30, 30, 30}, {-30, 20, -35}} {
		cam := testCamera
		cam.Eye = eye
		a, _ := framePosed(t, r, w, h, cam, insts, nil)
		var pulled *gfx.Model
		onMain(func() { pulled = r.Mesh(render.MeshCube) })
		register(r, render.MeshCube, cube)
		b, s := framePosed(t, r, w, h, cam, insts, nil)
		register(r, render.MeshCube, pulled)
		if s.DrawCalls != 1 || s.Instances != len(insts) {
			t.Errorf("cube as a model: Stats %+v, want one draw call", s)
		}
		// All 12 of the model's triangles per instance (the pulled cube
		// submits only the 6 turned to the camera).
		if want := len(model.Cube().Parts[0].Indices) / 3 * len(insts); s.Triangles != want || want != 12*49 {
			t.Errorf("cube as a model: Stats.Triangles %d, want %d (12 per instance)", s.Triangles, want)
		}
		coverage, colour := 0, 0
		for y := range h {
			for x := range w {
				pa, pb := a.RGBAAt(x, y), b.RGBAAt(x, y)
				if (pa == rgba(black)) != (pb == rgba(black)) {
					coverage++
				} else if !near(pa, pb, 1) {
					colour++
				}
			}
		}
		if coverage > 0 || colour > 0 {
			t.Errorf("eye %v: the model cube and the pulled cube differ in coverage at %d pixels and in colour (by more than 1) at %d", eye, coverage, colour)
		}
	}
}

// bone returns m as a pose holds it.
func bone(m mgl32.Mat4) render.Bone {
	var b render.Bone
	for r := range 3 {
		for c := range 4 {
			b[4*r+c] = m.At(r, c)
		}
	}
	return b
}

// twoBoneBar is a flat bar along +X facing +Z, 0.4 tall, from x = 0 to
// x = 2: its first half follows joint 0 (the root, at the origin), its
// second half joint 1 (a child node at x = 1).
func twoBoneBar() *model.Model {
	var p model.Part
	quad := func(x0, x1 float32, joint uint16) {
		base := uint32(len(p.Positions))
		for _, c := range [4][2]float32{{x0, -0.2}, {x1, -0.2}, {x1, 0.2}, {x0, 0.2}} {
			p.Positions = append(p.Positions, mgl32.Vec3{c[0], c[1], 0})
			p.Normals = append(p.Normals, mgl32.Vec3{0, 0, 1})
			p.Joints = append(p.Joints, [4]uint16{joint, 0, 0, 0})
			p.Weights = append(p.Weights, [4]float32{1, 0, 0, 0})
		}
		p.Indices = append(p.Indices, base, base+1, base+2, base, base+2, base+3)
	}
	quad(0, 1, 0)
	quad(1, 2, 1)
	p.Name = "bar"
	p.Material.BaseColor = [4]float32{1, 1, 1, 1}
	return &model.Model{
		Name:  "two-bone bar",
		Parts: []model.Part{p},
		Nodes: []model.Node{
			{Name: "root", Parent: -1, Rest: geom.NewTransform(mgl32.Vec3{})},
			{Name: "elbow", Parent: 0, Rest: geom.NewTransform(mgl32.Vec3{1, 0, 0})},
		},
		Palette: []model.Joint{
			{Node: 0, InverseBind: mgl32.Ident4()},
			{Node: 1, InverseBind: mgl32.Translate3D(-1, 0, 0)},
		},
	}
}

// A two-bone bar at rest is straight; with a pose that turns its second
// bone a quarter turn about Z at the elbow, its second half stands up
// from the elbow, and the first half stays. The instance's transform
// applies on top, and pose 0 or a pose past the frame's draws it at rest.
func TestSkinnedModelFollowsItsPose(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	bar := newModel(t, twoBoneBar())
	const id = render.MeshFirstGame
	register(r, id, bar)
	bg := rgba(black)
	origin := mgl32.Vec3{-1.5, -1, 0}
	in := instance(id, origin, 1.5, mgl32.QuatIdent()) // the bar spans x -1.5 .. 1.5

	var poses render.Poses
	// A pose of its own, after a distracting pose of another model: the
	// renderer must read this pose's bones, not the frame's first.
	_, other, _ := poses.Add(3, 1)
	for i := range other {
		other[i] = bone(mgl32.Scale3D(0, 0, 0))
	}
	pose, bones, _ := poses.Add(2, 0)
	bones[0] = bone(mgl32.Ident4())
	bones[1] = bone(mgl32.Translate3D(1, 0, 0).Mul4(mgl32.HomogRotate3DZ(math.Pi / 2)).Mul4(mgl32.Translate3D(-1, 0, 0)))

	// Points of the bar in the model's space, placed by the instance.
	world := func(x, y float32) mgl32.Vec3 { return origin.Add(mgl32.Vec3{x, y, 0}.Mul(1.5)) }
	firstHalf, straight, bent := world(0.5, 0), world(1.6, 0), world(1, 0.6)
	for _, c := range []struct {
		name           string
		pose           uint16
		straight, bent bool
	}{
		{"at rest (pose 0)", 0, true, false},
		{"posed", pose, false, true},
		{"pose past the frame's", uint16(poses.Len() + 1), true, false},
	} {
		in.Pose = c.pose
		img, s := framePosed(t, r, w, h, testCamera, []render.Instance{in}, &poses)
		if s.Poses != 2 || s.DrawCalls != 1 {
			t.Errorf("%s: Stats %+v, want 2 poses and one draw call", c.name, s)
		}
		if at(img, testCamera, firstHalf) == bg {
			t.Errorf("%s: the first half at %v is not drawn", c.name, firstHalf)
		}
		if got := at(img, testCamera, straight) != bg; got != c.straight {
			t.Errorf("%s: the straight second half's place %v drawn = %v, want %v", c.name, straight, got, c.straight)
		}
		if got := at(img, testCamera, bent) != bg; got != c.bent {
			t.Errorf("%s: the bent second half's place %v drawn = %v, want %v", c.name, bent, got, c.bent)
		}
		// The bent half's top end is at elbow + 1 up: the blob's top edge
		// is there.
		b := findBlob(img, bg)
		top := world(1, 0.2)
		if c.bent {
			top = world(1, 1)
		}
		_, wantTop := project(testCamera, w, h, top)
		if math.Abs(float64(b.bounds.Min.Y)-wantTop) > 1 {
			t.Errorf("%s: the bar's top edge at row %d, want row %.1f", c.name, b.bounds.Min.Y, wantTop)
		}
	}
}

// Skinning turns normals with the bones: the bar turned about Y by its
// pose is lit as a face whose normal is turned so.
func TestSkinnedNormalsFollowTheBones(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	register(r, render.MeshFirstGame, newModel(t, twoBoneBar()))
	in := instance(render.MeshFirstGame, mgl32.Vec3{-1.5, -1, 0}, 1.5, mgl32.QuatIdent())
	for _, deg := range []float32{-50, -20, 0, 30, 60} {
		turn := mgl32.HomogRotate3DY(mgl32.DegToRad(deg))
		var poses render.Poses
		p, bones, _ := poses.Add(2, 0)
		bones[0], bones[1] = bone(turn), bone(turn) // joint 1's bind cancels its rest
		in.Pose = p
		img, _ := framePosed(t, r, w, h, testCamera, []render.Instance{in}, &poses)
		n := turn.Mul4x1(mgl32.Vec4{0, 0, 1, 0}).Vec3()
		want := litFacing([3]float64{1, 1, 1}, n)
		// A point of the bar's first half, turned.
		pt := in.Pos.Add(turn.Mul4x1(mgl32.Vec4{0.5, 0, 0, 1}).Vec3().Mul(1.5))
		if got := at(img, testCamera, pt); !near(got, want, 2) {
			t.Errorf("turned %v° about Y: pixel %v, want %v (lit with normal %v)", deg, got, want, n)
		}
	}
}

// A vertex moved by several joints goes where the weighted sum of their
// matrices takes it, whichever weight slots the joints are in: weights
// 0.5, 0, 0.25, 0.25 on joints 0 (still), 3 (far away), 1 (up 4) and 2
// (right 4) move the quad by (1, 1).
func TestSkinningBlendsJoints(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	quad := morphQuad(0)
	quad.Name = "blended quad"
	q := &quad.Parts[0]
	q.Targets, quad.RestWeights = nil, nil
	for range q.Positions {
		q.Joints = append(q.Joints, [4]uint16{0, 3, 1, 2})
		q.Weights = append(q.Weights, [4]float32{0.5, 0, 0.25, 0.25})
	}
	for range 3 {
		quad.Palette = append(quad.Palette, model.Joint{Node: 0, InverseBind: mgl32.Ident4()})
	}
	register(r, render.MeshFirstGame, newModel(t, quad))
	var poses render.Poses
	p, bones, _ := poses.Add(4, 0)
	bones[0] = bone(mgl32.Ident4())
	bones[1] = bone(mgl32.Translate3D(0, 4, 0))
	bones[2] = bone(mgl32.Translate3D(4, 0, 0))
	bones[3] = bone(mgl32.Translate3D(100, 100, 0))
	in := instance(render.MeshFirstGame, mgl32.Vec3{-1, -1, 0}, 1, mgl32.QuatIdent())
	for _, c := range []struct {
		pose uint16
		at   mgl32.Vec3
	}{{0, mgl32.Vec3{-1, -1, 0}}, {p, mgl32.Vec3{0, 0, 0}}} {
		in.Pose = c.pose
		img, _ := framePosed(t, r, w, h, testCamera, []render.Instance{in}, &poses)
		b := findBlob(img, rgba(black))
		wx, wy := project(testCamera, w, h, c.at)
		if b.n == 0 || math.Abs(b.cx-wx) > 1 || math.Abs(b.cy-wy) > 1 {
			t.Errorf("pose %d: %d pixels centred at (%.1f, %.1f), want the quad centred at %v, (%.1f, %.1f)", c.pose, b.n, b.cx, b.cy, c.at, wx, wy)
		}
	}
}

// morphQuad is a 2×2 square facing +Z. Target 0 raises its top edge by
// 1 and tilts its normals toward +X by 1; its weight is the model's weight
// 1 (weight 0 belongs to nothing, a distractor), rest at rest. Target 1
// lowers its bottom edge by 1, with weight 2, 0.5 at rest.
func morphQuad(rest float32) *model.Model {
	p := model.Part{
		Name:      "quad",
		Positions: []mgl32.Vec3{{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}},
		Normals:   []mgl32.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3},
		Targets: []model.Target{
			{
				Positions: []mgl32.Vec3{{}, {}, {0, 1, 0}, {0, 1, 0}},
				Normals:   []mgl32.Vec3{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}},
			},
			{Positions: []mgl32.Vec3{{0, -1, 0}, {0, -1, 0}, {}, {}}},
		},
		FirstWeight: 1,
		Material:    model.Material{BaseColor: [4]float32{1, 1, 1, 1}},
	}
	return &model.Model{
		Name:        "morph quad",
		Parts:       []model.Part{p},
		Nodes:       []model.Node{{Parent: -1, Rest: geom.NewTransform(mgl32.Vec3{})}},
		Palette:     []model.Joint{{Node: 0, InverseBind: mgl32.Ident4()}},
		RestWeights: []float32{0.9, rest, 0.5},
	}
}

// A morph target moves its vertices by weight × delta: the quad's top
// edge is drawn at y = 1, 2 and 1.5 for weights 0, 1 and 0.5, from a pose
// and from the model's rest weights; the bottom edge, moved by the other
// target at weight 0.5, stays. Its normal
// deltas turn the normal likewise, which the light shows.
func TestMorphTargetMovesVertices(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	const id = render.MeshFirstGame + 3
	bg := rgba(black)
	in := instance(id, mgl32.Vec3{0, -1, 0}, 1, mgl32.QuatIdent())
	_, bottom := project(testCamera, w, h, mgl32.Vec3{0, -2.5, 0})
	for _, weight := range []float32{0, 1, 0.5} {
		_, wantTop := project(testCamera, w, h, mgl32.Vec3{0, weight, 0})
		// From a pose, on a model whose rest weight says otherwise.
		register(r, id, newModel(t, morphQuad(0.25)))
		var poses render.Poses
		// Another pose comes first, with other weights: the instance's
		// pose must be read where its reference says.
		_, bones, ws := poses.Add(1, 3)
		bones[0], ws[0], ws[1], ws[2] = bone(mgl32.Ident4()), 0.7, 0.7, 0.7
		p, bones, ws := poses.Add(1, 3)
		bones[0], ws[0], ws[1], ws[2] = bone(mgl32.Ident4()), 0.9, weight, 0.5
		in.Pose = p
		posed, _ := framePosed(t, r, w, h, testCamera, []render.Instance{in}, &poses)
		// At rest, with the weight in the model.
		register(r, id, newModel(t, morphQuad(weight)))
		in.Pose = 0
		rest, _ := framePosed(t, r, w, h, testCamera, []render.Instance{in}, &poses)
		for name, img := range map[string]*image.RGBA{"pose": posed, "rest weights": rest} {
			b := findBlob(img, bg)
			t.Logf("weight %v from the %s: bounds %v, want top row %.1f", weight, name, b.bounds, wantTop)
			if math.Abs(float64(b.bounds.Min.Y)-wantTop) > 1 || math.Abs(float64(b.bounds.Max.Y)-bottom) > 1 {
				t.Errorf("weight %v from the %s: rows %d to %d, want %.1f to %.1f", weight, name, b.bounds.Min.Y, b.bounds.Max.Y, wantTop, bottom)
			}
			want := litFacing([3]float64{1, 1, 1}, mgl32.Vec3{weight, 0, 1}.Normalize())
			if got := at(img, testCamera, mgl32.Vec3{0, -1, 0}); !near(got, want, 2) {
				t.Errorf("weight %v from the %s: centre pixel %v, want %v (the normal tilted by the target)", weight, name, got, want)
			}
		}
	}
}

// A textured plane samples its texture: a 2×2 texture of four colours
// shows each in its quadrant, upright (the image's top row at the top),
// times the base colour factor, the vertex colour and the instance
// colour, lit.
func TestTexturedPartSamplesItsTexture(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	tex := image.NewRGBA(image.Rect(0, 0, 2, 2))
	quadrants := map[image.Point]color.RGBA{
		{0, 0}: {255, 0, 0, 255},     // top left: red
		{1, 0}: {0, 255, 0, 255},     // top right: green
		{0, 1}: {0, 0, 255, 255},     // bottom left: blue
		{1, 1}: {255, 255, 255, 255}, // bottom right: white
	}
	for p, c := range quadrants {
		tex.SetRGBA(p.X, p.Y, c)
	}
	plane := model.Plane()
	plane.Name = "textured plane"
	plane.Parts[0].Material = model.Material{BaseColor: [4]float32{1, 0.6, 1, 1}, Texture: tex}
	plane.Parts[0].Colors = make([][4]uint8, 4)
	for i := range plane.Parts[0].Colors {
		plane.Parts[0].Colors[i] = [4]uint8{255, 255, 153, 255}
	}
	const id = render.MeshFirstGame + 1
	register(r, id, newModel(t, plane))
	in := instance(id, mgl32.Vec3{}, 6, facingCamera)
	in.Color = [4]uint8{204, 255, 255, 255}
	img, _ := framePosed(t, r, w, h, testCamera, []render.Instance{in}, nil)
	for p, c := range quadrants {
		// The texel's centre: a quarter of the plane in from its edges.
		x, y := -1.5+3*float32(p.X), 1.5-3*float32(p.Y)
		want := lit([3]float64{float64(c.R) / 255 * 0.8, float64(c.G) / 255 * 0.6, float64(c.B) / 255 * 0.6})
		got := at(img, testCamera, mgl32.Vec3{x, y, 0})
		if !near(got, want, 3) {
			t.Errorf("texel %v (%v): pixel at (%v, %v) is %v, want %v within 3", p, c, x, y, got, want)
		}
	}
}

// The GL calls of a frame depend on the meshes in use, not on how many
// instances show them: 1, 100 and 10,000 instances of each of three
// meshes make the same calls, with one draw call per mesh.
func TestGLCallsPerFrameDependOnMeshesOnly(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	bar := newModel(t, twoBoneBar())
	register(r, render.MeshFirstGame, bar)
	meshes := []render.MeshID{render.MeshCube, render.MeshSphere, render.MeshFirstGame}
	calls := map[int]int{}
	var poses render.Poses
	for _, n := range []int{1, 100, 10_000, 100, 1} {
		insts := mixedInstances(n*len(meshes), meshes)
		poses.Reset()
		for i := range insts {
			if insts[i].Mesh == render.MeshFirstGame && i%2 == 0 {
				p, b, _ := poses.Add(2, 0)
				b[0], b[1] = bone(mgl32.Ident4()), bone(mgl32.Ident4())
				insts[i].Pose = p
			}
		}
		_, s := framePosed(t, r, w, h, testCamera, insts, &poses)
		t.Logf("%6d instances of each mesh: %+v", n, s)
		if s.DrawCalls != 3 || s.Meshes != 3 || s.Instances != len(insts) || s.Poses != poses.Len() {
			t.Errorf("%d instances each: Stats %+v, want 3 draw calls and meshes, %d instances, %d poses", n, s, len(insts), poses.Len())
		}
		calls[n] = s.GLCalls
	}
	if calls[1] != calls[100] || calls[1] != calls[10_000] || calls[1] == 0 {
		t.Errorf("GL calls per frame: %v, want the same non-zero count for 1, 100 and 10,000 instances of each mesh", calls)
	}
}

// mixedInstances returns n instances over the test camera's view, the
// meshes taking turns.
func mixedInstances(n int, meshes []render.MeshID) []render.Instance {
	insts := gridInstances(n, int(math.Ceil(math.Sqrt(float64(n)))))
	for i := range insts {
		insts[i].Mesh = meshes[i%len(meshes)]
	}
	return insts
}

// Instances of a mesh that is not registered (never, no longer, or a
// deleted model) are counted and not drawn; the others are drawn.
func TestUnknownMeshesAreCountedNotDrawn(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	bg := rgba(black)
	insts := []render.Instance{
		instance(render.MeshCube, mgl32.Vec3{-2, 0, 0}, 1.5, mgl32.QuatIdent()),
		instance(99, mgl32.Vec3{0, 2, 0}, 1.5, mgl32.QuatIdent()),
		instance(render.MeshSphere, mgl32.Vec3{2, 0, 0}, 1.5, mgl32.QuatIdent()),
		instance(60_000, mgl32.Vec3{0, -2, 0}, 1.5, mgl32.QuatIdent()),
		instance(render.MeshFirstGame, mgl32.Vec3{0, 0, 0}, 1.5, mgl32.QuatIdent()),
	}
	check := func(name string, unknown int, drawn ...bool) {
		t.Helper()
		img, s := framePosed(t, r, w, h, testCamera, insts, nil)
		if s.Unknown != unknown || s.Instances != len(insts)-unknown {
			t.Errorf("%s: Stats %+v, want %d unknown and %d drawn", name, s, unknown, len(insts)-unknown)
		}
		for i, in := range insts {
			if got := at(img, testCamera, in.Pos) != bg; got != drawn[i] {
				t.Errorf("%s: instance %d (mesh %d) drawn = %v, want %v", name, i, in.Mesh, got, drawn[i])
			}
		}
	}
	check("meshes 99, 60000 and 16 not registered", 3, true, false, true, false, false)

	var cube, sphere *gfx.Model
	onMain(func() { cube, sphere = r.Mesh(render.MeshCube), r.Mesh(render.MeshSphere) })
	register(r, render.MeshSphere, nil)
	register(r, render.MeshFirstGame, sphere)
	check("sphere moved to 16", 3, true, false, false, false, true)
	register(r, render.MeshSphere, sphere)
	register(r, 60_000, cube)
	check("the cube registered as 60000 too", 1, true, false, true, true, true)

	m := newModel(t, twoBoneBar())
	register(r, render.MeshFirstGame, m)
	onMain(m.Delete)
	check("a deleted model", 2, true, false, true, true, false)
	var got any
	onMain(func() {
		defer func() { got = recover() }()
		r.Register(render.MeshFirstGame, m)
	})
	if msg, _ := got.(string); !strings.HasPrefix(msg, "gfx: Renderer.Register") {
		t.Errorf("registering a deleted model panicked with %v, want a message starting \"gfx: Renderer.Register\"", got)
	}
}

// Drawing three meshes, skinned and posed instances among them, does not
// allocate.
func TestDrawModelsDoesNotAllocate(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	register(r, render.MeshFirstGame, newModel(t, twoBoneBar()))
	insts := mixedInstances(999, []render.MeshID{render.MeshCube, render.MeshSphere, render.MeshPlane, render.MeshFirstGame})
	var poses render.Poses
	fill := func() {
		poses.Reset()
		for i := range insts {
			if insts[i].Mesh == render.MeshFirstGame {
				p, b, _ := poses.Add(2, 0)
				b[0], b[1] = bone(mgl32.Ident4()), bone(mgl32.Ident4())
				insts[i].Pose = p
			}
		}
	}
	var allocs float64
	var err error
	onMain(func() {
		fill()
		r.Draw(w, h, black, testCamera, insts, &poses) // grows the buffers
		allocs = testing.AllocsPerRun(50, func() {
			fill()
			r.Draw(w, h, black, testCamera, insts, &poses)
			if e := gfx.CheckError(); e != nil && err == nil {
				err = e
			}
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Errorf("Draw of 3 meshes and a posed model allocates %v times per frame, want 0", allocs)
	}
}

// NewModel refuses what it cannot draw, naming the model and the part.
func TestNewModelRejectsBadModels(t *testing.T) {
	newContext(t)
	tests := []struct {
		name   string
		change func(m *model.Model)
		want   string
	}{
		{"no parts", func(m *model.Model) { m.Parts = nil }, "bar model: no parts"},
		{"no palette", func(m *model.Model) { m.Palette = nil }, "0 palette entries"},
		{"palette too long", func(m *model.Model) {
			m.Palette = make([]model.Joint, model.MaxPalette+1)
		}, "257 palette entries"},
		{"bad parent", func(m *model.Model) { m.Nodes[0].Parent = 1 }, "node 0 (root): parent 1"},
		{"palette node", func(m *model.Model) { m.Palette[1].Node = 5 }, "palette entry 1: node 5"},
		{"index out of range", func(m *model.Model) { m.Parts[0].Indices[4] = 8 }, "bar: index 4 is 8, there are 8 vertices"},
		{"partial triangle", func(m *model.Model) { m.Parts[0].Indices = m.Parts[0].Indices[:4] }, "bar: 8 vertices and 4 indices"},
		{"short normals", func(m *model.Model) { m.Parts[0].Normals = m.Parts[0].Normals[:3] }, "bar: 3 normals for 8 vertices"},
		{"joint past the palette", func(m *model.Model) { m.Parts[0].Joints[6][2] = 2 }, "bar: vertex 6: joint 2, the palette has 2 entries"},
		{"too many targets", func(m *model.Model) {
			m.Parts[0].Targets = make([]model.Target, model.MaxTargets+1)
		}, "9 morph targets"},
		{"targets past the weights", func(m *model.Model) {
			m.Parts[0].Targets = []model.Target{{Positions: make([]mgl32.Vec3, 8)}}
		}, "bar: morph targets use weights 0 to 0, the model has 0"},
		{"short target", func(m *model.Model) {
			m.RestWeights = []float32{0}
			m.Parts[0].Targets = []model.Target{{Positions: make([]mgl32.Vec3, 7)}}
		}, "bar: morph target 0: 7 position"},
		{"empty texture", func(m *model.Model) { m.Parts[0].Material.Texture = &image.RGBA{} }, "bar: empty base colour texture"},
	}
	for _, tt := range tests {
		m := twoBoneBar()
		m.Name = "bar model"
		tt.change(m)
		var g *gfx.Model
		var err error
		onMain(func() { g, err = gfx.NewModel(new(gfx.MemoryCounter), m) })
		if g != nil || err == nil || !strings.HasPrefix(err.Error(), "gfx: NewModel bar model: ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: NewModel = %v, %v; want an error starting \"gfx: NewModel bar model: \" containing %q", tt.name, g, err, tt.want)
		}
	}
	var err error
	onMain(func() { _, err = gfx.NewModel(new(gfx.MemoryCounter), nil) })
	if err == nil {
		t.Error("NewModel(nil) succeeded")
	}
}

// A model with more than 65,536 vertices uses 32-bit indices and is drawn
// whole: its last triangle, which indexes the last vertices, is there.
func TestLargeModelUses32BitIndices(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	m := model.Sphere(512) // 513 × 257 vertices
	if n := len(m.Parts[0].Positions); n <= 1<<16 {
		t.Fatalf("the sphere has %d vertices, want more than 65,536", n)
	}
	register(r, render.MeshFirstGame, newModel(t, m))
	in := instance(render.MeshFirstGame, mgl32.Vec3{}, 8, mgl32.QuatRotate(-math.Pi/2, mgl32.Vec3{1, 0, 0}))
	img, _ := framePosed(t, r, w, h, testCamera, []render.Instance{in}, nil)
	b := findBlob(img, rgba(black))
	// Turned back a quarter about X, the sphere's bottom pole (the last
	// vertices) faces the camera: the whole disc must be drawn.
	want := math.Pi / 4 * math.Pow(8*float64(h)/(2*50*math.Tan(6*math.Pi/180)), 2)
	if math.Abs(float64(b.n)-want) > 0.05*want {
		t.Errorf("the sphere covers %d pixels, want about %.0f", b.n, want)
	}
}

// Several models drawn at rest in one frame each use their own rest
// palette and rest weights: a quad whose rest weight raises its top edge
// beside one whose does not, a model whose node's rest transform lifts it,
// and a sphere, among posed instances.
func TestRestPalettesOfSeveralModels(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	lifted := model.Plane()
	lifted.Name = "lifted plane"
	lifted.Nodes[0].Rest.Pos = mgl32.Vec3{0, 0, -2.5} // up, once the instance turns it to face the camera
	register(r, render.MeshFirstGame, newModel(t, morphQuad(1)))
	register(r, render.MeshFirstGame+1, newModel(t, morphQuad(0)))
	register(r, render.MeshFirstGame+2, newModel(t, lifted))
	register(r, render.MeshFirstGame+3, newModel(t, twoBoneBar()))
	var poses render.Poses
	p, bones, _ := poses.Add(2, 0)
	bones[0], bones[1] = bone(mgl32.Translate3D(0, -0.5, 0)), bone(mgl32.Translate3D(0, -0.5, 0))
	bar := instance(render.MeshFirstGame+3, mgl32.Vec3{-1, 4, 0}, 1, mgl32.QuatIdent())
	bar.Pose = p
	insts := []render.Instance{
		bar,
		instance(render.MeshFirstGame, mgl32.Vec3{-3, 0, 0}, 1, mgl32.QuatIdent()),
		instance(render.MeshFirstGame+1, mgl32.Vec3{3, 0, 0}, 1, mgl32.QuatIdent()),
		instance(render.MeshFirstGame+2, mgl32.Vec3{0, -3, 0}, 1.5, facingCamera),
		instance(render.MeshSphere, mgl32.Vec3{-3, -3.5, 0}, 1, mgl32.QuatIdent()),
	}
	img, s := framePosed(t, r, w, h, testCamera, insts, &poses)
	if s.DrawCalls != 5 || s.Meshes != 5 {
		t.Errorf("Stats %+v, want 5 meshes and draw calls", s)
	}
	bg := rgba(black)
	for _, c := range []struct {
		what  string
		p     mgl32.Vec3
		drawn bool
	}{
		{"the raised quad's top", mgl32.Vec3{-3, 1.5, 0}, true},
		{"above the other quad", mgl32.Vec3{3, 1.5, 0}, false},
		{"the other quad", mgl32.Vec3{3, 0.5, 0}, true},
		{"the lifted plane", mgl32.Vec3{0, -3 + 2.5*1.5, 0}, true},
		{"where the plane would be without its node", mgl32.Vec3{0, -3, 0}, false},
		{"the sphere", mgl32.Vec3{-3, -3.5, 0}, true},
		{"the posed bar, lowered", mgl32.Vec3{0, 3.6, 0}, true},
		{"where the bar is at rest", mgl32.Vec3{0, 4.1, 0}, false},
	} {
		if got := at(img, testCamera, c.p) != bg; got != c.drawn {
			t.Errorf("%s at %v: drawn = %v, want %v", c.what, c.p, got, c.drawn)
		}
	}
}
