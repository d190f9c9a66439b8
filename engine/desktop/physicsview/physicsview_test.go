package physicsview_test

import (
	"errors"
	"image"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/desktop/physicsview"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/physics/debugdraw"
	"github.com/nebulaengine/nebula/internal/platform"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
)

func TestMain(m *testing.M) { platformtest.Main(m) }

// magenta is the static bodies' colour in the test's palette: a colour
// the lit blue cube never takes.
var magenta = [4]uint8{255, 0, 255, 255}

const size = 256 // the window's width and height

// shot runs a window of 5 frames over one static blue unit cube at the
// origin with the debug drawing attached (shown when on) and returns the
// screenshot, the camera and the segments the last frame drew.
func shot(t *testing.T, on bool) (image.Image, desktop.Config, int) {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	space, err := physics.Attach(e, physics.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	box := e.World.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	e.World.SetColor(box, [4]uint8{30, 30, 200, 255})
	if err := space.AddBody(box, physics.NewBodyDef(physics.Static, physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{0.5, 0.5, 0.5}})); err != nil {
		t.Fatal(err)
	}
	cfg := desktop.DefaultConfig()
	cfg.Window = platformtest.SmallHidden()
	cfg.Window.Width, cfg.Window.Height = size, size
	cfg.FPS = 120
	cfg.Duration = 30 * time.Second // a safety limit: the run ends after Frames
	cfg.Frames = 5
	cfg.ClearColor = [4]float32{0, 0, 0, 1}
	cfg.Camera.Eye = mgl32.Vec3{2, 1.5, 3}
	var r *desktop.Runner
	platformtest.OnMain(func() { r, err = desktop.New(e, cfg) })
	switch {
	case errors.Is(err, platform.ErrNoDisplay), errors.Is(err, platform.ErrNoGL41):
		platformtest.SkipOrFail(t, err)
	case err != nil:
		t.Fatalf("desktop.New: %v", err)
	}
	t.Cleanup(func() { platformtest.OnMain(r.Close) })
	o := debugdraw.DefaultOptions()
	o.Palette.Static = magenta
	var view *physicsview.View
	platformtest.OnMain(func() {
		if view, err = physicsview.Attach(r, space, o); err == nil {
			view.SetEnabled(on)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	platformtest.OnMain(func() { err = r.Run() })
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "shot.png")
	platformtest.OnMain(func() { err = r.Screenshot(path) })
	if err != nil {
		t.Fatal(err)
	}
	return platformtest.ReadPNG(t, path), cfg, view.Drawing().Segments()
}

func isMagenta(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return r > 0xe000 && g < 0x2000 && b > 0xe000
}

// The debug drawing shows in real pixels: with it on, the box's wireframe
// is drawn in its kind's colour along the drawn cube's edges (the pixels
// where the cube's edges project, found from the camera); with it off,
// not a pixel of that colour.
func TestWireframeOnTheDrawnBox(t *testing.T) {
	img, cfg, segs := shot(t, true)
	off, _, offSegs := shot(t, false)
	count := func(img image.Image) int {
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if isMagenta(img, x, y) {
					n++
				}
			}
		}
		return n
	}
	on, none := count(img), count(off)
	t.Logf("magenta pixels: %d with the drawing on (%d segments), %d with it off (%d segments)", on, segs, none, offSegs)
	if segs != debugdraw.BoxSegments || offSegs != 0 {
		t.Errorf("the last frame drew %d segments on and %d off, want %d and 0", segs, offSegs, debugdraw.BoxSegments)
	}
	if on < 100 || none != 0 {
		t.Fatalf("%d magenta pixels with the drawing on, %d off; want the wireframe's (100 or more) and none", on, none)
	}
	// Where each edge's midpoint projects, the wireframe is drawn, for
	// the edges not hidden behind the cube: from this camera (above, to
	// the right and in front) the 9 edges of the three faces it sees.
	vp := cfg.Camera.ViewProjection(1)
	seen := 0
	for _, mid := range edgeMidpoints(0.5) {
		c := vp.Mul4x1(mid.Vec4(1))
		px := int((c[0]/c[3] + 1) / 2 * size)
		py := int((1 - c[1]/c[3]) / 2 * size) // the screenshot's rows run down
		found := false
		for dy := -2; dy <= 2 && !found; dy++ {
			for dx := -2; dx <= 2 && !found; dx++ {
				found = isMagenta(img, px+dx, py+dy)
			}
		}
		if found {
			seen++
		}
	}
	if seen != 9 {
		t.Errorf("the wireframe is drawn at %d of the 12 edges' projected midpoints, want the 9 visible ones", seen)
	}
}

// edgeMidpoints returns the midpoints of the 12 edges of the cube of half
// size h about the origin.
func edgeMidpoints(h float32) []mgl32.Vec3 {
	var out []mgl32.Vec3
	for a := range 3 {
		for _, s := range [4][2]float32{{-h, -h}, {-h, h}, {h, -h}, {h, h}} {
			var v mgl32.Vec3
			v[(a+1)%3], v[(a+2)%3] = s[0], s[1]
			out = append(out, v)
		}
	}
	return out
}
