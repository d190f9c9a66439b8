// Command nebula-server is Nebula's dedicated game server: one match of
// the demo's game (package cmd/nebula-demo/scene) per process, pure Go
// (CGO_ENABLED=0 builds a static binary: no GL, no GLFW), for an operator
// to run many of, under Agones or anything else that starts processes.
//
//	nebula-server -players 2 -ticks 3600 -ops 127.0.0.1:9090
//	nebula-demo -connect 127.0.0.1:7777          # a player, in a window
//	nebula-server bot -connect 127.0.0.1:7777 -n 2 # or two headless ones
//
// With -key FILE only players with a connect token of the match join, and
// their traffic is sealed; nebula-server token mints one (and -new-key
// makes the key):
//
//	nebula-server token -new-key match.key
//	nebula-server -key match.key -match m-42 -players 2
//	nebula-server token -key match.key -match m-42 -seat 0 > p0.json
//
// Every flag is also an environment variable (NEBULA_PLAYERS=2); the
// flags, the exit statuses (0 the match ended or SIGTERM ended it, 1 it
// failed, 2 bad usage, 3 a port could not be opened), the log and the
// operator port's /healthz and /metrics are package gameserver's, and
// docs/server.md tells an operator the lot. The demo's own flags:
// -entities, -physics and -panic-at-tick, sent to every client as
// nebula-demo -serve sends them.
package main

import (
	"os"

	"github.com/nebulaengine/nebula/internal/gameserver"
)

const program = "nebula-server"

func main() {
	os.Exit(gameserver.Main(serverProgram(), os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr))
}

// serverProgram is the program: the demo's game and the server's extensions.
func serverProgram() gameserver.Program {
	return gameserver.Program{
		Name: program,
		Game: demoGame(),
		// In this order: at the match's end the log is closed (durable)
		// before Agones is told to shut the server down.
		Extensions: []gameserver.Extension{
			logExtension(),
			agonesExtension(os.Getenv),
		},
	}
}
