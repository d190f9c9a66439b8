package cli

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine/diag"
	"github.com/nebulaengine/nebula/internal/prof"
	"github.com/nebulaengine/nebula/timing"
)

// parse defines the common and the recording flags on a FlagSet named
// nebula-demo, parses args and checks them, as package app does.
func parse(args []string, usage io.Writer) (*Options, error) {
	fs := flag.NewFlagSet("nebula-demo", flag.ContinueOnError)
	o := Register(fs)
	o.RegisterRecording(fs)
	if err := Parse(fs, args, usage); err != nil {
		return o, err
	}
	return o, o.Check(fs)
}

func TestProfilingFlags(t *testing.T) {
	defaultDir := filepath.Join(os.TempDir(), "nebula-hitches")
	for _, tc := range []struct {
		args []string
		want func(o *Options) bool
		desc string
	}{
		{nil, func(o *Options) bool {
			return o.CPUProfile == "" && o.MemProfile == "" && o.Trace == "" && o.Pprof == "" &&
				o.Hitch == 50*time.Millisecond && o.HitchDir == defaultDir
		}, "profiling off, hitch capture at 50ms into " + defaultDir},
		{[]string{"-cpuprofile", "cpu.prof", "-memprofile", "mem.prof", "-trace", "trace.out"}, func(o *Options) bool {
			return o.ProfOptions() == prof.Options{CPUProfile: "cpu.prof", MemProfile: "mem.prof", Trace: "trace.out"}
		}, "the three files"},
		{[]string{"-pprof", ":6060"}, func(o *Options) bool { return o.Pprof == ":6060" && o.ProfOptions().PprofAddr == ":6060" }, "pprof :6060"},
		{[]string{"-pprof", "6060"}, func(o *Options) bool { return o.Pprof == "6060" }, "pprof 6060"},
		{[]string{"-pprof", "0.0.0.0:6060"}, func(o *Options) bool { return o.Pprof == "0.0.0.0:6060" }, "pprof on all interfaces"},
		{[]string{"-pprof", "[::1]:6060"}, func(o *Options) bool { return o.Pprof == "[::1]:6060" }, "pprof on IPv6 loopback"},
		{[]string{"-hitch", "0"}, func(o *Options) bool { return o.Hitch == 0 }, "hitch off"},
		{[]string{"-hitch", "33ms", "-hitch-dir", "h"}, func(o *Options) bool {
			c := o.HitchConfig()
			d := diag.DefaultHitchConfig()
			return o.Hitch == 33*time.Millisecond && o.HitchDir == "h" &&
				c.Threshold == 33*time.Millisecond && c.Dir == "h" && c.MinGap == d.MinGap && c.MaxFiles == d.MaxFiles && c.Window == d.Window
		}, "hitch 33ms into h"},
		{[]string{"-hitch-dir", "h"}, func(o *Options) bool { return o.Hitch == 50*time.Millisecond && o.HitchDir == "h" }, "hitch dir with the default threshold"},
	} {
		o, err := parse(tc.args, nil)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.args, err)
			continue
		}
		if !tc.want(o) {
			t.Errorf("Parse(%q) = %+v, want %s", tc.args, o, tc.desc)
		}
	}
}

func TestProfilingFlagErrors(t *testing.T) {
	accepted := prof.AddrAccepted
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-hitch", "-1ms"}, "-hitch -1ms: must be 0 (off) or a positive frame time such as 50ms"},
		{[]string{"-hitch", "fast"}, `invalid value "fast" for flag -hitch: parse error (see -h)`},
		{[]string{"-hitch-dir", ""}, `-hitch-dir "": must name a directory`},
		{[]string{"-hitch", "0", "-hitch-dir", "h"}, "-hitch-dir needs -hitch above 0"},
		{[]string{"-pprof", "localhost:notaport"}, "-pprof localhost:notaport: " + accepted},
		{[]string{"-pprof", "1.2.3.4.5:80"}, "-pprof 1.2.3.4.5:80: " + accepted},
		{[]string{"-pprof", "example.com:80"}, "-pprof example.com:80: " + accepted},
		{[]string{"-pprof", ":70000"}, "-pprof :70000: " + accepted},
		{[]string{"-pprof", "localhost"}, "-pprof localhost: " + accepted},
		{[]string{"-cpuprofile"}, "flag needs an argument: -cpuprofile (see -h)"},
	} {
		_, err := parse(tc.args, nil)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("Parse(%q) = %v, want a *UsageError", tc.args, err)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("Parse(%q): %q, want %q", tc.args, err, tc.want)
		}
	}
}

func TestProfilingFlagsInUsage(t *testing.T) {
	var usage bytes.Buffer
	if _, err := parse([]string{"-h"}, &usage); !errors.Is(err, ErrHelp) {
		t.Fatalf("Parse(-h) = %v, want ErrHelp", err)
	}
	for _, want := range []string{
		"  -cpuprofile file\n    \twrite a CPU profile to file\n",
		"  -memprofile file\n    \twrite a heap profile to file at exit\n",
		"  -trace file\n    \twrite an execution trace to file\n",
		"  -pprof addr\n    \tserve net/http/pprof at addr: port, :port or host:port (no host = 127.0.0.1 only)\n",
		"  -hitch duration\n    \twhen a frame takes longer than this, save the last seconds of execution trace to -hitch-dir (0 = off) (default 50ms)\n",
		"  -hitch-dir dir\n    \tdirectory for -hitch traces, created if missing (default \"" + filepath.Join(os.TempDir(), "nebula-hitches") + "\")\n",
	} {
		if !strings.Contains(usage.String(), want) {
			t.Errorf("usage lacks %q", want)
		}
	}
}

func TestPowerFlags(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		power timing.Power
		tick  int
		fps   float64
		pause bool
	}{
		{nil, timing.PowerNormal, 60, 144, false},
		{[]string{"-power", "normal"}, timing.PowerNormal, 60, 144, false},
		{[]string{"-power", "low"}, timing.PowerLow, 30, 30, false},
		// Explicit rates win over the preset, in either order.
		{[]string{"-power", "low", "-fps", "60"}, timing.PowerLow, 30, 60, false},
		{[]string{"-tick-rate", "120", "-power", "low"}, timing.PowerLow, 120, 30, false},
		{[]string{"-power", "low", "-tick-rate", "60", "-fps", "144"}, timing.PowerLow, 60, 144, false},
		{[]string{"-pause-unfocused"}, timing.PowerNormal, 60, 144, true},
		{[]string{"-power", "low", "-pause-unfocused"}, timing.PowerLow, 30, 30, true},
	} {
		o, err := parse(tc.args, nil)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.args, err)
			continue
		}
		if o.Power != tc.power || o.TickRate != tc.tick || o.FPS != tc.fps || o.PauseUnfocused != tc.pause {
			t.Errorf("Parse(%q): power %v, tick %d, fps %v, pause %v; want %v, %d, %v, %v",
				tc.args, o.Power, o.TickRate, o.FPS, o.PauseUnfocused, tc.power, tc.tick, tc.fps, tc.pause)
		}
		if lc := o.LoopConfig(); lc.TickRate != tc.tick {
			t.Errorf("Parse(%q).LoopConfig().TickRate = %d, want %d", tc.args, lc.TickRate, tc.tick)
		}
	}
	_, err := parse([]string{"-power", "eco"}, nil)
	var ue *UsageError
	if !errors.As(err, &ue) || err.Error() != "-power eco: must be normal or low" {
		t.Errorf("Parse(-power eco) = %v, want the usage error %q", err, "-power eco: must be normal or low")
	}
	o, _ := parse([]string{"-power", "low", "-pause-unfocused"}, nil)
	if s := o.Summary(); !strings.Contains(s, "tick 30 Hz, render cap 30 Hz") || !strings.Contains(s, "power low, paused when unfocused") {
		t.Errorf("Summary() = %q, want the low-power rates and both modes", s)
	}
	var usage bytes.Buffer
	parse([]string{"-h"}, &usage)
	for _, want := range []string{
		"  -power mode\n    \tpower mode: normal (60 Hz ticks, 144 FPS cap) or low (30 Hz ticks, 30 FPS cap); -tick-rate and -fps, when given, win (default \"normal\")\n",
		"  -pause-unfocused\n    \tpause the simulation while the window does not have the input focus\n",
	} {
		if !strings.Contains(usage.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, usage.String())
		}
	}
}

// A flag given in a mode where it means nothing is refused with one line
// that says why; the same flag in its own mode, or left at its default, is
// accepted.
func TestModeRefusals(t *testing.T) {
	const (
		window = " needs a window: it means nothing with -headless"
		verify = " means nothing with -verify (it steps the recorded ticks at the recording's rate, without a display)"
	)
	headless := []string{"-headless", "-ticks", "10"}
	verifying := []string{"-replay", "r.rep", "-headless", "-verify"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		// A window's flags with -headless.
		{append(headless, "-fps", "60"), "-fps" + window},
		{append(headless, "-vsync"), "-vsync" + window},
		{append(headless, "-duration", "10s"), "-duration" + window},
		{append(headless, "-pause-unfocused"), "-pause-unfocused" + window},
		{append(headless, "-screenshot", "s.png"), "-screenshot" + window},
		{append(headless, "-width", "640"), "-width" + window},
		{append(headless, "-height", "480"), "-height" + window},
		{append(headless, "-fullscreen"), "-fullscreen" + window},
		{append(headless, "-hitch", "30ms"), "-hitch" + window},
		{append(headless, "-hitch-dir", "/etc/passwd"), "-hitch-dir" + window},
		// A simulated display's flags without -headless.
		{[]string{"-ticks", "10"}, "-ticks needs -headless"},
		{[]string{"-display-hz", "30"}, "-display-hz needs -headless"},
		{[]string{"-jitter", "0.5"}, "-jitter needs -headless"},
		{[]string{"-jitter-seed", "7"}, "-jitter-seed needs -headless"},
		// A flag that tunes another that is off.
		{[]string{"-hitch", "0", "-hitch-dir", "h"}, "-hitch-dir needs -hitch above 0"},
		{append(headless, "-jitter-seed", "7"), "-jitter-seed needs -jitter above 0"},
		{append(headless, "-jitter", "0", "-jitter-seed", "7"), "-jitter-seed needs -jitter above 0"},
		// Recording and replay.
		{[]string{"-verify"}, "-verify needs -replay and -headless"},
		{[]string{"-replay", "r.rep", "-verify"}, "-verify needs -replay and -headless"},
		{[]string{"-replay", "r.rep", "-headless"}, "-replay with -headless needs -verify (a headless replay only checks the recording)"},
		{[]string{"-replay", "r.rep", "-record", "s.rep"}, "-record and -replay exclude each other (a replay is already a recording)"},
		{[]string{"-partial"}, "-partial needs -replay"},
		{append(verifying, "-ticks", "5"), "-ticks conflicts with -replay (a replay runs its recording's ticks)"},
		{[]string{"-replay", "r.rep", "-crash-dir", "d"}, "-crash-dir conflicts with -replay (a replay writes no crash replay)"},
		{[]string{"-crash-dir", ""}, `-crash-dir "": must name a directory`},
		// What -verify does not use: it steps the recorded ticks.
		{append(verifying, "-power", "low"), "-power" + verify},
		{append(verifying, "-max-frame", "1s"), "-max-frame" + verify},
		{append(verifying, "-max-steps", "3"), "-max-steps" + verify},
		{append(verifying, "-frames", "100"), "-frames" + verify},
		{append(verifying, "-display-hz", "30"), "-display-hz" + verify},
		{append(verifying, "-jitter", "0.5"), "-jitter" + verify},
		{append(verifying, "-stats", "s.csv"), "-stats" + verify},
		{[]string{"-headless"}, "-headless needs -ticks or -frames (a headless run has no window to close)"},
	} {
		_, err := parse(tc.args, nil)
		var ue *UsageError
		if !errors.As(err, &ue) || err.Error() != tc.want {
			t.Errorf("%q: %v, want the usage error %q", tc.args, err, tc.want)
		}
	}
	for _, args := range [][]string{
		nil,
		{"-width", "640", "-height", "480", "-fps", "60", "-vsync", "-duration", "1s", "-pause-unfocused", "-screenshot", "s.png", "-fullscreen", "-hitch", "30ms", "-hitch-dir", "h"},
		{"-headless", "-ticks", "10", "-display-hz", "30", "-jitter", "0.5", "-jitter-seed", "7", "-max-frame", "1s", "-max-steps", "3", "-stats", "s.csv"},
		{"-headless", "-frames", "10", "-power", "low", "-record", "r.rep", "-crash-dir", "d"}, // -power sets -fps, which was not given
		{"-replay", "r.rep", "-frames", "100", "-power", "low", "-partial", "-stats", "s.csv", "-hitch", "0"},
		{"-replay", "r.rep", "-headless", "-verify", "-partial", "-tick-rate", "60", "-seed", "3", "-print-hash"},
	} {
		if _, err := parse(args, nil); err != nil {
			t.Errorf("%q: %v, want no error", args, err)
		}
	}
}

// Given knows every flag given, the program's own too; the recording flags
// exist only where RegisterRecording defined them.
func TestGivenAndOwnFlags(t *testing.T) {
	fs := flag.NewFlagSet("my-game", flag.ContinueOnError)
	o := Register(fs)
	greeting := fs.String("greeting", "hello", "what the game says")
	if err := Parse(fs, []string{"-greeting", "hi", "-seed", "4"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := o.Check(fs); err != nil {
		t.Fatal(err)
	}
	if *greeting != "hi" || !o.Given("greeting") || !o.Given("seed") || o.Given("tick-rate") || o.Seed != 4 {
		t.Errorf("greeting %q, given greeting %v, seed %v, tick-rate %v; seed %d", *greeting, o.Given("greeting"), o.Given("seed"), o.Given("tick-rate"), o.Seed)
	}
	for _, name := range []string{"record", "replay", "verify", "partial", "crash-dir", "entities", "panic-at-tick"} {
		if fs.Lookup(name) != nil {
			t.Errorf("Register defined -%s", name)
		}
		fs := flag.NewFlagSet("my-game", flag.ContinueOnError)
		Register(fs)
		err := Parse(fs, []string{"-" + name}, nil)
		if want := "flag provided but not defined: -" + name + " (see -h)"; err == nil || err.Error() != want {
			t.Errorf("-%s without RegisterRecording: %v, want %q", name, err, want)
		}
	}
}

// parseNet is parse with the multiplayer flags too.
func parseNet(args []string) (*Options, error) {
	fs := flag.NewFlagSet("nebula-demo", flag.ContinueOnError)
	o := Register(fs)
	o.RegisterRecording(fs)
	o.RegisterNetwork(fs)
	if err := Parse(fs, args, io.Discard); err != nil {
		return o, err
	}
	return o, o.Check(fs)
}

func TestNetworkFlags(t *testing.T) {
	serve := []string{"-serve", ":0"}
	conn := []string{"-connect", "127.0.0.1:7000"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-serve", ":0", "-connect", "x:1"}, "-serve, -connect and -spectate exclude each other"},
		{[]string{"-serve", "nope"}, "-serve nope: want a port (7000), :port or host:port (0.0.0.0:7000 to accept other machines)"},
		{append(serve, "-players", "0"), "-players 0: must be from 1 to 256"},
		{append(serve, "-players", "9"), "-players 9: more than -max-players 8"},
		{append(serve, "-max-players", "257"), "-max-players 257: must be from 1 to 256"},
		{append(serve, "-input-delay", "256"), "-input-delay 256: must be from 0 to 255 ticks"},
		{append(serve, "-width", "640"), "-width means nothing with -serve (a server has no window and runs in real time)"},
		{append(serve, "-headless"), "-headless means nothing with -serve (a server has no window and runs in real time)"},
		{append(serve, "-display-hz", "30"), "-display-hz means nothing with -serve (a server has no window and runs in real time)"},
		{append(serve, "-stats", "s.csv"), "-stats means nothing with -serve (a server has no frames; its figures are the match report at the end)"},
		{append(serve, "-net-delay", "50ms"), "-net-delay needs -connect or -spectate (it delays a client's traffic)"},
		{append(conn, "-players", "2"), "-players needs -serve"},
		{append(conn, "-net-delay", "-1s"), "-net-delay -1s: must be 0 or more"},
		{append(conn, "-ticks", "10"), "-ticks means nothing for a client: the server's -ticks ends the match"},
		{append(conn, "-headless", "-ticks", "10"), "-ticks means nothing for a client: the server's -ticks ends the match"},
		{append(conn, "-headless", "-display-hz", "30"), "-display-hz means nothing for a networked client (it runs in real time until the server ends the match)"},
		{append(conn, "-replay", "r.rep"), "-replay conflicts with -serve, -connect and -spectate (replay the server's recording on its own)"},
		{[]string{"-spectate", "x:1", "-input-delay", "2"}, "-input-delay means nothing with -spectate (a spectator sends no input)"},
		{[]string{"-input-delay", "2"}, "-input-delay needs -serve or -connect"},
		{append(conn, "-transport", "quic"), "-transport quic: must be tcp or udp"},
		{[]string{"-transport", "udp"}, "-transport needs -serve, -connect or -spectate"},
		{append(conn, "-net-loss", "0.05"), "-net-loss needs -transport udp (TCP loses, duplicates and reorders nothing its reader sees; -net-delay and -net-jitter model its retransmissions)"},
		{append(conn, "-transport", "udp", "-net-dup", "1.5"), "-net-dup 1.5: must be from 0 to 1"},
		{append(conn, "-transport", "udp", "-net-reorder", "-0.1"), "-net-reorder -0.1: must be from 0 to 1"},
		{append(conn, "-transport", "udp", "-net-loss", "NaN"), "-net-loss NaN: must be from 0 to 1"},
		{append(serve, "-transport", "udp", "-net-loss", "0.05"), "-net-loss needs -connect or -spectate (it simulates a client's network)"},
		{append(serve, "-credentials", "c.json"), "-credentials needs -connect or -spectate (a server's clients present their tokens)"},
	} {
		_, err := parseNet(tc.args)
		var ue *UsageError
		if !errors.As(err, &ue) || err.Error() != tc.want {
			t.Errorf("%q: %v, want the usage error %q", tc.args, err, tc.want)
		}
	}
	for _, args := range [][]string{
		append(serve, "-players", "3", "-max-players", "4", "-ticks", "100", "-record", "m.rep", "-print-hash", "-input-delay", "2"),
		append(conn, "-headless", "-print-hash", "-net-delay", "50ms", "-net-jitter", "10ms", "-seed", "7"),
		append(conn, "-width", "640", "-frames", "100"),
		{"-spectate", "x:1", "-headless"},
		append(serve, "-transport", "udp"),
		append(conn, "-headless", "-transport", "udp", "-net-loss", "0.05", "-net-dup", "0.01", "-net-reorder", "0.01", "-net-delay", "20ms"),
		{"-spectate", "x:1", "-headless", "-transport", "udp", "-net-loss", "1"},
		append(conn, "-headless", "-credentials", "c.json"),
	} {
		o, err := parseNet(args)
		if err != nil {
			t.Errorf("%q: %v, want no error", args, err)
			continue
		}
		if o.Serve != "" && !o.Headless {
			t.Errorf("%q: a server runs headless", args)
		}
	}
	if a, err := ParseListenAddr("7000"); err != nil || a != "127.0.0.1:7000" {
		t.Errorf("ParseListenAddr(7000) = %q, %v; want 127.0.0.1:7000 (a host-less address is this machine only)", a, err)
	}
}

// A server's summary names only what a server has: no render cap, vsync
// or simulated display.
func TestServerSummary(t *testing.T) {
	o, err := parseNet([]string{"-serve", ":0", "-seed", "7", "-record", "m.rep"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := o.Summary(), "match server: tick 60 Hz, seed 7, recording to m.rep"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}
