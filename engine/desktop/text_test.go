package desktop_test

import (
	"image"
	"path/filepath"
	"testing"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/diag"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
	"github.com/nebulaengine/nebula/timing"
)

// A game prints through Runner.Text from a Render system, with the
// diagnostics overlay off: the frame (read back by Screenshot, which draws
// the last frame's text again) has the text's pixels, in its colour, where
// asked and nowhere else; a game that prints nothing has none.
func TestRunnerText(t *testing.T) {
	green := [4]uint8{0, 255, 0, 255}
	const x, y, scale, msg = 6, 9, 2, "HUD 42"
	shot := func(print bool) (inside, outside int) {
		e, _ := newEngine(t, 1)
		cfg := testConfig()
		cfg.Frames = 5
		cfg.ClearColor = [4]float32{0, 0, 0, 1}
		cfg.Overlay = false
		r := newRunner(t, e, cfg)
		if print {
			e.AddRender("hud", func(*engine.FrameContext) { r.Text().Print(x, y, scale, msg, green) })
		}
		if _, err := run(r); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "shot.png")
		var err error
		platformtest.OnMain(func() { err = r.Screenshot(path) })
		if err != nil {
			t.Fatal(err)
		}
		img := decodePNG(t, path)
		w, h := gfx.TextSize(msg, scale)
		box := image.Rect(x, y, x+w, y+h)
		b := img.Bounds()
		for py := b.Min.Y; py < b.Max.Y; py++ {
			for px := b.Min.X; px < b.Max.X; px++ {
				r, g, bl, a := img.At(px, py).RGBA()
				if r == 0 && g == 0xffff && bl == 0 && a == 0xffff {
					if image.Pt(px, py).In(box) {
						inside++
					} else {
						outside++
					}
				}
			}
		}
		return inside, outside
	}
	inside, outside := shot(true)
	t.Logf("green pixels: %d in the text's box, %d outside", inside, outside)
	// "HUD 42" in basicfont 7x13 covers 5 glyphs of 8 to 17 texels each,
	// 4 pixels a texel at scale 2.
	if inside < 4*5*8 || outside != 0 {
		t.Errorf("%d green pixels in the text's box and %d outside, want the glyphs' (160 or more) and none", inside, outside)
	}
	if in, out := shot(false); in != 0 || out != 0 {
		t.Errorf("without a Print: %d green pixels, want none", in+out)
	}
}

// The runner's figures carry the GPU memory and the entity count; on a
// driver without a memory extension (llvmpipe) the memory is the bytes
// the window's own buffers and textures hold (its renderer's
// gfx.MemoryCounter), labelled as such.
func TestRunnerFiguresGPUMemory(t *testing.T) {
	e := newScene(t, 10)
	cfg := testConfig()
	cfg.Frames = 3
	var figs diag.Figures
	var own int64
	var r *desktop.Runner
	cfg.OnFrame = func(timing.Stats) {
		figs = *r.Figures()
		own = r.Renderer().Memory().Bytes()
	}
	r = newRunner(t, e, cfg)
	if _, err := run(r); err != nil {
		t.Fatal(err)
	}
	var renderer string
	platformtest.OnMain(func() { renderer = gfx.RendererName() })
	g := figs.GPUMemory
	t.Logf("%s: %+v, %d entities", renderer, g, figs.Entities)
	if figs.Entities != e.World.Len() || figs.Entities == 0 {
		t.Errorf("Figures.Entities = %d, want World.Len() = %d", figs.Entities, e.World.Len())
	}
	if g.Source == diag.GPUMemoryNone || g.Own == 0 || int64(g.Own) != own {
		t.Errorf("Figures.GPUMemory = %+v, want a source and Own = Renderer().Memory().Bytes() = %d", g, own)
	}
	if n, label := g.InUse(); g.Source == diag.GPUMemoryOwn && (n != g.Own || label != "own buffers") {
		t.Errorf("InUse() = %d, %q, want Own and \"own buffers\"", n, label)
	}
	if rep := r.Monitor().Report(0); rep.Entities != figs.Entities || rep.GPUMemory != g || rep.GPUPeak == 0 {
		t.Errorf("Report: entities %d, GPU memory %+v, peak %d; want the last frame's and a peak", rep.Entities, rep.GPUMemory, rep.GPUPeak)
	}
}
