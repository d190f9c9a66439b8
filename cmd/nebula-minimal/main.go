// Command nebula-minimal is the smallest complete game on Nebula: a
// character (package physics: a capsule moved by move and slide, drawn as
// a box) on a floor beside a lamp hanging on a rope (a joint) and a
// training dummy that falls as a ragdoll when walked up to (dummy.go), that WASD,
// the arrow keys or a gamepad's left stick walk (its "move" action) and
// Space or the gamepad's A makes jump (its "jump" action), simulated in a
// system of the tick's scripts stage and drawn interpolated between ticks
// by the windowed runner, with a sound for a jump, a landing and the dummy
// knocked down (sound.go); F4 shows the physics (package physicsview), Esc
// quits. It takes the common flags of Nebula's programs and -bindings
// (nebula-minimal -h), and has none of its own. Copy it to start a game of
// your own (README.md, "Start your own game").
package main

import (
	"math"
	"os"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/anim"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/desktop/physicsview"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/light"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/physics/debugdraw"
	"github.com/nebulaengine/nebula/engine/ragdoll"
	"github.com/nebulaengine/nebula/engine/render"
	"github.com/nebulaengine/nebula/engine/sound"
	"github.com/nebulaengine/nebula/gfx"
	"github.com/nebulaengine/nebula/internal/app"
)

// title is the window's title: your game's name.
const title = "Nebula minimal"

// speed is how fast the player walks, m/s, and jumpSpeed how fast a jump
// leaves the ground, m/s (it rises jumpSpeed²/2g, 1.27 m).
const speed, jumpSpeed = 8, 5

// The game's actions, declared once in the game's definition below: one
// two-axis action, "move", whose components are move-x and move-y, and
// "jump".
const (
	moveX input.Action = iota
	moveY
	jump
)

// minimal is the game: the common flags (app.Game.Flags would add its own)
// and -bindings, its actions, no recording (Records: true would add
// -record, -replay and -verify), and game as its run.
var minimal = app.Game{Run: game, Actions: input.ActionMap{
	Names:   []string{"move-x", "move-y", "jump"},
	Vectors: []input.Vector{{X: "move-x", Y: "move-y", Deadzone: 0.2}}, // a stick or WASD as one vector, at most 1 long
	Bindings: `move-x key ArrowRight
move-x key ArrowLeft scale=-1
move-x key D
move-x key A scale=-1
move-x axis LeftX
move-y key ArrowUp
move-y key ArrowDown scale=-1
move-y key W
move-y key S scale=-1
move-y axis LeftY scale=-1
jump key Space
jump button A
`}}

func main() { os.Exit(app.Main("nebula-minimal", os.Args[1:], os.Stdout, os.Stderr, minimal)) }

// world is the game's world: a floor whose top is at y = 0, the player's
// character standing on it at the origin, and a lamp on a rope. The game's own state
// lives in the world, never in Go variables that fixed systems change:
// snapshots, the state hash and replays see it.
type world struct {
	e        *engine.Engine
	space    *physics.Space
	player   engine.Entity
	lamp     engine.Entity             // a lamp hanging on a rope
	vy       *engine.Resource[float32] // the player's vertical speed, m/s
	distance *engine.Resource[float32] // how far it has walked, m
	dummy    engine.Entity             // a training dummy with a ragdoll (dummy.go)
	anims    *anim.Animations
	ragdolls *ragdoll.Ragdolls
	lights   *light.Lights
	sounds   *sound.Sounds // what happens, heard (sound.go)
	sfx      sfx
}

func newWorld(cfg engine.Config) (*world, error) {
	e, err := engine.New(cfg) // 60 Hz ticks unless -tick-rate or -power say otherwise
	if err != nil {
		return nil, err
	}
	space, err := physics.Attach(e, physics.DefaultConfig()) // the physics stage steps it
	if err != nil {
		return nil, err
	}
	g := &world{e: e, space: space, vy: engine.NewResource[float32](e.World, "vy", 0), distance: engine.NewResource[float32](e.World, "distance", 0)}
	// SpawnBody makes a body and its matching visual in one call.
	floor, err := space.SpawnBody(mgl32.Vec3{0, -0.5, 0}, mgl32.QuatIdent(), engine.NoInterpolation,
		physics.NewBodyDef(physics.Static, physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{50, 0.5, 50}}))
	if err != nil {
		return nil, err
	}
	e.World.SetColor(floor, [4]uint8{70, 74, 84, 255})
	// The character: a capsule 0.8 m wide and 1.8 m tall, 1 cm above the
	// floor (its Offset), drawn as a green box its size (a mesh scale: it
	// does not scale what is parented to the player).
	ch := physics.NewCharacterDef(0.4, 0.5)
	g.player = e.World.Spawn(geom.NewTransform(mgl32.Vec3{0, 0.9 + ch.Offset, 0}), engine.Interpolate)
	e.World.SetMeshScale(g.player, mgl32.Vec3{0.8, 1.8, 0.8})
	e.World.SetColor(g.player, [4]uint8{60, 220, 90, 255})
	if err := space.AddCharacter(g.player, ch); err != nil {
		return nil, err
	}
	// A lamp on a 1.5 m rope from a point 3 m up (a distance joint to
	// the world), glowing (its emissive colour) and lighting the floor, to
	// walk into and set swinging.
	lamp := physics.NewBodyDef(physics.Dynamic, physics.Shape{Kind: physics.Sphere, Radius: 0.3})
	lamp.Density = 200
	g.lamp, err = space.SpawnBody(mgl32.Vec3{-4, 1.5, -4}, mgl32.QuatIdent(), engine.Interpolate, lamp)
	if err != nil {
		return nil, err
	}
	e.World.SetColor(g.lamp, [4]uint8{250, 210, 80, 255})
	e.World.SetEmissive(g.lamp, [3]uint8{120, 100, 40})
	g.lights = light.New(e.World) // it lights the floor: a point light rides the lamp
	g.lights.Component().Set(g.lamp, light.Point([3]uint8{255, 210, 140}, 6, 10))
	e.AddRender("lights", g.lights.Gather)

	rope := physics.NewJointDef(physics.JointDistance, engine.Entity{}, g.lamp) // A: the world
	rope.AnchorA, rope.MaxLength = mgl32.Vec3{-4, 3, -4}, 1.5
	holder := e.World.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.NoInterpolation) // the joint's entity
	e.World.SetMesh(holder, render.MeshNone)                                         // not drawn
	if err := space.AddJoint(holder, rope); err != nil {
		return nil, err
	}
	if err := g.addSounds(); err != nil {
		return nil, err
	}
	if err := g.addDummy(); err != nil {
		return nil, err
	}
	// The simulation: once per tick, before the physics stage, it reads
	// only the world, the tick's input and the fixed step, so a run is a
	// pure function of its input.
	if err := e.AddSystem(engine.StageScripts, "move", g.move); err != nil {
		return nil, err
	}
	return g, nil
}

// move walks the character as the move action says, pulls it down by
// gravity and makes it jump when it stands on the ground and the jump
// action is pressed; the physics step then moves it there.
func (g *world) move(c *engine.FixedContext) {
	x, y := c.Input.ActionVector(moveX, moveY) // WASD, the arrow keys or a stick, its length at most 1
	walk := mgl32.Vec3{float32(x * speed), 0, float32(-y * speed)}
	vy := g.vy.Ptr()
	ch, _ := g.space.Character(g.player)
	if ch.OnCeiling && *vy > 0 {
		*vy = 0 // the head hit a ceiling: the jump ends
	}
	if ch.Grounded && *vy <= 0 {
		if *vy < -landSpeed { // it landed: a thud, louder the faster it fell
			g.sounds.Emit(c, sound.Event{Sound: g.sfx.land, Entity: g.player, Volume: min(-*vy/jumpSpeed, 1)})
		}
		*vy = 0
		if c.Input.ActionPressed(jump) {
			*vy = jumpSpeed
			g.sounds.Emit(c, sound.Event{Sound: g.sfx.jump, Entity: g.player}) // heard once, even across a rollback
		}
	}
	// It rises by the mean of its vertical speeds before and after the
	// tick's gravity: exact under a constant acceleration. Each product is
	// rounded on its own (no fused multiply-add), the same on every build.
	was := *vy
	*vy += float32(g.space.Config().Gravity[1] * c.DT)
	rise := float32(0.5 * (was + *vy))
	want := mgl32.Vec3{float32(walk[0] * c.DT), float32(rise * c.DT), float32(walk[2] * c.DT)}
	if _, err := g.space.MoveCharacter(g.player, want); err != nil {
		panic(err) // a bug: the player is a character, and want is finite
	}
	step := float32(math.Sqrt(float64(float32(walk[0]*walk[0]) + float32(walk[2]*walk[2]))))
	*g.distance.Ptr() += float32(step * c.DT)
}

func game(s *app.Process) error {
	g, err := newWorld(s.EngineConfig())
	if err != nil {
		return err
	}
	if s.Opts.Headless {
		return s.RunHeadless(g.e)
	}
	cfg := s.DesktopConfig(title)
	if err := g.hear(&cfg); err != nil { // the sounds play through the audio output
		return err
	}
	return s.RunWindowed(g.e, cfg, func(r *desktop.Runner) error {
		// F4 shows the physics as the engine sees it: shapes, contacts,
		// the character's ground.
		view, err := physicsview.Attach(r, g.space, debugdraw.DefaultOptions()) // off until toggled
		if err != nil {
			return err
		}
		if err := g.drawDummy(r); err != nil {
			return err
		}
		if err := r.Renderer().SetShadows(gfx.DefaultShadows()); err != nil { // the sun casts shadows
			return err
		}
		r.SetOnKey(func(k input.Key, pressed, _ bool) {
			switch {
			case k == input.KeyEscape && pressed:
				r.Quit()
			case k == input.KeyF4 && pressed:
				view.Toggle()
			}
		})
		// The title shows the distance walked, in tenths, when they
		// change.
		shown := int64(-1)
		g.e.AddUpdate("title", func(*engine.FrameContext) {
			if d := int64(g.distance.Get() * 10); d != shown {
				shown = d
				r.SetTitle(title + "  distance " + strconv.FormatFloat(float64(d)/10, 'f', 1, 64))
			}
		})
		// So does the game's own text at the window's top-left corner,
		// every frame, twice the font's size.
		hud := make([]byte, 0, 32)
		g.e.AddRender("hud", func(*engine.FrameContext) {
			hud = strconv.AppendFloat(append(hud[:0], "distance "...), float64(g.distance.Get()), 'f', 1, 32)
			r.Text().PrintBytes(10, 10, 2, hud, [4]uint8{255, 255, 255, 255})
		})
		return nil
	})
}
