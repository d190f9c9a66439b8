package desktop_test

import (
	"image"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
)

// A second Drawer, set in Config.Drawer: the cube renderer, then the edges
// of a box around the cube as magenta lines. The frame (read back by
// Screenshot, which draws through the Drawer too) has the lines' pixels;
// the default Drawer's has none.
func TestDrawerDrawsTheFrame(t *testing.T) {
	magenta := func(img image.Image) int {
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if r > 0xe000 && g < 0x2000 && bl > 0xe000 {
					n++
				}
			}
		}
		return n
	}
	shot := func(withBox bool) (int, int) {
		e, _ := newEngine(t, 1) // one cube at the origin
		cfg := testConfig()
		cfg.Frames = 5
		cfg.ClearColor = [4]float32{0, 0, 0, 1}
		cfg.Camera.Eye = mgl32.Vec3{3, 2, 5}
		var (
			r     *desktop.Runner
			box   *gfx.Lines
			calls int
		)
		if withBox {
			cfg.Drawer = desktop.DrawerFunc(func(v desktop.View) {
				calls++
				r.Renderer().Draw(v.Width, v.Height, v.Clear, v.Camera, v.Instances, v.Poses)
				box.Draw(v.Width, v.Height, v.Camera, [4]float32{1, 0, 1, 1})
			})
		}
		r = newRunner(t, e, cfg)
		var err error
		platformtest.OnMain(func() { box, err = gfx.NewLines(gfx.BoxEdges(mgl32.Vec3{1.5, 1.5, 1.5})) })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { platformtest.OnMain(box.Delete) })
		if _, err := run(r); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "shot.png")
		platformtest.OnMain(func() { err = r.Screenshot(path) })
		if err != nil {
			t.Fatal(err)
		}
		return magenta(decodePNG(t, path)), calls
	}
	with, calls := shot(true)
	without, _ := shot(false)
	t.Logf("magenta pixels: %d with the box drawer (%d Draw calls), %d with the default", with, calls, without)
	if calls != 6 { // 5 frames and the screenshot
		t.Errorf("the Drawer was called %d times, want 6 (5 frames and the screenshot)", calls)
	}
	if with < 100 || without != 0 {
		t.Errorf("%d magenta pixels with the box drawer, %d with the default one; want the box's edges (100 or more) and none", with, without)
	}
}
