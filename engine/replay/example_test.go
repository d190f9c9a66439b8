package replay_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"bytes"
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/replay"
)

// newGame sets up the same game for the recording and for the replay.
func newGame() *engine.Engine {
	e, _ := engine.New(engine.DefaultConfig())
	for i := range 10 {
		id := e.World.Spawn(geom.NewTransform(mgl32.Vec3{float32(i), 0, 0}), engine.Interpolate)
		e.World.SetDrawVelocity(id, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{})
	}
	e.AddSystem(engine.StageScripts, "move", func(c *engine.FixedContext) {
		b := c.World.Bodies()
		for i := range c.World.Slots() {
			b.Pos[i][0] = float32(b.Vel[i][0]*c.DT) + b.Pos[i][0]
		}
	})
	return e
}

// Record a run, then verify it: replay it as fast as possible and compare
// every stored state hash.
func Example() {
	e := newGame()
	var file bytes.Buffer
	rec, err := replay.NewRecorder(&file, replay.Header{Scene: "example", TickRate: 60, Seed: 1, HashEvery: replay.DefaultHashEvery})
	if err != nil {
		panic(err)
	}
	e.AddTickHook(rec)
	if _, err := engine.RunHeadless(e, engine.HeadlessConfig{DisplayHz: 144, Ticks: 600}); err != nil {
		panic(err)
	}
	if err := rec.Close(e.World.Hash()); err != nil {
		panic(err)
	}

	r, err := replay.Open(file.Bytes()) // checks every chunk first
	if err != nil {
		panic(err)
	}
	res, err := replay.Verify(newGame(), r)
	fmt.Println(res.Ticks, res.Hashes, err)
	// Output: 600 11 <nil>
}
