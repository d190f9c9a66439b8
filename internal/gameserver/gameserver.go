package gameserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/internal/cli"
	"github.com/nebulaengine/nebula/internal/serverops"
)

// The exit statuses of Main, which a dedicated server's main returns to
// the operating system.
const (
	// ExitOK: the match ended as configured (its last tick, -ticks) or
	// was ended by SIGTERM or SIGINT, its clients told why; or -h.
	ExitOK = 0
	// ExitFailed: the match failed once running (a panic in a system, a
	// listener that failed, an extension's error), with one line
	// "<program>: <what went wrong>" on stderr.
	ExitFailed = 1
	// ExitUsage: a bad flag or environment variable, refused before
	// anything starts, with one line naming it on stderr.
	ExitUsage = 2
	// ExitListen: a port could not be opened (in use, not allowed, no
	// such address): the server never listened.
	ExitListen = 3
)

// Game is a game a dedicated server hosts: what a program registers with
// Main. A game made from Nebula's template registers its own in a few
// lines (see the package doc).
type Game struct {
	// Scene is the game's scene id (netplay.ServerConfig.Scene, at most
	// 64 bytes): a client running another is refused.
	Scene string
	// Flags, if not nil, defines the game's own flags on fs (an entity
	// count, a level), beside the server's. Like the server's, each may
	// also be set by an environment variable (NEBULA_ and the flag's
	// name in capitals, "-" as "_").
	Flags func(fs *flag.FlagSet)
	// CheckOptions, if not nil, checks the game's own flags once parsed,
	// as app.Game.Check does for the game's windowed program (the same
	// function serves both): opts holds what the server knows (TickRate,
	// Seed, LogLevel; Headless is true) and opts.Given tells which flags
	// were given, on the command line or in the environment. An error it
	// returns is bad usage (ExitUsage), printed as its one line. The bot
	// subcommand calls it too, on its own flags.
	CheckOptions func(opts *cli.Options) error
	// Check, if not nil, is called after CheckOptions, alike.
	//
	// Deprecated: use CheckOptions, which has app.Game.Check's shape.
	Check func() error
	// Actions declares the game's actions (input.ActionMap): the same
	// declaration as its windowed program's app.Game.Actions. The bots
	// resolve them from their scripts' keys and buttons, so that a bot
	// that presses a bound key sends the action, as a player's window
	// does. The server itself needs none: its clients send their actions
	// resolved.
	Actions input.ActionMap
	// Params names the game's own flags the simulation depends on: the
	// server sends their values and -seed to every client in its Welcome,
	// in the encoding of cli.Params (what app.Game.Params names for the
	// game's windowed program, which then takes them).
	Params []string
	// Setup builds the game's world on e (its systems, its entities),
	// from the values of its flags. e has the match's tick rate and seed
	// and has run no tick.
	Setup func(e *engine.Engine) error
	// Script, if not nil, is the input of a bot (a headless client of the
	// bot subcommand) playing player p: an input script
	// (engine.Engine.SetInputScript). nil: bots send no input.
	Script func(p engine.PlayerID) func(tick uint64, due time.Duration, in *input.Queue)
}

// An Extension joins a dedicated server's life: an orchestrator's SDK
// (Agones), a durable match log, connect tokens. Every field is optional.
// Main calls them in the order of Program.Extensions, at these points:
// Flags when the flags are defined, Check once they are parsed, Configure
// before the match's server is made, Listening once the ports are open,
// Ended once the match is over.
type Extension struct {
	// Name names the extension in errors ("agones: ...").
	Name string
	// Flags defines the extension's flags on fs (each also set by its
	// NEBULA_ environment variable).
	Flags func(fs *flag.FlagSet)
	// Check checks them once parsed: an error is bad usage (ExitUsage).
	Check func() error
	// Configure may change s.Config (the match's netplay.ServerConfig)
	// and add tick hooks to s.Engine, before the match's server is made;
	// an error ends the program (ExitFailed). s.Config.Trace is already
	// every extension's Trace merged with the operator port's: keep it.
	Configure func(s *Server) error
	// Trace, if not nil, receives the server's events (beside the
	// operator port's metrics).
	Trace *netplay.ServerTrace
	// Server, if not nil, may make the match's server from s (its
	// Engine, set up at tick 0, and its Config) in place of
	// netplay.NewServer, after every Configure: a match resumed from its
	// log (netplay.ResumeServer). It returns nil and no error to leave it
	// to netplay.NewServer; the first extension that makes one is used.
	// An error ends the program (ExitFailed).
	Server func(s *Server) (*netplay.Server, error)
	// Listening is called once the ports are open (s.Addrs), before the
	// first client is accepted. It may block, for instance until an
	// orchestrator allocates the server; ctx ends on SIGTERM or SIGINT.
	// An error ends the program (ExitFailed) before the match.
	Listening func(ctx context.Context, s *Server) error
	// Ended is called once the match is over, with its report and the
	// error it ended with (nil: it ended as configured or by a signal).
	// An error it returns makes the exit status ExitFailed.
	Ended func(s *Server, rep netplay.Report, err error) error
}

// Program is a dedicated server program: its name, the game it hosts and
// its extensions.
type Program struct {
	// Name is the program's name, in its usage and error lines.
	Name string
	// Game is the game it hosts.
	Game Game
	// Extensions join the server's life, in order.
	Extensions []Extension
}

// Server is the dedicated server of one match, as Main runs it; the
// extensions see it.
type Server struct {
	// Program is the program running it.
	Program *Program
	// MatchID is the match's id (-match).
	MatchID string
	// Log is the server's logger (its lines carry the match id).
	Log logrus.FieldLogger
	// Engine is the match's engine, the game's world set up on it.
	Engine *engine.Engine
	// Config is the match's configuration: an Extension's Configure may
	// change it before the match's server is made from it.
	Config netplay.ServerConfig
	// Addrs are the addresses the server listens on, TCP's then UDP's
	// (set before Listening).
	Addrs []net.Addr
	// Stdout is where the match report is written.
	Stdout io.Writer

	srv *netplay.Server
}

// Close ends the match: its clients are told the server is shutting
// down. Safe from any goroutine, more than once, once Listening is
// called.
func (s *Server) Close() {
	if s.srv != nil {
		s.srv.Close()
	}
}

// Main runs the program with args (without the program's name): the
// server of one match of p.Game, until the match's last tick, SIGTERM or
// SIGINT, or a failure; or a subcommand ("bot", "token": see the package
// doc). env looks up an environment variable (os.LookupEnv). It returns
// the exit status (ExitOK, ExitFailed, ExitUsage, ExitListen).
func Main(p Program, args []string, env func(string) (string, bool), stdout, stderr io.Writer) int {
	if p.Game.Setup == nil {
		panic("gameserver: Program.Game.Setup is nil")
	}
	if p.Game.Actions.Len() > 0 {
		if _, err := p.Game.Actions.New(); err != nil {
			fmt.Fprintf(stderr, "%s: the game's actions: %v\n", p.Name, err)
			return ExitFailed
		}
	}
	if len(args) > 0 {
		switch args[0] {
		case "bot":
			return runBot(&p, args[1:], stdout, stderr)
		case "token":
			return runToken(p.Name, args[1:], time.Now(), stdout, stderr)
		}
	}
	c, err := parseConfig(&p, args, env, stderr)
	if errors.Is(err, cli.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", p.Name, err)
		return ExitUsage
	}
	log := newLogger(stderr, c.logFormat, c.logLevel)
	code, err := serve(&p, c, log, stdout)
	if err != nil {
		log.WithError(err).Error("the server failed")
		fmt.Fprintf(stderr, "%s: %v\n", p.Name, err)
	}
	return code
}

// checkGame runs the game's checks of its flags on fs (Game.CheckOptions,
// then the deprecated Game.Check).
func checkGame(g *Game, fs *flag.FlagSet, tickRate int, seed uint64, level logrus.Level) error {
	if g.CheckOptions != nil {
		if err := g.CheckOptions(cli.ServerOptions(fs, tickRate, seed, level)); err != nil {
			return err
		}
	}
	if g.Check != nil {
		return g.Check()
	}
	return nil
}

// newLogger returns the server's logger: JSON lines or text, at level.
func newLogger(w io.Writer, format string, level logrus.Level) *logrus.Logger {
	log := logrus.New()
	log.SetOutput(w)
	log.SetLevel(level)
	if format == "json" {
		log.SetFormatter(&logrus.JSONFormatter{TimestampFormat: time.RFC3339Nano})
	} else {
		log.SetFormatter(&logrus.TextFormatter{FullTimestamp: true, TimestampFormat: time.RFC3339Nano, DisableColors: true})
	}
	return log
}

// newMatchID returns a random match id: 16 hex digits.
func newMatchID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// serve runs the match c describes; it returns the exit status and the
// error to report.
func serve(p *Program, c *config, base *logrus.Logger, stdout io.Writer) (int, error) {
	log := base.WithField("match", c.matchID)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer func() { signal.Stop(sigs); close(sigs) }()
	ecfg := engine.DefaultConfig()
	ecfg.Loop.TickRate, ecfg.Seed = c.tickRate, c.seed
	e, err := engine.New(ecfg)
	if err != nil {
		return ExitUsage, err
	}
	if err := p.Game.Setup(e); err != nil {
		return ExitFailed, fmt.Errorf("game set-up: %w", err)
	}
	e.SetInputScript(nil) // the players' input comes from the clients
	params := cli.FlagParams(c.fs, p.Game.Params)
	params["seed"] = fmt.Sprint(c.seed)
	encoded, err := params.MarshalBinary()
	if err != nil {
		return ExitFailed, err
	}
	s := &Server{Program: p, MatchID: c.matchID, Log: log, Engine: e, Stdout: stdout}
	s.Config = netplay.DefaultServerConfig()
	s.Config.Scene, s.Config.Params = p.Game.Scene, encoded
	s.Config.Players, s.Config.MaxPlayers, s.Config.MaxSpectators = c.players, c.maxPlayers, c.spectators
	s.Config.Ticks = c.ticks
	s.Config.Log = log
	if c.tokenKey != nil {
		s.Config.TokenKey, s.Config.MatchID = c.tokenKey, c.matchID
		s.Config.RejoinGrace, s.Config.SpectatorsWithoutToken = c.rejoinGrace, c.spectatorsWithoutToken
	}

	metrics := serverops.NewMetrics(serverops.MatchInfo{Match: c.matchID, Scene: p.Game.Scene})
	health := serverops.NewHealth(c.stallAfter)
	// /healthz says the match is ending from its last tick on, while the
	// server waits for its clients' goodbyes.
	last := &netplay.ServerTrace{TickConfirmed: func(tick uint64, _ time.Duration) {
		if c.ticks != 0 && tick >= c.ticks {
			health.Ending()
		}
	}}
	traces := []*netplay.ServerTrace{metrics.Trace(), health.Trace(), last}
	for _, x := range p.Extensions {
		traces = append(traces, x.Trace)
	}
	s.Config.Trace = mergeTraces(traces...)
	for _, x := range p.Extensions {
		if x.Configure != nil {
			if err := x.Configure(s); err != nil {
				return ExitFailed, fmt.Errorf("%s: %w", x.Name, err)
			}
		}
	}
	for _, x := range p.Extensions {
		if x.Server == nil || s.srv != nil {
			continue
		}
		if s.srv, err = x.Server(s); err != nil {
			return ExitFailed, fmt.Errorf("%s: %w", x.Name, err)
		}
	}
	if s.srv == nil {
		if s.srv, err = netplay.NewServer(e, s.Config); err != nil {
			return ExitUsage, err
		}
	}

	ln, names, opsLn, err := s.listen(c)
	if err != nil {
		return ExitListen, err
	}
	fields := logrus.Fields{"scene": p.Game.Scene, "players": s.Config.Players, "max_players": s.Config.MaxPlayers,
		"spectators": s.Config.MaxSpectators, "tick_rate": c.tickRate, "ticks": s.Config.Ticks, "seed": c.seed,
		"tokens": s.Config.TokenKey != nil}
	for i, a := range s.Addrs {
		fields[names[i]] = a.String()
	}
	for name, v := range params {
		if name != "seed" {
			fields[name] = v
		}
	}
	var opsDone chan error
	var ops *serverops.Server
	if opsLn != nil {
		fields["ops"] = opsLn.Addr().String()
		ops = serverops.Serve(opsLn, metrics, health)
		opsDone = make(chan error, 1)
		go func() { opsDone <- ops.Wait() }()
	}
	log.WithFields(fields).Info("listening")

	// SIGTERM or SIGINT ends the match: the clients are told the server
	// is shutting down (wire.EndShutdown, or a Refuse to one in its
	// handshake), the match's end is logged, and Main returns ExitOK. (A
	// signal that came earlier waits in sigs.)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopping := make(chan struct{}) // closed at the first signal
	var over atomic.Bool            // the match is over: a signal ends -ops-linger
	go func() {
		sig, ok := <-sigs
		if !ok {
			return
		}
		if over.Load() {
			log.WithField("signal", sig.String()).Info("signal: closing the operator port")
		} else {
			log.WithField("signal", sig.String()).Info("signal: ending the match; the clients are told the server is shutting down")
		}
		health.Ending()
		cancel()
		s.srv.Close()
		close(stopping)
	}()

	var runErr error
	for _, x := range p.Extensions {
		if x.Listening != nil {
			if err := x.Listening(ctx, s); err != nil {
				runErr = fmt.Errorf("%s: %w", x.Name, err)
				s.srv.Close()
				break
			}
		}
	}
	serveErr := s.srv.Serve(ln) // closes ln; returns at once when closed above
	over.Store(true)
	if runErr == nil {
		runErr = serveErr
	}
	health.Ending()
	rep := s.srv.Report()
	rep.WriteText(stdout)
	endFields := logrus.Fields{"ticks": rep.Ticks, "duration": rep.Duration.String(), "desyncs": rep.Desyncs,
		"tick_p50": rep.TickTime.P50.String(), "tick_p99": rep.TickTime.P99.String(), "tick_max": rep.TickTime.Max.String(),
		"hash": fmt.Sprintf("%016x", e.World.Hash())}
	if rep.ResumedAt > 0 { // the ticks since, in the duration
		endFields["resumed_at"] = rep.ResumedAt
	}
	for _, x := range p.Extensions {
		if x.Ended != nil {
			if err := x.Ended(s, rep, runErr); err != nil && runErr == nil {
				runErr = fmt.Errorf("%s: %w", x.Name, err)
			}
		}
	}
	if runErr != nil {
		log.WithFields(endFields).WithError(runErr).Error("match failed")
	} else {
		fmt.Fprintf(stdout, "state-hash %d %016x\n", e.World.Tick(), e.World.Hash())
		log.WithFields(endFields).Info("match ended")
	}
	if ops != nil {
		if c.opsLinger > 0 {
			// The operator port stays up a while, for a last scrape of
			// the final figures (and /healthz says 503), unless a signal
			// comes.
			linger := time.NewTimer(c.opsLinger)
			select {
			case <-linger.C:
			case <-stopping:
			}
			linger.Stop()
		}
		ops.Close()
		if err := <-opsDone; err != nil && runErr == nil {
			runErr = fmt.Errorf("operator port: %w", err)
		}
	}
	if runErr != nil {
		return ExitFailed, runErr
	}
	return ExitOK, nil
}
