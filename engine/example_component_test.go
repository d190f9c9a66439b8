package engine_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// Score is a game's own state for the whole world: a resource.
type Score struct {
	Points uint32
	Best   uint32
}

// A game keeps its own state in the world: per-entity data as components,
// game-wide data as resources. Fixed systems change them; snapshots, the
// state hash, replays and rollback cover them with no more code.
func ExampleNewComponent() {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		panic(err)
	}
	w := e.World
	health := engine.NewComponent[int32](w, "health")
	regen := engine.NewComponent[int32](w, "regen")
	score := engine.NewResource(w, "score", Score{})

	for i := range 3 {
		ent := w.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0, 0}), engine.Interpolate)
		health.Set(ent, 50)
		regen.Set(ent, int32(i+1))
	}
	// The fast path for systems over many entities: the storage itself,
	// indexed by slot.
	e.AddSystem(engine.StageScripts, "regenerate", func(c *engine.FixedContext) {
		hp, has := health.Slices()
		rg, _ := regen.Slices()
		for i, ok := range has {
			if ok {
				hp[i] = min(hp[i]+rg[i], 100)
			}
		}
	})
	e.AddSystem(engine.StageScripts, "score", func(c *engine.FixedContext) {
		s := score.Ptr()
		for _, hp := range health.All() {
			if hp == 100 {
				s.Points++
			}
		}
		s.Best = max(s.Best, s.Points)
	})

	snap := e.Snapshot() // components and resources included
	for range 30 {
		e.StepTick(0)
	}
	for ent, hp := range health.All() {
		fmt.Println(ent, hp)
	}
	fmt.Printf("%+v\n", score.Get())
	after := e.World.Hash()

	if err := e.Restore(snap); err != nil {
		panic(err)
	}
	for range 30 {
		e.StepTick(0)
	}
	fmt.Println("same hash after restoring and running again:", e.World.Hash() == after)
	// Output:
	// 0:1 80
	// 1:1 100
	// 2:1 100
	// {Points:20 Best:20}
	// same hash after restoring and running again: true
}
