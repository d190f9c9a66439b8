package gfx

import (
	"image"
	"image/draw"

	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The bitmap font the overlay and Text draw with: 6×13-pixel glyphs, 7
// pixels apart, covering printable ASCII and U+FFFD.
var overlayFace = basicfont.Face7x13

const (
	glyphW   = 6  // overlayFace.Width: a glyph cell's width in pixels
	glyphH   = 13 // overlayFace.Ascent + Descent: a glyph cell's height
	advance  = 7  // overlayFace.Advance: from one character to the next
	lineStep = 13 // overlayFace.Height: from one text line to the next
)

// The glyph atlas, built once per Overlay or Text on the CPU: one
// glyphW×glyphH cell of coverage per printable ASCII character (cell c-' '
// for character c), one for U+FFFD (drawn for any other character) and one
// solid cell, atlasCols cells to a row.
const (
	printable   = int('~' - ' ' + 1) // the printable ASCII characters, ' ' to '~'
	cellFFFD    = printable          // U+FFFD REPLACEMENT CHARACTER
	cellSolid   = printable + 1      // every texel 255
	atlasCells  = printable + 2
	atlasCols   = 16
	atlasRows   = (atlasCells + atlasCols - 1) / atlasCols
	atlasWidth  = atlasCols * glyphW
	atlasHeight = atlasRows * glyphH
)

// cellOf returns the atlas cell that draws r: its own for printable ASCII,
// the replacement character's for anything else (controls, tabs, every
// other rune, invalid UTF-8).
func cellOf(r rune) int {
	if r >= ' ' && r <= '~' {
		return int(r - ' ')
	}
	return cellFFFD
}

// atlasCell returns the top-left texel of atlas cell i.
func atlasCell(i int) (x, y int) {
	return i % atlasCols * glyphW, i / atlasCols * glyphH
}

// newGlyphAtlas rasterises overlayFace into the atlas image: coverage 0 to
// 255 per texel, one cell per character (see cellFFFD and cellSolid).
func newGlyphAtlas() *image.Alpha {
	atlas := image.NewAlpha(image.Rect(0, 0, atlasWidth, atlasHeight))
	for i := range atlasCells {
		x, y := atlasCell(i)
		cell := image.Rect(x, y, x+glyphW, y+glyphH)
		if i == cellSolid {
			draw.Draw(atlas, cell, image.Opaque, image.Point{}, draw.Src)
			continue
		}
		r := rune(' ' + i)
		if i == cellFFFD {
			r = '\uFFFD'
		}
		// The dot is on the baseline, Ascent below the cell's top.
		dot := fixed.P(x-overlayFace.Left, y+overlayFace.Ascent)
		dr, mask, maskp, _, _ := overlayFace.Glyph(dot, r)
		draw.DrawMask(atlas, dr.Intersect(cell), image.Opaque, image.Point{}, mask, maskp, draw.Over)
	}
	return atlas
}
