package scene

import (
	"fmt"
	"math"
	"testing"

	"github.com/nebulaengine/nebula/engine"
)

// goldenHash is the state hash of the default scene (1,000 cubes, seed 1,
// 60 Hz) after 3,600 ticks. A change that alters the simulation changes it;
// update it on purpose, and say why in the commit.
const goldenHash = 0x46e42ca34f265644 // the hash covers the players in the match (player 0, from tick 1), component "owner", the meshes, the walking figure (components "figure" and "animator") and the sound's state (component "sound.loop", resource "sound.music")

// runScene runs the scene headless to ticks on the given display and returns
// the world's tick and hash.
func runScene(t testing.TB, display engine.HeadlessConfig, ticks uint64) (uint64, uint64) {
	t.Helper()
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	Setup(e, 1000)
	e.SetInputScript(Script)
	display.Ticks = ticks
	if _, err := engine.RunHeadless(e, display); err != nil {
		t.Fatal(err)
	}
	return e.World.Tick(), e.World.Hash()
}

func TestSameHashOnEveryDisplay(t *testing.T) {
	displays := []engine.HeadlessConfig{
		{DisplayHz: 30},
		{DisplayHz: 60},
		{DisplayHz: 144},
		{DisplayHz: 240},
		{DisplayHz: 144, Jitter: 0.5, JitterSeed: 7},
		{DisplayHz: 60, Jitter: 0.9, JitterSeed: 99},
		{DisplayHz: 17, Jitter: 0.3, JitterSeed: 3}, // several ticks a frame
		{DisplayHz: 144, Draw: true},                // drawing does not touch the simulation
	}
	for _, d := range displays {
		t.Run(fmt.Sprintf("%vHz-jitter%v-draw%v", d.DisplayHz, d.Jitter, d.Draw), func(t *testing.T) {
			tick, hash := runScene(t, d, 3600)
			if tick != 3600 || hash != goldenHash {
				t.Errorf("tick %d hash %016x, want tick 3600 hash %016x", tick, hash, uint64(goldenHash))
			}
		})
	}
}

// TestInputChangesTheHash guards the test above against a hash that
// ignores the world: a run without the input script must differ.
func TestInputChangesTheHash(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	Setup(e, 1000)
	if _, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 144, Ticks: 3600}); err != nil {
		t.Fatal(err)
	}
	if e.World.Hash() == goldenHash {
		t.Error("the hash without player input equals the hash with it")
	}
}

func TestTeleporterSnaps(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	Setup(e, 10)
	if _, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 144, Ticks: 600, Draw: true}); err != nil {
		t.Fatal(err)
	}
	// One jump every 2 s for 10 s, each drawn as a snap on exactly one
	// frame (the frame after its tick).
	if got := e.Render.TotalSnaps; got != 5 {
		t.Errorf("%d teleport snaps in 10 s, want 5", got)
	}
}

// The orbiter keeps to its circle and moves OrbitSpeed*dt a tick, also
// across a change of tick rate (the demo's [, ] and T keys): no jump along
// the orbit that interpolation would then swoop across.
func TestOrbiterIsSmoothAcrossTickRates(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s := Setup(e, 0)
	angle := func() float64 {
		p := e.World.Transform(s.Orbiter).Pos
		if r := math.Hypot(float64(p[0]), float64(p[2])); math.Abs(r-OrbitRadius) > 1e-4 {
			t.Fatalf("tick %d: the orbiter is %v from the centre, want %v", e.World.Tick(), r, OrbitRadius)
		}
		return math.Atan2(float64(p[2]), float64(p[0]))
	}
	for _, rate := range []int{60, 10, 120, 60} {
		if err := e.Loop.SetTickRate(rate); err != nil {
			t.Fatal(err)
		}
		for range 50 {
			before := angle()
			if !e.StepTick(0) {
				t.Fatal(e.Err())
			}
			step := math.Remainder(angle()-before, 2*math.Pi)
			if want := OrbitSpeed / float64(rate); math.Abs(step-want) > 1e-5 {
				t.Fatalf("at %d Hz, tick %d moved the orbiter %.6f rad, want %.6f", rate, e.World.Tick(), step, want)
			}
		}
	}
}

// The scene's own state (components and resource) is counted exactly:
// the same figures on every display, and they change the hash.
func TestSceneKeepsItsStateInTheWorld(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s := Setup(e, 1000)
	e.SetInputScript(Script)
	if _, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 60, Jitter: 0.5, JitterSeed: 5, Ticks: 3600}); err != nil {
		t.Fatal(err)
	}
	var bounces, cubes uint64
	for _, n := range s.Bounces.All() {
		bounces += uint64(n)
		cubes++
	}
	if got, want := s.Score.Get(), (Score{Points: 114}); got != want || bounces != 18358 || cubes != 1000 {
		t.Errorf("after 3600 ticks: score %+v, %d bounces of %d cubes; want %+v, 18358 bounces of 1000 cubes", got, bounces, cubes, want)
	}
	if left, ok := s.Countdown.Get(s.Teleporter); !ok || left != 120 {
		t.Errorf("teleporter countdown %d (%v) just after a jump at tick 3600, want 120", left, ok)
	}
	h := e.World.Hash()
	s.Score.Ptr().Points++
	if e.World.Hash() == h {
		t.Error("the score does not change the hash")
	}
}
