package gameserver

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/input"
	"github.com/nebulaengine/nebula/engine/netplay"
	"github.com/nebulaengine/nebula/internal/cli"
)

// testGame is a small game: a counter resource that every tick adds the
// players' pressed keys to, and a -step flag sent to the clients.
func testGame() Game {
	var step int
	return Game{
		Scene:  "gameserver-test",
		Flags:  func(fs *flag.FlagSet) { fs.IntVar(&step, "step", 1, "what a key adds") },
		Params: []string{"step"},
		Setup: func(e *engine.Engine) error {
			sum := engine.NewResource[int64](e.World, "sum", 0)
			n := int64(step)
			e.AddSystem(engine.StageScripts, "sum", func(c *engine.FixedContext) {
				for i := range c.Players.Len() {
					if _, in := c.Players.At(i); in.Down(input.KeySpace) {
						*sum.Ptr() += n
					}
				}
				*sum.Ptr() += int64(c.Tick)
			})
			return nil
		},
		Script: func(p engine.PlayerID) func(uint64, time.Duration, *input.Queue) {
			return func(tick uint64, due time.Duration, q *input.Queue) {
				switch tick % 3 {
				case uint64(p) % 3:
					q.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeySpace})
				case (uint64(p) + 1) % 3:
					q.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeySpace})
				}
			}
		},
	}
}

// noEnv is an empty environment.
func noEnv(string) (string, bool) { return "", false }

// Main runs a match in this process: an extension's hooks are called in
// their order, with the ports open at Listening and the match's report
// at Ended; its trace sees every tick; two bots of the bot subcommand
// play to the end with the server's hash and the server's -step.
func TestMainRunsAMatchWithAnExtension(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	var ticks int
	var stepFlag int
	addr := make(chan string, 1)
	call := func(s string) { mu.Lock(); calls = append(calls, s); mu.Unlock() }
	ext := Extension{
		Name:  "test",
		Flags: func(fs *flag.FlagSet) { call("flags"); fs.IntVar(&stepFlag, "test-ext", 0, "an extension's flag") },
		Check: func() error { call("check"); return nil },
		Configure: func(s *Server) error {
			call("configure")
			if s.Config.Players != 2 || s.Config.Ticks != 90 || s.MatchID != "ext-match" {
				t.Errorf("Configure saw players %d, ticks %d, match %q", s.Config.Players, s.Config.Ticks, s.MatchID)
			}
			return nil
		},
		Trace: &netplay.ServerTrace{TickConfirmed: func(uint64, time.Duration) { mu.Lock(); ticks++; mu.Unlock() }},
		Listening: func(ctx context.Context, s *Server) error {
			call("listening")
			addr <- s.Addrs[0].String()
			return nil
		},
		Ended: func(s *Server, rep netplay.Report, err error) error {
			call("ended")
			if err != nil || rep.Ticks != 90 {
				t.Errorf("Ended saw %d ticks, error %v", rep.Ticks, err)
			}
			return nil
		},
	}
	p := Program{Name: "test-server", Game: testGame(), Extensions: []Extension{ext}}
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(p, []string{"-addr", "127.0.0.1", "-port", "0", "-udp-port", "-1", "-players", "2", "-ticks", "90",
			"-match", "ext-match", "-step", "5", "-test-ext", "3"}, noEnv, &stdout, &stderr)
	}()
	var a string
	select {
	case a = <-addr:
	case code := <-done:
		t.Fatalf("Main returned %d before listening: %s", code, stderr.String())
	}
	var botOut, botErr bytes.Buffer
	if code := Main(Program{Name: "test-server", Game: testGame()}, []string{"bot", "-connect", a, "-n", "2"}, noEnv, &botOut, &botErr); code != ExitOK {
		t.Fatalf("bot: exit %d: %s", code, botErr.String())
	}
	if code := <-done; code != ExitOK {
		t.Fatalf("Main: exit %d: %s", code, stderr.String())
	}
	if want := []string{"flags", "check", "configure", "listening", "ended"}; !slices.Equal(calls, want) || ticks != 90 || stepFlag != 3 {
		t.Errorf("calls %v, %d ticks traced, -test-ext %d; want %v, 90, 3", calls, ticks, stepFlag, want)
	}
	hash := regexp.MustCompile(`(?m)^state-hash 90 ([0-9a-f]{16})$`).FindStringSubmatch(stdout.String())
	if hash == nil {
		t.Fatalf("server output %q", stdout.String())
	}
	lines := strings.Split(strings.TrimSpace(botOut.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("bot output %q", botOut.String())
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, ` ticks 90 end "last tick" hash `+hash[1]) {
			t.Errorf("bot line %q, want the server's hash %s at tick 90", l, hash[1])
		}
	}
	// The bots were not given -step: their equal hashes show they took
	// the server's 5 (their own default is 1), which the server lists.
	if !strings.Contains(stderr.String(), `"step":"5"`) {
		t.Errorf("the listening line does not carry the game's parameter: %s", stderr.String())
	}
}

// An extension that fails at Listening ends the program with ExitFailed
// before the match, naming the extension.
func TestExtensionFailure(t *testing.T) {
	ext := Extension{Name: "sdk", Listening: func(context.Context, *Server) error { return io.ErrUnexpectedEOF }}
	var stderr bytes.Buffer
	code := Main(Program{Name: "s", Game: testGame(), Extensions: []Extension{ext}},
		[]string{"-addr", "127.0.0.1", "-port", "0", "-udp-port", "0"}, noEnv, io.Discard, &stderr)
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if code != ExitFailed || lines[len(lines)-1] != "s: sdk: unexpected EOF" {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
}

// Environment variables set the flags not given; a flag given wins; a
// bad value is a usage error naming the variable.
func TestEnvironment(t *testing.T) {
	env := map[string]string{"NEBULA_PORT": "7100", "NEBULA_PLAYERS": "3", "NEBULA_STEP": "4", "NEBULA_LOG_FORMAT": "text"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	p := Program{Name: "s", Game: testGame()}
	c, err := parseConfig(&p, []string{"-players", "2"}, lookup, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.port != 7100 || c.players != 2 || c.fs.Lookup("step").Value.String() != "4" || c.logFormat != "text" {
		t.Errorf("port %d, players %d, step %s, log format %s; want 7100, 2 (the flag's), 4, text", c.port, c.players, c.fs.Lookup("step").Value, c.logFormat)
	}
	if len(c.matchID) != 16 {
		t.Errorf("match id %q, want 16 hex digits", c.matchID)
	}
	env["NEBULA_UDP_PORT"] = "x"
	if _, err := parseConfig(&p, nil, lookup, io.Discard); err == nil || err.Error() != `NEBULA_UDP_PORT="x": invalid value for -udp-port: parse error` {
		t.Errorf("bad variable: %v", err)
	}
	if EnvName("ops-linger") != "NEBULA_OPS_LINGER" {
		t.Errorf("EnvName(ops-linger) = %s", EnvName("ops-linger"))
	}
}

func TestCheckMatchID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"a", true}, {"match-1.eu_west", true}, {strings.Repeat("x", 64), true},
		{"", false}, {strings.Repeat("x", 65), false}, {"a/b", false}, {"é", false}, {"a b", false},
	} {
		if err := checkMatchID(tc.id); (err == nil) != tc.ok {
			t.Errorf("checkMatchID(%q) = %v, want ok %v", tc.id, err, tc.ok)
		}
	}
}

// mergeTraces calls every trace's functions, leaving out nil ones.
func TestMergeTraces(t *testing.T) {
	var got []string
	a := &netplay.ServerTrace{Desync: func() { got = append(got, "a desync") }, BytesRead: func(n int) { got = append(got, "a read") }}
	b := &netplay.ServerTrace{Desync: func() { got = append(got, "b desync") }, Resumed: func(tick uint64) {
		if tick == 7 {
			got = append(got, "b resumed 7")
		}
	}}
	if mergeTraces(nil, nil) != nil || mergeTraces(nil, a) != a {
		t.Error("mergeTraces of one trace should be it, of none nil")
	}
	m := mergeTraces(a, nil, b)
	m.Desync()
	m.BytesRead(3)
	m.Resumed(7)
	if m.Resync != nil || m.TickConfirmed != nil {
		t.Error("a field no trace sets should stay nil")
	}
	if want := []string{"a desync", "b desync", "a read", "b resumed 7"}; !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
}

// A merged listener accepts the connections of all its listeners, and
// Close closes them all.
func TestMergedListener(t *testing.T) {
	l1, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := mergeListeners(l1, l2)
	for _, l := range []net.Listener{l1, l2} {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		got, err := m.Accept()
		if err != nil {
			t.Fatal(err)
		}
		if got.LocalAddr().String() != l.Addr().String() {
			t.Errorf("accepted on %v, want %v", got.LocalAddr(), l.Addr())
		}
		got.Close()
	}
	if m.Addr() != l1.Addr() {
		t.Errorf("Addr %v, want the first listener's %v", m.Addr(), l1.Addr())
	}
	m.Close()
	if _, err := m.Accept(); err == nil {
		t.Error("Accept after Close succeeded")
	}
	if _, err := net.Dial("tcp", l2.Addr().String()); err == nil {
		t.Error("the second listener still accepts after Close")
	}
}

// shotCounters maps each engine the shooter game set up to its counter.
var shotCounters sync.Map // *engine.Engine -> *engine.Resource[int64]

// shooter is a game that declares its actions once: "shoot" bound to F,
// and a counter of the shots its players fire; the bots' script presses F
// every 10 ticks. panicAt, if not 0, makes the simulation panic there.
func shooter(panicAt uint64) Game {
	const shoot input.Action = 0
	return Game{
		Scene:   "gameserver-shooter",
		Actions: input.ActionMap{Names: []string{"shoot"}, Bindings: "shoot key F\n"},
		Setup: func(e *engine.Engine) error {
			shots := engine.NewResource[int64](e.World, "shots", 0)
			shotCounters.Store(e, shots)
			e.AddSystem(engine.StageScripts, "shoot", func(c *engine.FixedContext) {
				if c.Tick == panicAt {
					panic("the shooter's bug")
				}
				for i := range c.Players.Len() {
					if _, in := c.Players.At(i); in.ActionPressed(shoot) {
						*shots.Ptr()++
					}
				}
			})
			return nil
		},
		Script: func(engine.PlayerID) func(uint64, time.Duration, *input.Queue) {
			return func(tick uint64, due time.Duration, q *input.Queue) {
				switch tick % 10 {
				case 1:
					q.Push(input.Event{Time: due, Kind: input.KeyDown, Key: input.KeyF})
				case 2:
					q.Push(input.Event{Time: due, Kind: input.KeyUp, Key: input.KeyF})
				}
			}
		},
	}
}

// serveShooter runs a match of the shooter game in this process, with
// args beside a free loopback TCP port, and returns its address, and a
// channel that gets Main's status and the shots the server's world
// counted.
func serveShooter(t *testing.T, g Game, args ...string) (string, <-chan [2]int64, *syncBuf) {
	t.Helper()
	addr := make(chan string, 1)
	shots := make(chan int64, 1)
	ext := Extension{
		Name:      "look",
		Listening: func(_ context.Context, s *Server) error { addr <- s.Addrs[0].String(); return nil },
		Ended: func(s *Server, _ netplay.Report, _ error) error {
			r, _ := shotCounters.Load(s.Engine)
			shots <- r.(*engine.Resource[int64]).Get()
			return nil
		},
	}
	var stderr syncBuf
	done := make(chan [2]int64, 1)
	go func() {
		code := Main(Program{Name: "shooter-server", Game: g, Extensions: []Extension{ext}},
			append([]string{"-addr", "127.0.0.1", "-port", "0", "-udp-port", "-1", "-log-level", "warn"}, args...), noEnv, io.Discard, &stderr)
		var n int64 = -1
		select {
		case n = <-shots:
		default:
		}
		done <- [2]int64{int64(code), n}
	}()
	select {
	case a := <-addr:
		return a, done, &stderr
	case r := <-done:
		t.Fatalf("the server ended (%d) before listening: %s", r[0], stderr.String())
	}
	return "", nil, nil
}

// syncBuf is a bytes.Buffer safe for a writing and a reading goroutine.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuf) Write(p []byte) (int, error) { b.mu.Lock(); defer b.mu.Unlock(); return b.b.Write(p) }
func (b *syncBuf) String() string              { b.mu.Lock(); defer b.mu.Unlock(); return b.b.String() }

// A bot whose script presses the key bound to "shoot" shoots: the game
// declares its actions once (Game.Actions), the bot resolves them, and
// the server's simulation counts the shots; the bot ends with the
// server's state.
func TestBotActionsReachTheServer(t *testing.T) {
	a, done, stderr := serveShooter(t, shooter(0), "-ticks", "60")
	var botOut, botErr bytes.Buffer
	if code := Main(Program{Name: "shooter-server", Game: shooter(0)}, []string{"bot", "-connect", a}, noEnv, &botOut, &botErr); code != ExitOK {
		t.Fatalf("bot: exit %d: %s", code, botErr.String())
	}
	r := <-done
	if r[0] != ExitOK {
		t.Fatalf("server: exit %d: %s", r[0], stderr.String())
	}
	// The bot presses F at ticks 1, 11, ..., 51 of its input: 6 shots,
	// give or take the inputs the server substituted for late ones (a
	// substitute repeats the last input, press included). Without the
	// game's actions the bot's input carried none: 0.
	if r[1] < 1 {
		t.Errorf("the server's world counted %d shots, want some", r[1])
	}
	t.Logf("%d shots; bot: %s", r[1], strings.TrimSpace(botOut.String()))
}

// A match that fails (a panic in the simulation) is announced to its
// clients as failed, not as a shutdown: the bot exits ExitFailed saying
// so, and the server ExitFailed.
func TestFailedMatchFailsTheBot(t *testing.T) {
	a, done, stderr := serveShooter(t, shooter(20), "-ticks", "600")
	var botOut, botErr bytes.Buffer
	code := Main(Program{Name: "shooter-server", Game: shooter(20)}, []string{"bot", "-connect", a}, noEnv, &botOut, &botErr)
	if code != ExitFailed || !strings.Contains(botErr.String(), "shooter-server bot: bot 0: the match failed on the server at tick 19") {
		t.Errorf("bot: exit %d, stdout %q, stderr %q; want %d and the match's failure", code, botOut.String(), botErr.String(), ExitFailed)
	}
	if r := <-done; r[0] != ExitFailed {
		t.Errorf("server: exit %d, want %d: %s", r[0], ExitFailed, stderr.String())
	}
}

// Game.CheckOptions has app.Game.Check's shape: it sees which flags were
// given (on the command line or in the environment) and what the server
// knows; its error is bad usage. The deprecated Check still runs.
func TestCheckOptions(t *testing.T) {
	g := testGame()
	var saw *cli.Options
	g.CheckOptions = func(opts *cli.Options) error {
		saw = opts
		if opts.Given("step") {
			return cli.Usagef("-step: not today")
		}
		return nil
	}
	oldCalled := false
	g.Check = func() error { oldCalled = true; return nil }
	p := Program{Name: "s", Game: g}
	env := func(k string) (string, bool) { return "9", k == "NEBULA_STEP" }
	if _, err := parseConfig(&p, []string{"-tick-rate", "30", "-seed", "5"}, env, io.Discard); err == nil || err.Error() != "-step: not today" {
		t.Errorf("-step from the environment: %v", err)
	}
	if saw == nil || saw.TickRate != 30 || saw.Seed != 5 || !saw.Headless || !saw.Given("tick-rate") || saw.Given("players") {
		t.Errorf("CheckOptions saw %+v", saw)
	}
	if _, err := parseConfig(&p, nil, noEnv, io.Discard); err != nil || !oldCalled {
		t.Errorf("no -step: %v, the deprecated Check called %v", err, oldCalled)
	}
	var stderr bytes.Buffer
	if code := Main(p, []string{"bot", "-connect", "127.0.0.1:1", "-step", "2"}, noEnv, io.Discard, &stderr); code != ExitUsage || stderr.String() != "s bot: -step: not today\n" {
		t.Errorf("bot -step: exit %d, %q", code, stderr.String())
	}
}

// A game's own server binary names itself in its help, not nebula-server.
func TestHelpNamesTheProgram(t *testing.T) {
	var stderr bytes.Buffer
	if code := Main(Program{Name: "arena-server", Game: testGame()}, []string{"-h"}, noEnv, io.Discard, &stderr); code != ExitOK {
		t.Fatalf("-h: exit %d", code)
	}
	if h := stderr.String(); strings.Contains(h, "nebula-server") || !strings.Contains(h, "arena-server token -new-key makes one") {
		t.Errorf("help:\n%s", h)
	}
	stderr.Reset()
	Main(Program{Name: "arena-server", Game: testGame()}, []string{"bot", "-h"}, noEnv, io.Discard, &stderr)
	if h := stderr.String(); strings.Contains(h, "nebula-server") || !strings.Contains(h, "arena-server token prints them") {
		t.Errorf("bot help:\n%s", h)
	}
}
