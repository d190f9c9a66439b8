package gfx_test

import (
	"image"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/render"
	"github.com/nebulaengine/nebula/gfx"
)

// featureCam looks down -Z at the origin from 6 m.
var featureCam = gfx.Camera{Eye: mgl32.Vec3{0, 0, 6}, Target: mgl32.Vec3{}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(60), Near: 0.1, Far: 100}

// box is an unturned cube instance.
func box(pos mgl32.Vec3, size float32, rgba [4]uint8, mesh render.MeshID) render.Instance {
	return render.Instance{Pos: pos, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{size, size, size}, Color: rgba, Mesh: mesh}
}

// centre returns the pixel at the middle of img.
func centre(img *image.RGBA) [3]int {
	c := img.RGBAAt(img.Rect.Dx()/2, img.Rect.Dy()/2)
	return [3]int{int(c.R), int(c.G), int(c.B)}
}

// within reports whether a and b differ by at most tol in every channel.
func within(a, b [3]int, tol int) bool {
	for i := range a {
		if d := a[i] - b[i]; d < -tol || d > tol {
			return false
		}
	}
	return true
}

// An emissive colour is added to the lit colour: with no light at all
// (ambient and diffuse 0) a plain cube is black and an emissive one
// shows its emissive colour exactly, on the cube, the sphere and a model.
func TestEmissiveGlowsInTheDark(t *testing.T) {
	r, w, h := newRenderer(t, 64)
	onMain(func() { r.SetLight(gfx.Light{Dir: mgl32.Vec3{0, 1, 0}}) })
	t.Cleanup(func() { onMain(func() { r.SetLight(gfx.DefaultLight()) }) })
	for _, mesh := range []render.MeshID{render.MeshCube, render.MeshSphere, render.MeshPlane} {
		in := box(mgl32.Vec3{}, 2, [4]uint8{200, 200, 200, 255}, mesh)
		if mesh == render.MeshPlane {
			in.Rot = mgl32.QuatRotate(mgl32.DegToRad(90), mgl32.Vec3{1, 0, 0}) // facing the camera
		}
		dark, _ := framePosed(t, r, w, h, featureCam, []render.Instance{in}, nil)
		in.Emissive = [3]uint8{200, 100, 0}
		glow, _ := framePosed(t, r, w, h, featureCam, []render.Instance{in}, nil)
		if got := centre(dark); got != ([3]int{}) {
			t.Errorf("mesh %d unlit and not emissive: %v, want black", mesh, got)
		}
		if got := centre(glow); !within(got, [3]int{200, 100, 0}, 1) {
			t.Errorf("mesh %d unlit and emissive (200, 100, 0): %v", mesh, got)
		}
	}
}

// A transparent instance (alpha 1 to 254) is blended over what is behind
// it with premultiplied alpha, after the opaque ones whatever the order
// given; two transparent ones are drawn back to front, so the order they
// are given in changes nothing; one behind an opaque one is hidden; one
// of alpha 0 is not drawn at all.
func TestTransparencyBlendsBackToFront(t *testing.T) {
	r, w, h := newRenderer(t, 64)
	onMain(func() { r.SetLight(gfx.Light{Dir: mgl32.Vec3{0, 0, 1}, Ambient: 1}) }) // every face its full colour
	t.Cleanup(func() { onMain(func() { r.SetLight(gfx.DefaultLight()) }) })
	draw := func(insts ...render.Instance) ([3]int, gfx.Stats) {
		img, s := framePosed(t, r, w, h, featureCam, insts, nil)
		return centre(img), s
	}
	red := box(mgl32.Vec3{0, 0, -2}, 2, [4]uint8{255, 0, 0, 255}, render.MeshCube)
	green := box(mgl32.Vec3{0, 0, 0}, 1, [4]uint8{0, 255, 0, 128}, render.MeshCube)
	blue := box(mgl32.Vec3{0, 0, 1}, 0.5, [4]uint8{0, 0, 255, 128}, render.MeshSphere)

	// Green at alpha 128/255 over red: 0.502 green + 0.498 red.
	want := [3]int{127, 128, 0}
	for _, order := range [][]render.Instance{{red, green}, {green, red}} {
		got, s := draw(order...)
		if !within(got, want, 1) || s.Transparent != 1 || s.Instances != 2 {
			t.Errorf("green over red, given %v first: %v (transparent %d of %d), want %v (1 of 2)", order[0].Color, got, s.Transparent, s.Instances, want)
		}
	}
	// Blue in front of green in front of red, given in both orders.
	wantFront := [3]int{63, 64, 128} // 0.498 * (127, 128, 0) + 0.502 * (0, 0, 255)
	a, _ := draw(red, green, blue)
	b, s := draw(blue, green, red)
	if !within(a, wantFront, 2) || a != b || s.Transparent != 2 {
		t.Errorf("blue over green over red: %v given back to front, %v front to back (transparent %d); want %v both", a, b, s.Transparent, wantFront)
	}
	// Green behind an opaque red is hidden.
	front := box(mgl32.Vec3{0, 0, 1}, 1, [4]uint8{255, 0, 0, 255}, render.MeshCube)
	behind := green
	behind.Pos = mgl32.Vec3{0, 0, -1}
	if got, _ := draw(behind, front); got != ([3]int{255, 0, 0}) {
		t.Errorf("transparent green behind opaque red: %v, want pure red", got)
	}
	// Alpha 0 is not drawn, and counted as culled.
	clear := green
	clear.Color[3] = 0
	if got, s := draw(red, clear); got != ([3]int{255, 0, 0}) || s.Instances != 1 || s.Culled != 1 {
		t.Errorf("alpha 0 over red: %v, %d drawn and %d culled; want pure red, 1 and 1", got, s.Instances, s.Culled)
	}
}

// Frustum culling leaves out the instances wholly out of view (behind the
// camera, far to a side, past the far plane), counts them in
// Stats.Culled, and changes no pixel: the frame with culling off is the
// same. An instance straddling the view's edge is drawn.
func TestFrustumCullingLeavesOutOnlyWhatIsOutOfView(t *testing.T) {
	r, w, h := newRenderer(t, 64)
	insts := []render.Instance{
		box(mgl32.Vec3{0, 0, 0}, 1, [4]uint8{200, 60, 60, 255}, render.MeshCube),      // in view
		box(mgl32.Vec3{0, 0, 8}, 1, [4]uint8{60, 200, 60, 255}, render.MeshCube),      // behind the camera
		box(mgl32.Vec3{40, 0, 0}, 1, [4]uint8{60, 60, 200, 255}, render.MeshSphere),   // far to the right
		box(mgl32.Vec3{0, 0, -200}, 1, [4]uint8{60, 60, 200, 255}, render.MeshCube),   // past the far plane
		box(mgl32.Vec3{4.2, 0, 0}, 2, [4]uint8{200, 200, 60, 255}, render.MeshCube),   // across the right edge
		box(mgl32.Vec3{0, -30, 0}, 1, [4]uint8{200, 200, 60, 255}, render.MeshPlane),  // far below
		box(mgl32.Vec3{-1.5, 1, 0}, 1, [4]uint8{60, 200, 200, 255}, render.MeshPlane), // in view
	}
	on, s := framePosed(t, r, w, h, featureCam, insts, nil)
	if s.Culled != 4 || s.Instances != 3 {
		t.Errorf("culling on: %d drawn, %d culled; want 3 and 4", s.Instances, s.Culled)
	}
	onMain(func() { r.SetCulling(false) })
	off, s := framePosed(t, r, w, h, featureCam, insts, nil)
	onMain(func() { r.SetCulling(true) })
	if s.Culled != 0 || s.Instances != len(insts) {
		t.Errorf("culling off: %d drawn, %d culled; want %d and 0", s.Instances, s.Culled, len(insts))
	}
	diff := 0
	for i := range on.Pix {
		if on.Pix[i] != off.Pix[i] {
			diff++
		}
	}
	if diff != 0 {
		t.Errorf("%d bytes of the frame differ with culling on and off, want 0", diff)
	}
	edge := image.Pt(w-1, h/2)
	if c := on.RGBAAt(edge.X, edge.Y); c.R == 0 || c.G == 0 { // the clear colour is black
		t.Errorf("the cube across the right edge is not drawn at %v: %v", edge, c)
	}
}
