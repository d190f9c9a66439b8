package physics

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
)

// jointGoldenHash pins the state after jointGoldenSteps of joint-types,
// the four pendulums and a 20-link chain (every joint kind, limits,
// motors, ropes, springs and the position projection), with a ball
// dropped across the chain, and a character walking up a ramp, pushing a
// box and climbing a step. scripts/crossarch.sh and the GOARCH=386 /
// GOAMD64=v3 runs must give the same.
const jointGoldenHash uint64 = 0x62977384e6e696c7

const jointGoldenSteps = 300

// TestJointGoldenHash steps the joints' scene and compares the world's
// hash, with the step's contact events, with jointGoldenHash.
func TestJointGoldenHash(t *testing.T) {
	tw := newTestWorld(t, DefaultConfig())
	jointTypesScene(tw)
	pendulumScene(tw)
	chainScene(tw, 20, 0)
	bd := NewBodyDef(Dynamic, Shape{Kind: Sphere, Radius: 0.3})
	tw.add(bd, mgl32.Vec3{4, 30, 0.05}, mgl32.QuatIdent(), mgl32.Vec3{}, mgl32.Vec3{})
	// The character's course, beside joint-types (z = 8): a box to push,
	// a step, and a ramp at 30° (a rotation exact in float32 is not
	// needed: the same bits go in everywhere).
	course := func(half, pos mgl32.Vec3, rot mgl32.Quat, k Kind) {
		tw.add(NewBodyDef(k, Shape{Kind: Box, HalfExtents: half}), pos, rot, mgl32.Vec3{}, mgl32.Vec3{})
	}
	course(mgl32.Vec3{20, 0.5, 3}, mgl32.Vec3{0, -0.5, 8}, mgl32.QuatIdent(), Static)
	course(mgl32.Vec3{0.3, 0.3, 0.3}, mgl32.Vec3{-6, 0.3, 8.2}, mgl32.QuatIdent(), Dynamic)
	course(mgl32.Vec3{1, 0.15, 3}, mgl32.Vec3{-2, 0.15, 8}, mgl32.QuatIdent(), Static)
	course(mgl32.Vec3{3, 0.5, 3}, mgl32.Vec3{3, -0.2, 8}, mgl32.Quat{W: 0.9659258, V: mgl32.Vec3{0, 0, 0.25881904}}, Static)
	ch := tw.w.Spawn(geom.NewTransform(mgl32.Vec3{-8, 0.91, 8}), engine.Interpolate)
	if err := tw.s.AddCharacter(ch, NewCharacterDef(0.3, 0.6)); err != nil {
		t.Fatal(err)
	}
	var vy float32
	evh := uint64(0xcbf29ce484222325)
	for range jointGoldenSteps {
		if c, _ := tw.s.Character(ch); c.Grounded && vy < 0 {
			vy = 0
		}
		vy -= float32(9.81 / 60)
		if _, err := tw.s.MoveCharacter(ch, mgl32.Vec3{float32(2.0 / 60), float32(vy / 60), 0}); err != nil {
			t.Fatal(err)
		}
		tw.s.Step()
		evh = eventsHash(evh, tw.s.Events())
	}
	got := tw.w.Hash() ^ evh
	t.Logf("after %d steps: hash %016x, stats %+v", jointGoldenSteps, got, tw.s.Stats())
	if got != jointGoldenHash {
		t.Errorf("state hash after %d steps %016x, want %016x: if the step's results were meant to change, "+
			"pin the new hash once scripts/crossarch.sh shows it is the same on every architecture", jointGoldenSteps, got, jointGoldenHash)
	}
}
