package agones

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"
)

// The label keys a Lifecycle sets (the GameServer shows them with
// LabelPrefix: agones.dev/sdk-match, agones.dev/sdk-players).
const (
	LabelMatch   = "match"   // the match id
	LabelPlayers = "players" // the players in the match now
)

// DefaultHealthEvery is the period of a Lifecycle's health pings when its
// config gives none. The Fleet in deploy/ expects a ping every 5 seconds
// (spec.health.periodSeconds) and tolerates 3 missed periods.
const DefaultHealthEvery = 2 * time.Second

// defaultCallTimeout bounds each SDK call a Lifecycle makes in the
// background.
const defaultCallTimeout = 5 * time.Second

// LifecycleConfig configures a Lifecycle.
type LifecycleConfig struct {
	// MatchID is set as the label LabelMatch: a valid Kubernetes label
	// value (letters, digits, '-', '_', '.', at most 63). Empty sets no
	// label.
	MatchID string
	// HealthEvery is the period of the health pings (DefaultHealthEvery
	// if zero). Keep it well under the Fleet's spec.health.periodSeconds.
	HealthEvery time.Duration
	// Log receives the failures of background calls (health pings, the
	// players label) and stalls; nil discards them.
	Log logrus.FieldLogger
}

// Lifecycle walks one match server's GameServer through its states: Ready
// once the server listens, health pings while it lives (stopped when its
// loop stalls), the match and player-count labels, an optional wait for
// Allocated, and Shutdown at the end. Health pings and label updates run
// on a goroutine of their own, so the server's loop never waits for the
// SDK server: Beat and SetPlayers only store a number.
type Lifecycle struct {
	c   *Client
	cfg LifecycleConfig
	log logrus.FieldLogger

	beats   atomic.Uint64 // Beat calls so far
	armed   atomic.Bool   // a Beat came: pings now need beats
	players atomic.Int64  // the latest SetPlayers count
	changed chan struct{} // cap 1: players changed

	mu      sync.Mutex
	started bool
	stop    chan struct{} // closed by Shutdown: the goroutine ends
	done    chan struct{} // closed when the goroutine has ended

	// For the package's tests: ticks replaces the health ticker, and
	// the goroutine reports each tick on ticked (true if it pinged).
	ticks  <-chan time.Time
	ticked chan<- bool
}

// NewLifecycle returns the lifecycle of the GameServer that c's SDK server
// holds. Nothing is sent before Start or Ready.
func NewLifecycle(c *Client, cfg LifecycleConfig) (*Lifecycle, error) {
	if cfg.MatchID != "" {
		if err := checkLabelValue(cfg.MatchID); err != nil {
			return nil, fmt.Errorf("agones: match id %q as a label value: %w", cfg.MatchID, err)
		}
	}
	if cfg.HealthEvery < 0 {
		return nil, fmt.Errorf("agones: health period %v: must not be negative", cfg.HealthEvery)
	}
	if cfg.HealthEvery == 0 {
		cfg.HealthEvery = DefaultHealthEvery
	}
	log := cfg.Log
	if log == nil {
		l := logrus.New()
		l.SetOutput(io.Discard)
		log = l
	}
	l := &Lifecycle{
		c:       c,
		cfg:     cfg,
		log:     log.WithField("agones", c.Addr()),
		changed: make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	l.players.Store(-1) // no count yet
	return l, nil
}

// Start sets the match label (and the players label, if SetPlayers was
// called) and starts the health pings, before the
// server is ready (a server that takes a while to start, such as one
// resuming a match from its log, stays healthy meanwhile). Ready calls it
// if the server did not. A second call does nothing.
func (l *Lifecycle) Start(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.stop:
		return errors.New("agones: start after shutdown")
	default:
	}
	if l.started {
		return nil
	}
	if l.cfg.MatchID != "" {
		if err := l.c.SetLabel(ctx, LabelMatch, l.cfg.MatchID); err != nil {
			return err
		}
	}
	if n := l.players.Load(); n >= 0 {
		// A count set before the start goes out now, so Ready finds
		// the label there.
		select {
		case <-l.changed:
		default:
		}
		if err := l.c.SetLabel(ctx, LabelPlayers, strconv.FormatInt(n, 10)); err != nil {
			return err
		}
	}
	if err := l.c.Health(ctx); err != nil {
		return err
	}
	l.started = true
	go l.run()
	return nil
}

// Ready marks the GameServer Ready: call it once the server listens for
// players. It starts the lifecycle first if Start was not called.
func (l *Lifecycle) Ready(ctx context.Context) error {
	if err := l.Start(ctx); err != nil {
		return err
	}
	return l.c.Ready(ctx)
}

// Beat tells the lifecycle the server's loop is alive: call it every tick
// (it only adds to a counter). Once Beat has been called, a health period
// with no Beat sends no ping, so Agones sees a stalled loop as unhealthy
// after the Fleet's failure threshold. Before the first Beat (a server
// waiting for players or for allocation) the pings go out regardless.
func (l *Lifecycle) Beat() {
	l.beats.Add(1)
	l.armed.Store(true)
}

// SetPlayers records the number of players in the match; the label
// LabelPlayers follows it in the background (only the latest count is
// sent when several changes come close together).
func (l *Lifecycle) SetPlayers(n int) {
	if n < 0 {
		n = 0
	}
	if l.players.Swap(int64(n)) == int64(n) {
		return
	}
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// WaitAllocated waits until the GameServer is Allocated (by a
// GameServerAllocation or Client.Allocate) and returns it. A GameServer
// that is shut down or unhealthy meanwhile, or ctx's end, is an error.
func (l *Lifecycle) WaitAllocated(ctx context.Context) (GameServer, error) {
	return l.c.WaitState(ctx, StateAllocated)
}

// Shutdown stops the health pings, sends the last player count, and marks
// the GameServer Shutdown: call it when the match ends or fails. Agones
// then deletes the pod. Later calls only send Shutdown again.
func (l *Lifecycle) Shutdown(ctx context.Context) error {
	l.mu.Lock()
	started := l.started
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.mu.Unlock()
	if started {
		<-l.done
	}
	select {
	case <-l.changed:
		l.sendPlayers(ctx)
	default:
	}
	return l.c.Shutdown(ctx)
}

// run pings the SDK server's health endpoint every period, unless the
// loop stalled, and sends player counts as they change, until Shutdown.
func (l *Lifecycle) run() {
	defer close(l.done)
	ticks := l.ticks
	if ticks == nil {
		t := time.NewTicker(l.cfg.HealthEvery)
		defer t.Stop()
		ticks = t.C
	}
	var lastBeats uint64
	stalled, failing := false, false
	for {
		select {
		case <-l.stop:
			return
		case <-l.changed:
			l.sendPlayers(context.Background())
		case <-ticks:
			beats := l.beats.Load()
			ping := !l.armed.Load() || beats != lastBeats
			lastBeats = beats
			switch {
			case !ping && !stalled:
				stalled = true
				l.log.WithField("health_every", l.cfg.HealthEvery).Warn("agones: the server's loop made no tick in a health period; health pings stop until it does")
			case ping && stalled:
				stalled = false
				l.log.Info("agones: the server's loop ticks again; health pings resume")
			}
			if ping {
				ctx, cancel := context.WithTimeout(context.Background(), defaultCallTimeout)
				err := l.c.Health(ctx)
				cancel()
				switch {
				case err != nil && !failing:
					failing = true
					l.log.WithError(err).Warn("agones: health ping failed")
				case err == nil && failing:
					failing = false
					l.log.Info("agones: health pings go through again")
				}
			}
			if l.ticked != nil {
				l.ticked <- ping
			}
		}
	}
}

// sendPlayers sets the players label to the latest count.
func (l *Lifecycle) sendPlayers(ctx context.Context) {
	n := l.players.Load()
	if n < 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, defaultCallTimeout)
	defer cancel()
	if err := l.c.SetLabel(ctx, LabelPlayers, strconv.FormatInt(n, 10)); err != nil {
		l.log.WithError(err).WithField("players", n).Warn("agones: setting the players label failed")
	}
}
