package gfx_test

import (
	"github.com/nebulaengine/nebula/engine/render"

	"bytes"
	"image"
	"math"
	"strings"
	"testing"

	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/nebulaengine/nebula/gfx"
)

// overlaySize is the side of the window the overlay tests draw into: the
// panel fits with room to spare.
const overlaySize = 400

// sceneClear is a bright background, so that the overlay's dark panel
// changes every pixel it covers.
var sceneClear = [4]float32{0.4, 0.6, 0.8, 1}

// newOverlay builds a Renderer (for the scene) and an Overlay in an
// overlaySize window; both are deleted when the test ends.
func newOverlay(t testing.TB) (r *gfx.Renderer, o *gfx.Overlay, w, h int) {
	t.Helper()
	r, w, h = newRenderer(t, overlaySize)
	var err error
	onMain(func() { o, err = gfx.NewOverlay(new(gfx.MemoryCounter)) })
	if err != nil {
		t.Fatalf("NewOverlay: %v", err)
	}
	t.Cleanup(func() { onMain(o.Delete) })
	return r, o, w, h
}

// overlayFrame draws the scene (insts over sceneClear), then the overlay
// showing f unless f is nil, checks for GL errors and reads the frame back.
func overlayFrame(t testing.TB, r *gfx.Renderer, o *gfx.Overlay, w, h int, insts []render.Instance, f *gfx.OverlayPanel) *image.RGBA {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var glErr, readErr error
	onMain(func() {
		r.Draw(w, h, sceneClear, testCamera, insts, nil)
		if f != nil {
			o.Draw(w, h, f)
		}
		glErr = gfx.CheckError()
		readErr = r.ReadRGBA(img)
	})
	if glErr != nil {
		t.Fatalf("after Frame and Overlay.Draw: %v", glErr)
	}
	if readErr != nil {
		t.Fatalf("ReadRGBA: %v", readErr)
	}
	return img
}

// diff returns the pixels where a and b differ, and their bounds.
func diff(a, b *image.RGBA) (pts []image.Point, bounds image.Rectangle) {
	for y := a.Rect.Min.Y; y < a.Rect.Max.Y; y++ {
		for x := a.Rect.Min.X; x < a.Rect.Max.X; x++ {
			if a.RGBAAt(x, y) != b.RGBAAt(x, y) {
				pts = append(pts, image.Pt(x, y))
				bounds = bounds.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return pts, bounds
}

// fullOverlayPanel is a frame using every part of the overlay, beyond its
// limits: text too long and with too many lines, more samples than the
// graph shows, more marks and buckets than it draws.
func fullOverlayPanel() *gfx.OverlayPanel {
	f := &gfx.OverlayPanel{
		Text:      []byte(strings.Repeat("fps 144.0  frame 6.94 ms  steps 1  alpha 0.42  tick 123456\n", 20)),
		GraphMax:  0,
		Marks:     []float32{6.94, 16.67, 30, 40, 50},
		Histogram: []uint64{3, 500, 20, 2, 0, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9},
	}
	for i := range 300 {
		f.Graph = append(f.Graph, 5+4*float32(math.Sin(float64(i)/7)))
	}
	return f
}

// The overlay changes every pixel of its rectangle and no other, and leaves
// the state the renderer draws with as it was: the frame after it is the
// same as without it.
func TestOverlayCoversItsRectOnly(t *testing.T) {
	r, o, w, h := newOverlay(t)
	insts := gridInstances(49, 7)
	scene := overlayFrame(t, r, o, w, h, insts, nil)
	with := overlayFrame(t, r, o, w, h, insts, fullOverlayPanel())
	after := overlayFrame(t, r, o, w, h, insts, nil)

	var rect image.Rectangle
	onMain(func() { rect = o.Rect(w, h) })
	t.Logf("Rect(%d, %d) = %v", w, h, rect)
	if rect.Empty() || !rect.In(image.Rect(0, 0, w, h)) || rect.Min.X > 16 || rect.Min.Y > 16 {
		t.Fatalf("Rect(%d, %d) = %v, want a non-empty rectangle near the top-left corner", w, h, rect)
	}
	changed, outside := 0, 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			same := scene.RGBAAt(x, y) == with.RGBAAt(x, y)
			switch in := image.Pt(x, y).In(rect); {
			case in && !same:
				changed++
			case !in && !same:
				outside++
			}
			if a := with.RGBAAt(x, y).A; a != 255 {
				t.Fatalf("pixel (%d, %d) has alpha %d with the overlay, want 255 (opaque screenshots)", x, y, a)
			}
		}
	}
	if outside != 0 {
		t.Errorf("the overlay changed %d pixels outside its Rect %v", outside, rect)
	}
	if n := rect.Dx() * rect.Dy(); changed != n {
		t.Errorf("the overlay changed %d of the %d pixels of its Rect %v, want all (a dark panel over a bright scene)", changed, n, rect)
	}
	if pts, b := diff(scene, after); len(pts) != 0 {
		t.Errorf("the frame drawn after the overlay differs from the same frame drawn before it in %d pixels within %v: Draw disturbed the renderer's state", len(pts), b)
	}

	// Clipped to smaller framebuffers, empty for an empty one.
	onMain(func() {
		for _, tt := range []struct {
			w, h int
			want image.Rectangle
		}{
			{100, 50, image.Rect(rect.Min.X, rect.Min.Y, 100, 50)},
			{0, 0, image.Rectangle{}},
			{-5, 100, image.Rectangle{}},
		} {
			if got := o.Rect(tt.w, tt.h); got != tt.want && !(got.Empty() && tt.want.Empty()) {
				t.Errorf("Rect(%d, %d) = %v, want %v", tt.w, tt.h, got, tt.want)
			}
		}
	})
}

// Text renders the font's glyphs, pixel for pixel: the pixels that change
// when a space becomes an '8' (or a 'g', below the baseline) are the
// glyph's, in the glyph's shape, at the text's top-left corner.
func TestOverlayDrawsGlyphs(t *testing.T) {
	r, o, w, h := newOverlay(t)
	var rect image.Rectangle
	onMain(func() { rect = o.Rect(w, h) })
	blank := overlayFrame(t, r, o, w, h, nil, &gfx.OverlayPanel{Text: []byte(" ")})
	for _, c := range []byte("8Ag|") {
		img := overlayFrame(t, r, o, w, h, nil, &gfx.OverlayPanel{Text: []byte{c}})
		pts, b := diff(blank, img)
		want := glyphPixels(t, rune(c))
		if len(pts) != len(want) {
			t.Errorf("%q: %d pixels changed, the glyph has %d", c, len(pts), len(want))
			continue
		}
		// The glyph's cell starts near the panel's top-left corner.
		if !b.In(image.Rect(rect.Min.X, rect.Min.Y, rect.Min.X+24, rect.Min.Y+32)) {
			t.Errorf("%q drawn over %v, want it at the top-left of the panel %v", c, b, rect)
		}
		// Same shape: compare both point sets relative to their bounds.
		gb := image.Rectangle{}
		for _, p := range want {
			gb = gb.Union(image.Rectangle{p, p.Add(image.Pt(1, 1))})
		}
		for i := range pts {
			if pts[i].Sub(b.Min) != want[i].Sub(gb.Min) {
				t.Errorf("%q: drawn pixels %v are not the glyph's %v", c, pts, want)
				break
			}
		}
	}

	// A second line starts one line height lower, at the same column.
	one := overlayFrame(t, r, o, w, h, nil, &gfx.OverlayPanel{Text: []byte("8")})
	two := overlayFrame(t, r, o, w, h, nil, &gfx.OverlayPanel{Text: []byte(" \n8")})
	_, b1 := diff(blank, one)
	_, b2 := diff(blank, two)
	if b2.Min.X != b1.Min.X || b2.Min.Y-b1.Min.Y != basicfont.Face7x13.Height {
		t.Errorf("'8' on the second line drawn at %v, on the first at %v: want %d pixels lower, same column", b2.Min, b1.Min, basicfont.Face7x13.Height)
	}
}

// glyphPixels returns the covered pixels of the font's glyph for c, rows
// top to bottom, in the order diff finds them.
func glyphPixels(t *testing.T, c rune) []image.Point {
	t.Helper()
	dr, mask, mp, _, ok := basicfont.Face7x13.Glyph(fixed.P(0, 0), c)
	if !ok {
		t.Fatalf("the font has no glyph for %q", c)
	}
	var pts []image.Point
	for y := dr.Min.Y; y < dr.Max.Y; y++ {
		for x := dr.Min.X; x < dr.Max.X; x++ {
			if _, _, _, a := mask.At(mp.X+x-dr.Min.X, mp.Y+y-dr.Min.Y).RGBA(); a != 0 {
				pts = append(pts, image.Pt(x, y))
			}
		}
	}
	if len(pts) == 0 {
		t.Fatalf("the font's glyph for %q is empty", c)
	}
	return pts
}

// topChange returns the topmost row in which img differs from base, and
// how many columns differ anywhere.
func topChange(base, img *image.RGBA) (top, cols int) {
	pts, b := diff(base, img)
	seen := map[int]bool{}
	for _, p := range pts {
		seen[p.X] = true
	}
	if len(pts) == 0 {
		return -1, 0
	}
	return b.Min.Y, len(seen)
}

// The graph's line is higher for larger values, one column per sample
// (the newest at the right edge); the reference lines likewise.
func TestOverlayGraph(t *testing.T) {
	r, o, w, h := newOverlay(t)
	const top = 20
	base := overlayFrame(t, r, o, w, h, nil, &gfx.OverlayPanel{GraphMax: top})
	prev := math.MaxInt
	for _, v := range []float32{0, 2, 5, 10, 15, 19.5, 20, 50} {
		graph := make([]float32, 240)
		for i := range graph {
			graph[i] = v
		}
		img := overlayFrame(t, r, o, w, h, nil, &gfx.OverlayPanel{GraphMax: top, Graph: graph})
		row, cols := topChange(base, img)
		t.Logf("value %v: line at row %d over %d columns", v, row, cols)
		if cols != 240 {
			t.Errorf("value %v: %d columns changed, want 240, one per sample", v, cols)
		}
		switch {
		case v > top && row != prev:
			t.Errorf("value %v above GraphMax %v drawn at row %d, want the top row %d", v, top, row, prev)
		case v <= top && row >= prev:
			t.Errorf("value %v drawn at row %d, want above (less than) row %d of the smaller value", v, row, prev)
		}
		prev = row
	}

	// Fewer samples than columns are drawn at the right end.
	short := overlayFrame(t, r, o, w, h, nil, &gfx.OverlayPanel{GraphMax: top, Graph: []float32{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}})
	_, b := diff(base, short)
	full := overlayFrame(t, r, o, w, h, nil, &gfx.OverlayPanel{GraphMax: top, Graph: make([]float32, 240)})
	_, fb := diff(base, full)
	if b.Dx() != 10 || b.Max.X != fb.Max.X {
		t.Errorf("10 samples drawn over columns %d to %d, want 10 columns ending at %d like 240 samples", b.Min.X, b.Max.X, fb.Max.X)
	}

	// Each mark is a one-pixel line across the graph, higher for more.
	var rows []int
	for _, m := range []float32{6.94, 16.67} {
		img := overlayFrame(t, r, o, w, h, nil, &gfx.OverlayPanel{GraphMax: top, Marks: []float32{m}})
		pts, b := diff(base, img)
		t.Logf("mark %v: %d pixels over %v", m, len(pts), b)
		if b.Dy() != 1 || b.Dx() != 240 || len(pts) != 240 {
			t.Errorf("mark %v changed %d pixels over %v, want a line 240 pixels wide and 1 high", m, len(pts), b)
		}
		rows = append(rows, b.Min.Y)
	}
	if rows[1] >= rows[0] {
		t.Errorf("mark 16.67 at row %d, mark 6.94 at row %d: want the larger higher", rows[1], rows[0])
	}
}

// The histogram's bars stand side by side, each as tall as its count
// relative to the largest.
func TestOverlayHistogram(t *testing.T) {
	r, o, w, h := newOverlay(t)
	counts := []uint64{1, 2, 4, 8, 4, 0}
	base := overlayFrame(t, r, o, w, h, nil, &gfx.OverlayPanel{Histogram: make([]uint64, len(counts))})
	img := overlayFrame(t, r, o, w, h, nil, &gfx.OverlayPanel{Histogram: counts})
	pts, _ := diff(base, img)
	// Group the changed pixels into bars: runs of adjacent columns.
	heights := map[int]int{} // column -> changed pixels
	for _, p := range pts {
		heights[p.X]++
	}
	var bars []int // the height of each bar
	for x, last := 0, -2; x < w; x++ {
		if heights[x] == 0 {
			continue
		}
		if x != last+1 {
			bars = append(bars, heights[x])
		}
		last = x
	}
	t.Logf("bar heights %v for counts %v", bars, counts)
	if len(bars) != 5 {
		t.Fatalf("%d bars drawn for counts %v, want 5 (none for 0)", len(bars), counts)
	}
	for i, c := range counts[:5] {
		want := float64(bars[3]) * float64(c) / 8
		if math.Abs(float64(bars[i])-want) > 1 {
			t.Errorf("bar %d (count %d) is %d pixels high, want %.1f (the largest, count 8, is %d)", i, c, bars[i], want, bars[3])
		}
	}
}

// A zero-size framebuffer (a minimised window) draws nothing.
func TestOverlayEmptyFramebufferDrawsNothing(t *testing.T) {
	r, o, w, h := newOverlay(t)
	scene := overlayFrame(t, r, o, w, h, nil, nil)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var glErr, readErr error
	onMain(func() {
		r.Draw(w, h, sceneClear, testCamera, nil, nil)
		for _, size := range [][2]int{{0, 0}, {w, 0}, {0, h}, {-1, -1}} {
			o.Draw(size[0], size[1], fullOverlayPanel())
		}
		glErr = gfx.CheckError()
		readErr = r.ReadRGBA(img)
	})
	if glErr != nil || readErr != nil {
		t.Fatalf("GL error %v, ReadRGBA %v", glErr, readErr)
	}
	if pts, b := diff(scene, img); len(pts) != 0 {
		t.Errorf("Draw into a zero-size framebuffer changed %d pixels within %v", len(pts), b)
	}
}

// Odd inputs draw without GL errors or panics: NaN, infinities and
// negative values, bytes outside ASCII, a nil frame.
func TestOverlayOddInputs(t *testing.T) {
	r, o, w, h := newOverlay(t)
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	frames := []*gfx.OverlayPanel{
		nil,
		{},
		{Text: []byte("tab\there\r\n\x00\xff héllo"), Graph: []float32{nan, inf, -inf, -1, 0, 1e30}, Marks: []float32{nan, -1, inf}},
		{Graph: []float32{nan, nan}, GraphMax: nan},
		{Graph: []float32{1, 2, 3}, GraphMax: inf, Histogram: []uint64{math.MaxUint64, 1, 0}},
		{Graph: []float32{1, 2, 3}, GraphMax: -5, Histogram: make([]uint64, 100)},
		{Text: bytes.Repeat([]byte{'\n'}, 100)},
	}
	for _, f := range frames {
		overlayFrame(t, r, o, w, h, nil, f) // fails on a GL error
	}
}

func TestOverlayDrawDoesNotAllocate(t *testing.T) {
	r, o, w, h := newOverlay(t)
	insts := gridInstances(100, 10)
	f := fullOverlayPanel()
	var err error
	allocs := map[string]float64{}
	onMain(func() {
		check := func() {
			if e := gfx.CheckError(); e != nil && err == nil {
				err = e
			}
		}
		allocs["Draw"] = testing.AllocsPerRun(50, func() {
			o.Draw(w, h, f)
			check()
		})
		allocs["Draw(nil)"] = testing.AllocsPerRun(50, func() {
			o.Draw(w, h, nil)
			check()
		})
		allocs["Frame+Draw"] = testing.AllocsPerRun(50, func() {
			r.Draw(w, h, sceneClear, testCamera, insts, nil)
			o.Draw(w, h, f)
			check()
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

func TestDeletedOverlayPanics(t *testing.T) {
	_, o, w, h := newOverlay(t)
	var got any
	onMain(func() {
		o.Delete()
		o.Delete() // idempotent
		defer func() { got = recover() }()
		o.Draw(w, h, nil)
	})
	if msg, _ := got.(string); !strings.HasPrefix(msg, "gfx: ") {
		t.Errorf("Draw on a deleted Overlay panicked with %v, want a message starting with \"gfx: \"", got)
	}
}

func BenchmarkOverlayDraw(b *testing.B) {
	r, o, w, h := newOverlay(b)
	f := fullOverlayPanel()
	b.ReportAllocs()
	var err error
	onMain(func() {
		r.Draw(w, h, sceneClear, testCamera, nil, nil)
		for b.Loop() {
			o.Draw(w, h, f)
		}
		err = gfx.CheckError()
	})
	if err != nil {
		b.Fatal(err)
	}
}
