package gfx_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"

	"fmt"
	"image"
	"os"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/model"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/platform"
)

// A window, a renderer and a loop that draws a world's interpolated
// entities, saving the last frame as a PNG. Everything runs on the main
// thread, where the window's context is current.
func ExampleRenderer() {
	win, err := platform.Open(platform.DefaultConfig())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer win.Close()
	if err := gfx.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	mem := new(gfx.MemoryCounter) // the window's GPU memory count
	r, err := gfx.NewRenderer(mem)
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // e.g. gfx: compile cube.frag (fragment shader): 0:12(3): error: ...
		return
	}
	defer r.Delete()

	world := engine.NewWorld(1)
	world.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), engine.Interpolate)
	cam := gfx.Camera{Eye: mgl32.Vec3{3, 2, 6}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(60), Near: 0.1, Far: 100}
	var rb engine.RenderBuffer
	var shot *image.RGBA
	for frame := 0; frame < 60 && !win.ShouldClose(); frame++ {
		world.Interpolate(0.5, 1.0/60, engine.DefaultInterpolationConfig(), &rb)
		w, h := win.FramebufferSize()
		r.Draw(w, h, [4]float32{0.1, 0.1, 0.1, 1}, cam, rb.Instances, &rb.Poses)
		if frame == 59 && w > 0 && h > 0 {
			// Read before SwapBuffers: afterwards the back buffer is undefined.
			shot = image.NewRGBA(image.Rect(0, 0, w, h))
			if err := r.ReadRGBA(shot); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return
			}
		}
		win.SwapBuffers()
		win.PollEvents()
	}
	if shot != nil {
		if err := gfx.SavePNG("last-frame.png", shot); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}

	// No output: it opens a window, which needs a display and the main
	// thread (go test runs examples on neither), and writes a file.
}

// A model of the game's own, registered under a number an entity then
// shows: a smoother sphere than the built-in render.MeshSphere, in red.
func ExampleNewModel() {
	win, err := platform.Open(platform.DefaultConfig())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer win.Close()
	if err := gfx.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	mem := new(gfx.MemoryCounter) // the window's GPU memory count
	r, err := gfx.NewRenderer(mem)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer r.Delete()

	smooth := model.Sphere(64)
	smooth.Parts[0].Material.BaseColor = [4]float32{1, 0.2, 0.2, 1}
	m, err := gfx.NewModel(r.Memory(), smooth)
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // names the model and the part
		return
	}
	defer m.Delete()
	const ball = render.MeshFirstGame
	r.Register(ball, m)
	defer r.Register(ball, nil) // unregister before the model is deleted

	world := engine.NewWorld(1)
	e := world.Spawn(geom.NewTransform(mgl32.Vec3{0, 0, 0}), engine.Interpolate)
	world.SetMesh(e, ball) // in a game: in a fixed system
	cam := gfx.Camera{Eye: mgl32.Vec3{0, 1, 3}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(60), Near: 0.1, Far: 100}
	var rb engine.RenderBuffer
	for frame := 0; frame < 60 && !win.ShouldClose(); frame++ {
		world.Interpolate(1, 1.0/60, engine.DefaultInterpolationConfig(), &rb)
		w, h := win.FramebufferSize()
		r.Draw(w, h, [4]float32{0.1, 0.1, 0.1, 1}, cam, rb.Instances, &rb.Poses)
		win.SwapBuffers()
		win.PollEvents()
	}
	fmt.Println(r.Stats().DrawCalls, "draw call for", m.Name())

	// No output: it opens a window, which needs a display and the main
	// thread (go test runs examples on neither).
}

// A game's own text over the scene: the score at the top-left corner,
// twice the font's size, and a message centred in the window. Prints
// queue glyphs for the frame; Draw draws them after the scene. (In the
// windowed runner a game prints through desktop.Runner.Text from its
// Update or Render systems, and the runner draws.)
func ExampleText() {
	win, err := platform.Open(platform.DefaultConfig())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer win.Close()
	if err := gfx.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	mem := new(gfx.MemoryCounter) // the window's GPU memory count
	r, err := gfx.NewRenderer(mem)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer r.Delete()
	text, err := gfx.NewText(mem)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer text.Delete()

	cam := gfx.Camera{Eye: mgl32.Vec3{0, 2, 6}, Up: mgl32.Vec3{0, 1, 0}, FovY: mgl32.DegToRad(60), Near: 0.1, Far: 100}
	score := make([]byte, 0, 32)
	const message = "GET READY"
	for frame := 0; frame < 60 && !win.ShouldClose(); frame++ {
		w, h := win.FramebufferSize()
		r.Draw(w, h, [4]float32{0.1, 0.1, 0.1, 1}, cam, nil, nil)

		score = strconv.AppendInt(append(score[:0], "SCORE "...), int64(frame*10), 10)
		text.PrintBytes(8, 8, 2, score, [4]uint8{255, 220, 60, 255}) // does not allocate
		mw, mh := gfx.TextSize(message, 3)
		text.Print((w-mw)/2, (h-mh)/2, 3, message, [4]uint8{255, 255, 255, 200})
		text.Draw(w, h)

		win.SwapBuffers()
		win.PollEvents()
	}

	// No output: it opens a window, which needs a display and the main
	// thread (go test runs examples on neither).
}

// TextSize measures text for laying it out, for example to centre it or
// right-align it: the longest line's characters by TextAdvance, the lines
// by TextLineHeight, times the scale.
func ExampleTextSize() {
	w, h := gfx.TextSize("GAME OVER\npress R", 2)
	fmt.Println(w, h)
	fmt.Println(gfx.TextSize("é", 1)) // one rune, one (replacement) glyph
	// Output:
	// 126 52
	// 7 13
}
