package desktop_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/gfx"
)

// A windowed game: a spinning cube, Escape quits, P pauses, F12 saves a
// screenshot, and the camera circles the scene in an Update system. Run
// this from main: GLFW and OpenGL need the main thread.
func ExampleNew() {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		fmt.Fprintln(os.Stderr, "my-game:", err)
		return
	}
	cube := e.World.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
	e.AddSystem(engine.StageScripts, "spin", func(c *engine.FixedContext) {
		t := c.World.Transform(cube)
		t.Rot = mgl32.QuatRotate(float32(c.Tick)*0.02, mgl32.Vec3{0, 1, 0})
		c.World.SetTransform(cube, t)
	})

	cfg := desktop.DefaultConfig()
	cfg.Window.Title = "my game"
	r, err := desktop.New(e, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "my-game:", err) // for example: no display, run under xvfb-run
		return
	}
	defer r.Close()

	var angle float32
	e.AddUpdate("orbit camera", func(c *engine.FrameContext) {
		angle += float32(c.DT) * 0.3
		sin, cos := math.Sincos(float64(angle))
		r.Camera.Eye = mgl32.Vec3{8 * float32(sin), 3, 8 * float32(cos)}
	})
	r.SetOnKey(func(k input.Key, pressed, repeat bool) {
		if !pressed || repeat {
			return
		}
		switch k {
		case input.KeyEscape:
			r.Quit()
		case input.KeyP:
			r.SetPaused(!r.Paused())
		case input.KeyF12:
			if err := r.Screenshot("screenshot.png"); err != nil {
				fmt.Fprintln(os.Stderr, "my-game:", err)
			}
		}
	})
	if err := r.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "my-game:", err)
	}

	// No output: it opens a window, which needs a display and the main
	// thread (go test runs examples on neither), and runs until Escape.
}

// A game's own text, without the diagnostics overlay: the score at the top-
// left corner, twice the font's size, and "PAUSED" centred while the game is
// paused, printed every frame by a Render system. The score lives in the
// world (a resource a system of the scripts stage counts); the text is built
// in a reused buffer, so printing allocates nothing.
func ExampleRunner_Text() {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		fmt.Fprintln(os.Stderr, "my-game:", err)
		return
	}
	score := engine.NewResource(e.World, "score", int64(0))
	e.AddSystem(engine.StageScripts, "score", func(c *engine.FixedContext) {
		if c.Tick%60 == 0 {
			*score.Ptr() += 10
		}
	})
	r, err := desktop.New(e, desktop.DefaultConfig())
	if err != nil {
		fmt.Fprintln(os.Stderr, "my-game:", err)
		return
	}
	defer r.Close()

	hud := make([]byte, 0, 32)
	e.AddRender("hud", func(*engine.FrameContext) {
		hud = strconv.AppendInt(append(hud[:0], "SCORE "...), score.Get(), 10)
		r.Text().PrintBytes(10, 10, 2, hud, [4]uint8{255, 220, 90, 255})
		if r.Paused() {
			w, h := r.FramebufferSize()
			tw, th := gfx.TextSize("PAUSED", 4)
			r.Text().Print((w-tw)/2, (h-th)/2, 4, "PAUSED", [4]uint8{255, 255, 255, 255})
		}
	})
	r.SetOnKey(func(k input.Key, pressed, repeat bool) {
		switch {
		case k == input.KeyEscape && pressed:
			r.Quit()
		case k == input.KeyP && pressed && !repeat:
			r.SetPaused(!r.Paused())
		}
	})
	if err := r.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "my-game:", err)
	}

	// No output: it opens a window, which needs a display and the main
	// thread (go test runs examples on neither), and runs until Escape.
}
