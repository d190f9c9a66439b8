package gfx_test

import (
	"github.com/nebulaengine/nebula/engine/render"

	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/modelgen"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
)

// demoFrame is a frame like cmd/nebula-demo's at its default window size
// (1280×720) and camera: 1,000 bodies of 0.3 to 0.8 units in a box of
// ±(16, 9, 16), every 4th a sphere, the rest cubes; a floor plane 32×32
// under them; the figure (internal/modelgen's, 7 units tall, at rest)
// near the back wall. The box's edges (gfx.Lines, 12 segments) are left
// out: they cost next to nothing.
type demoFrame struct {
	r      *gfx.Renderer
	w, h   int
	cam    gfx.Camera
	bodies []render.Instance // cubes and spheres
	floor  render.Instance
	figure render.Instance
}

// demoFigure is the figure's mesh in the benchmarks.
const demoFigure = render.MeshFirstGame

func newDemoFrame(b *testing.B) *demoFrame {
	cfg := platformtest.SmallHidden()
	cfg.Width, cfg.Height = 1280, 720
	win := platformtest.OpenWindow(b, cfg)
	d := &demoFrame{}
	var err error
	onMain(func() {
		d.w, d.h = win.FramebufferSize()
		if err = gfx.Init(); err == nil {
			d.r, err = gfx.NewRenderer(new(gfx.MemoryCounter))
		}
	})
	if err != nil {
		b.Fatalf("gfx.Init + NewRenderer: %v", err)
	}
	b.Cleanup(func() { onMain(d.r.Delete) })
	fig, err := model.FromDocument(modelgen.Figure(), "figure")
	if err != nil {
		b.Fatal(err)
	}
	register(d.r, demoFigure, newModel(b, fig))

	d.cam = gfx.Camera{Eye: mgl32.Vec3{0, 20, 40}, Target: mgl32.Vec3{0, -1, 0}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(50), Near: 0.1, Far: 200}
	box := mgl32.Vec3{16, 9, 16}
	rng := rand.New(rand.NewPCG(1, 2))
	in := func(lo, hi float32) float32 { return lo + (hi-lo)*rng.Float32() }
	for i := range 1000 {
		size := in(0.3, 0.8)
		mesh := render.MeshCube
		if i%4 == 3 {
			mesh = render.MeshSphere
		}
		d.bodies = append(d.bodies, render.Instance{
			Pos:   mgl32.Vec3{in(-box[0]+1, box[0]-1), in(-box[1]+1, box[1]-1), in(-box[2]+1, box[2]-1)},
			Rot:   mgl32.QuatRotate(in(0, 6), mgl32.Vec3{in(-1, 1), in(-1, 1), 1}.Normalize()),
			Scale: mgl32.Vec3{size, size, size},
			Color: [4]uint8{uint8(80 + rng.IntN(176)), uint8(80 + rng.IntN(176)), uint8(80 + rng.IntN(176)), 255},
			Mesh:  mesh,
		})
	}
	d.floor = render.Instance{Pos: mgl32.Vec3{0, -box[1] - 0.01, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{2 * box[0], 1, 2 * box[2]}, Color: [4]uint8{70, 74, 84, 255}, Mesh: render.MeshPlane}
	d.figure = render.Instance{Pos: mgl32.Vec3{-10, -box[1] + 3.5, -10}, Rot: mgl32.QuatRotate(mgl32.DegToRad(90), mgl32.Vec3{0, 1, 0}), Scale: mgl32.Vec3{7, 7, 7}, Color: [4]uint8{255, 255, 255, 255}, Mesh: demoFigure}
	return d
}

// instances returns the frame's instances: the bodies (without the
// spheres unless spheres, with the spheres' Mesh set to sphereMesh), the
// floor if floor, the figure if figure.
func (d *demoFrame) instances(spheres bool, sphereMesh render.MeshID, floor, figure bool) []render.Instance {
	var insts []render.Instance
	for _, in := range d.bodies {
		if in.Mesh == render.MeshSphere {
			if !spheres {
				continue
			}
			in.Mesh = sphereMesh
		}
		insts = append(insts, in)
	}
	if floor {
		insts = append(insts, d.floor)
	}
	if figure {
		insts = append(insts, d.figure)
	}
	return insts
}

func (d *demoFrame) path(name string, insts []render.Instance) framePath {
	clear := [4]float32{0.05, 0.06, 0.1, 1}
	return framePath{name, func() { d.r.Draw(d.w, d.h, clear, d.cam, insts, nil) }}
}

// BenchmarkDemoFrame draws the demo's frame (see demoFrame) and the same
// frame without each of its pieces, the floor alone and an empty frame
// (the clear), interleaved in one run, to show where its time goes;
// "sphere-model" draws the spheres as model.Sphere(16), the built-in
// sphere of before the impostor (224 triangles).
func BenchmarkDemoFrame(b *testing.B) {
	d := newDemoFrame(b)
	const sphere16 = demoFigure + 1
	register(d.r, sphere16, newModel(b, model.Sphere(16)))
	interleave(b, 5, []framePath{
		d.path("full", d.instances(true, render.MeshSphere, true, true)),
		d.path("sphere-model", d.instances(true, sphere16, true, true)),
		d.path("no-spheres", d.instances(false, 0, true, true)),
		d.path("no-floor", d.instances(true, render.MeshSphere, false, true)),
		d.path("no-figure", d.instances(true, render.MeshSphere, true, false)),
		d.path("cubes-only", d.instances(false, 0, false, false)),
		d.path("floor-only", []render.Instance{d.floor}),
		d.path("nothing", nil),
	})
}

// BenchmarkSpherePaths compares 1,000 spheres drawn by the built-in
// impostor (render.MeshSphere: a ray-cast quad each, see
// shaders/sphere.vert) with 1,000 spheres drawn as model.Sphere(16) (224
// triangles, the built-in sphere of before) and as model.Sphere(64),
// interleaved: in the demo's view (the bodies' sizes and places, 1280×720)
// and in the grid the other benchmarks draw (256×256, 0.2 of the view
// across each).
func BenchmarkSpherePaths(b *testing.B) {
	b.Run("demo", func(b *testing.B) {
		d := newDemoFrame(b)
		const sphere16 = demoFigure + 1
		register(d.r, sphere16, newModel(b, model.Sphere(16)))
		spheres := func(mesh render.MeshID) []render.Instance {
			insts := make([]render.Instance, len(d.bodies))
			for i, in := range d.bodies {
				in.Mesh = mesh
				insts[i] = in
			}
			return insts
		}
		interleave(b, 5, []framePath{
			d.path("impostor", spheres(render.MeshSphere)),
			d.path("model16", spheres(sphere16)),
		})
	})
	b.Run("grid", func(b *testing.B) {
		r, w, h := newRenderer(b, benchSize)
		const sphere16 = render.MeshFirstGame
		register(r, sphere16, newModel(b, model.Sphere(16)))
		draw := func(mesh render.MeshID) func() {
			insts := mixedInstances(1000, []render.MeshID{mesh})
			return func() { r.Draw(w, h, black, benchCamera, insts, nil) }
		}
		interleave(b, 10, []framePath{
			{"impostor", draw(render.MeshSphere)},
			{"model16", draw(sphere16)},
		})
	})
}
