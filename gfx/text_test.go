package gfx_test

import (
	"image"
	"image/color"
	"math"
	"strings"
	"testing"

	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/nebulaengine/nebula/engine/render"
	"github.com/nebulaengine/nebula/gfx"
)

// textSize is the side of the window the text tests draw into.
const textSize = 200

// newText builds a Renderer (for the scene) and a Text in a textSize
// window; both are deleted when the test ends.
func newText(t testing.TB) (r *gfx.Renderer, tx *gfx.Text, w, h int) {
	t.Helper()
	r, w, h = newRenderer(t, textSize)
	var err error
	onMain(func() { tx, err = gfx.NewText(new(gfx.MemoryCounter)) })
	if err != nil {
		t.Fatalf("NewText: %v", err)
	}
	t.Cleanup(func() { onMain(tx.Delete) })
	return r, tx, w, h
}

// textFrame draws the scene (insts over sceneClear), calls print (if not
// nil) and Text.Draw, checks for GL errors and reads the frame back.
func textFrame(t testing.TB, r *gfx.Renderer, tx *gfx.Text, w, h int, insts []render.Instance, print func()) *image.RGBA {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var glErr, readErr error
	onMain(func() {
		r.Draw(w, h, sceneClear, testCamera, insts, nil)
		if print != nil {
			print()
		}
		tx.Draw(w, h)
		glErr = gfx.CheckError()
		readErr = r.ReadRGBA(img)
	})
	if glErr != nil {
		t.Fatalf("after Draw and Text.Draw: %v", glErr)
	}
	if readErr != nil {
		t.Fatalf("ReadRGBA: %v", readErr)
	}
	return img
}

// glyphMask returns whether the font covers texel (dx, dy) of r's 6×13
// cell, as basicfont draws it (the dot on the baseline, 11 rows below the
// cell's top).
func glyphMask(r rune) func(dx, dy int) bool {
	face := basicfont.Face7x13
	_, mask, mp, _, ok := face.Glyph(fixed.P(0, face.Ascent), r)
	if !ok {
		_, mask, mp, _, _ = face.Glyph(fixed.P(0, face.Ascent), '\uFFFD')
	}
	return func(dx, dy int) bool {
		_, _, _, a := mask.At(mp.X+dx, mp.Y+dy).RGBA()
		return a != 0
	}
}

// wantText draws what Print(x, y, scale, s, c) must show over bg into a
// copy of bg, from the font itself: each covered texel a scale×scale block
// of exactly c (opaque colours only).
func wantText(bg *image.RGBA, x, y, scale int, s string, c [4]uint8) *image.RGBA {
	want := image.NewRGBA(bg.Rect)
	copy(want.Pix, bg.Pix)
	col := color.RGBA{c[0], c[1], c[2], c[3]}
	for line, text := range strings.Split(s, "\n") {
		i := 0
		for _, r := range text {
			if r == '\r' {
				continue
			}
			gx, gy := x+i*gfx.TextAdvance*scale, y+line*gfx.TextLineHeight*scale
			i++
			if r == ' ' {
				continue
			}
			covered := glyphMask(r)
			if r < ' ' || r > '~' {
				covered = glyphMask('\uFFFD')
			}
			for dy := range 13 * scale {
				for dx := range 6 * scale {
					if covered(dx/scale, dy/scale) {
						want.SetRGBA(gx+dx, gy+dy, col) // off the image: ignored
					}
				}
			}
		}
	}
	return want
}

// firstDiff returns a description of the first pixel where got and want
// differ, or "".
func firstDiff(got, want *image.RGBA) (string, int) {
	n, first := 0, ""
	for y := got.Rect.Min.Y; y < got.Rect.Max.Y; y++ {
		for x := got.Rect.Min.X; x < got.Rect.Max.X; x++ {
			if g, w := got.RGBAAt(x, y), want.RGBAAt(x, y); g != w {
				if n == 0 {
					first = image.Pt(x, y).String() + ": got " + rgbaString(g) + ", want " + rgbaString(w)
				}
				n++
			}
		}
	}
	return first, n
}

func rgbaString(c color.RGBA) string {
	return "(" + itoa(int(c.R)) + ", " + itoa(int(c.G)) + ", " + itoa(int(c.B)) + ", " + itoa(int(c.A)) + ")"
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// Text's pixels are the font's, where asked (top-left origin, y down), at
// the asked scale, in exactly the asked colour, over the scene; no other
// pixel changes.
func TestTextDrawsWhereAsked(t *testing.T) {
	r, tx, w, h := newText(t)
	insts := gridInstances(9, 3)
	scene := textFrame(t, r, tx, w, h, insts, nil)
	for _, tt := range []struct {
		name        string
		x, y, scale int
		s           string
		c           [4]uint8
	}{
		{"score", 10, 20, 1, "SCORE 1234", [4]uint8{255, 40, 20, 255}},
		{"two lines, scale 3", 5, 60, 3, "Lives 3\r\n~!@#", [4]uint8{30, 250, 90, 255}},
		{"scale 0 is 1", 0, 0, 0, "gj|{}", [4]uint8{0, 0, 255, 255}},
		{"clipped at the edges", w - 20, h - 8, 2, "EDGE\nnext", [4]uint8{255, 255, 0, 255}},
		{"partly left and above", -5, -7, 1, "Abc", [4]uint8{255, 255, 255, 255}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := textFrame(t, r, tx, w, h, insts, func() { tx.Print(tt.x, tt.y, tt.scale, tt.s, tt.c) })
			scale := max(tt.scale, 1)
			want := wantText(scene, tt.x, tt.y, scale, tt.s, tt.c)
			if first, n := firstDiff(got, want); n > 0 {
				t.Errorf("Print(%d, %d, %d, %q, %v): %d pixels differ from the font's, first %s", tt.x, tt.y, tt.scale, tt.s, tt.c, n, first)
			}
			if _, n := firstDiff(got, scene); n == 0 {
				t.Errorf("Print(%d, %d, %d, %q, %v) changed no pixel", tt.x, tt.y, tt.scale, tt.s, tt.c)
			}
		})
	}
}

// Several Prints in a frame, in several colours, all show; a translucent
// colour blends over the scene by its alpha and leaves the frame opaque.
func TestTextPrintsAndBlends(t *testing.T) {
	r, tx, w, h := newText(t)
	scene := textFrame(t, r, tx, w, h, nil, nil)
	red, green := [4]uint8{255, 0, 0, 255}, [4]uint8{0, 255, 0, 255}
	got := textFrame(t, r, tx, w, h, nil, func() {
		tx.Print(4, 4, 1, "red", red)
		tx.Print(4, 30, 2, "green", green)
	})
	want := wantText(wantText(scene, 4, 4, 1, "red", red), 4, 30, 2, "green", green)
	if first, n := firstDiff(got, want); n > 0 {
		t.Errorf("two Prints: %d pixels differ, first %s", n, first)
	}

	half := [4]uint8{255, 255, 255, 128}
	got = textFrame(t, r, tx, w, h, nil, func() { tx.Print(10, 10, 4, "#", half) })
	bg := scene.RGBAAt(0, 0)
	mask := glyphMask('#')
	for dy := range 13 {
		for dx := range 6 {
			if !mask(dx, dy) {
				continue
			}
			p := got.RGBAAt(10+4*dx+1, 10+4*dy+1)
			for i, v := range []uint8{p.R, p.G, p.B} {
				b := []uint8{bg.R, bg.G, bg.B}[i]
				want := (255*128 + int(b)*127) / 255
				if d := int(v) - want; d < -1 || d > 1 {
					t.Fatalf("half-transparent white over %v at texel (%d, %d): %v, want about %d per channel", bg, dx, dy, p, want)
				}
			}
			if p.A != 255 {
				t.Fatalf("alpha %d after translucent text, want 255 (opaque screenshots)", p.A)
			}
		}
	}
}

// Nothing printed, nothing drawn: the frame is the scene's, and a Draw
// with no Print since the last draws nothing (a frame's Prints start a new
// queue); the state the renderer draws with is left as it was.
func TestTextNothingPrintedDrawsNothing(t *testing.T) {
	r, tx, w, h := newText(t)
	insts := gridInstances(49, 7)
	scene := textFrame(t, r, tx, w, h, insts, nil)
	with := textFrame(t, r, tx, w, h, insts, func() { tx.Print(0, 0, 5, "XXXXXXX\nXXXXXXX", [4]uint8{255, 0, 255, 255}) })
	if _, n := firstDiff(with, scene); n == 0 {
		t.Fatal("the text changed nothing")
	}
	var queued int
	onMain(func() { queued = tx.Glyphs() })
	if queued != 0 {
		t.Errorf("Glyphs() after Draw = %d, want 0", queued)
	}
	after := textFrame(t, r, tx, w, h, insts, nil)
	if first, n := firstDiff(after, scene); n > 0 {
		t.Errorf("the frame after a frame with text, with none printed: %d pixels differ from the scene, first %s", n, first)
	}
	if first, n := firstDiff(textFrame(t, r, tx, w, h, insts, func() { tx.Print(0, 0, 1, "", [4]uint8{255, 255, 255, 255}) }), scene); n > 0 {
		t.Errorf("Print of \"\": %d pixels differ, first %s", n, first)
	}
	if first, n := firstDiff(textFrame(t, r, tx, w, h, insts, func() { tx.Print(0, 0, 1, "invisible", [4]uint8{255, 255, 255, 0}) }), scene); n > 0 {
		t.Errorf("Print in alpha 0: %d pixels differ, first %s", n, first)
	}
}

// Redraw draws the last Draw's glyphs again, as a screenshot after the swap
// needs, even after the next frame's first Print.
func TestTextRedraw(t *testing.T) {
	r, tx, w, h := newText(t)
	c := [4]uint8{250, 200, 10, 255}
	first := textFrame(t, r, tx, w, h, nil, func() { tx.Print(30, 40, 2, "shot", c) })
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var err error
	onMain(func() {
		tx.Print(0, 0, 1, "next frame", c) // queued, not yet drawn
		r.Draw(w, h, sceneClear, testCamera, nil, nil)
		tx.Redraw(w, h)
		err = r.ReadRGBA(img)
	})
	if err != nil {
		t.Fatal(err)
	}
	if d, n := firstDiff(img, first); n > 0 {
		t.Errorf("Redraw: %d pixels differ from the frame drawn, first %s", n, d)
	}
}

// Bad input draws what it can and never panics: runes without a glyph
// draw the replacement glyph, once per rune; far-off coordinates, huge
// strings, odd scales draw nothing or what is on the framebuffer.
func TestTextBadInput(t *testing.T) {
	r, tx, w, h := newText(t)
	scene := textFrame(t, r, tx, w, h, nil, nil)
	white := [4]uint8{255, 255, 255, 255}

	// "é" is two bytes and one rune: one replacement glyph; a tab, a NUL
	// and an invalid byte one each.
	got := textFrame(t, r, tx, w, h, nil, func() { tx.Print(10, 10, 1, "aé\tb\x00\xffc", white) })
	want := wantText(scene, 10, 10, 1, "a\uFFFD\uFFFDb\uFFFD\uFFFDc", white)
	if first, n := firstDiff(got, want); n > 0 {
		t.Errorf("non-ASCII: %d pixels differ from a replacement glyph per rune, first %s", n, first)
	}

	for _, tt := range []struct {
		name        string
		x, y, scale int
		s           string
	}{
		{"far right", math.MaxInt, 0, 1, "abc"},
		{"far below", 0, math.MaxInt, 1, "abc"},
		{"far left", math.MinInt, 0, 1, "abc"},
		{"far above", 0, math.MinInt, 1, "abc"},
		{"past MaxTextCoord", gfx.MaxTextCoord, 0, 1, "abc"},
		{"just right of the window", w, 0, 16, "abc"},
		{"just above the window", 0, -13 * 3, 3, "abc\n"},
		{"negative scale is 1, off-screen", -7 * 3, 0, -4, "abc"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := textFrame(t, r, tx, w, h, nil, func() { tx.Print(tt.x, tt.y, tt.scale, tt.s, white) })
			if first, n := firstDiff(got, scene); n > 0 {
				t.Errorf("Print(%d, %d, %d, %q): %d pixels changed, want none; first %s", tt.x, tt.y, tt.scale, tt.s, n, first)
			}
		})
	}

	// A scale beyond MaxTextScale draws at MaxTextScale.
	got = textFrame(t, r, tx, w, h, nil, func() { tx.Print(0, 0, 1000, "W", white) })
	if first, n := firstDiff(got, wantText(scene, 0, 0, gfx.MaxTextScale, "W", white)); n > 0 {
		t.Errorf("scale 1000: %d pixels differ from scale %d, first %s", n, gfx.MaxTextScale, first)
	}

	// A huge string: one line of 4 MiB queues only what lies left of
	// MaxTextCoord; a million short lines stop at MaxTextCoord below;
	// more glyphs than MaxTextGlyphs are dropped and counted.
	var queued, dropped int
	onMain(func() {
		tx.Print(0, 0, 1, strings.Repeat("x", 4<<20), white)
		queued = tx.Glyphs()
		tx.Draw(w, h)
	})
	if want := (gfx.MaxTextCoord + gfx.TextAdvance - 1) / gfx.TextAdvance; queued != want {
		t.Errorf("a 4 MiB line queued %d glyphs, want %d (up to MaxTextCoord)", queued, want)
	}
	onMain(func() {
		tx.Print(0, 0, 1, strings.Repeat("x\n", 1<<20), white)
		queued = tx.Glyphs()
		tx.Draw(w, h)
	})
	if want := (gfx.MaxTextCoord + gfx.TextLineHeight - 1) / gfx.TextLineHeight; queued != want {
		t.Errorf("a million lines queued %d glyphs, want %d (down to MaxTextCoord)", queued, want)
	}
	line := strings.Repeat("x", 4000) + "\n"
	onMain(func() {
		tx.Print(0, 0, 1, strings.Repeat(line, 20), white)
		queued, dropped = tx.Glyphs(), tx.Dropped()
	})
	got = textFrame(t, r, tx, w, h, nil, nil) // draws the queue
	if queued != gfx.MaxTextGlyphs || dropped != 20*4000-gfx.MaxTextGlyphs {
		t.Errorf("80,000 glyphs: queued %d and dropped %d, want %d and %d", queued, dropped, gfx.MaxTextGlyphs, 20*4000-gfx.MaxTextGlyphs)
	}
	if _, n := firstDiff(got, scene); n == 0 {
		t.Error("MaxTextGlyphs glyphs drew nothing")
	}

	var deleted *gfx.Text
	onMain(func() {
		var err error
		if deleted, err = gfx.NewText(new(gfx.MemoryCounter)); err == nil {
			deleted.Delete()
			deleted.Delete() // again: nothing
		}
	})
	for name, f := range map[string]func(){
		"Print on a deleted Text": func() { deleted.Print(0, 0, 1, "x", white) },
		"Draw on a nil Text":      func() { (*gfx.Text)(nil).Draw(w, h) },
	} {
		func() {
			defer func() {
				if v := recover(); v == nil || !strings.HasPrefix(v.(string), "gfx: Text.") {
					t.Errorf("%s: recovered %v, want a panic starting with \"gfx: Text.\"", name, v)
				}
			}()
			onMain(f)
		}()
	}
}

// TextSize measures what Print fills.
func TestTextSize(t *testing.T) {
	for _, tt := range []struct {
		s            string
		scale        int
		wantW, wantH int
	}{
		{"", 1, 0, 0},
		{"score 10", 1, 8 * 7, 13},
		{"a\r\nbcd\n", 2, 3 * 7 * 2, 3 * 13 * 2},
		{"é", 0, 7, 13},
		{"x", 99, 7 * gfx.MaxTextScale, 13 * gfx.MaxTextScale},
	} {
		if w, h := gfx.TextSize(tt.s, tt.scale); w != tt.wantW || h != tt.wantH {
			t.Errorf("TextSize(%q, %d) = %d, %d, want %d, %d", tt.s, tt.scale, w, h, tt.wantW, tt.wantH)
		}
	}
}

// Print, PrintBytes and Draw do not allocate once the queue has held a
// frame's glyphs; Draw makes the same GL calls whatever it draws.
func TestTextDoesNotAllocate(t *testing.T) {
	_, tx, w, h := newText(t)
	b := []byte("score 0000")
	var allocs float64
	onMain(func() {
		allocs = testing.AllocsPerRun(50, func() {
			tx.Print(10, 10, 2, "lives 3", [4]uint8{255, 255, 255, 255})
			b[6]++
			tx.PrintBytes(10, 40, 1, b, [4]uint8{255, 0, 0, 255})
			tx.Draw(w, h)
		})
	})
	if allocs != 0 {
		t.Errorf("Print + PrintBytes + Draw allocate %v times a frame, want 0", allocs)
	}
}

// BenchmarkTextDraw measures a frame's text: Print of n glyphs (lines of
// 40 characters at scale 1) and Draw over the scene, waiting for the
// driver to finish (a one-pixel read), against the same frame without
// text ("0") and with the overlay's panel instead ("overlay"), all in one
// run so that they compare on a loaded machine.
func BenchmarkTextDraw(b *testing.B) {
	r, tx, w, h := newText(b)
	var o *gfx.Overlay
	var err error
	onMain(func() { o, err = gfx.NewOverlay(new(gfx.MemoryCounter)) })
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { onMain(o.Delete) })
	panel := fullOverlayPanel()
	line := strings.Repeat("SCORE 1234 lives 3 ", 3)[:40] + "\n"
	pixel := make([]byte, 4)
	for _, n := range []int{0, 40, 400, 4000} {
		text := strings.Repeat(line, n/40)
		b.Run(itoa(n)+"_glyphs", func(b *testing.B) {
			b.ReportAllocs()
			onMain(func() {
				for b.Loop() {
					r.Draw(w, h, sceneClear, testCamera, nil, nil)
					tx.Print(0, 0, 1, text, [4]uint8{255, 255, 255, 255})
					tx.Draw(w, h)
					err = gfx.ReadPixels(0, 0, 1, 1, pixel)
				}
			})
		})
	}
	b.Run("overlay", func(b *testing.B) {
		b.ReportAllocs()
		onMain(func() {
			for b.Loop() {
				r.Draw(w, h, sceneClear, testCamera, nil, nil)
				o.Draw(w, h, panel)
				err = gfx.ReadPixels(0, 0, 1, 1, pixel)
			}
		})
	})
	if err != nil {
		b.Fatal(err)
	}
}
