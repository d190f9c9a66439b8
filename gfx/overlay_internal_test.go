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

	// The texture NewOverlay uploads holds the same texels.
	platformtest.OpenWindow(t, platformtest.SmallHidden())
	gpu := make([]byte, atlasWidth*atlasHeight)
	var err error
	platformtest.OnMain(func() {
		if err = Init(); err != nil {
			return
		}
		var o *Overlay
		if o, err = NewOverlay(); err != nil {
			return
		}
		defer o.Delete()
		gl.ActiveTexture(gl.TEXTURE0 + overlayTextureUnit)
		gl.BindTexture(gl.TEXTURE_2D, o.atlas)
		gl.GetTexImage(gl.TEXTURE_2D, 0, gl.RED, gl.UNSIGNED_BYTE, unsafe.Pointer(&gpu[0]))
		gl.BindTexture(gl.TEXTURE_2D, 0)
		gl.ActiveTexture(gl.TEXTURE0)
		err = CheckError()
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(gpu) != string(atlas.Pix) {
		t.Errorf("the atlas texture differs from the atlas image")
	}
	a, _ := atlasCell(int('A' - ' '))
	_, ay := atlasCell(int('A' - ' '))
	nonzero := 0
	for dy := range glyphH {
		for dx := range glyphW {
			if gpu[(ay+dy)*atlasWidth+a+dx] != 0 {
				nonzero++
			}
		}
	}
	if nonzero == 0 {
		t.Errorf("the atlas texture's cell for 'A' is empty")
	}
}

// The layout of the largest frame fits the vertex buffer made for it, so
// Draw never grows it.
func TestOverlayLayoutFitsMaxQuads(t *testing.T) {
	o := &Overlay{verts: make([]overlayVertex, 0, 4*maxQuads), label: make([]byte, 0, labelMax)}
	f := &OverlayFrame{
		Text:      []byte(strings.Repeat(strings.Repeat("#", 100)+"\n", 100)),
		Graph:     make([]float32, 1000),
		GraphMax:  -1, // auto
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
		o.build(f)
		t.Logf("GraphMax %v: label %q, %d quads of at most %d", top, o.label, len(o.verts)/4, maxQuads)
		if cap(o.verts) != 4*maxQuads || len(o.verts)%4 != 0 {
			t.Errorf("GraphMax %v: the largest frame made %d vertices and capacity %d, want whole quads within the capacity %d", top, len(o.verts), cap(o.verts), 4*maxQuads)
		}
	}
	// Every quad lies within the panel.
	panel := image.Rect(overlayMargin, overlayMargin, overlayMargin+panelW, overlayMargin+panelH)
	for i, v := range o.verts {
		if v.x < float32(panel.Min.X) || v.x > float32(panel.Max.X) || v.y < float32(panel.Min.Y) || v.y > float32(panel.Max.Y) {
			p := image.Pt(int(v.x), int(v.y))
			t.Fatalf("vertex %d at %v is outside the panel %v", i, p, panel)
		}
	}
}
