package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The latency of a networked player's own input, from its window to its
// screen: the demo's input trace (latency.go, on at -log-level debug) logs
// one "own input shown" line per arrow press; these tests press keys in
// windowed clients with xdotool and read the lines back.

// tracedClient is a windowed client whose own input is traced, and the
// keys pressed in its window.
type tracedClient struct {
	*proc
	keys [2]string // xdotool names, alternated: one way, then back
	win  string
	sent []sentKey
}

// sentKey is one press sent with xdotool: the key, and the wall times
// before xdotool keydown was started and after it returned.
type sentKey struct {
	key        string
	start, end time.Time
}

// startTracedClient starts a windowed client of the server at addr with
// the input trace on, and its own flags.
func startTracedClient(tb testing.TB, x *xserver, name, addr string, keys [2]string, args ...string) *tracedClient {
	tb.Helper()
	// Small windows: two software-rendered windows share two cores with
	// the server and the test.
	all := append([]string{"-connect", addr, "-print-hash", "-log-level", "debug",
		"-width", "320", "-height", "240", "-hitch", "0"}, args...)
	return &tracedClient{proc: startProc(tb, name, x.env, all...), keys: keys}
}

// pressInTurn presses a key in each client's window in turn, rounds times:
// it activates the window (jwm gives it the focus), holds the client's
// next key for hold, releases it and waits gap. Each client's presses are
// thus len(clients)*(hold+gap) apart at least, well over a second: the
// trace tells presses apart by that, and the cube is at rest again.
func pressInTurn(tb testing.TB, x *xserver, clients []*tracedClient, rounds int, hold, gap time.Duration) {
	tb.Helper()
	for i := range rounds {
		for _, c := range clients {
			key := c.keys[i%2]
			x.mustXdo(tb, "windowactivate", "--sync", c.win)
			start := time.Now()
			x.mustXdo(tb, "keydown", key)
			c.sent = append(c.sent, sentKey{key: key, start: start, end: time.Now()})
			time.Sleep(hold)
			x.mustXdo(tb, "keyup", key)
			time.Sleep(gap)
		}
	}
}

// shownPress is one "own input shown" line of a client's trace.
type shownPress struct {
	key                              string
	received, moved, drawn           time.Time
	inputTick, pressTick, movedTick  uint64
	drawnTick, frames, delay         uint64
	heldTick, ahead                  uint64
	movedAfter                       int64
	movedPredicted, movedResimulated bool
	movedWithInput                   bool
	shownAfter                       time.Duration // drawn minus received
	fromXdo                          time.Duration // drawn minus the start of xdotool keydown
	xdoToReceived                    time.Duration // received minus the start of xdotool keydown
	line                             string
}

var logField = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*"|\S*)`)

// logFields returns a logrus text line's fields, unquoted.
func logFields(line string) map[string]string {
	f := map[string]string{}
	for _, m := range logField.FindAllStringSubmatch(line, -1) {
		v := m[2]
		if u, err := strconv.Unquote(v); err == nil && strings.HasPrefix(v, `"`) {
			v = u
		}
		f[m[1]] = v
	}
	return f
}

// logLines returns the lines of stderr whose message is msg.
func logLines(stderr, msg string) []string {
	var lines []string
	for _, line := range strings.Split(stderr, "\n") {
		if logFields(line)["msg"] == msg {
			lines = append(lines, line)
		}
	}
	return lines
}

// shownPresses parses c's "own input shown" lines, and fails tb on a line
// that lacks a figure, on a press the trace could not follow, and unless
// there is one line per key sent, for that key.
func shownPresses(tb testing.TB, c *tracedClient) []shownPress {
	tb.Helper()
	_, errs := c.out()
	if lost := logLines(errs, "own input not traced to the screen"); len(lost) > 0 {
		tb.Errorf("%s: the trace lost presses:\n%s", c.name, strings.Join(lost, "\n"))
	}
	var out []shownPress
	for _, line := range logLines(errs, "own input shown") {
		f := logFields(line)
		num := func(k string) int64 {
			n, err := strconv.ParseInt(f[k], 10, 64)
			if err != nil {
				tb.Fatalf("%s: field %s in %q: %v", c.name, k, line, err)
			}
			return n
		}
		p := shownPress{
			key:       f["key"],
			received:  time.Unix(0, num("received_ns")),
			moved:     time.Unix(0, num("moved_ns")),
			drawn:     time.Unix(0, num("drawn_ns")),
			inputTick: uint64(num("input_tick")), pressTick: uint64(num("press_tick")), movedTick: uint64(num("moved_tick")),
			drawnTick: uint64(num("drawn_tick")), frames: uint64(num("frames")), delay: uint64(num("input_delay")),
			heldTick: uint64(num("held_tick")), ahead: uint64(num("ahead")),
			movedAfter:     num("moved_after"),
			movedPredicted: f["moved_predicted"] == "true", movedResimulated: f["moved_resimulated"] == "true",
			movedWithInput: f["moved_with_input"] == "true",
			line:           line,
		}
		p.shownAfter = p.drawn.Sub(p.received)
		out = append(out, p)
	}
	if len(out) != len(c.sent) {
		tb.Fatalf("%s: %d presses sent, %d traced:\n%s", c.name, len(c.sent), len(out), errs)
	}
	for i := range out {
		// The trace names keys as the engine does ("ArrowRight"),
		// xdotool as X does ("Right").
		if !strings.HasSuffix(out[i].key, c.sent[i].key) {
			tb.Errorf("%s: press %d traced %s, sent %s", c.name, i, out[i].key, c.sent[i].key)
		}
		out[i].fromXdo = out[i].drawn.Sub(c.sent[i].start)
		out[i].xdoToReceived = out[i].received.Sub(c.sent[i].start)
	}
	return out
}

// prediction returns the fields of c's "prediction" line (held_frames,
// frames, stalls, rollbacks ...).
func prediction(tb testing.TB, c *tracedClient) map[string]string {
	tb.Helper()
	_, errs := c.out()
	lines := logLines(errs, "prediction")
	if len(lines) != 1 {
		tb.Fatalf("%s logged %d prediction lines, want 1:\n%s", c.name, len(lines), errs)
	}
	return logFields(lines[0])
}

// logPresses logs a client's traced presses, one line each.
func logPresses(tb testing.TB, c *tracedClient, ps []shownPress) {
	tb.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s: press  key         press>input>moved tick (after)  ahead  pred resim  drawn tick  frames  xdo>recv  recv>drawn  xdo>drawn\n", c.name)
	for i, p := range ps {
		fmt.Fprintf(&b, "%s: %5d  %-10s  %5d > %5d > %5d (%d)  %5d  %5v %5v  %10d  %6d  %8v  %10v  %9v\n", c.name, i, p.key,
			p.pressTick, p.inputTick, p.movedTick, p.movedAfter, p.ahead, p.movedPredicted, p.movedResimulated, p.drawnTick, p.frames,
			p.xdoToReceived.Round(100*time.Microsecond), p.shownAfter.Round(100*time.Microsecond), p.fromXdo.Round(100*time.Microsecond))
	}
	tb.Log(b.String())
}

// median returns the median of ds (the mean of the middle two for an even
// count), 0 for none.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// playTraced runs a match of the clients made by start (one per element of
// names) on a headless server: it waits for their windows, presses keys
// in turn for rounds rounds, and waits for the match to end; every client
// must end with the server's state hash.
func playTraced(tb testing.TB, x *xserver, ticks, rounds int, hold, gap time.Duration, start func(addr string) []*tracedClient) []*tracedClient {
	tb.Helper()
	srv, addr := startServer(tb, "-players", "2", "-ticks", strconv.Itoa(ticks), "-entities", "200", "-print-hash")
	clients := start(addr)
	begin := time.Now()
	for _, c := range clients {
		c.win = clientWindow(tb, x, c.proc)
	}
	waitLog(tb, srv, "match started", 30*time.Second)
	pressInTurn(tb, x, clients, rounds, hold, gap)
	select {
	case <-srv.done:
		tb.Fatalf("the match ended before the keys were all pressed (%v after the start): too few -ticks for this machine", time.Since(begin))
	default:
	}
	tb.Logf("keys pressed %v after the start", time.Since(begin).Round(time.Millisecond))
	want := stateHash(tb, "server", srv.wait(tb, time.Duration(ticks)*time.Second/60+30*time.Second))
	for _, c := range clients {
		if got := stateHash(tb, c.name, c.wait(tb, time.Minute)); got != want {
			tb.Errorf("%s: %q, server %q", c.name, got, want)
		}
	}
	return clients
}

// Two predicting windowed clients (-predict 8 -input-delay 2), one of them
// behind 50 ms +/- 10 ms each way (100 ms round trip), play a match; keys
// pressed in each window with xdotool show in the client's own simulation
// within the input delay, counted in ticks from what the client had:
//
//   - the input clock stamps the press with the tick the input delay after
//     the press's local tick;
//   - the cube first moves in the first simulation whose own input holds
//     the press: the client shows its own input as soon as it has it;
//   - the only delay past the input delay is "ahead": the ticks from the
//     input tick on that the client simulated before that simulation,
//     without the press (its tick clock ran ahead of its input clock, or
//     the server, having got the input late, confirmed them without it).
//
// How many those are is up to the scheduler: the input is sampled on one
// goroutine's timer and the ticks run on the window's frames, and a loaded
// machine delays either (this test once failed with 6 ticks ahead). The
// steering keeps it at 0 on an idle machine; the test logs it and
// BenchmarkOwnInputLatency reports it, neither judges it.
//
// The input delay is 2: at 0 a check of "within the delay" would only say
// "at the same tick"; 2 ticks is a common choice for a client at 100 ms
// (it gives the inputs 33 ms of slack against jitter); a 100 ms round trip
// (6 ticks) plus the delay's 2 just about fits the prediction's window of
// 8. The figures of the felt latency are logged, not checked
// (BenchmarkOwnInputLatency measures them).
func TestOwnKeyShowsWithinInputDelay(t *testing.T) {
	needDisplay(t)
	x := startXServer(t)
	const delay = 2
	clients := playTraced(t, x, 900, 3, 250*time.Millisecond, 450*time.Millisecond, func(addr string) []*tracedClient {
		common := []string{"-predict", "8", "-input-delay", strconv.Itoa(delay), "-fps", "60"}
		return []*tracedClient{
			startTracedClient(t, x, "client A", addr, [2]string{"Right", "Left"}, common...),
			startTracedClient(t, x, "client B (100 ms)", addr, [2]string{"Down", "Up"}, append(common, "-net-delay", "50ms", "-net-jitter", "10ms")...),
		}
	})
	for _, c := range clients {
		ps := shownPresses(t, c)
		logPresses(t, c, ps)
		for i, p := range ps {
			if p.delay != delay {
				t.Fatalf("%s ran with input delay %d, want %d", c.name, p.delay, delay)
			}
			if p.pressTick+delay != p.inputTick {
				t.Errorf("%s press %d: press tick %d, input tick %d: not the input delay apart", c.name, i, p.pressTick, p.inputTick)
			}
			if !p.movedWithInput || p.movedTick != p.heldTick {
				t.Errorf("%s press %d: the cube first moved in tick %d, the first simulation with the press was of tick %d: want the cube moved in that one\n%s",
					c.name, i, p.movedTick, p.heldTick, p.line)
			}
			if p.heldTick > p.inputTick+p.ahead {
				t.Errorf("%s press %d: the first simulation with the press was of tick %d, after input tick %d plus the %d ticks simulated before the press was sampled\n%s",
					c.name, i, p.heldTick, p.inputTick, p.ahead, p.line)
			}
			if p.movedAfter > delay+int64(p.ahead) {
				t.Errorf("%s press %d: the cube first moved in tick %d, %d ticks after the press's tick %d; want at most the input delay, %d, plus the %d ticks simulated before the press was sampled\n%s",
					c.name, i, p.movedTick, p.movedAfter, p.pressTick, delay, p.ahead, p.line)
			}
		}
		pr := prediction(t, c)
		t.Logf("%s: held %s of %s frames (%s); stalls %s, rollbacks %s, tick clock adjustments %s",
			c.name, pr["held_frames"], pr["frames"], pr["held_time"], pr["stalls"], pr["rollbacks"], pr["tick_clock_adjustments"])
	}
}

// BenchmarkOwnInputLatency measures the felt latency of a player's own
// key, prediction against lockstep, in one match at 100 ms round trip:
// two windowed clients, both behind -net-delay 50ms (each way), one
// predicting (-predict 8) and one in lockstep (-predict 0), both with
// -input-delay 2 and -fps 60, take turns: a press in one window, then one
// in the other, 12 rounds. Each press is timed from the window's receipt
// of the key event (the frame's event poll; one clock, in the client) and
// from the start of xdotool keydown (an upper bound on the X event's time,
// on the same machine's wall clock) to the return of the swap of the first
// frame that drew the client's own cube moved. It reports the medians, in
// milliseconds and frames, and the frames each window held (a tick the
// rollback was not ready for: the frame drew the last tick again)
// under the steered tick clock, per thousand frames, and the median of
// how many ticks the tick clock had run ahead of the press's input tick
// when the press was sampled (0 when the steering holds). The figures are
// logged press by press with -v.
//
// Targets: with prediction, at most the input delay plus one frame
// (33 + 17 ms at 60 Hz); in lockstep, about a round trip more.
func BenchmarkOwnInputLatency(b *testing.B) {
	needDisplay(b)
	x := startXServer(b)
	rounds := benchSize(12, 1)
	type mode struct {
		name        string
		recv, xdo   []time.Duration
		frames      []time.Duration // counted in whole frames; Duration for median
		ticks       []time.Duration
		ahead       []time.Duration // ticks simulated before the press was sampled
		held, total float64         // frames held, and all frames
	}
	modes := []*mode{{name: "predict"}, {name: "lockstep"}}
	for range b.N {
		clients := playTraced(b, x, benchSize(1800, 600), rounds, 250*time.Millisecond, 450*time.Millisecond, func(addr string) []*tracedClient {
			net := []string{"-input-delay", "2", "-fps", "60", "-net-delay", "50ms"}
			return []*tracedClient{
				startTracedClient(b, x, "predict 8", addr, [2]string{"Right", "Left"}, append([]string{"-predict", "8"}, net...)...),
				startTracedClient(b, x, "lockstep", addr, [2]string{"Down", "Up"}, append([]string{"-predict", "0"}, net...)...),
			}
		})
		for i, c := range clients {
			m := modes[i]
			ps := shownPresses(b, c)
			logPresses(b, c, ps)
			for _, p := range ps {
				m.recv = append(m.recv, p.shownAfter)
				m.xdo = append(m.xdo, p.fromXdo)
				m.frames = append(m.frames, time.Duration(p.frames))
				m.ticks = append(m.ticks, time.Duration(p.movedAfter))
				m.ahead = append(m.ahead, time.Duration(p.ahead))
			}
			pr := prediction(b, c)
			num := func(k string) float64 {
				v, err := strconv.ParseFloat(pr[k], 64)
				if err != nil {
					b.Fatalf("%s: prediction field %s: %v", c.name, k, err)
				}
				return v
			}
			m.held += num("held_frames")
			m.total += num("frames")
			b.Logf("%s: held %s of %s frames (%s); stalls %s (%s), rollbacks %s, depth mean %s max %s, tick clock adjustments %s",
				c.name, pr["held_frames"], pr["frames"], pr["held_time"], pr["stalls"], pr["stall_time"], pr["rollbacks"],
				pr["depth_mean"], pr["depth_max"], pr["tick_clock_adjustments"])
		}
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	for _, m := range modes {
		b.Logf("%-8s %d presses: median receipt->drawn %v, xdotool->drawn %v, %d frames, moved %d ticks after the press's tick; held %.0f of %.0f frames",
			m.name, len(m.recv), median(m.recv).Round(100*time.Microsecond), median(m.xdo).Round(100*time.Microsecond),
			median(m.frames), median(m.ticks), m.held, m.total)
		b.ReportMetric(ms(median(m.recv)), m.name+"-recv-drawn-ms")
		b.ReportMetric(ms(median(m.xdo)), m.name+"-xdo-drawn-ms")
		b.ReportMetric(float64(median(m.frames)), m.name+"-frames")
		b.ReportMetric(1000*m.held/max(m.total, 1), m.name+"-held/kframe")
		b.ReportMetric(float64(median(m.ahead)), m.name+"-ahead-ticks")
	}
	b.ReportMetric(0, "ns/op") // a whole match per op says nothing
}
