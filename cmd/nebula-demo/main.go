// Command nebula-demo runs Nebula's demo scene in a window: a thousand
// cubes bouncing in a box at a fixed 60 Hz tick, drawn interpolated at up
// to 144 frames per second. Keys: arrows steer the green cube, Space
// recolours it, Esc quits, F12 saves a screenshot, P pauses, I toggles
// interpolation, [ and ] halve and double the tick rate, T toggles a 10 Hz
// tick, V toggles vsync, F3 toggles the diagnostics overlay.
//
// With -headless it needs no window and no GL: a simulated display drives
// the loop as fast as the CPU allows, and the player's input comes from a
// script keyed by tick, so the run is a pure function of its flags:
//
//	nebula-demo -headless -ticks 3600 -print-hash
//
// prints the same "state-hash 3600 <hash>" whatever -display-hz and
// -jitter say. Run nebula-demo -h for every flag.
package main

import (
	"io"
	"os"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/internal/app"
)

const program = "nebula-demo"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the whole program; it returns the exit status: 0 success, 2 bad
// usage, 1 any other failure (reported in one line on stderr). Flags,
// logging, profiling and the -stats file are set up by package app, which
// nebula-minimal shares.
func run(args []string, stdout, stderr io.Writer) int {
	return app.Main(program, args, stdout, stderr, runDemo)
}

func runDemo(s *app.Session) error {
	opts := s.Opts
	e, err := engine.New(s.EngineConfig())
	if err != nil {
		return err
	}
	scene.Setup(e, opts.Entities)

	s.Log.WithField("entities", e.World.Len()).Info(opts.Summary())
	if opts.Headless {
		// The player's input comes from the script: the run is a pure
		// function of the flags.
		e.SetInputScript(scene.Script)
		return s.RunHeadless(e)
	}
	return runWindowed(s, e)
}
