package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/nebulaengine/nebula/cmd/nebula-demo/scene"
	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/desktop"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/engine/netplay/netsim"
	"github.com/nebulaengine/nebula/engine/netplay/wire"
	"github.com/nebulaengine/nebula/internal/app"
	"github.com/nebulaengine/nebula/internal/cli"
)

// runServer runs a dedicated match server (-serve): headless, in real
// time, until the match's last tick (-ticks) or a signal. It records the
// match (-record keeps it) and prints the match report.
func runServer(s *app.Session, f *flags) (err error) {
	opts := s.Opts
	e, err := engine.New(s.EngineConfig())
	if err != nil {
		return err
	}
	e.Jobs.SetMode(engine.JobsDeterministic)
	sc := scene.Setup(e, f.entities)
	sc.PanicAt = f.panicAtTick
	params, err := scene.Params{Seed: opts.Seed, Entities: f.entities, PanicAtTick: f.panicAtTick}.MarshalBinary()
	if err != nil {
		return err
	}
	rec, err := startRecording(e, opts, f)
	if err != nil {
		return err
	}
	cfg := netplay.DefaultServerConfig()
	cfg.Scene, cfg.Params = scene.ID, params
	cfg.Players, cfg.MaxPlayers, cfg.Ticks = opts.Players, opts.MaxPlayers, opts.Ticks
	if opts.InputDelay >= 0 {
		cfg.InputDelay = opts.InputDelay
	}
	cfg.DumpDir = opts.CrashDir
	cfg.Hook = rec.rec
	cfg.Log = s.Log
	srv, err := netplay.NewServer(e, cfg)
	if err != nil {
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
		return fmt.Errorf("cannot serve: %w", err)
	}
	fmt.Fprintf(s.Stdout, "listening on %s\n", local)
	s.Log.WithFields(logrus.Fields{"addr": local.String(), "transport": opts.Transport, "players": cfg.Players, "max_players": cfg.MaxPlayers, "ticks": cfg.Ticks, "entities": f.entities}).
		Info(opts.Summary())

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(stop)
	go func() {
		if _, ok := <-stop; ok {
			srv.Close()
		}
	}()
	var runErr error
	if pc != nil {
		runErr = srv.ServeUDP(pc)
	} else {
		runErr = srv.Serve(ln)
	}
	rep := srv.Report()
	rep.WriteText(s.Stdout)
	crashFile, ferr := rec.finish(e, runErr, opts.CrashDir)
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

// runClient joins a match (-connect, -spectate): windowed, or headless
// with the demo's script as the player's input.
func runClient(s *app.Session, f *flags) error {
	opts := s.Opts
	// The schema does not depend on the scene's parameters: a world
	// with no cubes has the same fingerprint.
	probe, err := engine.New(engine.DefaultConfig())
	if err != nil {
		return err
	}
	scene.Setup(probe, 0)
	cfg := netplay.DefaultClientConfig()
	cfg.Role, cfg.Scene, cfg.Fingerprint = wire.RolePlayer, scene.ID, probe.World.Schema().Fingerprint()
	if opts.Spectate != "" {
		cfg.Role = wire.RoleSpectator
	}
	cfg.InputDelay = opts.InputDelay
	cfg.Predict = opts.Predict
	cfg.Smoothing.HalfLife = opts.Smooth
	if !opts.Headless && opts.FPS > 0 {
		cfg.FrameBudget = time.Duration(float64(time.Second) / float64(opts.FPS)) // a frame's time at the render cap
	}
	cfg.Name = fmt.Sprintf("%s-%d", program, os.Getpid())
	cfg.DumpDir = opts.CrashDir
	cfg.Log = s.Log
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
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	s.Log.WithFields(logrus.Fields{"server": opts.ServerAddr(), "role": cfg.Role.String()}).Info("connecting")
	c, err := netplay.Dial(ctx, opts.ServerAddr(), cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	w := c.Welcome()
	p, err := scene.ParseParams(w.Params)
	if err != nil {
		return fmt.Errorf("server %s: %w", opts.ServerAddr(), err)
	}
	note := func(flag string, given, server any) {
		if opts.Given(flag) && fmt.Sprint(given) != fmt.Sprint(server) {
			s.Log.WithFields(logrus.Fields{"flag": "-" + flag, "given": given, "server": server}).Warn("ignored: the scene's parameters are the server's")
		}
	}
	note("seed", opts.Seed, p.Seed)
	note("entities", f.entities, p.Entities)
	note("tick-rate", opts.TickRate, w.TickRate)
	note("panic-at-tick", f.panicAtTick, p.PanicAtTick)
	opts.Seed, opts.TickRate, f.entities, f.panicAtTick = p.Seed, int(w.TickRate), p.Entities, p.PanicAtTick

	e, err := engine.New(s.EngineConfig())
	if err != nil {
		return err
	}
	sc := scene.Setup(e, p.Entities)
	sc.PanicAt, sc.DesyncAt = p.PanicAtTick, f.desyncAtTick
	var script func(uint64, time.Duration, *engine.Input)
	if opts.Headless && cfg.Role == wire.RolePlayer {
		script = scene.PlayerScript(w.Player)
	}
	if err := c.Attach(e, script); err != nil {
		return err
	}
	fields := logrus.Fields{"server": opts.ServerAddr(), "tick_rate": w.TickRate, "seed": p.Seed, "entities": p.Entities, "first_tick": w.FirstTick, "input_delay": c.InputDelay()}
	if cfg.Role == wire.RolePlayer {
		fields["player"] = w.Player
	}
	s.Log.WithFields(fields).Info("joined the match")

	if opts.Headless {
		err = c.RunHeadless(ctx)
	} else {
		// RunWindowed prints the -print-hash line when the window
		// closes, whatever became of the match; a client prints it
		// below, once, and only when the match ended well.
		ws, o := *s, *s.Opts
		o.PrintHash, ws.Opts = false, &o
		sess := &demoSession{net: c}
		if cfg.Role == wire.RolePlayer && s.Log.IsLevelEnabled(logrus.DebugLevel) {
			sess.trace = newInputTrace(c, e, sc, s.Log)
		}
		err = runWindowed(&ws, e, sc, sess)
		if sess.trace != nil {
			sess.trace.finish()
		}
		if err == nil {
			if err = c.Err(); err == nil && !c.Done() {
				c.Close() // the window closed: leave the match
			}
		}
	}
	rep := c.Report()
	fields = logrus.Fields{
		"ticks": rep.Ticks, "sent": rep.Sent, "substituted": rep.Substituted, "desyncs": rep.Desyncs, "resyncs": rep.Resyncs,
		"send_clock_adjustments": rep.Adjustments, "rtt": rep.RTT, "bytes_up": rep.BytesUp, "bytes_down": rep.BytesDown,
	}
	if u := rep.UDP; u != nil {
		fields["packets_sent"], fields["packets_received"], fields["packets_lost"] = u.PacketsSent, u.PacketsReceived, u.PacketsLost
		fields["duplicates"], fields["resends"] = u.Duplicates, u.Resends
	}
	s.Log.WithFields(fields).Info("match left")
	if cfg.Role == wire.RolePlayer {
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
		if !opts.Headless {
			// The window's frames, and those that held a tick the
			// session was not ready for (beyond the prediction window,
			// or unconfirmed in lockstep): the frame drew the last tick
			// again.
			ls := e.Loop.Stats()
			fields["frames"], fields["held_frames"], fields["held_time"] = ls.Frames, ls.HeldFrames, ls.HeldTime
		}
		s.Log.WithFields(fields).Info("prediction")
	}
	var pe *engine.PanicError
	if errors.As(err, &pe) {
		return crashError(pe, "", s.Log)
	}
	if err != nil {
		return err
	}
	s.PrintHash(e)
	return nil
}

// netKeyOff reports, and logs, that a key that would change the
// simulation outside the confirmed inputs (what) is off in a networked
// window.
func netKeyOff(d *windowDemo, what string) bool {
	if d.sess.net == nil {
		return false
	}
	d.log.Info(what + " is off in a networked match (every peer must simulate the same ticks)")
	return true
}

// watchMatch closes the window when the match ends or the connection
// fails.
func watchMatch(c *netplay.Client, r *desktop.Runner) func(*engine.FrameContext) {
	return func(*engine.FrameContext) {
		if c.Done() || c.Err() != nil {
			r.Quit()
		}
	}
}
