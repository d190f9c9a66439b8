package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/matchlog"
	"github.com/nebulaengine/nebula/engine/replay"
	"github.com/nebulaengine/nebula/internal/cli"
	"github.com/nebulaengine/nebula/internal/gameserver"
)

// logExtension is the match's durable log (package matchlog): -log FILE
// writes it, -resume FILE continues the match of a killed server from it,
// appending to the same file; -snapshot-every, -fsync-every and
// -fsync-interval set its cadence. The log is a replay file of the demo's
// game: nebula-demo -replay FILE -headless -verify checks it (with
// -partial while its server is dead and not resumed).
func logExtension() gameserver.Extension {
	var (
		path, resume string
		cfg          = matchlog.DefaultConfig()
		seatTicks    uint64
		lg           *matchlog.Log
		flags        *flag.FlagSet
	)
	return gameserver.Extension{
		Name: "match log",
		Flags: func(fs *flag.FlagSet) {
			flags = fs
			fs.StringVar(&path, "log", "", "write the match's durable log to this new `file` (a replay file; an existing file is refused: -resume continues it)")
			fs.StringVar(&resume, "resume", "", "continue the match of a killed server from its log `file`, appending to it (give the crashed server's flags)")
			fs.Uint64Var(&cfg.SnapshotEvery, "snapshot-every", matchlog.DefaultSnapshotEvery, "a snapshot of the match in the log every this many ticks (0 = none: a recovery replays the whole match)")
			fs.Uint64Var(&cfg.SyncEvery, "fsync-every", matchlog.DefaultSyncEvery, "fsync the log once this many ticks are written since the last fsync (0 = every tick)")
			fs.DurationVar(&cfg.SyncInterval, "fsync-interval", matchlog.DefaultSyncInterval, "fsync the log once its oldest unsynced bytes are this old, whichever of -fsync-every and this comes first (0 = -fsync-every alone)")
			fs.Uint64Var(&seatTicks, "resume-seat-ticks", 0, "with -resume: the ticks the match's players keep their seats without a client, before they leave (0 = to the match's end)")
		},
		Check: func() error {
			if path == "" && resume == "" {
				var given []string
				flags.Visit(func(f *flag.Flag) {
					switch f.Name {
					case "snapshot-every", "fsync-every", "fsync-interval", "resume-seat-ticks":
						given = append(given, "-"+f.Name)
					}
				})
				if len(given) > 0 {
					return cli.Usagef("%s: means nothing without -log or -resume", strings.Join(given, ", "))
				}
			}
			switch {
			case path != "" && resume != "" && path != resume:
				return cli.Usagef("-log %s and -resume %s: a resumed match appends to the log it resumes (leave -log out)", path, resume)
			case cfg.SyncInterval < 0:
				return cli.Usagef("-fsync-interval %v: must be 0 or more", cfg.SyncInterval)
			case seatTicks > 0 && resume == "":
				return cli.Usagef("-resume-seat-ticks %d: only with -resume", seatTicks)
			}
			// A file named by a flag that cannot be used is bad usage,
			// found before anything starts: a log to resume that cannot
			// be read, a new log over an existing file.
			if resume != "" {
				f, err := os.Open(resume)
				if err != nil {
					return cli.Usagef("-resume %s: %v", resume, err)
				}
				f.Close()
			} else if path != "" {
				if _, err := os.Lstat(path); err == nil {
					return cli.Usagef("-log %s: the file exists (a match log is never replaced; -resume continues it)", path)
				}
			}
			return nil
		},
		Configure: func(s *gameserver.Server) error {
			cfg.Log = s.Log
			cfg.Trace = s.Config.Trace
			if path == "" || resume != "" {
				return nil
			}
			h, err := logHeader(s)
			if err != nil {
				return err
			}
			if lg, err = matchlog.Create(path, s.Engine, h, cfg); err != nil {
				return err
			}
			_, err = s.Engine.AddTickHook(lg) // an observer, beside the server's hook
			return err
		},
		Server: func(s *gameserver.Server) (*netplay.Server, error) {
			if resume == "" {
				return nil, nil // a new match: netplay.NewServer
			}
			want, err := logHeader(s)
			if err != nil {
				return nil, err
			}
			res, err := matchlog.Resume(resume, matchlog.ResumeConfig{
				Build: func(h replay.Header) (*engine.Engine, error) {
					if err := sameMatch(h, want); err != nil {
						return nil, err
					}
					return s.Engine, nil // set up from the same flags, at tick 0
				},
				Server: s.Config,
				Seats:  netplay.ResumeConfig{SeatTicks: seatTicks},
				Log:    cfg,
			})
			if err != nil {
				return nil, err
			}
			lg = res.Log
			s.Log.WithFields(map[string]any{
				"log": resume, "tick": res.Tick, "snapshot_tick": res.SnapshotTick, "replayed": res.Replayed,
				"cut_bytes": res.Cut, "took": res.Took.String(),
			}).Info("match resumed from its log")
			return res.Server, nil
		},
		Ended: func(s *gameserver.Server, _ netplay.Report, err error) error {
			if lg == nil {
				return nil
			}
			var perr *engine.PanicError
			if errors.As(err, &perr) {
				return lg.Crash(perr)
			}
			return lg.Close(s.Engine.World.Hash())
		},
	}
}

// logHeader is the log's header for s's match: what nebula-demo records
// with (the game's parameters without the seed, which is a field of its
// own), so that nebula-demo -replay verifies the log.
func logHeader(s *gameserver.Server) (replay.Header, error) {
	p, err := cli.ParseParams(s.Config.Params)
	if err != nil {
		return replay.Header{}, err
	}
	seed, err := strconv.ParseUint(p["seed"], 10, 64)
	if err != nil {
		return replay.Header{}, fmt.Errorf("the match's seed %q: %w", p["seed"], err)
	}
	delete(p, "seed")
	params, err := p.MarshalBinary()
	if err != nil {
		return replay.Header{}, err
	}
	e := s.Engine
	return replay.Header{
		TickRate: e.Loop.TickRate(), Seed: seed, HashEvery: replay.DefaultHashEvery, Scene: s.Config.Scene,
		Params: params, JobMode: engine.JobsDeterministic, Schema: e.World.Schema(),
	}, nil
}

// sameMatch reports whether the log's header h is that of the match this
// server's flags describe (want): a match resumes with its own scene,
// tick rate, seed and parameters.
func sameMatch(h, want replay.Header) error {
	switch {
	case h.TickRate != want.TickRate:
		return fmt.Errorf("the log's match runs at %d Hz, -tick-rate is %d: give the crashed server's flags", h.TickRate, want.TickRate)
	case h.Seed != want.Seed:
		return fmt.Errorf("the log's match has seed %d, -seed is %d: give the crashed server's flags", h.Seed, want.Seed)
	case string(h.Params) != string(want.Params):
		return fmt.Errorf("the log's match has the parameters %s, this server's flags give %s: give the crashed server's flags", h.Params, want.Params)
	}
	if err := h.Schema.Compare(want.Schema); err != nil {
		return fmt.Errorf("the log's world differs from this server's: %w", err)
	}
	return nil
}
