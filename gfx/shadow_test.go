package gfx_test

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/engine/render"
	"github.com/nebulaengine/nebula/gfx"
)

// With shadows on, a cube, a sphere impostor and a model (a sphere mesh)
// hanging over a floor, lit from straight above, each cast a shadow
// straight down: the floor under each is lit by the ambient light alone
// (0.3 of its colour), the floor in the open by all of it, without acne;
// a transparent cube casts none. With shadows off the floor is lit
// everywhere, and the frame makes no shadow pass.
func TestShadowsFallUnderTheirCasters(t *testing.T) {
	r, w, h := newRenderer(t, 128)
	const smooth = render.MeshFirstGame
	register(r, smooth, newModel(t, model.Sphere(24)))
	onMain(func() { r.SetLight(gfx.Light{Dir: mgl32.Vec3{0, 1, 0}, Ambient: 0.3, Diffuse: 0.7}) })
	restoreLightAndShadows(t, r)
	cam := shadowCamera
	insts := []render.Instance{
		floorPlane,
		box(mgl32.Vec3{0, 2, 0}, 1, [4]uint8{200, 60, 60, 255}, render.MeshCube),
		box(mgl32.Vec3{3, 1.5, 0}, 1.2, [4]uint8{60, 200, 60, 255}, render.MeshSphere),
		box(mgl32.Vec3{-3, 1.5, 0}, 1.2, [4]uint8{60, 60, 200, 255}, smooth),
		box(mgl32.Vec3{0, 2, -3.5}, 1, [4]uint8{200, 200, 60, 100}, render.MeshCube), // transparent
	}
	floorAt := func(shadows bool, points ...mgl32.Vec3) ([]int, gfx.Stats) {
		onMain(func() {
			s := gfx.DefaultShadows()
			s.On = shadows
			if err := r.SetShadows(s); err != nil {
				t.Fatal(err)
			}
		})
		img, s := framePosed(t, r, w, h, cam, insts, nil)
		var out []int
		for _, p := range points {
			x, y := project(cam, w, h, p)
			out = append(out, int(img.RGBAAt(int(x), int(y)).G))
		}
		return out, s
	}
	under := []mgl32.Vec3{{0, 0, 0}, {3, 0, 0}, {-3, 0, 0}}
	open := []mgl32.Vec3{{0, 0, 3}, {5, 0, 3}, {-5, 0, -5}, {0, 0, -3.5}} // the last under the transparent cube
	on, s := floorAt(true, append(under, open...)...)
	if s.ShadowDrawCalls == 0 {
		t.Errorf("shadows on: Stats.ShadowDrawCalls 0, want the shadow pass's draws")
	}
	for i, g := range on[:len(under)] {
		if g < 58 || g > 62 {
			t.Errorf("shadows on: the floor under caster %d at %v is %d, want 60 (ambient only)", i, under[i], g)
		}
	}
	for i, g := range on[len(under):] {
		if g < 198 {
			t.Errorf("shadows on: the floor in the open at %v is %d, want 200 (lit, no acne)", open[i], g)
		}
	}
	off, s := floorAt(false, append(under, open...)...)
	if s.ShadowDrawCalls != 0 {
		t.Errorf("shadows off: Stats.ShadowDrawCalls %d, want 0", s.ShadowDrawCalls)
	}
	for i, g := range off {
		if g < 198 {
			t.Errorf("shadows off: the floor at %v is %d, want 200", append(under, open...)[i], g)
		}
	}
}

// SetShadows refuses a map size or a distance out of range and keeps what
// it had.
func TestSetShadowsRefusesBadValues(t *testing.T) {
	r, _, _ := newRenderer(t, 32)
	for _, s := range []gfx.Shadows{{On: true, Size: 100, Distance: 50}, {On: true, Size: 2048, Distance: 0}, {On: true, Size: 9000, Distance: 50}} {
		var err error
		onMain(func() { err = r.SetShadows(s) })
		if err == nil {
			t.Errorf("SetShadows(%+v) accepted", s)
		}
		if got := r.Shadows(); got.On {
			t.Errorf("after a refused SetShadows(%+v), Shadows() = %+v, want off as before", s, got)
		}
	}
}

// A frame with shadows, lights and transparency allocates nothing once
// the renderer's buffers have grown, on either path.
func TestShadowedFramesDoNotAllocate(t *testing.T) {
	r, w, h := newRenderer(t, 64)
	insts := []render.Instance{
		{Pos: mgl32.Vec3{}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{20, 1, 20}, Color: [4]uint8{200, 200, 200, 255}, Mesh: render.MeshPlane},
		box(mgl32.Vec3{0, 2, 0}, 1, [4]uint8{200, 60, 60, 255}, render.MeshCube),
		box(mgl32.Vec3{2, 1, 0}, 1, [4]uint8{60, 200, 60, 120}, render.MeshSphere),
	}
	slots := make([]render.TickInstance, len(insts))
	for i, in := range insts {
		slots[i] = render.TickInstance{PrevPos: in.Pos, PrevRot: in.Rot, PrevScale: in.Scale, Pos: in.Pos, Rot: in.Rot, Scale: in.Scale,
			Color: in.Color, Mesh: in.Mesh, Flags: render.TickDrawn}
	}
	lights := []render.Light{{Kind: render.PointLight, Pos: mgl32.Vec3{0, 3, 0}, Color: mgl32.Vec3{1, 1, 1}, Range: 10}}
	var cpu, gpu float64
	onMain(func() {
		if err := r.SetShadows(gfx.DefaultShadows()); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = r.SetShadows(gfx.Shadows{}) }()
		cam := featureCam
		cpu = testing.AllocsPerRun(20, func() {
			r.SetLights(lights)
			r.Draw(w, h, black, cam, insts, nil)
		})
		gpu = testing.AllocsPerRun(20, func() {
			r.SetLights(lights)
			r.DrawTicks(w, h, black, cam, render.Ticks{Slots: slots, Epoch: 1}, nil, 0.5)
		})
	})
	if cpu != 0 || gpu != 0 {
		t.Errorf("a shadowed, lit frame allocates %v times on the CPU path and %v on the GPU path, want 0", cpu, gpu)
	}
}

// shadowCamera looks down at the shadow tests' floor.
var shadowCamera = gfx.Camera{Eye: mgl32.Vec3{0, 12, 9}, Target: mgl32.Vec3{}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(55), Near: 0.1, Far: 100}

// floorPlane is the shadow tests' floor, 20 units square, grey 200.
var floorPlane = render.Instance{Pos: mgl32.Vec3{}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{20, 1, 20}, Color: [4]uint8{200, 200, 200, 255}, Mesh: render.MeshPlane}

// restoreLightAndShadows puts r's default light back and turns its
// shadows off when the test ends.
func restoreLightAndShadows(t *testing.T, r *gfx.Renderer) {
	t.Cleanup(func() {
		onMain(func() {
			r.SetLight(gfx.DefaultLight())
			if err := r.SetShadows(gfx.Shadows{}); err != nil {
				t.Error(err)
			}
		})
	})
}

// A shadow falls away from the light: a cube 2 units over the floor, lit
// from up and to the side (+x, then -x; the camera looks from +z, where
// the cube would hide the floor behind it), darkens the floor 2 units
// away from the light to the ambient light alone, and leaves the floor
// as far on the other side lit.
func TestShadowFallsAwayFromTheLight(t *testing.T) {
	r, w, h := newRenderer(t, 128)
	restoreLightAndShadows(t, r)
	cam := shadowCamera
	insts := []render.Instance{
		floorPlane,
		box(mgl32.Vec3{0, 2, 0}, 1, [4]uint8{200, 60, 60, 255}, render.MeshCube),
	}
	for _, toLight := range []mgl32.Vec3{{1, 1, 0}, {-1, 1, 0}} {
		onMain(func() {
			r.SetLight(gfx.Light{Dir: toLight.Normalize(), Ambient: 0.3, Diffuse: 0.7})
			if err := r.SetShadows(gfx.DefaultShadows()); err != nil {
				t.Fatal(err)
			}
		})
		img, _ := framePosed(t, r, w, h, cam, insts, nil)
		side := mgl32.Vec3{toLight[0], 0, toLight[2]}.Mul(2)
		green := func(p mgl32.Vec3) int {
			x, y := project(cam, w, h, p)
			return int(img.RGBAAt(int(x), int(y)).G)
		}
		away, toward := green(side.Mul(-1)), green(side)
		t.Logf("light toward %v: the floor away from it %d, toward it %d", toLight, away, toward)
		if away < 58 || away > 62 || toward < 150 {
			t.Errorf("light toward %v: the floor 2 units away from the light is %d, toward it %d; want the shadow away (dark) and the other side lit", toLight, away, toward)
		}
	}
}
