package desktop_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"fmt"
	"math"
	"os"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/input"
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
	e.AddFixed("spin", func(c *engine.FixedContext) {
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
