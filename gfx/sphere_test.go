package gfx_test

import (
	"github.com/nebulaengine/nebula/engine/render"

	"image"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/gfx"
)

// pixelClass sorts a pixel of the sphere comparisons: the background, a
// sphere (the red ones) or anything else (the blue cubes and planes).
func pixelClass(img *image.RGBA, x, y int) int {
	c := img.RGBAAt(x, y)
	switch {
	case c == rgba(black):
		return 0
	case c.R > c.B:
		return 1
	}
	return 2
}

// nearClass reports whether a pixel within one pixel of (x, y) in img has
// class k.
func nearClass(img *image.RGBA, x, y, k int) bool {
	r := img.Rect
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			if p := image.Pt(x+dx, y+dy); p.In(r) && pixelClass(img, p.X, p.Y) == k {
				return true
			}
		}
	}
	return false
}

// The built-in sphere (a ray-cast impostor, see shaders/sphere.vert)
// covers the pixels model.Sphere(64) drawn as a model covers, to within
// one pixel of the model's edges, in colours within a few steps of the
// model's away from its edges: under strong perspective, turned and
// scaled unevenly, passing through cubes and a plane (its depth is the
// ellipsoid's), seen from inside its bounding sphere, cut by the near
// plane.
func TestSphereImpostorMatchesModelSphere(t *testing.T) {
	const size = 256
	r, w, h := newRenderer(t, size)
	const smooth = render.MeshFirstGame
	register(r, smooth, newModel(t, model.Sphere(64)))

	turn := func(deg float32, axis mgl32.Vec3) mgl32.Quat {
		return mgl32.QuatRotate(mgl32.DegToRad(deg), axis.Normalize())
	}
	sphere := func(pos, scale mgl32.Vec3, rot mgl32.Quat, g uint8) render.Instance {
		return render.Instance{Pos: pos, Rot: rot, Scale: scale, Color: [4]uint8{250, g, 20, 255}, Mesh: render.MeshSphere}
	}
	blue := func(mesh render.MeshID, pos, scale mgl32.Vec3, rot mgl32.Quat) render.Instance {
		return render.Instance{Pos: pos, Rot: rot, Scale: scale, Color: [4]uint8{30, 60, 240, 255}, Mesh: mesh}
	}
	wide := gfx.Camera{Eye: mgl32.Vec3{2, 4, 9}, Target: mgl32.Vec3{0, 0, 0}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(80), Near: 0.1, Far: 100}
	scenes := []struct {
		name  string
		cam   gfx.Camera
		insts []render.Instance
	}{
		{"spheres across a wide view", wide, []render.Instance{
			sphere(mgl32.Vec3{0, 0, 0}, mgl32.Vec3{3, 3, 3}, mgl32.QuatIdent(), 0),
			sphere(mgl32.Vec3{-6, 2, -2}, mgl32.Vec3{2, 4, 1}, turn(40, mgl32.Vec3{1, 1, 0}), 60),
			sphere(mgl32.Vec3{6, -3, 1}, mgl32.Vec3{4, 1, 2}, turn(-70, mgl32.Vec3{0, 1, 1}), 120),
			sphere(mgl32.Vec3{-3, -4, 4}, mgl32.Vec3{1.5, 0.5, 3}, turn(25, mgl32.Vec3{1, 0, 1}), 180),
			sphere(mgl32.Vec3{4, 4, -6}, mgl32.Vec3{5, 5, 5}, mgl32.QuatIdent(), 90),
			sphere(mgl32.Vec3{0.5, 2, 6}, mgl32.Vec3{0.8, 0.8, 0.8}, mgl32.QuatIdent(), 30),
		}},
		{"spheres through cubes and a floor", wide, []render.Instance{
			blue(render.MeshPlane, mgl32.Vec3{0, -1, 0}, mgl32.Vec3{30, 1, 30}, mgl32.QuatIdent()),
			sphere(mgl32.Vec3{0, -0.5, 0}, mgl32.Vec3{3, 3, 3}, mgl32.QuatIdent(), 0),
			sphere(mgl32.Vec3{-5, -1, 1}, mgl32.Vec3{4, 2, 3}, turn(30, mgl32.Vec3{0, 1, 0}), 100),
			blue(render.MeshCube, mgl32.Vec3{-5, 0, 1}, mgl32.Vec3{1.5, 3, 1.5}, turn(20, mgl32.Vec3{1, 2, 0})),
			sphere(mgl32.Vec3{4, 0, 2}, mgl32.Vec3{2, 2, 2}, mgl32.QuatIdent(), 200),
			sphere(mgl32.Vec3{4.8, 0.5, 2.5}, mgl32.Vec3{1.5, 3, 1.5}, turn(45, mgl32.Vec3{0, 0, 1}), 40),
		}},
		{"the eye inside a long ellipsoid's bounding sphere", gfx.Camera{Eye: mgl32.Vec3{0, 0.4, 3}, Target: mgl32.Vec3{0, 0, 0}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(70), Near: 0.1, Far: 100}, []render.Instance{
			sphere(mgl32.Vec3{0, 0, 0}, mgl32.Vec3{10, 0.6, 1}, turn(10, mgl32.Vec3{0, 1, 0}), 0),
			sphere(mgl32.Vec3{0, 0, 5}, mgl32.Vec3{1, 1, 1}, mgl32.QuatIdent(), 90), // behind the eye
		}},
		{"a sphere cut by the near plane", gfx.Camera{Eye: mgl32.Vec3{0, 0, 10}, Target: mgl32.Vec3{0, 0, 0}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(60), Near: 6.5, Far: 100}, []render.Instance{
			// The cap nearer than the near plane (depth 5.5 to 6.5) is cut
			// off, leaving a ring out to the silhouette (depth 7.2); the
			// sphere's inside faces away, so the cube behind shows.
			sphere(mgl32.Vec3{0, 0, 2}, mgl32.Vec3{5, 5, 5}, mgl32.QuatIdent(), 0),
			blue(render.MeshCube, mgl32.Vec3{0, 0, -4}, mgl32.Vec3{8, 8, 1}, mgl32.QuatIdent()),
		}},
	}
	for _, sc := range scenes {
		t.Run(sc.name, func(t *testing.T) {
			impostor, s := framePosed(t, r, w, h, sc.cam, sc.insts, nil)
			asModel := make([]render.Instance, len(sc.insts))
			spheres := 0
			for i, in := range sc.insts {
				if in.Mesh == render.MeshSphere {
					in.Mesh = smooth
					spheres++
				}
				asModel[i] = in
			}
			mesh, _ := framePosed(t, r, w, h, sc.cam, asModel, nil)
			if s.Instances+s.Culled != len(sc.insts) {
				t.Fatalf("Stats %+v, want %d instances drawn or culled", s, len(sc.insts))
			}
			var covered, edge, outside, colour, worst int
			for y := range h {
				for x := range w {
					a, b := pixelClass(impostor, x, y), pixelClass(mesh, x, y)
					if b == 1 {
						covered++
					}
					if a != b {
						if nearClass(mesh, x, y, a) {
							edge++
						} else {
							outside++
							if outside <= 5 {
								t.Errorf("pixel (%d, %d): class %d as the impostor draws it, %d as the mesh does, and no pixel next to it is %d in the mesh's",
									x, y, a, b, a)
							}
						}
						continue
					}
					// Away from every edge the colours agree.
					if a == 1 && !nearClass(mesh, x, y, 0) && !nearClass(mesh, x, y, 2) && !nearClass(impostor, x, y, 0) && !nearClass(impostor, x, y, 2) {
						pa, pb := impostor.RGBAAt(x, y), mesh.RGBAAt(x, y)
						d := max(absDiff(pa.R, pb.R), absDiff(pa.G, pb.G), absDiff(pa.B, pb.B))
						worst = max(worst, d)
						if d > 3 {
							colour++
							if colour <= 5 {
								t.Errorf("pixel (%d, %d): the impostor's %v, the mesh's %v", x, y, pa, pb)
							}
						}
					}
				}
			}
			t.Logf("%d spheres: %d pixels covered by the mesh, %d differ in class at its edges, %d elsewhere; interior colours differ by at most %d",
				spheres, covered, edge, outside, worst)
			if covered < 500 {
				t.Errorf("only %d sphere pixels: the scene does not test much", covered)
			}
			if outside > 0 || colour > 0 {
				t.Errorf("%d pixels differ in class away from the mesh's edges, %d in colour by more than 3", outside, colour)
			}
		})
	}
}
