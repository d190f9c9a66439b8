package scene

import (
	"testing"

	"github.com/nebulaengine/nebula/engine"
)

// physicsGoldenHash is the state hash of the physics mode (SetupPhysics,
// 200 bodies, seed 1, 60 Hz, the physics script firing) after 600 ticks:
// the same on amd64 (v1 and v3), arm64 and 386 (scripts/crossarch.sh runs
// this test on each). A change that alters the physics changes it; update
// it on purpose once every architecture agrees, and say why in the commit.
const physicsGoldenHash = 0x1f068582ac807e13 // since the scene's sound state (component "sound.loop", resource "sound.music") is in the world

// newPhysics returns the physics mode with bodies bodies, player 0
// played by its script, as the demo's headless runs have it.
func newPhysics(t *testing.T, bodies int) (*engine.Engine, *Scene) {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s, err := SetupPhysics(e, bodies)
	if err != nil {
		t.Fatal(err)
	}
	e.Input.SetActions(NewActions()) // as the demo's runs have them: Space jumps
	e.SetInputScript(PhysicsPlayerScript(0))
	return e, s
}

// runPhysics runs the physics mode headless for ticks and returns its
// engine and scene.
func runPhysics(t *testing.T, bodies int, ticks uint64) (*engine.Engine, *Scene) {
	t.Helper()
	e, s := newPhysics(t, bodies)
	if _, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 144, Ticks: ticks}); err != nil {
		t.Fatal(err)
	}
	return e, s
}

// TestPhysicsGoldenHash: the physics mode's hash after 10 s is pinned, the
// same on every architecture; on the way the player fired its shots, the
// bodies landed in the arena and stayed in it.
func TestPhysicsGoldenHash(t *testing.T) {
	e, s := runPhysics(t, 200, 600)
	if h := e.World.Hash(); h != physicsGoldenHash {
		t.Errorf("hash after 600 ticks %016x, want %016x", h, uint64(physicsGoldenHash))
	}
	if n := s.Shots.Len(); n != min(600/FireEvery, MaxShots) { // one every FireEvery ticks from tick FireEvery
		t.Errorf("%d shots in the arena, want %d", n, min(600/FireEvery, MaxShots))
	}
	b := e.World.Bodies()
	for _, i := range s.TouchCount.Indices() {
		p := b.Pos[i]
		if p[1] < -Box[1] || p[1] > Box[1]+10 || p[0] < -Box[0]-1 || p[0] > Box[0]+1 || p[2] < -Box[2]-1 || p[2] > Box[2]+1 {
			t.Errorf("body in slot %d at %v: out of the arena", i, p)
		}
	}
	if st := s.Space.Stats(); st.Awake == st.Bodies {
		t.Errorf("no body asleep after 10 s: %+v", st)
	}
}

// TestPhysicsRunsRepeat: two runs of the physics mode end with the same
// hash, and one without the player's input with another.
func TestPhysicsRunsRepeat(t *testing.T) {
	a, _ := runPhysics(t, 100, 300)
	b, _ := runPhysics(t, 100, 300)
	if a.World.Hash() != b.World.Hash() {
		t.Errorf("two runs: %016x and %016x", a.World.Hash(), b.World.Hash())
	}
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SetupPhysics(e, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 144, Ticks: 300}); err != nil {
		t.Fatal(err)
	}
	if e.World.Hash() == a.World.Hash() {
		t.Error("a run without the player's shots has the same hash")
	}
}
