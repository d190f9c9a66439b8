package gfx_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-gl/gl/v4.1-core/gl"

	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
)

// OpenGL must run on the main thread: the tests run on another goroutine and
// send their GL calls to the main one with onMain.
func TestMain(m *testing.M) { platformtest.Main(m) }

// onMain runs f on the main thread, where the test's GL context is current.
func onMain(f func()) { platformtest.OnMain(f) }

// newContext opens a hidden 64x64 window, makes its context current on the
// main thread and initialises gfx, or skips (fails with NEBULA_REQUIRE_GL=1)
// where there is no display.
func newContext(t testing.TB) (w, h int) {
	t.Helper()
	win := platformtest.OpenWindow(t, platformtest.SmallHidden())
	var err error
	onMain(func() {
		w, h = win.FramebufferSize()
		err = gfx.Init()
	})
	if err != nil {
		t.Fatalf("gfx.Init: %v", err)
	}
	return w, h
}

func TestVersionIsAtLeast41(t *testing.T) {
	newContext(t)
	var version, renderer string
	onMain(func() { version, renderer = gfx.Version(), gfx.RendererName() })
	t.Logf("GL_VERSION %q, GL_RENDERER %q", version, renderer)
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err != nil {
		t.Fatalf("Version() = %q, want it to start with major.minor: %v", version, err)
	}
	if major < 4 || major == 4 && minor < 1 {
		t.Errorf("Version() = %q, want 4.1 or newer", version)
	}
}

func TestClearAndReadPixels(t *testing.T) {
	w, h := newContext(t)
	tests := []struct {
		r, g, b float32
		want    [4]byte
	}{
		// Components chosen so that c*255 is (nearly) a whole number: the
		// conversion to 8 bits then has no rounding tie to break.
		{1, 0.2, 0.6, [4]byte{255, 51, 153, 255}},
		{0, 0, 0, [4]byte{0, 0, 0, 255}},
		{0.4, 1, 0, [4]byte{102, 255, 0, 255}},
	}
	pixel := make([]byte, 4)
	for _, tt := range tests {
		var err error
		onMain(func() {
			gfx.Clear(tt.r, tt.g, tt.b, 1)
			err = gfx.ReadPixels(w/2, h/2, 1, 1, pixel)
		})
		if err != nil {
			t.Fatalf("ReadPixels: %v", err)
		}
		if got := [4]byte(pixel); got != tt.want {
			t.Errorf("after Clear(%v, %v, %v, 1) the centre pixel is %v, want %v", tt.r, tt.g, tt.b, got, tt.want)
		}
	}
}

func TestReadPixelsWholeFramebuffer(t *testing.T) {
	w, h := newContext(t)
	buf := make([]byte, 4*w*h)
	var err error
	onMain(func() {
		gfx.Clear(0.2, 0.4, 0.6, 1)
		err = gfx.ReadPixels(0, 0, w, h, buf)
	})
	if err != nil {
		t.Fatalf("ReadPixels: %v", err)
	}
	want := []byte{51, 102, 153, 255}
	for i := 0; i < len(buf); i += 4 {
		if string(buf[i:i+4]) != string(want) {
			t.Fatalf("pixel (%d, %d) is %v, want %v", i/4%w, i/4/w, buf[i:i+4], want)
		}
	}
}

func TestReadPixelsDoesNotAllocate(t *testing.T) {
	w, h := newContext(t)
	buf := make([]byte, 4*16*16)
	var allocs float64
	var err error
	onMain(func() {
		allocs = testing.AllocsPerRun(100, func() {
			gfx.Clear(0, 0, 0, 1)
			if e := gfx.ReadPixels(w/2-8, h/2-8, 16, 16, buf); e != nil {
				err = e
			}
		})
	})
	if err != nil {
		t.Fatalf("ReadPixels: %v", err)
	}
	if allocs != 0 {
		t.Errorf("Clear+ReadPixels allocate %v times per call, want 0", allocs)
	}
}

func TestReadPixelsRejectsBadArguments(t *testing.T) {
	// These fail before any GL call, so they need no context.
	tests := []struct {
		name       string
		x, y, w, h int
		dst        []byte
		want       string
	}{
		{"short buffer", 0, 0, 2, 2, make([]byte, 15), "needs 16"},
		{"nil buffer", 0, 0, 1, 1, nil, "needs 4"},
		{"zero width", 0, 0, 0, 1, make([]byte, 4), "bad rectangle"},
		{"negative origin", -1, 0, 1, 1, make([]byte, 4), "bad rectangle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := gfx.ReadPixels(tt.x, tt.y, tt.w, tt.h, tt.dst)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "gfx: ") {
				t.Errorf("ReadPixels(%d, %d, %d, %d, %d bytes) = %v, want an error starting with \"gfx: \" containing %q",
					tt.x, tt.y, tt.w, tt.h, len(tt.dst), err, tt.want)
			}
		})
	}
}

func TestCheckError(t *testing.T) {
	newContext(t)
	var clean, invalidEnum, both, after error
	onMain(func() {
		clean = gfx.CheckError()
		gl.Enable(0xFFFF) // not a capability
		invalidEnum = gfx.CheckError()
		gl.Enable(0xFFFF)
		gl.Clear(0xFFFFFFFF) // bits outside the buffer mask
		both = gfx.CheckError()
		after = gfx.CheckError()
	})
	if clean != nil {
		t.Errorf("CheckError() on a fresh context = %v, want nil", clean)
	}
	if !errors.Is(invalidEnum, gfx.Error(gl.INVALID_ENUM)) || invalidEnum.Error() != "gfx: OpenGL error GL_INVALID_ENUM" {
		t.Errorf("CheckError() after glEnable(0xFFFF) = %v, want gfx: OpenGL error GL_INVALID_ENUM", invalidEnum)
	}
	// OpenGL may keep only the first error flag; where it keeps both, both
	// must be reported.
	if !errors.Is(both, gfx.Error(gl.INVALID_ENUM)) {
		t.Errorf("CheckError() after two bad calls = %v, want it to match GL_INVALID_ENUM", both)
	}
	if after != nil {
		t.Errorf("CheckError() after draining = %v, want nil", after)
	}
}

func TestErrorNames(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{gfx.Error(gl.INVALID_VALUE), "gfx: OpenGL error GL_INVALID_VALUE"},
		{gfx.Error(gl.INVALID_FRAMEBUFFER_OPERATION), "gfx: OpenGL error GL_INVALID_FRAMEBUFFER_OPERATION"},
		{gfx.Error(0x0507), "gfx: OpenGL error GL_CONTEXT_LOST"},
		{gfx.Error(0x1234), "gfx: OpenGL error GL error 0x1234"},
		{gfx.Errors{gl.INVALID_ENUM, gl.OUT_OF_MEMORY}, "gfx: OpenGL errors GL_INVALID_ENUM, GL_OUT_OF_MEMORY"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	if errs := (gfx.Errors{gl.INVALID_ENUM, gl.OUT_OF_MEMORY}); !errors.Is(errs, gfx.Error(gl.OUT_OF_MEMORY)) {
		t.Errorf("errors.Is(%v, GL_OUT_OF_MEMORY) = false", errs)
	}
}

func BenchmarkClearReadPixels(b *testing.B) {
	for _, size := range []int{1, 64} {
		b.Run(fmt.Sprintf("%dx%d", size, size), func(b *testing.B) {
			newContext(b)
			buf := make([]byte, 4*size*size)
			var err error
			b.ReportAllocs()
			onMain(func() {
				for b.Loop() {
					gfx.Clear(0.2, 0.4, 0.6, 1)
					if err = gfx.ReadPixels(0, 0, size, size, buf); err != nil {
						return
					}
				}
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
