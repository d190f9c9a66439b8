package gfx

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/nebulaengine/nebula/shaders"
)

// The metrics of Text's font (the overlay's: golang.org/x/image's
// basicfont 7×13), in pixels at scale 1, for laying text out.
const (
	// TextAdvance is the distance from one character to the next.
	TextAdvance = advance
	// TextLineHeight is the distance from one line to the next, and the
	// height of a glyph's cell.
	TextLineHeight = lineStep
)

// Text's limits.
const (
	// MaxTextScale is the largest scale Print draws at: a larger scale
	// draws at MaxTextScale, and a scale below 1 at 1.
	MaxTextScale = 16
	// MaxTextGlyphs is the most glyphs one frame's Prints queue; Print
	// drops those beyond it and counts them (Text.Dropped).
	MaxTextGlyphs = 1 << 16
	// MaxTextCoord bounds the framebuffer positions Text draws at: a
	// glyph whose cell starts at MaxTextCoord or beyond, to the right or
	// below, is not queued (no framebuffer is that large: OpenGL drivers
	// allow viewports of 16,384 or 32,768 pixels at most).
	MaxTextCoord = 1 << 15
)

// The texture units Text binds: not the renderer's (0, 2 to 5) nor the
// overlay's (1), so drawing text leaves their bindings as they were.
const (
	textAtlasUnit  = 6 // the font atlas, R8
	textGlyphsUnit = 7 // the frame's glyphs, a buffer texture
)

// textGlyph is one queued glyph as text.vert reads it: one RGBA32I texel.
type textGlyph struct {
	x, y  int32  // the cell's top-left corner in framebuffer pixels
	cell  int32  // the atlas cell (bits 0-7) and the scale (bits 8-15)
	color uint32 // RGBA bytes, R in the lowest
}

// textGlyphSize is the bytes of a textGlyph in the glyph buffer.
const textGlyphSize = int(unsafe.Sizeof(textGlyph{}))

// minTextCapacity is the glyph buffer's first capacity, in glyphs; it
// doubles when a frame needs more.
const minTextCapacity = 256

// Text draws a game's own text over the frame: a score, lives, a message.
// It uses the diagnostics overlay's bitmap font (basicfont's 7×13:
// printable ASCII, each glyph 6×13 pixels, TextAdvance apart, lines
// TextLineHeight apart) and needs no overlay.
//
// Print queues text at a position in framebuffer pixels, from the
// framebuffer's top-left corner (y grows downward), at a whole scale (each
// font texel scale × scale pixels) and in a colour; Draw draws the queue
// over whatever the frame holds, after the scene, with whole-pixel
// geometry and nothing filtered: a glyph's pixels are exactly its colour
// (blended by the colour's alpha). A frame's Prints start a new queue: the
// first Print after a Draw drops what that Draw drew, and a Draw with no
// Print since the last one draws nothing. In the windowed runner
// (engine/desktop) a game prints from its Update or Render systems through
// Runner.Text, and the runner draws the queue after the Drawer and before
// the diagnostics overlay.
//
// Bad input draws what it can and never panics: a rune outside printable
// ASCII (a tab, a control character, any other Unicode character, a byte
// of invalid UTF-8) is drawn as the replacement glyph, one per rune; '\n'
// starts a new line at x and '\r' is ignored; glyphs wholly off the
// framebuffer's top or left, or starting at MaxTextCoord or beyond, are not
// queued, so a long line running off the right edge costs a scan for its
// next '\n'; beyond MaxTextGlyphs a frame drops the rest (Dropped counts
// them); scales are clamped to [1, MaxTextScale]; a colour whose alpha is
// 0 queues nothing.
//
// Draw makes 22 OpenGL calls, one of them the draw, whatever the number of
// glyphs (Redraw 18), and none when there is nothing to draw. Print and
// Draw do not allocate once the queue has held a frame's glyphs. Print,
// PrintBytes, Glyphs and Dropped make no GL call; every other method must
// be called with the OpenGL context current, on its thread. Delete it when
// done; it has no finalizer.
type Text struct {
	prog        Program
	vao         uint32         // empty: the quads come from gl_VertexID
	atlas       uint32         // R8, atlasWidth×atlasHeight
	buf, bufTex uint32         // the glyph buffer and its RGBA32I buffer texture
	bufCap      int            // buf's capacity in bytes
	mem         *MemoryCounter // the context's counter, for atlas and buf
	locViewport int32
	glyphs      []textGlyph // this frame's queue
	drawn       bool        // Draw has run since the last Print
	uploaded    int32       // the glyphs the last Draw uploaded, for Redraw
	dropped     int         // glyphs dropped this frame (MaxTextGlyphs)
}

// NewText builds Text's program (shaders/text.vert and text.frag), its
// font atlas texture and its glyph buffer, counting their bytes, and the
// buffer's as it grows, in mem, the context's counter (see MemoryCounter).
// A context must be current and Init must have been called. Errors name
// what failed; shader errors are *ShaderError.
func NewText(mem *MemoryCounter) (*Text, error) {
	mustBeLoaded("NewText")
	t := &Text{glyphs: make([]textGlyph, 0, minTextCapacity), mem: mem}
	ok := false
	defer func() {
		if !ok {
			t.Delete()
		}
	}()
	var err error
	if t.prog, err = NewProgram(shaders.FS, "text.vert", "text.frag"); err != nil {
		return nil, err
	}
	u := uniforms{prog: t.prog, files: "text.vert + text.frag"}
	t.locViewport = u.find("uViewport")
	locGlyphs := u.find("uGlyphs")
	locAtlas := u.find("uAtlas")
	if u.err != nil {
		return nil, u.err
	}
	gl.UseProgram(uint32(t.prog))
	gl.Uniform1i(locGlyphs, textGlyphsUnit)
	gl.Uniform1i(locAtlas, textAtlasUnit)
	gl.UseProgram(0)

	// The atlas is fetched by integer texel (texelFetch): level 0 only,
	// GL_NEAREST without mipmaps so that it is complete. Its rows are
	// atlasWidth (96) bytes, a multiple of GL_UNPACK_ALIGNMENT's 4.
	a := newGlyphAtlas()
	gl.GenTextures(1, &t.atlas)
	gl.BindTexture(gl.TEXTURE_2D, t.atlas)
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.R8, int32(atlasWidth), int32(atlasHeight), 0, gl.RED, gl.UNSIGNED_BYTE, unsafe.Pointer(&a.Pix[0]))
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAX_LEVEL, 0)
	gl.BindTexture(gl.TEXTURE_2D, 0)
	t.mem.add(atlasWidth * atlasHeight)

	t.bufCap = minTextCapacity * textGlyphSize
	t.buf, t.bufTex = newBufferTexture(gl.RGBA32I, t.bufCap, nil, gl.STREAM_DRAW)
	t.mem.add(t.bufCap)
	gl.GenVertexArrays(1, &t.vao)
	if err := CheckError(); err != nil {
		return nil, fmt.Errorf("gfx: NewText: %w", err)
	}
	ok = true
	return t, nil
}

// Print queues s for the next Draw with the top-left corner of its first
// glyph's cell at (x, y) in framebuffer pixels, scale times the font's size
// (0 and 1 both mean its natural 7×13), in the straight-alpha colour c.
// See Text for what it does with runes it has no glyph for, newlines, text
// off the framebuffer and too many glyphs. It does not allocate once the
// queue has held as many glyphs before.
func (t *Text) Print(x, y, scale int, s string, c [4]uint8) {
	t.mustLive("Print")
	t.startFrame()
	if c[3] == 0 {
		return
	}
	scale = min(max(scale, 1), MaxTextScale)
	cellW, cellH := glyphW*scale, glyphH*scale
	packed := uint32(c[0]) | uint32(c[1])<<8 | uint32(c[2])<<16 | uint32(c[3])<<24
	for line := 0; len(s) > 0; line++ {
		// The line's text; s moves past its '\n'.
		text, rest, _ := strings.Cut(s, "\n")
		s = rest
		gy := y + line*lineStep*scale
		if gy >= MaxTextCoord {
			return // this line and every later one are below any framebuffer
		}
		if gy+cellH <= 0 || x >= MaxTextCoord {
			continue
		}
		col := 0
		for _, r := range text {
			if r == '\r' {
				continue
			}
			gx := x + col*advance*scale
			col++
			if gx >= MaxTextCoord {
				break // the rest of the line is right of any framebuffer
			}
			if r == ' ' || gx+cellW <= 0 {
				continue
			}
			if len(t.glyphs) == MaxTextGlyphs {
				t.dropped++
				continue
			}
			t.glyphs = append(t.glyphs, textGlyph{x: int32(gx), y: int32(gy), cell: int32(cellOf(r) | scale<<8), color: packed})
		}
	}
}

// PrintBytes is Print for text in a byte slice, such as one built with
// strconv.AppendInt: it does not convert b to a string, so it does not
// allocate either. Draw reads nothing of b: it may be reused at once.
func (t *Text) PrintBytes(x, y, scale int, b []byte, c [4]uint8) {
	t.Print(x, y, scale, unsafe.String(unsafe.SliceData(b), len(b)), c)
}

// TextSize returns the width and height in pixels of the box Print fills
// with s at scale: the longest line's runes (less '\r') times TextAdvance,
// and the lines times TextLineHeight, times the scale (clamped as Print
// clamps it). The width counts the blank column after the last glyph.
func TextSize(s string, scale int) (width, height int) {
	if s == "" {
		return 0, 0
	}
	scale = min(max(scale, 1), MaxTextScale)
	cols, lines, longest := 0, 1, 0
	for _, r := range s {
		switch r {
		case '\n':
			lines++
			cols = 0
		case '\r':
		default:
			cols++
			longest = max(longest, cols)
		}
	}
	return longest * advance * scale, lines * lineStep * scale
}

// startFrame empties the queue when Draw has drawn it: the first Print of
// a frame starts the frame's queue.
func (t *Text) startFrame() {
	if t.drawn {
		t.glyphs, t.dropped, t.drawn = t.glyphs[:0], 0, false
	}
}

// Glyphs returns the number of glyphs queued for the next Draw.
func (t *Text) Glyphs() int {
	if t.drawn {
		return 0
	}
	return len(t.glyphs)
}

// Dropped returns the number of glyphs the Prints of this frame (or of
// the frame the last Draw drew, until the next Print) dropped beyond
// MaxTextGlyphs.
func (t *Text) Dropped() int { return t.dropped }

// Draw draws the glyphs queued since the last Draw over the bound
// framebuffer of width×height pixels, and ends the frame's queue (the next
// Print starts a new one). Call it after the scene, before the swap.
//
// It sets the viewport to the whole framebuffer and draws without depth
// test or face culling, blending by the colour's alpha (the framebuffer's
// alpha stays 1 where it was); then it leaves blending off and depth
// testing and back-face culling on, as Renderer.Draw has them, texture
// unit 0 active and the other units' bindings but 6 and 7 untouched. With
// nothing queued, or an empty framebuffer, it makes no GL call.
func (t *Text) Draw(width, height int) {
	t.mustLive("Draw")
	if t.drawn {
		t.glyphs, t.dropped = t.glyphs[:0], 0 // nothing printed since the last Draw
	}
	t.drawn = true
	t.uploaded = 0
	if width <= 0 || height <= 0 || len(t.glyphs) == 0 {
		return
	}
	t.uploaded = int32(len(t.glyphs))
	size := len(t.glyphs) * textGlyphSize
	for t.bufCap < size {
		t.mem.add(t.bufCap) // doubling adds as much again
		t.bufCap *= 2
	}
	gl.BindBuffer(gl.TEXTURE_BUFFER, t.buf)
	// Orphaned first, so the copy never waits for the GPU to finish
	// drawing the previous frame's glyphs.
	gl.BufferData(gl.TEXTURE_BUFFER, t.bufCap, nil, gl.STREAM_DRAW)
	gl.BufferSubData(gl.TEXTURE_BUFFER, 0, size, unsafe.Pointer(unsafe.SliceData(t.glyphs)))
	gl.BindBuffer(gl.TEXTURE_BUFFER, 0)
	t.draw(width, height)
}

// Redraw draws the glyphs the last Draw drew again, without uploading
// them: for drawing the same frame twice, as a screenshot does after the
// swap. Prints since that Draw are not drawn. It behaves as Draw otherwise.
func (t *Text) Redraw(width, height int) {
	t.mustLive("Redraw")
	if width <= 0 || height <= 0 || t.uploaded == 0 {
		return
	}
	t.draw(width, height)
}

// draw draws the first t.uploaded glyphs of the glyph buffer.
func (t *Text) draw(width, height int) {
	gl.Viewport(0, 0, int32(width), int32(height))
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.CULL_FACE)
	gl.Enable(gl.BLEND)
	gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ONE, gl.ONE_MINUS_SRC_ALPHA)
	gl.UseProgram(uint32(t.prog))
	gl.Uniform2f(t.locViewport, float32(width), float32(height))
	gl.ActiveTexture(gl.TEXTURE0 + textAtlasUnit)
	gl.BindTexture(gl.TEXTURE_2D, t.atlas)
	gl.ActiveTexture(gl.TEXTURE0 + textGlyphsUnit)
	gl.BindTexture(gl.TEXTURE_BUFFER, t.bufTex)
	gl.BindVertexArray(t.vao)
	gl.DrawArrays(gl.TRIANGLES, 0, 6*t.uploaded)
	gl.BindVertexArray(0)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.Disable(gl.BLEND)
	gl.Enable(gl.DEPTH_TEST)
	gl.Enable(gl.CULL_FACE)
	checkFrame("Text.Draw")
}

// Delete frees Text's GPU objects. Using it afterwards panics; deleting it
// again does nothing.
func (t *Text) Delete() {
	if t == nil {
		return
	}
	t.prog.Delete()
	deleteVertexArray(&t.vao)
	if t.atlas != 0 {
		t.mem.add(-atlasWidth * atlasHeight)
		deleteTexture(&t.atlas)
	}
	if t.buf != 0 {
		t.mem.add(-t.bufCap)
		deleteTexture(&t.bufTex)
		deleteBuffer(&t.buf)
	}
}

func (t *Text) mustLive(method string) {
	if t == nil || t.prog == 0 || t.vao == 0 {
		panic("gfx: Text." + method + " on a nil, deleted or unfinished Text")
	}
}
