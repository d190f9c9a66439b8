package gameserver_test

import (
	"fmt"
	"os"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/geom"
	"github.com/nebulaengine/nebula/internal/gameserver"
)

// A game registers itself with a server of its own: its scene id and the
// set-up of its world. Here the command line asks for more players than
// the match holds, which is refused before anything starts.
func ExampleMain() {
	game := gameserver.Game{
		Scene: "mygame",
		Setup: func(e *engine.Engine) error {
			e.World.Spawn(geom.NewTransform(mgl32.Vec3{0, 1, 0}), engine.Interpolate) // the game's world and systems
			return nil
		},
	}
	env := func(string) (string, bool) { return "", false } // os.LookupEnv in a real main
	code := gameserver.Main(gameserver.Program{Name: "mygame-server", Game: game},
		[]string{"-players", "9", "-max-players", "8"}, env, os.Stdout, os.Stdout)
	fmt.Println("exit status", code)
	// Output:
	// mygame-server: -players 9: must be from 1 to -max-players (8)
	// exit status 2
}
