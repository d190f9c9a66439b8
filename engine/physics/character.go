package physics

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// CharacterDef describes a character for Space.AddCharacter: an upright
// capsule moved by "move and slide", as Rapier's KinematicCharacterController,
// Jolt's CharacterVirtual and Godot's CharacterBody3D move theirs. Start
// from NewCharacterDef, which fills in the defaults.
type CharacterDef struct {
	// Radius and HalfHeight are the capsule's (HalfHeight: from its
	// centre to each hemisphere's centre, along Up).
	Radius, HalfHeight float32
	// Up is the character's up direction (unit; (0, 1, 0)).
	Up mgl32.Vec3
	// Offset is the gap, in m, the character keeps from every surface
	// (0.01): it never quite touches, so a sweep from where it stands is
	// never already in contact.
	Offset float32
	// MaxSlope is the steepest ground it walks on, in rad from level
	// (45°): it climbs gentler slopes, stands on them, and slides down
	// steeper ones, which stop it like walls.
	MaxSlope float32
	// StepHeight is the highest step it walks up (0.35 m; 0: none), and
	// StepWidth how deep the step's top must be to stand on (0.1 m).
	StepHeight, StepWidth float32
	// SnapDistance is how far down, in m, it follows the ground when
	// walking down a slope or off a step while grounded and not moving up
	// (0.2; 0: never), so it does not fly off every ramp.
	SnapDistance float32
	// Mass is the character's mass in kg when it pushes a dynamic body
	// (80): it gives the body the impulse a body of that mass walking into
	// it would (0: it pushes nothing; dynamic bodies are then obstacles).
	// Nothing pushes the character: it is a kinematic body.
	Mass float32
	// Layer and Mask are the character body's collision layers (as
	// BodyDef's) and what its moves see (as QueryFilter.Mask).
	Layer, Mask uint32
}

// NewCharacterDef returns the definition of a character of capsule radius
// r and half height h (from the centre to each hemisphere's centre), with
// the defaults: up (0, 1, 0), offset 0.01 m, slopes up to 45°, steps up to
// 0.35 m (0.1 m deep), snapping 0.2 m down, a pushing mass of 80 kg, layer
// 1 and every layer seen.
func NewCharacterDef(r, h float32) CharacterDef {
	return CharacterDef{
		Radius: r, HalfHeight: h, Up: mgl32.Vec3{0, 1, 0},
		Offset: 0.01, MaxSlope: math.Pi / 4, StepHeight: 0.35, StepWidth: 0.1,
		SnapDistance: 0.2, Mass: 80, Layer: 1, Mask: ^uint32(0),
	}
}

// Character is a character's component: its definition and what its last
// move found, simulated state like a body's (snapshots, rollback and
// replays carry it).
type Character struct {
	CharacterDef
	// Grounded is set when the character stands on walkable ground (not
	// steeper than MaxSlope) within twice its Offset below it after its
	// last move.
	Grounded bool
	// Ground is the body it stands on (the zero Entity when none),
	// GroundNormal that ground's normal under it, and GroundVelocity the
	// ground's velocity there (a moving platform's, which the next move
	// carries it with).
	Ground         engine.Entity
	GroundNormal   mgl32.Vec3 // unit, from the ground to the character
	GroundVelocity mgl32.Vec3 // m/s
	// Moved is the displacement of the last move: where the character
	// goes in the next Step.
	Moved mgl32.Vec3
	// OnCeiling is set when the last move, going up, met a ceiling: a
	// game ends the jump there (its upward speed to 0).
	OnCeiling bool
}

// maxCharacterSlope is the steepest MaxSlope a character takes, 85° in
// rad.
const maxCharacterSlope = 1.4835298

// CharacterComponent is the name New registers the Character component
// under.
const CharacterComponent = "physics.character"

// validate checks d.
//
//srccheck:wrapped by AddCharacter, as "physics: AddCharacter(<entity>): ..."
func (d *CharacterDef) validate() error {
	for _, f := range []struct {
		name string
		v    float32
	}{{"Radius", d.Radius}, {"HalfHeight", d.HalfHeight}, {"Offset", d.Offset}, {"MaxSlope", d.MaxSlope},
		{"StepHeight", d.StepHeight}, {"StepWidth", d.StepWidth}, {"SnapDistance", d.SnapDistance}, {"Mass", d.Mass}} {
		if !finite(f.v) || f.v < 0 {
			return fmt.Errorf("%s %v: want a finite value, not below 0", f.name, f.v)
		}
	}
	up := toVec3(d.Up)
	switch {
	case d.Radius <= 0:
		return fmt.Errorf("the Radius %v: want a positive radius", d.Radius)
	case d.Offset <= 0 || d.Offset >= d.Radius:
		return fmt.Errorf("the Offset %v: want a gap above 0 and below the radius %v", d.Offset, d.Radius)
	case d.MaxSlope > maxCharacterSlope:
		return fmt.Errorf("MaxSlope %v rad: want at most %v (85°): steeper is a wall", d.MaxSlope, float32(maxCharacterSlope))
	case !up.finite() || abs(up.length()-1) > 1e-3:
		return fmt.Errorf("the up direction %v: want a unit vector", d.Up)
	}
	return nil
}

// upRotation returns the rotation that turns +Y onto up (the capsule's
// axis), the shorter way.
func upRotation(up vec3) quat {
	y := vec3{0, 1, 0}
	d := y.dot(up)
	if d > 1-1e-6 {
		return identity
	}
	if d < -1+1e-6 {
		return quat{1, 0, 0, 0}
	}
	c := y.cross(up)
	return quat{c.x, c.y, c.z, 1 + d}.normalize()
}

// AddCharacter makes the live root entity e, which is not a body, a
// character described by d: a kinematic capsule body along d.Up (so
// dynamic bodies run into it, and it pushes nothing by itself) with the
// Character component. Move it with MoveCharacter from a fixed system
// before the Physics stage. It returns an error, and changes nothing,
// when e cannot be a body or d is out of range.
//
//	player := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), engine.Interpolate)
//	if err := space.AddCharacter(player, physics.NewCharacterDef(0.3, 0.6)); err != nil {
//		return err
//	}
func (s *Space) AddCharacter(e engine.Entity, d CharacterDef) error {
	if err := d.validate(); err != nil {
		return fmt.Errorf("physics: AddCharacter(%v): %w", e, err)
	}
	if s.joints.Has(e) {
		return fmt.Errorf("physics: AddCharacter(%v): the entity is a joint", e)
	}
	if !s.w.Alive(e) {
		return fmt.Errorf("physics: AddCharacter(%v): the entity is not alive", e)
	}
	// The capsule stands along Up whatever the entity's rotation was.
	rot := &s.w.Bodies().Rot[e.Index()]
	was := *rot
	*rot = fromQuat(upRotation(toVec3(d.Up)))
	bd := NewBodyDef(Kinematic, Shape{Kind: Capsule, Radius: d.Radius, HalfHeight: d.HalfHeight})
	bd.Layer, bd.Mask = d.Layer, d.Mask
	if err := s.AddBody(e, bd); err != nil {
		*rot = was
		return fmt.Errorf("physics: AddCharacter: %w", err)
	}
	s.chars.Set(e, Character{CharacterDef: d})
	return nil
}

// Character returns a copy of e's Character component and whether e is a
// character.
func (s *Space) Character(e engine.Entity) (Character, bool) { return s.chars.Get(e) }

// errNotCharacter is MoveCharacter's error for an entity that is not a
// character.
var errNotCharacter = errors.New("the entity is not a character (AddCharacter)")
