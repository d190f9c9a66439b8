// Package app is the set-up Nebula's programs share, so that a game's main
// is only its game: the common flags (package cli) defined beside the
// game's own on one flag.FlagSet, the logger, exit statuses, the profiling
// switches, the -stats file and hitch capture, the engine and runner
// configurations the flags ask for, and the windowed or headless run with
// its report, screenshot and state hash.
//
//	func main() { os.Exit(app.Main("my-game", os.Args[1:], os.Stdout, os.Stderr, app.Game{Run: game})) }
//
//	func game(s *app.Process) error {
//		e, err := engine.New(s.EngineConfig())
//		if err != nil {
//			return err
//		}
//		// spawn entities, e.AddSystem(engine.StageScripts, ...)
//		if s.Opts.Headless {
//			return s.RunHeadless(e)
//		}
//		return s.RunWindowed(e, s.DesktopConfig("My game"), nil)
//	}
//
// A game's own flags are defined by Game.Flags, in the game's main package,
// and listed by -h with the common ones:
//
//	var level int
//	app.Game{
//		Flags: func(fs *flag.FlagSet) { fs.IntVar(&level, "level", 1, "the level to start on") },
//		Check: func(*cli.Options) error {
//			if level < 1 {
//				return cli.Usagef("-level %d: must be 1 or more", level)
//			}
//			return nil
//		},
//		Run: game,
//	}
//
// A game that records sets Game.Records, one that plays over the network
// Game.Networked, and names in Game.Params its own flags that the
// simulation depends on: -record, -replay, -verify and -partial, and
// -serve, -connect and -spectate, then work with no more code (record.go,
// net.go); RunHeadless and RunWindowed do what the flags ask. To any other
// game those flags are unknown.
//
//	app.Game{Flags: ..., Params: []string{"level"}, Records: true, Networked: true, Run: game}
//
// Exit statuses: 0 success (and -h); 2 bad usage, with one line naming the
// flag; 1 any other failure, with one line "<program>: <what went wrong>"
// on stderr.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/diag"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/replay"
	"github.com/nebulaengine/nebula/engine/rollback"
	"github.com/nebulaengine/nebula/internal/cli"
	"github.com/nebulaengine/nebula/internal/prof"
	"github.com/nebulaengine/nebula/timing"
)

// Process is one run of a program: its parsed flags, its logger and the
// outputs the flags opened.
type Process struct {
	// Opts are the parsed common flags.
	Opts *cli.Options
	// Log is the program's logger (stderr, at -log-level).
	Log *logrus.Logger
	// Stdout is where -print-hash writes.
	Stdout io.Writer
	// Stats is the -stats CSV, nil without -stats; RunWindowed and
	// RunHeadless write a row per frame.
	Stats *diag.CSV
	// Hitches is the hitch recorder of a windowed run with -hitch above 0,
	// else nil; RunWindowed feeds it.
	Hitches *diag.HitchRecorder

	program string
	game    *Game
	fs      *flag.FlagSet
	ctx     context.Context // ends on Ctrl-C or SIGTERM

	rep         *replay.Replay  // the -replay file, checked
	rec         *recording      // the recording of the run, while it runs
	client      *netplay.Client // a -connect or -spectate run's client
	probing     bool            // Run is called to learn the world's schema (joinMatch)
	fingerprint uint64          // what the probe learnt
	actions     *input.Actions  // Game.Actions, with -bindings applied; nil if none
	clientStats *clientStats    // a headless client's -stats rows; nil without -stats
}

// Game is a program on Nebula: its own flags and its run.
type Game struct {
	// Flags, if not nil, defines the game's own flags on fs, beside the
	// common ones (package cli), before the command line is parsed.
	Flags func(fs *flag.FlagSet)
	// Check, if not nil, checks the game's own flags once the common ones
	// are parsed and checked, before anything starts: an error it returns
	// is bad usage (status 2), printed as its one line. cli.Usagef makes
	// one; opts.Given tells which flags were given.
	Check func(opts *cli.Options) error
	// Scene names the game's simulation in its recordings and matches (at
	// most 64 bytes): a replay of another scene, or a server that runs
	// another, is refused. Empty: the program's name.
	Scene string
	// Params names the game's own flags (defined by Flags) that its
	// simulation depends on, such as an entity count or a level: a
	// recording's header keeps their values, and a server sends them to
	// its clients with the seed and the tick rate. A replay, or a client,
	// sets them from there before Run (a replay refuses such a flag given
	// with another value; a client warns and takes the server's), then
	// Check runs again on them.
	Params []string
	// Records says that the game records and replays (package
	// engine/replay): the recording flags (-record, -replay, -verify,
	// -partial, -crash-dir) are defined, and the session's RunHeadless
	// and RunWindowed handle them. Every run records, into memory, and
	// into the -record file when given; a panic in a system leaves a crash
	// replay in -crash-dir. With -replay, the tick rate, the seed and the
	// Params flags come from the file before Run is called; RunWindowed
	// plays it back and RunHeadless (-verify) checks every stored hash and
	// prints "replay ok <ticks>". Without Records they are unknown flags.
	Records bool
	// Networked says that the game plays over the network (package
	// engine/netplay): the multiplayer flags (-serve, -connect,
	// -spectate, -players, -max-players, -input-delay, -net-delay, ...)
	// are defined, and RunHeadless and RunWindowed handle them: with
	// -serve RunHeadless runs the match's server on the game's engine;
	// with -connect or -spectate the client joins the match before the
	// game's engine is built (see Process.Net; Run is called once more,
	// first, to learn the world's schema, and that call's RunHeadless or
	// RunWindowed returns at once), and the engine plays the match. A
	// headless player's input is the engine's input script
	// (engine.Engine.SetInputScript), chosen by Process.Player.
	Networked bool
	// Actions declares the game's actions once (input.ActionMap): their
	// names in order, the two-axis ones and the default bindings. When it
	// names any, the program has a -bindings flag (a player's bindings
	// file), and every tick's input carries the actions resolved from the
	// bindings wherever the game runs: RunWindowed and RunHeadless set
	// them on the engine's input (engine.Engine.Input, unless the game set
	// other Actions there), so a window, a headless run and its input
	// script, -synctest and a recording resolve them, and a client of a
	// match sends them (netplay.Client.Attach). A dedicated server
	// (package gameserver) takes the same ActionMap for its bots.
	// Process.Actions returns them.
	Actions input.ActionMap
	// Run is the game, run once the flags are parsed and the outputs they
	// ask for are open.
	Run func(*Process) error
}

// Actions returns the game's actions (Game.Actions) with the player's
// -bindings applied, or nil when the game declares none. A game may
// rebind them while it runs (a settings menu): the next tick resolves the
// new bindings.
func (s *Process) Actions() *input.Actions { return s.actions }

// useActions gives e's input the game's actions, unless it has some.
func (s *Process) useActions(e *engine.Engine) {
	if s.actions != nil && e.Input.Actions() == nil {
		e.Input.SetActions(s.actions)
	}
}

// loadActions makes the game's actions from its declaration and the
// -bindings file.
func (s *Process) loadActions() error {
	if s.game.Actions.Len() == 0 {
		return nil
	}
	a, err := s.game.Actions.New()
	if err != nil {
		return fmt.Errorf("the game's actions: %w", err)
	}
	if f := s.fs.Lookup("bindings"); f != nil && f.Value.String() != "" {
		path := f.Value.String()
		file, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("-bindings: %w", err)
		}
		defer file.Close()
		if err := a.LoadBindings(file); err != nil {
			return fmt.Errorf("-bindings %s: %w", path, err)
		}
	}
	s.actions = a
	return nil
}

// Main defines the common flags and the game's own (g.Flags) on one
// flag.FlagSet named program, parses args (without the program name) and
// checks them (cli.Options.Check, then g.Check); it makes the logger,
// starts the profiling switches, opens the -stats file and the hitch
// recorder, and runs g.Run; it returns the exit status. Everything that can
// fail on bad input (a flag, a profile file, the pprof address, the hitch
// directory, the statistics file) fails here, before the game opens a
// window. Profiles, statistics and traces are written and closed when
// g.Run returns, whether it failed or not.
func Main(program string, args []string, stdout, stderr io.Writer, g Game) int {
	opts, fs, err := parse(program, args, stderr, g)
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
	s := &Process{Opts: opts, Log: log, Stdout: stdout, program: program, game: &g, fs: fs}
	if err := s.run(g.Run); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", program, err)
		var usage *cli.UsageError
		if errors.As(err, &usage) {
			return 2
		}
		return 1
	}
	return 0
}

// parse defines g's flags, parses args and checks them.
func parse(program string, args []string, usage io.Writer, g Game) (*cli.Options, *flag.FlagSet, error) {
	fs := flag.NewFlagSet(program, flag.ContinueOnError)
	opts := cli.Register(fs)
	if g.Records {
		opts.RegisterRecording(fs)
	}
	if g.Networked {
		opts.RegisterNetwork(fs)
	}
	if g.Actions.Len() > 0 {
		fs.String("bindings", "", fmt.Sprintf("`file` of bindings for the game's actions (%s), one a line: ACTION key|mouse|button|axis NAME [scale=S] [threshold=T] [pad=P]; it replaces the default bindings of the actions it names", strings.Join(g.Actions.Names, ", ")))
	}
	if g.Flags != nil {
		g.Flags(fs)
	}
	for _, name := range g.Params {
		if fs.Lookup(name) == nil {
			panic(fmt.Sprintf("app: Game.Params names %q, which no flag defines", name))
		}
	}
	if err := cli.Parse(fs, args, usage); err != nil {
		return nil, nil, err
	}
	if err := opts.Check(fs); err != nil {
		return nil, nil, err
	}
	if g.Check != nil {
		if err := g.Check(opts); err != nil {
			return nil, nil, err
		}
	}
	return opts, fs, nil
}

func (s *Process) run(game func(*Process) error) (err error) {
	opts, log := s.Opts, s.Log
	if err := s.loadActions(); err != nil {
		return err
	}
	sess, err := prof.Start(opts.ProfOptions(), log)
	if err != nil {
		return err
	}
	defer func() {
		if serr := sess.Stop(); err == nil && serr != nil {
			err = serr
		}
	}()
	if opts.Hitch > 0 && !opts.Headless {
		if s.Hitches, err = diag.NewHitchRecorder(opts.HitchConfig(), log); err != nil {
			return err
		}
		defer func() {
			if herr := s.Hitches.Close(); err == nil && herr != nil {
				err = herr
			}
		}()
	}
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
		s.Stats = diag.NewCSV(f)
		defer func() {
			if ferr := s.Stats.Flush(); err == nil && ferr != nil {
				err = fmt.Errorf("cannot write statistics to %s: %w", opts.Stats, ferr)
			}
		}()
	}
	// A replay takes the tick rate, the seed and the game's parameters
	// from its file, and a client from the server: a bad file, or a
	// server that cannot be joined, fails here, before any window opens.
	if opts.Replay != "" {
		if s.rep, err = s.openReplay(); err != nil {
			return err
		}
		logReplay(s.rep, opts.Replay, log)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	s.ctx = ctx
	if opts.Client() {
		if err := s.joinMatch(game); err != nil {
			return err
		}
		defer s.client.Close()
	}
	return game(s)
}

// scene is the game's scene name in recordings and matches.
func (s *Process) scene() string {
	if s.game.Scene != "" {
		return s.game.Scene
	}
	return s.program
}

// params encodes the game's parameters (Game.Params) as the flags hold
// them now.
func (s *Process) params() ([]byte, error) {
	return gameParams(s.fs, s.game.Params).MarshalBinary()
}

// EngineConfig returns the engine configuration the flags ask for:
// engine.DefaultConfig with the loop's rates and clamps (-tick-rate, -power,
// -max-frame, -max-steps) and -seed.
func (s *Process) EngineConfig() engine.Config {
	cfg := engine.DefaultConfig()
	cfg.Loop = s.Opts.LoopConfig()
	cfg.Seed = s.Opts.Seed
	return cfg
}

// DesktopConfig returns the windowed runner's configuration the flags ask
// for, titled title: desktop.DefaultConfig with the window's size,
// fullscreen and vsync, the render cap (-fps, -power), -pause-unfocused,
// the -frames and -duration limits, and the session's logger.
func (s *Process) DesktopConfig(title string) desktop.Config {
	o := s.Opts
	cfg := desktop.DefaultConfig()
	cfg.Window.Title = title
	cfg.Window.Width, cfg.Window.Height = o.Width, o.Height
	cfg.Window.Fullscreen, cfg.Window.VSync = o.Fullscreen, o.VSync
	cfg.FPS, cfg.Frames, cfg.Duration = o.FPS, o.Frames, o.Duration
	cfg.PauseWhenUnfocused = o.PauseUnfocused
	cfg.Logger = s.Log
	return cfg
}

// RunWindowed opens the window cfg describes, calls setup (if not nil) with
// the runner, for keys, systems and GL objects that need it (an error it
// returns ends the run before the first frame, and is returned), and runs
// e until the
// window closes, Esc-like Quit, Ctrl-C or SIGTERM, or the flags' limits.
// Every frame it writes a -stats row and feeds the hitch recorder (before
// cfg.OnFrame, which it keeps). Then it logs the pacing report, saves the
// -screenshot and prints the -print-hash line.
//
// In a game that records (Game.Records) the run is recorded, or the
// -replay file played back; in a networked one (Game.Networked) a client
// plays its match, its device input going to the server (cfg.Input, when
// the game left it nil, is the client's), and the window closes when the
// match ends.
//
// With -schedule it prints e's tick schedule (engine.Engine.Schedule) to
// Stdout and returns, opening no window and calling no setup: add the
// tick's systems before RunWindowed for -schedule to list them.
func (s *Process) RunWindowed(e *engine.Engine, cfg desktop.Config, setup func(*desktop.Runner) error) error {
	s.useActions(e)
	switch {
	case s.Opts.Schedule:
		return s.printSchedule(e)
	case s.probing:
		return s.probed(e)
	case s.client != nil:
		if err := s.attach(e, nil); err != nil {
			return err
		}
		if cfg.Input == nil {
			cfg.Input = s.client.LocalInput()
		}
		if s.game.Records {
			return s.runRecorded(e, func() error { return s.playMatchWindowed(e, cfg, setup) })
		}
		return s.playMatchWindowed(e, cfg, setup)
	case s.rep != nil:
		return s.playReplay(e, func(onSetup func(quit func())) error {
			return s.runWindow(e, cfg, func(r *desktop.Runner) error {
				onSetup(r.Quit)
				if setup != nil {
					return setup(r)
				}
				return nil
			}, true)
		})
	case s.game.Records:
		return s.runRecorded(e, func() error { return s.runWindow(e, cfg, setup, true) })
	}
	return s.runWindow(e, cfg, setup, true)
}

// playMatchWindowed plays the client's match in a window that closes when
// the match ends.
func (s *Process) playMatchWindowed(e *engine.Engine, cfg desktop.Config, setup func(*desktop.Runner) error) error {
	c := s.client
	err := s.runWindow(e, cfg, func(r *desktop.Runner) error {
		e.AddUpdate("match-end", func(*engine.FrameContext) {
			if c.Done() || c.Err() != nil {
				r.Quit()
			}
		})
		if setup != nil {
			return setup(r)
		}
		return nil
	}, false)
	if err == nil {
		if err = c.Err(); err == nil && !c.Done() {
			c.Close() // the window closed: leave the match
		}
	}
	return s.leftMatch(e, err)
}

// runWindow is RunWindowed's run, which prints the -print-hash line when
// printHash says so.
func (s *Process) runWindow(e *engine.Engine, cfg desktop.Config, setup func(*desktop.Runner) error, printHash bool) error {
	var r *desktop.Runner
	stats, hitches, next := s.Stats, s.Hitches, cfg.OnFrame
	cfg.OnFrame = func(st timing.Stats) {
		if stats != nil {
			stats.Write(r.Figures())
		}
		// The first frame has no interval, and a frame that ran paused
		// (the first of a run, the first after the window comes back)
		// measured the time away, not a hitch.
		if hitches != nil && st.Frames > 1 && !e.Loop.Paused() {
			hitches.Observe(st.Time, st.Interval)
		}
		if next != nil {
			next(st)
		}
	}
	r, err := desktop.New(e, cfg)
	if err != nil {
		return err
	}
	defer r.Close()

	// Ctrl-C (or a TERM from xvfb-run's caller) ends the run like Quit, so
	// the statistics are flushed and the report is logged.
	defer onInterrupt(r.Quit)()

	if setup != nil {
		if err := setup(r); err != nil {
			return err
		}
	}
	if err := r.Run(); err != nil {
		return err
	}
	var target time.Duration
	if cfg.FPS > 0 {
		target = time.Duration(float64(time.Second) / cfg.FPS)
	}
	if m := r.Monitor(); m != nil { // nil when a game switched the diagnostics off
		m.Report(target).Log(s.Log)
	}
	if s.Opts.Screenshot != "" {
		if err := r.Screenshot(s.Opts.Screenshot); err != nil {
			return err
		}
	}
	if printHash {
		s.PrintHash(e)
	}
	return nil
}

// RunHeadless runs e on the simulated display the flags describe
// (-display-hz, -jitter, -ticks, -frames), as fast as the CPU allows,
// writing a -stats row per frame; then it logs the run's figures and
// prints the -print-hash line. Input comes only from e's input script, if
// it has one (engine.Engine.SetInputScript).
//
// In a game that records (Game.Records) the run is recorded, or with
// -replay -verify the file is checked instead; in a networked one
// (Game.Networked) -serve runs the match's server on e, and a client plays
// its match in real time, e's input script being its player's input.
//
// With -schedule it prints e's tick schedule (engine.Engine.Schedule) to
// Stdout and returns without running a tick.
func (s *Process) RunHeadless(e *engine.Engine) error {
	s.useActions(e)
	switch {
	case s.Opts.Schedule:
		return s.printSchedule(e)
	case s.probing:
		return s.probed(e)
	case s.rep != nil:
		return s.verifyReplay(e)
	case s.Opts.Serve != "":
		return s.serve(e)
	case s.client != nil:
		script := e.InputScript()
		e.SetInputScript(nil) // the client feeds the input
		if err := s.attach(e, script); err != nil {
			return err
		}
		if s.clientStats != nil {
			s.clientStats.e = e
		}
		play := func() error { return s.leftMatch(e, s.client.RunHeadless(s.ctx)) }
		if s.game.Records {
			return s.runRecorded(e, play)
		}
		return play()
	case s.game.Records:
		return s.runRecorded(e, func() error { return s.runHeadless(e) })
	}
	return s.runHeadless(e)
}

// runHeadless is RunHeadless's run of e on the simulated display.
func (s *Process) runHeadless(e *engine.Engine) error {
	if s.Opts.SyncTest > 0 {
		return s.runSyncTest(e)
	}
	hc := s.Opts.HeadlessConfig()
	if stats := s.Stats; stats != nil {
		// The CPU time of each phase is measured on the real clock, as a
		// windowed run measures it, though the loop runs on the simulated
		// display's; the heap is read every frame. Nothing is drawn, so
		// the GPU and drawing columns stay empty.
		clock := timing.NewMonotonicClock()
		e.SetPhaseClock(clock.Now)
		defer e.SetPhaseClock(nil)
		heap := diag.NewHeapMeter()
		var f diag.Figures
		hc.OnFrame = func(st timing.Stats) {
			ph := e.PhaseTimes()
			f.Loop, f.Snaps, f.TotalSnaps, f.Entities = st, e.Render.Snaps, int(e.Render.TotalSnaps), e.World.Len()
			f.FixedCPU, f.UpdateCPU, f.RenderCPU = ph.Fixed, ph.Update, ph.Render
			heap.Read(&f)
			stats.Write(&f)
		}
	}
	start := time.Now()
	res, err := engine.RunHeadless(e, hc)
	if err != nil {
		return err
	}
	wall := time.Since(start)
	s.Log.WithFields(logrus.Fields{
		"ticks":         res.Ticks,
		"frames":        res.Frames,
		"sim_time":      res.SimTime,
		"wall":          wall.Round(time.Millisecond),
		"ticks_per_sec": int(float64(res.Ticks) / wall.Seconds()),
		"x_real_time":   fmt.Sprintf("%.0f", res.SimTime.Seconds()/wall.Seconds()),
	}).Info("headless run done")
	s.PrintHash(e)
	return nil
}

// runSyncTest runs -synctest: rollback.SyncTest to -ticks, every tick
// re-simulated -synctest deep. It prints "synctest ok <ticks> depth <n>"
// and, with -print-hash, the state hash, which is a plain run's.
func (s *Process) runSyncTest(e *engine.Engine) error {
	start := time.Now()
	err := rollback.SyncTest(e, rollback.SyncTestConfig{Ticks: s.Opts.Ticks, Depth: s.Opts.SyncTest})
	var se *rollback.SyncTestError
	if errors.As(err, &se) {
		s.Log.WithFields(logrus.Fields{"tick": se.Tick, "from": se.From, "first_hash": fmt.Sprintf("%016x", se.First), "again_hash": fmt.Sprintf("%016x", se.Again), "diff": se.Diff}).
			Error("sync test failed: a tick simulated again from an earlier state differs")
	}
	if err != nil {
		return err
	}
	s.Log.WithFields(logrus.Fields{"ticks": e.World.Tick(), "depth": s.Opts.SyncTest, "wall": time.Since(start).Round(time.Millisecond)}).Info("sync test passed")
	fmt.Fprintf(s.Stdout, "synctest ok %d depth %d\n", e.World.Tick(), s.Opts.SyncTest)
	s.PrintHash(e)
	return nil
}

// printSchedule prints e's schedule for -schedule, which RunHeadless and
// RunWindowed do instead of running: no window opens and no tick runs.
func (s *Process) printSchedule(e *engine.Engine) error {
	_, err := io.WriteString(s.Stdout, e.Schedule().String())
	return err
}

// PrintHash prints "state-hash <tick> <16 hex digits>" with -print-hash.
func (s *Process) PrintHash(e *engine.Engine) {
	if s.Opts.PrintHash {
		fmt.Fprintf(s.Stdout, "state-hash %d %016x\n", e.World.Tick(), e.World.Hash())
	}
}

// onInterrupt calls quit (once, on another goroutine) when the process
// gets an interrupt (Ctrl-C) or a TERM, until the function it returns is
// called; that function stops listening and ends the goroutine.
func onInterrupt(quit func()) (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-sig; ok {
			quit()
		}
	}()
	return func() {
		signal.Stop(sig)
		close(sig)
	}
}
