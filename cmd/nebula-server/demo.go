package main

import (
	"flag"
	"time"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/internal/cli"
	"github.com/nebulaengine/nebula/internal/gameserver"
)

// demoGame is the demo's game (cmd/nebula-demo's scene) as the server
// hosts it: the demo's flags that its world depends on, with the demo's
// defaults and names, so that nebula-demo -connect takes them from the
// server.
func demoGame() gameserver.Game {
	var (
		entities int
		physics  bool
		panicAt  uint64
	)
	return gameserver.Game{
		Scene: scene.ID,
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&entities, "entities", 1000, "bouncing bodies in the demo's scene (cubes, every 4th a sphere)")
			fs.BoolVar(&physics, "physics", false, "the demo's rigid-body physics mode (nebula-demo -physics)")
			fs.Uint64Var(&panicAt, "panic-at-tick", 0, "debug: make a fixed system panic at this tick, to test a failed match (0 = off)")
		},
		CheckOptions: func(*cli.Options) error {
			if entities < 0 || entities > scene.MaxEntities {
				return cli.Usagef("-entities %d: must be from 0 to %d", entities, scene.MaxEntities)
			}
			return nil
		},
		// The demo's actions, as nebula-demo declares them: the bots'
		// scripts press keys, and their input carries the actions bound
		// to them.
		Actions: scene.Actions,
		Params:  []string{"entities", "panic-at-tick", "physics"},
		Setup: func(e *engine.Engine) error {
			var sc *scene.Scene
			if physics {
				var err error
				if sc, err = scene.SetupPhysics(e, entities); err != nil {
					return err
				}
			} else {
				sc = scene.Setup(e, entities)
			}
			sc.PanicAt = panicAt
			return nil
		},
		Script: func(p engine.PlayerID) func(uint64, time.Duration, *input.Queue) {
			if physics {
				return scene.PhysicsPlayerScript(p)
			}
			return scene.PlayerScript(p)
		},
	}
}
