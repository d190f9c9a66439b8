// Package scene is the demo's world: cubes and spheres bouncing and
// spinning in a box over a floor, a figure walking along the back wall
// and waving at each end (a skinned glTF model made by package modelgen,
// animated by package anim under the fixed step), a cube for each player, steered by that player, one that orbits and spins
// fast (to exercise slerp and Hermite interpolation), one that teleports
// every two seconds (to exercise the teleport snap), and a planner: every
// PlanEvery ticks it submits an off-loop job that takes 50 to 500 ms and
// picks new velocities for a few cubes, applied at a tick boundary
// (engine.Jobs).
//
// Player 0's cube (Scene.Player) is made by Setup and stays for the whole
// run, at rest while player 0 is not in the match: a single-player game is
// player 0 alone. In a match, every other player gets a cube at the tick
// it joins (on the floor, at a place and in a colour fixed by its ID) and
// loses it at the tick it leaves. Each player cube carries its player's ID
// (component "owner"); Scene.PlayerCube finds a player's cube.
//
// The scene keeps its own state in the world, where snapshots, the state
// hash, replays and rollback see it: every bouncing cube counts its wall
// bounces (component "bounces") and knows whether it touches a player cube
// (component "touching"), the teleporter counts down to its next jump
// (component "countdown"), the figure knows where it is in its walk
// (component "figure") and plays its clips (component "animator"), and
// the match scores a point for every cube
// that comes to touch a player cube (resource "score", one for the match).
//
// Everything here runs in the tick's stages and follows the determinism
// rules: it reads only the world, the tick's players and their inputs, the
// fixed step and the tick number, takes randomness from the world's RNG,
// walks entities in slot order, and rounds every product explicitly (package
// detmath), so a run hashes the same on every display and every build.
package scene

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"github.com/nebulaengine/nebula/engine/render"
	"github.com/nebulaengine/nebula/engine/sound"

	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/anim"
	"github.com/nebulaengine/nebula/engine/detmath"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/light"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/ragdoll"
)

// The scene's constants, in one place.
var (
	// Box is the half-size of the box the cubes bounce in.
	Box = mgl32.Vec3{16, 9, 16}
	// orbitAxis is the orbiter's spin axis, a unit vector.
	orbitAxis = mgl32.Vec3{0.6, 0.8, 0}
)

const (
	// PlayerSpeed is how fast the arrow keys move a player's cube,
	// units/s.
	PlayerSpeed = 6
	// PlayerSize is the edge of a player's cube.
	PlayerSize = 1.5
	// OrbitRadius and OrbitSpeed (rad/s) describe the orbiting cube's path;
	// OrbitSpin (rad/s) is how fast it turns about its own axis: 2 turns a
	// second, 12 degrees a tick at 60 Hz.
	OrbitRadius = 8
	OrbitSpeed  = 1.5                   // radians per second around the centre
	OrbitSpin   = 4 * 3.141592653589793 // radians per second about its own axis
	orbitLift   = 1.5                   // how far the orbit rises and falls
	// TeleportEvery is the teleporting cube's period.
	TeleportEvery = 2 * time.Second
	// SphereEvery makes every SphereEvery-th bouncing body a sphere.
	SphereEvery = 4
	// FigureSpeed (units/s) is how fast the figure walks, between x =
	// -FigureRange and +FigureRange; at each end it waves for WaveFor,
	// then turns round in TurnFor.
	FigureSpeed = 2.5
	// FigureRange is how far from the middle the figure walks, each way.
	FigureRange = 10
	// FigureScale is the figure's height: its model is 1 unit tall.
	FigureScale = 7
	// WaveFor is how long the figure waves at each end of its walk.
	WaveFor = 2400 * time.Millisecond
	// TurnFor is how long it takes to turn round.
	TurnFor = 600 * time.Millisecond
	// PlanEvery is the planner's period in ticks; each plan gives
	// PlanPicks cubes new velocities after a latency drawn from
	// [PlanMinLatency, PlanMaxLatency].
	PlanEvery      = 90
	PlanPicks      = 8                      // cubes per plan
	PlanMinLatency = 50 * time.Millisecond  // shortest latency of a plan's job
	PlanMaxLatency = 500 * time.Millisecond // longest latency of a plan's job
)

// MeshFigure is the figure's mesh: the model FigureModel returns, which a
// windowed run registers with the renderer and the animations.
const MeshFigure = render.MeshFirstGame

// The figure model's clips (FigureModel checks their names).
const (
	ClipWalk = 0 // modelgen.ClipWalk
	ClipWave = 1 // modelgen.ClipWave
)

// ID identifies the scene in a recording's header: a replay of another
// scene is refused.
const ID = "nebula-demo/cubes"

// MaxEntities is the largest number of bouncing cubes Setup takes from the
// demo's -entities.
const MaxEntities = 1_000_000

// CrashSystem is the name of the system that panics at PanicAt.
const CrashSystem = "crash-test"

// StageDebug is the scene's own stage, after engine.StageAI: the debug
// faults (CrashSystem), which must see the tick's settled state and come
// after every other system of the game.
const StageDebug engine.Stage = "debug"

// Score is the match's score, the scene's resource: one for all the
// players.
type Score struct {
	Points  uint32 // one for every cube that came to touch a player cube
	Touches uint32 // cubes touching a player cube at the end of the last tick
}

// playerColors are the colours of the player cubes: player id's cube is
// playerColors[id%len(playerColors)], player 0's green.
var playerColors = [...][4]uint8{
	{60, 220, 90, 255},   // green
	{70, 130, 250, 255},  // blue
	{220, 80, 220, 255},  // magenta
	{60, 220, 230, 255},  // cyan
	{250, 140, 40, 255},  // orange
	{240, 240, 240, 255}, // white
	{140, 90, 240, 255},  // violet
	{250, 130, 170, 255}, // pink
}

// Scene holds the demo's special entities and its components and
// resources.
type Scene struct {
	// Player is player 0's cube, made by Setup; the cubes of the other
	// players come and go with them (PlayerCube finds them).
	Player engine.Entity
	// Orbiter and Teleporter are the orbiting and the teleporting cube.
	Orbiter, Teleporter engine.Entity
	// Floor is the floor plane; Figure the walking, waving figure.
	Floor, Figure engine.Entity
	// Cubes is the number of bouncing cubes.
	Cubes int
	// PanicAt makes the CrashSystem panic at that tick (0 = never): a
	// debug switch to test crash capture.
	PanicAt uint64
	// DesyncAt makes the CrashSystem add a point to the score at that tick
	// (0 = never): a debug switch that
	// makes one networked client's state differ from everyone else's, to
	// test desync detection.
	DesyncAt uint64
	// NondeterministicFrom makes the CrashSystem add the wall clock's
	// nanoseconds to the score at every tick from that one on (0 =
	// never): a debug switch that breaks determinism the way a game's own
	// mistake would, for the sync test to catch.
	NondeterministicFrom uint64

	// Bounces counts each bouncing cube's bounces off the walls.
	Bounces *engine.Component[uint32]
	// Touching marks the bouncing cubes that touch a player cube.
	Touching *engine.Component[bool]
	// Countdown is the ticks left before the teleporter's next jump.
	Countdown *engine.Component[uint32]
	// Score is the match's score.
	Score *engine.Resource[Score]
	// Owner marks the player cubes (player 0's included) with the ID of
	// the player who steers them.
	Owner *engine.Component[engine.PlayerID]
	// Walk is the figure's place in its walk.
	Walk *engine.Component[FigureState]
	// Anim plays the figure's clips; its component "animator" is part of
	// the world. A windowed run gives it the figure's model and adds its
	// Pose render system (the clock needs no model).
	Anim *anim.Animations

	// Space is the physics of the rigid-body mode (SetupPhysics), nil in
	// Setup's scripted mode.
	Space *physics.Space
	// Shots marks the players' shots (SetupPhysics).
	Shots *engine.Component[Shot]
	// TouchCount counts the player cubes each body touches
	// (SetupPhysics).
	TouchCount *engine.Component[uint8]
	// Ragdolls is the figure's ragdoll, which a shot knocks down
	// (SetupPhysics; ragdoll.go).
	Ragdolls *ragdoll.Ragdolls
	// VSpeed is each player character's vertical speed, m/s, up
	// (SetupPhysics): gravity and jumps change it, and the character
	// moves by it (steerCharacters).
	VSpeed *engine.Component[float32]
	// Lights are the arena's lamps' lights (SetupPhysics; night.go).
	Lights *light.Lights
	// Goal is the goal's sensor at the back of the arena (SetupPhysics).
	Goal engine.Entity
	// Goals counts the shots that entered the goal (SetupPhysics).
	Goals *engine.Resource[uint32]

	// Sounds is the scene's sound: the events its fixed systems emit and
	// the music (world state). Nothing plays until the game gives it an
	// output.
	Sounds *sound.Sounds
	// Sound names the scene's sounds.
	Sound SoundIDs

	plan engine.JobKind
	// touch's scratch: the player cubes' slots sorted by x, and their x.
	byX []int32
	xs  []float32
}

// Setup spawns cubes bouncing cubes plus the three special ones (player
// 0's cube, the orbiter and the teleporter) into e's world and adds the
// scene's systems to the tick's stages and its own, StageDebug. The
// bouncing cubes' positions, velocities, spins, sizes and colours come
// from the world's RNG. The cubes of the other players are spawned as
// they join (see PlayerCube).
func Setup(e *engine.Engine, cubes int) *Scene {
	w := e.World
	rng := w.RNG()
	s := &Scene{
		Cubes:     cubes,
		Bounces:   engine.NewComponent[uint32](w, "bounces"),
		Touching:  engine.NewComponent[bool](w, "touching"),
		Countdown: engine.NewComponent[uint32](w, "countdown"),
		Score:     engine.NewResource(w, "score", Score{}),
		Owner:     engine.NewComponent[engine.PlayerID](w, "owner"),
		Walk:      engine.NewComponent[FigureState](w, "figure"),
		Anim:      anim.New(w),
	}
	for i := range cubes {
		size := rng.Range(0.3, 0.8)
		t := geom.Transform{
			Pos:   mgl32.Vec3{rng.Range(-Box[0]+1, Box[0]-1), rng.Range(-Box[1]+1, Box[1]-1), rng.Range(-Box[2]+1, Box[2]-1)},
			Rot:   mgl32.QuatIdent(),
			Scale: mgl32.Vec3{size, size, size},
		}
		c := w.Spawn(t, engine.Interpolate)
		w.SetDrawVelocity(c,
			mgl32.Vec3{rng.Range(-6, 6), rng.Range(-4, 4), rng.Range(-6, 6)},
			mgl32.Vec3{rng.Range(-3, 3), rng.Range(-3, 3), rng.Range(-3, 3)})
		w.SetColor(c, [4]uint8{uint8(80 + rng.Intn(176)), uint8(80 + rng.Intn(176)), uint8(80 + rng.Intn(176)), 255})
		if i%SphereEvery == SphereEvery-1 {
			w.SetMesh(c, render.MeshSphere)
		}
		s.Bounces.Set(c, 0)
		s.Touching.Set(c, false)
	}

	s.Player = w.Spawn(geom.Transform{Pos: mgl32.Vec3{0, -Box[1] + 1, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{PlayerSize, PlayerSize, PlayerSize}}, engine.Interpolate)
	w.SetColor(s.Player, playerColors[0])
	s.Owner.Set(s.Player, 0)

	s.Orbiter = w.Spawn(geom.Transform{Pos: mgl32.Vec3{OrbitRadius, 0, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1.2, 1.2, 1.2}}, engine.Hermite)
	w.SetColor(s.Orbiter, [4]uint8{250, 200, 40, 255})

	s.Teleporter = w.Spawn(geom.Transform{Pos: mgl32.Vec3{-8, 0, -8}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1.2, 1.2, 1.2}}, engine.Interpolate)
	w.SetDrawVelocity(s.Teleporter, mgl32.Vec3{1, 0, 0.5}, mgl32.Vec3{0, 1, 0})
	w.SetColor(s.Teleporter, [4]uint8{230, 50, 60, 255})
	s.Countdown.Set(s.Teleporter, ticksOf(TeleportEvery, float32(e.Loop.DT())))

	// The floor, a hair below the box's bottom so that a cube resting on
	// it does not fight it for the same depth.
	s.Floor = w.Spawn(geom.Transform{Pos: mgl32.Vec3{0, -Box[1] - 0.01, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{2 * Box[0], 1, 2 * Box[2]}}, engine.NoInterpolation)
	w.SetMesh(s.Floor, render.MeshPlane)
	w.SetColor(s.Floor, [4]uint8{70, 74, 84, 255})

	// The figure starts at the left end of its walk, facing +x (its model
	// faces +z).
	s.spawnFigure(w)

	// The tick's systems, stage by stage (docs/loop.md prints the
	// schedule). The input stage has none: the players' keys are read
	// where they are used. In the scripts stage the animations advance
	// first, so that a clip the figure starts later in the tick starts on
	// this tick; then players join and leave, and steer their cubes. The
	// physics stage holds every system that moves an entity: the bouncing
	// bodies, the orbiter, the teleporter and the walking figure (which
	// also starts its clips). Collision response scores the cubes that
	// touch a player cube, and the planner is the scene's AI. The debug
	// faults run last, in a stage of their own.
	e.AddSystem(engine.StageScripts, "animate", s.Anim.Advance)
	e.AddSystem(engine.StageScripts, "join", s.joinLeave)
	e.AddSystem(engine.StageScripts, "player", s.steerPlayer)
	e.AddSystem(engine.StagePhysics, "move", s.move)
	e.AddSystem(engine.StagePhysics, "orbit", s.orbit)
	e.AddSystem(engine.StagePhysics, "teleport", s.teleport)
	e.AddSystem(engine.StagePhysics, "figure", s.walkFigure)
	e.AddSystem(engine.StageCollision, "touch", s.touch)
	if err := s.setupSound(e); err != nil {
		panic(err) // a bug: the configuration is fixed and the stage new
	}
	s.plan = e.Jobs.Register("planner", planJob, s.applyPlan)
	e.AddSystem(engine.StageAI, "planner", s.planner)
	_ = e.AddStage(StageDebug, engine.After(engine.StageAI)) // cannot fail: a new name, once per engine (a second Setup panics on the components)
	e.AddSystem(StageDebug, CrashSystem, s.crashTest)
	return s
}

// spawnFigure spawns the figure at the left end of its walk, facing +x
// (its model faces +z), walking.
func (s *Scene) spawnFigure(w *engine.World) {
	s.Figure = w.Spawn(geom.Transform{
		Pos:   mgl32.Vec3{-FigureRange, -Box[1] + FigureScale/2, figureZ}, // its feet at -0.5
		Rot:   detmath.AxisAngle(mgl32.Vec3{0, 1, 0}, math.Pi/2),
		Scale: mgl32.Vec3{FigureScale, FigureScale, FigureScale},
	}, engine.Interpolate)
	w.SetMesh(s.Figure, MeshFigure)
	s.Walk.Set(s.Figure, FigureState{Phase: figureWalk, Dir: 1})
	s.Anim.Play(s.Figure, ClipWalk, true)
}

// crashTest panics at tick PanicAt, adds a point to the score at tick
// DesyncAt, and from tick NondeterministicFrom adds the wall clock to it.
func (s *Scene) crashTest(c *engine.FixedContext) {
	if s.DesyncAt != 0 && c.Tick == s.DesyncAt {
		s.Score.Ptr().Points++
	}
	if s.NondeterministicFrom != 0 && c.Tick >= s.NondeterministicFrom {
		s.Score.Ptr().Points += uint32(time.Now().UnixNano())
	}
	if s.PanicAt != 0 && c.Tick == s.PanicAt {
		panic(fmt.Sprintf("injected panic at tick %d (-panic-at-tick)", c.Tick))
	}
}

// planner submits a planning job every PlanEvery ticks. The job's input is
// a seed and its latency, both drawn from the world's RNG, and the number
// of cubes: everything the job may know, since it cannot touch the world.
// The latency in ticks (what a deterministic run waits) is the latency
// rounded up to whole ticks.
func (s *Scene) planner(c *engine.FixedContext) {
	if s.Cubes == 0 || c.Tick%PlanEvery != 0 {
		return
	}
	rng := c.World.RNG()
	seed := rng.Uint64()
	span := int((PlanMaxLatency - PlanMinLatency) / time.Millisecond)
	ms := uint32(PlanMinLatency/time.Millisecond) + uint32(rng.Intn(span+1))
	var in [16]byte
	binary.LittleEndian.PutUint64(in[0:], seed)
	binary.LittleEndian.PutUint32(in[8:], uint32(s.Cubes))
	binary.LittleEndian.PutUint32(in[12:], ms)
	ticks := uint32(math.Ceil(float64(ms) / 1000 / float64(c.DT)))
	c.Jobs.Submit(s.plan, in[:], max(ticks, 1))
}

// planJob is the planner's work, off the loop: with an RNG seeded from its
// input it picks PlanPicks cubes and a new velocity for each. Live, it
// takes its latency in real time (it stands for slow work such as path
// planning); in a deterministic run the engine waits for it at its tick
// instead.
func planJob(in []byte, live bool) []byte {
	rng := engine.NewRNG(binary.LittleEndian.Uint64(in))
	cubes := int(binary.LittleEndian.Uint32(in[8:]))
	if live {
		time.Sleep(time.Duration(binary.LittleEndian.Uint32(in[12:])) * time.Millisecond)
	}
	out := make([]byte, 0, PlanPicks*16)
	for range PlanPicks {
		out = binary.LittleEndian.AppendUint32(out, uint32(rng.Intn(cubes)))
		for _, lim := range [3]float32{6, 4, 6} {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(rng.Range(-lim, lim)))
		}
	}
	return out
}

// applyPlan gives the picked cubes their new velocities (keeping their
// spin), in a tick.
func (s *Scene) applyPlan(c *engine.FixedContext, _, out []byte) {
	w := c.World
	for ; len(out) >= 16; out = out[16:] {
		i := int(binary.LittleEndian.Uint32(out))
		if i >= s.Cubes || i >= w.Slots() {
			continue
		}
		id, ok := w.EntityAt(i)
		if !ok {
			continue
		}
		v := mgl32.Vec3{
			math.Float32frombits(binary.LittleEndian.Uint32(out[4:])),
			math.Float32frombits(binary.LittleEndian.Uint32(out[8:])),
			math.Float32frombits(binary.LittleEndian.Uint32(out[12:])),
		}
		if s.Space != nil {
			if b, ok := s.Space.Body(id); !ok || b.Kind != physics.Dynamic {
				continue // the physics mode kicks its dynamic bodies only
			}
			s.Space.WakeUp(id)
		}
		_, spin := w.DrawVelocity(id)
		w.SetDrawVelocity(id, v, spin)
	}
}

// PlayerCube returns the cube of player id, and whether it has one: player
// 0 always has one (Player), another player while it is in the match. w is
// the world Setup was given.
func (s *Scene) PlayerCube(w *engine.World, id engine.PlayerID) (engine.Entity, bool) {
	owners, _ := s.Owner.Slices()
	for _, i := range s.Owner.Indices() {
		if owners[i] == id {
			return w.EntityAt(int(i))
		}
	}
	return engine.Entity{}, false
}

// PlayerSpot returns where the cube of player id appears when it joins:
// on the floor, 2 units or more from the walls, at whole-unit x and z
// fixed by the ID. The spots of players 1 to engine.MaxPlayers-1 are all
// different, and none is player 0's (the centre of the floor).
func PlayerSpot(id engine.PlayerID) mgl32.Vec3 {
	n := uint32(id)
	xs := max(uint32(2*Box[0]-4), 1) // whole units across the floor, x
	zs := max(uint32(2*Box[2]-4), 1) // and z
	// x fixes n mod xs (3 is prime to 28, the default); z adds n/xs, so
	// that IDs with the same x differ in z.
	x := n * 3 % xs
	z := (n%xs*7 + n/xs + 1) % zs
	return mgl32.Vec3{-Box[0] + 2 + float32(x), -Box[1] + 1, -Box[2] + 2 + float32(z)}
}

// joinLeave despawns the cube of every player who left the match at this
// tick, then spawns one for every player who joined (player 0 keeps
// Player, which stays: it rests while player 0 is out). It runs first in
// the tick, so the tick's other systems see the cubes of exactly the
// players in the match.
func (s *Scene) joinLeave(c *engine.FixedContext) {
	w := c.World
	for _, id := range c.Players.Left() {
		if id == 0 {
			continue
		}
		if cube, ok := s.PlayerCube(w, id); ok {
			w.Despawn(cube)
		}
	}
	for _, id := range c.Players.Joined() {
		if _, ok := s.PlayerCube(w, id); ok {
			continue // player 0's, or already spawned
		}
		if s.Space != nil {
			spot := PlayerSpot(id)
			spot[1] = standingY()
			if _, err := s.spawnCharacter(w, id, spot); err != nil {
				panic(err) // a bug: the definition is fixed
			}
			continue
		}
		cube := w.Spawn(geom.Transform{Pos: PlayerSpot(id), Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{PlayerSize, PlayerSize, PlayerSize}}, engine.Interpolate)
		w.SetColor(cube, playerColors[int(id)%len(playerColors)])
		s.Owner.Set(cube, id)
	}
}

// steerPlayer sets the velocity of every player cube, in slot order, from
// its owner's arrow keys and the move actions (zero while the owner is not
// in the match); Space or the recolour action gives the cube a new colour.
func (s *Scene) steerPlayer(c *engine.FixedContext) {
	w := c.World
	owners, _ := s.Owner.Slices()
	for _, i := range s.Owner.Indices() {
		cube, _ := w.EntityAt(int(i))
		in := c.Players.Input(owners[i])
		if in == nil {
			w.SetDrawVelocity(cube, mgl32.Vec3{}, mgl32.Vec3{})
			continue
		}
		v := arrowVelocity(in)
		padSteer(in, &v)
		w.SetDrawVelocity(cube, v, mgl32.Vec3{})
		if in.JustPressed(input.KeySpace) || in.ActionPressed(ActionRecolour) {
			rng := w.RNG()
			w.SetColor(cube, [4]uint8{uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(rng.Intn(256)), 255})
		}
	}
}

// move integrates every body except the orbiter (which orbit places), the
// floor and the figure (which walkFigure moves): it
// moves by its velocity, bounces off the walls of the box and turns by its
// angular velocity.
func (s *Scene) move(c *engine.FixedContext) {
	w := c.World
	b := w.Bodies()
	dt := c.DT
	n := w.Slots()
	pos, vel, rot, spin, scale := b.Pos[:n], b.Vel[:n], b.Rot[:n], b.AngVel[:n], b.Scale[:n]
	bounces, counted := s.Bounces.Slices()
	orbiter, floor, figure := s.Orbiter.Index(), s.Floor.Index(), s.Figure.Index()
	for i := range n {
		if !w.SlotAlive(i) || i == orbiter || i == floor || i == figure {
			continue
		}
		p, v := &pos[i], &vel[i]
		bounced := false
		for a := range 3 {
			x, u := float32(v[a]*dt)+p[a], v[a]
			lim := Box[a] - float32(0.5*scale[i][a])
			if x > lim {
				x, u, bounced = lim-(x-lim), -u, true
			} else if x < -lim {
				x, u, bounced = -lim+(-lim-x), -u, true
			}
			p[a], v[a] = x, u
		}
		if bounced && counted[i] {
			bounces[i]++
		}
		rot[i] = detmath.Integrate(rot[i], spin[i], dt)
	}
}

// orbit moves the orbiter one tick along its circle and turns it: the
// position turns about the vertical by OrbitSpeed*dt (and is put back on
// the circle, so rounding cannot drift it off), the rotation by
// OrbitSpin*dt about its tilted axis. Each tick steps from the last, so the
// motion stays smooth when the tick rate changes (the demo's [, ] and T
// keys). Its velocity is the circle's tangent, which Hermite interpolation
// uses.
func (s *Scene) orbit(c *engine.FixedContext) {
	t := c.World.Transform(s.Orbiter)
	dt := float64(c.DT)
	sin, cos := detmath.Sincos(float64(OrbitSpeed * dt))
	x, z := float64(t.Pos[0]), float64(t.Pos[2])
	x, z = float64(x*cos)-float64(z*sin), float64(x*sin)+float64(z*cos)
	k := OrbitRadius / math.Sqrt(float64(x*x)+float64(z*z))
	x, z = float64(x*k), float64(z*k)
	t.Pos = mgl32.Vec3{float32(x), float32(float64(orbitLift*z) / OrbitRadius), float32(z)}
	t.Rot = detmath.Normalize(detmath.Mul(detmath.AxisAngle(orbitAxis, float64(OrbitSpin*dt)), t.Rot))
	vel := mgl32.Vec3{float32(-OrbitSpeed * z), float32(float64(orbitLift*OrbitSpeed*x) / OrbitRadius), float32(OrbitSpeed * x)}
	c.World.SetTransform(s.Orbiter, t)
	c.World.SetDrawVelocity(s.Orbiter, vel, mgl32.Vec3{})
}

// teleport counts the teleporter's countdown down, and when it runs out
// jumps it to a random place and starts the countdown again: a jump every
// TeleportEvery at the tick rate of the moment.
func (s *Scene) teleport(c *engine.FixedContext) {
	left := s.Countdown.Ptr(s.Teleporter)
	if left == nil {
		return
	}
	if *left > 1 {
		*left--
		return
	}
	*left = ticksOf(TeleportEvery, c.DT)
	w := c.World
	rng := w.RNG()
	t := w.Transform(s.Teleporter)
	t.Pos = mgl32.Vec3{rng.Range(-Box[0]+1, Box[0]-1), rng.Range(-Box[1]+1, Box[1]-1), rng.Range(-Box[2]+1, Box[2]-1)}
	w.Teleport(s.Teleporter, t)
}

// touch scores a point for every bouncing cube that comes to touch a
// player cube: its box (at its scale, ignoring rotation) overlaps that of
// some player cube at the end of the tick and overlapped none at the end
// of the tick before. A cube touching several player cubes counts once.
//
// Testing every pair made touch the bulk of a 64-player match's tick.
// Instead, a cube outside the box that holds every player cube tests none
// (most cubes: the player cubes keep to the floor), and one inside tests
// only the player cubes whose x is within reach, found in the player cubes
// sorted by x once a tick. The test itself is overlap's, and the box and
// the window are wider than any reach (touchMargin), so they change which
// pairs are tested, never a result.
func (s *Scene) touch(c *engine.FixedContext) {
	w := c.World
	b := w.Bodies()
	byX := append(s.byX[:0], s.Owner.Indices()...)
	slices.SortFunc(byX, func(i, j int32) int { return cmp.Compare(b.Pos[i][0], b.Pos[j][0]) })
	xs := s.xs[:0]
	var half float32 // the largest half size on x of a player cube
	// The box that holds every player cube, widened by touchMargin.
	inf := float32(math.Inf(1))
	lo, hi := mgl32.Vec3{inf, inf, inf}, mgl32.Vec3{-inf, -inf, -inf}
	for _, j := range byX {
		xs = append(xs, b.Pos[j][0])
		half = max(half, 0.5*b.Scale[j][0])
		for a := range 3 {
			lo[a] = min(lo[a], b.Pos[j][a]-0.5*b.Scale[j][a]-touchMargin)
			hi[a] = max(hi[a], b.Pos[j][a]+0.5*b.Scale[j][a]+touchMargin)
		}
	}
	s.byX, s.xs = byX, xs
	touching, has := s.Touching.Slices()
	score := s.Score.Ptr()
	score.Touches = 0
	sounded := 0
	for i, ok := range has {
		if !ok {
			continue
		}
		p, sc := b.Pos[i], b.Scale[i]
		now := false
		if p[0]+0.5*sc[0] >= lo[0] && p[0]-0.5*sc[0] <= hi[0] &&
			p[1]+0.5*sc[1] >= lo[1] && p[1]-0.5*sc[1] <= hi[1] &&
			p[2]+0.5*sc[2] >= lo[2] && p[2]-0.5*sc[2] <= hi[2] {
			now = s.touchesAPlayer(b, p, sc, half)
		}
		if now {
			score.Touches++
			if !touching[i] {
				score.Points++
				if sounded < MaxPointSounds {
					sounded++
					e, _ := w.EntityAt(i)
					s.Sounds.Emit(c, sound.Event{Sound: s.Sound.Point, Entity: e, Spatial: true, Volume: 0.7})
				}
			}
		}
		touching[i] = now
	}
}

// touchesAPlayer reports whether the box at p of size sc overlaps a
// player cube, testing those within reach on x (half is the largest half
// size of a player cube on x).
func (s *Scene) touchesAPlayer(b *engine.Bodies, p, sc mgl32.Vec3, half float32) bool {
	reach := half + 0.5*sc[0] + touchMargin
	// The first player cube at or right of p's x minus the reach.
	xs, x := s.xs, p[0]-reach
	lo, hi := 0, len(xs)
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); xs[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for k := lo; k < len(xs) && xs[k] <= p[0]+reach; k++ {
		if j := s.byX[k]; overlap(b.Pos[j], b.Scale[j], p, sc) {
			return true
		}
	}
	return false
}

// touchMargin widens touch's window on x beyond the largest reach, far
// more than float32 rounding can move a centre's distance in the box.
const touchMargin = 1.0 / 64

// overlap reports whether the boxes centred at p and q with sizes sp and
// sq (ignoring rotation) overlap: on every axis their centres are no
// further apart than the sum of their half sizes.
func overlap(p, sp, q, sq mgl32.Vec3) bool {
	for a := range 3 {
		reach := float32(0.5*sp[a]) + float32(0.5*sq[a])
		if d := q[a] - p[a]; d > reach || d < -reach {
			return false
		}
	}
	return true
}
