package scene

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/physics"
)

// The physics mode's player characters: each player's avatar is a
// physics character (package physics, Space.AddCharacter), an upright
// capsule moved by move and slide, that walks at PlayerSpeed, falls under
// the space's gravity and jumps.
const (
	// CharacterRadius is a player character's capsule radius, m; its
	// height is PlayerSize (1.5 m), so its capsule's half height (from
	// the centre to each hemisphere's centre) is PlayerSize/2 -
	// CharacterRadius.
	CharacterRadius = 0.5
	// JumpSpeed is the vertical speed, m/s, a jump gives a player
	// character standing on the ground: under 9.81 m/s² it rises
	// JumpSpeed²/(2·9.81), about 1.27 m.
	JumpSpeed = 5
)

// characterDef is a player character's definition.
func characterDef() physics.CharacterDef {
	return physics.NewCharacterDef(CharacterRadius, PlayerSize/2-CharacterRadius)
}

// characterScale is how a player character is drawn: a box as wide as
// its capsule and as tall (its mesh scale, so that the character's own
// scale stays one).
var characterScale = mgl32.Vec3{2 * CharacterRadius, PlayerSize, 2 * CharacterRadius}

// standingY returns the height of the centre of a player character
// standing on the arena's floor: its capsule's half height, radius and
// offset above it.
func standingY() float32 { return -Box[1] + PlayerSize/2 + characterDef().Offset }

// spawnCharacter spawns player id's character at pos (its centre), in
// the player's colour.
func (s *Scene) spawnCharacter(w *engine.World, id engine.PlayerID, pos mgl32.Vec3) (engine.Entity, error) {
	e := w.Spawn(geom.NewTransform(pos), engine.Interpolate)
	w.SetMeshScale(e, characterScale)
	w.SetColor(e, playerColors[int(id)%len(playerColors)])
	s.Owner.Set(e, id)
	s.VSpeed.Set(e, 0)
	if err := s.Space.AddCharacter(e, characterDef()); err != nil {
		return e, fmt.Errorf("scene: player %d's character: %w", id, err)
	}
	return e, nil
}

// steerCharacters moves every player character, in slot order, once a
// tick before the physics step: it walks at PlayerSpeed as its owner's
// arrow keys and the move actions say (WASD and a gamepad's stick by
// default), falls under the space's gravity, and jumps at JumpSpeed when
// the jump action (Space, a gamepad's A) is pressed while it stands on the
// ground. Its vertical speed is the component VSpeed, so rollback and
// replays re-simulate it. A player not in the match stands still (and
// falls, if in the air). The recolour action gives the character a new
// colour.
func (s *Scene) steerCharacters(c *engine.FixedContext) {
	w := c.World
	owners, _ := s.Owner.Slices()
	gravity := s.Space.Config().Gravity[1]
	for _, i := range s.Owner.Indices() {
		e, _ := w.EntityAt(int(i))
		vy := s.VSpeed.Ptr(e)
		ch, ok := s.Space.Character(e)
		if vy == nil || !ok {
			continue // a bug: every player's avatar is a character
		}
		in := c.Players.Input(owners[i])
		var v mgl32.Vec3
		if in != nil {
			v = arrowVelocity(in)
			padSteer(in, &v)
		}
		if ch.OnCeiling && *vy > 0 {
			*vy = 0 // the head hit a ceiling: the jump ends
		}
		if ch.Grounded && *vy <= 0 {
			*vy = 0
			if in != nil && in.ActionPressed(ActionJump) {
				*vy = JumpSpeed
			}
		}
		// The move up is the mean of the vertical speeds before and after
		// the tick's gravity (exact under a constant acceleration: a jump
		// rises JumpSpeed²/2g, not a tick's worth less).
		was := *vy
		*vy += float32(gravity * c.DT)
		v[1] = float32(0.5 * (was + *vy))
		want := mgl32.Vec3{float32(v[0] * c.DT), float32(v[1] * c.DT), float32(v[2] * c.DT)}
		if _, err := s.Space.MoveCharacter(e, want); err != nil {
			panic(fmt.Sprintf("scene: moving player %d's character: %v", owners[i], err)) // a bug: e is a character, want finite
		}
		if in != nil && in.ActionPressed(ActionRecolour) {
			rng := w.RNG()
			w.SetColor(e, [4]uint8{uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(rng.Intn(256)), 255})
		}
	}
}

// arrowVelocity returns the velocity the arrow keys held in in give a
// player: PlayerSpeed along x and z.
func arrowVelocity(in *input.Sample) mgl32.Vec3 {
	var v mgl32.Vec3
	if in.Down(input.KeyArrowRight) {
		v[0] += PlayerSpeed
	}
	if in.Down(input.KeyArrowLeft) {
		v[0] -= PlayerSpeed
	}
	if in.Down(input.KeyArrowUp) {
		v[2] -= PlayerSpeed
	}
	if in.Down(input.KeyArrowDown) {
		v[2] += PlayerSpeed
	}
	return v
}
