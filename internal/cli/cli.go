// Package cli defines the command line shared by Nebula's programs (the
// demo and the minimal game): the loop, the display, the headless runner,
// the output files, profiling and logging, and, for a program that records,
// recording and replay. A program defines them on its own flag.FlagSet,
// beside its own flags, and checks them after parsing:
//
//	fs := flag.NewFlagSet("my-game", flag.ContinueOnError)
//	opts := cli.Register(fs)     // the common flags
//	opts.RegisterRecording(fs)   // only in a program that records
//	fs.IntVar(&level, "level", 1, "the level to start on") // the game's own
//	err := cli.Parse(fs, args, os.Stderr) // -h writes the usage: ErrHelp
//	if err == nil {
//		err = opts.Check(fs)
//	}
//
// Package app does this for a game (app.Game.Flags). Every value is
// checked, and a bad one is reported in one line that names the flag and
// what it accepts, so a main can print it and exit with status 2. So is a
// flag that means nothing in the chosen mode, with the reason: a window's
// flag (-width, -vsync, -fps, -hitch, ...) with -headless, a simulated
// display's (-ticks, -display-hz, -jitter, -jitter-seed) without it, a
// display's or a loop's with -verify (which steps the recorded ticks),
// -crash-dir with -replay. Only the flags given on the command line count.
//
// -schedule prints the tick's stages and their systems, in order
// (engine.Schedule), and exits without opening a window or running a tick,
// with or without -headless.
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
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/diag"
	"github.com/nebulaengine/nebula/engine/rollback"
	"github.com/nebulaengine/nebula/internal/prof"
	"github.com/nebulaengine/nebula/timing"
)

// MaxWindow is the largest -width and -height, in pixels.
const MaxWindow = 16384

// Options are the common flags, filled in by parsing the FlagSet they were
// registered on (Register) and completed by Check.
type Options struct {
	TickRate   int           // -tick-rate, in Hz
	FPS        float64       // -fps, the render cap in Hz (0 = uncapped)
	VSync      bool          // -vsync
	MaxFrame   time.Duration // -max-frame, the frame-time clamp
	MaxSteps   int           // -max-steps (0 = no cap)
	Seed       uint64        // -seed, the world RNG seed
	Frames     uint64        // -frames (0 = no limit)
	Duration   time.Duration // -duration (0 = no limit)
	Headless   bool          // -headless
	Ticks      uint64        // -ticks, with -headless
	DisplayHz  float64       // -display-hz, with -headless
	Jitter     float64       // -jitter, with -headless
	JitterSeed uint64        // -jitter-seed, with -headless
	PrintHash  bool          // -print-hash
	Schedule   bool          // -schedule: print the tick's stages and systems, and exit
	SyncTest   int           // -synctest depth, with -headless; 0 is off
	Stats      string        // -stats file, or ""
	Screenshot string        // -screenshot file, or ""
	LogLevel   logrus.Level  // -log-level
	Width      int           // -width, in screen coordinates
	Height     int           // -height, in screen coordinates
	Fullscreen bool          // -fullscreen

	// Power is the -power preset. Check has already applied it: TickRate
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

	// Recording and replay (package engine/replay), defined only by
	// RegisterRecording. Record and Replay are file names, empty when off;
	// Verify checks a headless replay against its stored hashes. A replay
	// takes the tick rate and seed from its file and refuses a
	// conflicting flag: Given says which were given.
	Record  string // -record file
	Replay  string // -replay file
	Verify  bool   // -verify
	Partial bool   // -partial: play a -replay file whose end is missing up to its last whole chunk
	// CrashDir is the directory a crash replay is written to (and, in a
	// networked run, the state dumps of a desync).
	CrashDir string

	// Multiplayer (package engine/netplay), defined only by
	// RegisterNetwork. At most one of Serve, Connect and Spectate is set:
	// a dedicated server (headless, real time), a player or a spectator.
	Serve      string        // -serve addr, as given; ParseListenAddr has accepted it
	Connect    string        // -connect addr
	Spectate   string        // -spectate addr
	Players    int           // -players: the match starts once this many are in
	MaxPlayers int           // -max-players
	InputDelay int           // -input-delay in ticks; -1 when not given (the server's advice)
	NetDelay   time.Duration // -net-delay: simulated one-way latency of a client's traffic
	NetJitter  time.Duration // -net-jitter: its variation
	Predict    int           // -predict: ticks a client may run past its last confirmed tick (0: lockstep)
	Smooth     time.Duration // -smooth: the half-life of a client's eased corrections (0: off)
	Transport  string        // -transport: "tcp" or "udp"
	NetLoss    float64       // -net-loss: with udp, the probability a client's packet is lost, each way
	NetDup     float64       // -net-dup: ... duplicated
	NetReorder float64       // -net-reorder: ... reordered
	// Credentials is -credentials: a file of a connect token's
	// credentials (token.Credentials as JSON, from the matchmaker) for a
	// server that requires tokens.
	Credentials string
	network     bool // RegisterNetwork was called

	// The flags' raw values, checked and converted by Check.
	power, level  string
	frames, ticks int
	// given holds the names of the flags given on the command line, the
	// program's own included; Check fills it.
	given map[string]bool
}

// Register defines the common flags on fs and returns the options they
// set. The recording flags are not among them (see RegisterRecording): a
// program that does not record does not know them. After fs.Parse (or
// Parse), call Check.
func Register(fs *flag.FlagSet) *Options {
	o := &Options{}
	fs.IntVar(&o.TickRate, "tick-rate", timing.DefaultTickRate, "fixed simulation rate in Hz")
	fs.Float64Var(&o.FPS, "fps", timing.DefaultRenderRate, "render rate cap in Hz, independent of vsync (0 = uncapped)")
	fs.BoolVar(&o.VSync, "vsync", false, "wait for the display on swap")
	fs.DurationVar(&o.MaxFrame, "max-frame", timing.DefaultMaxFrameTime, "frame-time clamp")
	fs.IntVar(&o.MaxSteps, "max-steps", timing.DefaultMaxStepsPerFrame, "fixed steps allowed per frame (0 = no cap)")
	fs.StringVar(&o.power, "power", "normal", fmt.Sprintf("power `mode`: normal (%d Hz ticks, %v FPS cap) or low (%d Hz ticks, %v FPS cap); -tick-rate and -fps, when given, win",
		timing.PowerNormal.TickRate(), timing.PowerNormal.RenderRate(), timing.PowerLow.TickRate(), timing.PowerLow.RenderRate()))
	fs.BoolVar(&o.PauseUnfocused, "pause-unfocused", false, "pause the simulation while the window does not have the input focus")
	fs.Uint64Var(&o.Seed, "seed", 1, "world RNG seed")
	fs.IntVar(&o.frames, "frames", 0, "quit after this many rendered frames (0 = until closed)")
	fs.DurationVar(&o.Duration, "duration", 0, "quit after this much wall time (0 = until closed)")
	fs.BoolVar(&o.Headless, "headless", false, "no window and no GL: drive the loop from a simulated display clock, as fast as the CPU allows")
	fs.IntVar(&o.ticks, "ticks", 0, "with -headless: stop after this many fixed ticks")
	fs.Float64Var(&o.DisplayHz, "display-hz", engine.DefaultDisplayHz, "with -headless: the simulated display rate")
	fs.Float64Var(&o.Jitter, "jitter", 0, "with -headless: random frame-time jitter, as a fraction of a frame (0..0.9)")
	fs.Uint64Var(&o.JitterSeed, "jitter-seed", 0, "with -headless: seed for that jitter")
	fs.IntVar(&o.SyncTest, "synctest", 0, "with -headless and -ticks: after every tick, load the state of this many ticks ago and simulate them again, checking each hash; exit 1 at the first that differs (0 = off)")
	fs.BoolVar(&o.Schedule, "schedule", false, "print the tick's stages and their systems, in the order they run, and exit (no window, no tick)")
	fs.BoolVar(&o.PrintHash, "print-hash", false, `at exit print one line: "state-hash <tick> <16 hex digits>"`)
	fs.StringVar(&o.Stats, "stats", "", "write per-frame statistics to this CSV file")
	fs.StringVar(&o.Screenshot, "screenshot", "", "save the last rendered frame to this PNG file at exit")
	fs.StringVar(&o.level, "log-level", "info", "logrus level: panic, fatal, error, warn, info, debug or trace")
	fs.IntVar(&o.Width, "width", 1280, "window width in pixels")
	fs.IntVar(&o.Height, "height", 720, "window height in pixels")
	fs.BoolVar(&o.Fullscreen, "fullscreen", false, "open a fullscreen window on the primary monitor")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile to `file`")
	fs.StringVar(&o.MemProfile, "memprofile", "", "write a heap profile to `file` at exit")
	fs.StringVar(&o.Trace, "trace", "", "write an execution trace to `file`")
	fs.StringVar(&o.Pprof, "pprof", "", "serve net/http/pprof at `addr`: port, :port or host:port (no host = 127.0.0.1 only)")
	fs.DurationVar(&o.Hitch, "hitch", diag.DefaultHitchThreshold, "when a frame takes longer than this, save the last seconds of execution trace to -hitch-dir (0 = off)")
	fs.StringVar(&o.HitchDir, "hitch-dir", diag.DefaultHitchDir(), "`dir`ectory for -hitch traces, created if missing")
	return o
}

// RegisterRecording defines the recording and replay flags on fs, into o:
// -record, -replay, -verify, -partial and -crash-dir. Only a program that
// records and replays (with package engine/replay, as nebula-demo does)
// registers them.
func (o *Options) RegisterRecording(fs *flag.FlagSet) {
	fs.StringVar(&o.Record, "record", "", "record the run to this replay `file` (input of every tick, job results, state hashes)")
	fs.StringVar(&o.Replay, "replay", "", "play this replay `file` back (tick rate, seed and the game's own recorded flags come from it)")
	fs.BoolVar(&o.Verify, "verify", false, `with -replay and -headless: replay as fast as possible, compare every stored hash and print "replay ok <ticks>"`)
	fs.BoolVar(&o.Partial, "partial", false, "with -replay: play a recording whose end is missing (the run was killed) up to its last whole chunk")
	fs.StringVar(&o.CrashDir, "crash-dir", ".", "`dir`ectory for the crash replay written when a system panics")
}

// RegisterNetwork defines the multiplayer flags on fs, into o: -serve,
// -connect, -spectate, -transport, -players, -max-players, -input-delay,
// -net-delay, -net-jitter, -net-loss, -net-dup, -net-reorder, -predict,
// -smooth and -credentials. Only a program that plays over the network (with
// package engine/netplay, as nebula-demo does) registers them.
func (o *Options) RegisterNetwork(fs *flag.FlagSet) {
	o.network = true
	fs.StringVar(&o.Serve, "serve", "", "run a dedicated match server on `addr` (port, :port or host:port; no host = 127.0.0.1 only; port 0 picks one): headless, real time")
	fs.StringVar(&o.Connect, "connect", "", "join the match of the server at `addr` as a player")
	fs.StringVar(&o.Spectate, "spectate", "", "watch the match of the server at `addr`, without a player")
	fs.IntVar(&o.Players, "players", 1, "with -serve: start the match once this many players are in")
	fs.IntVar(&o.MaxPlayers, "max-players", 8, "with -serve: the most players in the match at once")
	fs.IntVar(&o.InputDelay, "input-delay", -1, "ticks between the tick a player's input is sampled at and the tick it is for (-serve: advised to every client, default 0; -connect: this client's, default the server's)")
	fs.DurationVar(&o.NetDelay, "net-delay", 0, "with -connect or -spectate: add this one-way latency to the client's traffic, both ways (network simulator)")
	fs.DurationVar(&o.NetJitter, "net-jitter", 0, "with -net-delay: vary each chunk's latency by up to this much")
	fs.IntVar(&o.Predict, "predict", 8, "with -connect: simulate up to this many ticks past the last confirmed tick, predicting the others' inputs and rolling back when they differ (0: lockstep, every tick waits for its confirmed inputs)")
	fs.DurationVar(&o.Smooth, "smooth", 50*time.Millisecond, "with -connect: ease what a corrected prediction moves on screen, halving the jump every this long (0: show corrections at once)")
	fs.StringVar(&o.Transport, "transport", "tcp", "with -serve, -connect or -spectate: `tcp` or udp (the server listens on UDP at the same address)")
	fs.Float64Var(&o.NetLoss, "net-loss", 0, "with -transport udp and -connect or -spectate: lose this fraction (0 to 1) of the client's packets, each way (network simulator)")
	fs.Float64Var(&o.NetDup, "net-dup", 0, "with -transport udp and -connect or -spectate: duplicate this fraction (0 to 1) of the client's packets, each way")
	fs.Float64Var(&o.NetReorder, "net-reorder", 0, "with -transport udp and -connect or -spectate: delay this fraction (0 to 1) of the client's packets so later ones overtake them, each way")
	fs.StringVar(&o.Credentials, "credentials", "", "with -connect or -spectate: the connect token's credentials `file` (JSON, from the matchmaker) for a server that requires tokens; the traffic is then sealed")
}

// Networked reports whether the run is a match's server or client.
func (o *Options) Networked() bool { return o.Serve != "" || o.Client() }

// Client reports whether the run is a match's client (-connect or
// -spectate).
func (o *Options) Client() bool { return o.Connect != "" || o.Spectate != "" }

// ServerAddr returns the address a -connect or -spectate run dials.
func (o *Options) ServerAddr() string {
	if o.Connect != "" {
		return o.Connect
	}
	return o.Spectate
}

// ProfOptions returns the profiling switches the flags ask for.
func (o *Options) ProfOptions() prof.Options {
	return prof.Options{CPUProfile: o.CPUProfile, MemProfile: o.MemProfile, Trace: o.Trace, PprofAddr: o.Pprof}
}

// HitchConfig returns the hitch capture the flags ask for: the defaults
// with -hitch as the threshold and -hitch-dir as the directory. It is
// meaningful only when Hitch is above 0.
func (o *Options) HitchConfig() diag.HitchConfig {
	c := diag.DefaultHitchConfig()
	c.Threshold, c.Dir = o.Hitch, o.HitchDir
	return c
}

// LoopConfig returns the loop configuration the flags ask for.
func (o *Options) LoopConfig() timing.Config {
	return timing.Config{TickRate: o.TickRate, MaxFrameTime: o.MaxFrame, MaxStepsPerFrame: o.MaxSteps}
}

// HeadlessConfig returns the simulated display the flags ask for.
func (o *Options) HeadlessConfig() engine.HeadlessConfig {
	return engine.HeadlessConfig{DisplayHz: o.DisplayHz, Jitter: o.Jitter, JitterSeed: o.JitterSeed, Ticks: o.Ticks, Frames: o.Frames}
}

// ServerOptions returns the Options a dedicated server (package
// gameserver) hands a game's check of its flags, which has the shape of
// app.Game.Check: TickRate, Seed and LogLevel as the server's flags say,
// Headless true (a server has no window), the other fields at their zero
// value, and Given reporting the flags set on fs (on the command line or
// from the environment).
func ServerOptions(fs *flag.FlagSet, tickRate int, seed uint64, level logrus.Level) *Options {
	o := &Options{TickRate: tickRate, Seed: seed, LogLevel: level, Headless: true, given: map[string]bool{}}
	fs.Visit(func(f *flag.Flag) { o.given[f.Name] = true })
	return o
}

// Given reports whether the flag name (without its dash) was given on the
// command line; it knows every flag of the FlagSet Check was passed, the
// program's own included.
func (o *Options) Given(name string) bool { return o.given[name] }

// UsageError is a bad command line: an unknown flag, a value out of range
// or a flag that means nothing in the chosen mode. Its message is one line
// that names the flag.
type UsageError struct{ msg string }

// Error returns the one-line message.
func (e *UsageError) Error() string { return e.msg }

// Usagef returns a *UsageError with the formatted message, for a program
// that checks its own flags, or finds one it cannot honour.
func Usagef(format string, args ...any) *UsageError {
	return &UsageError{msg: fmt.Sprintf(format, args...)}
}

// ErrHelp is returned when the user asked for -h or -help; the usage has
// been written.
var ErrHelp = flag.ErrHelp

// Parse parses args (without the program name) with fs, on which the
// program has defined its flags (Register, RegisterRecording and its own).
// On -h it writes the usage, every flag of fs, to usage and returns
// ErrHelp; on an unknown flag, a value its type refuses or an argument
// that is not a flag it returns a *UsageError. The values are checked by
// Check, which comes next.
func Parse(fs *flag.FlagSet, args []string, usage io.Writer) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(usage, "Usage: %s [flags]\n", fs.Name())
			fs.SetOutput(usage)
			fs.PrintDefaults()
			return ErrHelp
		}
		return Usagef("%v (see -h)", err)
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q: %s takes only flags (see -h)", fs.Arg(0), fs.Name())
	}
	return nil
}

// Check completes o after fs, on which Register defined o's flags, has
// parsed the command line: it applies the -power preset, checks every
// value, and refuses a flag given in a mode where it means nothing. Its
// error is a *UsageError.
func (o *Options) Check(fs *flag.FlagSet) error {
	o.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.given[f.Name] = true })

	// The power preset sets the rates the user did not give.
	p, err := timing.ParsePower(o.power)
	if err != nil {
		return Usagef("-power %s: must be normal or low", o.power)
	}
	o.Power = p
	if !o.Given("tick-rate") {
		o.TickRate = p.TickRate()
	}
	if !o.Given("fps") {
		o.FPS = p.RenderRate()
	}

	bad := func(name string, value any, accepted string) error {
		return Usagef("-%s %v: %s", name, value, accepted)
	}
	switch {
	case timing.ValidateTickRate(o.TickRate) != nil:
		return bad("tick-rate", o.TickRate, fmt.Sprintf("must be an integer from %d to %d (Hz)", timing.MinTickRate, timing.MaxTickRate))
	case timing.ValidateRenderRate(o.FPS) != nil:
		return bad("fps", o.FPS, fmt.Sprintf("must be 0 (uncapped) or a rate up to %v (Hz)", timing.MaxRenderRate))
	case o.MaxFrame <= 0 || o.MaxFrame > timing.MaxMaxFrameTime:
		return bad("max-frame", o.MaxFrame, fmt.Sprintf("must be above 0 and at most %v", timing.MaxMaxFrameTime))
	case o.MaxSteps < 0:
		return bad("max-steps", o.MaxSteps, "must be 0 (no cap) or a positive number of steps")
	case o.frames < 0:
		return bad("frames", o.frames, "must be 0 (until closed) or a positive number of frames")
	case o.Duration < 0:
		return bad("duration", o.Duration, "must be 0 (until closed) or a positive duration such as 10s")
	case o.ticks < 0:
		return bad("ticks", o.ticks, "must be 0 (no limit) or a positive number of ticks")
	case !(o.DisplayHz > 0 && o.DisplayHz <= engine.MaxDisplayHz):
		return bad("display-hz", o.DisplayHz, fmt.Sprintf("must be above 0 and at most %v (Hz)", engine.MaxDisplayHz))
	case !(o.Jitter >= 0 && o.Jitter <= engine.MaxJitter):
		return bad("jitter", o.Jitter, fmt.Sprintf("must be from 0 to %v (a fraction of a frame)", engine.MaxJitter))
	case o.Width < 1 || o.Width > MaxWindow:
		return bad("width", o.Width, fmt.Sprintf("must be from 1 to %d pixels", MaxWindow))
	case o.Height < 1 || o.Height > MaxWindow:
		return bad("height", o.Height, fmt.Sprintf("must be from 1 to %d pixels", MaxWindow))
	case o.Hitch < 0:
		return bad("hitch", o.Hitch, "must be 0 (off) or a positive frame time such as 50ms")
	case o.HitchDir == "":
		return bad("hitch-dir", `""`, "must name a directory")
	}
	if o.Pprof != "" {
		if _, err := prof.ParseAddr(o.Pprof); err != nil {
			return &UsageError{msg: err.Error()}
		}
	}
	lv, err := logrus.ParseLevel(o.level)
	if err != nil {
		return bad("log-level", o.level, "must be one of panic, fatal, error, warn, info, debug, trace")
	}
	o.LogLevel = lv
	o.Frames, o.Ticks = uint64(o.frames), uint64(o.ticks)
	return o.checkModes()
}

// Flags that mean something in one mode only. Check refuses them, when
// given, in the other.
var (
	// windowFlags mean nothing with -headless: no window, no real frames.
	windowFlags = []string{"fps", "vsync", "duration", "pause-unfocused", "screenshot", "width", "height", "fullscreen", "hitch", "hitch-dir"}
	// headlessFlags describe the simulated display of -headless.
	headlessFlags = []string{"ticks", "display-hz", "jitter", "jitter-seed", "synctest"}
	// notVerified mean nothing with -verify, which steps the recorded
	// ticks at the recording's rate: no display, no frames, no loop.
	notVerified = []string{"power", "max-frame", "max-steps", "frames", "display-hz", "jitter", "jitter-seed", "stats"}
)

// checkModes refuses the flags given in a mode where they mean nothing,
// and the combinations that contradict each other.
func (o *Options) checkModes() error {
	if o.network {
		if err := o.checkNetwork(); err != nil {
			return err
		}
	}
	if o.Serve != "" {
		// A server is headless by nature and has no simulated display.
		for _, name := range append(append([]string{"headless", "frames"}, windowFlags...), "display-hz", "jitter", "jitter-seed", "synctest") {
			if o.Given(name) {
				return Usagef("-%s means nothing with -serve (a server has no window and runs in real time)", name)
			}
		}
		if o.Given("stats") {
			// A server renders no frames; its figures are the match
			// report at its end (and nebula-server's /metrics).
			return Usagef("-stats means nothing with -serve (a server has no frames; its figures are the match report at the end)")
		}
		o.Headless = true
		return nil
	}
	if o.Client() && o.Headless {
		for _, name := range []string{"frames", "display-hz", "jitter", "jitter-seed", "synctest"} {
			if o.Given(name) {
				return Usagef("-%s means nothing for a networked client (it runs in real time until the server ends the match)", name)
			}
		}
		return nil
	}
	if !o.Headless {
		for _, name := range headlessFlags {
			if o.Given(name) {
				return Usagef("-%s needs -headless", name)
			}
		}
	} else {
		for _, name := range windowFlags {
			if o.Given(name) {
				return Usagef("-%s needs a window: it means nothing with -headless", name)
			}
		}
	}
	switch {
	case o.Hitch == 0 && o.Given("hitch-dir"):
		return Usagef("-hitch-dir needs -hitch above 0")
	case o.Jitter == 0 && o.Given("jitter-seed"):
		return Usagef("-jitter-seed needs -jitter above 0")
	case o.Record != "" && o.Replay != "":
		return Usagef("-record and -replay exclude each other (a replay is already a recording)")
	case o.Verify && (o.Replay == "" || !o.Headless):
		return Usagef("-verify needs -replay and -headless")
	case o.Replay != "" && o.Headless && !o.Verify:
		return Usagef("-replay with -headless needs -verify (a headless replay only checks the recording)")
	case o.Partial && o.Replay == "":
		return Usagef("-partial needs -replay")
	case o.Replay != "" && o.Given("ticks"):
		return Usagef("-ticks conflicts with -replay (a replay runs its recording's ticks)")
	case o.Replay != "" && o.Given("crash-dir"):
		return Usagef("-crash-dir conflicts with -replay (a replay writes no crash replay)")
	case o.Given("crash-dir") && o.CrashDir == "":
		return Usagef(`-crash-dir "": must name a directory`)
	}
	if o.Verify {
		for _, name := range notVerified {
			if o.Given(name) {
				return Usagef("-%s means nothing with -verify (it steps the recorded ticks at the recording's rate, without a display)", name)
			}
		}
	}
	if o.Given("synctest") {
		switch {
		case o.SyncTest < 1 || o.SyncTest > rollback.MaxSyncTestDepth:
			return Usagef("-synctest %d: must be from 1 to %d ticks", o.SyncTest, rollback.MaxSyncTestDepth)
		case o.Replay != "":
			return Usagef("-synctest conflicts with -replay (a sync test simulates the game itself)")
		case o.Ticks == 0:
			return Usagef("-synctest needs -ticks")
		}
		for _, name := range notVerified {
			if o.Given(name) {
				return Usagef("-%s means nothing with -synctest (it steps the ticks without a display)", name)
			}
		}
	}
	if o.Headless && o.Ticks == 0 && o.Frames == 0 && o.Replay == "" && !o.Schedule {
		return Usagef("-headless needs -ticks or -frames (a headless run has no window to close)")
	}
	return nil
}

// checkNetwork checks the multiplayer flags.
func (o *Options) checkNetwork() error {
	n := 0
	for _, a := range []string{o.Serve, o.Connect, o.Spectate} {
		if a != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return Usagef("-serve, -connect and -spectate exclude each other")
	case o.Players < 1 || o.Players > engine.MaxPlayers:
		return Usagef("-players %d: must be from 1 to %d", o.Players, engine.MaxPlayers)
	case o.MaxPlayers < 1 || o.MaxPlayers > engine.MaxPlayers:
		return Usagef("-max-players %d: must be from 1 to %d", o.MaxPlayers, engine.MaxPlayers)
	case o.Players > o.MaxPlayers:
		return Usagef("-players %d: more than -max-players %d", o.Players, o.MaxPlayers)
	case o.Given("input-delay") && (o.InputDelay < 0 || o.InputDelay > 255):
		return Usagef("-input-delay %d: must be from 0 to 255 ticks", o.InputDelay)
	case o.NetDelay < 0:
		return Usagef("-net-delay %v: must be 0 or more", o.NetDelay)
	case o.NetJitter < 0:
		return Usagef("-net-jitter %v: must be 0 or more", o.NetJitter)
	case o.Predict < 0 || o.Predict > rollback.MaxDepth:
		return Usagef("-predict %d: must be from 0 (lockstep) to %d ticks", o.Predict, rollback.MaxDepth)
	case o.Smooth < 0:
		return Usagef("-smooth %v: must be 0 (off) or more", o.Smooth)
	case o.Transport != "tcp" && o.Transport != "udp":
		return Usagef("-transport %s: must be tcp or udp", o.Transport)
	case o.Given("transport") && !o.Networked():
		return Usagef("-transport needs -serve, -connect or -spectate")
	case o.Given("credentials") && !o.Client():
		return Usagef("-credentials needs -connect or -spectate (a server's clients present their tokens)")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"net-loss", o.NetLoss}, {"net-dup", o.NetDup}, {"net-reorder", o.NetReorder}} {
		switch {
		case !(f.v >= 0 && f.v <= 1): // NaN too
			return Usagef("-%s %v: must be from 0 to 1", f.name, f.v)
		case o.Given(f.name) && !o.Client():
			return Usagef("-%s needs -connect or -spectate (it simulates a client's network)", f.name)
		case o.Given(f.name) && o.Transport != "udp":
			return Usagef("-%s needs -transport udp (TCP loses, duplicates and reorders nothing its reader sees; -net-delay and -net-jitter model its retransmissions)", f.name)
		}
	}
	if o.Serve != "" {
		if _, err := ParseListenAddr(o.Serve); err != nil {
			return &UsageError{msg: err.Error()}
		}
	}
	for _, name := range []string{"players", "max-players"} {
		if o.Given(name) && o.Serve == "" {
			return Usagef("-%s needs -serve", name)
		}
	}
	for _, name := range []string{"predict", "smooth"} {
		if o.Given(name) && o.Connect == "" {
			return Usagef("-%s needs -connect (a player predicts; a server and a spectator only take confirmed ticks)", name)
		}
	}
	for _, name := range []string{"net-delay", "net-jitter"} {
		if o.Given(name) && !o.Client() {
			return Usagef("-%s needs -connect or -spectate (it delays a client's traffic)", name)
		}
	}
	switch {
	case o.Given("input-delay") && !o.Networked():
		return Usagef("-input-delay needs -serve or -connect")
	case o.Given("input-delay") && o.Spectate != "":
		return Usagef("-input-delay means nothing with -spectate (a spectator sends no input)")
	case o.Networked() && o.Schedule:
		return Usagef("-schedule conflicts with -serve, -connect and -spectate (it prints the game's own schedule without running it)")
	case o.Networked() && (o.Replay != "" || o.Verify || o.Partial):
		return Usagef("-replay conflicts with -serve, -connect and -spectate (replay the server's recording on its own)")
	case o.Client() && o.Given("ticks"):
		return Usagef("-ticks means nothing for a client: the server's -ticks ends the match")
	}
	return nil
}

// ParseListenAddr turns a -serve address into one to listen on: a port,
// :port or host:port; without a host it is 127.0.0.1 (this machine only),
// as -pprof's. Port 0 picks a free port.
func ParseListenAddr(s string) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		host, port = "", s
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("-serve %s: want a port (7000), :port or host:port (0.0.0.0:7000 to accept other machines)", s)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// Summary describes the options in one line for the log.
func (o *Options) Summary() string {
	var b strings.Builder
	if o.Serve != "" {
		// A server draws nothing and runs in real time: only the match's
		// own settings mean something.
		fmt.Fprintf(&b, "match server: tick %d Hz, seed %d", o.TickRate, o.Seed)
		if o.Record != "" {
			fmt.Fprintf(&b, ", recording to %s", o.Record)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "tick %d Hz, render cap %v Hz, vsync %v, seed %d", o.TickRate, o.FPS, o.VSync, o.Seed)
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
