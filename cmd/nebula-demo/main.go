// Command nebula-demo runs Nebula's demo scene in a window: a thousand
// cubes bouncing in a box at a fixed 60 Hz tick, drawn interpolated at up
// to 144 frames per second. Keys: arrows steer the green cube, Space
// recolours it, Esc quits, F12 saves a screenshot, P pauses, I toggles
// interpolation, [ and ] halve and double the tick rate, T toggles a 10 Hz
// tick, V toggles vsync, F3 toggles the diagnostics overlay, F5 saves a
// snapshot of the simulation and F9 loads it.
//
// Every run is recorded (package engine/replay): -record file keeps the
// recording, and a panic in a system leaves a crash replay in -crash-dir.
// -replay file plays one back in the window; with -headless -verify it
// replays as fast as possible and checks every stored state hash:
//
//	nebula-demo -headless -ticks 3600 -record r.rep
//	nebula-demo -replay r.rep -headless -verify      # "replay ok 3600"
//
// -panic-at-tick N (debug) makes a fixed system panic at tick N, to test
// crash capture; the recording carries it, so its replay panics there too.
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
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/diag"
	"github.com/nebulaengine/nebula/engine/replay"
	"github.com/nebulaengine/nebula/internal/cli"
	"github.com/nebulaengine/nebula/internal/prof"
	"github.com/nebulaengine/nebula/timing"
)

const program = "nebula-demo"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the whole program; it returns the exit status: 0 success, 2 bad
// usage, 1 any other failure (reported in one line on stderr).
func run(args []string, stdout, stderr io.Writer) int {
	opts, err := cli.Parse(program, args, stderr)
	if errors.Is(err, cli.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", program, err)
		return 2
	}
	log := logrus.New()
	log.SetOutput(stderr)
	log.SetLevel(opts.LogLevel)

	if err := runDemo(opts, stdout, log); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", program, err)
		return 1
	}
	return 0
}

func runDemo(opts cli.Options, stdout io.Writer, log *logrus.Logger) (err error) {
	var rep *replay.Replay
	if opts.Replay != "" {
		if rep, err = openReplay(&opts); err != nil {
			return err
		}
		logReplay(rep, opts.Replay, log)
	}
	cfg := engine.DefaultConfig()
	cfg.Loop = opts.LoopConfig()
	cfg.Seed = opts.Seed
	e, err := engine.New(cfg)
	if err != nil {
		return err
	}
	// Headless runs are pure functions of their flags: job results land
	// at their declared tick. A window is real time: they land when ready,
	// and the recording remembers where.
	if !opts.Headless {
		e.Jobs.SetMode(engine.JobsLive)
	}
	sc := scene.Setup(e, opts.Entities)
	sc.PanicAt = opts.PanicAtTick

	// Everything that can fail on bad input or a bad environment is
	// checked here, before any window opens: profile files, the pprof
	// address, the hitch directory, the statistics file, the recording.
	sess, err := prof.Start(opts.ProfOptions(), log)
	if err != nil {
		return err
	}
	defer func() {
		if serr := sess.Stop(); err == nil && serr != nil {
			err = serr
		}
	}()
	var hitches *diag.HitchRecorder
	if opts.Hitch > 0 && !opts.Headless {
		if hitches, err = diag.NewHitchRecorder(opts.HitchConfig(), log); err != nil {
			return err
		}
		defer func() {
			if herr := hitches.Close(); err == nil && herr != nil {
				err = herr
			}
		}()
	}

	var stats *diag.CSV
	if opts.Stats != "" {
		f, err := os.Create(opts.Stats)
		if err != nil {
			return fmt.Errorf("cannot write statistics: %w", err)
		}
		defer func() {
			if cerr := f.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("cannot write statistics: %w", cerr)
			}
		}()
		stats = diag.NewCSV(f)
		defer func() {
			if ferr := stats.Flush(); err == nil && ferr != nil {
				err = fmt.Errorf("cannot write statistics to %s: %w", opts.Stats, ferr)
			}
		}()
	}

	log.WithField("entities", e.World.Len()).Info(opts.Summary())
	switch {
	case rep != nil && opts.Headless:
		err = verifyReplay(e, rep, opts, stdout, log)
	case rep != nil:
		player, perr := replay.NewPlayer(e, rep)
		if perr != nil {
			return perr
		}
		err = runWindowed(e, opts, stats, hitches, log, &demoSession{player: player})
		if err == nil {
			err = player.Err()
		}
		var pe *engine.PanicError
		if errors.As(err, &pe) {
			err = crashError(pe, "", log)
		}
		if err == nil {
			log.WithFields(logrus.Fields{"ticks": player.Ticks(), "hashes": player.Hashes(), "done": player.Done()}).Info("replay played")
		}
	default:
		rec, rerr := startRecording(e, opts)
		if rerr != nil {
			return rerr
		}
		if opts.Headless {
			err = runHeadless(e, opts, stats, log)
		} else {
			err = runWindowed(e, opts, stats, hitches, log, &demoSession{rec: rec})
		}
		crashFile, ferr := rec.finish(e, err, opts.CrashDir)
		var pe *engine.PanicError
		if errors.As(err, &pe) {
			err = crashError(pe, crashFile, log)
		}
		if err == nil {
			err = ferr
		} else if ferr != nil {
			log.WithError(ferr).Error("the recording is incomplete")
		}
	}
	if err != nil {
		return err
	}
	if opts.PrintHash {
		fmt.Fprintf(stdout, "state-hash %d %016x\n", e.World.Tick(), e.World.Hash())
	}
	return nil
}

// runHeadless runs the scene on a simulated display with the input script.
func runHeadless(e *engine.Engine, opts cli.Options, stats *diag.CSV, log *logrus.Logger) error {
	e.SetInputScript(scene.Script)
	hc := opts.HeadlessConfig()
	if stats != nil {
		var f diag.Frame
		hc.OnFrame = func(s timing.Stats) {
			f.Loop, f.Snaps, f.TotalSnaps, f.Entities = s, e.Render.Snaps, int(e.Render.TotalSnaps), e.World.Len()
			stats.Write(&f)
		}
	}
	start := time.Now()
	res, err := engine.RunHeadless(e, hc)
	if err != nil {
		return err
	}
	wall := time.Since(start)
	log.WithFields(logrus.Fields{
		"ticks":         res.Ticks,
		"frames":        res.Frames,
		"sim_time":      res.SimTime,
		"wall":          wall.Round(time.Millisecond),
		"ticks_per_sec": int(float64(res.Ticks) / wall.Seconds()),
		"x_real_time":   fmt.Sprintf("%.0f", res.SimTime.Seconds()/wall.Seconds()),
	}).Info("headless run done")
	return nil
}
