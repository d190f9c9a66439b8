package engine_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
)

// A turret rides a tank: its transform is local to the tank, and the world
// transform follows the tank. A cycle is refused; despawning the tank
// despawns the turret.
func ExampleWorld_SetParent() {
	w := engine.NewWorld(1)
	tank := w.Spawn(geom.NewTransform(mgl32.Vec3{10, 0, 0}), engine.Interpolate)
	turret := w.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), engine.Interpolate)
	if err := w.SetParent(turret, tank, engine.KeepLocal); err != nil {
		fmt.Println(err)
	}
	t := w.Transform(tank)
	t.Pos[0] = 12
	w.SetTransform(tank, t)
	w.PropagateTransforms() // the engine does it at the end of every tick
	fmt.Println("turret local", w.Transform(turret).Pos, "world", w.WorldTransform(turret).Pos)
	fmt.Println(w.SetParent(tank, turret, engine.KeepWorld))
	w.Despawn(tank)
	fmt.Println("turret alive:", w.Alive(turret))
	// Output:
	// turret local [0 1 0] world [12 1 0]
	// engine: SetParent(0:1, 1:1): 1:1 is a descendant of 0:1, so the hierarchy would have a cycle
	// turret alive: false
}
