package gfx

import (
	"fmt"
	"image"
	"math"
	"strconv"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/nebulaengine/nebula/shaders"
)

// The overlay's fixed layout. Everything is in framebuffer pixels, from the
// framebuffer's top-left corner; OverlayTextColumns, OverlayTextLines and
// OverlayGraphSamples say how much of an OverlayPanel is shown.
const (
	// OverlayTextColumns is the number of characters of a text line the
	// overlay shows; the rest of a longer line is cut off.
	OverlayTextColumns = 48
	// OverlayTextLines is the number of text lines the overlay shows; later
	// lines are cut off.
	OverlayTextLines = 10
	// OverlayGraphSamples is the number of frame intervals the graph shows,
	// one pixel column each: the last OverlayGraphSamples of
	// OverlayPanel.Graph.
	OverlayGraphSamples = 240
	// OverlayMaxMarks is the number of reference lines the graph draws:
	// the first OverlayMaxMarks of OverlayPanel.Marks.
	OverlayMaxMarks = 4
	// OverlayMaxBuckets is the number of histogram bars the overlay draws:
	// the first OverlayMaxBuckets of OverlayPanel.Histogram.
	OverlayMaxBuckets = 16
)

// The overlay's layout in pixels; the font's metrics (glyphW, advance,
// lineStep) are in font.go.
const (
	overlayMargin = 8  // from the framebuffer's top-left corner to the panel
	overlayPad    = 6  // from the panel's edge to its contents
	graphGap      = 6  // between the text and the graph
	histGap       = 8  // between the graph and the histogram
	barGap        = 2  // between histogram bars
	graphH        = 64 // the graph's and the histogram's height

	textW = OverlayTextColumns * advance
	textH = OverlayTextLines * lineStep
	// The histogram takes the width the text has beyond the graph.
	histW = textW - OverlayGraphSamples - histGap

	panelW = 2*overlayPad + textW
	panelH = 2*overlayPad + textH + graphGap + graphH

	// The graph's top-left corner and the histogram's left edge.
	graphX = overlayMargin + overlayPad
	graphY = overlayMargin + overlayPad + textH + graphGap
	histX  = graphX + OverlayGraphSamples + histGap

	// labelMax is the longest scale label ("33.3 ms") drawn in the graph.
	labelMax = 16
)

// overlayTextureUnit is the texture unit the overlay binds its panel
// texture to. It is not the renderer's unit (instanceTextureUnit), so
// drawing the overlay leaves the renderer's buffer texture where it was.
const overlayTextureUnit = 1

// The overlay's colours, straight RGBA.
var (
	panelColor     = [4]uint8{14, 16, 22, 255}    // the dark panel, opaque
	areaColor      = [4]uint8{255, 255, 255, 20}  // the graph's and histogram's backgrounds
	textColor      = [4]uint8{235, 235, 235, 255} // the text
	labelColor     = [4]uint8{200, 200, 200, 150} // the graph's scale label
	graphLineColor = [4]uint8{90, 200, 255, 255}  // the frame-time line
	graphFillColor = [4]uint8{90, 200, 255, 56}   // under the line
	histogramColor = [4]uint8{255, 170, 80, 230}  // the histogram's bars
	markColors     = [OverlayMaxMarks][4]uint8{
		{80, 230, 120, 200},  // the first mark (the demo's render target)
		{255, 220, 60, 200},  // the second (the demo's tick)
		{255, 100, 100, 200}, // and further ones
		{200, 120, 255, 200},
	}
)

// OverlayPanel is what one Overlay.Draw shows. Draw reads it and keeps
// nothing; reuse it, and the slices in it, from frame to frame so that
// building it does not allocate either (strconv.AppendFloat and friends
// append to a reused Text without allocating).
type OverlayPanel struct {
	// Text is ASCII text, lines separated by '\n', drawn from the panel's
	// top-left corner in white. A line shows its first OverlayTextColumns
	// characters and the panel its first OverlayTextLines lines. '\r' is
	// ignored; any other byte outside printable ASCII (a tab, UTF-8) is
	// drawn as the replacement character.
	Text []byte
	// Graph holds frame intervals in milliseconds, oldest first. The last
	// OverlayGraphSamples of them are drawn as a line, one pixel column
	// each, the newest at the graph's right edge. Values below zero (and
	// NaN) are drawn as 0, values above GraphMax at the top.
	Graph []float32
	// GraphMax is the value in milliseconds at the top of the graph. Zero
	// (or less) picks one: the largest of Graph and Marks, plus a tenth,
	// rounded up to a whole 5 ms (a whole ms below 10 ms). The graph's
	// top-left corner shows the value.
	GraphMax float32
	// Marks are values in milliseconds drawn as horizontal reference lines
	// across the graph, each in its own colour (green, yellow, red, purple),
	// for example a render target of 6.94 ms and a tick of 16.67 ms. The
	// first OverlayMaxMarks are drawn; a mark above GraphMax is not.
	Marks []float32
	// Histogram holds counts drawn as bars beside the graph, bucket 0 on
	// the left, scaled so the largest count fills the height; for example
	// how many frames ran 0, 1, 2, 3, 4 and 5 or more fixed steps. The
	// first OverlayMaxBuckets are drawn.
	Histogram []uint64
}

// Overlay draws an on-screen diagnostics panel over a frame: text, a graph
// of recent frame intervals with reference lines, and a histogram, in an
// opaque dark panel at the framebuffer's top-left corner (see Rect).
//
// It draws in screen space, in framebuffer pixels, with whole-pixel
// geometry: nothing is interpolated or filtered, and text is a bitmap font
// (golang.org/x/image/font/basicfont's 7×13). Draw lays the panel out and
// rasterises it on the CPU into an image the size of the panel, uploads
// that into a texture and copies it onto the framebuffer with one quad.
// A panel is a few hundred small shapes; drawn as GPU geometry, most of
// them a pixel wide, they cost a software rasteriser (Mesa's llvmpipe) a
// millisecond or more per frame, and one textured quad a fraction of that,
// while a GPU does not notice either way. Draw it after the scene and
// before SwapBuffers (and before reading a screenshot if the screenshot
// should show it).
//
// Every method must be called with the OpenGL context current, on its
// thread. Delete it when done; it has no finalizer.
type Overlay struct {
	prog Program
	vao  uint32 // empty: the quad's corners come from gl_VertexID
	tex  uint32 // GL_RGBA8, panelW×panelH: the panel as Draw last built it

	locViewport int32

	// img is the panel being built, panelW×panelH pixels of premultiplied
	// RGBA, rows top to bottom (the texture's row 0 is the panel's top).
	img []byte
	// atlas holds the glyphs' coverage; glyphs maps a byte of text to the
	// top-left texel of its atlas cell.
	atlas  *image.Alpha
	glyphs [256][2]uint16
	label  []byte         // the graph's scale label, capacity labelMax
	mem    *MemoryCounter // the context's counter, for tex
}

// NewOverlay builds the overlay's program (shaders/overlay.vert and
// overlay.frag), rasterises its font into the glyph atlas and creates its
// texture, counting its bytes in mem, the context's counter (see
// MemoryCounter). A context must be current and Init must have been
// called. Errors name what failed; shader errors are *ShaderError.
func NewOverlay(mem *MemoryCounter) (*Overlay, error) {
	mustBeLoaded("NewOverlay")
	o := newPanel()
	o.mem = mem
	ok := false
	defer func() {
		if !ok {
			o.Delete()
		}
	}()

	var err error
	if o.prog, err = NewProgram(shaders.FS, "overlay.vert", "overlay.frag"); err != nil {
		return nil, err
	}
	u := uniforms{prog: o.prog, files: "overlay.vert + overlay.frag"}
	o.locViewport = u.find("uViewport")
	locRect := u.find("uRect")
	locPanel := u.find("uPanel")
	if u.err != nil {
		return nil, u.err
	}
	gl.UseProgram(uint32(o.prog))
	gl.Uniform1i(locPanel, overlayTextureUnit)
	gl.Uniform4f(locRect, overlayMargin, overlayMargin, panelW, panelH)
	gl.UseProgram(0)

	// The panel's texture is fetched by integer texel (texelFetch), so
	// only level 0 exists and the filters never apply; GL_NEAREST without
	// mipmaps still matters, as a texture whose minification filter wants
	// mipmaps it lacks is incomplete and reads 0. Rows are 4*panelW
	// bytes, a multiple of GL_UNPACK_ALIGNMENT's default 4.
	o.build(&emptyOverlayPanel)
	gl.GenTextures(1, &o.tex)
	gl.ActiveTexture(gl.TEXTURE0 + overlayTextureUnit)
	gl.BindTexture(gl.TEXTURE_2D, o.tex)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, panelW, panelH, 0, gl.RGBA, gl.UNSIGNED_BYTE, unsafe.Pointer(&o.img[0]))
	o.mem.add(rgba8Bytes(panelW, panelH, false))
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAX_LEVEL, 0)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	gl.BindTexture(gl.TEXTURE_2D, 0)
	gl.ActiveTexture(gl.TEXTURE0)
	// A core context draws only with a vertex array bound, even one
	// without attributes.
	gl.GenVertexArrays(1, &o.vao)

	if err := CheckError(); err != nil {
		return nil, fmt.Errorf("gfx: NewOverlay: %w", err)
	}
	ok = true
	return o, nil
}

// newPanel returns an Overlay with its CPU side only: the panel image, the
// glyph atlas and the map from bytes to glyphs. NewOverlay adds the GL side.
func newPanel() *Overlay {
	o := &Overlay{
		img:   make([]byte, 4*panelW*panelH),
		atlas: newGlyphAtlas(),
		label: make([]byte, 0, labelMax),
	}
	for b := range o.glyphs {
		x, y := atlasCell(cellOf(rune(b)))
		o.glyphs[b] = [2]uint16{uint16(x), uint16(y)}
	}
	return o
}

// Rect returns the rectangle of a width×height framebuffer that Draw
// covers, in pixels from its top-left corner: the panel, clipped to the
// framebuffer. It is the same for every frame, and empty when the
// framebuffer is.
func (o *Overlay) Rect(width, height int) image.Rectangle {
	r := image.Rect(overlayMargin, overlayMargin, overlayMargin+panelW, overlayMargin+panelH)
	return r.Intersect(image.Rect(0, 0, max(width, 0), max(height, 0)))
}

// Draw draws the overlay showing f (nil shows an empty panel) over the
// bound framebuffer, of width×height pixels, replacing the pixels of Rect.
// Call it after the scene, for example after Renderer.Draw.
//
// It makes the same 14 OpenGL calls, one of them the draw, whatever f
// holds: it uploads the panel into its texture and draws one quad. It sets
// the viewport to the whole framebuffer, draws without depth test, face
// culling or blending, and then leaves depth testing and back-face culling
// enabled, as Renderer.Draw has them; its program stays bound, texture
// unit 0 is the active one again and its bindings are untouched (the
// panel is on unit 1). It does not allocate. A framebuffer of zero width
// or height draws nothing and makes no GL call.
func (o *Overlay) Draw(width, height int, f *OverlayPanel) {
	o.mustLive("Draw")
	if width <= 0 || height <= 0 {
		return
	}
	if f == nil {
		f = &emptyOverlayPanel
	}
	o.build(f)
	o.draw(width, height, true)
}

// Redraw draws the panel Draw last built again, without laying it out or
// uploading it: for drawing the same frame twice, as a screenshot does
// after the swap. Before any Draw it shows an empty panel. It makes 13
// OpenGL calls and otherwise behaves as Draw.
func (o *Overlay) Redraw(width, height int) {
	o.mustLive("Redraw")
	if width <= 0 || height <= 0 {
		return
	}
	o.draw(width, height, false)
}

// draw copies the panel onto the framebuffer, uploading o.img first when
// upload is set.
func (o *Overlay) draw(width, height int, upload bool) {
	gl.Viewport(0, 0, int32(width), int32(height))
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.CULL_FACE)
	gl.UseProgram(uint32(o.prog))
	gl.Uniform2f(o.locViewport, float32(width), float32(height))
	gl.ActiveTexture(gl.TEXTURE0 + overlayTextureUnit)
	gl.BindTexture(gl.TEXTURE_2D, o.tex)
	if upload {
		gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, panelW, panelH, gl.RGBA, gl.UNSIGNED_BYTE, unsafe.Pointer(&o.img[0]))
	}
	gl.BindVertexArray(o.vao)
	gl.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	gl.BindVertexArray(0)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.Enable(gl.DEPTH_TEST)
	gl.Enable(gl.CULL_FACE)
	checkFrame("Overlay.Draw")
}

// emptyOverlayPanel is what Draw shows for a nil frame.
var emptyOverlayPanel OverlayPanel

// build rasterises f into o.img, back to front: the panel, the graph's
// background, fill, marks, scale label and line, the histogram, and the
// text on top. Coordinates are framebuffer pixels, as Rect has them.
func (o *Overlay) build(f *OverlayPanel) {
	o.solid(overlayMargin, overlayMargin, overlayMargin+panelW, overlayMargin+panelH, panelColor)
	o.graph(f)
	o.histogram(f.Histogram)
	o.text(overlayMargin+overlayPad, overlayMargin+overlayPad, f.Text, OverlayTextColumns, OverlayTextLines, textColor)
}

// graph lays out the frame-time graph.
func (o *Overlay) graph(f *OverlayPanel) {
	const x0, y0, y1 = graphX, graphY, graphY + graphH
	o.solid(x0, y0, x0+OverlayGraphSamples, y1, areaColor)

	top := f.GraphMax
	if !(top > 0) || top > math.MaxFloat32 {
		top = autoGraphMax(f.Graph, f.Marks)
	}
	// yOf is the pixel row of the value v: the bottom row for 0, the top
	// row for top and above.
	yOf := func(v float32) int {
		frac := float64(v / top)
		if !(frac > 0) {
			frac = 0 // negative or NaN
		}
		return y1 - 1 - int(math.Round(min(frac, 1)*(graphH-1)))
	}

	samples := f.Graph
	if len(samples) > OverlayGraphSamples {
		samples = samples[len(samples)-OverlayGraphSamples:]
	}
	xs := x0 + OverlayGraphSamples - len(samples) // the newest at the right edge
	for i, v := range samples {
		o.solid(xs+i, yOf(v)+1, xs+i+1, y1, graphFillColor)
	}
	for i, m := range f.Marks[:min(len(f.Marks), OverlayMaxMarks)] {
		if m > 0 && m <= top {
			y := yOf(m)
			o.solid(x0, y, x0+OverlayGraphSamples, y+1, markColors[i])
		}
	}
	o.label = strconv.AppendFloat(o.label[:0], float64(top), 'g', 3, 32)
	o.label = append(o.label, " ms"...)
	o.text(x0+2, y0+1, o.label, labelMax, 1, labelColor)

	// The line: each column spans from the previous sample's row to its
	// own, so the line is connected however steep it gets.
	prev := 0
	for i, v := range samples {
		y := yOf(v)
		if i == 0 {
			prev = y
		}
		o.solid(xs+i, min(prev, y), xs+i+1, max(prev, y)+1, graphLineColor)
		prev = y
	}
}

// autoGraphMax is the top of the graph when OverlayPanel.GraphMax is 0.
func autoGraphMax(samples, marks []float32) float32 {
	// Not the built-in max, which returns NaN when either argument is:
	// NaN and infinite values are skipped.
	m := float32(0)
	for _, v := range samples {
		if v > m && v <= math.MaxFloat32 {
			m = v
		}
	}
	for _, v := range marks[:min(len(marks), OverlayMaxMarks)] {
		if v > m && v <= math.MaxFloat32 {
			m = v
		}
	}
	step := float32(5)
	if m < 10 {
		step = 1
	}
	return max(step, float32(math.Ceil(float64(m*1.1/step)))*step)
}

// histogram lays out the histogram's bars beside the graph.
func (o *Overlay) histogram(counts []uint64) {
	const y0, y1 = graphY, graphY + graphH
	counts = counts[:min(len(counts), OverlayMaxBuckets)]
	n := len(counts)
	if n == 0 {
		o.solid(histX, y0, histX+histW, y1, areaColor)
		return
	}
	most := uint64(0)
	for _, c := range counts {
		most = max(most, c)
	}
	w := (histW - (n-1)*barGap) / n
	for i, c := range counts {
		x := histX + i*(w+barGap)
		o.solid(x, y0, x+w, y1, areaColor)
		if c == 0 {
			continue
		}
		// At least one pixel for any count above 0.
		h := max(1, int(math.Round(float64(c)/float64(most)*graphH)))
		o.solid(x, y1-h, x+w, y1, histogramColor)
	}
}

// text lays out s from (x, y), its top-left corner: at most lines lines of
// at most cols characters.
func (o *Overlay) text(x, y int, s []byte, cols, lines int, c [4]uint8) {
	line, col := 0, 0
	for _, b := range s {
		switch {
		case b == '\n':
			line++
			col = 0
			if line == lines {
				return
			}
			continue
		case b == '\r':
			continue
		case col >= cols:
			continue // cut off: look for the next line
		case b != ' ':
			o.glyph(x+col*advance+overlayFace.Left, y+line*lineStep, o.glyphs[b], c)
		}
		col++
	}
}

// solid composites a plain rectangle from (x0, y0) to (x1, y1) in colour c
// over the panel (see over). An opaque colour is written as it is.
func (o *Overlay) solid(x0, y0, x1, y1 int, c [4]uint8) {
	x0, y0, x1, y1, ok := clipToPanel(x0, y0, x1, y1)
	if !ok {
		return
	}
	if c[3] == 255 {
		// Fill the first row by doubling what is filled, then copy it.
		row := o.img[4*(y0*panelW+x0) : 4*(y0*panelW+x1)]
		copy(row, c[:])
		for n := 4; n < len(row); n *= 2 {
			copy(row[n:], row[:n])
		}
		for y := y0 + 1; y < y1; y++ {
			copy(o.img[4*(y*panelW+x0):], row)
		}
		return
	}
	// Shapes lie mostly over plain ground, so a run of equal pixels
	// blends to equal pixels: the last result is reused.
	var in, out [4]uint8
	have := false
	for y := y0; y < y1; y++ {
		px := o.img[4*(y*panelW+x0) : 4*(y*panelW+x1)]
		for i := 0; i < len(px); i += 4 {
			p := (*[4]uint8)(px[i : i+4])
			if have && *p == in {
				*p = out
				continue
			}
			in = *p
			over(p[:], c, 255)
			out, have = *p, true
		}
	}
}

// glyph composites the glyph whose atlas cell starts at texel cell, with
// its cell's top-left corner at (x, y), in colour c over the panel.
func (o *Overlay) glyph(x, y int, cell [2]uint16, c [4]uint8) {
	x0, y0, x1, y1, ok := clipToPanel(x, y, x+glyphW, y+glyphH)
	if !ok {
		return
	}
	// Panel pixel (px, py) shows atlas texel (px+cx, py+cy).
	cx, cy := int(cell[0])+overlayMargin-x, int(cell[1])+overlayMargin-y
	for py := y0; py < y1; py++ {
		cov := o.atlas.Pix[(py+cy)*o.atlas.Stride+x0+cx : (py+cy)*o.atlas.Stride+x1+cx]
		px := o.img[4*(py*panelW+x0) : 4*(py*panelW+x1)]
		for i, k := range cov {
			if k != 0 {
				over(px[4*i:4*i+4], c, k)
			}
		}
	}
}

// clipToPanel turns a rectangle of framebuffer pixels into the panel
// image's pixels, cut to the panel, and reports whether any of it is left.
func clipToPanel(x0, y0, x1, y1 int) (int, int, int, int, bool) {
	x0, x1 = max(x0-overlayMargin, 0), min(x1-overlayMargin, panelW)
	y0, y1 = max(y0-overlayMargin, 0), min(y1-overlayMargin, panelH)
	return x0, y0, x1, y1, x0 < x1 && y0 < y1
}

// over composites the straight-alpha colour c, scaled by the coverage k
// (0 to 255), over the premultiplied pixel dst: the source-over operator,
// in 8-bit fixed point, rounded. Over an opaque pixel the result is
// opaque.
func over(dst []byte, c [4]uint8, k uint8) {
	a := div255(uint32(c[3]) * uint32(k))
	inv := 255 - a
	dst[0] = uint8(div255(uint32(c[0])*a) + div255(uint32(dst[0])*inv))
	dst[1] = uint8(div255(uint32(c[1])*a) + div255(uint32(dst[1])*inv))
	dst[2] = uint8(div255(uint32(c[2])*a) + div255(uint32(dst[2])*inv))
	dst[3] = uint8(a + div255(uint32(dst[3])*inv))
}

// div255 returns v/255 rounded to the nearest integer, for v up to
// 255*255.
func div255(v uint32) uint32 { return (v + 128 + (v+128)>>8) >> 8 }

// Delete frees the overlay's GPU objects. Using the overlay afterwards
// panics; deleting it again does nothing.
func (o *Overlay) Delete() {
	o.prog.Delete()
	if o.vao != 0 {
		gl.DeleteVertexArrays(1, &o.vao)
		o.vao = 0
	}
	if o.tex != 0 {
		gl.DeleteTextures(1, &o.tex)
		o.tex = 0
		o.mem.add(-rgba8Bytes(panelW, panelH, false))
	}
}

func (o *Overlay) mustLive(method string) {
	if o == nil || o.prog == 0 || o.vao == 0 {
		panic("gfx: Overlay." + method + " on a nil, deleted or unfinished Overlay")
	}
}
