package engine_test

import (
	"github.com/nebulaengine/nebula/engine/geom"

	"bytes"
	"fmt"
	"os"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
)

// A world's state dump: one value per line, each named by its key, floats
// in decimal and in exact bits. The second entity was despawned; its slot
// is dumped with the values it left, which the state hash covers.
func ExampleWorld_WriteDump() {
	w := engine.NewWorld(1)
	bounces := engine.NewComponent[int32](w, "bounces")
	score := engine.NewResource(w, "score", int64(0))
	ball := w.Spawn(geom.NewTransform(mgl32.Vec3{1.5, -2, 0.25}), engine.Hermite)
	spark := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), engine.NoInterpolation)

	w.BeginTick(1)
	w.SetDrawVelocity(ball, mgl32.Vec3{3, 0, 0}, mgl32.Vec3{})
	w.SetColor(ball, [4]uint8{255, 128, 0, 255})
	bounces.Set(ball, 2)
	score.Set(40)
	w.Despawn(spark)

	if err := w.WriteDump(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// nebula state dump 1
	// tick = 1
	// hash = 96f14df2ec45fd20
	// rng state = 725ae23ed14fec5f
	// rng inc = 14057b7ef767814f
	// slots = 2
	// live = 1
	// free list length = 1
	// free 0 = 1
	// schema fingerprint = 9d95ad76d361740a
	// players = 0
	// entity 0:1 = alive
	// entity 0:1 pos = 1.5 -2 0.25 [3fc00000 c0000000 3e800000]
	// entity 0:1 rot = 1 0 0 0 [3f800000 00000000 00000000 00000000]
	// entity 0:1 scale = 1 1 1 [3f800000 3f800000 3f800000]
	// entity 0:1 vel = 3 0 0 [40400000 00000000 00000000]
	// entity 0:1 angvel = 0 0 0 [00000000 00000000 00000000]
	// entity 0:1 mode = hermite
	// entity 0:1 colour = 255 128 0 255
	// entity 0:1 mesh = 0
	// entity 0:1 teleport = false
	// entity 0:1 prev pos (not hashed) = 1.5 -2 0.25 [3fc00000 c0000000 3e800000]
	// entity 0:1 prev rot (not hashed) = 1 0 0 0 [3f800000 00000000 00000000 00000000]
	// entity 0:1 prev scale (not hashed) = 1 1 1 [3f800000 3f800000 3f800000]
	// entity 0:1 prev vel (not hashed) = 0 0 0 [00000000 00000000 00000000]
	// entity 1:2 = dead
	// entity 1:2 pos = 0 1 0 [00000000 3f800000 00000000]
	// entity 1:2 rot = 1 0 0 0 [3f800000 00000000 00000000 00000000]
	// entity 1:2 scale = 1 1 1 [3f800000 3f800000 3f800000]
	// entity 1:2 vel = 0 0 0 [00000000 00000000 00000000]
	// entity 1:2 angvel = 0 0 0 [00000000 00000000 00000000]
	// entity 1:2 mode = none
	// entity 1:2 colour = 255 255 255 255
	// entity 1:2 mesh = 0
	// entity 1:2 teleport = false
	// entity 1:2 prev pos (not hashed) = 0 1 0 [00000000 3f800000 00000000]
	// entity 1:2 prev rot (not hashed) = 1 0 0 0 [3f800000 00000000 00000000 00000000]
	// entity 1:2 prev scale (not hashed) = 1 1 1 [3f800000 3f800000 3f800000]
	// entity 1:2 prev vel (not hashed) = 0 0 0 [00000000 00000000 00000000]
	// component "bounces" type = int32, 4 bytes, shape a0b95f284c252e17
	// component "bounces" count = 1
	// component "bounces" 0:1 = 2 [02000000]
	// resource "score" type = int64, 8 bytes, shape d21baa4b62e6a533
	// resource "score" = 40 [2800000000000000]
	// end
}

// Two dumps of a tick whose hashes differ, compared for a log message.
func ExampleDiffDumps() {
	dump := func(bounces int32) []byte {
		w := engine.NewWorld(1)
		b := engine.NewComponent[int32](w, "bounces")
		ball := w.Spawn(geom.NewTransform(mgl32.Vec3{}), engine.Interpolate)
		b.Set(ball, bounces)
		var buf bytes.Buffer
		if err := w.WriteDump(&buf); err != nil {
			panic(err)
		}
		return buf.Bytes()
	}
	for _, line := range engine.DiffDumps(dump(2), dump(3), 10) {
		fmt.Println(line)
	}
	// Output:
	// - hash = 5ca11f1d18444e04
	// + hash = f8428a16b7940cff
	// - component "bounces" 0:1 = 2 [02000000]
	// + component "bounces" 0:1 = 3 [03000000]
}
