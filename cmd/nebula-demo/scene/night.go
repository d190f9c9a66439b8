package scene

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/light"
	"github.com/nebulaengine/nebula/engine/physics"
	"github.com/nebulaengine/nebula/engine/render"
)

// The physics mode's arena at night, in one place: a lamp on a post in
// each corner that lights the arena (package light), a goal that glows at
// the back, and walls you see through.
const (
	// LampHeight is the height of the lamps' posts, m; their bulbs are
	// just above.
	LampHeight = 3.5
	// LampRange is how far a lamp's light reaches, m, and LampIntensity
	// its intensity (light.Light.Intensity).
	LampRange, LampIntensity = 18, 40
	// WallAlpha is the walls' opacity: they are drawn transparent.
	WallAlpha = 110
)

// LampColor is the lamps' warm light.
var LampColor = [3]uint8{255, 190, 120}

// GoalHalf is the goal's half extents, m: a sensor box at the back of the
// arena, which counts the shots that enter it (Scene.Goals).
var GoalHalf = mgl32.Vec3{3, 1, 0.5}

// buildNight adds the lamps and the goal to the physics mode's arena, and
// the systems that count goals and gather the lights into each frame.
func (s *Scene) buildNight(e *engine.Engine) error {
	w := e.World
	s.Lights = light.New(w)
	s.Goals = engine.NewResource(w, "goals", uint32(0))
	floorY := -Box[1]
	for _, c := range [4][2]float32{{-1, -1}, {1, -1}, {-1, 1}, {1, 1}} {
		at := mgl32.Vec3{c[0] * (Box[0] - 2), floorY + LampHeight/2, c[1] * (Box[2] - 2)}
		post, err := s.spawnBody(at, mgl32.QuatIdent(), engine.NoInterpolation, physics.Static,
			physics.Shape{Kind: physics.Box, HalfExtents: mgl32.Vec3{0.1, LampHeight / 2, 0.1}})
		if err != nil {
			return err
		}
		w.SetColor(post, [4]uint8{60, 62, 72, 255})
		// The bulb, a child of the post: a glowing sphere that carries
		// the light.
		bulb := w.Spawn(geom.NewTransform(mgl32.Vec3{0, LampHeight/2 + 0.2, 0}), engine.NoInterpolation)
		if err := w.SetParent(bulb, post, engine.KeepLocal); err != nil {
			return fmt.Errorf("scene: a lamp's bulb: %w", err)
		}
		w.SetMesh(bulb, render.MeshSphere)
		w.SetMeshScale(bulb, mgl32.Vec3{0.4, 0.4, 0.4})
		w.SetColor(bulb, [4]uint8{255, 235, 200, 255})
		w.SetEmissive(bulb, LampColor)
		s.Lights.Component().Set(bulb, light.Point(LampColor, LampIntensity, LampRange))
	}
	goal := physics.NewBodyDef(physics.Static, physics.Shape{Kind: physics.Box, HalfExtents: GoalHalf})
	goal.Sensor = true
	var err error
	if s.Goal, err = s.Space.SpawnBody(mgl32.Vec3{0, floorY + GoalHalf[1], -Box[2] + 1 + GoalHalf[2]}, mgl32.QuatIdent(), engine.NoInterpolation, goal); err != nil {
		return fmt.Errorf("scene: the goal: %w", err)
	}
	w.SetColor(s.Goal, [4]uint8{70, 255, 120, 120})
	w.SetEmissive(s.Goal, [3]uint8{30, 170, 70})
	if err := e.AddSystem(engine.StageCollision, "goal", s.scoreGoals); err != nil {
		return fmt.Errorf("scene: %w", err)
	}
	e.AddRender("lights", s.Lights.Gather)
	return nil
}

// scoreGoals counts a goal for every shot that enters the goal, from the
// step's contact events.
func (s *Scene) scoreGoals(c *engine.FixedContext) {
	for _, ev := range s.Space.Events() {
		if ev.Kind != physics.Begin {
			continue
		}
		if (ev.A == s.Goal && s.Shots.Has(ev.B)) || (ev.B == s.Goal && s.Shots.Has(ev.A)) {
			*s.Goals.Ptr()++
			s.goalSound(c)
		}
	}
}
