package gfx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// The oldest OpenGL version gfx runs on; platform creates contexts of the
// same version.
const (
	minMajor = 4
	minMinor = 1
)

// loaded records that gl.Init has loaded the function pointers.
var loaded bool

// Init loads the OpenGL function pointers for the context current on this
// thread and checks that the context is OpenGL 4.1 or newer. It must be called
// after the context is made current (platform.Open does that) and before any
// other function in this package. The error names the version found.
func Init() error {
	if err := gl.Init(); err != nil {
		return fmt.Errorf("gfx: cannot load the OpenGL %d.%d functions: %w", minMajor, minMinor, err)
	}
	loaded = true
	v := Version()
	major, minor, err := parseVersion(v)
	if err != nil {
		return fmt.Errorf("gfx: cannot read the OpenGL version (is a context current on this thread?): %w", err)
	}
	if major < minMajor || major == minMajor && minor < minMinor {
		return fmt.Errorf("gfx: OpenGL %d.%d or newer is required, the context is %d.%d (%q on %q)",
			minMajor, minMinor, major, minor, v, RendererName())
	}
	return nil
}

// Version returns the context's GL_VERSION string, for example
// "4.5 (Core Profile) Mesa 22.3.6". It is empty before Init.
func Version() string { return getString(gl.VERSION) }

// RendererName returns the context's GL_RENDERER string, for example
// "llvmpipe (LLVM 15.0.6, 256 bits)". It is empty before Init. (The name
// Renderer is the type that draws the scene.)
func RendererName() string { return getString(gl.RENDERER) }

func getString(name uint32) string {
	if !loaded {
		return "" // the function pointers are not loaded; calling one would crash
	}
	return gl.GoStr(gl.GetString(name))
}

// parseVersion reads the "major.minor" a desktop GL_VERSION string starts
// with ("<major>.<minor>[.<release>][ <vendor information>]").
//
//srccheck:wrapped by Init, as "gfx: cannot read the OpenGL version ...: ..."
func parseVersion(v string) (major, minor int, err error) {
	num, _, _ := strings.Cut(v, " ")
	parts := strings.SplitN(num, ".", 3)
	if len(parts) < 2 {
		return 0, 0, fmt.Errorf("malformed GL_VERSION %q", v)
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || major < 0 || minor < 0 {
		return 0, 0, fmt.Errorf("malformed GL_VERSION %q", v)
	}
	return major, minor, nil
}

// Clear clears the colour buffer of the bound framebuffer to (r, g, b, a),
// components in [0, 1], and the depth buffer to 1.
func Clear(r, g, b, a float32) {
	gl.ClearColor(r, g, b, a)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
}

// ReadPixels reads the w×h rectangle whose lower-left corner is (x, y) from
// the read buffer of the bound framebuffer (the back buffer of a window's
// default framebuffer) into dst as 8-bit RGBA, 4*w*h bytes, rows bottom to
// top as OpenGL stores them. dst must hold at least 4*w*h bytes; it is
// reused, so ReadPixels does not allocate. It waits for rendering to finish.
//
// It assumes no pixel-pack buffer is bound (the renderer binds one only
// around asynchronous reads) and reports GL errors recorded by the read, and
// by any earlier call that was not checked, as CheckError does.
func ReadPixels(x, y, w, h int, dst []byte) error {
	if x < 0 || y < 0 || w <= 0 || h <= 0 {
		return fmt.Errorf("gfx: ReadPixels: bad rectangle %dx%d at (%d, %d)", w, h, x, y)
	}
	if need := 4 * w * h; len(dst) < need {
		return fmt.Errorf("gfx: ReadPixels: dst holds %d bytes, %dx%d RGBA needs %d", len(dst), w, h, need)
	}
	// Rows of 4-byte pixels are always 4-byte aligned, so the default
	// GL_PACK_ALIGNMENT of 4 adds no padding between them.
	gl.ReadPixels(int32(x), int32(y), int32(w), int32(h), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(&dst[0]))
	return CheckError()
}
