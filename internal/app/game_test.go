package app_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nebulaengine/nebula/engine"
	"github.com/nebulaengine/nebula/engine/replay"
	"github.com/nebulaengine/nebula/internal/app"
	"github.com/nebulaengine/nebula/internal/cli"
)

// arena is a small game that is not the demo: its own component and
// resource, its own flags (-arena, which its recordings and matches carry,
// and -taunt, which they do not), and recording and multiplayer from
// package app alone: Records and Networked set, nothing else written.
type arena struct {
	half  float64 // -arena: half the arena's width
	taunt bool    // -taunt: the player's cube says so in the log (not simulation)
}

func (a *arena) game() app.Game {
	return app.Game{
		Flags: func(fs *flag.FlagSet) {
			fs.Float64Var(&a.half, "arena", 10, "half the arena's `width`")
			fs.BoolVar(&a.taunt, "taunt", false, "log a taunt")
		},
		Check: func(*cli.Options) error {
			if a.half <= 0 || a.half > 1000 {
				return cli.Usagef("-arena %v: must be above 0 and at most 1000", a.half)
			}
			return nil
		},
		Scene:     "arena-test",
		Params:    []string{"arena"},
		Records:   true,
		Networked: true,
		Run:       a.run,
	}
}

// hp is the arena's component: every player's cube loses a point each time
// it hits a wall.
type hp struct{ Points int32 }

func (a *arena) run(s *app.Session) error {
	e, err := engine.New(s.EngineConfig())
	if err != nil {
		return err
	}
	health := engine.NewComponent[hp](e.World, "hp")
	xs := engine.NewResource[[engine.MaxPlayers]float32](e.World, "x", [engine.MaxPlayers]float32{})
	// A cube for each of two players, spawned before the first tick (the
	// fixed systems only read the handles: the world holds the state).
	var cubes [2]engine.Entity
	for i := range cubes {
		cubes[i] = e.World.Spawn(engine.NewTransform([3]float32{float32(i), 0, 0}), engine.Interpolate)
		health.Set(cubes[i], hp{Points: 100})
	}
	half := float32(a.half)
	e.AddFixed("move", func(c *engine.FixedContext) {
		step := func(id engine.PlayerID, in *engine.InputSnapshot) {
			if int(id) >= len(cubes) {
				return
			}
			cube := cubes[id]
			x := &xs.Ptr()[id]
			if in.Down(engine.KeyArrowRight) {
				*x += float32(5 * c.DT)
			}
			if in.Down(engine.KeyArrowLeft) {
				*x -= float32(5 * c.DT)
			}
			if *x > half || *x < -half {
				*x = min(max(*x, -half), half)
				health.Ptr(cube).Points--
			}
		}
		for i := range c.Players.Len() {
			step(c.Players.At(i))
		}
	})
	// Player p holds right for 40+p ticks, then left, and again.
	p := uint64(s.Player())
	e.SetInputScript(func(tick uint64, due time.Duration, in *engine.Input) {
		switch (tick + 7*p) % 80 {
		case 0:
			in.Push(engine.InputEvent{Time: due, Kind: engine.KeyUp, Key: engine.KeyArrowLeft})
			in.Push(engine.InputEvent{Time: due, Kind: engine.KeyDown, Key: engine.KeyArrowRight})
		case 40 + p%10:
			in.Push(engine.InputEvent{Time: due, Kind: engine.KeyUp, Key: engine.KeyArrowRight})
			in.Push(engine.InputEvent{Time: due, Kind: engine.KeyDown, Key: engine.KeyArrowLeft})
		}
	})
	if a.taunt {
		s.Log.Info("come and get me")
	}
	return s.RunHeadless(e)
}

// syncBuffer is a bytes.Buffer that several goroutines may write and read.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// play runs the arena game in this process with args.
func play(args ...string) (int, string, string) {
	var stdout, stderr syncBuffer
	code := app.Main("arena", args, &stdout, &stderr, (&arena{}).game())
	return code, stdout.String(), stderr.String()
}

var hashLine = regexp.MustCompile(`state-hash (\d+) ([0-9a-f]{16})\n`)

// A game that only sets Records records with -record, and -replay -verify
// checks the file, taking -arena from it; the recording's header carries
// the game's parameter, and a conflicting -arena is refused.
func TestGameRecordsAndVerifies(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "arena.rep")
	code, out, errs := play("-headless", "-ticks", "600", "-arena", "2.5", "-taunt", "-record", path, "-print-hash", "-log-level", "error")
	if code != 0 {
		t.Fatalf("recording: status %d: %s", code, errs)
	}
	want := hashLine.FindString(out)
	if !strings.HasPrefix(want, "state-hash 600 ") {
		t.Fatalf("recording printed %q, want a state-hash line at tick 600", out)
	}
	// Another -arena is another game: the hash differs.
	if _, other, _ := play("-headless", "-ticks", "600", "-arena", "9", "-print-hash", "-log-level", "error"); other == out {
		t.Fatalf("-arena changes nothing: %q", other)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replay.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	p, err := app.ParseParams(r.Header.Params)
	if err != nil || len(p) != 1 || p["arena"] != "2.5" || r.Header.Scene != "arena-test" {
		t.Fatalf("header: scene %q, params %v (%v); want arena-test and arena=2.5 only", r.Header.Scene, p, err)
	}

	code, out, errs = play("-replay", path, "-headless", "-verify", "-print-hash", "-log-level", "error")
	if code != 0 || out != "replay ok 600\n"+want {
		t.Errorf("verify: status %d, stdout %q, stderr %q; want %q", code, out, errs, "replay ok 600\n"+want)
	}
	code, _, errs = play("-replay", path, "-headless", "-verify", "-arena", "3", "-log-level", "error")
	const conflict = "header field arena: the recording has 2.5, but -arena 3 was given (leave the flag out: a replay takes it from the file)"
	if code != 1 || !strings.Contains(errs, conflict) || strings.Count(errs, "\n") != 1 {
		t.Errorf("a conflicting -arena: status %d, stderr %q; want 1 and %q", code, errs, conflict)
	}
	// A game without Records has no such flags.
	g := (&arena{}).game()
	g.Records, g.Networked = false, false
	var stderr bytes.Buffer
	if code := app.Main("arena", []string{"-record", path}, &bytes.Buffer{}, &stderr, g); code != 2 || !strings.Contains(stderr.String(), "flag provided but not defined: -record") {
		t.Errorf("-record without Records: status %d, %q", code, stderr.String())
	}
}

// A game that only sets Networked serves a two-player match on loopback
// (-serve) and its clients join it (-connect): all three end at the
// match's last tick with the same state hash; the clients took -arena from
// the server, and the server's recording verifies.
func TestGamePlaysATwoPlayerMatch(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "match.rep")
	type result struct {
		code     int
		out, err string
	}
	var srvOut, srvErr syncBuffer
	srvDone := make(chan result, 1)
	go func() {
		code := app.Main("arena", []string{"-serve", "127.0.0.1:0", "-players", "2", "-ticks", "300", "-arena", "3", "-record", rec, "-print-hash", "-log-level", "warn"}, &srvOut, &srvErr, (&arena{}).game())
		srvDone <- result{code, srvOut.String(), srvErr.String()}
	}()
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == ""; {
		if m := regexp.MustCompile(`listening on (\S+)\n`).FindStringSubmatch(srvOut.String()); m != nil {
			addr = m[1]
			break
		}
		select {
		case r := <-srvDone:
			t.Fatalf("the server ended before listening: status %d: %s", r.code, r.err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not listen within 30 s")
		}
	}
	clients := make(chan result, 2)
	for i := range 2 {
		args := []string{"-connect", addr, "-headless", "-print-hash", "-log-level", "warn"}
		if i == 1 {
			args = append(args, "-arena", "7") // ignored, with a warning: the server's counts
		}
		go func() {
			code, out, errs := play(args...)
			clients <- result{code, out, errs}
		}()
	}
	var srv result
	select {
	case srv = <-srvDone:
	case <-time.After(90 * time.Second):
		t.Fatalf("the match did not end within 90 s; server stdout:\n%s\nstderr:\n%s", srvOut.String(), srvErr.String())
	}
	if srv.code != 0 {
		t.Fatalf("server: status %d\n%s\n%s", srv.code, srv.out, srv.err)
	}
	want := hashLine.FindString(srv.out)
	if !strings.HasPrefix(want, "state-hash 300 ") || !strings.Contains(srv.out, "2 players") {
		t.Fatalf("server printed %q, want a 2-player report and a state-hash line at tick 300", srv.out)
	}
	warned := 0
	for range 2 {
		var c result
		select {
		case c = <-clients:
		case <-time.After(30 * time.Second):
			t.Fatal("a client did not end within 30 s of the server")
		}
		if got := hashLine.FindString(c.out); c.code != 0 || got != want {
			t.Errorf("client: status %d, hash %q, want %q\n%s", c.code, got, want, c.err)
		}
		if strings.Contains(c.err, `ignored: the game's parameters are the server's`) && strings.Contains(c.err, "flag=-arena") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("%d clients warned that their -arena was ignored, want 1", warned)
	}
	code, out, errs := play("-replay", rec, "-headless", "-verify", "-print-hash", "-log-level", "error")
	if code != 0 || out != "replay ok 300\n"+want {
		t.Errorf("verifying the match: status %d, stdout %q, stderr %q", code, out, errs)
	}
	t.Logf("match at %s: %s", addr, strings.TrimSpace(want))
}
