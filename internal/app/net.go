package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/diag"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/netsim"
	"github.com/nebulaengine/nebula/engine/netplay/token"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/internal/cli"
	"github.com/nebulaengine/nebula/timing"
)

// errProbed ends the probe run of a client's Game.Run (see joinMatch).
var errProbed = errors.New("app: probe run")

// Net returns the networked client of a -connect or -spectate run, nil in
// any other: a game's window may follow its own input through it.
func (s *Process) Net() *netplay.Client { return s.client }

// Player returns the player this program plays: the one the server
// welcomed a -connect client as, wire.NoPlayer for a spectator, and 0 (the
// single player) in a game of its own. A headless game picks its input
// script by it.
func (s *Process) Player() engine.PlayerID {
	if s.client == nil {
		return 0
	}
	return engine.PlayerID(s.client.Welcome().Player)
}

// joinMatch joins the match of -connect or -spectate before the game runs.
// The client tells the server its world's schema, which only the game's
// Run builds: Run is first called once with a silent logger, and its
// RunHeadless or RunWindowed returns at once with the engine's schema,
// before anything runs. Then the client dials, and the flags take the
// match's tick rate, seed and the game's parameters (Game.Params) from the
// server's Welcome; a flag given with another value is ignored with a
// warning.
func (s *Process) joinMatch(game func(*Process) error) (err error) {
	log := s.Log
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	s.Log, s.probing = quiet, true
	err = game(s)
	s.Log, s.probing = log, false
	switch {
	case err == nil:
		return errors.New("the game's Run returned without calling RunHeadless or RunWindowed, which a networked game's must")
	case !errors.Is(err, errProbed):
		return err
	}
	opts := s.Opts
	cfg := netplay.DefaultClientConfig()
	cfg.Role, cfg.Scene, cfg.Fingerprint = wire.RolePlayer, s.scene(), s.fingerprint
	if opts.Spectate != "" {
		cfg.Role = wire.RoleSpectator
	}
	cfg.InputDelay = opts.InputDelay
	cfg.Predict = opts.Predict
	cfg.Smoothing.HalfLife = opts.Smooth
	if !opts.Headless && opts.FPS > 0 {
		cfg.FrameBudget = time.Duration(float64(time.Second) / float64(opts.FPS)) // a frame's time at the render cap
	}
	cfg.Name = fmt.Sprintf("%s-%d", s.program, os.Getpid())
	cfg.DumpDir = opts.CrashDir
	cfg.Log = log
	if s.Stats != nil && opts.Headless {
		s.clientStats = newClientStats(s.Stats)
		cfg.OnHeadlessFrame = s.clientStats.frame
	}
	sim := netsim.Config{Delay: opts.NetDelay, Jitter: opts.NetJitter, Loss: opts.NetLoss, Dup: opts.NetDup, Reorder: opts.NetReorder, Seed: uint64(os.Getpid())}
	simulate := sim.Delay > 0 || sim.Jitter > 0 || sim.Loss > 0 || sim.Dup > 0 || sim.Reorder > 0
	switch {
	case opts.Transport == "udp":
		cfg.Transport = netplay.UDP
		if simulate {
			cfg.WrapPacketConn = func(pc net.PacketConn) net.PacketConn { return netsim.WrapPacketConn(pc, sim) }
		}
	case simulate:
		cfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return netsim.Wrap(conn, sim), nil
		}
	}
	if opts.Credentials != "" {
		cr, err := token.ReadCredentialsFile(opts.Credentials)
		if err != nil {
			return err
		}
		cfg.Credentials = &cr
	}
	log.WithFields(logrus.Fields{"server": opts.ServerAddr(), "role": cfg.Role.String()}).Info("connecting")
	c, err := netplay.Dial(s.ctx, opts.ServerAddr(), cfg)
	if err != nil {
		return err
	}
	w := c.Welcome()
	p, err := ParseParams(w.Params)
	if err == nil {
		err = applyParams(s.fs, p, append([]string{"seed"}, s.game.Params...), opts.Given, func(name, server, given string) error {
			log.WithFields(logrus.Fields{"flag": "-" + name, "given": given, "server": server}).Warn("ignored: the game's parameters are the server's")
			return nil
		})
	}
	if err == nil && s.game.Check != nil {
		err = s.game.Check(opts)
	}
	if err != nil {
		c.Close()
		return fmt.Errorf("server %s: %v", opts.ServerAddr(), err)
	}
	if opts.Given("tick-rate") && opts.TickRate != int(w.TickRate) {
		log.WithFields(logrus.Fields{"flag": "-tick-rate", "given": opts.TickRate, "server": w.TickRate}).Warn("ignored: the game's parameters are the server's")
	}
	opts.TickRate = int(w.TickRate)
	s.client = c
	return nil
}

// probed ends a probe run (joinMatch) with e's schema.
func (s *Process) probed(e *engine.Engine) error {
	s.fingerprint = e.World.Schema().Fingerprint()
	return errProbed
}

// serve runs a dedicated match server (-serve) on e: headless, in real
// time, until the match's last tick (-ticks) or a signal. It records the
// match (-record keeps it) and prints the match report.
func (s *Process) serve(e *engine.Engine) error {
	opts := s.Opts
	e.Jobs.SetMode(engine.JobsDeterministic)
	e.SetInputScript(nil) // the players' input comes from the clients
	p := gameParams(s.fs, s.game.Params)
	p["seed"] = fmt.Sprint(opts.Seed)
	params, err := p.MarshalBinary()
	if err != nil {
		return err
	}
	rec, err := s.startRecording(e)
	if err != nil {
		return err
	}
	cfg := netplay.DefaultServerConfig()
	cfg.Scene, cfg.Params = s.scene(), params
	cfg.Players, cfg.MaxPlayers, cfg.Ticks = opts.Players, opts.MaxPlayers, opts.Ticks
	if opts.InputDelay >= 0 {
		cfg.InputDelay = opts.InputDelay
	}
	cfg.DumpDir = opts.CrashDir
	cfg.Log = s.Log
	srv, err := netplay.NewServer(e, cfg)
	if err != nil {
		rec.closeFile()
		return err
	}
	// The recorder is a tick hook beside the server's: the server's
	// recording is the match's canonical replay.
	if _, err := e.AddTickHook(rec.rec); err != nil {
		rec.closeFile()
		return err
	}
	addr, _ := cli.ParseListenAddr(opts.Serve) // checked with the flags
	var ln net.Listener
	var pc net.PacketConn
	var local net.Addr
	if opts.Transport == "udp" {
		pc, err = net.ListenPacket("udp", addr)
		if err == nil {
			local = pc.LocalAddr()
		}
	} else {
		ln, err = net.Listen("tcp", addr)
		if err == nil {
			local = ln.Addr()
		}
	}
	if err != nil {
		rec.closeFile()
		return fmt.Errorf("cannot serve: %w", err)
	}
	fmt.Fprintf(s.Stdout, "listening on %s\n", local)
	fields := logrus.Fields{"addr": local.String(), "transport": opts.Transport, "players": cfg.Players, "max_players": cfg.MaxPlayers, "ticks": cfg.Ticks}
	for name, v := range p {
		if name != "seed" {
			fields[name] = v
		}
	}
	s.Log.WithFields(fields).Info(opts.Summary())

	defer onInterrupt(func() { srv.Close() })()
	var runErr error
	if pc != nil {
		runErr = srv.ServeUDP(pc)
	} else {
		runErr = srv.Serve(ln)
	}
	rep := srv.Report()
	rep.WriteText(s.Stdout)
	crashFile, ferr := rec.finish(e, runErr, s.program, opts.CrashDir)
	var pe *engine.PanicError
	if errors.As(runErr, &pe) {
		return crashError(pe, crashFile, s.Log)
	}
	if runErr != nil {
		return runErr
	}
	if ferr != nil {
		return ferr
	}
	s.PrintHash(e)
	return nil
}

// attach makes the client e's tick hook; script is the headless player's
// input (nil in a window, whose input is the client's LocalInput).
func (s *Process) attach(e *engine.Engine, script func(uint64, time.Duration, *input.Queue)) error {
	c := s.client
	w := c.Welcome()
	if w.Player == wire.NoPlayer {
		script = nil // a spectator has no input
	}
	if err := c.Attach(e, script); err != nil {
		return err
	}
	fields := logrus.Fields{"server": s.Opts.ServerAddr(), "tick_rate": w.TickRate, "seed": s.Opts.Seed, "first_tick": w.FirstTick, "input_delay": c.InputDelay()}
	for _, name := range s.game.Params {
		if f := s.fs.Lookup(name); f != nil {
			fields[name] = f.Value.String()
		}
	}
	if w.Player != wire.NoPlayer {
		fields["player"] = w.Player
	}
	s.Log.WithFields(fields).Info("joined the match")
	return nil
}

// leftMatch logs the client's report once its run ended with err, and
// returns the error the program exits with: a match that failed on the
// server (wire.EndFailed) fails the client too. It prints the -print-hash
// line only when the match ended well.
func (s *Process) leftMatch(e *engine.Engine, err error) error {
	c := s.client
	rep := c.Report()
	fields := logrus.Fields{
		"ticks": rep.Ticks, "sent": rep.Sent, "substituted": rep.Substituted, "desyncs": rep.Desyncs, "resyncs": rep.Resyncs,
		"send_clock_adjustments": rep.Adjustments, "rtt": rep.RTT, "bytes_up": rep.BytesUp, "bytes_down": rep.BytesDown,
	}
	if u := rep.UDP; u != nil {
		fields["packets_sent"], fields["packets_received"], fields["packets_lost"] = u.PacketsSent, u.PacketsReceived, u.PacketsLost
		fields["duplicates"], fields["resends"] = u.Duplicates, u.Resends
	}
	s.Log.WithFields(fields).Info("match left")
	if c.Welcome().Player != wire.NoPlayer {
		rb := rep.Rollback
		resimMean := 0.0
		if rb.Rollbacks > 0 {
			resimMean = float64(rb.Resimulated) / float64(rb.Rollbacks)
		}
		fields := logrus.Fields{
			"predict": rep.Predict, "rollbacks": rb.Rollbacks, "resimulated_mean": fmt.Sprintf("%.2f", resimMean), "resimulated_max": rb.MaxResimulated,
			"resim_p50": rb.ResimTime.Percentile(0.5), "resim_p99": rb.ResimTime.Percentile(0.99), "late_frames": rb.LateFrames,
			"depth_mean": fmt.Sprintf("%.2f", rb.DepthMean), "depth_max": rb.DepthMax, "stalls": rb.Stalls, "stall_time": rb.StallTime,
			"tick_clock_adjustments": rep.ClockAdjustments, "smoothed": rb.Smoothed, "snapped": rb.Snapped,
		}
		if !s.Opts.Headless {
			// The window's frames, and those that held a tick the
			// rollback was not ready for (beyond the prediction window,
			// or unconfirmed in lockstep): the frame drew the last tick
			// again.
			ls := e.Loop.Stats()
			fields["frames"], fields["held_frames"], fields["held_time"] = ls.Frames, ls.HeldFrames, ls.HeldTime
		}
		s.Log.WithFields(fields).Info("prediction")
	}
	var pe *engine.PanicError
	if errors.As(err, &pe) && s.rec == nil {
		return crashError(pe, "", s.Log)
	}
	if err != nil {
		return err // a recorded run's panic: runRecorded reports it with its crash replay
	}
	if c.EndReason() == wire.EndFailed {
		return fmt.Errorf("the match failed on the server at tick %d (the server's log says why)", e.World.Tick())
	}
	s.PrintHash(e)
	return nil
}

// clientStats writes a headless client's -stats rows, one per frame of
// netplay.Client.RunHeadless, as a local headless run writes one per frame
// of its simulated display: the frame's time on the real clock, its new
// ticks, the time it spent simulating (fixed_ms: re-simulation included),
// the entities and the heap. Nothing is drawn and no Update or Render
// system runs, so those columns stay empty or 0.
type clientStats struct {
	stats *diag.CSV
	e     *engine.Engine // the client's engine, set before the match runs
	clock *timing.MonotonicClock
	heap  *diag.HeapMeter
	f     diag.Figures
	rates rateWindow
}

func newClientStats(stats *diag.CSV) *clientStats {
	return &clientStats{stats: stats, heap: diag.NewHeapMeter()}
}

// frame writes the row of one frame (netplay.ClientConfig.OnHeadlessFrame).
func (cs *clientStats) frame(fr netplay.HeadlessFrame) {
	e := cs.e
	if e == nil {
		return // not attached yet: no frame runs before
	}
	if cs.clock == nil {
		cs.clock = timing.NewMonotonicClock() // the first frame ends now
	}
	now := cs.clock.Now()
	start := max(now-fr.Fixed, 0)
	l := &cs.f.Loop
	if l.Frames > 0 {
		l.Interval = start - l.Time
	}
	l.Frames++
	l.Time = start
	l.Steps = fr.Ticks
	l.Tick = e.World.Tick()
	l.SimTime = engine.TickTime(l.Tick, e.Loop.TickRate())
	l.FPS, l.UPS = cs.rates.add(start, l.Tick)
	cs.f.FixedCPU = fr.Fixed
	cs.f.Entities = e.World.Len()
	cs.heap.Read(&cs.f)
	cs.stats.Write(&cs.f)
}

// rateWindow measures frames and ticks per second over the last second,
// from at most rateWindowSize frames, without allocating.
type rateWindow struct {
	times [rateWindowSize]time.Duration
	ticks [rateWindowSize]uint64
	head  int // the oldest frame kept
	n     int
}

const rateWindowSize = 1024

// add records a frame that started at now with the world at tick, and
// returns the frames and ticks per second over the second up to now.
func (w *rateWindow) add(now time.Duration, tick uint64) (fps, ups float64) {
	if w.n == rateWindowSize {
		w.head, w.n = (w.head+1)%rateWindowSize, w.n-1
	}
	i := (w.head + w.n) % rateWindowSize
	w.times[i], w.ticks[i] = now, tick
	w.n++
	for w.n > 1 && now-w.times[w.head] > time.Second {
		w.head, w.n = (w.head+1)%rateWindowSize, w.n-1
	}
	span := now - w.times[w.head]
	if span <= 0 {
		return 0, 0
	}
	secs := span.Seconds()
	fps = float64(w.n-1) / secs
	if first := w.ticks[w.head]; tick > first { // a resynchronisation may have gone back
		ups = float64(tick-first) / secs
	}
	return fps, ups
}
