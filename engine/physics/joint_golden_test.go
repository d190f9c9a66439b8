package physics

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// jointGoldenHash pins the state after jointGoldenSteps of joint-types,
// the four pendulums and a 20-link chain (every joint kind, limits,
// motors, ropes, springs and the position projection), with a ball
// dropped across the chain. scripts/crossarch.sh and the GOARCH=386 /
// GOAMD64=v3 runs must give the same.
const jointGoldenHash uint64 = 0x1d7d2b38017a906f

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
	evh := uint64(0xcbf29ce484222325)
	for range jointGoldenSteps {
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
