package gfx_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"

	"errors"
	"fmt"
	"image"
	"image/color"
	"io/fs"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
)

// testSize is the side of the hidden window the renderer tests draw into.
const testSize = 128

// newRenderer opens a hidden size×size window, initialises gfx and builds a
// Renderer, deleted when the test ends (before the window closes). It
// returns the framebuffer size.
func newRenderer(t testing.TB, size int) (r *gfx.Renderer, w, h int) {
	t.Helper()
	cfg := platformtest.SmallHidden()
	cfg.Width, cfg.Height = size, size
	win := platformtest.OpenWindow(t, cfg)
	var err error
	onMain(func() {
		w, h = win.FramebufferSize()
		if err = gfx.Init(); err == nil {
			r, err = gfx.NewRenderer(new(gfx.MemoryCounter))
		}
	})
	if err != nil {
		t.Fatalf("gfx.Init + NewRenderer: %v", err)
	}
	t.Cleanup(func() { onMain(r.Delete) })
	return r, w, h
}

// newPerInstance builds the per-cube baseline beside r.
func newPerInstance(t testing.TB, r *gfx.Renderer) *gfx.PerInstance {
	t.Helper()
	var per *gfx.PerInstance
	var err error
	onMain(func() { per, err = gfx.NewPerInstance(r) })
	if err != nil {
		t.Fatalf("the per-instance baseline: %v", err)
	}
	t.Cleanup(func() { onMain(per.Delete) })
	return per
}

// testCamera looks down -Z at the origin from far away through a narrow
// field of view: nearly orthographic, so a unit cube's coloured pixels are
// centred on its projected centre to well within a pixel.
var testCamera = gfx.Camera{
	Eye:    mgl32.Vec3{0, 0, 50},
	Target: mgl32.Vec3{0, 0, 0},
	Up:     mgl32.Vec3{0, 1, 0},
	FovY:   mgl32.DegToRad(12),
	Near:   1,
	Far:    100,
}

var (
	black = [4]float32{0, 0, 0, 1}
	red   = [4]uint8{255, 0, 0, 255}
)

// frame draws one frame on the main thread, checks for GL errors and reads
// it back.
func frame(t testing.TB, r *gfx.Renderer, w, h int, clear [4]float32, cam gfx.Camera, insts []render.Instance) *image.RGBA {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var glErr, readErr error
	onMain(func() {
		r.Draw(w, h, clear, cam, insts, nil)
		glErr = gfx.CheckError()
		readErr = r.ReadRGBA(img)
	})
	if glErr != nil {
		t.Fatalf("after Frame with %d instances: %v", len(insts), glErr)
	}
	if readErr != nil {
		t.Fatalf("ReadRGBA: %v", readErr)
	}
	return img
}

// blob summarises the pixels of an image that differ from the background.
type blob struct {
	n            int
	cx, cy       float64         // centroid of the pixel centres, in image coordinates (y down)
	bounds       image.Rectangle // smallest rectangle holding them all
	colourSample color.RGBA      // the pixel nearest the centroid
}

func findBlob(img *image.RGBA, bg color.RGBA) blob {
	var b blob
	var sx, sy float64
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		for x := img.Rect.Min.X; x < img.Rect.Max.X; x++ {
			if img.RGBAAt(x, y) == bg {
				continue
			}
			if b.n == 0 {
				b.bounds = image.Rect(x, y, x+1, y+1)
			} else {
				b.bounds = b.bounds.Union(image.Rect(x, y, x+1, y+1))
			}
			b.n++
			sx += float64(x) + 0.5
			sy += float64(y) + 0.5
		}
	}
	if b.n > 0 {
		b.cx, b.cy = sx/float64(b.n), sy/float64(b.n)
		b.colourSample = img.RGBAAt(int(b.cx), int(b.cy))
	}
	return b
}

// project returns where cam draws world point p in a w×h image, in pixels
// from the left and from the top.
func project(cam gfx.Camera, w, h int, p mgl32.Vec3) (x, y float64) {
	c := cam.ViewProjection(float32(w) / float32(h)).Mul4x1(p.Vec4(1))
	ndcX, ndcY := float64(c[0]/c[3]), float64(c[1]/c[3])
	return (ndcX + 1) / 2 * float64(w), (1 - ndcY) / 2 * float64(h)
}

func rgba(c [4]float32) color.RGBA {
	return color.RGBA{uint8(c[0] * 255), uint8(c[1] * 255), uint8(c[2] * 255), uint8(c[3] * 255)}
}

func TestFrameClearsToTheClearColour(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	// Components whose c*255 is a whole number, so there is no rounding to
	// argue about.
	for _, c := range [][4]float32{{1, 0.2, 0.6, 1}, {0, 0, 0, 1}, {0.4, 1, 0, 1}, {0.2, 0.4, 0.6, 1}} {
		img := frame(t, r, w, h, c, testCamera, nil)
		want := rgba(c)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if got := img.RGBAAt(x, y); got != want {
					t.Fatalf("clear %v: pixel (%d, %d) is %v, want %v", c, x, y, got, want)
				}
			}
		}
		if s := r.Stats(); s.DrawCalls != 0 || s.Instances != 0 || s.Width != w || s.Height != h {
			t.Errorf("Stats() after a frame without instances = %+v, want no draw calls, no instances, %dx%d", s, w, h)
		}
	}
}

// An entity moving from x=-2 to x=+2 during a tick is drawn, at each alpha,
// where the camera projects its interpolated position.
func TestMovingEntityIsDrawnWhereAlphaSays(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	world := engine.NewWorld(1)
	e := world.Spawn(geom.NewTransform(mgl32.Vec3{-2, 0, 0}), engine.Interpolate)
	world.SetColor(e, red)
	world.BeginTick(1)
	world.SetTransform(e, geom.NewTransform(mgl32.Vec3{2, 0, 0}))

	var rb engine.RenderBuffer
	bg := rgba(black)
	prevX := math.Inf(-1)
	for _, alpha := range []float32{0, 0.25, 0.5, 0.75} {
		world.Interpolate(alpha, 1.0/60, engine.DefaultInterpolationConfig(), &rb)
		img := frame(t, r, w, h, black, testCamera, rb.Instances)
		b := findBlob(img, bg)
		wantX, wantY := project(testCamera, w, h, rb.Instances[0].Pos)
		if wantPos := -2 + 4*alpha; math.Abs(float64(rb.Instances[0].Pos[0]-wantPos)) > 1e-6 {
			t.Fatalf("alpha %v: interpolated x = %v, want %v", alpha, rb.Instances[0].Pos[0], wantPos)
		}
		if b.n == 0 {
			t.Fatalf("alpha %v: nothing drawn, want a cube around column %.1f", alpha, wantX)
		}
		t.Logf("alpha %.2f: %d pixels, centroid (%.2f, %.2f), projected (%.2f, %.2f)", alpha, b.n, b.cx, b.cy, wantX, wantY)
		if math.Abs(b.cx-wantX) > 1 || math.Abs(b.cy-wantY) > 1 {
			t.Errorf("alpha %v: cube's pixels centred at (%.2f, %.2f), want within 1 pixel of the projected (%.2f, %.2f)", alpha, b.cx, b.cy, wantX, wantY)
		}
		if b.cx <= prevX {
			t.Errorf("alpha %v: centroid column %.2f did not move right of %.2f", alpha, b.cx, prevX)
		}
		prevX = b.cx
	}
}

// A teleported entity is drawn at its new place for every alpha of the tick,
// never on the way; the same move without Teleport is drawn in between.
func TestTeleportedEntityIsNeverDrawnInBetween(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	from, to := mgl32.Vec3{-3, 0, 0}, mgl32.Vec3{3, 0, 0}
	bg := rgba(black)

	// Where the cube is drawn at rest at to: the only place allowed.
	rest := findBlob(frame(t, r, w, h, black, testCamera, []render.Instance{{
		Rot: mgl32.QuatIdent(), Pos: to, Scale: mgl32.Vec3{1, 1, 1}, Color: red,
	}}), bg)
	allowed := rest.bounds.Inset(-1)
	oldX, _ := project(testCamera, w, h, from)
	newX, _ := project(testCamera, w, h, to)

	for _, teleport := range []bool{true, false} {
		world := engine.NewWorld(1)
		e := world.Spawn(geom.NewTransform(from), engine.Interpolate)
		world.SetColor(e, red)
		world.BeginTick(1)
		if teleport {
			world.Teleport(e, geom.NewTransform(to))
		} else {
			world.SetTransform(e, geom.NewTransform(to))
		}
		var rb engine.RenderBuffer
		drawnBetween := false
		for i := 0; i < 10; i++ {
			alpha := float32(i) / 10
			world.Interpolate(alpha, 1.0/60, engine.DefaultInterpolationConfig(), &rb)
			img := frame(t, r, w, h, black, testCamera, rb.Instances)
			b := findBlob(img, bg)
			if b.n == 0 {
				t.Fatalf("teleport=%v alpha %v: nothing drawn", teleport, alpha)
			}
			if !b.bounds.In(allowed) {
				drawnBetween = true
			}
			if teleport && !b.bounds.In(allowed) {
				t.Errorf("alpha %v: teleported cube drawn over %v (centre column %.1f), want only within %v, its new place (old centre column %.1f, new %.1f)",
					alpha, b.bounds, b.cx, allowed, oldX, newX)
			}
			if teleport && b.n != rest.n {
				t.Errorf("alpha %v: teleported cube covers %d pixels, at rest at its new place %d", alpha, b.n, rest.n)
			}
		}
		if !teleport && !drawnBetween {
			t.Errorf("the same move without Teleport was never drawn between %v and %v: the test cannot see interpolation", from, to)
		}
	}
}

// Rotation is read W first and colours are normalised bytes: a bar along X
// turned a quarter turn about Z stands upright, in the instance's colour
// lit as the default light says.
func TestInstanceRotationScaleAndColour(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	bg := rgba(black)
	bar := render.Instance{
		Rot:   mgl32.QuatIdent(),
		Scale: mgl32.Vec3{6, 1, 1},
		Color: [4]uint8{255, 102, 0, 255},
	}
	flat := findBlob(frame(t, r, w, h, black, testCamera, []render.Instance{bar}), bg)
	bar.Rot = mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1})
	upright := findBlob(frame(t, r, w, h, black, testCamera, []render.Instance{bar}), bg)

	if fw, fh := flat.bounds.Dx(), flat.bounds.Dy(); fw < 4*fh {
		t.Errorf("unrotated 6x1x1 bar covers %dx%d pixels, want it 6 times wider than tall", fw, fh)
	}
	if uw, uh := upright.bounds.Dx(), upright.bounds.Dy(); uh < 4*uw {
		t.Errorf("bar turned 90° about Z covers %dx%d pixels, want it 6 times taller than wide (is the quaternion read W first?)", uw, uh)
	}

	// The face toward the camera has normal +Z: lit ambient + diffuse * (n·L).
	l := gfx.DefaultLight()
	k := float64(l.Ambient + l.Diffuse*max(0, l.Dir.Normalize()[2]))
	want := color.RGBA{uint8(math.Round(255 * k)), uint8(math.Round(102 * k)), 0, 255}
	got := upright.colourSample
	if absDiff(got.R, want.R) > 2 || absDiff(got.G, want.G) > 2 || got.B != 0 || got.A != 255 {
		t.Errorf("front face pixel = %v, want %v within 2 (colour times %.3f)", got, want, k)
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// The baseline draws the same picture as the instanced path.
// Draw builds each cube's three visible faces in the vertex shader from the
// camera's position; the per-instance baseline draws the six faces of the mesh and
// lets OpenGL cull the hidden ones. The two must agree to the bit from
// every side, including from inside a cube's slab along an axis (the camera
// level with a face) and with flat and stretched cubes.
func TestDrawPerInstanceMatchesDraw(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	per := newPerInstance(t, r)
	insts := gridInstances(49, 7)
	insts[3].Scale[0] = 0                      // flat: no X extent
	insts[4].Scale = mgl32.Vec3{0.1, 1.2, 0.5} // stretched
	eyes := []mgl32.Vec3{
		{0, 0, 50}, {0, 0, -50}, {50, 0, 0}, {-50, 0, 0}, {0, 50, 0.001}, {0, -50, 0.001},
		{30, 30, 30}, {-30, 20, -35}, {12, -40, 25}, {0, 0.3, 50},
	}
	for _, eye := range eyes {
		cam := testCamera
		cam.Eye = eye
		a := frame(t, r, w, h, black, cam, insts)
		b := image.NewRGBA(a.Rect)
		var glErr, readErr error
		onMain(func() {
			per.Draw(w, h, black, cam, insts)
			glErr = gfx.CheckError()
			readErr = r.ReadRGBA(b)
		})
		if glErr != nil || readErr != nil {
			t.Fatalf("DrawPerInstance: %v; ReadRGBA: %v", glErr, readErr)
		}
		if s := r.Stats(); s.DrawCalls != len(insts) || s.Instances != len(insts) {
			t.Errorf("DrawPerInstance Stats() = %+v, want %d draw calls and instances", s, len(insts))
		}
		diff := 0
		for i := range a.Pix {
			if a.Pix[i] != b.Pix[i] {
				diff++
			}
		}
		if diff > 0 {
			t.Errorf("eye %v: the baseline and Draw differ in %d of %d bytes", eye, diff, len(a.Pix))
		}
		if n := findBlob(a, rgba(black)).n; n < w*h/10 {
			t.Errorf("eye %v: the grid covers %d pixels, want at least a tenth of the image", eye, n)
		}
	}
}

// gridInstances returns n cubes in rows of cols, spread over the test
// camera's view, in varied colours and rotations.
func gridInstances(n, cols int) []render.Instance {
	insts := make([]render.Instance, n)
	rows := (n + cols - 1) / cols
	span := float32(9) // world units across, inside the ~10.5 the camera sees
	for i := range insts {
		cx, cy := float32(i%cols), float32(i/cols)
		insts[i] = render.Instance{
			Pos:   mgl32.Vec3{(cx+0.5)/float32(cols)*span - span/2, (cy+0.5)/float32(rows)*span - span/2, 0},
			Rot:   mgl32.QuatRotate(float32(i)*0.37, mgl32.Vec3{1, 2, 3}.Normalize()),
			Scale: mgl32.Vec3{1, 1, 1}.Mul(0.7 * span / float32(max(cols, rows))),
			Color: [4]uint8{uint8(40 + i*37%215), uint8(40 + i*91%215), uint8(40 + i*53%215), 255},
		}
	}
	return insts
}

func TestScreenshotPNGMatchesFramebuffer(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	// A red cube in the upper half and the grid: rows must come out top
	// first, and the picture must be varied enough to catch any shuffle.
	insts := append(gridInstances(20, 5), render.Instance{
		Pos: mgl32.Vec3{0, 4, 5}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1, 1, 1}, Color: red,
	})
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	raw := make([]byte, 4*w*h)
	var glErr, readErr, rawErr error
	onMain(func() {
		r.Draw(w, h, [4]float32{0.2, 0.4, 0.6, 1}, testCamera, insts, nil)
		glErr = gfx.CheckError()
		readErr = r.ReadRGBA(img)
		rawErr = gfx.ReadPixels(0, 0, w, h, raw)
	})
	if glErr != nil || readErr != nil || rawErr != nil {
		t.Fatalf("Frame: %v; ReadRGBA: %v; ReadPixels: %v", glErr, readErr, rawErr)
	}

	path := filepath.Join(t.TempDir(), "shot.png")
	if err := gfx.SavePNG(path, img); err != nil {
		t.Fatalf("SavePNG: %v", err)
	}
	decoded := platformtest.ReadPNG(t, path)
	if decoded.Bounds() != image.Rect(0, 0, w, h) {
		t.Fatalf("PNG is %v, want %dx%d", decoded.Bounds(), w, h)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// OpenGL's row 0 is the bottom one.
			i := 4 * ((h-1-y)*w + x)
			want := color.RGBA{raw[i], raw[i+1], raw[i+2], raw[i+3]}
			if got := color.RGBAModel.Convert(decoded.At(x, y)).(color.RGBA); got != want {
				t.Fatalf("PNG pixel (%d, %d) = %v, framebuffer (row %d from the bottom) has %v", x, y, got, h-1-y, want)
			}
		}
	}

	// The red cube above the centre is in the image's top half.
	redPixels := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if c := img.RGBAAt(x, y); c.R > 100 && c.G == 0 && c.B == 0 {
				redPixels++
				if y >= h/2 {
					t.Fatalf("red pixel at (%d, %d), want the red cube in the top half", x, y)
				}
			}
		}
	}
	if redPixels == 0 {
		t.Errorf("no red pixels: the red cube above the grid is missing")
	}
}

func TestGLCallsPerFrameDoNotGrowWithInstances(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	calls := map[int]int{}
	for _, n := range []int{1, 100, 10_000, 100, 1} {
		insts := gridInstances(n, int(math.Ceil(math.Sqrt(float64(n)))))
		var s gfx.Stats
		var err error
		onMain(func() {
			r.Draw(w, h, black, testCamera, insts, nil)
			s = r.Stats()
			err = gfx.CheckError()
		})
		if err != nil {
			t.Fatalf("after Frame with %d instances: %v", n, err)
		}
		t.Logf("%6d instances: %+v", n, s)
		if s.DrawCalls != 1 || s.Instances != n {
			t.Errorf("%d instances: Stats() = %+v, want 1 draw call and %d instances", n, s, n)
		}
		if s.InstanceBufferBytes < 44*n {
			t.Errorf("%d instances: instance buffer holds %d bytes, want at least %d", n, s.InstanceBufferBytes, 44*n)
		}
		calls[n] = s.GLCalls
	}
	if calls[1] != calls[100] || calls[1] != calls[10_000] || calls[1] == 0 {
		t.Errorf("GL calls per frame: %v, want the same non-zero count for 1, 100 and 10,000 instances", calls)
	}
}

func TestEmptyFramebufferDrawsNothing(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	frame(t, r, w, h, [4]float32{0.4, 1, 0, 1}, testCamera, nil)
	insts := gridInstances(10, 5)
	for _, size := range [][2]int{{0, 0}, {0, h}, {w, 0}} {
		pixel := make([]byte, 4)
		var s gfx.Stats
		var glErr, readErr error
		onMain(func() {
			r.Draw(size[0], size[1], [4]float32{1, 0, 0, 1}, testCamera, insts, nil)
			s = r.Stats()
			glErr = gfx.CheckError()
			readErr = gfx.ReadPixels(w/2, h/2, 1, 1, pixel)
		})
		if glErr != nil || readErr != nil {
			t.Fatalf("Frame(%dx%d): GL error %v, ReadPixels %v", size[0], size[1], glErr, readErr)
		}
		if s.GLCalls != 0 || s.DrawCalls != 0 || s.Instances != 0 {
			t.Errorf("Frame(%dx%d) Stats() = %+v, want no GL calls", size[0], size[1], s)
		}
		if want := [4]byte{102, 255, 0, 255}; [4]byte(pixel) != want {
			t.Errorf("after Frame(%dx%d) the centre pixel is %v, want the earlier frame's %v untouched", size[0], size[1], pixel, want)
		}
	}
	// There is no frame to read back now.
	var err error
	onMain(func() { err = r.ReadRGBA(image.NewRGBA(image.Rect(0, 0, w, h))) })
	if err == nil || !strings.Contains(err.Error(), "the last frame was 0x0") {
		t.Errorf("ReadRGBA after an empty frame = %v, want an error saying the last frame was 0x0", err)
	}
}

func TestDrawDoesNotAllocate(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	world := engine.NewWorld(1)
	for _, in := range gridInstances(1000, 40) {
		world.Spawn(geom.Transform{Pos: in.Pos, Rot: in.Rot, Scale: in.Scale}, engine.Interpolate)
	}
	var rb engine.RenderBuffer
	cfg := engine.DefaultInterpolationConfig()
	world.Interpolate(0, 1.0/60, cfg, &rb) // sizes rb
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	allocs := map[string]float64{}
	var err error
	// CheckError after every frame, as everywhere: it does not allocate
	// when there is no error.
	check := func() {
		if e := gfx.CheckError(); e != nil && err == nil {
			err = e
		}
	}
	onMain(func() {
		r.Draw(w, h, black, testCamera, rb.Instances, &rb.Poses) // grows the instance buffer
		check()
		alpha := float32(0)
		allocs["Interpolate+Draw"] = testing.AllocsPerRun(50, func() {
			alpha = float32(math.Mod(float64(alpha)+0.1, 1))
			world.Interpolate(alpha, 1.0/60, cfg, &rb)
			r.Draw(w, h, black, testCamera, rb.Instances, &rb.Poses)
			check()
		})
		allocs["Draw+ReadRGBA"] = testing.AllocsPerRun(20, func() {
			r.Draw(w, h, black, testCamera, rb.Instances, &rb.Poses)
			check()
			if e := r.ReadRGBA(img); e != nil && err == nil {
				err = e
			}
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range allocs {
		if n != 0 {
			t.Errorf("%s allocates %v times per frame, want 0", name, n)
		}
	}
}

func TestReadRGBARejectsWrongImages(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	frame(t, r, w, h, black, testCamera, nil)
	big := image.NewRGBA(image.Rect(0, 0, 2*w, h))
	tests := []struct {
		name string
		img  *image.RGBA
		want string
	}{
		{"nil", nil, "nil image"},
		{"too small", image.NewRGBA(image.Rect(0, 0, w-1, h)), fmt.Sprintf("the last frame was %dx%d", w, h)},
		{"sub-image", big.SubImage(image.Rect(0, 0, w, h)).(*image.RGBA), "not contiguous"},
	}
	for _, tt := range tests {
		var err error
		onMain(func() { err = r.ReadRGBA(tt.img) })
		if err == nil || !strings.HasPrefix(err.Error(), "gfx: ReadRGBA: ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: ReadRGBA = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

func TestSavePNGErrorNamesThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no such dir", "shot.png")
	err := gfx.SavePNG(path, image.NewRGBA(image.Rect(0, 0, 2, 2)))
	if err == nil || !strings.Contains(err.Error(), path) || !strings.HasPrefix(err.Error(), "gfx: ") {
		t.Errorf("SavePNG into a missing directory = %v, want an error starting with \"gfx: \" naming %s", err, path)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SavePNG error %v does not wrap the not-exist error", err)
	}
}

func TestDeletedRendererPanics(t *testing.T) {
	r, w, h := newRenderer(t, testSize)
	var got any
	onMain(func() {
		r.Delete()
		r.Delete() // idempotent
		defer func() { got = recover() }()
		r.Draw(w, h, black, testCamera, nil, nil)
	})
	if msg, _ := got.(string); !strings.HasPrefix(msg, "gfx: ") {
		t.Errorf("Frame on a deleted Renderer panicked with %v, want a message starting with \"gfx: \"", got)
	}
}

// OpenGL 4.1 guarantees buffer textures of 65,536 words, 5,461 instances;
// the renderer draws that many in one call at least.
func TestMaxInstances(t *testing.T) {
	r, _, _ := newRenderer(t, testSize)
	var max int
	var name string
	onMain(func() { max, name = r.MaxInstances(), gfx.RendererName() })
	t.Logf("MaxInstances() = %d on %s", max, name)
	if max < 65536/12 {
		t.Errorf("MaxInstances() = %d, want at least %d", max, 65536/12)
	}
}
