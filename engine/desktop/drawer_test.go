package desktop_test

import (
	"github.com/nebulaengine/nebula/engine/render"

	"image"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
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
		platformtest.OnMain(func() { box, err = gfx.NewLines(r.Renderer().Memory(), gfx.BoxEdges(mgl32.Vec3{1.5, 1.5, 1.5})) })
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

// The View carries the render buffer's poses, as the Render systems left
// them, and the default Drawer hands them to the renderer: a plane (a
// model: the built-in cube and sphere take no poses) posed by a Render
// system is drawn with its pose uploaded.
func TestDrawerGetsThePoses(t *testing.T) {
	for _, custom := range []bool{true, false} {
		e := newScene(t, 2)
		ent, _ := e.World.EntityAt(0)
		e.World.SetMesh(ent, render.MeshPlane)
		e.AddRender("pose", func(c *engine.FrameContext) {
			p, b, _ := c.Render.Poses.Add(1, 0)
			b[0] = render.Bone{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}
			c.Render.Instances[0].Pose = p
		})
		cfg := testConfig()
		cfg.Frames = 3
		var (
			r            *desktop.Runner
			calls, right int
		)
		if custom {
			cfg.Drawer = desktop.DrawerFunc(func(v desktop.View) {
				calls++
				if v.Poses == &e.Render.Poses && v.Poses.Len() == 1 && v.Instances[0].Pose == 1 {
					right++
				}
				r.Renderer().Draw(v.Width, v.Height, v.Clear, v.Camera, v.Instances, v.Poses)
			})
		}
		r = newRunner(t, e, cfg)
		if _, err := run(r); err != nil {
			t.Fatal(err)
		}
		var s gfx.Stats
		platformtest.OnMain(func() { s = r.Renderer().Stats() })
		if custom && (calls != 3 || right != 3) {
			t.Errorf("the Drawer was called %d times, %d of them with the render buffer's poses (one pose, the plane's); want 3 and 3", calls, right)
		}
		if s.Poses != 1 || s.Meshes != 2 {
			t.Errorf("custom drawer %v: the renderer's last frame %+v, want 1 pose uploaded and 2 meshes drawn", custom, s)
		}
	}
}
