package gameserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/internal/cli"
)

// botConfig is the bot subcommand's command line.
type botConfig struct {
	connect   string
	n         int
	udp       bool
	spectate  bool
	predict   int
	name      string
	logFormat string
	level     string
}

// MaxBots is the most clients one bot process runs.
const MaxBots = 64

// runBot is the bot subcommand: n headless clients of p.Game join the
// match at -connect and play it to its end, each on its own engine, with
// the game's bot script as input; each prints one line, "bot I: player P
// ticks T end REASON hash H", and the subcommand exits ExitOK when every
// client saw the match end, ExitFailed when one failed, ExitUsage on a
// bad flag. SIGTERM or SIGINT makes the clients leave.
func runBot(p *Program, args []string, stdout, stderr io.Writer) int {
	name := p.Name + " bot"
	var c botConfig
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.StringVar(&c.connect, "connect", "", "`host:port` of the match server to join (required)")
	fs.IntVar(&c.n, "n", 1, fmt.Sprintf("clients to run, each a player (or a spectator), 1 to %d", MaxBots))
	fs.BoolVar(&c.udp, "udp", false, "join over UDP (default: TCP)")
	fs.BoolVar(&c.spectate, "spectate", false, "join as spectators")
	fs.IntVar(&c.predict, "predict", 0, "ticks a client may predict ahead of the confirmed ones (0: lockstep)")
	fs.StringVar(&c.name, "name", "bot", "the clients' name in the server's log (each gets -I)")
	fs.StringVar(&c.logFormat, "log-format", "text", "log lines as json or text")
	fs.StringVar(&c.level, "log-level", "warn", "logrus level: panic, fatal, error, warn, info, debug or trace")
	if p.Game.Flags != nil {
		p.Game.Flags(fs)
	}
	err := cli.Parse(fs, args, stderr)
	if errors.Is(err, cli.ErrHelp) {
		return ExitOK
	}
	if err == nil {
		err = c.check()
	}
	if err == nil && p.Game.Check != nil {
		err = p.Game.Check()
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitUsage
	}
	lv, _ := logrus.ParseLevel(c.level)
	log := newLogger(stderr, c.logFormat, lv)

	// The client tells the server its world's schema: the game's world,
	// built from the flags given here (which must make the same schema
	// as the server's), is probed for it.
	probe, err := engine.New(engine.DefaultConfig())
	if err == nil {
		err = p.Game.Setup(probe)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: game set-up: %v\n", name, err)
		return ExitFailed
	}
	fingerprint := probe.World.Schema().Fingerprint()

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	b := &bots{p: p, fs: fs, c: &c, log: log, fingerprint: fingerprint}
	lines := make([]string, c.n)
	errs := make([]error, c.n)
	var wg sync.WaitGroup
	for i := range c.n {
		wg.Go(func() { lines[i], errs[i] = b.play(ctx, i) })
	}
	wg.Wait()
	code := ExitOK
	for i := range c.n {
		if errs[i] != nil {
			fmt.Fprintf(stderr, "%s: bot %d: %v\n", name, i, errs[i])
			code = ExitFailed
			continue
		}
		fmt.Fprintln(stdout, lines[i])
	}
	return code
}

func (c *botConfig) check() error {
	switch {
	case c.connect == "":
		return cli.Usagef("-connect is required: the match server's host:port")
	case c.n < 1 || c.n > MaxBots:
		return cli.Usagef("-n %d: must be from 1 to %d", c.n, MaxBots)
	case c.predict < 0 || c.predict > 64:
		return cli.Usagef("-predict %d: must be from 0 to 64", c.predict)
	case c.logFormat != "json" && c.logFormat != "text":
		return cli.Usagef("-log-format %q: must be json or text", c.logFormat)
	}
	if _, err := logrus.ParseLevel(c.level); err != nil {
		return cli.Usagef("-log-level %q: must be one of panic, fatal, error, warn, info, debug, trace", c.level)
	}
	return nil
}

// bots runs the bot subcommand's clients.
type bots struct {
	p           *Program
	fs          *flag.FlagSet
	c           *botConfig
	log         *logrus.Logger
	fingerprint uint64

	mu sync.Mutex // the game's flags, which the server's parameters set, and its Setup
}

// play runs bot i: it joins, plays the match to its end, and returns its
// line.
//
//srccheck:wrapped by runBot, which prints "<program> bot: bot I: ..."
func (b *bots) play(ctx context.Context, i int) (string, error) {
	cfg := netplay.DefaultClientConfig()
	cfg.Role, cfg.Scene, cfg.Fingerprint = wire.RolePlayer, b.p.Game.Scene, b.fingerprint
	if b.c.spectate {
		cfg.Role = wire.RoleSpectator
	}
	if b.c.udp {
		cfg.Transport = netplay.UDP
	}
	cfg.Predict = b.c.predict
	cfg.Name = fmt.Sprintf("%s-%d", b.c.name, i)
	cfg.Log = b.log.WithField("bot", i)
	c, err := netplay.Dial(ctx, b.c.connect, cfg)
	if err != nil {
		return "", err
	}
	defer c.Close()
	w := c.Welcome()
	e, err := b.engine(w)
	if err != nil {
		return "", err
	}
	var script func(uint64, time.Duration, *input.Queue)
	if w.Player != wire.NoPlayer && b.p.Game.Script != nil {
		script = b.p.Game.Script(engine.PlayerID(w.Player))
	}
	if err := c.Attach(e, script); err != nil {
		return "", err
	}
	if err := c.RunHeadless(ctx); err != nil {
		return "", err
	}
	who := "spectator"
	if w.Player != wire.NoPlayer {
		who = fmt.Sprintf("player %d", w.Player)
	}
	return fmt.Sprintf("bot %d: %s ticks %d end %q hash %016x", i, who, e.World.Tick(), c.EndReason().String(), e.World.Hash()), nil
}

// engine builds the match's engine from the server's Welcome: its tick
// rate, its seed and the game's parameters, set on the game's flags
// before Setup.
func (b *bots) engine(w wire.Welcome) (*engine.Engine, error) {
	params, err := cli.ParseParams(w.Params)
	if err != nil {
		return nil, err
	}
	cfg := engine.DefaultConfig()
	cfg.Loop.TickRate = int(w.TickRate)
	b.mu.Lock()
	defer b.mu.Unlock()
	for name, v := range params {
		if name == "seed" {
			if cfg.Seed, err = strconv.ParseUint(v, 10, 64); err != nil {
				return nil, fmt.Errorf("the server's seed %q: %w", v, err)
			}
			continue
		}
		if b.fs.Lookup(name) == nil {
			return nil, fmt.Errorf("the server's parameter %q names no flag of the game's", name)
		}
		if err := b.fs.Set(name, v); err != nil {
			return nil, fmt.Errorf("the server's parameter %s: %w", name, err)
		}
	}
	e, err := engine.New(cfg)
	if err != nil {
		return nil, err
	}
	if err := b.p.Game.Setup(e); err != nil {
		return nil, fmt.Errorf("game set-up: %w", err)
	}
	e.SetInputScript(nil)
	return e, nil
}
