package gameserver

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine/netplay/token"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/internal/cli"
	"github.com/nebulaengine/nebula/timing"
)

// EnvPrefix starts the environment variable of every flag: -udp-port is
// also NEBULA_UDP_PORT. A flag on the command line wins over its variable.
const EnvPrefix = "NEBULA_"

// EnvName returns the environment variable that sets flag name.
func EnvName(name string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// DefaultPort is the default TCP and UDP port of a match.
const DefaultPort = 7777

// config is the server's command line, parsed and checked.
type config struct {
	fs *flag.FlagSet

	addr          string
	port, udpPort int
	players       int
	maxPlayers    int
	spectators    int
	matchID       string
	tickRate      int
	ticks         uint64
	seed          uint64
	logFormat     string
	level         string
	logLevel      logrus.Level
	ops           string
	stallAfter    time.Duration
	opsLinger     time.Duration

	keyFile                string
	tokenKey               *token.Key // -key's, loaded by check
	rejoinGrace            time.Duration
	spectatorsWithoutToken bool
}

// register defines the server's own flags on fs; program is the
// program's name, in the help.
func (c *config) register(fs *flag.FlagSet, program string) {
	fs.StringVar(&c.addr, "addr", "", "`host` address to listen on (default: every interface)")
	fs.IntVar(&c.port, "port", DefaultPort, "TCP port of the match (0: a free port, -1: no TCP)")
	fs.IntVar(&c.udpPort, "udp-port", DefaultPort, "UDP port of the match (0: a free port, -1: no UDP)")
	fs.IntVar(&c.players, "players", 1, "players the match waits for before it starts")
	fs.IntVar(&c.maxPlayers, "max-players", 8, fmt.Sprintf("players the match holds at once (from -players to %d); more join the running match up to it", wire.MaxPlayers))
	fs.IntVar(&c.spectators, "spectators", 16, "spectators the match lets in at once (0: none)")
	fs.StringVar(&c.matchID, "match", "", "the match's `id` in the log and the metrics, 1 to 64 letters, digits, '.', '_' or '-' (default: 16 random hex digits)")
	fs.IntVar(&c.tickRate, "tick-rate", timing.DefaultTickRate, fmt.Sprintf("fixed simulation rate in Hz (%d to %d)", timing.MinTickRate, timing.MaxTickRate))
	fs.Uint64Var(&c.ticks, "ticks", 0, "end the match at this tick (0: run until SIGTERM or SIGINT)")
	fs.Uint64Var(&c.seed, "seed", 1, "world RNG seed, sent to the clients")
	fs.StringVar(&c.logFormat, "log-format", "json", "log lines as json (for machines) or text (for people)")
	fs.StringVar(&c.level, "log-level", "info", "logrus level: panic, fatal, error, warn, info, debug or trace")
	fs.StringVar(&c.ops, "ops", "", "`host:port` of the operator port: /healthz and /metrics over HTTP (127.0.0.1:0 picks a free port, logged; default: off)")
	fs.StringVar(&c.keyFile, "key", "", "connect tokens: every client must present a token of this match sealed under the key in `file` (package token's key file: "+program+" token -new-key makes one); the traffic is then sealed")
	fs.DurationVar(&c.rejoinGrace, "rejoin-grace", 0, "with -key: how long a player whose connection ended keeps its seat for its return with its token (0: none)")
	fs.BoolVar(&c.spectatorsWithoutToken, "spectators-without-token", false, "with -key: let spectators in without a token (their traffic in clear)")
	fs.DurationVar(&c.opsLinger, "ops-linger", 0, "keep the operator port up this long after the match ends, for a last scrape (a signal ends the wait)")
	fs.DurationVar(&c.stallAfter, "stall-after", 5*time.Second, "/healthz answers 503 when the running match confirms no tick for this long")
}

// check checks the values, returning a *cli.UsageError naming the flag.
func (c *config) check() error {
	port := func(name string, v int) error {
		if v < -1 || v > math.MaxUint16 {
			return cli.Usagef("-%s %d: must be a port from 0 to 65535, or -1 for none", name, v)
		}
		return nil
	}
	if err := port("port", c.port); err != nil {
		return err
	}
	if err := port("udp-port", c.udpPort); err != nil {
		return err
	}
	switch {
	case c.port < 0 && c.udpPort < 0:
		return cli.Usagef("-port -1 and -udp-port -1: the match needs a TCP or a UDP port")
	case c.maxPlayers < 1 || c.maxPlayers > wire.MaxPlayers:
		return cli.Usagef("-max-players %d: must be from 1 to %d", c.maxPlayers, wire.MaxPlayers)
	case c.players < 1 || c.players > c.maxPlayers:
		return cli.Usagef("-players %d: must be from 1 to -max-players (%d)", c.players, c.maxPlayers)
	case c.spectators < 0:
		return cli.Usagef("-spectators %d: must be 0 or more", c.spectators)
	case timing.ValidateTickRate(c.tickRate) != nil:
		return cli.Usagef("-tick-rate %d: must be from %d to %d Hz", c.tickRate, timing.MinTickRate, timing.MaxTickRate)
	case c.logFormat != "json" && c.logFormat != "text":
		return cli.Usagef("-log-format %q: must be json or text", c.logFormat)
	case c.opsLinger < 0:
		return cli.Usagef("-ops-linger %v: must be 0 or more", c.opsLinger)
	case c.stallAfter <= 0:
		return cli.Usagef("-stall-after %v: must be above 0", c.stallAfter)
	case c.rejoinGrace < 0:
		return cli.Usagef("-rejoin-grace %v: must be 0 or more", c.rejoinGrace)
	case c.rejoinGrace > 0 && c.keyFile == "":
		return cli.Usagef("-rejoin-grace needs -key (tokens tell a player's return from a newcomer)")
	case c.spectatorsWithoutToken && c.keyFile == "":
		return cli.Usagef("-spectators-without-token needs -key (without it nobody needs a token)")
	}
	if c.keyFile != "" {
		k, err := token.LoadKeyFile(c.keyFile)
		if err != nil {
			return cli.Usagef("-key %s: %v", c.keyFile, err)
		}
		c.tokenKey = &k
	}
	if c.ops != "" {
		if err := checkHostPort(c.ops); err != nil {
			return cli.Usagef("-ops %q: %v", c.ops, err)
		}
	}
	if c.matchID == "" {
		c.matchID = newMatchID()
	} else if err := checkMatchID(c.matchID); err != nil {
		return cli.Usagef("-match %q: %v", c.matchID, err)
	}
	lv, err := logrus.ParseLevel(c.level)
	if err != nil {
		return cli.Usagef("-log-level %q: must be one of panic, fatal, error, warn, info, debug, trace", c.level)
	}
	c.logLevel = lv
	return nil
}

// checkHostPort checks that addr is host:port with a port from 0 to
// 65535; whether the host can be listened on is found when it is.
//
//srccheck:wrapped by config.check, as a usage error naming -ops
func checkHostPort(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("want host:port: %w", err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("port %q: must be a port from 0 to 65535", port)
	}
	return nil
}

// MaxMatchID is the longest match id.
const MaxMatchID = 64

// checkMatchID checks a match id: 1 to MaxMatchID letters, digits, '.',
// '_' or '-' (a Kubernetes label's value, a file name, a metric's label).
//
//srccheck:wrapped by config.check, as a usage error naming -match
func checkMatchID(id string) error {
	if len(id) == 0 || len(id) > MaxMatchID {
		return fmt.Errorf("must be 1 to %d characters", MaxMatchID)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("%q is not a letter, a digit, '.', '_' or '-'", r)
		}
	}
	return nil
}

// parseConfig defines the server's flags, the game's and the extensions'
// on one flag.FlagSet, parses args, then sets every flag not given from
// its environment variable (env), and checks them all.
func parseConfig(p *Program, args []string, env func(string) (string, bool), usage io.Writer) (*config, error) {
	c := &config{fs: flag.NewFlagSet(p.Name, flag.ContinueOnError)}
	c.register(c.fs, p.Name)
	if p.Game.Flags != nil {
		p.Game.Flags(c.fs)
	}
	for _, x := range p.Extensions {
		if x.Flags != nil {
			x.Flags(c.fs)
		}
	}
	for _, name := range p.Game.Params {
		if c.fs.Lookup(name) == nil {
			panic(fmt.Sprintf("gameserver: Game.Params names %q, which no flag defines", name))
		}
	}
	if err := cli.Parse(c.fs, args, usage); err != nil {
		if errors.Is(err, cli.ErrHelp) {
			fmt.Fprintf(usage, "\nEvery flag can also be set by an environment variable, %s and its name in capitals with '_' for '-' (%s=7000); a flag given wins.\n", EnvPrefix, EnvName("port"))
			fmt.Fprintf(usage, "Subcommands: %s bot -connect HOST:PORT [-n N] plays the match with N headless clients (see %s bot -h);\n", p.Name, p.Name)
			fmt.Fprintf(usage, "%s token -key FILE -match ID -seat N [-ttl D] mints a connect token, and %s token -new-key FILE makes a key (see %s token -h).\n", p.Name, p.Name, p.Name)
		}
		return nil, err
	}
	if err := applyEnv(c.fs, env); err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	if err := checkGame(&p.Game, c.fs, c.tickRate, c.seed, c.logLevel); err != nil {
		return nil, err
	}
	for _, x := range p.Extensions {
		if x.Check != nil {
			if err := x.Check(); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// applyEnv sets every flag of fs not given on the command line from its
// environment variable (EnvName), when env has it.
func applyEnv(fs *flag.FlagSet, env func(string) (string, bool)) error {
	if env == nil {
		return nil
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil || given[f.Name] {
			return
		}
		v, ok := env(EnvName(f.Name))
		if !ok {
			return
		}
		if serr := fs.Set(f.Name, v); serr != nil {
			err = cli.Usagef("%s=%q: invalid value for -%s: %v", EnvName(f.Name), v, f.Name, serr)
		}
	})
	return err
}
