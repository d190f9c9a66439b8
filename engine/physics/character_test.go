package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
)

// charWorld is a world with a floor (top at y = 0) and a character on it.
type charWorld struct {
	*testWorld
	ch engine.Entity
	vy float32 // the character's own vertical speed (gravity, jumps)
}

// newCharWorld makes a world with a 40 × 40 m floor and a character of
// radius 0.3, half height 0.6 (1.8 m tall) standing at x, z.
func newCharWorld(t *testing.T, x, z float32) *charWorld {
	tw := newTestWorld(t, DefaultConfig())
	fd := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{20, 0.5, 20}})
	tw.add(fd, mgl32.Vec3{0, -0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	ch := tw.w.Spawn(geom.NewTransform(mgl32.Vec3{x, 0.91, z}), engine.Interpolate)
	if err := tw.s.AddCharacter(ch, NewCharacterDef(0.3, 0.6)); err != nil {
		t.Fatal(err)
	}
	return &charWorld{testWorld: tw, ch: ch}
}

// walk runs n ticks of a game system that walks the character at
// velocity v (horizontal) under gravity, then steps the world.
func (cw *charWorld) walk(t *testing.T, v mgl32.Vec3, n int) {
	const dt = 1.0 / 60
	for range n {
		c, _ := cw.s.Character(cw.ch)
		if c.Grounded && cw.vy <= 0 {
			cw.vy = 0
		}
		cw.vy -= 9.81 * dt
		if _, err := cw.s.MoveCharacter(cw.ch, v.Add(mgl32.Vec3{0, cw.vy, 0}).Mul(dt)); err != nil {
			t.Fatal(err)
		}
		cw.s.Step()
	}
}

// feet returns the height of the character's lowest point.
func (cw *charWorld) feet() float32 { return cw.pos(cw.ch)[1] - 0.9 }

// ramp adds a static slab sloping up at deg degrees along +X from x0 on
// the floor, rising to at least top.
func (cw *charWorld) ramp(deg float64, x0 float32) {
	a := deg * math.Pi / 180
	half := mgl32.Vec3{6, 0.5, 3}
	rot := mgl32.QuatRotate(float32(a), mgl32.Vec3{0, 0, 1})
	// The slab's top face starts at (x0, 0): its top-left corner.
	corner := rot.Rotate(mgl32.Vec3{-half[0], half[1], 0})
	cw.add(NewBodyDef(Static, Shape{Kind: Box, HalfExtents: half}), mgl32.Vec3{x0, 0, 0}.Sub(corner), rot, mgl32.Vec3{}, mgl32.Vec3{})
}

// TestCharacterWalksAndStands: on flat ground the character walks at the
// speed it is given, grounded, its feet within its Offset of the floor.
func TestCharacterWalksAndStands(t *testing.T) {
	cw := newCharWorld(t, 0, 0)
	cw.walk(t, mgl32.Vec3{}, 30)
	c, _ := cw.s.Character(cw.ch)
	if f := cw.feet(); !c.Grounded || f < 0.005 || f > 0.0105 {
		t.Fatalf("standing: grounded %v, feet at %.4f m; want grounded, 5 to 10 mm up (half to all of Offset, 10 mm)", c.Grounded, f)
	}
	x0 := cw.pos(cw.ch)[0]
	cw.walk(t, mgl32.Vec3{3, 0, 0}, 60)
	c, _ = cw.s.Character(cw.ch)
	if d := cw.pos(cw.ch)[0] - x0; abs(d-3) > 0.01 || !c.Grounded {
		t.Errorf("walking 1 s at 3 m/s: moved %.4f m, grounded %v; want 3 m, grounded", d, c.Grounded)
	}
}

// TestCharacterSlopes: with MaxSlope 45°, the character walks up a 30°
// ramp (its feet rise as the ramp does) and does not get up a 50° one;
// placed on a 60° slope it slides down.
func TestCharacterSlopes(t *testing.T) {
	cw := newCharWorld(t, 0, 0)
	cw.ramp(30, 1)
	cw.walk(t, mgl32.Vec3{2, 0, 0}, 120) // 4 m: 3 m on the ramp
	x := cw.pos(cw.ch)[0]
	want := (x - 1) * float32(math.Tan(30*math.Pi/180))
	t.Logf("30°: at x = %.3f, feet at %.3f m (the ramp at %.3f)", x, cw.feet(), want)
	if x < 3.9 || cw.feet() < want {
		t.Errorf("30° ramp: at x = %.3f, feet at %.3f m; want past 3.9 m (walking 2 m/s for 2 s), up the ramp (%.3f)", x, cw.feet(), want)
	}

	cw = newCharWorld(t, 0, 0)
	cw.ramp(50, 1)
	cw.walk(t, mgl32.Vec3{2, 0, 0}, 120)
	t.Logf("50°: at x = %.3f, feet at %.3f m", cw.pos(cw.ch)[0], cw.feet())
	if cw.feet() > 0.3 {
		t.Errorf("50° ramp: the feet rose to %.3f m, want the character stopped at its foot", cw.feet())
	}

	// Placed on a 60° slope 2 m up, it slides down to its foot.
	cw = newCharWorld(t, 0, 0)
	cw.ramp(60, 1)
	tan := float32(math.Tan(60 * math.Pi / 180))
	if err := cw.s.Teleport(cw.ch, mgl32.Vec3{1 + 2/tan, 2 + 0.3/float32(math.Cos(60*math.Pi/180)) + 0.3 + 0.6 - 0.3, 0}, mgl32.QuatIdent()); err != nil {
		t.Fatal(err)
	}
	cw.walk(t, mgl32.Vec3{}, 120)
	t.Logf("60°: at x = %.3f, feet at %.3f m", cw.pos(cw.ch)[0], cw.feet())
	if cw.feet() > 0.2 {
		t.Errorf("60° slope: the feet are still %.3f m up after 2 s, want slid down", cw.feet())
	}
}

// TestCharacterSteps: with StepHeight 0.35 m the character walks up a
// 0.3 m step and stops at a 0.5 m one.
func TestCharacterSteps(t *testing.T) {
	for _, c := range []struct {
		h     float32
		climb bool
	}{{0.3, true}, {0.5, false}} {
		cw := newCharWorld(t, 0, 0)
		sd := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{3, c.h / 2, 3}})
		cw.add(sd, mgl32.Vec3{4, c.h / 2, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		cw.walk(t, mgl32.Vec3{2, 0, 0}, 90)
		x, feet := cw.pos(cw.ch)[0], cw.feet()
		t.Logf("step %.1f m: at x = %.3f, feet at %.3f m", c.h, x, feet)
		up := x > 1.5 && feet > c.h && feet < c.h+0.011
		if up != c.climb {
			t.Errorf("step %.1f m: at x = %.3f, feet at %.3f; want climbed %v", c.h, x, feet, c.climb)
		}
	}
}

// TestCharacterRidesPlatform: standing on a kinematic platform moving at
// 2 m/s, the character moves at 2 m/s with it.
func TestCharacterRidesPlatform(t *testing.T) {
	cw := newCharWorld(t, 0, 5)
	pd := NewBodyDef(Kinematic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{1.5, 0.25, 1.5}})
	platform := cw.add(pd, mgl32.Vec3{0, 1, 0}, mgl32.QuatIdent(), mgl32.Vec3{2, 0, 0}, mgl32.Vec3{})
	if err := cw.s.Teleport(cw.ch, mgl32.Vec3{0, 2.16, 0}, mgl32.QuatIdent()); err != nil {
		t.Fatal(err)
	}
	cw.walk(t, mgl32.Vec3{}, 30)
	c, _ := cw.s.Character(cw.ch)
	if !c.Grounded || c.Ground != platform {
		t.Fatalf("on the platform: grounded %v on %v, want on %v", c.Grounded, c.Ground, platform)
	}
	x0 := cw.pos(cw.ch)[0]
	cw.walk(t, mgl32.Vec3{}, 60)
	if d := cw.pos(cw.ch)[0] - x0; abs(d-2) > 0.01 {
		t.Errorf("riding 1 s: moved %.4f m, want 2 (the platform's 2 m/s)", d)
	}
	c, _ = cw.s.Character(cw.ch)
	if v := c.GroundVelocity; abs(v[0]-2) > 1e-3 {
		t.Errorf("GroundVelocity %v, want (2, 0, 0)", v)
	}
}

// TestCharacterSlidesAlongWall: walking at 45° into a wall, the character
// keeps the part of its walk along the wall and stays Offset from it.
func TestCharacterSlidesAlongWall(t *testing.T) {
	cw := newCharWorld(t, 0, 0)
	wd := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.25, 2, 10}})
	cw.add(wd, mgl32.Vec3{1.55, 2, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	cw.walk(t, mgl32.Vec3{2, 0, 2}, 60)
	p := cw.pos(cw.ch)
	t.Logf("at %v", p)
	if abs(p[0]-(1.3-0.3-0.01)) > 0.005 || abs(p[2]-2) > 0.05 {
		t.Errorf("at %v, want x = 0.99 (against the wall) and z = 2 (the walk along it)", p)
	}
}

// TestCharacterDoesNotTunnel: running at 30 m/s at a 10 cm wall, the
// character stops at it.
func TestCharacterDoesNotTunnel(t *testing.T) {
	cw := newCharWorld(t, 0, 0)
	wd := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.05, 2, 5}})
	cw.add(wd, mgl32.Vec3{3, 2, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	cw.walk(t, mgl32.Vec3{30, 0, 0}, 30)
	if x := cw.pos(cw.ch)[0]; x > 2.95-0.3 {
		t.Errorf("at x = %.3f, want stopped before the wall (x <= 2.65)", x)
	}
}

// TestCharacterSnapsDownSlope: walking down a 20° ramp at 4 m/s, the
// character stays grounded every tick (it follows the ground instead of
// flying off).
func TestCharacterSnapsDownSlope(t *testing.T) {
	cw := newCharWorld(t, 0, 0)
	cw.ramp(20, -10) // from x = −10 up to about x = 1
	if err := cw.s.Teleport(cw.ch, mgl32.Vec3{0, 0.91 + 10*float32(math.Tan(20*math.Pi/180)), 0}, mgl32.QuatIdent()); err != nil {
		t.Fatal(err)
	}
	cw.walk(t, mgl32.Vec3{}, 30)
	airborne := 0
	for range 90 {
		cw.walk(t, mgl32.Vec3{-4, 0, 0}, 1)
		if c, _ := cw.s.Character(cw.ch); !c.Grounded {
			airborne++
		}
	}
	if airborne > 0 {
		t.Errorf("walking down the ramp: %d ticks of 90 off the ground, want 0", airborne)
	}
}

// TestCharacterPushesBoxes: walking into a 10 kg box, the character pushes
// it along; a 10,000 kg box barely moves; nothing pushes the character.
func TestCharacterPushesBoxes(t *testing.T) {
	for _, c := range []struct {
		mass   float32
		pushed bool
	}{{10, true}, {10000, false}} {
		cw := newCharWorld(t, 0, 0)
		bd := NewBodyDef(Dynamic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.4, 0.4, 0.4}})
		bd.Mass = c.mass
		box := cw.add(bd, mgl32.Vec3{1.5, 0.4, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
		cw.walk(t, mgl32.Vec3{2, 0, 0}, 90)
		moved := cw.pos(box)[0] - 1.5
		t.Logf("%v kg box moved %.3f m", c.mass, moved)
		if c.pushed && moved < 1 || !c.pushed && moved > 0.1 {
			t.Errorf("%v kg box moved %.3f m, want pushed %v", c.mass, moved, c.pushed)
		}
	}
}

// TestCharacterRollsBack: a character walking, stepping and pushing,
// saved and loaded mid-walk, moves to the same bits again.
func TestCharacterRollsBack(t *testing.T) {
	cw := newCharWorld(t, 0, 0)
	cw.ramp(30, 3)
	bd := NewBodyDef(Dynamic, unitBox)
	cw.add(bd, mgl32.Vec3{1.5, 0.5, 0.5}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	cw.walk(t, mgl32.Vec3{2, 0, 0.3}, 20)
	var st engine.State
	cw.e.SaveState(&st)
	vy := cw.vy
	cw.walk(t, mgl32.Vec3{2, 0, 0.3}, 60)
	h1 := cw.w.Hash()
	cw.e.LoadState(&st)
	cw.vy = vy
	cw.walk(t, mgl32.Vec3{2, 0, 0.3}, 60)
	if h2 := cw.w.Hash(); h2 != h1 {
		t.Errorf("after LoadState: hash %x, want %x", h2, h1)
	}
}

// TestCharacterMoveNoAllocs: a character's move (sweeps, contacts, a
// step, a push) allocates nothing.
func TestCharacterMoveNoAllocs(t *testing.T) {
	cw := newCharWorld(t, 0, 0)
	cw.ramp(30, 3)
	cw.add(NewBodyDef(Dynamic, unitBox), mgl32.Vec3{1.5, 0.5, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	cw.walk(t, mgl32.Vec3{2, 0, 0}, 30)
	move := func() {
		if _, err := cw.s.MoveCharacter(cw.ch, mgl32.Vec3{2.0 / 60, -0.01, 0}); err != nil {
			t.Fatal(err)
		}
	}
	if a := testing.AllocsPerRun(20, move); a != 0 {
		t.Errorf("%v allocations per move", a)
	}
}

// TestCharacterRefuses: AddCharacter refuses a bad definition and changes
// nothing; MoveCharacter refuses what is not a character and a move that
// is not finite.
func TestCharacterRefuses(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	e := tw.w.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), engine.Interpolate)
	for _, c := range []struct {
		name string
		mod  func(d *CharacterDef)
	}{
		{"no radius", func(d *CharacterDef) { d.Radius = 0 }},
		{"offset as big as the radius", func(d *CharacterDef) { d.Offset = d.Radius }},
		{"vertical max slope", func(d *CharacterDef) { d.MaxSlope = math.Pi / 2 }},
		{"up not unit", func(d *CharacterDef) { d.Up = mgl32.Vec3{0, 2, 0} }},
		{"NaN step", func(d *CharacterDef) { d.StepHeight = float32(math.NaN()) }},
	} {
		d := NewCharacterDef(0.3, 0.6)
		c.mod(&d)
		if err := tw.s.AddCharacter(e, d); err == nil {
			t.Errorf("%s: no error", c.name)
		}
		if tw.s.Bodies().Has(e) {
			t.Fatalf("%s: a body was added", c.name)
		}
	}
	if _, err := tw.s.MoveCharacter(e, mgl32.Vec3{1, 0, 0}); err == nil {
		t.Errorf("MoveCharacter of a plain entity: no error")
	}
	if err := tw.s.AddCharacter(e, NewCharacterDef(0.3, 0.6)); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.s.MoveCharacter(e, mgl32.Vec3{float32(math.Inf(1)), 0, 0}); err == nil {
		t.Errorf("MoveCharacter by infinity: no error")
	}
	if err := tw.s.AddCharacter(e, NewCharacterDef(0.3, 0.6)); err == nil {
		t.Errorf("AddCharacter twice: no error")
	}
}

// TestCharacterStopsWithoutMoves: a character that walked at 8 m/s and is
// then given no move (the game paused its controls) stays where it is,
// and does not coast through the wall ahead.
func TestCharacterStopsWithoutMoves(t *testing.T) {
	cw := newCharWorld(t, 0, 0)
	wd := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.05, 2, 5}})
	cw.add(wd, mgl32.Vec3{1.5, 2, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	cw.walk(t, mgl32.Vec3{8, 0, 0}, 3)
	x := cw.pos(cw.ch)[0]
	cw.steps(60)
	if got := cw.pos(cw.ch)[0]; got != x {
		t.Errorf("without moves the character went from x = %.3f to %.3f", x, got)
	}
}

// TestCharacterOnMovingPlatforms: on a platform rising at 1.5 m/s the
// character is grounded every tick (the ground under it is measured where
// it was at the start of the tick); on a turntable turning at 1 rad/s it
// stays at its distance from the axis (a straight step along the
// platform's velocity at its feet would carry it outwards).
func TestCharacterOnMovingPlatforms(t *testing.T) {
	cw := newCharWorld(t, 0, 5)
	pd := NewBodyDef(Kinematic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{1.5, 0.25, 1.5}})
	cw.add(pd, mgl32.Vec3{0, 1, 0}, mgl32.QuatIdent(), mgl32.Vec3{0, 1.5, 0}, mgl32.Vec3{})
	if err := cw.s.Teleport(cw.ch, mgl32.Vec3{0, 2.16, 0}, mgl32.QuatIdent()); err != nil {
		t.Fatal(err)
	}
	cw.walk(t, mgl32.Vec3{}, 10)
	air := 0
	for range 60 {
		cw.walk(t, mgl32.Vec3{}, 1)
		if c, _ := cw.s.Character(cw.ch); !c.Grounded {
			air++
		}
	}
	if air > 0 {
		t.Errorf("on a platform rising at 1.5 m/s: %d ticks of 60 not grounded", air)
	}

	cw = newCharWorld(t, 0, 8)
	td := NewBodyDef(Kinematic, Shape{Kind: Box, HalfExtents: mgl32.Vec3{4, 0.25, 4}})
	cw.add(td, mgl32.Vec3{0, 0.25, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{0, 1, 0})
	if err := cw.s.Teleport(cw.ch, mgl32.Vec3{2, 1.41, 0}, mgl32.QuatIdent()); err != nil {
		t.Fatal(err)
	}
	cw.walk(t, mgl32.Vec3{}, 600)
	p := cw.pos(cw.ch)
	r := mgl32.Vec2{p[0], p[2]}.Len()
	t.Logf("after 10 s on the turntable: at %v, %.4f m from the axis", p, r)
	if abs(r-2) > 0.02 {
		t.Errorf("after 10 s on a turntable at 1 rad/s the character is %.4f m from the axis, want 2", r)
	}
}

// TestCharacterFenceIsNoStep: a fence as high as a step (0.3 m) but 2 cm
// thick has no top to stand on: the character stops at it.
func TestCharacterFenceIsNoStep(t *testing.T) {
	cw := newCharWorld(t, 0, 0)
	fd := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{0.01, 0.15, 3}})
	cw.add(fd, mgl32.Vec3{1.5, 0.15, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	cw.walk(t, mgl32.Vec3{2, 0, 0}, 90)
	if x := cw.pos(cw.ch)[0]; x > 1.5 {
		t.Errorf("the character is at x = %.3f, over the fence at 1.5", x)
	}
}

// TestCharacterHitsCeiling: jumping at 5 m/s under a ceiling 0.5 m above
// its head, the character's move reports OnCeiling.
func TestCharacterHitsCeiling(t *testing.T) {
	cw := newCharWorld(t, 0, 0)
	cd := NewBodyDef(Static, Shape{Kind: Box, HalfExtents: mgl32.Vec3{3, 0.1, 3}})
	cw.add(cd, mgl32.Vec3{0, 1.8 + 0.5 + 0.1, 0}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	cw.walk(t, mgl32.Vec3{}, 10)
	cw.vy = 5
	hit := false
	for range 30 {
		if _, err := cw.s.MoveCharacter(cw.ch, mgl32.Vec3{0, cw.vy / 60, 0}); err != nil {
			t.Fatal(err)
		}
		cw.s.Step()
		if c, _ := cw.s.Character(cw.ch); c.OnCeiling {
			hit = true
			break
		}
		cw.vy -= 9.81 / 60
	}
	if !hit {
		t.Errorf("jumping into a ceiling: OnCeiling never set")
	}
	if head := cw.pos(cw.ch)[1] + 0.9; head > 2.3 {
		t.Errorf("the head is at %.3f, through the ceiling at 2.3", head)
	}
}

// TestCharacterMovesAreLogged: with the query log on, a character's move
// leaves its sweeps in it (the debug view draws them).
func TestCharacterMovesAreLogged(t *testing.T) {
	cw := newCharWorld(t, 0, 0)
	cw.walk(t, mgl32.Vec3{}, 10)
	cw.s.SetQueryLog(true)
	if _, err := cw.s.MoveCharacter(cw.ch, mgl32.Vec3{0.05, -0.01, 0}); err != nil {
		t.Fatal(err)
	}
	sweeps := 0
	for _, r := range cw.s.QueryLog() {
		if r.Kind == QuerySweep {
			sweeps++
		}
	}
	if sweeps == 0 {
		t.Errorf("a character's move left no sweep in the query log")
	}
}
