package gfx

import (
	"image"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/nebulaengine/nebula/internal/platform/platformtest"
)

// The atlas holds every printable character's glyph, coverage for coverage,
// the replacement glyph and a solid cell, on the GPU as built on the CPU.
func TestGlyphAtlas(t *testing.T) {
	atlas := newGlyphAtlas()
	face := basicfont.Face7x13
	glyphs := append([]rune(" !09AZaz~"), '\uFFFD')
	for _, r := range glyphs {
		cell := cellFFFD
		if r != '\uFFFD' {
			cell = int(r - ' ')
		}
		x, y := atlasCell(cell)
		_, mask, mp, _, _ := face.Glyph(fixed.Point26_6{}, r)
		covered := 0
		for dy := range glyphH {
			for dx := range glyphW {
				_, _, _, a := mask.At(mp.X+dx, mp.Y+dy).RGBA()
				got := atlas.AlphaAt(x+dx, y+dy).A
				if got != uint8(a>>8) {
					t.Fatalf("%q: atlas texel (%d, %d) of its cell is %d, the font's mask %d", r, dx, dy, got, a>>8)
				}
				if got != 0 {
					covered++
				}
			}
		}
		if (covered == 0) != (r == ' ') {
			t.Errorf("%q covers %d texels of its cell", r, covered)
		}
	}
	x, y := atlasCell(cellSolid)
	for dy := range glyphH {
		for dx := range glyphW {
			if a := atlas.AlphaAt(x+dx, y+dy).A; a != 255 {
				t.Fatalf("solid cell texel (%d, %d) is %d, want 255", dx, dy, a)
			}
		}
	}

}

// The framebuffer shows the panel image that build rasterised, pixel for
// pixel, at Rect: the texture upload, the quad's placement and the texel
// fetch add nothing and lose nothing.
func TestOverlayDrawsItsImageExactly(t *testing.T) {
	const size = 400
	cfg := platformtest.SmallHidden()
	cfg.Width, cfg.Height = size, size
	platformtest.OpenWindow(t, cfg)
	f := &OverlayPanel{
		Text:      []byte("FPS 144.0  UPS 60.0\nframe 6.94 ms  steps 1\n~!@#$%^&*()_+{}|:<>?"),
		Marks:     []float32{6.94, 16.67},
		Histogram: []uint64{5, 100, 7},
	}
	for i := range 300 {
		f.Graph = append(f.Graph, 5+4*float32(math.Sin(float64(i)/7)))
	}
	var (
		err  error
		img  []byte
		rect image.Rectangle
		got  = make([]byte, 4*size*size)
	)
	platformtest.OnMain(func() {
		if err = Init(); err != nil {
			return
		}
		var o *Overlay
		if o, err = NewOverlay(new(MemoryCounter)); err != nil {
			return
		}
		defer o.Delete()
		gl.ClearColor(0.4, 0.6, 0.8, 1)
		gl.Clear(gl.COLOR_BUFFER_BIT)
		o.Draw(size, size, f)
		img, rect = append([]byte(nil), o.img...), o.Rect(size, size)
		gl.ReadPixels(0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE, unsafe.Pointer(&got[0]))
		err = CheckError()
	})
	if err != nil {
		t.Fatal(err)
	}
	if rect.Dx() != panelW || rect.Dy() != panelH {
		t.Fatalf("Rect = %v, want the whole %dx%d panel in a %dx%d framebuffer", rect, panelW, panelH, size, size)
	}
	bad := 0
	for y := range panelH {
		fy := size - 1 - (rect.Min.Y + y) // glReadPixels rows run bottom to top
		for x := range panelW {
			want := img[4*(y*panelW+x) : 4*(y*panelW+x)+4]
			p := got[4*(fy*size+rect.Min.X+x) : 4*(fy*size+rect.Min.X+x)+4]
			if string(p) != string(want) {
				if bad < 5 {
					t.Errorf("panel pixel (%d, %d) is %v on screen, %v in the image", x, y, p, want)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d panel pixels differ from the image", bad, panelW*panelH)
	}
}

// Source-over in 8-bit fixed point: opaque replaces, transparent or zero
// coverage keeps, half coverage mixes, and an opaque pixel stays opaque.
func TestOver(t *testing.T) {
	for _, tt := range []struct {
		dst  [4]uint8
		c    [4]uint8
		k    uint8
		want [4]uint8
	}{
		{[4]uint8{10, 20, 30, 255}, [4]uint8{200, 100, 50, 255}, 255, [4]uint8{200, 100, 50, 255}},
		{[4]uint8{10, 20, 30, 255}, [4]uint8{200, 100, 50, 0}, 255, [4]uint8{10, 20, 30, 255}},
		{[4]uint8{10, 20, 30, 255}, [4]uint8{200, 100, 50, 255}, 0, [4]uint8{10, 20, 30, 255}},
		{[4]uint8{0, 0, 0, 255}, [4]uint8{255, 255, 255, 255}, 128, [4]uint8{128, 128, 128, 255}},
		{[4]uint8{255, 255, 255, 255}, [4]uint8{0, 0, 0, 51}, 255, [4]uint8{204, 204, 204, 255}},
		{[4]uint8{0, 0, 0, 0}, [4]uint8{255, 0, 0, 255}, 255, [4]uint8{255, 0, 0, 255}},
	} {
		got := tt.dst
		over(got[:], tt.c, tt.k)
		if got != tt.want {
			t.Errorf("over(%v, colour %v, coverage %d) = %v, want %v", tt.dst, tt.c, tt.k, got, tt.want)
		}
	}
	for a := range 256 {
		for k := range 256 {
			p := [4]uint8{1, 2, 3, 255}
			over(p[:], [4]uint8{255, 255, 255, uint8(a)}, uint8(k))
			if p[3] != 255 {
				t.Fatalf("alpha %d at coverage %d over an opaque pixel left alpha %d", a, k, p[3])
			}
		}
	}
}

// The largest frame, with every figure at its widest, rasterises within
// the panel image (the layout is clipped to the panel, never indexes past
// it) and does not allocate.
func TestOverlayLayoutStaysInThePanel(t *testing.T) {
	o := newPanel()
	f := &OverlayPanel{
		Text:      []byte(strings.Repeat(strings.Repeat("#", 100)+"\n", 100)),
		Graph:     make([]float32, 1000),
		Marks:     []float32{1, 2, 3, 4, 5, 6},
		Histogram: make([]uint64, 100),
	}
	for i := range f.Graph {
		f.Graph[i] = float32(i % 37)
	}
	for i := range f.Histogram {
		f.Histogram[i] = uint64(i + 1)
	}
	// GraphMax at its largest makes the longest scale label, "3.4e+38 ms".
	for _, top := range []float32{-1, math.MaxFloat32} {
		f.GraphMax = top
		if n := testing.AllocsPerRun(10, func() { o.build(f) }); n != 0 {
			t.Errorf("GraphMax %v: build allocates %v times", top, n)
		}
		if cap(o.label) != labelMax || len(o.img) != 4*panelW*panelH {
			t.Errorf("GraphMax %v: label capacity %d (want %d), image %d bytes (want %d)", top, cap(o.label), labelMax, len(o.img), 4*panelW*panelH)
		}
	}
}

// BenchmarkOverlayBuild measures laying out and rasterising a full panel
// on the CPU (the part of Overlay.Draw before the upload).
func BenchmarkOverlayBuild(b *testing.B) {
	o := newPanel()
	f := &OverlayPanel{
		Text:      []byte("FPS 144.0  UPS 60.0\nframe 6.94 ms  steps 1  alpha 0.42\nfixed 0.21 ms  update 0.03 ms\nrender 1.60 ms  gpu 3.2 ms\ndebt 2.1 ms  dropped 0 ms\nclamped 0  capped 0  snaps 3\nentities 1003  heap 12.3 MiB  gc 42"),
		Marks:     []float32{6.94, 16.67},
		Histogram: []uint64{300, 200, 5, 1, 0, 0},
	}
	for i := range 240 {
		f.Graph = append(f.Graph, 6+2*float32(math.Sin(float64(i)/7)))
	}
	b.ReportAllocs()
	for b.Loop() {
		o.build(f)
	}
}
