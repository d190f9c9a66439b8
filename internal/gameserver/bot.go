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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/token"
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
	keyFile   string // -key: the bots mint their own tokens under it
	matchID   string
	firstSeat int
	key       *token.Key
	credsFile string              // -credentials: the bots' credentials files, comma-separated
	creds     []token.Credentials // read from credsFile by check, one a bot
}

// MaxBots is the most clients one bot process runs.
const MaxBots = 64

// runBot is the bot subcommand: n headless clients of p.Game join the
// match at -connect and play it to its end, each on its own engine, with
// the game's bot script as input; each prints one line, "bot I: player P
// ticks T end REASON hash H", and the subcommand exits ExitOK when every
// client saw the match end, ExitFailed when one failed or the match
// failed on the server, ExitUsage on a bad flag or an unusable
// -credentials file. SIGTERM or SIGINT makes the clients leave.
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
	fs.StringVar(&c.keyFile, "key", "", "for a server with -key: the bots mint their own connect tokens under the key in `file` (a test's or a load test's stand-in for a matchmaker)")
	fs.StringVar(&c.matchID, "match", "", "with -key: the server's match `id`")
	fs.IntVar(&c.firstSeat, "first-seat", 0, "with -key: bot I takes seat first-seat + I")
	fs.StringVar(&c.credsFile, "credentials", "", "for a server with -key: the connect tokens' credentials `files`, comma-separated, one a bot (JSON, as a matchmaker hands them or "+p.Name+" token prints them): bot I presents the I-th, and may rejoin with it")
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
	lv, _ := logrus.ParseLevel(c.level)
	if err == nil {
		err = checkGame(&p.Game, fs, 0, 0, lv)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitUsage
	}
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
	case c.keyFile != "" && c.matchID == "":
		return cli.Usagef("-key needs -match: the server's match id")
	case c.keyFile == "" && (c.matchID != "" || c.firstSeat != 0):
		return cli.Usagef("-match and -first-seat mean nothing without -key")
	case c.keyFile != "" && c.credsFile != "":
		return cli.Usagef("-key and -credentials: the bots either mint their tokens (-key) or present the ones given (-credentials)")
	case c.firstSeat < 0 || c.firstSeat+c.n-1 > int(token.MaxSeat):
		return cli.Usagef("-first-seat %d: the seats of -n %d bots must be from 0 to %d", c.firstSeat, c.n, token.MaxSeat)
	}
	if c.keyFile != "" {
		k, err := token.LoadKeyFile(c.keyFile)
		if err != nil {
			return cli.Usagef("-key %s: %v", c.keyFile, err)
		}
		c.key = &k
	}
	if c.credsFile != "" {
		files := strings.Split(c.credsFile, ",")
		if len(files) != c.n {
			return cli.Usagef("-credentials names %d files for -n %d bots: one a bot", len(files), c.n)
		}
		for _, f := range files {
			cr, err := token.ReadCredentialsFile(f)
			if err != nil {
				return cli.Usagef("-credentials %s: %v", f, err)
			}
			c.creds = append(c.creds, cr)
		}
	}
	if _, err := logrus.ParseLevel(c.level); err != nil {
		return cli.Usagef("-log-level %q: must be one of panic, fatal, error, warn, info, debug, trace", c.level)
	}
	return nil
}

// botTokenTTL is the life of the tokens bots mint: long enough to rejoin
// during a long match.
const botTokenTTL = time.Hour

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
	if b.c.key != nil {
		req := token.Request{MatchID: b.c.matchID, Seat: token.Seat(b.c.firstSeat + i), TTL: botTokenTTL}
		if b.c.spectate {
			req.Seat = token.Spectator
		}
		creds, err := token.Mint(*b.c.key, req, time.Now())
		if err != nil {
			return "", err
		}
		cfg.Credentials = &creds
	}
	if b.c.creds != nil {
		cfg.Credentials = &b.c.creds[i]
	}
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
	if c.EndReason() == wire.EndFailed {
		return "", fmt.Errorf("the match failed on the server at tick %d (the server's log says why)", e.World.Tick())
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
	if b.p.Game.Actions.Len() > 0 {
		// The bot's script presses keys; its input carries the actions
		// they are bound to (Client.Attach takes the engine's).
		a, err := b.p.Game.Actions.New()
		if err != nil {
			return nil, fmt.Errorf("the game's actions: %w", err)
		}
		e.Input.SetActions(a)
	}
	return e, nil
}
