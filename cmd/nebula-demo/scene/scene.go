// Package scene is the demo's world: cubes bouncing and spinning in a box,
// a cube the player steers, one that orbits and spins fast (to exercise
// slerp and Hermite interpolation), one that teleports every two
// seconds (to exercise the teleport snap), and a planner: every PlanEvery
// ticks it submits an off-loop job that takes 50 to 500 ms and picks new
// velocities for a few cubes, applied at a tick boundary (engine.Jobs).
//
// The scene keeps its own state in the world, where snapshots, the state
// hash, replays and rollback see it: every bouncing cube counts its wall
// bounces (component "bounces") and knows whether it touches the player
// (component "touching"), the teleporter counts down to its next jump
// (component "countdown"), and the player scores a point for every cube
// that comes to touch it (resource "score").
//
// Everything here runs in FixedUpdate and follows the determinism rules:
// it reads only the world, the tick's input, the fixed step and the tick
// number, takes randomness from the world's RNG, and rounds every product
// explicitly (package detmath), so a run hashes the same on every display
// and every build.
package scene

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/detmath"
)

// The scene's constants, in one place.
var (
	// Box is the half-size of the box the cubes bounce in.
	Box = mgl32.Vec3{16, 9, 16}
	// orbitAxis is the orbiter's spin axis, a unit vector.
	orbitAxis = mgl32.Vec3{0.6, 0.8, 0}
)

const (
	// PlayerSpeed is how fast the arrow keys move the player, units/s.
	PlayerSpeed = 6
	// OrbitRadius and OrbitSpeed (rad/s) describe the orbiting cube's path;
	// OrbitSpin (rad/s) is how fast it turns about its own axis: 2 turns a
	// second, 12 degrees a tick at 60 Hz.
	OrbitRadius = 8
	OrbitSpeed  = 1.5                   // radians per second around the centre
	OrbitSpin   = 4 * 3.141592653589793 // radians per second about its own axis
	orbitLift   = 1.5                   // how far the orbit rises and falls
	// TeleportEvery is the teleporting cube's period.
	TeleportEvery = 2 * time.Second
	// PlanEvery is the planner's period in ticks; each plan gives
	// PlanPicks cubes new velocities after a latency drawn from
	// [PlanMinLatency, PlanMaxLatency].
	PlanEvery      = 90
	PlanPicks      = 8                      // cubes per plan
	PlanMinLatency = 50 * time.Millisecond  // shortest latency of a plan's job
	PlanMaxLatency = 500 * time.Millisecond // longest latency of a plan's job
)

// ID identifies the scene in a recording's header: a replay of another
// scene is refused.
const ID = "nebula-demo/cubes"

// CrashSystem is the name of the system that panics at PanicAt.
const CrashSystem = "crash-test"

// Score is the player's score, the scene's resource.
type Score struct {
	Points  uint32 // one for every cube that came to touch the player
	Touches uint32 // cubes touching the player at the end of the last tick
}

// Scene holds the demo's special entities and its components and
// resources.
type Scene struct {
	Player, Orbiter, Teleporter engine.Entity // the steered, the orbiting and the teleporting cube
	// Cubes is the number of bouncing cubes.
	Cubes int
	// PanicAt makes the CrashSystem panic at that tick (0 = never): a
	// debug switch to test crash capture.
	PanicAt uint64

	// Bounces counts each bouncing cube's bounces off the walls.
	Bounces *engine.Component[uint32]
	// Touching marks the bouncing cubes that touch the player.
	Touching *engine.Component[bool]
	// Countdown is the ticks left before the teleporter's next jump.
	Countdown *engine.Component[uint32]
	// Score is the player's score.
	Score *engine.Resource[Score]

	plan engine.JobKind
}

// Setup spawns cubes bouncing cubes plus the three special ones into e's
// world and adds the scene's systems to FixedUpdate. Positions, velocities,
// spins, sizes and colours come from the world's RNG.
func Setup(e *engine.Engine, cubes int) *Scene {
	w := e.World
	rng := w.RNG()
	s := &Scene{
		Cubes:     cubes,
		Bounces:   engine.NewComponent[uint32](w, "bounces"),
		Touching:  engine.NewComponent[bool](w, "touching"),
		Countdown: engine.NewComponent[uint32](w, "countdown"),
		Score:     engine.NewResource(w, "score", Score{}),
	}
	for range cubes {
		size := rng.Range(0.3, 0.8)
		t := engine.Transform{
			Pos:   mgl32.Vec3{rng.Range(-Box[0]+1, Box[0]-1), rng.Range(-Box[1]+1, Box[1]-1), rng.Range(-Box[2]+1, Box[2]-1)},
			Rot:   mgl32.QuatIdent(),
			Scale: mgl32.Vec3{size, size, size},
		}
		c := w.Spawn(t, engine.Interpolate)
		w.SetVelocity(c,
			mgl32.Vec3{rng.Range(-6, 6), rng.Range(-4, 4), rng.Range(-6, 6)},
			mgl32.Vec3{rng.Range(-3, 3), rng.Range(-3, 3), rng.Range(-3, 3)})
		w.SetColor(c, [4]uint8{uint8(80 + rng.Intn(176)), uint8(80 + rng.Intn(176)), uint8(80 + rng.Intn(176)), 255})
		s.Bounces.Set(c, 0)
		s.Touching.Set(c, false)
	}

	s.Player = w.Spawn(engine.Transform{Pos: mgl32.Vec3{0, -Box[1] + 1, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1.5, 1.5, 1.5}}, engine.Interpolate)
	w.SetColor(s.Player, [4]uint8{60, 220, 90, 255})

	s.Orbiter = w.Spawn(engine.Transform{Pos: mgl32.Vec3{OrbitRadius, 0, 0}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1.2, 1.2, 1.2}}, engine.Hermite)
	w.SetColor(s.Orbiter, [4]uint8{250, 200, 40, 255})

	s.Teleporter = w.Spawn(engine.Transform{Pos: mgl32.Vec3{-8, 0, -8}, Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{1.2, 1.2, 1.2}}, engine.Interpolate)
	w.SetVelocity(s.Teleporter, mgl32.Vec3{1, 0, 0.5}, mgl32.Vec3{0, 1, 0})
	w.SetColor(s.Teleporter, [4]uint8{230, 50, 60, 255})
	s.Countdown.Set(s.Teleporter, teleportTicks(float32(e.Loop.DT())))

	e.AddFixed("player", s.steerPlayer)
	e.AddFixed("move", s.move)
	e.AddFixed("orbit", s.orbit)
	e.AddFixed("teleport", s.teleport)
	e.AddFixed("touch", s.touch)
	s.plan = e.Jobs.Register("planner", planJob, s.applyPlan)
	e.AddFixed("planner", s.planner)
	e.AddFixed(CrashSystem, s.crashTest)
	return s
}

// crashTest panics at tick PanicAt.
func (s *Scene) crashTest(c *engine.FixedContext) {
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
		_, spin := w.Velocity(id)
		w.SetVelocity(id, v, spin)
	}
}

// steerPlayer sets the player's velocity from the arrow keys; Space gives it
// a new colour.
func (s *Scene) steerPlayer(c *engine.FixedContext) {
	var v mgl32.Vec3
	in := c.Input
	if in.Down(engine.KeyArrowRight) {
		v[0] += PlayerSpeed
	}
	if in.Down(engine.KeyArrowLeft) {
		v[0] -= PlayerSpeed
	}
	if in.Down(engine.KeyArrowUp) {
		v[2] -= PlayerSpeed
	}
	if in.Down(engine.KeyArrowDown) {
		v[2] += PlayerSpeed
	}
	c.World.SetVelocity(s.Player, v, mgl32.Vec3{})
	if in.JustPressed(engine.KeySpace) {
		rng := c.World.RNG()
		c.World.SetColor(s.Player, [4]uint8{uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(rng.Intn(256)), 255})
	}
}

// move integrates every body except the orbiter (which orbit places): it
// moves by its velocity, bounces off the walls of the box and turns by its
// angular velocity.
func (s *Scene) move(c *engine.FixedContext) {
	w := c.World
	b := w.Bodies()
	dt := c.DT
	n := w.Slots()
	pos, vel, rot, spin, scale := b.Pos[:n], b.Vel[:n], b.Rot[:n], b.AngVel[:n], b.Scale[:n]
	bounces, counted := s.Bounces.Slices()
	orbiter := s.Orbiter.Index()
	for i := range n {
		if !w.SlotAlive(i) || i == orbiter {
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
	c.World.SetVelocity(s.Orbiter, vel, mgl32.Vec3{})
}

// teleportTicks is TeleportEvery in ticks of dt seconds (at least 1).
func teleportTicks(dt float32) uint32 {
	return max(uint32(TeleportEvery.Seconds()/float64(dt)+0.5), 1)
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
	*left = teleportTicks(c.DT)
	w := c.World
	rng := w.RNG()
	t := w.Transform(s.Teleporter)
	t.Pos = mgl32.Vec3{rng.Range(-Box[0]+1, Box[0]-1), rng.Range(-Box[1]+1, Box[1]-1), rng.Range(-Box[2]+1, Box[2]-1)}
	w.Teleport(s.Teleporter, t)
}

// touch scores a point for every bouncing cube that comes to touch the
// player: their boxes (at their scale, ignoring rotation) overlap at the
// end of the tick and did not at the end of the tick before.
func (s *Scene) touch(c *engine.FixedContext) {
	w := c.World
	b := w.Bodies()
	player := s.Player.Index()
	pp, ps := b.Pos[player], b.Scale[player]
	touching, has := s.Touching.Slices()
	score := s.Score.Ptr()
	score.Touches = 0
	for i, ok := range has {
		if !ok {
			continue
		}
		p, sc := b.Pos[i], b.Scale[i]
		now := true
		for a := range 3 {
			reach := float32(0.5*ps[a]) + float32(0.5*sc[a])
			if d := p[a] - pp[a]; d > reach || d < -reach {
				now = false
				break
			}
		}
		if now {
			score.Touches++
			if !touching[i] {
				score.Points++
			}
		}
		touching[i] = now
	}
}
