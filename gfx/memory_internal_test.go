package gfx

import (
	"image"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/engine/render"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
)

// The sizes the expected counts below are written in.
func TestMemoryLayouts(t *testing.T) {
	if n := unsafe.Sizeof(modelVertex{}); n != 60 {
		t.Fatalf("a model vertex is %d bytes, the counts below assume 60", n)
	}
	if textGlyphSize != 16 {
		t.Fatalf("a glyph is %d bytes, the counts below assume 16", textGlyphSize)
	}
	for _, tt := range []struct {
		w, h    int
		mipmaps bool
		want    int
	}{
		{1, 1, true, 4},
		{1, 1, false, 4},
		{16, 8, false, 512},
		{16, 8, true, 4 * (128 + 32 + 8 + 2 + 1)},
		{5, 3, true, 4 * (15 + 2 + 1)},
	} {
		if got := rgba8Bytes(tt.w, tt.h, tt.mipmaps); got != tt.want {
			t.Errorf("rgba8Bytes(%d, %d, %v) = %d, want %d", tt.w, tt.h, tt.mipmaps, got, tt.want)
		}
	}
}

// A MemoryCounter counts the bytes of every buffer and texture gfx makes
// with it, to the byte, as they are made, grown and deleted. (It is what
// the diagnostics show as GPU memory where the driver offers no memory
// extension, as llvmpipe does not.) Two counters are independent: the
// objects are made alternately with a and b, and every step checks that
// the other counter did not move, that a nil counter counts nothing, and
// that both are back at 0 once everything is deleted. The counts are the
// counters', not the process's, so tests running beside this one cannot
// move them.
func TestOwnMemoryCountsExactly(t *testing.T) {
	platformtest.OpenWindow(t, platformtest.SmallHidden())
	var err error
	platformtest.OnMain(func() { err = Init() })
	if err != nil {
		t.Fatal(err)
	}
	var a, b MemoryCounter
	names := map[*MemoryCounter]string{&a: "a", &b: "b"}
	// step runs f and checks that c changed by want bytes and the other
	// counter (both, when c is nil) not at all.
	step := func(what string, c *MemoryCounter, want int64, f func()) {
		t.Helper()
		var beforeA, beforeB, afterA, afterB int64
		platformtest.OnMain(func() {
			beforeA, beforeB = a.Bytes(), b.Bytes()
			f()
			afterA, afterB = a.Bytes(), b.Bytes()
		})
		wantA, wantB := int64(0), int64(0)
		switch c {
		case &a:
			wantA = want
		case &b:
			wantB = want
		}
		if got := afterA - beforeA; got != wantA {
			t.Errorf("%s with %s: counter a changed by %d bytes, want %d", what, names[c], got, wantA)
		}
		if got := afterB - beforeB; got != wantB {
			t.Errorf("%s with %s: counter b changed by %d bytes, want %d", what, names[c], got, wantB)
		}
	}

	cube := model.Cube() // 24 vertices, 36 indices
	tex := image.NewRGBA(image.Rect(0, 0, 16, 8))
	cube.Parts[0].Material.Texture = tex
	plane := model.Plane() // 4 vertices, 6 indices, no texture
	var mc, mp *Model
	const (
		cubeBytes  = 24*60 + 36*2 + 4*(16*8+8*4+4*2+2*1+1*1) // vertices, 16-bit indices, texture and mipmaps
		planeBytes = 4*60 + 6*2 + 4                          // and the 1×1 white texture
	)
	step("NewModel(textured cube)", &a, cubeBytes, func() { mc, err = NewModel(&a, cube) })
	if err != nil {
		t.Fatal(err)
	}
	step("NewModel(plane)", &b, planeBytes, func() { mp, err = NewModel(&b, plane) })
	if err != nil {
		t.Fatal(err)
	}
	step("Model.Delete", &a, -cubeBytes, mc.Delete)
	step("Model.Delete again", &a, 0, mc.Delete)
	step("Model.Delete", &b, -planeBytes, mp.Delete)

	// Morph targets: a position and a normal delta, RGB32F, per vertex
	// and target.
	morph := model.Plane()
	morph.RestWeights = []float32{0, 0}
	morph.Parts[0].Targets = []model.Target{{Positions: make([]mgl32.Vec3, 4)}, {Positions: make([]mgl32.Vec3, 4)}}
	const morphBytes = planeBytes + 2*2*4*12
	step("NewModel(plane with 2 morph targets)", &a, morphBytes, func() { mp, err = NewModel(&a, morph) })
	if err != nil {
		t.Fatal(err)
	}
	step("Model.Delete", &a, -morphBytes, mp.Delete)

	// The renderer: its instance, pose and light buffers and its built-in plane;
	// the instance buffer doubles from 256 instances to hold 600.
	var r *Renderer
	const rendererBytes = 256*64 + 16<<10 + planeBytes + lightBlockSize
	step("NewRenderer", &b, rendererBytes, func() { r, err = NewRenderer(&b) })
	if err != nil {
		t.Fatal(err)
	}
	insts := make([]render.Instance, 600)
	for i := range insts {
		insts[i].Color = [4]uint8{255, 255, 255, 255} // opaque: alpha 0 is not drawn
	}
	step("Renderer.Draw(600 instances)", &b, (1024-256)*64, func() {
		r.Draw(64, 64, [4]float32{}, Camera{Eye: [3]float32{0, 0, 10}, Up: [3]float32{0, 1, 0}, FovY: 1, Near: 1, Far: 100}, insts, nil)
	})
	step("Renderer.Draw(600 instances) again", &b, 0, func() {
		r.Draw(64, 64, [4]float32{}, Camera{Eye: [3]float32{0, 0, 10}, Up: [3]float32{0, 1, 0}, FovY: 1, Near: 1, Far: 100}, insts, nil)
	})
	step("Renderer.Delete", &b, -(rendererBytes + (1024-256)*64), r.Delete)
	step("Renderer.Delete again", &b, 0, r.Delete)

	// Text: the R8 atlas and the glyph buffer, which doubles from 256
	// glyphs to hold 300.
	var tx *Text
	const textBytes = 96*91 + 256*16
	step("NewText", &a, textBytes, func() { tx, err = NewText(&a) })
	if err != nil {
		t.Fatal(err)
	}
	step("Text.Draw(300 glyphs)", &a, 256*16, func() {
		for i := range 300 {
			tx.Print(i%30*7, i/30*13, 1, "x", [4]uint8{255, 255, 255, 255})
		}
		tx.Draw(64, 64)
	})
	step("Text.Delete", &a, -(textBytes + 256*16), tx.Delete)

	// The overlay's panel, Lines and Mesh.
	var o *Overlay
	step("NewOverlay", &b, 4*panelW*panelH, func() { o, err = NewOverlay(&b) })
	if err != nil {
		t.Fatal(err)
	}
	step("Overlay.Delete", &b, -4*panelW*panelH, o.Delete)
	var l *Lines
	step("NewLines(box edges)", &a, 24*12, func() { l, err = NewLines(&a, BoxEdges(mgl32.Vec3{1, 1, 1})) })
	if err != nil {
		t.Fatal(err)
	}
	step("Lines.Delete", &a, -24*12, l.Delete)
	var m Mesh
	verts, idx := CubeGeometry()
	want := int64(len(verts))*int64(unsafe.Sizeof(Vertex{})) + 2*int64(len(idx))
	step("NewMesh(cube)", &b, want, func() { m, err = NewMesh(&b, verts, idx) })
	if err != nil {
		t.Fatal(err)
	}
	step("Mesh.Delete", &b, -want, m.Delete)

	// Objects of both counters alive at once: each counts its own, and
	// deleting one leaves the other's count alone.
	var ra *Renderer
	step("NewRenderer", &a, rendererBytes, func() { ra, err = NewRenderer(&a) })
	if err != nil {
		t.Fatal(err)
	}
	step("NewText", &b, textBytes, func() { tx, err = NewText(&b) })
	if err != nil {
		t.Fatal(err)
	}
	if ra.Memory() != &a {
		t.Errorf("Renderer.Memory() = %p, want the counter NewRenderer was given, %p", ra.Memory(), &a)
	}
	if got, want := a.Bytes()+b.Bytes(), int64(rendererBytes+textBytes); got != want || a.Bytes() != rendererBytes {
		t.Errorf("with a renderer on a and a Text on b: a = %d, b = %d bytes, want %d and %d", a.Bytes(), b.Bytes(), rendererBytes, textBytes)
	}
	step("Text.Delete", &b, -textBytes, tx.Delete)
	step("Renderer.Delete", &a, -rendererBytes, ra.Delete)

	// A nil counter counts nothing, and neither counter moves.
	step("NewLines", nil, 0, func() { l, err = NewLines(nil, BoxEdges(mgl32.Vec3{1, 1, 1})) })
	if err != nil {
		t.Fatal(err)
	}
	step("Lines.Delete", nil, 0, l.Delete)
	if a.Bytes() != 0 || b.Bytes() != 0 {
		t.Errorf("everything deleted: a = %d, b = %d bytes, want 0 and 0", a.Bytes(), b.Bytes())
	}
	if n := (*MemoryCounter)(nil).Bytes(); n != 0 {
		t.Errorf("a nil counter's Bytes = %d, want 0", n)
	}
}

// The meter picks its source from the extension list: NVX where offered,
// then ATI, else the own count.
func TestMemorySource(t *testing.T) {
	for _, tt := range []struct {
		exts []string
		want MemorySource
	}{
		{nil, MemoryOwn},
		{[]string{"GL_ARB_debug_output", "GL_KHR_debug"}, MemoryOwn},
		{[]string{"GL_ATI_meminfo"}, MemoryATI},
		{[]string{"GL_KHR_debug", "GL_NVX_gpu_memory_info"}, MemoryNVX},
		{[]string{"GL_ATI_meminfo", "GL_NVX_gpu_memory_info"}, MemoryNVX},
		{[]string{"GL_NVX_gpu_memory_info_v2", "GL_ATI_meminfo_x"}, MemoryOwn}, // whole names only
	} {
		if got := memorySource(tt.exts); got != tt.want {
			t.Errorf("memorySource(%q) = %v, want %v", tt.exts, got, tt.want)
		}
	}
	for s, want := range map[MemorySource]string{MemoryOwn: "own buffers", MemoryNVX: "GL_NVX_gpu_memory_info", MemoryATI: "GL_ATI_meminfo"} {
		if s.String() != want {
			t.Errorf("MemorySource(%d).String() = %q, want %q", s, s.String(), want)
		}
	}
	if b, driver := (Memory{Source: MemoryOwn, Own: 5, Free: 7}).InUse(); b != 5 || driver {
		t.Errorf("InUse of an own reading = %d, %v, want 5, false", b, driver)
	}
	if b, driver := (Memory{Source: MemoryNVX, Own: 5, Used: 9}).InUse(); b != 9 || !driver {
		t.Errorf("InUse of an NVX reading = %d, %v, want 9, true", b, driver)
	}
}

// On the test's driver the meter reads what the driver offers; on llvmpipe,
// which offers neither extension, the own count alone. Read does not
// allocate.
func TestMemoryMeterReads(t *testing.T) {
	platformtest.OpenWindow(t, platformtest.SmallHidden())
	var (
		err    error
		m      *MemoryMeter
		mem    Memory
		own    int64
		allocs float64
		name   string
	)
	platformtest.OnMain(func() {
		if err = Init(); err != nil {
			return
		}
		var c MemoryCounter
		c.add(12345)
		m = NewMemoryMeter(&c)
		mem, own = m.Read(), c.Bytes()
		allocs = testing.AllocsPerRun(100, func() { mem = m.Read() })
		name = RendererName()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: source %v, %+v", name, m.Source(), mem)
	if mem.Own != own || mem.Source != m.Source() {
		t.Errorf("Read() = %+v, want Own %d and Source %v", mem, own, m.Source())
	}
	switch m.Source() {
	case MemoryOwn:
		if mem.Used != 0 || mem.Free != 0 || mem.Total != 0 {
			t.Errorf("Read() = %+v with no driver figures, want Used, Free and Total 0", mem)
		}
	case MemoryNVX:
		if mem.Total <= 0 || mem.Used < 0 || mem.Used+mem.Free != mem.Total {
			t.Errorf("Read() = %+v, want Used + Free = Total > 0", mem)
		}
	}
	if strings.HasPrefix(name, "llvmpipe") && m.Source() != MemoryOwn {
		t.Errorf("llvmpipe's meter reads %v, want the own count (it offers neither extension)", m.Source())
	}
	if allocs != 0 {
		t.Errorf("Read allocates %v times, want 0", allocs)
	}
}
