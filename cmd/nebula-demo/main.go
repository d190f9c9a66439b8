// Command nebula-demo runs Nebula's demo scene in a window: a thousand
// cubes bouncing in a box at a fixed 60 Hz tick, drawn interpolated at up
// to 144 frames per second. Keys: arrows or WASD steer the green cube,
// Space recolours it (with -physics the player is a character, and Space
// jumps), Esc quits, F12 saves a screenshot, P pauses, I toggles
// interpolation, [ and ] halve and double the tick rate, T toggles a 10 Hz
// tick, V toggles vsync, F3 toggles the diagnostics overlay, F4 toggles
// the physics debug drawing (-physics; -physics-debug shows it from the
// start), F5 saves a snapshot of the simulation and F9 loads it, M mutes
// the sound and - and = lower and raise its volume (-mute starts muted,
// -music file streams a WAV or Ogg file as the music). A gamepad
// steers the cube too, through the actions move-x, move-z, recolour and
// jump (left stick or d-pad, X, A); -bindings file rebinds them (the input
// package's bindings format), -gamepad-mappings file adds controllers in
// the SDL format.
//
// Every run is recorded (package engine/replay): -record file keeps the
// recording, and a panic in a system leaves a crash replay in -crash-dir.
// -replay file plays one back in the window; with -headless -verify it
// replays as fast as possible and checks every stored state hash:
//
//	nebula-demo -headless -ticks 3600 -record r.rep
//	nebula-demo -replay r.rep -headless -verify      # "replay ok 3600"
//
// The demo's own flags, defined in this package beside the common ones:
// -entities N sets the number of bouncing bodies (default 1000); -panic-at-tick N
// (debug) makes a fixed system panic at tick N, to test crash capture. The
// recording carries both, so a replay has the same cubes and panics there
// too.
//
// With -headless it needs no window and no GL: a simulated display drives
// the loop as fast as the CPU allows, and the player's input comes from a
// script keyed by tick, so the run is a pure function of its flags:
//
//	nebula-demo -headless -ticks 3600 -print-hash
//
// prints the same "state-hash 3600 <hash>" whatever -display-hz and
// -jitter say, and -sound-wav file renders the run's sound to a WAV file,
// the same bytes whatever they say. Run nebula-demo -h for every flag. A flag that means nothing
// in the chosen mode (-width with -headless, -ticks without it, -stats with
// -verify, ...) is refused with status 2 and the reason (package cli).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/internal/app"
	"github.com/nebulaengine/nebula/internal/cli"
)

const program = "nebula-demo"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// maxEntities is the largest -entities: what the scene's parameters carry.
const maxEntities = scene.MaxEntities

// flags are the demo's own flags, beside the common ones (package cli).
type flags struct {
	entities    int    // -entities: bouncing bodies in the scene
	physics     bool   // -physics: rigid bodies (scene.SetupPhysics) in place of the scripted bouncing
	mappings    string // -gamepad-mappings: an SDL_GameControllerDB file
	panicAtTick uint64 // -panic-at-tick (debug): a fixed system panics at that tick; 0 is off
	// desyncAtTick (debug, a networked client): a fixed system adds a
	// point to the score at that tick, so that the client's state differs from the
	// server's; 0 is off.
	desyncAtTick uint64
	// nondetAtTick (debug): from that tick on, a fixed system adds the
	// wall clock to the score, which -synctest catches; 0 is off.
	nondetAtTick uint64
	// physicsDebug (-physics-debug): the physics debug drawing shown from
	// the start (F4 toggles it).
	physicsDebug bool
	// shadows (-shadows, on unless -shadows=false): the directional
	// light's shadows.
	shadows bool
	// gpuInterp (-gpu-interpolation): the entities placed between ticks
	// on the GPU (desktop.Config.InterpolateOnGPU).
	gpuInterp bool
	// mute (-mute): a window starts with the sound muted (M unmutes it).
	mute bool
	// soundWAV (-sound-wav): a headless run writes its mix to this WAV
	// file.
	soundWAV string
	// music (-music): a WAV or Ogg Vorbis file streamed as the music, in
	// place of the demo's own track.
	music string
}

func (f *flags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.entities, "entities", 1000, "bouncing bodies in the scene (cubes, every 4th a sphere)")
	fs.BoolVar(&f.physics, "physics", false, "rigid-body physics: the bodies fall, pile up and bounce in an arena, player characters walk, jump (Space) and push them, and F fires spheres (a match's players pass it too: it changes what the world holds)")
	fs.BoolVar(&f.gpuInterp, "gpu-interpolation", false, "place the entities between ticks on the GPU (a vertex shader) instead of the CPU: a frame between ticks costs the CPU nothing per entity")
	fs.BoolVar(&f.shadows, "shadows", true, "the sun's (with -physics, the moon's) shadows; -shadows=false turns them off")
	fs.BoolVar(&f.physicsDebug, "physics-debug", false, "with -physics: show the physics debug drawing from the start (shapes, contacts, joints, queries, ground probes; F4 toggles it)")
	fs.BoolVar(&f.mute, "mute", false, "start with the sound muted (M mutes and unmutes, - and = lower and raise the volume)")
	fs.StringVar(&f.soundWAV, "sound-wav", "", "with -headless: render the run's sound, tick by tick, to this WAV `file` (the same bytes for the same flags)")
	fs.StringVar(&f.music, "music", "", "a WAV or Ogg Vorbis `file` streamed from disk as the music, in place of the demo's own track (a goal's fanfare still cross-fades over it)")
	fs.StringVar(&f.mappings, "gamepad-mappings", "", "`file` of gamepad mappings in the SDL_GameControllerDB format (gamecontrollerdb.txt), for controllers GLFW does not know")
	fs.Uint64Var(&f.panicAtTick, "panic-at-tick", 0, "debug: make a fixed system panic at this tick, to test crash capture (0 = off)")
	fs.Uint64Var(&f.nondetAtTick, "nondeterminism-at-tick", 0, "debug: from this tick on, a fixed system reads the wall clock into the score, a mistake -synctest catches (0 = off)")
	fs.Uint64Var(&f.desyncAtTick, "desync-at-tick", 0, "debug, with -connect: add a point to the score at this tick so this client's state differs from the server's, to test desync detection (0 = off)")
}

func (f *flags) check(opts *cli.Options) error {
	switch {
	case f.entities < 0 || f.entities > maxEntities:
		return cli.Usagef("-entities %d: must be from 0 to %d", f.entities, maxEntities)
	case opts.Replay != "" && opts.Given("panic-at-tick"):
		return cli.Usagef("-panic-at-tick conflicts with -replay (the recording says where a panic was injected)")
	case opts.Given("panic-at-tick") && opts.Client():
		return cli.Usagef("-panic-at-tick means nothing on a client (the server's scene parameters say where a panic is injected)")
	case opts.Given("nondeterminism-at-tick") && (opts.Replay != "" || opts.Serve != "" || opts.Client()):
		return cli.Usagef("-nondeterminism-at-tick works in a game of its own only (not with -replay, -serve, -connect or -spectate)")
	case opts.Given("gamepad-mappings") && opts.Headless:
		return cli.Usagef("-gamepad-mappings means nothing with -headless (no window reads gamepads)")
	case opts.Given("mute") && opts.Headless:
		return cli.Usagef("-mute means nothing with -headless (no sound plays; -sound-wav renders it to a file)")
	case f.soundWAV != "" && (!opts.Headless || opts.Serve != "" || opts.Spectate != "" || opts.SyncTest > 0):
		return cli.Usagef("-sound-wav needs -headless: a game of its own, a replay, or a player of a match (not with -serve, -spectate or -synctest)")
	case opts.Given("desync-at-tick") && opts.Connect == "":
		return cli.Usagef("-desync-at-tick needs -connect (it makes a player's state differ from the server's)")
	}
	return f.checkPhysicsDebug(opts)
}

// run is the whole program; it returns the exit status: 0 success, 2 bad
// usage, 1 any other failure (reported in one line on stderr). The common
// flags, logging, profiling, the -stats file, recording and replay, and
// the multiplayer server and client are package app's, which nebula-minimal
// shares; the demo adds its own flags, two of which its recordings and
// matches carry.
func run(args []string, stdout, stderr io.Writer) int {
	f := &flags{}
	return app.Main(program, args, stdout, stderr, app.Game{
		Flags: f.register,
		Check: f.check,
		Scene: scene.ID,
		// The demo's actions, declared once: -bindings rebinds them
		// (default: WASD, a gamepad's left stick and d-pad move, X
		// recolours, Space and A jump).
		Actions:   scene.Actions,
		Params:    []string{"entities", "panic-at-tick", "physics"}, // a replay and every client of a match take them from the recording or the server
		Records:   true,
		Networked: true,
		Run:       func(s *app.Process) error { return runDemo(s, f) },
	})
}

func runDemo(s *app.Process, f *flags) error {
	opts := s.Opts
	e, err := engine.New(s.EngineConfig())
	if err != nil {
		return err
	}
	// Headless runs are pure functions of their flags: job results land
	// at their declared tick. A window is real time: they land when ready,
	// and the recording remembers where. (A server applies them
	// deterministically whatever this says.)
	if !opts.Headless && s.Net() == nil {
		e.Jobs.SetMode(engine.JobsLive)
	}
	var sc *scene.Scene
	if f.physics {
		if sc, err = scene.SetupPhysics(e, f.entities); err != nil {
			return err
		}
	} else {
		sc = scene.Setup(e, f.entities)
	}
	sc.PanicAt, sc.NondeterministicFrom, sc.DesyncAt = f.panicAtTick, f.nondetAtTick, f.desyncAtTick
	if f.music != "" {
		if err := sc.Sounds.StreamFrom(sc.Sound.Music, f.music); err != nil {
			// The game goes on without it, with its own music.
			s.Log.WithError(err).Warn("-music: the file cannot be played; playing the demo's own music")
		}
	}
	if opts.Headless {
		// The player's input comes from the script: the run is a pure
		// function of the flags. Each player of a match has its own.
		if f.physics {
			e.SetInputScript(scene.PhysicsPlayerScript(s.Player()))
		} else {
			e.SetInputScript(scene.PlayerScript(s.Player()))
		}
		if opts.Serve == "" && !opts.Client() {
			s.Log.WithField("entities", e.World.Len()).Info(opts.Summary())
		}
		if opts.Serve != "" || opts.Schedule {
			return s.RunHeadless(e) // nothing hears it
		}
		finish, err := headlessSound(s, e, sc, f.soundWAV)
		if err != nil {
			return err
		}
		if err := s.RunHeadless(e); err != nil {
			return err
		}
		return finish()
	}
	if s.Net() == nil {
		s.Log.WithField("entities", e.World.Len()).Info(opts.Summary())
	}
	var mappings string
	if f.mappings != "" {
		b, err := os.ReadFile(f.mappings)
		if err != nil {
			return fmt.Errorf("-gamepad-mappings: %w", err)
		}
		mappings = string(b)
	}
	return runWindowed(s, e, sc, mappings, windowOptions{physicsDebug: f.physicsDebug, shadows: f.shadows, gpuInterp: f.gpuInterp, mute: f.mute})
}
