package main

import (
	"context"
	"flag"
	"strings"
	"time"

	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/internal/agones"
	"github.com/nebulaengine/nebula/internal/cli"
	"github.com/nebulaengine/nebula/internal/gameserver"
)

// agonesCallTimeout bounds the lifecycle's calls to the SDK server at the
// start (Ready) and at the end (Shutdown); the wait for an allocation
// lasts until a signal.
const agonesCallTimeout = 10 * time.Second

// agonesExtension walks the server's GameServer through Agones' lifecycle
// when the server runs under Agones (AGONES_SDK_HTTP_PORT, which Agones
// sets in the pod, or -agones): Ready once the ports are open, health
// pings while the match's loop confirms ticks, the labels match (the
// match id) and players (the count, as it changes), with
// -agones-wait-allocated no player taken before a GameServerAllocation
// allocates the server, and Shutdown when the match ends or fails.
// getenv looks up the environment (os.Getenv).
func agonesExtension(getenv func(string) string) gameserver.Extension {
	var (
		addr          string
		waitAllocated bool
		healthEvery   time.Duration
		client        *agones.Client
		lc            *agones.Lifecycle
		flags         *flag.FlagSet
	)
	return gameserver.Extension{
		Name: "agones",
		Flags: func(fs *flag.FlagSet) {
			flags = fs
			fs.StringVar(&addr, "agones", "", "the Agones SDK server's REST API at `addr`, a port or host:port (default: localhost:$"+agones.EnvHTTPPort+", which Agones sets; with neither, no Agones)")
			fs.BoolVar(&waitAllocated, "agones-wait-allocated", false, "with Agones: take no player until the server is allocated (a matchmaker's GameServerAllocation)")
			fs.DurationVar(&healthEvery, "agones-health", agones.DefaultHealthEvery, "with Agones: the period of the health pings (under the Fleet's spec.health.periodSeconds)")
		},
		Check: func() error {
			var err error
			if addr != "" {
				if client, err = agones.NewClient(addr); err != nil {
					return cli.Usagef("-agones: %v", agonesError{err})
				}
			} else if client, _, err = agones.ClientFromEnv(getenv); err != nil {
				return cli.Usagef("%v", agonesError{err})
			}
			switch {
			case healthEvery <= 0:
				return cli.Usagef("-agones-health %v: must be above 0", healthEvery)
			case client == nil && waitAllocated:
				return cli.Usagef("-agones-wait-allocated needs Agones: -agones or %s", agones.EnvHTTPPort)
			}
			// Checked after the server's own flags: -match has its value,
			// given or drawn.
			if m := flags.Lookup("match"); client != nil && m != nil {
				if err := agones.CheckLabelValue(m.Value.String()); err != nil {
					return cli.Usagef("-match %q: under Agones the match id is a label's value: %v", m.Value.String(), agonesError{err})
				}
			}
			return nil
		},
		Configure: func(s *gameserver.Server) error {
			if client == nil {
				return nil
			}
			var err error
			lc, err = agones.NewLifecycle(client, agones.LifecycleConfig{MatchID: s.MatchID, HealthEvery: healthEvery, Log: s.Log})
			return err
		},
		// The trace's functions run only once the match's server is
		// made, after Configure set lc.
		Trace: &netplay.ServerTrace{
			TickConfirmed: func(uint64, time.Duration) {
				if lc != nil {
					lc.Beat()
				}
			},
			PlayersChanged: func(players, _ int) {
				if lc != nil {
					lc.SetPlayers(players)
				}
			},
		},
		Listening: func(ctx context.Context, s *gameserver.Server) error {
			if lc == nil {
				return nil
			}
			lc.SetPlayers(0)
			readyCtx, cancel := context.WithTimeout(ctx, agonesCallTimeout)
			err := lc.Ready(readyCtx)
			cancel()
			if err != nil {
				return agonesError{err}
			}
			log := s.Log.WithField("agones", client.Addr())
			if !waitAllocated {
				log.Info("agones: ready")
				return nil
			}
			log.Info("agones: ready; waiting to be allocated")
			gs, err := lc.WaitAllocated(ctx)
			if err != nil {
				if ctx.Err() != nil {
					// SIGTERM while Ready: Agones scaled the fleet
					// down. The match ends before it began.
					return nil
				}
				return agonesError{err}
			}
			log.WithField("gameserver", gs.Name).Info("agones: allocated")
			return nil
		},
		Ended: func(s *gameserver.Server, _ netplay.Report, matchErr error) error {
			if lc == nil {
				return nil
			}
			ctx, cancel := context.WithTimeout(context.Background(), agonesCallTimeout)
			defer cancel()
			if err := lc.Shutdown(ctx); err != nil {
				return agonesError{err}
			}
			s.Log.WithField("failed", matchErr != nil).Info("agones: shutdown")
			return nil
		},
	}
}

// agonesError is an error of package agones without its "agones: "
// prefix, which Main adds for the extension.
type agonesError struct{ err error }

func (e agonesError) Error() string { return strings.TrimPrefix(e.err.Error(), "agones: ") }
func (e agonesError) Unwrap() error { return e.err }
