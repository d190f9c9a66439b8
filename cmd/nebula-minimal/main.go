// Command nebula-minimal is the smallest complete game on Nebula: one cube
// that the arrow keys or a gamepad's left stick move (its "move" action),
// simulated in a system of the tick's scripts stage and drawn interpolated
// between ticks by the windowed runner; Esc quits. It takes the common
// flags of Nebula's programs and -bindings (nebula-minimal -h), and has
// none of its own. Copy it to start a game of your own (README.md, "Start
// your own game").
package main

import (
	"math"
	"os"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/detmath"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/internal/app"
)

// title is the window's title: your game's name.
const title = "Nebula minimal"

// speed is how fast the arrow keys move the cube, in units per second.
const speed = 8

// The game's actions, declared once in the game's definition below: one
// two-axis action, "move", whose components are move-x and move-y.
const (
	moveX input.Action = iota
	moveY
)

// minimal is the game: the common flags (app.Game.Flags would add its own)
// and -bindings, its actions, no recording (Records: true would add
// -record, -replay and -verify), and game as its run.
var minimal = app.Game{Run: game, Actions: input.ActionMap{
	Names:   []string{"move-x", "move-y"},
	Vectors: []input.Vector{{X: "move-x", Y: "move-y", Deadzone: 0.2}}, // a stick or WASD as one vector, at most 1 long
	Bindings: `move-x key ArrowRight
move-x key ArrowLeft scale=-1
move-x axis LeftX
move-y key ArrowUp
move-y key ArrowDown scale=-1
move-y axis LeftY scale=-1
`}}

func main() { os.Exit(app.Main("nebula-minimal", os.Args[1:], os.Stdout, os.Stderr, minimal)) }

func game(s *app.Process) error {
	e, err := engine.New(s.EngineConfig()) // 60 Hz ticks unless -tick-rate or -power say otherwise
	if err != nil {
		return err
	}
	start := geom.NewTransform(mgl32.Vec3{0, 0, 0})
	start.Scale = mgl32.Vec3{2, 2, 2}
	cube := e.World.Spawn(start, engine.Interpolate)
	e.World.SetColor(cube, [4]uint8{60, 220, 90, 255})
	// The game's own state lives in the world, never in Go variables that
	// fixed systems change: snapshots, the state hash and replays see it.
	distance := engine.NewResource[float32](e.World, "distance", 0)

	// The simulation: once per tick, it reads only the world, the tick's
	// input and the fixed step, so a run is a pure function of its input.
	e.AddSystem(engine.StageScripts, "move", func(c *engine.FixedContext) {
		x, y := c.Input.ActionVector(moveX, moveY) // the arrow keys or a stick, its length at most 1
		v := mgl32.Vec3{float32(x * speed), float32(y * speed), 0}
		t := c.World.Transform(cube)
		t.Pos = detmath.AddScaled(t.Pos, v, c.DT) // pos + v*dt, rounded the same on every build
		c.World.SetTransform(cube, t)
		c.World.SetDrawVelocity(cube, v, mgl32.Vec3{})
		// |v|*dt, each product rounded on its own (no fused multiply-add).
		step := float32(math.Sqrt(float64(float32(v[0]*v[0]) + float32(v[1]*v[1]))))
		*distance.Ptr() += float32(step * c.DT)
	})

	if s.Opts.Headless {
		return s.RunHeadless(e)
	}
	return s.RunWindowed(e, s.DesktopConfig(title), func(r *desktop.Runner) error {
		r.SetOnKey(func(k input.Key, pressed, _ bool) {
			if k == input.KeyEscape && pressed {
				r.Quit()
			}
		})
		// The title shows the distance travelled, in tenths, when they
		// change.
		shown := int64(-1)
		e.AddUpdate("title", func(*engine.FrameContext) {
			if d := int64(distance.Get() * 10); d != shown {
				shown = d
				r.SetTitle(title + "  distance " + strconv.FormatFloat(float64(d)/10, 'f', 1, 64))
			}
		})
		// So does the game's own text at the window's top-left corner,
		// every frame, twice the font's size.
		hud := make([]byte, 0, 32)
		e.AddRender("hud", func(*engine.FrameContext) {
			hud = strconv.AppendFloat(append(hud[:0], "distance "...), float64(distance.Get()), 'f', 1, 32)
			r.Text().PrintBytes(10, 10, 2, hud, [4]uint8{255, 255, 255, 255})
		})
		return nil
	})
}
