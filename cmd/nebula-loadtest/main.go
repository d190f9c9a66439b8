// Command nebula-loadtest measures how many matches one machine serves:
// for each count N of -matches it starts N nebula-server processes on
// loopback, each with one bot process of -players headless players
// (nebula-server bot), lets the matches run, and reports the figures an
// operator sizes a fleet with: the CPU the servers used (matches per
// core), their memory (resident set per match, from /proc), their tick
// time (p50 and p99, from each server's match report), and whether they
// kept time (the matches' length beyond their ticks' time, and the inputs
// the servers had to substitute).
//
//	go build -o bin/nebula-server ./cmd/nebula-server
//	go run ./cmd/nebula-loadtest -server bin/nebula-server -matches 4,8,16
//
// make loadtest does both. The servers' CPU is measured between two
// samples of /proc/PID/stat taken while every match runs (after -warmup
// ticks, before the last second), so start-up and the end are left out;
// the bots' CPU is reported beside it (on a real fleet they are the
// players' machines). Linux only (it reads /proc).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type options struct {
	server   string
	matches  []int
	players  int
	ticks    int
	warmup   int
	tickRate int
	entities int
	extra    string
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	var matches string
	fs := flag.NewFlagSet("nebula-loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.server, "server", "bin/nebula-server", "`path` of the nebula-server binary")
	fs.StringVar(&matches, "matches", "4,8,16", "comma-separated counts of matches to run at once, one measurement each")
	fs.IntVar(&o.players, "players", 4, "bot players per match")
	fs.IntVar(&o.ticks, "ticks", 1200, "ticks per match")
	fs.IntVar(&o.warmup, "warmup", 120, "ticks every match has run before the measurement starts")
	fs.IntVar(&o.tickRate, "tick-rate", 60, "the matches' tick rate in Hz")
	fs.IntVar(&o.entities, "entities", 1000, "the demo scene's bodies per match (-entities of the server)")
	fs.StringVar(&o.extra, "server-args", "", "more flags for every server, space-separated")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	for _, s := range strings.Split(matches, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 256 {
			fmt.Fprintf(stderr, "nebula-loadtest: -matches %q: want counts from 1 to 256, comma-separated\n", matches)
			return 2
		}
		o.matches = append(o.matches, n)
	}
	switch {
	case o.players < 1 || o.players > 64:
		fmt.Fprintf(stderr, "nebula-loadtest: -players %d: must be from 1 to 64\n", o.players)
		return 2
	case o.warmup < 1 || o.ticks < o.warmup+2*o.tickRate:
		fmt.Fprintf(stderr, "nebula-loadtest: -ticks %d: must leave at least 2 s of ticks after -warmup %d\n", o.ticks, o.warmup)
		return 2
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		fmt.Fprintln(stderr, "nebula-loadtest: needs Linux's /proc")
		return 1
	}
	var rows []row
	for _, n := range o.matches {
		r, err := measure(&o, n, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "nebula-loadtest: %d matches: %v\n", n, err)
			return 1
		}
		rows = append(rows, r)
	}
	fmt.Fprintf(stdout, "%d players per match, %d Hz, %d ticks, -entities %d, on %d CPUs (%s)\n", o.players, o.tickRate, o.ticks, o.entities, runtime.NumCPU(), cpuModel())
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "matches\tserver cores\tmatches/core\tRSS/match MiB\ttick p50 (median)\ttick p99 (median)\ttick p99 (worst)\toverrun (worst)\tsubstituted\tbot cores\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%.3f\t%.1f\t%.1f\t%v\t%v\t%v\t%v\t%.2f%%\t%.2f\t\n", r.matches, r.serverCores, float64(r.matches)/r.serverCores, r.rssMiB,
			r.p50, r.p99, r.p99Worst, r.overrun.Round(time.Millisecond), r.substitutedPct, r.botCores)
	}
	tw.Flush()
	return 0
}

// row is one measurement.
type row struct {
	matches        int
	serverCores    float64 // the servers' CPU time over the wall time between the samples
	botCores       float64
	rssMiB         float64 // mean resident set of a server at the second sample
	p50, p99       time.Duration
	p99Worst       time.Duration
	overrun        time.Duration // the longest match beyond its ticks' time and start delay
	substitutedPct float64
}

// proc is a child process.
type proc struct {
	cmd   *exec.Cmd
	lines chan map[string]any // a server's JSON log lines
	out   strings.Builder
	mu    sync.Mutex
	done  chan error
}

func start(path string, args []string, jsonLog bool) (*proc, error) {
	p := &proc{cmd: exec.Command(path, args...), lines: make(chan map[string]any, 64), done: make(chan error, 1)}
	p.cmd.Stdout = &lockedWriter{p}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var l map[string]any
			if jsonLog && json.Unmarshal(sc.Bytes(), &l) == nil {
				if l["msg"] == "listening" || l["msg"] == "match ended" || l["msg"] == "match failed" || l["level"] == "error" {
					select {
					case p.lines <- l:
					default:
					}
				}
			}
		}
		close(p.lines)
		p.done <- p.cmd.Wait()
	}()
	return p, nil
}

type lockedWriter struct{ p *proc }

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.out.Write(b)
}

// waitLine returns p's next log line whose msg is one of msgs.
func (p *proc) waitLine(msgs ...string) (map[string]any, error) {
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return nil, fmt.Errorf("the server exited before logging %q", msgs)
			}
			if slices.Contains(msgs, fmt.Sprint(l["msg"])) {
				return l, nil
			}
		case <-timeout:
			return nil, fmt.Errorf("no %q logged in 2 minutes", msgs)
		}
	}
}

// measure runs n matches at once and measures them.
func measure(o *options, n int, log io.Writer) (row, error) {
	r := row{matches: n}
	var servers, bots []*proc
	defer func() {
		for _, p := range append(servers, bots...) {
			p.cmd.Process.Kill()
		}
		for _, p := range append(servers, bots...) {
			<-p.done
		}
	}()
	var ops []string
	for i := range n {
		args := []string{"-addr", "127.0.0.1", "-port", "0", "-udp-port", "-1", "-ops", "127.0.0.1:0", "-log-format", "json",
			"-players", fmt.Sprint(o.players), "-max-players", fmt.Sprint(max(o.players, 8)), "-ticks", fmt.Sprint(o.ticks),
			"-tick-rate", fmt.Sprint(o.tickRate), "-entities", fmt.Sprint(o.entities), "-match", fmt.Sprintf("load-%d-%d", n, i)}
		if o.extra != "" {
			args = append(args, strings.Fields(o.extra)...)
		}
		p, err := start(o.server, args, true)
		if err != nil {
			return r, err
		}
		servers = append(servers, p)
		l, err := p.waitLine("listening")
		if err != nil {
			return r, fmt.Errorf("server %d: %w", i, err)
		}
		ops = append(ops, fmt.Sprint(l["ops"]))
		b, err := start(o.server, []string{"bot", "-connect", fmt.Sprint(l["tcp"]), "-n", fmt.Sprint(o.players), "-entities", fmt.Sprint(o.entities)}, false)
		if err != nil {
			return r, err
		}
		bots = append(bots, b)
	}
	fmt.Fprintf(log, "nebula-loadtest: %d matches of %d players started\n", n, o.players)

	if err := waitTicks(ops, uint64(o.warmup)); err != nil {
		return r, err
	}
	cpu0, t0 := cpuTimes(servers), time.Now()
	bcpu0 := cpuTimes(bots)
	if err := waitTicks(ops, uint64(o.ticks-o.tickRate)); err != nil {
		return r, err
	}
	cpu1, t1 := cpuTimes(servers), time.Now()
	bcpu1 := cpuTimes(bots)
	var rss float64
	for _, p := range servers {
		rss += float64(rssBytes(p.cmd.Process.Pid))
	}
	r.rssMiB = rss / float64(n) / (1 << 20)
	wall := t1.Sub(t0).Seconds()
	r.serverCores = (cpu1 - cpu0) / wall
	r.botCores = (bcpu1 - bcpu0) / wall

	var p50s, p99s []time.Duration
	ideal := time.Duration(o.ticks)*time.Second/time.Duration(o.tickRate) + 250*time.Millisecond // the server's start delay
	for i, p := range servers {
		l, err := p.waitLine("match ended", "match failed")
		if err != nil {
			return r, fmt.Errorf("server %d: %w", i, err)
		}
		if l["msg"] != "match ended" {
			return r, fmt.Errorf("server %d: match failed: %v", i, l["error"])
		}
		p50, _ := time.ParseDuration(fmt.Sprint(l["tick_p50"]))
		p99, _ := time.ParseDuration(fmt.Sprint(l["tick_p99"]))
		d, _ := time.ParseDuration(fmt.Sprint(l["duration"]))
		p50s, p99s = append(p50s, p50), append(p99s, p99)
		r.overrun = max(r.overrun, d-ideal)
		if err := <-p.done; err != nil {
			return r, fmt.Errorf("server %d: %w", i, err)
		}
		p.done <- nil
		p.mu.Lock()
		subst, inputs := substituted(p.out.String())
		p.mu.Unlock()
		if inputs > 0 {
			r.substitutedPct += 100 * float64(subst) / float64(inputs) / float64(n)
		}
	}
	slices.Sort(p50s)
	slices.Sort(p99s)
	r.p50, r.p99, r.p99Worst = p50s[len(p50s)/2], p99s[len(p99s)/2], p99s[len(p99s)-1]
	return r, nil
}

// waitTicks waits until every server at ops has confirmed tick.
func waitTicks(ops []string, tick uint64) error {
	deadline := time.Now().Add(5 * time.Minute)
	for _, addr := range ops {
		for {
			t, err := scrapeTick(addr)
			if err != nil {
				return err
			}
			if t >= tick {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the server at %s is at tick %d, not %d, after 5 minutes", addr, t, tick)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

// scrapeTick returns nebula_server_tick at the operator port addr.
func scrapeTick(addr string) (uint64, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "nebula_server_tick "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return uint64(f), err
		}
	}
	return 0, fmt.Errorf("no nebula_server_tick at %s", addr)
}

// cpuTimes returns the CPU seconds (user and system) the processes used
// so far.
func cpuTimes(ps []*proc) float64 {
	var total float64
	for _, p := range ps {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.cmd.Process.Pid), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command's name, which is in parentheses.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		utime, _ := strconv.ParseFloat(f[11], 64)
		stime, _ := strconv.ParseFloat(f[12], 64)
		total += (utime + stime) / clockTicks
	}
	return total
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on every
// Linux Go runs on.
const clockTicks = 100

// rssBytes returns the process's resident set (VmRSS).
func rssBytes(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// substituted reads the match report's first line: "..., N of M inputs
// substituted".
func substituted(report string) (n, of int) {
	for _, line := range strings.Split(report, "\n") {
		if !strings.HasPrefix(line, "match report:") {
			continue
		}
		f := strings.Fields(line)
		for i := range f {
			if f[i] == "of" && i > 0 && i+1 < len(f) {
				n, _ = strconv.Atoi(f[i-1])
				of, _ = strconv.Atoi(f[i+1])
			}
		}
	}
	return n, of
}

// cpuModel returns /proc/cpuinfo's model name.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return "?"
}
