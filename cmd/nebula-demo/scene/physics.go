package scene

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/anim"
	"github.com/nebulaengine/nebula/engine/detmath"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/sound"
)

// The physics mode's constants (-physics), in one place.
const (
	// WallHeight is the height of the arena's walls, m.
	WallHeight = 3.0
	// wallThickness is the walls' and the floor's thickness, m.
	wallThickness = 1.0
	// LatticeSpacing is the distance between the bodies of the lattice
	// they fall from, m.
	LatticeSpacing = 1.5
	// ShotSpeed is how fast a player's shot leaves its cube, m/s; the
	// shots are spheres of ShotRadius with continuous collision.
	ShotSpeed  = 30
	ShotRadius = 0.3
	// MaxShots is the most shots a player has in the arena at once: a new
	// one takes the place of the player's oldest.
	MaxShots = 16
	// BodyFriction and BodyRestitution are every body's material.
	BodyFriction    = 0.5
	BodyRestitution = 0.3
)

// KeyFire fires a shot from the player's cube in the physics mode.
const KeyFire = input.KeyF

// Shot marks a player's shot: who fired it and at which tick.
type Shot struct {
	Owner engine.PlayerID // the player who fired it
	Tick  uint64          // the tick it was fired at
}

// SetupPhysics is Setup's rigid-body mode (the demo's -physics): the
// bodies are package physics' rigid bodies, cubes and spheres in a lattice
// above an arena of a floor and four low walls, which fall, bounce, pile
// up and fall asleep. Every player's avatar is a character (a physics
// character: a capsule moved by move and slide, drawn as a box) that
// walks at PlayerSpeed as the arrow keys, WASD or a gamepad's stick say,
// falls and jumps (Space, a gamepad's A; steerCharacters): it climbs
// what is low enough, pushes the bodies and is not pushed; the F key
// fires a sphere from it towards the middle of the arena (continuous
// collision: it cannot pass through a wall). The orbiter and the teleporter are
// kinematic bodies too, the figure walks as in Setup, and the planner
// kicks a few bodies now and then. Collision response scores a point for
// every body that comes to touch a player cube, from the step's contact
// events.
//
// Like Setup it takes everything random from the world's RNG, so a run is
// a pure function of its seed, players and inputs, and the physics is the
// same bits on every machine.
func SetupPhysics(e *engine.Engine, cubes int) (*Scene, error) {
	w := e.World
	space, err := physics.Attach(e, physics.DefaultConfig())
	if err != nil {
		return nil, fmt.Errorf("scene: %w", err)
	}
	s := &Scene{
		Cubes:      cubes,
		TouchCount: engine.NewComponent[uint8](w, "touching"),
		Countdown:  engine.NewComponent[uint32](w, "countdown"),
		Score:      engine.NewResource(w, "score", Score{}),
		Owner:      engine.NewComponent[engine.PlayerID](w, "owner"),
		Walk:       engine.NewComponent[FigureState](w, "figure"),
		Anim:       anim.New(w),
		Space:      space,
		Shots:      engine.NewComponent[Shot](w, "shot"),
		VSpeed:     engine.NewComponent[float32](w, "vspeed"),
	}
	rng := w.RNG()
	floorY := -Box[1]
	side := 1
	for side*side*side < cubes {
		side++
	}
	layer := side * side
	for i := range cubes {
		size := rng.Range(0.6, 1.0)
		x, z, y := i%side, (i/side)%side, i/layer
		pos := mgl32.Vec3{
			float32(float32(x)-float32(side-1)/2) * LatticeSpacing,
			floorY + 2 + float32(float32(y)*LatticeSpacing),
			float32(float32(z)-float32(side-1)/2) * LatticeSpacing,
		}
		rot := detmath.Normalize(mgl32.Quat{W: rng.Range(-1, 1), V: mgl32.Vec3{rng.Range(-1, 1), rng.Range(-1, 1), rng.Range(-1, 1)}})
		color := [4]uint8{uint8(80 + rng.Intn(176)), uint8(80 + rng.Intn(176)), uint8(80 + rng.Intn(176)), 255}
		shape := physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{size / 2, size / 2, size / 2}}
		if i%SphereEvery == SphereEvery-1 {
			shape = physics.Shape{Kind: physics.Sphere, Radius: size / 2}
		}
		c, err := s.spawnBody(pos, rot, engine.Interpolate, physics.Dynamic, shape)
		if err != nil {
			return nil, err
		}
		w.SetColor(c, color)
		s.TouchCount.Set(c, 0)
	}

	// The arena: the floor and four walls, static.
	if s.Floor, err = s.spawnBody(mgl32.Vec3{0, floorY - wallThickness/2, 0}, mgl32.QuatIdent(), engine.NoInterpolation,
		physics.Static, physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{Box[0], wallThickness / 2, Box[2]}}); err != nil {
		return nil, err
	}
	w.SetColor(s.Floor, [4]uint8{70, 74, 84, 255})
	for _, wall := range [4]struct{ pos, half mgl32.Vec3 }{
		{mgl32.Vec3{-Box[0] - wallThickness/2, floorY + WallHeight/2, 0}, mgl32.Vec3{wallThickness / 2, WallHeight / 2, Box[2] + wallThickness}},
		{mgl32.Vec3{Box[0] + wallThickness/2, floorY + WallHeight/2, 0}, mgl32.Vec3{wallThickness / 2, WallHeight / 2, Box[2] + wallThickness}},
		{mgl32.Vec3{0, floorY + WallHeight/2, -Box[2] - wallThickness/2}, mgl32.Vec3{Box[0], WallHeight / 2, wallThickness / 2}},
		{mgl32.Vec3{0, floorY + WallHeight/2, Box[2] + wallThickness/2}, mgl32.Vec3{Box[0], WallHeight / 2, wallThickness / 2}},
	} {
		e, err := s.spawnBody(wall.pos, mgl32.QuatIdent(), engine.NoInterpolation, physics.Static, physics.Shape{Kind: physics.Box, HalfExtents: wall.half})
		if err != nil {
			return nil, err
		}
		w.SetColor(e, [4]uint8{90, 96, 110, WallAlpha}) // seen through
	}

	if s.Player, err = s.spawnCharacter(w, 0, mgl32.Vec3{0, standingY(), 0}); err != nil {
		return nil, err
	}

	marker := physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{0.6, 0.6, 0.6}}
	if s.Orbiter, err = s.spawnBody(mgl32.Vec3{OrbitRadius, 0, 0}, mgl32.QuatIdent(), engine.Hermite, physics.Kinematic, marker); err != nil {
		return nil, err
	}
	w.SetColor(s.Orbiter, [4]uint8{250, 200, 40, 255})

	if s.Teleporter, err = s.spawnBody(mgl32.Vec3{-8, 0, -8}, mgl32.QuatIdent(), engine.Interpolate, physics.Kinematic, marker); err != nil {
		return nil, err
	}
	w.SetDrawVelocity(s.Teleporter, mgl32.Vec3{1, 0, 0.5}, mgl32.Vec3{0, 1, 0})
	w.SetColor(s.Teleporter, [4]uint8{230, 50, 60, 255})
	s.Countdown.Set(s.Teleporter, ticksOf(TeleportEvery, float32(e.Loop.DT())))

	s.spawnFigure(w)
	if err := s.buildNight(e); err != nil {
		return nil, err
	}

	// The stages: as Setup's, with the physics step (added by Attach) in
	// place of the scripted motion. The player characters are moved in
	// the scripts stage and the kinematic orbiter and teleporter get
	// theirs before the step, which moves them all; collision response
	// reads the step's contact events.
	s.plan = e.Jobs.Register("planner", planJob, s.applyPlan)
	for _, err := range []error{
		e.AddSystem(engine.StageScripts, "animate", s.Anim.Advance),
		e.AddSystem(engine.StageScripts, "join", s.joinLeave),
		e.AddSystem(engine.StageScripts, "player", s.steerCharacters),
		e.AddSystem(engine.StageScripts, "fire", s.fire),
		e.AddStage(stageKinematic, engine.Before(engine.StagePhysics)),
		e.AddSystem(stageKinematic, "orbit", s.orbitKinematic),
		e.AddSystem(stageKinematic, "teleport", s.teleport),
		e.AddSystem(engine.StagePhysics, "figure", s.walkFigure),
		e.AddSystem(engine.StageCollision, "touch", s.touchEvents),
		e.AddSystem(engine.StageCollision, "bounce-sounds", s.bounceSounds),
		e.AddSystem(engine.StageAI, "planner", s.planner),
		e.AddStage(StageDebug, engine.After(engine.StageAI)),
		e.AddSystem(StageDebug, CrashSystem, s.crashTest),
	} {
		if err != nil {
			return nil, fmt.Errorf("scene: %w", err)
		}
	}
	if err := s.setupRagdoll(e); err != nil {
		return nil, err
	}
	if err := s.setupSound(e); err != nil {
		return nil, err
	}
	return s, nil
}

// stageKinematic is the physics mode's stage before the physics step,
// where the kinematic bodies the scene drives get their velocities.
const stageKinematic engine.Stage = "kinematic"

// spawnBody spawns a body of kind k and shape sh with the scene's
// material at pos, turned by rot, drawn with mode as it collides
// (physics.Space.SpawnBody).
func (s *Scene) spawnBody(pos mgl32.Vec3, rot mgl32.Quat, mode engine.DrawMode, k physics.Kind, sh physics.Shape) (engine.Entity, error) {
	d := physics.NewBodyDef(k, sh)
	d.Friction, d.Restitution = BodyFriction, BodyRestitution
	e, err := s.Space.SpawnBody(pos, rot, mode, d)
	if err != nil {
		return e, fmt.Errorf("scene: %w", err)
	}
	return e, nil
}

// shotGap is the gap, m, between a player character's capsule and a shot
// leaving it.
const shotGap = 0.05

// fire spawns a shot for every player in the match who pressed KeyFire
// this tick: a sphere leaving its character at the character's centre
// height, just outside its capsule, towards the middle of the arena,
// slightly upwards. A player with MaxShots shots in the arena loses its
// oldest.
func (s *Scene) fire(c *engine.FixedContext) {
	w := c.World
	owners, _ := s.Owner.Slices()
	for _, i := range s.Owner.Indices() {
		id := owners[i]
		in := c.Players.Input(id)
		if in == nil || !in.JustPressed(KeyFire) {
			continue
		}
		cube, _ := w.EntityAt(int(i))
		at := w.Transform(cube).Pos
		dir := mgl32.Vec3{-at[0], 0, -at[2]}
		if l := detmath.Dot(dir, dir); l > 1e-6 {
			dir = dir.Mul(1 / detmath.Sqrt(l))
		} else {
			dir = mgl32.Vec3{0, 0, -1}
		}
		// At the character's centre height, just outside its capsule.
		from := detmath.AddScaled(at, dir, CharacterRadius+ShotRadius+shotGap)
		vel := mgl32.Vec3{float32(dir[0] * ShotSpeed), ShotSpeed / 4, float32(dir[2] * ShotSpeed)}
		s.dropOldestShot(w, id)
		d := physics.NewBodyDef(physics.Dynamic, physics.Shape{Kind: physics.Sphere, Radius: ShotRadius})
		d.Friction, d.Restitution, d.CCD, d.Density = BodyFriction, BodyRestitution, true, 4
		shot, err := s.Space.SpawnBody(from, mgl32.QuatIdent(), engine.Interpolate, d)
		if err != nil {
			panic(fmt.Sprintf("scene: a shot's body: %v", err)) // a bug: the definition is fixed
		}
		w.SetColor(shot, playerColors[int(id)%len(playerColors)])
		w.SetDrawVelocity(shot, vel, mgl32.Vec3{})
		s.Shots.Set(shot, Shot{Owner: id, Tick: c.Tick})
		s.Sounds.Emit(c, sound.Event{Sound: s.Sound.Shot, Entity: cube, Spatial: true, Volume: 0.8})
	}
}

// dropOldestShot despawns player id's oldest shot when it has MaxShots.
func (s *Scene) dropOldestShot(w *engine.World, id engine.PlayerID) {
	shots, _ := s.Shots.Slices()
	n, oldest := 0, int32(-1)
	for _, i := range s.Shots.Indices() {
		if shots[i].Owner != id {
			continue
		}
		n++
		if oldest < 0 || shots[i].Tick < shots[oldest].Tick {
			oldest = i
		}
	}
	if n >= MaxShots {
		e, _ := w.EntityAt(int(oldest))
		w.Despawn(e)
	}
}

// orbitKinematic gives the kinematic orbiter the velocity that takes it
// to its next place on the orbit in one tick, and its spin; the physics
// step moves it there, pushing what is in the way.
func (s *Scene) orbitKinematic(c *engine.FixedContext) {
	w := c.World
	t := w.Transform(s.Orbiter)
	dt := float64(c.DT)
	sin, cos := detmath.Sincos(float64(OrbitSpeed * dt))
	x, z := float64(t.Pos[0]), float64(t.Pos[2])
	x, z = float64(x*cos)-float64(z*sin), float64(x*sin)+float64(z*cos)
	k := OrbitRadius / math.Sqrt(float64(x*x)+float64(z*z))
	x, z = float64(x*k), float64(z*k)
	next := mgl32.Vec3{float32(x), float32(float64(orbitLift*z) / OrbitRadius), float32(z)}
	inv := float32(1 / dt)
	vel := mgl32.Vec3{float32((next[0] - t.Pos[0]) * inv), float32((next[1] - t.Pos[1]) * inv), float32((next[2] - t.Pos[2]) * inv)}
	w.SetDrawVelocity(s.Orbiter, vel, orbitAxis.Mul(OrbitSpin))
}

// touchEvents scores a point for every body that comes to touch a player
// cube, from the physics step's Begin events, and counts the player cubes
// each body touches (TouchCount) and the bodies touching any
// (Score.Touches).
func (s *Scene) touchEvents(c *engine.FixedContext) {
	score := s.Score.Ptr()
	for _, ev := range s.Space.Events() {
		body, player := ev.A, ev.B
		if s.Owner.Has(body) {
			body, player = player, body
		}
		if !s.Owner.Has(player) {
			continue
		}
		n := s.TouchCount.Ptr(body)
		if n == nil {
			continue // another player cube, a wall, a shot
		}
		switch {
		case ev.Kind == physics.Begin:
			score.Points++
			if *n == 0 {
				score.Touches++
			}
			*n++
		case ev.Kind == physics.End && *n > 0:
			*n--
			if *n == 0 {
				score.Touches--
			}
		}
	}
}
