package platform_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/nebulaengine/nebula/internal/platform"
	"github.com/nebulaengine/nebula/internal/platform/platformtest"
)

// GLFW must run on the main thread: the tests run on another goroutine and
// send their GLFW calls to the main one with platformtest.OnMain.
func TestMain(m *testing.M) { platformtest.Main(m) }

// open calls platform.Open on the main thread.
func open(cfg platform.Config) (win *platform.Window, err error) {
	platformtest.OnMain(func() { win, err = platform.Open(cfg) })
	return win, err
}

func TestOpenWithoutDisplay(t *testing.T) {
	tests := []struct {
		name, display string
	}{
		// Nothing listens on display 987, so GLFW's init fails.
		{"bogus", ":987"},
		{"unset", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DISPLAY", tt.display)
			win, err := open(platformtest.SmallHidden())
			if err == nil {
				platformtest.OnMain(win.Close)
				t.Fatalf("Open with DISPLAY=%q succeeded, want an error", tt.display)
			}
			if win != nil {
				t.Errorf("Open returned a window with its error %v", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "display") || !strings.HasPrefix(msg, "platform: ") || strings.Contains(msg, "\n") {
				t.Errorf("error = %q, want one line starting with \"platform: \" that mentions the display", msg)
			}
			if tt.display != "" && !strings.Contains(msg, tt.display) {
				t.Errorf("error = %q, want it to name DISPLAY %q", msg, tt.display)
			}
			if !errors.Is(err, platform.ErrNoDisplay) {
				t.Errorf("errors.Is(%v, ErrNoDisplay) = false", err)
			}
		})
	}
}

func TestOpenRejectsBadSize(t *testing.T) {
	for _, size := range [][2]int{{0, 64}, {64, 0}, {-1, -1}} {
		cfg := platformtest.SmallHidden()
		cfg.Width, cfg.Height = size[0], size[1]
		win, err := open(cfg)
		if err == nil {
			platformtest.OnMain(win.Close)
			t.Errorf("Open(%dx%d) succeeded, want an error", size[0], size[1])
			continue
		}
		if !strings.Contains(err.Error(), "size must be positive") {
			t.Errorf("Open(%dx%d) error = %q, want it to say the size must be positive", size[0], size[1], err)
		}
	}
}

func TestOpenWindow(t *testing.T) {
	for _, vsync := range []bool{false, true} {
		cfg := platformtest.SmallHidden()
		cfg.VSync = vsync
		win := platformtest.OpenWindow(t, cfg)
		var (
			w, h        int
			shouldClose bool
		)
		platformtest.OnMain(func() {
			win.PollEvents()
			win.SwapBuffers()
			w, h = win.FramebufferSize()
			shouldClose = win.ShouldClose()
		})
		if w != cfg.Width || h != cfg.Height {
			t.Errorf("vsync=%v: FramebufferSize() = %dx%d, want %dx%d", vsync, w, h, cfg.Width, cfg.Height)
		}
		if shouldClose {
			t.Errorf("vsync=%v: ShouldClose() = true for a new window", vsync)
		}
		// Close is idempotent; the cleanup OpenWindow registered closes again.
		platformtest.OnMain(win.Close)
		platformtest.OnMain(win.Close)
	}
}

// Two windows share GLFW: closing one must not terminate GLFW under the other.
func TestTwoWindows(t *testing.T) {
	a := platformtest.OpenWindow(t, platformtest.SmallHidden())
	b := platformtest.OpenWindow(t, platformtest.SmallHidden())
	var w, h int
	platformtest.OnMain(func() {
		a.Close()
		b.PollEvents()
		w, h = b.FramebufferSize()
	})
	if w != 64 || h != 64 {
		t.Errorf("second window's FramebufferSize() = %dx%d after closing the first, want 64x64", w, h)
	}
}

// Mesa lets MESA_GL_VERSION_OVERRIDE cap the GL version a driver offers; a
// 3.3 cap must turn into ErrNoGL41 with GLFW's reason, not a panic.
func TestOpenWithoutGL41(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		platformtest.SkipOrFail(t, errors.New("$DISPLAY is not set"))
	}
	t.Setenv("MESA_GL_VERSION_OVERRIDE", "3.3")
	win, err := open(platformtest.SmallHidden())
	if err == nil {
		platformtest.OnMain(win.Close)
		t.Skip("MESA_GL_VERSION_OVERRIDE=3.3 did not stop a 4.1 context: not a Mesa driver")
	}
	if errors.Is(err, platform.ErrNoDisplay) {
		platformtest.SkipOrFail(t, err)
	}
	msg := err.Error()
	if !errors.Is(err, platform.ErrNoGL41) || !strings.HasPrefix(msg, "platform: OpenGL 4.1 core context not available: ") {
		t.Errorf("error = %q, want \"platform: OpenGL 4.1 core context not available: <glfw error>\" matching ErrNoGL41", msg)
	}
}

func TestFullscreenUsesTheMonitorMode(t *testing.T) {
	cfg := platformtest.SmallHidden()
	cfg.Fullscreen = true
	win := platformtest.OpenWindow(t, cfg)
	var w, h int
	platformtest.OnMain(func() { w, h = win.FramebufferSize() })
	t.Logf("fullscreen framebuffer: %dx%d", w, h)
	// The window takes the primary monitor's current mode, not Width x Height
	// (the Xvfb screen of make test is 1280x1024).
	if w <= cfg.Width || h <= cfg.Height {
		t.Errorf("fullscreen FramebufferSize() = %dx%d, want the monitor's size, larger than %dx%d", w, h, cfg.Width, cfg.Height)
	}
}

func TestClosedWindowPanicsWithMessage(t *testing.T) {
	win := platformtest.OpenWindow(t, platformtest.SmallHidden())
	var got any
	platformtest.OnMain(func() {
		win.Close()
		defer func() { got = recover() }()
		win.SwapBuffers()
	})
	if msg, _ := got.(string); !strings.HasPrefix(msg, "platform: ") {
		t.Errorf("SwapBuffers on a closed Window panicked with %v, want a message starting with \"platform: \"", got)
	}
}
