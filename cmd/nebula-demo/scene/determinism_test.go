package scene

import (
	"fmt"
	"testing"

	"github.com/nebulaengine/nebula/engine"
)

// goldenHash is the state hash of the default scene (1,000 cubes, seed 1,
// 60 Hz) after 3,600 ticks. A change that alters the simulation changes it;
// update it on purpose, and say why in the commit.
const goldenHash = 0x324edb1004b83d42 // the planner job (engine.Jobs) joined the scene

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
