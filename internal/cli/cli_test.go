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
