// Package cli parses the command line shared by Nebula's programs (the demo
// and the minimal game): the loop, the display, the headless runner, the
// output files, profiling and logging. Every value is checked, and a bad one is
// reported in one line that names the flag and what it accepts, so a main
// can print it and exit with status 2.
//
// Power modes: -power low selects timing.PowerLow, 30 Hz ticks and frames
// capped at 30 per second; -power normal (the default) is 60 Hz and 144.
// The preset only fills in the rates that were not given: -power low
// -fps 60 ticks at 30 Hz and draws at up to 60. -pause-unfocused stops
// the simulation while the window does not have the input focus.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/diag"
	"github.com/nebulaengine/nebula/internal/prof"
	"github.com/nebulaengine/nebula/timing"
)

// Limits of the flags that timing and engine do not already define.
const (
	MaxEntities = 1_000_000
	MaxWindow   = 16384
)

// Options are the parsed common flags.
type Options struct {
	TickRate   int           // -tick-rate, in Hz
	FPS        float64       // -fps, the render cap in Hz (0 = uncapped)
	VSync      bool          // -vsync
	MaxFrame   time.Duration // -max-frame, the frame-time clamp
	MaxSteps   int           // -max-steps (0 = no cap)
	Entities   int           // -entities
	Seed       uint64        // -seed, the world RNG seed
	Frames     uint64        // -frames (0 = no limit)
	Duration   time.Duration // -duration (0 = no limit)
	Headless   bool          // -headless
	Ticks      uint64        // -ticks, with -headless
	DisplayHz  float64       // -display-hz, with -headless
	Jitter     float64       // -jitter, with -headless
	JitterSeed uint64        // -jitter-seed, with -headless
	PrintHash  bool          // -print-hash
	Stats      string        // -stats file, or ""
	Screenshot string        // -screenshot file, or ""
	LogLevel   logrus.Level  // -log-level
	Width      int           // -width, in screen coordinates
	Height     int           // -height, in screen coordinates
	Fullscreen bool          // -fullscreen

	// Power is the -power preset. Parse has already applied it: TickRate
	// and FPS hold its rates unless -tick-rate or -fps was given, which
	// win.
	Power timing.Power
	// PauseUnfocused pauses the simulation while the window does not have
	// the input focus (desktop.Config.PauseWhenUnfocused).
	PauseUnfocused bool

	// Profiling: see package prof. Empty means off.
	CPUProfile string // -cpuprofile file
	MemProfile string // -memprofile file
	Trace      string // -trace file
	Pprof      string // as given; prof.ParseAddr has accepted it
	// Hitch is the frame time above which the last seconds of execution
	// trace are saved to HitchDir (see diag.HitchRecorder); 0 is off.
	Hitch    time.Duration
	HitchDir string // -hitch-dir

	// Recording and replay (package engine/replay). Record and Replay are
	// file names, empty when off; Verify checks a headless replay against
	// its stored hashes. TickRateSet, SeedSet and EntitiesSet say whether
	// those flags were given: a replay takes them from its file and
	// refuses a conflicting one.
	Record      string // -record file
	Replay      string // -replay file
	Verify      bool   // -verify
	Partial     bool   // -partial: play a -replay file whose end is missing up to its last whole chunk
	TickRateSet bool   // -tick-rate was given
	SeedSet     bool   // -seed was given
	EntitiesSet bool   // -entities was given
	// CrashDir is the directory a crash replay is written to.
	CrashDir string
	// PanicAtTick (debug) makes the scene panic in a fixed system at
	// that tick, to test crash capture; 0 is off.
	PanicAtTick uint64
}

// ProfOptions returns the profiling switches the flags ask for.
func (o Options) ProfOptions() prof.Options {
	return prof.Options{CPUProfile: o.CPUProfile, MemProfile: o.MemProfile, Trace: o.Trace, PprofAddr: o.Pprof}
}

// HitchConfig returns the hitch capture the flags ask for: the defaults
// with -hitch as the threshold and -hitch-dir as the directory. It is
// meaningful only when Hitch is above 0.
func (o Options) HitchConfig() diag.HitchConfig {
	c := diag.DefaultHitchConfig()
	c.Threshold, c.Dir = o.Hitch, o.HitchDir
	return c
}

// LoopConfig returns the loop configuration the flags ask for.
func (o Options) LoopConfig() timing.Config {
	return timing.Config{TickRate: o.TickRate, MaxFrameTime: o.MaxFrame, MaxStepsPerFrame: o.MaxSteps}
}

// HeadlessConfig returns the simulated display the flags ask for.
func (o Options) HeadlessConfig() engine.HeadlessConfig {
	return engine.HeadlessConfig{DisplayHz: o.DisplayHz, Jitter: o.Jitter, JitterSeed: o.JitterSeed, Ticks: o.Ticks, Frames: o.Frames}
}

// UsageError is a bad command line: an unknown flag or a value out of range.
// Its message is one line that names the flag.
type UsageError struct{ msg string }

// Error returns the one-line message.
func (e *UsageError) Error() string { return e.msg }

// Usagef returns a *UsageError with the formatted message, for a program
// that finds a flag it cannot honour after Parse.
func Usagef(format string, args ...any) *UsageError {
	return &UsageError{msg: fmt.Sprintf(format, args...)}
}

// RecordingFlags returns the recording and replay flags that were given
// (-record, -replay, -verify, -partial, -panic-at-tick), for a program
// that does not record to refuse them.
func (o Options) RecordingFlags() []string {
	var given []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"-record", o.Record != ""}, {"-replay", o.Replay != ""}, {"-verify", o.Verify},
		{"-partial", o.Partial}, {"-panic-at-tick", o.PanicAtTick != 0},
	} {
		if f.set {
			given = append(given, f.name)
		}
	}
	return given
}

// ErrHelp is returned when the user asked for -h or -help; the usage has
// been written.
var ErrHelp = flag.ErrHelp

// Parse parses args (without the program name). On -h it writes the usage
// to usage and returns ErrHelp; on a bad flag or value it returns a
// *UsageError.
func Parse(program string, args []string, usage io.Writer) (Options, error) {
	o := Options{}
	fs := flag.NewFlagSet(program, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		entities, frames, ticks int
		seed, jitterSeed        uint64
		level, power            string
	)
	fs.IntVar(&o.TickRate, "tick-rate", timing.DefaultTickRate, "fixed simulation rate in Hz")
	fs.Float64Var(&o.FPS, "fps", timing.DefaultRenderRate, "render rate cap in Hz, independent of vsync (0 = uncapped)")
	fs.BoolVar(&o.VSync, "vsync", false, "wait for the display on swap")
	fs.DurationVar(&o.MaxFrame, "max-frame", timing.DefaultMaxFrameTime, "frame-time clamp")
	fs.IntVar(&o.MaxSteps, "max-steps", timing.DefaultMaxStepsPerFrame, "fixed steps allowed per frame (0 = no cap)")
	fs.StringVar(&power, "power", "normal", fmt.Sprintf("power `mode`: normal (%d Hz ticks, %v FPS cap) or low (%d Hz ticks, %v FPS cap); -tick-rate and -fps, when given, win",
		timing.PowerNormal.TickRate(), timing.PowerNormal.RenderRate(), timing.PowerLow.TickRate(), timing.PowerLow.RenderRate()))
	fs.BoolVar(&o.PauseUnfocused, "pause-unfocused", false, "pause the simulation while the window does not have the input focus")
	fs.IntVar(&entities, "entities", 1000, "cubes in the scene")
	fs.Uint64Var(&seed, "seed", 1, "world RNG seed")
	fs.IntVar(&frames, "frames", 0, "quit after this many rendered frames (0 = until closed)")
	fs.DurationVar(&o.Duration, "duration", 0, "quit after this much wall time (0 = until closed)")
	fs.BoolVar(&o.Headless, "headless", false, "no window and no GL: drive the loop from a simulated display clock, as fast as the CPU allows")
	fs.IntVar(&ticks, "ticks", 0, "with -headless: stop after this many fixed ticks")
	fs.Float64Var(&o.DisplayHz, "display-hz", engine.DefaultDisplayHz, "with -headless: the simulated display rate")
	fs.Float64Var(&o.Jitter, "jitter", 0, "with -headless: random frame-time jitter, as a fraction of a frame (0..0.9)")
	fs.Uint64Var(&jitterSeed, "jitter-seed", 0, "with -headless: seed for that jitter")
	fs.BoolVar(&o.PrintHash, "print-hash", false, `at exit print one line: "state-hash <tick> <16 hex digits>"`)
	fs.StringVar(&o.Stats, "stats", "", "write per-frame statistics to this CSV file")
	fs.StringVar(&o.Screenshot, "screenshot", "", "save the last rendered frame to this PNG file at exit")
	fs.StringVar(&level, "log-level", "info", "logrus level: panic, fatal, error, warn, info, debug or trace")
	fs.IntVar(&o.Width, "width", 1280, "window width in pixels")
	fs.IntVar(&o.Height, "height", 720, "window height in pixels")
	fs.BoolVar(&o.Fullscreen, "fullscreen", false, "open a fullscreen window on the primary monitor")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile to `file`")
	fs.StringVar(&o.MemProfile, "memprofile", "", "write a heap profile to `file` at exit")
	fs.StringVar(&o.Trace, "trace", "", "write an execution trace to `file`")
	fs.StringVar(&o.Pprof, "pprof", "", "serve net/http/pprof at `addr`: port, :port or host:port (no host = 127.0.0.1 only)")
	fs.StringVar(&o.Record, "record", "", "record the run to this replay `file` (input of every tick, job results, state hashes)")
	fs.StringVar(&o.Replay, "replay", "", "play this replay `file` back (tick rate, seed and entities come from it)")
	fs.BoolVar(&o.Verify, "verify", false, `with -replay and -headless: replay as fast as possible, compare every stored hash and print "replay ok <ticks>"`)
	fs.BoolVar(&o.Partial, "partial", false, "with -replay: play a recording whose end is missing (the run was killed) up to its last whole chunk")
	fs.StringVar(&o.CrashDir, "crash-dir", ".", "`dir`ectory for the crash replay written when a system panics")
	fs.Uint64Var(&o.PanicAtTick, "panic-at-tick", 0, "debug: make a fixed system panic at this tick, to test crash capture (0 = off)")
	fs.DurationVar(&o.Hitch, "hitch", diag.DefaultHitchThreshold, "when a frame takes longer than this, save the last seconds of execution trace to -hitch-dir (0 = off)")
	fs.StringVar(&o.HitchDir, "hitch-dir", diag.DefaultHitchDir(), "`dir`ectory for -hitch traces, created if missing")

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(usage, "Usage: %s [flags]\n", program)
			fs.SetOutput(usage)
			fs.PrintDefaults()
			return o, ErrHelp
		}
		return o, &UsageError{msg: err.Error() + " (see -h)"}
	}
	if fs.NArg() > 0 {
		return o, &UsageError{msg: fmt.Sprintf("unexpected argument %q: %s takes only flags (see -h)", fs.Arg(0), program)}
	}
	o.Seed, o.JitterSeed = seed, jitterSeed

	// The power preset sets the rates the user did not give.
	p, err := timing.ParsePower(power)
	if err != nil {
		return o, &UsageError{msg: fmt.Sprintf("-power %s: must be normal or low", power)}
	}
	o.Power = p
	if !set(fs, "tick-rate") {
		o.TickRate = p.TickRate()
	}
	if !set(fs, "fps") {
		o.FPS = p.RenderRate()
	}

	bad := func(name string, value any, accepted string) error {
		return &UsageError{msg: fmt.Sprintf("-%s %v: %s", name, value, accepted)}
	}
	switch {
	case timing.ValidateTickRate(o.TickRate) != nil:
		return o, bad("tick-rate", o.TickRate, fmt.Sprintf("must be an integer from %d to %d (Hz)", timing.MinTickRate, timing.MaxTickRate))
	case timing.ValidateRenderRate(o.FPS) != nil:
		return o, bad("fps", o.FPS, fmt.Sprintf("must be 0 (uncapped) or a rate up to %v (Hz)", timing.MaxRenderRate))
	case o.MaxFrame <= 0 || o.MaxFrame > timing.MaxMaxFrameTime:
		return o, bad("max-frame", o.MaxFrame, fmt.Sprintf("must be above 0 and at most %v", timing.MaxMaxFrameTime))
	case o.MaxSteps < 0:
		return o, bad("max-steps", o.MaxSteps, "must be 0 (no cap) or a positive number of steps")
	case entities < 0 || entities > MaxEntities:
		return o, bad("entities", entities, fmt.Sprintf("must be from 0 to %d", MaxEntities))
	case frames < 0:
		return o, bad("frames", frames, "must be 0 (until closed) or a positive number of frames")
	case o.Duration < 0:
		return o, bad("duration", o.Duration, "must be 0 (until closed) or a positive duration such as 10s")
	case ticks < 0:
		return o, bad("ticks", ticks, "must be 0 (no limit) or a positive number of ticks")
	case !(o.DisplayHz > 0 && o.DisplayHz <= engine.MaxDisplayHz):
		return o, bad("display-hz", o.DisplayHz, fmt.Sprintf("must be above 0 and at most %v (Hz)", engine.MaxDisplayHz))
	case !(o.Jitter >= 0 && o.Jitter <= engine.MaxJitter):
		return o, bad("jitter", o.Jitter, fmt.Sprintf("must be from 0 to %v (a fraction of a frame)", engine.MaxJitter))
	case o.Width < 1 || o.Width > MaxWindow:
		return o, bad("width", o.Width, fmt.Sprintf("must be from 1 to %d pixels", MaxWindow))
	case o.Height < 1 || o.Height > MaxWindow:
		return o, bad("height", o.Height, fmt.Sprintf("must be from 1 to %d pixels", MaxWindow))
	case o.Hitch < 0:
		return o, bad("hitch", o.Hitch, "must be 0 (off) or a positive frame time such as 50ms")
	case o.HitchDir == "":
		return o, bad("hitch-dir", `""`, "must name a directory")
	}
	if o.Pprof != "" {
		if _, err := prof.ParseAddr(o.Pprof); err != nil {
			return o, &UsageError{msg: err.Error()}
		}
	}
	lv, err := logrus.ParseLevel(level)
	if err != nil {
		return o, bad("log-level", level, "must be one of panic, fatal, error, warn, info, debug, trace")
	}
	o.LogLevel = lv
	o.Entities, o.Frames, o.Ticks = entities, uint64(frames), uint64(ticks)

	if !o.Headless {
		for _, name := range []string{"ticks", "display-hz", "jitter", "jitter-seed"} {
			if set(fs, name) {
				return o, &UsageError{msg: fmt.Sprintf("-%s needs -headless", name)}
			}
		}
	}
	if o.Hitch == 0 && set(fs, "hitch-dir") {
		return o, &UsageError{msg: "-hitch-dir needs -hitch above 0"}
	}
	o.TickRateSet, o.SeedSet, o.EntitiesSet = set(fs, "tick-rate"), set(fs, "seed"), set(fs, "entities")
	switch {
	case o.Record != "" && o.Replay != "":
		return o, &UsageError{msg: "-record and -replay exclude each other (a replay is already a recording)"}
	case o.Verify && (o.Replay == "" || !o.Headless):
		return o, &UsageError{msg: "-verify needs -replay and -headless"}
	case o.Replay != "" && o.Headless && !o.Verify:
		return o, &UsageError{msg: "-replay with -headless needs -verify (a headless replay only checks the recording)"}
	case o.Partial && o.Replay == "":
		return o, &UsageError{msg: "-partial needs -replay"}
	case o.Replay != "" && set(fs, "ticks"):
		return o, &UsageError{msg: "-ticks conflicts with -replay (a replay runs its recording's ticks)"}
	case o.Replay != "" && set(fs, "panic-at-tick"):
		return o, &UsageError{msg: "-panic-at-tick conflicts with -replay (the recording says where a panic was injected)"}
	case o.CrashDir == "":
		return o, bad("crash-dir", `""`, "must name a directory")
	}
	if o.Headless && o.Ticks == 0 && o.Frames == 0 && o.Replay == "" {
		return o, &UsageError{msg: "-headless needs -ticks or -frames (a headless run has no window to close)"}
	}
	return o, nil
}

// set reports whether the flag name was given on the command line.
func set(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// Summary describes the options in one line for the log.
func (o Options) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tick %d Hz, render cap %v Hz, vsync %v, %d cubes, seed %d", o.TickRate, o.FPS, o.VSync, o.Entities, o.Seed)
	if o.Power != timing.PowerNormal {
		fmt.Fprintf(&b, ", power %v", o.Power)
	}
	if o.PauseUnfocused {
		b.WriteString(", paused when unfocused")
	}
	if o.Headless {
		fmt.Fprintf(&b, ", headless at %v Hz (jitter %v)", o.DisplayHz, o.Jitter)
	}
	if o.Record != "" {
		fmt.Fprintf(&b, ", recording to %s", o.Record)
	}
	if o.Replay != "" {
		fmt.Fprintf(&b, ", replaying %s", o.Replay)
	}
	return b.String()
}
